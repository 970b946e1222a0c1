"""What a member cluster reports about itself, as Karmada's cluster status controller collects it
(pkg/controllers/status/cluster_status_controller.go): Kubernetes version (`/version`), the
APIs it serves (discovery, subresources left out, sorted), node counts, and the resource
summary the scheduler divides replicas by:

- allocatable: the sum of every node's `status.allocatable`;
- allocated: the requests of pods bound to a node and not finished (Succeeded/Failed), plus
  their count as `pods`;
- allocating: the requests of pods not bound yet, plus their count;
- beside the summary, what each node has available (`node_available`: its allocatable less
  the requests of its pods), which the render grades against the Cluster's resource models
  into `allocatableModelings`, as Karmada's controller grades its nodes.

A pod's requests are its containers' requests added up, init containers counted as a running
maximum, plus its overhead (pkg/util/resource.go AddPodRequest; as there, the init-container
maximum is taken against the running total of all pods so far). CPU is summed in millicores,
memory and ephemeral storage in bytes, extended resources in whole units.

A cluster that does not answer `/version` is reported not Ready (ClusterNotReachable); one whose
`/readyz` (else `/healthz`) is not `ok` is reported not Ready (ClusterNotReady). The rest of the
previous report is kept then, as Karmada keeps it, and `CompleteResourceSummary` says its
summaries were not collected. Credentials the cluster refuses
(`kube.ConfigurationError`) are not the cluster's failure: `collect` raises them, and the agent
reports nothing.

Capacity is collected, never invented: when the nodes or pods cannot be listed (the agent's
RBAC lacks them, a timeout), the node and resource summaries of the previous report are kept
(none on a first report, so the Cluster's declared capacity stays in force), as Karmada's
cluster status controller keeps the last summary when it cannot build its informers, and the
condition `CompleteResourceSummary` says False with the reason. A cluster that answers with no
nodes is genuinely empty: its summaries say zero nodes and no allocatable resources.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gitfleet import errors
from gitfleet.agent import kube
from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import capacity, cluster, messages, meta

NODES = kube.ResourceType("v1", "Node", "nodes", namespaced=False)
PODS = kube.ResourceType("v1", "Pod", "pods", namespaced=True)
SUMMARY_CONDITION = capacity.SUMMARY_CONDITION
SUMMARY_COLLECTED, SUMMARY_UNAVAILABLE = capacity.SUMMARY_COLLECTED, capacity.SUMMARY_UNAVAILABLE
_NATIVE = ("cpu", "memory", "pods", "ephemeral-storage")
_BINARY = frozenset({"memory", "ephemeral-storage"})
_NANOS_PER_UNIT, _NANOS_PER_MILLI = 10**9, 10**6


def _scalar(name: str) -> bool:
    """Extended, huge-page, prefixed native and attachable-volume resources (Karmada
    lifted.IsScalarResourceName)."""
    if name.startswith(("hugepages-", "attachable-volumes-")) or "kubernetes.io/" in name:
        return True
    return "/" in name and not name.startswith("requests.")


class _Resources:
    """A running sum in Karmada's units: milli-CPU, bytes, whole units for the rest."""

    def __init__(self) -> None:
        self.amounts: dict[str, int] = {}

    @staticmethod
    def _units(name: str, raw: Any) -> int | None:
        try:
            parsed = quantity.parse(raw)
        except quantity.QuantityError:
            return None
        if name == "cpu":
            return parsed.milli_value()
        if name in _NATIVE or _scalar(name):
            return parsed.value()
        return None

    def add(self, requests: Mapping[str, Any]) -> None:
        for name, raw in requests.items():
            units = self._units(name, raw)
            if units is not None:
                self.amounts[name] = self.amounts.get(name, 0) + units

    def set_max(self, requests: Mapping[str, Any]) -> None:
        for name, raw in requests.items():
            units = self._units(name, raw)
            if units is not None and units > self.amounts.get(name, 0):
                self.amounts[name] = units

    def add_pod(self, spec: Mapping[str, Any]) -> None:
        for container in spec.get("containers") or []:
            self.add(((container.get("resources") or {}).get("requests")) or {})
        for container in spec.get("initContainers") or []:
            self.set_max(((container.get("resources") or {}).get("requests")) or {})
        self.add(spec.get("overhead") or {})

    def listed(self) -> dict[str, meta.Quantity] | None:
        out: dict[str, meta.Quantity] = {}
        for name, amount in sorted(self.amounts.items()):
            if amount <= 0:
                continue
            if name == "cpu":
                out[name] = str(quantity.of_milli(amount, quantity.Format.DECIMAL_SI))
            elif name in _BINARY or name.startswith("hugepages-"):
                out[name] = str(quantity.of_units(amount, quantity.Format.BINARY_SI))
            else:
                out[name] = str(quantity.of_units(amount, quantity.Format.DECIMAL_SI))
        return out or None


