"""Defaults a real API server fills in on every write, for the built-in kinds clients apply
and Karmada users override most (Kubernetes: pkg/apis/{core,apps,batch,...}/v1/defaults.go,
the `SetDefaults_*` functions, plus the empty structs Go always writes out). Only a common
subset is modelled.

Two readers share this one table, so they cannot disagree about what a server stores: the
simulated member cluster (`gitfleet.sim`), which stores objects as a real server would, so a
client that compares its manifest with the live object field by field sees the difference
there first; and the override stage (`gitfleet.overrides`), which fills in a default only
where an overrider's path needs it, as Karmada's override manager finds it in the object its
API server stored.

This module imports nothing of gitfleet: the simulated cluster stands alone.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

Obj = dict[str, Any]
"""A Kubernetes object as decoded JSON, defaulted in place."""

Defaulter = Callable[[Obj], None]


def dig(obj: Obj, *keys: str) -> Any:
    """`obj[k1][k2]...`, or None as soon as a level is missing or not an object."""
    value: Any = obj
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def ensure(obj: Obj, *keys: str) -> Obj:
    """The nested object at `keys`, created (as {}) where missing."""
    for key in keys:
        child = obj.get(key)
        if not isinstance(child, dict):
            child = {}
            obj[key] = child
        obj = child
    return obj


def _set(obj: Obj, key: str, value: object) -> None:
    if obj.get(key) is None:
        obj[key] = value


def _tag(image: str) -> str:
    """An image reference's tag as the server reads it to choose a pull policy: `latest` when
    it names neither a tag nor a digest, none when it names only a digest."""
    name, at, _ = image.partition("@")
    last = name.rpartition("/")[2]
    if ":" in last:
        return last.rpartition(":")[2]
    return "" if at else "latest"


def _container(container: Obj) -> None:
    latest = _tag(str(container.get("image", ""))) == "latest"
    _set(container, "imagePullPolicy", "Always" if latest else "IfNotPresent")
    _set(container, "terminationMessagePath", "/dev/termination-log")
    _set(container, "terminationMessagePolicy", "File")
    _set(container, "resources", {})  # an empty struct the server always writes out
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            _set(port, "protocol", "TCP")
    for env in container.get("env") or []:
        if isinstance(env, dict):
            _field_ref(dig(env, "valueFrom", "fieldRef"))
    for name in ("livenessProbe", "readinessProbe", "startupProbe"):
        probe = container.get(name)
        if isinstance(probe, dict):
            _probe(probe)
    lifecycle = container.get("lifecycle")
    for hook in lifecycle.values() if isinstance(lifecycle, dict) else ():
        if isinstance(hook, dict) and isinstance(hook.get("httpGet"), dict):
            _http_get(hook["httpGet"])


def _probe(probe: Obj) -> None:
    """A probe's timings: an int32 the server reads as unset when 0, so 0 is defaulted too."""
    for name, value in (
        ("timeoutSeconds", 1),
        ("periodSeconds", 10),
        ("successThreshold", 1),
        ("failureThreshold", 3),
    ):
        if not probe.get(name):
            probe[name] = value
    if isinstance(probe.get("httpGet"), dict):
        _http_get(probe["httpGet"])


def _http_get(action: Obj) -> None:
    if not action.get("path"):
        action["path"] = "/"
    if not action.get("scheme"):
        action["scheme"] = "HTTP"


def _field_ref(selector: Any) -> None:
    """A field selector (an env var's, a downward API file's) reads the pod as `v1` unless
    it names a version."""
    if isinstance(selector, dict) and not selector.get("apiVersion"):
        selector["apiVersion"] = "v1"


def _downward_items(source: Any) -> None:
    items = source.get("items") if isinstance(source, dict) else None
    for item in items or []:
        if isinstance(item, dict):
            _field_ref(item.get("fieldRef"))


_FILE_MODE = 0o644
"""The mode of the files a secret, configMap, downwardAPI or projected volume holds, unless
the volume names one."""


def _volume(volume: Obj) -> None:
    if all(value is None for key, value in volume.items() if key != "name"):
        volume["emptyDir"] = {}  # a volume naming no source
    for source in ("secret", "configMap", "downwardAPI", "projected"):
        if isinstance(volume.get(source), dict):
            _set(volume[source], "defaultMode", _FILE_MODE)
    _downward_items(volume.get("downwardAPI"))
    for projection in dig(volume, "projected", "sources") or []:
        if isinstance(projection, dict):
            _downward_items(projection.get("downwardAPI"))
            token = projection.get("serviceAccountToken")
            if isinstance(token, dict):
                _set(token, "expirationSeconds", 3600)
    if isinstance(volume.get("hostPath"), dict):
        _set(volume["hostPath"], "type", "")
    claim = dig(volume, "ephemeral", "volumeClaimTemplate")
    if isinstance(claim, dict):
        _claim_template(claim)


