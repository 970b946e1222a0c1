"""Random bindings to render, and what Karmada's binding controller made of them.

Each scenario is made from its seed alone (`scenario`): one resource template as its user
wrote it, of a kind Karmada's native interpreter revises replicas for (Deployment,
StatefulSet, ReplicaSet, Job with or without completions and parallelism, CronJob, Pod) or
not (ConfigMap, Service with every clusterIP spelling, ServiceAccount with token secrets, a
service-account token Secret, PersistentVolumeClaim with a selected node, custom resources,
a cluster-scoped ClusterRole), often with what an API server sets (resourceVersion, uid,
generation, managedFields, ownerReferences, finalizers, status, Deployment revisions); the
claim of the policy that took it; its binding (ResourceBinding or ClusterResourceBinding,
Duplicated or Divided, replicas per cluster including 0, bindings that require it,
conflictResolution); member clusters (a target may be missing); and Override- and
ClusterOverridePolicies changing replicas, labels, annotations and the policy's claim on some
clusters. Seeds from `PLAUSIBLE` on take edge values: ServiceAccounts listing a secret without
a name, custom resources named like the kinds Karmada prunes by kind name (Job, Service,
Secret, ...) holding nulls, odd types and numbers of every spelling, divided Jobs whose shares
are all 0 or whose completions are not an int32, clusters listed twice, bindings without a
permanent id.

The answers in testdata/karmada_work_answers.json are what Karmada's own `ensureWork` put in
each target cluster's Work (bench/karmada_work.go): per target cluster, a digest of the
manifest (`digest` of `comparable`), or that none was made. To make them again (after a
change to this generator, or for another Karmada), from the repository root:

    python tests/render/work_oracle_scenarios.py --karmada PATH [--go GO] [--commit SHA]

PATH is a checkout of karmada-io/karmada with its vendored packages. The generator must not
change without making the answers again: a seed stands for the scenario it made when they
were made.

Left out on purpose (docs/karmada-compatibility.md): plain-text Secrets (gitfleet refuses
them unless their template opts in; every Secret here does), suspended dispatching (gitfleet
keeps the previous manifest where Karmada writes a Work it does not dispatch), overrides that
change what the object is or make a manifest its API server would refuse (gitfleet refuses
them, Karmada's client here does not validate), graceful eviction tasks (the failover
label injection is behind a feature gate that is off by default), a custom `Job` with fields
batch/v1's Job type cannot hold (Karmada's pruning fails converting it; gitfleet does not
check that yet) and completions so large that dividing them one seat at a time takes minutes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

Doc = dict[str, Any]

ANSWERS = Path(__file__).resolve().parent / "testdata" / "karmada_work_answers.json"
SEEDS = 1800
PLAUSIBLE = 1200
"""Seeds below are plausible objects and bindings; from it on, edge values (`EDGES`)."""
NAMESPACE = "shop"
CLUSTERS = ("m1", "m2", "m3", "m4", "edge-1")
PP_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
CPP_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
RB_ID_LABEL = "resourcebinding.karmada.io/permanent-id"
CONFLICT = "work.karmada.io/conflict-resolution"
PLAINTEXT = "gitfleet.io/allow-plaintext-secret"
CLAIM_KEYS = frozenset(
    {
        PP_ID_LABEL,
        CPP_ID_LABEL,
        "propagationpolicy.karmada.io/namespace",
        "propagationpolicy.karmada.io/name",
        "clusterpropagationpolicy.karmada.io/name",
    }
)

DIFFERENT_LABELS = frozenset(
    {
        "karmada.io/managed",
        "work.karmada.io/permanent-id",
        "gitfleet.io/managed-by",
        "gitfleet.io/cluster",
    }
)
"""Labels Karmada and gitfleet write differently on purpose (gitfleet/render/_work.py)."""
DIFFERENT_ANNOTATIONS = frozenset(
    {
        "resourcetemplate.karmada.io/uid",
        "resourcetemplate.karmada.io/generation",
        "resourcetemplate.karmada.io/managed-annotations",
        "resourcetemplate.karmada.io/managed-labels",
        "work.karmada.io/name",
        "work.karmada.io/namespace",
        "gitfleet.io/source-path",
        "gitfleet.io/generated-namespace",
    }
)
"""Annotations Karmada and gitfleet write differently on purpose (gitfleet/render/_work.py)."""


def comparable(manifest: Doc) -> Doc:
    """`manifest` without the labels and annotations the two write differently on purpose."""
    found = copy.deepcopy(manifest)
    metadata = found.get("metadata")
    if isinstance(metadata, dict):
        for key, dropped in (("labels", DIFFERENT_LABELS), ("annotations", DIFFERENT_ANNOTATIONS)):
            values = metadata.get(key)
            if isinstance(values, dict):
                metadata[key] = {k: v for k, v in values.items() if k not in dropped}
    return found


def digest(manifest: Doc) -> str:
    """A short digest of `comparable(manifest)` as JSON, keys sorted (a number keeps its
    spelling: `2.0` where Karmada writes `2` is a difference)."""
    text = json.dumps(comparable(manifest), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def targets(binding: Doc) -> list[str]:
    """The binding's target clusters: its own, then those of the bindings requiring it."""
    spec = binding["spec"]
    found: list[str] = []
    for t in [
        *spec.get("clusters", []),
        *(c for s in spec.get("requiredBy", []) for c in s["clusters"]),
    ]:
        if t["name"] not in found:
            found.append(t["name"])
    return found


