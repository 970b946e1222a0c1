"""Whether a binding is scheduled again or keeps its previous result
(Karmada: pkg/scheduler/scheduler.go doScheduleBinding, HasTerminatingTargetClusters,
event_handler.go schedulerNameFilter; pkg/scheduler/helper.go placementChanged,
clusterAffinitiesChanged; pkg/util/binding.go IsBindingReplicasChanged, RescheduleRequired).

Karmada reschedules, in this order, when: the placement differs from the one last applied
(for `clusterAffinities`, only the term in use counts); the replicas no longer add up; a
reschedule was triggered after the last schedule; the resource is not a workload or is
Duplicated (always); a cluster of the result is being deleted. gitfleet also counts a cluster
of the result that no longer exists at all: Karmada sees it as being deleted first.
Otherwise a Divided workload keeps its result, whatever the clusters' capacity does.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from gitfleet.errors import SchemaError
from gitfleet.model import _codec, meta, policy, times, work
from gitfleet.model.origin import UNKNOWN
from gitfleet.scheduler import framework, index

DEFAULT_SCHEDULER = "default-scheduler"
APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"
"""Annotation holding the placement of the last schedule, as JSON."""
_PARTS_OUTSIDE_AFFINITIES = (
    "clusterAffinity",
    "clusterTolerations",
    "spreadConstraints",
    "replicaScheduling",
)


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """Whether to schedule, and why (for `explain`)."""

    reschedule: bool
    reason: str


def reschedule_required(triggered_at: str | None, last_scheduled: str | None) -> bool:
    """A reschedule was asked for after the last successful schedule; never before the first
    one (RescheduleRequired)."""
    triggered, last = times.parse(triggered_at), times.parse(last_scheduled)
    return triggered is not None and last is not None and triggered > last


def placement_changed(current: dict[str, Any], applied_text: str, affinity_name: str) -> bool:
    """The placement differs from the applied one (placementChanged). An unreadable
    annotation counts as unchanged, as in Karmada (one nested too deep for Python's reader,
    which a hand-edited rendered branch can hold, too)."""
    if not applied_text:
        return True
    try:
        raw = json.loads(applied_text)
    except (ValueError, RecursionError):
        return False
    if current == raw:
        return False
    applied = _read_back(raw)
    if applied is None:
        return False
    if current == applied:
        return False
    if any(current.get(part) != applied.get(part) for part in _PARTS_OUTSIDE_AFFINITIES):
        return True
    return _affinity_term_changed(
        current.get("clusterAffinities") or [],
        applied.get("clusterAffinities") or [],
        affinity_name,
    )


def _read_back(raw: Any) -> dict[str, Any] | None:
    """The annotation's placement as Karmada reads it (json.Unmarshal into a Placement):
    fields it does not know and null values are dropped, a zero value is as good as an absent
    one, and a `null` document is an empty placement; None when it does not decode (an array,
    a string, a field of the wrong type), which Karmada counts as unchanged. Differs where Go
    tells an empty list from an absent one, and where Go reads a value the model refuses (an
    unknown replicaSchedulingType): Karmada sees a change there, gitfleet none; neither
    writes such an annotation."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        return None
    try:
        placement = _codec.decode(policy.Placement, raw, UNKNOWN, lenient=True)
    except SchemaError:
        return None
    doc: dict[str, Any] = meta.to_doc(placement)
    return doc


def _affinity_term_changed(current: list[Any], applied: list[Any], affinity_name: str) -> bool:
    """Only the term in use matters (clusterAffinitiesChanged)."""
    if not affinity_name:
        return True

    def term(terms: list[Any]) -> Any:
        return next((t for t in terms if t.get("affinityName") == affinity_name), None)

    now, before = term(current), term(applied)
    return now is None or before is None or now != before


def replicas_changed(spec: work.ResourceBindingSpec) -> bool:
    """The result no longer matches the replicas (IsBindingReplicasChanged)."""
    strategy = spec.placement.replica_scheduling if spec.placement else None
    if strategy is None:
        return False
    if strategy.replica_scheduling_type == policy.ReplicaSchedulingType.DUPLICATED:
        return any(t.replicas != spec.replicas for t in spec.clusters)
    if strategy.replica_scheduling_type == policy.ReplicaSchedulingType.DIVIDED:
        return sum(t.replicas for t in spec.clusters) != spec.replicas
    return False


def gone_targets(spec: work.ResourceBindingSpec, clusters: index.ClusterIndex) -> list[str]:
    """Clusters of the result being deleted or no longer declared."""
    return [
        t.name
        for t in spec.clusters
        if t.name not in clusters.infos
        or clusters.infos[t.name].cluster.metadata.deletion_timestamp is not None
    ]


def decide(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    placement_doc: dict[str, Any],
    applied_text: str,
    clusters: index.ClusterIndex,
) -> Decision:
    """Karmada's triggers, in Karmada's order."""
    if spec.scheduler_name not in ("", DEFAULT_SCHEDULER):
        return Decision(False, f"schedulerName {spec.scheduler_name} is not {DEFAULT_SCHEDULER}")
    if spec.suspension is not None and spec.suspension.scheduling:
        return Decision(False, "scheduling is suspended")
    if placement_changed(placement_doc, applied_text, status.scheduler_observed_affinity_name):
        if not applied_text:
            return Decision(True, "never scheduled")
        return Decision(True, "placement changed since the last schedule")
    if replicas_changed(spec):
        placed = sum(t.replicas for t in spec.clusters)
        return Decision(True, f"replicas changed ({placed} placed, {spec.replicas} desired)")
    if reschedule_required(spec.reschedule_triggered_at, status.last_scheduled_time):
        return Decision(
            True,
            f"reschedule triggered at {spec.reschedule_triggered_at}, after the last schedule "
            f"at {status.last_scheduled_time}",
        )
    if not framework.is_workload(spec):
        return Decision(True, "resources without replicas are always scheduled")
    if framework.scheduling_type(spec.placement) == policy.ReplicaSchedulingType.DUPLICATED:
        return Decision(True, "duplicated workloads are always scheduled")
    gone = gone_targets(spec, clusters)
    if gone:
        return Decision(True, f"target cluster(s) {', '.join(gone)} deleted")
    return Decision(False, "divided workload unchanged: previous result kept")