def _claim_template(claim: Obj) -> None:
    """A claim embedded in another object (a StatefulSet's volumeClaimTemplates, an ephemeral
    volume's): an ObjectMeta with its zero creation time, and a claim spec's defaults."""
    ensure(claim, "metadata").setdefault("creationTimestamp", None)
    _set(ensure(claim, "spec"), "volumeMode", "Filesystem")


def pod_spec(spec: Obj) -> None:
    _set(spec, "restartPolicy", "Always")
    _set(spec, "dnsPolicy", "ClusterFirst")
    _set(spec, "schedulerName", "default-scheduler")
    _set(spec, "terminationGracePeriodSeconds", 30)
    _set(spec, "securityContext", {})
    for field in ("containers", "initContainers", "ephemeralContainers"):
        for container in spec.get(field) or []:
            if isinstance(container, dict):
                _container(container)
    for volume in spec.get("volumes") or []:
        if isinstance(volume, dict):
            _volume(volume)


def pod_template(template: Obj) -> None:
    """A pod template: its spec's defaults, and the `creationTimestamp: null` a real server
    writes into every embedded ObjectMeta (a zero time that Go's JSON does not leave out)."""
    ensure(template, "metadata").setdefault("creationTimestamp", None)
    pod_spec(ensure(template, "spec"))


def _template(obj: Obj) -> None:
    template = dig(obj, "spec", "template")
    if isinstance(template, dict):
        pod_template(template)


def _rolling_update(spec: Obj, key: str, limits: dict[str, object]) -> None:
    """A Deployment's or DaemonSet's strategy, defaulted field by field: an empty one, or one
    naming only some of its parts, gets the rest (`strategy: {}` is RollingUpdate with its
    limits, as `kubectl create deployment` sends it)."""
    strategy = ensure(spec, key)
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
    if strategy["type"] == "RollingUpdate":
        rolling = ensure(strategy, "rollingUpdate")
        for name, value in limits.items():
            _set(rolling, name, value)


def _deployment(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "replicas", 1)
    _set(spec, "revisionHistoryLimit", 10)
    _set(spec, "progressDeadlineSeconds", 600)
    _rolling_update(spec, "strategy", {"maxUnavailable": "25%", "maxSurge": "25%"})
    _template(obj)


def _statefulset(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "replicas", 1)
    _set(spec, "revisionHistoryLimit", 10)
    _set(spec, "podManagementPolicy", "OrderedReady")
    retention = ensure(spec, "persistentVolumeClaimRetentionPolicy")
    _set(retention, "whenDeleted", "Retain")
    _set(retention, "whenScaled", "Retain")
    for claim in spec.get("volumeClaimTemplates") or []:
        if isinstance(claim, dict):
            _claim_template(claim)
            _set(ensure(claim, "status"), "phase", "Pending")
    strategy = ensure(spec, "updateStrategy")
    if not strategy.get("type"):
        strategy["type"] = "RollingUpdate"
        _set(strategy, "rollingUpdate", {})
    rolling = strategy.get("rollingUpdate")
    if strategy["type"] == "RollingUpdate" and isinstance(rolling, dict):
        _set(rolling, "partition", 0)
    _template(obj)


def _replicaset(obj: Obj) -> None:
    _set(ensure(obj, "spec"), "replicas", 1)
    _template(obj)


def _daemonset(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "revisionHistoryLimit", 10)
    _rolling_update(spec, "updateStrategy", {"maxUnavailable": 1, "maxSurge": 0})
    _template(obj)


_MAX_INT32 = 2**31 - 1


def _job(obj: Obj) -> None:
    """A Job's defaults, with those of JobPodReplacementPolicy (on by default since 1.29):
    pods are replaced once terminating, or only once failed when a podFailurePolicy decides
    about failed pods. A Job without labels gets its pod template's labels: the same map, as
    Go's defaulting and conversion share it, so the labels the registry then adds to the
    template (the Job's uid) are the Job's too."""
    spec = ensure(obj, "spec")
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1  # one pod to succeed; a parallel Job leaves it unset
    _set(spec, "parallelism", 1)
    per_index = spec.get("backoffLimitPerIndex") is not None
    _set(spec, "backoffLimit", _MAX_INT32 if per_index else 6)
    _set(spec, "completionMode", "NonIndexed")
    _set(spec, "suspend", False)
    failure_policy = spec.get("podFailurePolicy")
    replacement = "Failed" if failure_policy is not None else "TerminatingOrFailed"
    _set(spec, "podReplacementPolicy", replacement)
    rules = failure_policy.get("rules") if isinstance(failure_policy, dict) else None
    for rule in rules or []:
        for pattern in (rule.get("onPodConditions") if isinstance(rule, dict) else None) or []:
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"
    template_labels = dig(spec, "template", "metadata", "labels")
    if isinstance(template_labels, dict) and not dig(obj, "metadata", "labels"):
        ensure(obj, "metadata")["labels"] = template_labels
    template = ensure(spec, "template")
    _set(ensure(template, "spec"), "restartPolicy", "Never")
    _template(obj)


