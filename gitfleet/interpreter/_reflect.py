"""The part of a member object's status that is reported back, per kind.

Workload counters travel with the member's `generation` and the template generation the member
was rendered from (`resourceTemplateGeneration`, read from the manifest annotation), so that
aggregation can tell whether every cluster has caught up with the latest template. Fields print
as Go's JSON encoder would: `omitempty` zeros are left out, other counters always present.
Karmada: pkg/resourceinterpreter/default/native/reflectstatus.go, status_type.go.

Two deliberate differences. A missing generation annotation reads as 0: Karmada always finds
one because its templates always have a generation, while gitfleet writes it only for
templates that set `metadata.generation` (as Karmada writes it only when > 0). And values Go's
encoder would write as null (an empty HorizontalPodAutoscaler `currentMetrics`, an unset
condition timestamp) are left out, which the API server reads the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from gitfleet.interpreter import _fields, _loadbalancer, _times
from gitfleet.model.template import RawObject

GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation"
_STATUS = ("status",)
_GO_INT = re.compile(r"[+-]?[0-9]+")
_INT64 = range(-(2**63), 2**63)
_INT64_DIGITS = 19

Status = dict[str, Any] | None
_CONDITION_FIELDS = ("type", "status", "reason", "message")
_CONDITION_TIMES = ("lastProbeTime", "lastTransitionTime")


def whole(obj: RawObject) -> Status:
    """Any kind without its own rule (and Ingress): the whole `.status`, if there is one."""
    status = _fields.nested_mapping(obj, "status", _STATUS)
    return None if status is None else _fields.copy_tree(status)


def _counters(
    status: dict[str, Any], order: Sequence[str], always: Sequence[str] = ()
) -> dict[str, Any]:
    """Integer status fields in Go's field order; zeros left out unless listed in `always`."""
    out: dict[str, Any] = {}
    for key in order:
        value = _fields.integer(status.get(key), ("status", key))
        if value or key in always:
            out[key] = value
    return out


def _federated(obj: RawObject, counters: dict[str, Any]) -> dict[str, Any]:
    """Prefix a workload's counters with its member and template generations."""
    metadata = _fields.mapping(obj.get("metadata"), ("metadata",))
    generation = metadata.get("generation")
    if not isinstance(generation, int) or isinstance(generation, bool):
        generation = 0  # Karmada's GetGeneration reads anything but an integer as 0
    annotations = (
        _fields.typed_string_map(metadata.get("annotations"), ("metadata", "annotations")) or {}
    )
    raw = annotations.get(GENERATION_ANNOTATION)
    template_generation = 0
    if raw is not None:
        # Go's strconv.ParseInt(raw, 10, 64): digits with an optional sign, within int64
        key = ("metadata", "annotations", GENERATION_ANNOTATION)
        if not _GO_INT.fullmatch(raw):
            raise _fields.FieldError(key, f"not an integer: {raw!r}")
        digits = raw.lstrip("+-").lstrip("0") or "0"
        if len(digits) > _INT64_DIGITS:  # Python converts 4300 digits at most
            raise _fields.FieldError(key, f"out of the int64 range: {raw[:40]!r}...")
        template_generation = -int(digits) if raw.startswith("-") else int(digits)
        if template_generation not in _INT64:
            raise _fields.FieldError(key, f"out of the int64 range: {raw!r}")
    head = {"generation": generation, "resourceTemplateGeneration": template_generation}
    return {**_fields.compact(head), **counters}


def _workload(obj: RawObject, order: Sequence[str], always: Sequence[str] = ()) -> Status:
    status = _fields.nested_mapping(obj, "status", _STATUS)
    if status is None:
        return None
    return _federated(obj, _counters(status, order, always))


def deployment(obj: RawObject) -> Status:
    """Deployment counters; none at all (an empty object) means not collected yet."""
    order = (
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    )
    return _workload(obj, order) or None


def replica_set(obj: RawObject) -> Status:
    """ReplicaSet counters (`replicas` always present)."""
    order = ("replicas", "readyReplicas", "availableReplicas", "observedGeneration")
    return _workload(obj, order, always=("replicas",))


def daemon_set(obj: RawObject) -> Status:
    """DaemonSet counters (the first four always present)."""
    always = (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
    )
    order = (
        *always,
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    )
    return _workload(obj, order, always)


def stateful_set(obj: RawObject) -> Status:
    """StatefulSet counters; Karmada reflects no `observedGeneration` for it."""
    order = ("replicas", "readyReplicas", "currentReplicas", "updatedReplicas", "availableReplicas")
    return _workload(obj, order, always=("replicas", "availableReplicas"))


def service(obj: RawObject) -> Status:
    """Service of type LoadBalancer: its load balancer; other types report nothing, and so does
    a `spec` or `spec.type` of the wrong type (Karmada logs that reading error and reports
    nothing)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict) or spec.get("type") != "LoadBalancer":
        return None
    status = _fields.nested_mapping(obj, "status", _STATUS)
    if status is None:
        return None
    found = _loadbalancer.entries(status, _STATUS, ip_mode=True)
    return {"loadBalancer": {"ingress": found} if found else {}}


def job(obj: RawObject) -> Status:
    """Job: conditions, start and completion times, and pod counts."""
    status = _fields.nested_mapping(obj, "status", _STATUS)
    if status is None:
        return None
    key = ("status", "conditions")
    conditions = [
        condition(c, (*key, i)) for i, c in enumerate(_fields.array(status.get("conditions"), key))
    ]
    out = {
        "conditions": conditions,
        "startTime": _times.written(status.get("startTime"), ("status", "startTime")),
        "completionTime": _times.written(
            status.get("completionTime"), ("status", "completionTime")
        ),
    }
    return {**_fields.compact(out), **_counters(status, ("active", "succeeded", "failed"))}


def condition(raw: Any, path: _fields.Path) -> dict[str, Any]:
    """A Job condition reduced to the fields of its Go type, its times as Go writes them:
    `type` and `status` always (Go writes them even when empty), the others when set."""
    raw = _fields.mapping(raw, path)
    head = {k: _fields.string(raw.get(k), (*path, k)) for k in _CONDITION_FIELDS[:2]}
    rest: dict[str, str | None] = {
        k: _times.written(raw.get(k), (*path, k)) for k in _CONDITION_TIMES
    }
    for key in _CONDITION_FIELDS[2:]:
        rest[key] = _fields.string(raw.get(key), (*path, key))
    return {**head, **_fields.compact(rest)}


def pod_disruption_budget(obj: RawObject) -> Status:
    """PodDisruptionBudget: disrupted pods and the four counters."""
    status = _fields.nested_mapping(obj, "status", _STATUS)
    if status is None:
        return None
    disrupted = _times.written_map(status.get("disruptedPods"), ("status", "disruptedPods"))
    head = {"disruptedPods": dict(disrupted)} if disrupted else {}
    always = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
    return {**head, **_counters(status, always, always)}


def horizontal_pod_autoscaler(obj: RawObject) -> Status:
    """HorizontalPodAutoscaler: current and desired replicas."""
    status = _fields.nested_mapping(obj, "status", _STATUS)
    if status is None:
        return None
    return _counters(status, ("currentReplicas", "desiredReplicas"), always=("desiredReplicas",))