# --- templates ---------------------------------------------------------------------------


def _pod_spec(r: random.Random) -> Doc:
    containers = [
        {"name": f"c{i}", "image": r.choice(["nginx:1.25", "busybox"])}
        for i in range(r.randint(1, 2))
    ]
    spec: Doc = {"containers": containers}
    if r.random() < 0.3:
        spec["restartPolicy"] = "Never"
    if r.random() < 0.3:
        containers[0]["resources"] = {"requests": {"cpu": r.choice(["100m", "1", 0.5])}}
    return spec


def _pod_template(r: random.Random, labels: Doc) -> Doc:
    return {"metadata": {"labels": dict(labels)}, "spec": _pod_spec(r)}


def _replicas(r: random.Random) -> Any:
    return r.choice([0, 1, 2, 3, 5, 10, 2.0, None])


def _with_replicas(r: random.Random, spec: Doc, field: str = "replicas") -> None:
    value = _replicas(r)
    if value is not None:
        spec[field] = value


def _apps(r: random.Random, kind: str, app: str, extra: Doc) -> Doc:
    spec: Doc = {
        **extra,
        "selector": {"matchLabels": {"app": app}},
        "template": _pod_template(r, {"app": app}),
    }
    _with_replicas(r, spec)
    return {"apiVersion": "apps/v1", "kind": kind, "spec": spec}


def _deployment(r: random.Random) -> Doc:
    return _apps(r, "Deployment", "web", {})


def _statefulset(r: random.Random) -> Doc:
    return _apps(r, "StatefulSet", "db", {"serviceName": "db"})


def _replicaset(r: random.Random) -> Doc:
    return _apps(r, "ReplicaSet", "rs", {})


def _job(r: random.Random) -> Doc:
    pod = _pod_template(r, {"app": "batch"})
    pod["spec"]["restartPolicy"] = "Never"
    spec: Doc = {"template": pod}
    if r.random() < 0.6:
        spec["completions"] = r.choice([1, 3, 4, 7, 10, 0, 2.0])
    if r.random() < 0.6:
        spec["parallelism"] = r.choice([1, 2, 3, 5])
    if r.random() < 0.3:
        spec["ttlSecondsAfterFinished"] = 100
    if r.random() < 0.4:
        uid = "8d0c4d4e-1b43-4bd6-9a0c-1f2f6c5a2b10"
        manual = r.random() < 0.3
        if manual:
            spec["manualSelector"] = True
        spec["selector"] = {
            "matchLabels": {"batch.kubernetes.io/controller-uid": uid, "app": "batch"}
        }
        pod["metadata"]["labels"].update(
            {
                "batch.kubernetes.io/controller-uid": uid,
                "controller-uid": uid,
                "batch.kubernetes.io/job-name": "task",
                "job-name": "task",
            }
        )
    return {"apiVersion": "batch/v1", "kind": "Job", "spec": spec}


def _cronjob(r: random.Random) -> Doc:
    pod = _pod_template(r, {"app": "cron"})
    pod["spec"]["restartPolicy"] = "OnFailure"
    job: Doc = {"template": pod}
    if r.random() < 0.5:
        job["parallelism"] = r.choice([1, 2, 4])
    if r.random() < 0.3:
        job["completions"] = r.choice([1, 3])
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": job}},
    }


