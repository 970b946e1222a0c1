"""Random native-interpreter scenarios, and Karmada's answers to them.

Each scenario is made from its seed alone (`scenario`): one operation of the native interpreter
(GetReplicas, ReviseReplica, Retain, AggregateStatus, ReflectStatus, InterpretHealth,
GetDependencies) on one object of a kind Karmada's native rules know (Deployment, ReplicaSet,
StatefulSet, DaemonSet, Job, CronJob, Pod, Service, Ingress, PersistentVolume(Claim),
PodDisruptionBudget, HorizontalPodAutoscaler, ServiceAccount, Secret, ServiceImport) or of a
kind they do not, with the operation's inputs: a replica count, the member's object, or one
status item per member cluster. Objects are plausible first (pod templates with requests and
limits of every resource, node constraints, volumes, env and pull secrets; statuses with
counters, conditions, load balancers, phases and times; a template to aggregate sometimes
holding a member's status respelled: times of the same instant, integers as floats, Go zero
values), then edge values: null, empty objects and lists, wrong types, floats, unusual strings
and times, odd apiVersions.

The answers in testdata/karmada_interpreter_answers.json are what Karmada's own default native
interpreter gave for each (bench/karmada_interpreter.go): that it has no rule for the kind
(`enabled: false`), that it failed (`error`), the health, or a digest of the answer (`digest`:
replicas and requirements, the object, the status or the dependencies). To make them again
(after a change to this generator, or for another Karmada), from the repository root:

    python tests/interpreter/interpreter_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they were
made.

Left out on purpose, being deliberate differences (docs/karmada-compatibility.md): a field of
the wrong type where the rule does not read it (Karmada converts the whole object, or a member's
whole status, first), numbers beyond Go's int32 and int64 (Karmada wraps them), a workload to
reflect without the template-generation annotation (Karmada always writes one), and what
Karmada's round trip through the Go type adds to, drops from or respells in an object it
returns: objects hold only fields of their Go type, a template to aggregate has none of the
status fields no rule writes, no list item is null or empty, and answers are compared as
`reduce` says (empty values left out; an aggregated object by its status, a retained Pod by its
retained fields). What Karmada leaves to chance is not compared either: one kind's dependencies
come in the random order of a Go set, an aggregated Job's conditions are timed by its clock.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import kube_docs  # next to this file, on the path when run or imported by its test

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_interpreter_answers.json"
SEEDS = 2100

OPERATIONS = (
    "GetReplicas",
    "ReviseReplica",
    "Retain",
    "AggregateStatus",
    "ReflectStatus",
    "InterpretHealth",
    "GetDependencies",
)
HANDLED: dict[str, tuple[str, ...]] = {
    "GetReplicas": ("Deployment", "ReplicaSet", "StatefulSet", "Job", "Pod"),
    "ReviseReplica": ("Deployment", "ReplicaSet", "StatefulSet", "Job"),
    "Retain": (
        "Deployment",
        "Pod",
        "Service",
        "ServiceAccount",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "Job",
        "Secret",
    ),
    "AggregateStatus": (
        "Deployment",
        "ReplicaSet",
        "Service",
        "Ingress",
        "Job",
        "CronJob",
        "DaemonSet",
        "StatefulSet",
        "Pod",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
    ),
    "ReflectStatus": (
        "Deployment",
        "ReplicaSet",
        "Service",
        "Ingress",
        "Job",
        "DaemonSet",
        "StatefulSet",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Pod",
        "PersistentVolumeClaim",
    ),
    "InterpretHealth": (
        "Deployment",
        "StatefulSet",
        "ReplicaSet",
        "DaemonSet",
        "Service",
        "Ingress",
        "PersistentVolumeClaim",
        "Pod",
        "PodDisruptionBudget",
    ),
    "GetDependencies": (
        "Deployment",
        "ReplicaSet",
        "Job",
        "CronJob",
        "Pod",
        "DaemonSet",
        "StatefulSet",
        "Ingress",
        "ServiceImport",
    ),
}
API_VERSIONS = {
    **kube_docs.API_VERSIONS,
    **dict.fromkeys(
        (
            "Pod",
            "Service",
            "ServiceAccount",
            "Secret",
            "PersistentVolume",
            "PersistentVolumeClaim",
            "ConfigMap",
        ),
        "v1",
    ),
}
OTHER_API_VERSIONS = {
    "apps/v1": ("apps/v1beta2", "extensions/v1beta1"),
    "batch/v1": ("batch/v1beta1",),
    "v1": ("/v1", "core/v1", "v2"),
    "networking.k8s.io/v1": ("extensions/v1beta1", "networking.k8s.io/v1beta1"),
    "policy/v1": ("policy/v1beta1",),
    "autoscaling/v2": ("autoscaling/v1", "autoscaling/v2beta2"),
    "multicluster.x-k8s.io/v1alpha1": ("multicluster.x-k8s.io/v1beta1",),
}
TIMES = (
    "2024-01-01T00:00:00Z",
    "2024-03-05T10:20:30Z",
    "2023-12-31T23:59:59Z",
    "2024-03-05T12:20:30+02:00",
    "2024-03-05T10:20:30.123Z",
    "2024-03-05T10:20:30.5+01:00",
    "2024-03-05T10:20:30,25-00:00",
    "2024-03-05T10:20:30+24:00",
    "2024-03-05T10:20:30-05:60",
)
ODD_TIMES = (
    "2024-03-05T10:20:30z",
    "2024-03-05 10:20:30Z",
    "yesterday",
    "",
    "2024-03-05",
    "2024-03-05T10:20:30+25:00",
    "2024-02-30T10:20:30Z",
)
CPU = ("100m", "250m", "0.5", "1", "2", "1500m", 1, 2, "0", "1.5", "10m", "1e3", "0.1")
MEMORY = ("64Mi", "128Mi", "1Gi", "500M", "1G", "0", "2Gi", 1024, "1.5Gi", "100k")
SCALARS = ("nvidia.com/gpu", "example.com/foo", "hugepages-2Mi", "ephemeral-storage", "pods")
ODD_VALUES: tuple[Any, ...] = (None, {}, [], "", "x", 0, -1, 1.5, 2.0, True, "3", {"a": 1}, [1])


def canonical(value: Any) -> Any:
    """`value` with null, empty-object and empty-list fields left out at every depth below the
    top, and floats holding integers as integers (Go's JSON reads and writes them so)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = canonical(item)
            if item is None or item == {} or item == []:
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def digest(answer: Doc) -> str:
    """A short digest of an answer as JSON, keys sorted, each of its values `canonical` (a
    null status and an empty one stay apart)."""
    shown = {key: canonical(value) for key, value in answer.items()}
    text = json.dumps(shown, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def reduce(case: Doc, answer: Doc) -> Doc:
    """What is kept of an answer to `case` (the harness's, or gitfleet's in the same shape).

    Of an aggregated object only the status counts: Karmada's caller writes nothing else back
    (it updates the status subresource), while its rules return the whole object as its Go type
    writes it. Of a retained Pod only the retained fields count, for the same round trip.
    Dependencies of one kind are compared in any order, Karmada's being random."""
    if answer.get("enabled") is False:
        return {"enabled": False}
    if answer.get("error"):
        return {"error": True}
    if "healthy" in answer:
        return {"healthy": answer["healthy"]}
    if case["operation"] == "AggregateStatus":
        status = answer["object"].get("status")
        if case["object"].get("kind") == "Job":
            status = _without_clock(status)
        return {"digest": digest({"status": canonical(status) or None})}  # empty is none
    if case["operation"] == "GetDependencies":
        return {"digest": digest({"dependencies": _in_kind_runs(answer["dependencies"])})}
    if case["operation"] == "Retain" and case["object"].get("kind") == "Pod":
        return {"digest": digest({"retained": _retained_pod_fields(answer["object"])})}
    return {"digest": digest(answer)}


def _without_clock(status: Any) -> Any:
    """A Job's aggregated status without its conditions' times: Karmada stamps the conditions
    it writes with its clock (gitfleet, having none, with the members' latest time)."""
    if not isinstance(status, dict) or not isinstance(status.get("conditions"), list):
        return status
    conditions = [
        {k: v for k, v in c.items() if k not in ("lastProbeTime", "lastTransitionTime")}
        for c in status["conditions"]
    ]
    return {**status, "conditions": conditions}


def _in_kind_runs(dependencies: list[Doc]) -> list[Doc]:
    """Dependencies with each kind's run sorted: Karmada lists a pod's ConfigMaps, then
    Secrets, ServiceAccounts and claims, each in the random order of a Go set."""
    kinds: list[Any] = []
    for dependency in dependencies:
        if dependency.get("kind") not in kinds:
            kinds.append(dependency.get("kind"))

    def key(dependency: Doc) -> tuple[int, str]:
        return kinds.index(dependency.get("kind")), json.dumps(dependency, sort_keys=True)

    return sorted(dependencies, key=key)


def _retained_pod_fields(pod: Doc) -> Doc:
    spec = pod.get("spec") or {}
    found = {k: spec.get(k) for k in ("nodeName", "serviceAccountName", "volumes")}
    for key in ("containers", "initContainers"):
        found[key] = [
            {"name": c.get("name"), "volumeMounts": c.get("volumeMounts")}
            for c in spec.get(key) or []
            if isinstance(c, dict)
        ]
    return found


# --- objects ---------------------------------------------------------------------------


def _metadata(r: random.Random, kind: str) -> Doc:
    meta: Doc = {"name": r.choice(["web", "db", "api-1"])}
    if kind not in ("PersistentVolume",) and r.random() < 0.85:
        meta["namespace"] = r.choice(["default", "ns", "team-a"])
    if r.random() < 0.7:
        meta["generation"] = r.randint(1, 6)
    if r.random() < 0.5:
        meta["labels"] = {"app": r.choice(["web", "db"])}
        if r.random() < 0.3:
            meta["labels"]["resourcetemplate.karmada.io/retain-replicas"] = r.choice(
                ["true", "false", "True"]
            )
    if r.random() < 0.5:
        annotations = {"note": "x"}
        if r.random() < 0.7:
            annotations["resourcetemplate.karmada.io/generation"] = r.choice(
                ["1", "2", "3", "5", "0", "-1", "+4", " 2", "x", "", "007", "9999999999"]
            )
        meta["annotations"] = annotations
    return meta


def _resources(r: random.Random) -> Doc:
    res: Doc = {}
    for part in ("requests", "limits"):
        if r.random() < 0.6:
            amounts: Doc = {}
            if r.random() < 0.8:
                amounts["cpu"] = r.choice(CPU)
            if r.random() < 0.7:
                amounts["memory"] = r.choice(MEMORY)
            if r.random() < 0.3:
                amounts[r.choice(SCALARS)] = r.choice(["1", "2", "1Gi", "500m", 3])
            res[part] = amounts
    return res


def _env(r: random.Random) -> list[Doc]:
    out: list[Doc] = [{"name": "PLAIN", "value": "v"}]
    for i in range(r.randint(0, 2)):
        source = r.choice(["configMapKeyRef", "secretKeyRef"])
        ref: Doc = {"name": r.choice(["cfg", "creds", "shared"]), "key": "k"}
        if r.random() < 0.2:
            ref["optional"] = True
        out.append({"name": f"E{i}", "valueFrom": {source: ref}})
    return out


def _container(r: random.Random, name: str) -> Doc:
    c: Doc = {"name": name, "image": r.choice(["nginx", "busybox:1.36"])}
    if r.random() < 0.8:
        c["resources"] = _resources(r)
    if r.random() < 0.4:
        c["env"] = _env(r)
    if r.random() < 0.3:
        kind = r.choice(["configMapRef", "secretRef"])
        c["envFrom"] = [{kind: {"name": r.choice(["cfg", "creds", "bulk"])}}]
    if r.random() < 0.4:
        c["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return c


def _volumes(r: random.Random) -> list[Doc]:
    out: list[Doc] = []
    for i in range(r.randint(0, 3)):
        pick = r.randrange(5)
        if pick == 0:
            out.append({"name": f"v{i}", "configMap": {"name": r.choice(["cfg", "shared"])}})
        elif pick == 1:
            out.append({"name": f"v{i}", "secret": {"secretName": r.choice(["creds", "tls"])}})
        elif pick == 2:
            claim = r.choice(["data", "logs", "www-web-0"])
            out.append({"name": f"v{i}", "persistentVolumeClaim": {"claimName": claim}})
        elif pick == 3:
            sources = [
                {"configMap": {"name": "proj-cfg"}},
                {"secret": {"name": "proj-secret"}},
                {"serviceAccountToken": {"path": "token"}},
            ]
            out.append({"name": f"v{i}", "projected": {"sources": r.sample(sources, 2)}})
        else:
            out.append({"name": f"v{i}", "emptyDir": {}})
    return out


def _affinity(r: random.Random) -> Doc:
    term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}]}
    if r.random() < 0.3:
        term["matchFields"] = [{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}]
    required = {"nodeSelectorTerms": [term]}
    node: Doc = {"requiredDuringSchedulingIgnoredDuringExecution": required}
    if r.random() < 0.3:
        node["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {
                "weight": 1,
                "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]},
            }
        ]
    return {"nodeAffinity": node}