def _cronjob(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "concurrencyPolicy", "Allow")
    _set(spec, "suspend", False)
    _set(spec, "successfulJobsHistoryLimit", 3)
    _set(spec, "failedJobsHistoryLimit", 1)
    jobs = ensure(spec, "jobTemplate")
    ensure(jobs, "metadata").setdefault("creationTimestamp", None)
    template = dig(jobs, "spec", "template")
    if isinstance(template, dict):
        pod_template(template)


def _pod(obj: Obj) -> None:
    """A Pod's own defaults, on top of its spec's (which pod templates get too): service
    links, requests equal to the limits a container names without requests, and on the host
    network, host ports equal to the container ports."""
    spec = ensure(obj, "spec")
    for field in ("containers", "initContainers"):
        for container in spec.get(field) or []:
            limits = dig(container, "resources", "limits")
            if isinstance(limits, dict):
                requests = ensure(container, "resources", "requests")
                for name, quantity in limits.items():
                    requests.setdefault(name, quantity)
    _set(spec, "enableServiceLinks", True)
    if spec.get("hostNetwork") is True:
        for field in ("containers", "initContainers"):
            for container in spec.get(field) or []:
                for port in (container.get("ports") if isinstance(container, dict) else None) or []:
                    if isinstance(port, dict) and not port.get("hostPort"):
                        port["hostPort"] = port.get("containerPort")
    pod_spec(spec)


def _ingress(obj: Obj) -> None:
    _set(ensure(obj, "status"), "loadBalancer", {})  # a struct always written out


def _claim(obj: Obj) -> None:
    _set(ensure(obj, "spec"), "volumeMode", "Filesystem")
    _set(ensure(obj, "status"), "phase", "Pending")


def _persistent_volume(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "persistentVolumeReclaimPolicy", "Retain")
    _set(spec, "volumeMode", "Filesystem")
    _set(ensure(obj, "status"), "phase", "Pending")


def _replication_controller(obj: Obj) -> None:
    """A ReplicationController selects, and is labelled with, its pods' labels unless it
    says otherwise."""
    spec = ensure(obj, "spec")
    _set(spec, "replicas", 1)
    labels = dig(spec, "template", "metadata", "labels")
    if isinstance(labels, dict):
        if not spec.get("selector"):
            spec["selector"] = dict(labels)
        if not dig(obj, "metadata", "labels"):
            ensure(obj, "metadata")["labels"] = dict(labels)
    _template(obj)


def _endpoints(obj: Obj) -> None:
    for subset in obj.get("subsets") or []:
        for port in (subset.get("ports") if isinstance(subset, dict) else None) or []:
            if isinstance(port, dict):
                _set(port, "protocol", "TCP")