def _pod(r: random.Random) -> Doc:
    return {"apiVersion": "v1", "kind": "Pod", "spec": _pod_spec(r)}


def _configmap(r: random.Random) -> Doc:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "data": {"k": "v", "n": r.choice(["1", "x y"])},
    }


def _service(r: random.Random) -> Doc:
    spec: Doc = {
        "selector": {"app": "web"},
        "ports": [{"port": 80, "targetPort": r.choice([8080, "http"])}],
    }
    choice = r.randint(0, 5)
    if choice == 1:
        spec["clusterIP"] = "10.0.0.12"
    elif choice == 2:
        spec["clusterIP"] = "10.0.0.12"
        spec["clusterIPs"] = ["10.0.0.12"]
    elif choice == 3:
        spec["clusterIP"] = "None"
        spec["clusterIPs"] = ["None"]
    elif choice == 4:
        spec["clusterIP"] = "None"
    elif choice == 5:
        spec["clusterIPs"] = ["10.0.0.13"]
        if r.random() < 0.5:
            spec["clusterIP"] = ""
    if r.random() < 0.3:
        spec["type"] = r.choice(["NodePort", "LoadBalancer", "ClusterIP"])
    return {"apiVersion": "v1", "kind": "Service", "spec": spec}


def _service_account(r: random.Random, name: str) -> Doc:
    doc: Doc = {"apiVersion": "v1", "kind": "ServiceAccount"}
    pool = [
        f"{name}-token-abcde",
        f"{name}-token-fghij",
        "registry",
        f"{name}-dockercfg",
        "other-token-x",
    ]
    if r.random() < 0.8:
        doc["secrets"] = [{"name": n} for n in r.sample(pool, r.randint(0, 4))]
    if r.random() < 0.3:
        doc["imagePullSecrets"] = [{"name": "registry"}]
    return doc


def _token_secret(r: random.Random) -> Doc:
    annotations = {PLAINTEXT: "true", "kubernetes.io/service-account.name": "builder"}
    if r.random() < 0.7:
        annotations["kubernetes.io/service-account.uid"] = "5b0e6a5c-7d7f-4c5e-8f5a-0c6a2d1e9b3f"
    doc: Doc = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"annotations": annotations},
        "type": r.choice(
            ["kubernetes.io/service-account-token", "kubernetes.io/service-account-token", "Opaque"]
        ),
    }
    if r.random() < 0.8:
        doc["data"] = {"token": "dG9rZW4=", "ca.crt": "Y2E="}
    return doc


def _claim_volume(r: random.Random) -> Doc:
    annotations = {}
    if r.random() < 0.7:
        annotations["volume.kubernetes.io/selected-node"] = r.choice(["node-1", ""])
    if r.random() < 0.4:
        annotations["pv.kubernetes.io/bind-completed"] = "yes"
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"annotations": annotations},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


def _custom(r: random.Random) -> Doc:
    spec: Doc = {"size": r.choice(["s", "m"])}
    _with_replicas(r, spec)
    return {"apiVersion": "example.io/v1", "kind": r.choice(["Widget", "Deployment"]), "spec": spec}


def _cluster_role(r: random.Random) -> Doc:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
    }


def _cluster_widget(r: random.Random) -> Doc:
    spec: Doc = {}
    _with_replicas(r, spec)
    return {"apiVersion": "example.io/v1", "kind": "ClusterWidget", "spec": spec}


NAMESPACED = (
    (_deployment, 5),
    (_statefulset, 2),
    (_replicaset, 1),
    (_job, 4),
    (_cronjob, 1),
    (_pod, 1),
    (_configmap, 1),
    (_service, 2),
    (None, 1),  # ServiceAccount, which needs its name
    (_token_secret, 1),
    (_claim_volume, 1),
    (_custom, 1),
)
CLUSTER_SCOPED = ((_cluster_role, 1), (_cluster_widget, 1))


def _edge_service_account(r: random.Random) -> Doc:
    """A ServiceAccount listing a secret by namespace alone (the API server takes a reference
    without a name)."""
    pool: list[Doc] = [{}, {"namespace": NAMESPACE}, {"name": "task-token-x"}, {"name": "keep"}]
    return {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "secrets": r.sample(pool, r.randint(1, 4)),
    }