def _pod_spec(r: random.Random) -> Doc:
    spec: Doc = {"containers": [_container(r, f"c{i}") for i in range(r.randint(1, 3))]}
    if r.random() < 0.3:
        spec["initContainers"] = [_container(r, "init")]
    if r.random() < 0.5:
        spec["volumes"] = _volumes(r)
    if r.random() < 0.3:
        spec["imagePullSecrets"] = [{"name": r.choice(["regcred", "pull"])}]
    if r.random() < 0.3:
        spec["serviceAccountName"] = r.choice(["builder", "default"])
    if r.random() < 0.3:
        spec["nodeSelector"] = {"disktype": r.choice(["ssd", "hdd"])}
    if r.random() < 0.3:
        spec["affinity"] = _affinity(r)
    if r.random() < 0.3:
        spec["tolerations"] = [
            {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"},
            {"key": "zone", "operator": "Equal", "value": "a"},
        ][: r.randint(1, 2)]
    if r.random() < 0.2:
        spec["priorityClassName"] = "high"
    if r.random() < 0.15:
        spec["overhead"] = {"cpu": r.choice(["50m", "1"]), "memory": "10Mi"}
    if r.random() < 0.2:
        spec["nodeName"] = "node-1"
    return spec


def _template(r: random.Random) -> Doc:
    template: Doc = {"spec": _pod_spec(r)}
    if r.random() < 0.7:
        template["metadata"] = {"labels": {"app": "web"}}
    return template


def _conditions(r: random.Random, types: tuple[str, ...]) -> list[Doc]:
    out = []
    for kind in r.sample(types, r.randint(0, len(types))):
        c: Doc = {"type": kind, "status": r.choice(["True", "False", "Unknown"])}
        if r.random() < 0.7:
            c["lastTransitionTime"] = r.choice(TIMES)
        if r.random() < 0.3:
            c["lastUpdateTime" if kind != "Complete" else "lastProbeTime"] = r.choice(TIMES)
        if r.random() < 0.4:
            c["reason"] = r.choice(["Done", "MinimumReplicasAvailable"])
            c["message"] = "ok"
        out.append(c)
    return out


def _lb_ingress(r: random.Random, service: bool) -> list[Doc]:
    out = []
    for _ in range(r.randint(0, 3)):
        entry: Doc = {}
        if r.random() < 0.7:
            entry["ip"] = r.choice(["10.0.0.1", "10.0.0.2", "192.168.1.7"])
        if r.random() < 0.4:
            entry["hostname"] = r.choice(["lb.example.com", "a.example.com"])
        if service and r.random() < 0.3:
            entry["ipMode"] = r.choice(["VIP", "Proxy", ""])
        if r.random() < 0.3:
            port: Doc = {"port": r.choice([80, 443]), "protocol": r.choice(["TCP", "UDP"])}
            if r.random() < 0.3:
                port["error"] = "Pending"
            entry["ports"] = [port]
        out.append(entry)
    return out


def _counters(r: random.Random, keys: tuple[str, ...], high: int = 5) -> Doc:
    return {k: r.randint(0, high) for k in keys if r.random() < 0.8}


WORKLOAD_COUNTERS = {
    "Deployment": (
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    ),
    "ReplicaSet": ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas"),
    "StatefulSet": (
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "availableReplicas",
    ),
    "DaemonSet": (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    ),
}


def _container_statuses(r: random.Random) -> list[Doc]:
    out = []
    for i in range(r.randint(0, 2)):
        state = r.choice(
            [
                {"running": {"startedAt": r.choice(TIMES)}},
                {"waiting": {"reason": "ContainerCreating"}},
                {
                    "terminated": {
                        "exitCode": r.choice([0, 1]),
                        "reason": "Completed",
                        "startedAt": r.choice(TIMES),
                        "finishedAt": r.choice(TIMES),
                    }
                },
                {},
            ]
        )
        entry: Doc = {
            "name": f"c{i}",
            "ready": r.random() < 0.6,
            "restartCount": r.randint(0, 2),
            "image": "nginx",
            "imageID": "",
            "state": state,
        }
        if r.random() < 0.3:
            entry["started"] = True
        out.append(entry)
    return out


def status_of(r: random.Random, kind: str) -> Doc:
    """A plausible status of `kind` as a member cluster reports it."""
    if kind in WORKLOAD_COUNTERS:
        status = _counters(r, WORKLOAD_COUNTERS[kind])
        if r.random() < 0.7:
            status["observedGeneration"] = r.randint(0, 6)
        if r.random() < 0.3 and kind == "Deployment":
            status["conditions"] = _conditions(r, ("Available", "Progressing"))
        if kind == "StatefulSet" and r.random() < 0.3:
            status["currentRevision"] = "web-abc"
        return status
    if kind == "Job":
        status = _counters(r, ("active", "succeeded", "failed", "ready", "terminating"))
        if r.random() < 0.6:
            status["conditions"] = _conditions(r, ("Complete", "Failed", "Suspended"))
        if r.random() < 0.6:
            status["startTime"] = r.choice(TIMES)
        if r.random() < 0.3:
            status["completionTime"] = r.choice(TIMES)
        return status
    if kind == "CronJob":
        status = {}
        if r.random() < 0.6:
            status["active"] = [
                {"kind": "Job", "name": f"job-{i}", "namespace": "ns", "apiVersion": "batch/v1"}
                for i in range(r.randint(0, 2))
            ]
            if r.random() < 0.2:
                status["active"].append({"name": "job-x", "uid": "u-2", "note": "not a field"})
        for key in ("lastScheduleTime", "lastSuccessfulTime"):
            if r.random() < 0.6:
                status[key] = r.choice(TIMES)
        return status
    if kind in ("Service", "Ingress"):
        return {"loadBalancer": {"ingress": _lb_ingress(r, kind == "Service")}}
    if kind == "Pod":
        status = {"phase": r.choice(["Pending", "Running", "Succeeded", "Failed", "Unknown"])}
        if r.random() < 0.6:
            status["conditions"] = _conditions(r, ("Ready", "PodScheduled", "Initialized"))
        if r.random() < 0.7:
            status["containerStatuses"] = _container_statuses(r)
        if r.random() < 0.2:
            status["initContainerStatuses"] = _container_statuses(r)
        if r.random() < 0.3:
            status["podIP"] = "10.1.2.3"
        if r.random() < 0.3:
            status["startTime"] = r.choice(TIMES)
        return status
    if kind == "PersistentVolume":
        return {"phase": r.choice(["Pending", "Available", "Bound", "Released", "Failed"])}
    if kind == "PersistentVolumeClaim":
        status = {"phase": r.choice(["Pending", "Bound", "Bound", "Lost"])}
        if r.random() < 0.3:
            status["capacity"] = {"storage": "1Gi"}
            status["accessModes"] = ["ReadWriteOnce"]
        return status
    if kind == "PodDisruptionBudget":
        status = _counters(
            r, ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
        )
        if r.random() < 0.4:
            status["disruptedPods"] = {f"pod-{i}": r.choice(TIMES) for i in range(r.randint(0, 2))}
        if r.random() < 0.3:
            status["observedGeneration"] = r.randint(0, 3)
        return status
    if kind == "HorizontalPodAutoscaler":
        status = _counters(r, ("currentReplicas", "desiredReplicas"))
        if r.random() < 0.3:
            status["lastScaleTime"] = r.choice(TIMES)
        if r.random() < 0.3:
            status["conditions"] = _conditions(r, ("AbleToScale", "ScalingActive"))
        return status
    return {"phase": "Active"} if r.random() < 0.5 else {}


def _spec(r: random.Random, kind: str) -> Doc | None:
    if kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        spec: Doc = {"selector": {"matchLabels": {"app": "web"}}, "template": _template(r)}
        if kind != "DaemonSet" and r.random() < 0.85:
            spec["replicas"] = r.randint(0, 6)
        if kind == "StatefulSet":
            spec["serviceName"] = "web"
            if r.random() < 0.5:
                spec["volumeClaimTemplates"] = [
                    {"metadata": {"name": r.choice(["data", "www"])}, "spec": {}}
                ]
        return spec
    if kind == "Job":
        spec = {"template": _template(r)}
        if r.random() < 0.8:
            spec["parallelism"] = r.randint(0, 5)
        if r.random() < 0.5:
            spec["completions"] = r.randint(0, 5)
        if r.random() < 0.3:
            spec["selector"] = {"matchLabels": {"controller-uid": "abc"}}
        return spec
    if kind == "CronJob":
        return {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": _template(r)}}}
    if kind == "Pod":
        return _pod_spec(r)
    if kind == "Service":
        spec = {"ports": [{"port": 80}]}
        if r.random() < 0.8:
            spec["type"] = r.choice(["ClusterIP", "LoadBalancer", "LoadBalancer", "NodePort"])
        if r.random() < 0.3:
            spec["clusterIP"] = r.choice(["10.96.0.10", "None", ""])
        return spec
    if kind == "Ingress":
        spec = {"rules": [{"host": "a.example.com"}]}
        if r.random() < 0.6:
            spec["tls"] = [
                {"hosts": ["a.example.com"], "secretName": r.choice(["tls-a", "tls-b", ""])}
                for _ in range(r.randint(0, 2))
            ]
        return spec
    if kind == "PersistentVolumeClaim":
        spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
        if r.random() < 0.3:
            spec["volumeName"] = "pv-desired"
        return spec
    if kind == "PersistentVolume":
        spec = {"capacity": {"storage": "1Gi"}, "hostPath": {"path": "/data"}}
        if r.random() < 0.3:
            spec["claimRef"] = {"name": "desired", "namespace": "ns"}
        return spec
    if kind == "PodDisruptionBudget":
        return {"minAvailable": r.choice([1, 2, "50%"]), "selector": {"matchLabels": {"a": "b"}}}
    if kind == "HorizontalPodAutoscaler":
        spec = {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 10,
        }
        if r.random() < 0.5:
            spec["minReplicas"] = 2
        return spec
    if kind == "ServiceImport":
        return {"type": "ClusterSetIP", "ports": [{"port": 80, "protocol": "TCP"}]}
    return None


def make_object(r: random.Random, kind: str, with_status: float) -> Doc:
    obj: Doc = {"apiVersion": API_VERSIONS[kind], "kind": kind, "metadata": _metadata(r, kind)}
    spec = _spec(r, kind)
    if spec is not None:
        obj["spec"] = spec
    if kind == "ServiceAccount":
        if r.random() < 0.7:
            obj["secrets"] = [{"name": r.choice(["sa-token", "a"])}]
        if r.random() < 0.5:
            obj["imagePullSecrets"] = [{"name": "regcred"}]
    elif kind == "Secret":
        obj["type"] = r.choice(["Opaque", "kubernetes.io/service-account-token"])
        obj["data"] = {"token": "ZGVzaXJlZA=="}
    elif kind == "ConfigMap":
        obj["data"] = {"k": "v"}
    if r.random() < with_status:
        obj["status"] = status_of(r, kind)
    return obj


def _observed(r: random.Random, desired: Doc) -> Doc:
    """The member's copy of `desired`, with what the member cluster sets."""
    kind = desired["kind"]
    live = copy.deepcopy(desired)
    spec = (
        live.setdefault("spec", {})
        if "spec" in live or kind not in ("ServiceAccount", "Secret")
        else {}
    )
    if kind == "Deployment" and r.random() < 0.85:
        spec["replicas"] = r.randint(0, 9)
    elif kind == "Pod":
        if r.random() < 0.8:
            spec["nodeName"] = r.choice(["member-node-1", "member-node-2"])
        if r.random() < 0.6:
            spec["serviceAccountName"] = "default"
        if r.random() < 0.7:
            spec["volumes"] = [
                {
                    "name": "kube-api-access-x",
                    "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]},
                }
            ]
        for container in spec.get("containers", []):
            if r.random() < 0.7:
                container["volumeMounts"] = [
                    {"name": "kube-api-access-x", "mountPath": "/var/run/secrets", "readOnly": True}
                ]
    elif kind == "Service":
        if r.random() < 0.7:
            spec["clusterIP"] = r.choice(["10.96.1.1", "", "None"])
        if r.random() < 0.4:
            spec["healthCheckNodePort"] = r.choice([0, 30001, 32000])
    elif kind == "ServiceAccount":
        if r.random() < 0.7:
            live["secrets"] = [*live.get("secrets", []), {"name": "sa-token-xyz"}]
        if r.random() < 0.3:
            live["imagePullSecrets"] = [{"name": "member-pull"}]
    elif kind == "PersistentVolumeClaim":
        if r.random() < 0.7:
            spec["volumeName"] = r.choice(["pvc-123", ""])
    elif kind == "PersistentVolume":
        if r.random() < 0.6:
            spec["claimRef"] = {"name": "claim", "namespace": "ns", "uid": "u-1"}
    elif kind == "Job":
        if r.random() < 0.7:
            spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": "u-1"}}
        if r.random() < 0.7:
            template = spec.setdefault("template", {})
            template.setdefault("metadata", {})["labels"] = {
                "batch.kubernetes.io/controller-uid": "u-1",
                "job-name": "web",
            }
    elif kind == "Secret" and r.random() < 0.7:
        live["data"] = {"token": "bWVtYmVy", "ca.crt": "Y2E="}
    if r.random() < 0.5:
        live["status"] = status_of(r, kind)
    return live


def _items(r: random.Random, kind: str) -> list[Doc] | None:
    """Status items of up to four member clusters; none at all is null (nil), as Karmada's
    callers pass them (the binding's list is `omitempty`)."""
    if r.random() < 0.05:
        return None
    out: list[Doc] = []
    for i in range(r.randint(0, 4)):
        item: Doc = {"clusterName": f"member{i + 1}", "applied": True}
        if r.random() < 0.85:
            status = status_of(r, kind)
            if kind in WORKLOAD_COUNTERS:
                if r.random() < 0.8:
                    status["generation"] = r.randint(1, 6)
                if r.random() < 0.8:
                    status["resourceTemplateGeneration"] = r.randint(0, 6)
            item["status"] = status
        out.append(item)
    return out or None


# --- edge values -----------------------------------------------------------------------

# Fields each rule reads, per operation and kind ("*": every kind), where a wrong type or an
# odd value is compared with Karmada. Elsewhere a wrong type is a deliberate difference:
# Karmada's conversion of the whole object to its Go type fails, gitfleet's rule does not look.
_TEMPLATE = ("spec", "template", "spec")
_POD_READS = (
    ("volumes",),
    ("imagePullSecrets",),
    ("serviceAccountName",),
    ("containers", 0, "env"),
    ("containers", 0, "env", 1, "valueFrom"),
    ("containers", 0, "envFrom"),
    ("volumes", 0, "configMap", "name"),
    ("initContainers",),
)
_REQUIREMENT_READS = (
    ("containers", 0, "resources"),
    ("containers", 0, "resources", "requests"),
    ("containers", 0, "resources", "requests", "cpu"),
    ("containers", 0, "resources", "requests", "memory"),
    ("containers", 0, "resources", "limits"),
    ("containers", 0, "resources", "limits", "cpu"),
    ("nodeSelector",),
    ("nodeSelector", "disktype"),
    ("tolerations",),
    ("tolerations", 0, "key"),
    ("affinity",),
    ("affinity", "nodeAffinity"),
    ("overhead",),
    ("initContainers",),
)
_WORKLOAD_STATUS = (
    ("metadata", "generation"),
    ("status", "observedGeneration"),
    ("status", "replicas"),
    ("status", "readyReplicas"),
    ("status", "numberReady"),
    ("status", "updatedReplicas"),
    ("status", "availableReplicas"),
    ("status", "desiredNumberScheduled"),
    ("status", "updatedNumberScheduled"),
    ("status", "numberAvailable"),
)
_WORKLOAD_HEALTH = tuple(
    p for p in _WORKLOAD_STATUS if p[-1] not in ("replicas", "readyReplicas", "numberReady")
)
READ_PATHS: dict[str, dict[str, tuple[tuple[str | int, ...], ...]]] = {
    "GetReplicas": {
        "*": (
            ("spec", "replicas"),
            ("spec", "parallelism"),
            ("spec", "completions"),
            ("spec", "template"),
            _TEMPLATE,
            *((*_TEMPLATE, *p) for p in _REQUIREMENT_READS),
        ),
        "Pod": (("spec",), *(("spec", *p) for p in _REQUIREMENT_READS)),
    },
    "ReviseReplica": {"*": (("spec", "replicas"), ("spec", "parallelism"), ("spec",))},
    "Retain": {
        "Deployment": (
            ("metadata", "labels"),
            ("metadata", "labels", "resourcetemplate.karmada.io/retain-replicas"),
            ("spec", "replicas"),
            ("spec",),
        ),
        "Pod": (("spec", "nodeName"), ("spec", "serviceAccountName"), ("spec", "volumes")),
        "Service": (("spec",), ("spec", "clusterIP"), ("spec", "healthCheckNodePort")),
        "ServiceAccount": (
            ("secrets",),
            ("secrets", 0),
            ("secrets", 0, "name"),
            ("imagePullSecrets",),
            ("imagePullSecrets", 0, "name"),
        ),
        "PersistentVolumeClaim": (("spec",), ("spec", "volumeName")),
        "PersistentVolume": (("spec",), ("spec", "claimRef")),
        "Job": (
            ("spec", "selector"),
            ("spec", "selector", "matchLabels"),
            ("spec", "template", "metadata"),
            ("spec", "template", "metadata", "labels"),
        ),
        "Secret": (("type",), ("data",), ("data", "token")),
    },
    "AggregateStatus": {
        **dict.fromkeys(
            WORKLOAD_COUNTERS, (("metadata", "generation"), ("status", "observedGeneration"))
        ),
        "Service": (("spec", "type"),),
    },
    "ReflectStatus": {
        "*": (("status",),),
        "Deployment": _WORKLOAD_STATUS,
        "ReplicaSet": _WORKLOAD_STATUS,
        # Karmada reflects no observedGeneration of a StatefulSet: neither reads it
        "StatefulSet": tuple(p for p in _WORKLOAD_STATUS if p[-1] != "observedGeneration"),
        "DaemonSet": _WORKLOAD_STATUS,
        "Service": (
            ("spec", "type"),
            ("status", "loadBalancer"),
            ("status", "loadBalancer", "ingress"),
        ),
        "Job": (
            ("status", "conditions"),
            ("status", "conditions", 0, "lastTransitionTime"),
            ("status", "startTime"),
            ("status", "completionTime"),
            ("status", "active"),
            ("status", "succeeded"),
        ),
        "PodDisruptionBudget": (("status", "disruptedPods"), ("status", "currentHealthy")),
        "HorizontalPodAutoscaler": (("status", "currentReplicas"), ("status", "desiredReplicas")),
    },
    "InterpretHealth": {
        "Deployment": (("spec", "replicas"), *_WORKLOAD_HEALTH),
        "StatefulSet": (("spec", "replicas"), *_WORKLOAD_HEALTH),
        "ReplicaSet": (("spec", "replicas"), *_WORKLOAD_HEALTH),
        "DaemonSet": _WORKLOAD_HEALTH,
        "Service": (("spec", "type"), ("status", "loadBalancer", "ingress")),
        "Ingress": (("status", "loadBalancer", "ingress"),),
        "PersistentVolumeClaim": (("status", "phase"),),
        "Pod": (
            ("status", "phase"),
            ("status", "conditions"),
            ("status", "conditions", 0, "status"),
            ("status", "conditions", 0, "lastTransitionTime"),
        ),
        "PodDisruptionBudget": (("status", "currentHealthy"), ("status", "desiredHealthy")),
    },
    "GetDependencies": {
        "*": (("metadata", "namespace"), *((*_TEMPLATE, *p) for p in _POD_READS)),
        "Pod": (("metadata", "namespace"), *(("spec", *p) for p in _POD_READS)),
        "CronJob": tuple(
            ("spec", "jobTemplate", "spec", "template", "spec", *p) for p in _POD_READS
        ),
        "StatefulSet": (
            ("spec", "volumeClaimTemplates"),
            ("spec", "volumeClaimTemplates", 0, "metadata", "name"),
            *((*_TEMPLATE, *p) for p in _POD_READS),
        ),
        "Ingress": (("metadata", "namespace"), ("spec", "tls"), ("spec", "tls", 0, "secretName")),
        "ServiceImport": (("metadata", "namespace"), ("metadata", "name")),
    },
}


def _read_paths(operation: str, kind: str) -> tuple[tuple[str | int, ...], ...]:
    table = READ_PATHS[operation]
    return table.get(kind, table.get("*", ()))


def _set_at(doc: Any, path: tuple[str | int, ...], value: Any) -> bool:
    """Set the field at `path` in `doc` to `value` if it is there; whether it was."""
    for key in path[:-1]:
        if isinstance(key, int):
            if not isinstance(doc, list) or len(doc) <= key:
                return False
            doc = doc[key]
        else:
            if not isinstance(doc, dict) or not isinstance(doc.get(key), dict | list):
                return False
            doc = doc[key]
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(doc, list) or len(doc) <= last:
            return False
    elif not isinstance(doc, dict) or last not in doc:
        return False
    doc[last] = value
    return True


def _odd_value(r: random.Random, path: tuple[str | int, ...]) -> Any:
    last = path[-1]
    if last in ("cpu", "memory"):
        return r.choice(["", "abc", "-1", "1.5.5", None, 0, 1.5, "100Ki", "0.001", "1e-3"])
    if "Time" in str(last):
        return r.choice(ODD_TIMES)
    return copy.deepcopy(r.choice(ODD_VALUES))  # never shared: later edges may change it


def _null_somewhere(r: random.Random, doc: Doc) -> None:
    """Set one nested field chosen at random to null or to an empty value of its own type
    (which every Go type reads as its zero value). Not a list item: Karmada's round trip
    writes an empty item back with its Go type's zero fields."""
    slots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, item in node.items():
                if key not in ("apiVersion", "kind"):
                    slots.append((node, key))
                walk(item)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(doc)
    if not slots:
        return
    parent, key = r.choice(slots)
    current = parent[key]
    if isinstance(current, dict):
        parent[key] = r.choice([None, {}])
    elif isinstance(current, list):
        parent[key] = r.choice([None, []])
    elif isinstance(parent, dict):
        parent[key] = None


def _edge(r: random.Random, operation: str, doc: Doc) -> None:
    """An odd value in a field the rule reads, or a null or empty one anywhere in `doc` (not
    in a Pod to retain from: Karmada writes the retained volumes back through the Go type,
    nulls as zero values, where gitfleet copies them)."""
    kind = doc.get("kind", "")
    paths = _read_paths(operation, kind)
    only_read = operation == "Retain" and kind == "Pod"
    if paths and (only_read or r.random() < 0.6):
        for _ in range(4):  # a few tries to find a field the object has
            path = r.choice(paths)
            if _set_at(doc, path, _odd_value(r, path)):
                return
    if not only_read:
        _null_somewhere(r, doc)


# --- scenarios -------------------------------------------------------------------------


_UNWRITTEN_STATUS = ("conditions", "fullyLabeledReplicas", "currentRevision")
"""Status fields of a template no aggregation writes: Karmada's round trip through the Go type
rewrites them (zero counters dropped, times in UTC), gitfleet keeps them as they are (a
deliberate difference); templates in scenarios do not have them."""


def _kind(r: random.Random, operation: str) -> str:
    if r.random() < 0.1:
        return r.choice(sorted(API_VERSIONS))
    return r.choice(HANDLED[operation])


def scenario(seed: int) -> Doc:
    """The scenario of `seed`: an operation, an object, and the operation's inputs."""
    r = random.Random(seed)
    operation = OPERATIONS[seed % len(OPERATIONS)]
    kind = _kind(r, operation)
    with_status = {"AggregateStatus": 0.4, "GetReplicas": 0.1, "ReviseReplica": 0.1}.get(
        operation, 0.85
    )
    obj = make_object(r, kind, with_status)
    items = _items(r, kind) if operation == "AggregateStatus" else None
    if items and isinstance(items[0].get("status"), dict) and r.random() < 0.3:
        obj["status"] = _respelled(r, kind, copy.deepcopy(items[0]["status"]))
    if operation == "AggregateStatus" and isinstance(obj.get("status"), dict):
        for key in _UNWRITTEN_STATUS:
            obj["status"].pop(key, None)
    case: Doc = {"operation": operation, "object": obj}
    if operation == "ReviseReplica":
        case["desiredReplica"] = r.choice([0, 1, 2, 3, 5, 10])
    elif operation == "Retain":
        case["observed"] = _observed(r, obj)
    elif operation == "AggregateStatus":
        case["items"] = items
        if kind == "Pod" and case["items"] is None:
            obj.pop("status", None)  # Karmada writes it back through the Go type unchanged
    for _ in range(r.choice((0, 0, 1, 1, 2))):
        target = obj
        if operation == "AggregateStatus":  # not the template's status: see _UNWRITTEN_STATUS
            target = {k: v for k, v in obj.items() if k != "status"}
        if operation == "Retain" and (kind == "Pod" or r.random() < 0.5):
            target = case["observed"]  # Karmada reads the desired Pod whole, gitfleet does not
        _edge(r, operation, target)
    if operation == "AggregateStatus" and case["items"] and r.random() < 0.3:
        item = r.choice(case["items"])
        item["status"] = r.choice(
            [
                None,
                {},
                [],
                "x",
                {"replicas": r.choice([None, "1", 1.5, 2.0])},
                {"phase": 3},
                {"currentHealthy": 2.0, "desiredHealthy": 1},
                {"desiredReplicas": 1.0},
                {"active": r.choice([1.0, None, [None], [{"name": 1}]])},
                {"loadBalancer": {"ingress": [{"ip": "10.0.0.9", "ports": [{"port": 80.0}]}]}},
                {"loadBalancer": {"ingress": r.choice([None, [], [{"ip": 1}], [None]])}},
                {"lastScheduleTime": r.choice(ODD_TIMES)},
                {"disruptedPods": r.choice([None, {"p": None}, {"p": "bad"}])},
            ]
        )
    if r.random() < 0.08:
        _odd_identity(r, case["object"])
    if operation == "ReflectStatus" and kind in WORKLOAD_COUNTERS:
        _with_generation_annotation(r, case["object"])
    return case


SAME_INSTANTS = {
    "2024-01-01T00:00:00Z": ("2023-12-31T19:00:00-05:00", "2024-01-01T00:00:00,000000000Z"),
    "2024-03-05T10:20:30Z": ("2024-03-05T12:20:30+02:00", "2024-03-05T10:20:30.000Z"),
    "2024-03-05T10:20:30.123Z": ("2024-03-05T11:20:30.123000+01:00",),
    "2024-03-05T10:20:30.5+01:00": ("2024-03-05T09:20:30.5Z",),
}
"""Other spellings of some of `TIMES`: the same instants to the nanosecond."""

GO_ZEROS: dict[str, Doc] = {
    "HorizontalPodAutoscaler": {
        "observedGeneration": 0,
        "currentMetrics": [],
        "lastScaleTime": None,
    },
    "PersistentVolumeClaim": {"accessModes": [], "capacity": {}},
    "PersistentVolume": {"message": "", "lastPhaseTransitionTime": None},
    "Pod": {"containerStatuses": [], "hostIP": "", "startTime": None},
    "DaemonSet": {"collisionCount": 0, "numberAvailable": 0},
    "CronJob": {"active": []},
    "PodDisruptionBudget": {"disruptedPods": {}, "observedGeneration": 0},
}
"""Fields of a kind's status holding a Go zero value, nil or not (a pointer to zero, an
empty list): some equal an absent field as Karmada compares statuses, some do not."""


def _respelled(r: random.Random, kind: str, status: Doc) -> Doc:
    """A member's status as a template's: times of the same instant spelled otherwise,
    integers as floats, and fields of Go zero values; Karmada leaves a template alone when
    its status equals the aggregated one as Go values, however spelled."""

    def respell(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: respell(v) for k, v in value.items()}
        if isinstance(value, list):
            return [respell(v) for v in value]
        if isinstance(value, str) and value in SAME_INSTANTS and r.random() < 0.7:
            return r.choice(SAME_INSTANTS[value])
        if type(value) is int and r.random() < 0.3:
            return float(value)
        return value

    status = respell(status)
    for key, zero in GO_ZEROS.get(kind, {}).items():
        if r.random() < 0.3:
            status[key] = copy.deepcopy(zero)
    for key in ("generation", "resourceTemplateGeneration"):  # no fields of the template's
        status.pop(key, None)
    return status


def _with_generation_annotation(r: random.Random, obj: Doc) -> None:
    """A member's workload as Karmada writes it always carries the template generation
    annotation (Karmada refuses to reflect the status of one without); gitfleet writes it only
    for templates with a generation, and reads its absence as generation 0 (a deliberate
    difference): scenarios keep the annotation."""
    if not isinstance(obj.get("metadata"), dict):
        obj["metadata"] = {}
    annotations = obj["metadata"].get("annotations")
    if not isinstance(annotations, dict):
        annotations = obj["metadata"]["annotations"] = {}
    annotations.setdefault("resourcetemplate.karmada.io/generation", str(r.randint(0, 6)))


def _odd_identity(r: random.Random, obj: Doc) -> None:
    """An apiVersion spelled otherwise, a metadata Karmada reads oddly, or a metadata, spec or
    status that is no object at all."""
    pick = r.randrange(4)
    if pick == 0:
        obj["apiVersion"] = r.choice(OTHER_API_VERSIONS[obj["apiVersion"]])
    elif pick == 1:
        obj["apiVersion"] = r.choice(["", "apps/v1/x", obj["apiVersion"] + " "])
    elif pick == 2:
        obj["metadata"] = r.choice([None, {}, {"name": "x", "generation": None}])
    else:
        obj[r.choice(["metadata", "spec", "status"])] = r.choice(["x", 3, [1]])


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_interpreter.go"
    cases = [scenario(seed) for seed in range(SEEDS)]
    given = karmada_harness.answers(harness, checkout.path, checkout.go, cases)
    reduced = [reduce(case, a) for case, a in zip(cases, given, strict=True)]
    karmada_harness.write_answers(ANSWERS, checkout.commit, reduced)


if __name__ == "__main__":
    main()