def allocatable(nodes: Iterable[Mapping[str, Any]]) -> dict[str, meta.Quantity] | None:
    """The sum of the nodes' allocatable resources, each in the format its first node used."""
    sums: dict[str, quantity.Quantity] = {}
    for node in nodes:
        for name, raw in ((node.get("status") or {}).get("allocatable") or {}).items():
            try:
                parsed = quantity.parse(raw)
            except quantity.QuantityError:
                continue
            held = sums.get(name)
            sums[name] = (
                parsed
                if held is None
                else dataclasses.replace(held, nanos=held.nanos + parsed.nanos)
            )
    return {name: str(q) for name, q in sorted(sums.items())} or None


def _bound(pod: Mapping[str, Any]) -> str | None:
    """The node a pod holds resources on: the one it is bound to, unless it has finished."""
    node = (pod.get("spec") or {}).get("nodeName")
    if not node or (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
        return None
    return str(node)


def resource_summary(
    nodes: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]]
) -> cluster.ResourceSummary:
    allocated, allocating = _Resources(), _Resources()
    for pod in pods:
        spec = pod.get("spec") or {}
        if not spec.get("nodeName"):
            allocating.add_pod(spec)
            allocating.add({"pods": 1})
        elif _bound(pod) is not None:
            allocated.add_pod(spec)
            allocated.add({"pods": 1})
    return cluster.ResourceSummary(
        allocatable=allocatable(nodes),
        allocating=allocating.listed(),
        allocated=allocated.listed(),
        node_available=node_available(nodes, pods),
    )


def _available(node: Mapping[str, Any], used: _Resources | None) -> dict[str, int] | None:
    """What `node` has available in nanounits (getNodeAvailable): its allocatable less what
    its pods request, for the resources it lists; None when its pods leave it no room for
    another pod."""
    offered: dict[str, int] = {}
    for name, raw in ((node.get("status") or {}).get("allocatable") or {}).items():
        try:
            offered[name] = quantity.parse(raw).nanos
        except quantity.QuantityError:
            continue
    requested = {k: v for k, v in (used.amounts if used else {}).items() if v > 0}
    if not requested:
        return offered
    if quantity.Quantity(offered.get("pods", 0)).value() - requested.get("pods", 0) <= 0:
        return None
    for name, amount in requested.items():
        if name in offered:
            offered[name] -= amount * (_NANOS_PER_MILLI if name == "cpu" else _NANOS_PER_UNIT)
    return offered


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def _printed(name: str, nanos: int) -> meta.Quantity:
    binary = name in _BINARY or name.startswith("hugepages-")
    fmt = quantity.Format.BINARY_SI if binary else quantity.Format.DECIMAL_SI
    return quantity.canonical(nanos, fmt)


def node_available(
    nodes: Sequence[Mapping[str, Any]], pods: Sequence[Mapping[str, Any]]
) -> tuple[cluster.NodeAvailable, ...]:
    """What each node has available, nodes with the same resources counted once, for the
    render to grade against the Cluster's resource models (`scheduler.modeling`), as
    Karmada's cluster status controller does (getAllocatableModelings).

    Every node counts, Ready or not; a pod counts on the node it is bound to unless it has
    finished, its requests added up as for `allocated` (in the order the pods are listed). The
    nodes are taken in name order, the order the API lists them in, and, as Karmada's
    controller stops at the first node whose pods leave no room for another pod, the nodes
    from that one on are not reported (Karmada takes them in its informer's order, which is
    not fixed). Resources with nothing available are left out: grading reads an absent one
    as zero."""
    used: dict[str, _Resources] = {}
    for pod in pods:
        bound = _bound(pod)
        if bound is not None:
            held = used.setdefault(bound, _Resources())
            held.add_pod(pod.get("spec") or {})
            held.add({"pods": 1})
    counted: dict[tuple[tuple[str, int], ...], int] = {}
    for node in sorted(nodes, key=_name):
        available = _available(node, used.get(_name(node)))
        if available is None:
            break
        key = tuple(sorted((k, v) for k, v in available.items() if v != 0))
        counted[key] = counted.get(key, 0) + 1
    return tuple(
        cluster.NodeAvailable(count=count, resources={k: _printed(k, v) for k, v in key} or None)
        for key, count in sorted(counted.items())
    )