def _edge_custom(r: random.Random) -> Doc:
    """A custom resource named like a kind Karmada prunes by its kind name alone, with fields
    that its Go type would not read, or numbers of every spelling."""
    kind = r.choice(
        ["Job", "ServiceAccount", "Service", "Secret", "PersistentVolumeClaim", "Gadget"]
    )
    odd = [None, "x", 1.5, -1, 0, 2**40, [], {}, True, "3", 9007199254740993]
    spec: Doc = {"weights": [1.5, 2.0, 1e300, -0.0, 2**53 + 1], "nested": {"null": None}}
    doc: Doc = {"apiVersion": "example.io/v1", "kind": kind, "spec": spec}
    if kind == "Job":
        # only values batch/v1's Job type holds: Karmada's pruning of a Job converts it to
        # that type and makes no Work when it cannot, which gitfleet does not check for kinds
        # of other groups (docs/karmada-compatibility.md)
        typed = {
            "completions": [None, -1, 0, 2**40, 9007199254740993],
            "parallelism": [None, -1, 2**40],
            "manualSelector": [None, True, False],
            "template": [None, {}, {"metadata": {"labels": {"job-name": "task"}}}],
        }
        for field, values in typed.items():
            if r.random() < 0.5:
                spec[field] = r.choice(values)
        if r.random() < 0.5:
            spec["completions"] = r.choice([3, 8, 2**32 + 5, -2])
    elif kind == "ServiceAccount":
        doc["secrets"] = r.choice(
            [
                [{"name": "task-token-1"}, r.choice(odd)],
                [{"name": r.choice(odd)}],
                r.choice(odd),
                [{"name": "task-token-1"}, {"name": "task-token-2"}, {"name": "task-token-3"}],
            ]
        )
    elif kind == "Service":
        spec["clusterIP"] = r.choice(odd)
        spec["clusterIPs"] = ["10.0.0.1"]
    elif kind == "Secret":
        doc["type"] = r.choice(["kubernetes.io/service-account-token", r.choice(odd)])
        if r.random() < 0.5:
            doc["data"] = r.choice(odd)
    elif kind == "PersistentVolumeClaim":
        doc["metadata"] = {"annotations": {"volume.kubernetes.io/selected-node": "n1"}}
    if r.random() < 0.5:
        spec["replicas"] = r.choice(odd)
    return doc


def _edge_job(r: random.Random) -> Doc:
    doc = _job(r)
    doc["spec"]["completions"] = r.choice([0, 1, 5, 12, 100])
    return doc


EDGES = (
    (_edge_service_account, 2),
    (_edge_custom, 6),
    (_edge_job, 3),
    (_deployment, 1),
    (_statefulset, 1),
)


def _server_set(r: random.Random, doc: Doc) -> None:
    """What the API server and controllers of the control plane set on a stored template."""
    metadata = doc["metadata"]
    if r.random() < 0.5:
        metadata["resourceVersion"] = str(r.randint(1, 99999))
        metadata["uid"] = r.choice(
            ["0b1d2c3e-4f50-4a6b-8c7d-9e0f1a2b3c4d", "f00dfeed-0000-4000-8000-000000000001", "x"]
        )
        metadata["generation"] = r.choice([1, 2, 7])
        metadata["creationTimestamp"] = "2024-01-02T03:04:05Z"
    if r.random() < 0.3:
        metadata["managedFields"] = [
            {
                "manager": "kubectl",
                "operation": "Apply",
                "apiVersion": doc["apiVersion"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {}},
            }
        ]
    if r.random() < 0.2:
        metadata["ownerReferences"] = [
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "u1"}
        ]
    if r.random() < 0.2:
        metadata["finalizers"] = ["example.io/keep"]
    if r.random() < 0.1:
        metadata["selfLink"] = "/apis/x"
    if r.random() < 0.4:
        doc["status"] = r.choice([{"replicas": 2, "readyReplicas": 1}, {}, {"phase": "Bound"}])
    if doc["kind"] == "Deployment" and r.random() < 0.5:
        annotations = metadata.setdefault("annotations", {})
        annotations["deployment.kubernetes.io/revision"] = "3"
        if r.random() < 0.5:
            annotations["deployment.kubernetes.io/revision-history"] = "1,2"