def _network_policy(obj: Obj) -> None:
    """Ingress is always a policy type of a NetworkPolicy that names none, and Egress too
    when it has egress rules."""
    spec = ensure(obj, "spec")
    if not spec.get("policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if spec.get("egress") else ["Ingress"]
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or []:
            for port in (rule.get("ports") if isinstance(rule, dict) else None) or []:
                if isinstance(port, dict):
                    _set(port, "protocol", "TCP")


def _ingress_class(obj: Obj) -> None:
    parameters = dig(obj, "spec", "parameters")
    if isinstance(parameters, dict):
        _set(parameters, "scope", "Cluster")


def _volume_attachment(obj: Obj) -> None:
    _set(ensure(obj, "status"), "attached", False)  # a bool Go writes out when false


def _pod_template(obj: Obj) -> None:
    pod_template(ensure(obj, "template"))


def _csi_driver(obj: Obj) -> None:
    spec = ensure(obj, "spec")
    _set(spec, "attachRequired", True)
    _set(spec, "podInfoOnMount", False)
    _set(spec, "volumeLifecycleModes", ["Persistent"])
    _set(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType")


CLIENT_IP_TIMEOUT = 10800
"""Seconds a Service with ClientIP session affinity keeps a client on one endpoint, unless it
names a timeout."""


def _service(obj: Obj) -> None:
    """A Service's defaults. Session affinity `None` drops any affinity config; `ClientIP`
    without a timeout gets a whole config with the default one. The external traffic policy
    is that of a Service reachable from outside: a NodePort or LoadBalancer one, or one with
    external IPs."""
    spec = ensure(obj, "spec")
    _set(spec, "type", "ClusterIP")
    _set(spec, "sessionAffinity", "None")
    affinity = spec["sessionAffinity"]
    timeout = dig(spec, "sessionAffinityConfig", "clientIP", "timeoutSeconds")
    if affinity == "None":
        spec.pop("sessionAffinityConfig", None)
    elif affinity == "ClientIP" and timeout is None:
        spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": CLIENT_IP_TIMEOUT}}
    if spec["type"] in ("ClusterIP", "NodePort", "LoadBalancer"):
        _set(spec, "internalTrafficPolicy", "Cluster")
    external = spec["type"] in ("NodePort", "LoadBalancer")
    if external or (spec["type"] == "ClusterIP" and spec.get("externalIPs")):
        _set(spec, "externalTrafficPolicy", "Cluster")
    if spec["type"] == "LoadBalancer":
        _set(spec, "allocateLoadBalancerNodePorts", True)
    for port in spec.get("ports") or []:
        if isinstance(port, dict):
            _set(port, "protocol", "TCP")
            if port.get("targetPort") in (None, 0, ""):
                port["targetPort"] = port.get("port")
    status = ensure(obj, "status")
    _set(status, "loadBalancer", {})  # an empty struct the server always writes out


def fold_string_data(secret: Obj) -> None:
    """Fold a Secret's `stringData` into its `data`, in place, as every API server does on
    write (base64, a `stringData` key winning over the same key of `data`): `stringData` is
    write-only, and a stored Secret never has it."""
    plain = secret.pop("stringData", None)
    if isinstance(plain, dict) and plain:
        data = ensure(secret, "data")
        for key, value in plain.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


def _secret(obj: Obj) -> None:
    _set(obj, "type", "Opaque")
    fold_string_data(obj)


def _namespace(obj: Obj) -> None:
    _set(ensure(obj, "spec"), "finalizers", ["kubernetes"])
    labels = ensure(obj, "metadata", "labels")
    labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]
    _set(ensure(obj, "status"), "phase", "Active")


def _horizontal_pod_autoscaler(obj: Obj) -> None:
    """autoscaling/v2's defaults: one replica at least, and 80% CPU when no metric is given
    (which is how a v1 object without targetCPUUtilizationPercentage reads back 80)."""
    spec = ensure(obj, "spec")
    _set(spec, "minReplicas", 1)
    if not spec.get("metrics"):
        target = {"type": "Utilization", "averageUtilization": 80}
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]


_KINDS: tuple[tuple[str, str, str, str, Defaulter], ...] = (
    ("apps", "v1", "Deployment", "deployments", _deployment),
    ("apps", "v1", "StatefulSet", "statefulsets", _statefulset),
    ("apps", "v1", "ReplicaSet", "replicasets", _replicaset),
    ("apps", "v1", "DaemonSet", "daemonsets", _daemonset),
    ("batch", "v1", "Job", "jobs", _job),
    ("batch", "v1", "CronJob", "cronjobs", _cronjob),
    ("", "v1", "Pod", "pods", _pod),
    ("", "v1", "PodTemplate", "podtemplates", _pod_template),
    ("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", _claim),
    ("", "v1", "PersistentVolume", "persistentvolumes", _persistent_volume),
    ("", "v1", "ReplicationController", "replicationcontrollers", _replication_controller),
    ("", "v1", "Endpoints", "endpoints", _endpoints),
    ("networking.k8s.io", "v1", "Ingress", "ingresses", _ingress),
    ("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", _network_policy),
    ("networking.k8s.io", "v1", "IngressClass", "ingressclasses", _ingress_class),
    ("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", _volume_attachment),
    ("storage.k8s.io", "v1", "CSIDriver", "csidrivers", _csi_driver),
    ("", "v1", "Service", "services", _service),
    ("", "v1", "Secret", "secrets", _secret),
    ("", "v1", "Namespace", "namespaces", _namespace),
    (
        "autoscaling",
        "v2",
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        _horizontal_pod_autoscaler,
    ),
)
"""(group, version, kind, plural, defaulter) of each kind with defaults here. The defaults are
those of the version named; a server keeps every version of a kind in one form, so the
simulated cluster applies them whatever version a client wrote."""

_BY_RESOURCE: dict[tuple[str, str], Defaulter] = {(g, p): d for g, _, _, p, d in _KINDS}
_BY_KIND: dict[tuple[str, str], Defaulter] = {
    (f"{g}/{v}" if g else v, k): d for g, v, k, _, d in _KINDS
}


def apply_defaults(group: str, plural: str, obj: Obj) -> None:
    """Fill in `obj`'s defaults in place, as the server of `group`'s `plural` stores it."""
    defaulter = _BY_RESOURCE.get((group, plural))
    if defaulter is not None:
        defaulter(obj)


def for_kind(api_version: str, kind: str) -> Defaulter | None:
    """The defaulter of objects written as `api_version` `kind`, None for a kind (or version)
    without defaults here."""
    return _BY_KIND.get((api_version, kind))