def _node_ready(node: Mapping[str, Any]) -> bool:
    conditions = (node.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def api_enablements(client: kube.KubeClient) -> tuple[cluster.APIEnablement, ...]:
    """Every group version the cluster serves, with its resources (no subresources)."""
    versions = ["v1"] if "v1" in (client.get_path("/api") or {}).get("versions", []) else []
    for group in (client.get_path("/apis") or {}).get("groups") or []:
        versions += [v["groupVersion"] for v in group.get("versions") or []]
    found = []
    for group_version in sorted(set(versions)):
        path = "/api/v1" if group_version == "v1" else f"/apis/{group_version}"
        listed = client.get_path(path) or {}
        resources = sorted(
            (
                cluster.APIResource(name=r["name"], kind=r["kind"])
                for r in listed.get("resources") or []
                if "/" not in r["name"]
            ),
            key=lambda r: r.name,
        )
        found.append(cluster.APIEnablement(group_version=group_version, resources=tuple(resources)))
    return tuple(found)


def _condition(
    kind: str,
    previous: cluster.ClusterStatus | None,
    status: str,
    reason: str,
    message: str,
    now: str,
) -> meta.Condition:
    """A condition, keeping the previous transition time while its status holds; its message
    (a server's words, often) as one bounded line."""
    old = next((c for c in (previous.conditions if previous else ()) if c.type == kind), None)
    since = old.last_transition_time if old is not None and old.status == status else now
    return meta.Condition(
        type=kind,
        status=status,
        reason=reason,
        message=messages.one_line(message),
        last_transition_time=since,
    )


def ready_condition(
    previous: cluster.ClusterStatus | None, status: str, reason: str, message: str, now: str
) -> meta.Condition:
    """The Ready condition, keeping the previous transition time while the status holds."""
    return _condition("Ready", previous, status, reason, message, now)


def _summary_condition(
    previous: cluster.ClusterStatus | None, status: str, reason: str, message: str, now: str
) -> meta.Condition:
    return _condition(SUMMARY_CONDITION, previous, status, reason, message, now)


def _kept(
    previous: cluster.ClusterStatus | None, reason: str, message: str, now: str
) -> cluster.ClusterStatus:
    """The previous report, not Ready for `reason`; its summaries were not collected now."""
    ready = ready_condition(previous, "False", reason, message, now)
    collected = _summary_condition(previous, "False", SUMMARY_UNAVAILABLE, message, now)
    return dataclasses.replace(previous or cluster.ClusterStatus(), conditions=(ready, collected))


def collect(
    client: kube.KubeClient, previous: cluster.ClusterStatus | None, now: str
) -> cluster.ClusterStatus:
    """The cluster's status now (`now` is the RFC 3339 time, for the condition)."""
    try:
        version = client.get_path("/version") or {}
    except kube.ConfigurationError:
        raise
    except errors.ClusterAPIError as exc:
        return _kept(previous, "ClusterNotReachable", str(exc), now)
    try:
        healthy = _healthy(client)
        enabled = api_enablements(client)
    except kube.ConfigurationError:
        raise
    except errors.ClusterAPIError as exc:
        return _kept(previous, "ClusterNotReady", str(exc), now)
    try:
        nodes = client.list_objects(NODES)
        pods = client.list_objects(PODS)
    except errors.ClusterAPIError as exc:
        node_summary = previous.node_summary if previous else None
        summary = previous.resource_summary if previous else None
        collected = _summary_condition(previous, "False", SUMMARY_UNAVAILABLE, str(exc), now)
    else:
        node_summary = cluster.NodeSummary(
            total_num=len(nodes), ready_num=sum(1 for n in nodes if _node_ready(n))
        )
        summary = resource_summary(nodes, pods)
        collected = _summary_condition(
            previous, "True", SUMMARY_COLLECTED, "collected nodes and pods from the cluster", now
        )
    if healthy:
        condition = ready_condition(
            previous,
            "True",
            "ClusterReady",
            "cluster is healthy and ready to accept workloads",
            now,
        )
    else:
        condition = ready_condition(
            previous, "False", "ClusterNotReady", "cluster is not healthy", now
        )
    return cluster.ClusterStatus(
        kubernetes_version=str(version.get("gitVersion", "")),
        api_enablements=enabled,
        conditions=(condition, collected),
        node_summary=node_summary,
        resource_summary=summary,
    )


def _healthy(client: kube.KubeClient) -> bool:
    for path in ("/readyz", "/healthz"):
        try:
            return str(client.get_path(path)).strip() == "ok"
        except errors.NotFoundError:
            continue
    return False