def _user_metadata(r: random.Random, doc: Doc) -> None:
    metadata = doc["metadata"]
    if r.random() < 0.5:
        metadata.setdefault("labels", {})["team"] = r.choice(["a", "b"])
    if r.random() < 0.3:
        metadata.setdefault("annotations", {})["note"] = "kept"
    if r.random() < 0.35:
        value = r.choice(["abort", "overwrite", "Overwrite", "", "replace", "abort"])
        metadata.setdefault("annotations", {})[CONFLICT] = value
    if r.random() < 0.05:
        metadata["labels"] = {}
    if r.random() < 0.05:
        metadata["annotations"] = {}


def _template(r: random.Random, edge: bool) -> Doc:
    if edge:
        make = r.choices([m for m, _ in EDGES], [w for _, w in EDGES])[0]
        doc = make(r)
        doc["metadata"] = {**doc.get("metadata", {}), "name": "task", "namespace": NAMESPACE}
    elif r.random() < 0.12:
        make = r.choices([m for m, _ in CLUSTER_SCOPED], [w for _, w in CLUSTER_SCOPED])[0]
        doc = make(r)
        doc["metadata"] = {**doc.get("metadata", {}), "name": r.choice(["global", "reader"])}
    else:
        name = r.choice(["web", "db", "task", "builder"])
        make = r.choices([m for m, _ in NAMESPACED], [w for _, w in NAMESPACED])[0]
        doc = _service_account(r, name) if make is None else make(r)
        doc["metadata"] = {**doc.get("metadata", {}), "name": name, "namespace": NAMESPACE}
    _user_metadata(r, doc)
    if doc["kind"] == "Secret":
        doc["metadata"].setdefault("annotations", {})[PLAINTEXT] = "true"
    _server_set(r, doc)
    return doc


# --- claims and bindings -----------------------------------------------------------------


def _claim(r: random.Random, namespaced: bool) -> tuple[Doc, Doc]:
    """The labels and annotations of the policy claim the detector writes."""
    if namespaced and r.random() < 0.75:
        return (
            {PP_ID_LABEL: "9a1c3b5e-0000-4000-8000-00000000aaaa"},
            {
                "propagationpolicy.karmada.io/namespace": NAMESPACE,
                "propagationpolicy.karmada.io/name": "pp",
            },
        )
    return (
        {CPP_ID_LABEL: "7f2e4d6c-0000-4000-8000-00000000bbbb"},
        {"clusterpropagationpolicy.karmada.io/name": "cpp"},
    )


def _shares(r: random.Random, total: int, names: list[str]) -> list[int]:
    shares = [0] * len(names)
    for _ in range(total):
        shares[r.randrange(len(names))] += 1
    return shares


def _interpreted_replicas(doc: Doc) -> int:
    """The replicas Karmada's detector would read from the template (close enough: the
    scenario's binding only needs to be plausible)."""
    spec = doc.get("spec") or {}
    kind = doc["kind"]
    if kind in ("Deployment", "StatefulSet", "ReplicaSet") and doc["apiVersion"] == "apps/v1":
        value = spec.get("replicas", 1)
    elif kind == "Job" and doc["apiVersion"] == "batch/v1":
        value = spec.get("parallelism", 1)
    elif kind == "Pod" and doc["apiVersion"] == "v1":
        value = 1
    else:
        value = 0
    return int(value) if isinstance(value, (int, float)) else 0


def _edge_binding(r: random.Random, binding: Doc) -> None:
    """Binding shapes the scheduler rarely makes: every divided share 0, a cluster listed
    twice, the most replicas a cluster can take, replica requirements without replicas, no
    permanent id."""
    spec = binding["spec"]
    clusters = spec["clusters"]
    divided = "Divided" in json.dumps(spec.get("placement"))
    if not divided and r.random() < 0.3:
        spec["replicas"] = r.choice([0, 2, 5])
        spec["placement"] = {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
            }
        }
        divided = True
    if clusters and divided and r.random() < 0.5:
        for t in clusters:
            t["replicas"] = r.choice([0, 0, 1])
    if clusters and r.random() < 0.2:
        clusters.append(dict(r.choice(clusters)))
    if clusters and r.random() < 0.1:
        clusters[0]["replicas"] = 2**31 - 1
    if r.random() < 0.15:
        spec["replicaRequirements"] = {"resourceRequest": {"cpu": "100m"}}
    if r.random() < 0.1:
        labels = binding["metadata"]["labels"]
        for key in [k for k in labels if k.endswith("binding.karmada.io/permanent-id")]:
            del labels[key]


def _binding(r: random.Random, template: Doc, labels: Doc, annotations: Doc) -> Doc:
    metadata = template["metadata"]
    namespaced = "namespace" in metadata
    kind = "ResourceBinding" if namespaced else "ClusterResourceBinding"
    id_label = (
        "resourcebinding.karmada.io/permanent-id"
        if namespaced
        else "clusterresourcebinding.karmada.io/permanent-id"
    )
    name = f"{metadata['name']}-{template['kind']}".lower()
    replicas = _interpreted_replicas(template)
    if r.random() < 0.15:
        replicas = r.choice([0, 1, 4, 6])
    names = r.sample(CLUSTERS, r.randint(1, 4))
    spec: Doc = {
        "resource": {
            "apiVersion": template["apiVersion"],
            "kind": template["kind"],
            "name": metadata["name"],
        },
    }
    if namespaced:
        spec["resource"]["namespace"] = NAMESPACE
    if replicas:
        spec["replicas"] = replicas
    divided = replicas > 0 and r.random() < 0.5
    if divided:
        spec["placement"] = {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
            }
        }
        shares = _shares(r, replicas, names)
        spec["clusters"] = [{"name": n, "replicas": s} for n, s in zip(names, shares, strict=True)]
    else:
        if r.random() < 0.7:
            spec["placement"] = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}
        spec["clusters"] = [
            {"name": n, "replicas": replicas} if replicas else {"name": n} for n in names
        ]
    if r.random() < 0.5:
        spec["conflictResolution"] = r.choice(["Abort", "Overwrite"])
    if r.random() < 0.2:
        others = r.sample(CLUSTERS, r.randint(1, 3))
        spec["requiredBy"] = [
            {
                "namespace": NAMESPACE if namespaced else "",
                "name": "app-deployment",
                "clusters": [{"name": n, "replicas": r.choice([0, 2])} for n in others],
            }
        ]
    if r.random() < 0.1:
        spec["clusters"] = []
    binding_meta: Doc = {
        "name": name,
        "labels": {**labels, id_label: "3c5e7a9b-0000-4000-8000-00000000cccc"},
        "annotations": {**annotations, "policy.karmada.io/applied-placement": "{}"},
    }
    if namespaced:
        binding_meta["namespace"] = NAMESPACE
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": kind,
        "metadata": binding_meta,
        "spec": spec,
    }


# --- clusters and overrides ----------------------------------------------------------------


def _cluster(r: random.Random, name: str) -> Doc:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name, "labels": {"env": r.choice(["prod", "dev"])}},
        "spec": {"syncMode": "Push", "region": r.choice(["r1", "r2"])},
    }


def _overriders(r: random.Random, template: Doc) -> Doc:
    overriders: Doc = {}
    if r.random() < 0.5:
        keys = ["team", "tier", r.choice([CPP_ID_LABEL, PP_ID_LABEL, RB_ID_LABEL, "extra", "x"])]
        overriders["labelsOverrider"] = [
            {
                "operator": r.choice(["add", "replace", "remove"]),
                "value": {r.choice(keys): r.choice(["x", "y"])},
            }
        ]
    if r.random() < 0.5:
        keys = [
            "note",
            CONFLICT,
            "deployment.kubernetes.io/revision",
            "volume.kubernetes.io/selected-node",
            "resourcebinding.karmada.io/name",
            "propagationpolicy.karmada.io/name",
        ]
        key = r.choice(keys)
        value = (
            r.choice(["abort", "overwrite", "bad"])
            if key == CONFLICT
            else r.choice(["1", "node-9"])
        )
        overriders["annotationsOverrider"] = [
            {"operator": r.choice(["add", "replace", "remove"]), "value": {key: value}}
        ]
    spec = template.get("spec") or {}
    if "replicas" in spec and r.random() < 0.5:
        overriders["plaintext"] = [
            {
                "path": "/spec/replicas",
                "operator": r.choice(["replace", "add"]),
                "value": r.choice([0, 4, 9]),
            }
        ]
    if template["kind"] == "Job" and r.random() < 0.4:
        overriders["plaintext"] = [
            {"path": "/spec/completions", "operator": "add", "value": r.choice([2, 6])}
        ]
    if r.random() < 0.04:
        overriders["plaintext"] = [{"path": "/spec/missing", "operator": "replace", "value": 1}]
    if r.random() < 0.08:
        field = r.choice(["labels", "annotations"])
        overriders["plaintext"] = [{"path": f"/metadata/{field}", "operator": "remove"}]
    if not overriders:
        overriders["labelsOverrider"] = [{"operator": "add", "value": {"overridden": "yes"}}]
    return overriders


def _target(r: random.Random) -> Doc | None:
    choice = r.randint(0, 3)
    if choice == 0:
        return None
    if choice == 1:
        return {"clusterNames": r.sample(CLUSTERS, r.randint(1, 2))}
    if choice == 2:
        return {"labelSelector": {"matchLabels": {"env": r.choice(["prod", "dev"])}}}
    return {
        "fieldSelector": {
            "matchExpressions": [{"key": "region", "operator": "In", "values": ["r1"]}]
        }
    }


def _policy(r: random.Random, kind: str, name: str, template: Doc) -> Doc:
    rule: Doc = {"overriders": _overriders(r, template)}
    target = _target(r)
    if target is not None:
        rule["targetCluster"] = target
    selector: Doc = {"apiVersion": template["apiVersion"], "kind": template["kind"]}
    if r.random() < 0.2:
        selector["name"] = "someone-else"
    metadata: Doc = {"name": name}
    if kind == "OverridePolicy":
        metadata["namespace"] = NAMESPACE
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": kind,
        "metadata": metadata,
        "spec": {"resourceSelectors": [selector], "overrideRules": [rule]},
    }


def scenario(seed: int) -> Doc:
    """One scenario: `source` is the template as its user wrote it in the source, `case` what
    the harness gives ensureWork (the template as Karmada stores it, with its claim)."""
    r = random.Random(seed)
    edge = seed >= PLAUSIBLE
    source = _template(r, edge)
    namespaced = "namespace" in source["metadata"]
    labels, annotations = _claim(r, namespaced)
    stored = copy.deepcopy(source)
    stored_meta = stored["metadata"]
    stored_meta["labels"] = {**stored_meta.get("labels", {}), **labels}
    stored_meta["annotations"] = {**stored_meta.get("annotations", {}), **annotations}
    if r.random() < 0.15:
        source = copy.deepcopy(stored)  # exported from a Karmada control plane, claim and all
    elif r.random() < 0.08:
        # a claim left from a policy that no longer takes the template, which Karmada's
        # detector cleaned from the stored template
        stale_labels, stale_annotations = _claim(r, namespaced)
        stale_labels = {k: f"{v}-old" for k, v in stale_labels.items()}
        source_meta = source["metadata"]
        source_meta["labels"] = {**source_meta.get("labels", {}), **stale_labels}
        source_meta["annotations"] = {**source_meta.get("annotations", {}), **stale_annotations}
    binding = _binding(r, stored, labels, annotations)
    if edge:
        _edge_binding(r, binding)
    names = targets(binding)
    present = [n for n in names if r.random() < 0.97]
    clusters = [_cluster(r, n) for n in sorted({*present, *r.sample(CLUSTERS, 2)})]
    policies = []
    if namespaced:
        policies = [
            _policy(r, "OverridePolicy", n, stored) for n in r.sample(["a", "b"], r.randint(0, 2))
        ]
    cluster_policies = [
        _policy(r, "ClusterOverridePolicy", n, stored)
        for n in r.sample(["ca", "cb"], r.randint(0, 1))
    ]
    return {
        "source": source,
        "case": {
            "template": stored,
            "binding": binding,
            "clusters": clusters,
            "overridePolicies": policies,
            "clusterOverridePolicies": cluster_policies,
        },
    }


def answer(given: Doc, binding: Doc) -> list[str]:
    """Per target cluster, in order: the manifest's digest, or "error"."""
    outcomes = given["clusters"]
    return [
        digest(outcomes[name]["manifest"]) if "manifest" in outcomes[name] else "error"
        for name in targets(binding)
    ]


def main() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from bench import karmada_harness

    checkout = karmada_harness.checkout_from_command_line(__doc__.splitlines()[0])
    harness = root / "bench" / "karmada_work.go"
    export = root / "bench" / "karmada_work_export.go"
    cases = [scenario(seed)["case"] for seed in range(SEEDS)]
    given = karmada_harness.answers(
        harness, checkout.path, checkout.go, list(cases), {"pkg/controllers/binding": export}
    )
    kept = [answer(g, c["binding"]) for g, c in zip(given, cases, strict=True)]
    karmada_harness.write_answers(ANSWERS, checkout.commit, kept)


if __name__ == "__main__":
    main()
