"""The template's status, computed from what each member cluster reported.

Counters are summed (in int32, wrapping, as Go adds them); phases are reduced to the most
telling one; load balancer addresses are merged. Items whose status has not been collected yet
still count as members, so a workload's `observedGeneration` only moves to the template's
generation once every cluster has reported that it runs the latest template (the signal GitOps
tools such as Argo CD read). Karmada:
pkg/resourceinterpreter/default/native/aggregatestatus.go.

Each function returns a new object; when the computed status equals the template's as Karmada
compares their Go values (`_gotypes`), that is a plain copy. What a rule builds from the
members' statuses is written as Karmada's Go types write it: times in UTC to the second,
unknown fields dropped, Go's zero values where its JSON has no `omitempty` (a Pod's container
statuses carry an empty `name`); null timestamps are left out, which the API server reads the
same way.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from gitfleet.interpreter import _fields, _gotypes, _loadbalancer, _times
from gitfleet.model import work
from gitfleet.model.template import RawObject

Items = Sequence[work.AggregatedStatusItem]
Member = tuple[str, dict[str, Any] | None]
"""A member cluster's name and its reported status (None: not collected yet)."""


_STATUS = ("status",)


def members(items: Items) -> Iterator[Member]:
    """Each item's cluster and status (None: not collected yet)."""
    for item in items:
        with reported_by(item.cluster_name):
            status = _fields.optional_mapping(item.status, _STATUS)
        yield item.cluster_name, status


@contextlib.contextmanager
def reported_by(cluster: str) -> Iterator[None]:
    """Errors reading a member's status name the cluster (they are not in the template)."""
    try:
        yield
    except _fields.FieldError as e:
        raise _fields.FieldError((), f"status reported by cluster {cluster!r}: {e}") from None


def with_status(
    obj: RawObject,
    status: dict[str, Any],
    go_type: _gotypes.Struct,
    *,
    held: dict[str, Any] | None = None,
    semantic: bool = False,
) -> RawObject:
    """A copy of `obj` whose status is `status`, as Karmada's Go type writes it; a plain copy
    when the template's status already equals the new one as Karmada compares their Go values
    (`semantic`: with `equality.Semantic`, else `reflect.DeepEqual`). `held` is the new status
    as Karmada holds it before writing it, when that differs: lists and maps it holds empty
    rather than nil, times as precise as the members gave them."""
    out = _fields.copy_tree(obj)
    new = status if held is None else held
    if not _gotypes.equal(go_type, obj.get("status"), new, _STATUS, semantic=semantic):
        out["status"] = status
    return out


def generation(obj: RawObject) -> int:
    return _fields.integer(_fields.at(obj, ("metadata", "generation")), ("metadata", "generation"))


def _status(obj: RawObject) -> dict[str, Any]:
    return _fields.mapping(obj.get("status"), ("status",))


def _int(status: dict[str, Any], key: str) -> int:
    return _fields.integer(status.get(key), ("status", key))


def _reported(status: dict[str, Any], key: str) -> int:
    """A counter of a member's reported status, which Karmada decodes from JSON text."""
    return _fields.json_integer(status.get(key), ("status", key))


def add_int32(total: int, count: int) -> int:
    """`total + count` as Karmada adds members' counters: in Go's int32, which wraps past
    2**31 - 1 (a sum the API server then refuses when negative)."""
    return (total + count + 2**31) % 2**32 - 2**31


def later(current: str, candidate: Any, path: _fields.Path) -> str:
    """The later of two times, as Karmada writes times; empty meaning unset. `current` is
    already in that form."""
    return _times.written(latest(current or None, candidate, path), path) or ""


def latest(current: Any, candidate: Any, path: _fields.Path) -> Any:
    """The later of two times as a member spelled it (`current` is known to be one), the
    first of equal ones (Karmada: `metav1.Time.Before`, to the nanosecond); None is unset."""
    found = _times.nanoseconds(candidate, path)
    if found is None:
        return current
    kept = _times.nanoseconds(current, path)
    return candidate if kept is None or kept < found else current


@dataclasses.dataclass(frozen=True, slots=True)
class Workload:
    """How one workload kind's counters aggregate."""

    counters: tuple[str, ...]
    always: tuple[str, ...] = ()
    """Counters Go writes even when zero."""
    member_generation_quirk: bool = False
    """StatefulSet compares the member's template generation with the member's own generation
    instead of the template's (Karmada does; kept for fidelity)."""
    whole_status: _gotypes.Struct | None = None
    """The status type when Karmada compares the whole status (semantically) to decide whether
    it changed, rather than the counters alone."""


DEPLOYMENT = Workload(
    ("replicas", "readyReplicas", "updatedReplicas", "availableReplicas", "unavailableReplicas")
)
REPLICA_SET = Workload(("replicas", "readyReplicas", "availableReplicas"), always=("replicas",))
_DAEMON_SET_COUNTERS = (
    "currentNumberScheduled",
    "desiredNumberScheduled",
    "numberAvailable",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberUnavailable",
)
DAEMON_SET = Workload(
    _DAEMON_SET_COUNTERS,
    always=(
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
    ),
    whole_status=_gotypes.daemon_set(_DAEMON_SET_COUNTERS),
)
STATEFUL_SET = Workload(
    ("availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"),
    always=("replicas", "availableReplicas"),
    member_generation_quirk=True,
)


def workload(obj: RawObject, items: Items, kind: Workload) -> RawObject:
    """Deployment, ReplicaSet, DaemonSet, StatefulSet: summed counters, and
    `observedGeneration` = the template's generation once every member has caught up."""
    template_generation = generation(obj)
    old = _status(obj)
    new = dict.fromkeys(kind.counters, 0)
    caught_up = 0
    for cluster, status in members(items):
        if status is None:
            continue
        with reported_by(cluster):
            # all three are read before comparing: Karmada decodes the whole reported status
            member_generation, observed, rendered = (
                _reported(status, key)
                for key in ("generation", "observedGeneration", "resourceTemplateGeneration")
            )
            target = member_generation if kind.member_generation_quirk else template_generation
            if observed >= member_generation and rendered >= target:
                caught_up += 1
            for key in kind.counters:
                new[key] = add_int32(new[key], _reported(status, key))
    observed = _int(old, "observedGeneration")
    new["observedGeneration"] = template_generation if caught_up == len(items) else observed
    if kind.whole_status is not None:
        unchanged = _gotypes.equal(kind.whole_status, old, new, _STATUS, semantic=True)
    else:
        unchanged = all(_int(old, key) == value for key, value in new.items())
    if unchanged:
        return _fields.copy_tree(obj)
    out = _fields.copy_tree(obj)
    status = out.get("status")
    if status is None:  # absent or null, which Go reads as an empty status
        status = out["status"] = {}
    for key, value in new.items():
        if value or key in kind.always:
            status[key] = value
        else:
            status.pop(key, None)
    return out


def service(obj: RawObject, items: Items) -> RawObject:
    """Service: LoadBalancer ones get every cluster's addresses; other types are left alone."""
    if _fields.string(_fields.at(obj, ("spec", "type")), ("spec", "type")) != "LoadBalancer":
        return _fields.copy_tree(obj)
    return _load_balancer(obj, items, _gotypes.SERVICE, ip_mode=True)


def ingress(obj: RawObject, items: Items) -> RawObject:
    """Ingress: every cluster's load balancer addresses."""
    return _load_balancer(obj, items, _gotypes.INGRESS, ip_mode=False)


def _load_balancer(
    obj: RawObject, items: Items, go_type: _gotypes.Struct, *, ip_mode: bool
) -> RawObject:
    """The merged addresses; Karmada's list of them is never nil, even when empty."""
    found: list[_loadbalancer.Entry] = []
    for cluster, status in members(items):
        if status is not None:
            with reported_by(cluster):
                found.extend(
                    _loadbalancer.entries(status, _STATUS, ip_mode=ip_mode, from_json=True)
                )
    merged = _loadbalancer.merge(found)
    written = {"loadBalancer": {"ingress": merged} if merged else {}}
    return with_status(obj, written, go_type, held={"loadBalancer": {"ingress": merged}})


_REFERENCE = ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath")
"""The fields of an ObjectReference, Go's order."""


def cron_job(obj: RawObject, items: Items) -> RawObject:
    """CronJob: every cluster's active jobs (each reduced to the fields of an ObjectReference,
    as Karmada's Go type reads them), and the latest schedule and success times."""
    active: list[Any] = []
    found: dict[str, Any] = {"lastScheduleTime": None, "lastSuccessfulTime": None}
    for cluster, status in members(items):
        if status is None:
            continue
        with reported_by(cluster):
            path = ("status", "active")
            for i, job in enumerate(_fields.array(status.get("active"), path)):
                active.append(_strings(_fields.mapping(job, (*path, i)), (*path, i), _REFERENCE))
            for key, current in found.items():
                found[key] = latest(current, status.get(key), ("status", key))
    written = {key: _times.written(when, ()) for key, when in found.items()}
    held = {"active": active or None, **found}  # Go appends no job to a nil list
    new = _fields.compact({"active": active, **written})
    return with_status(obj, new, _gotypes.CRON_JOB, held=held)


_POD_PHASES = ("Failed", "Pending", "Running", "Succeeded")
_VOLUME_PHASES = ("Failed", "Pending", "Available", "Bound", "Released")


def _phase(status: dict[str, Any]) -> str:
    return _fields.string(status.get("phase"), ("status", "phase"))


def _first_present(phases: set[str], order: Sequence[str]) -> str:
    return next((phase for phase in order if phase in phases), "")


def pod(obj: RawObject, items: Items) -> RawObject:
    """Pod: the most telling phase (Failed, Pending, Running, Succeeded; a member not reported
    yet counts as Pending) and every member's container readiness and state. With no items
    at all the template is left alone."""
    if not items:
        return _fields.copy_tree(obj)
    phases: set[str] = set()
    reduced: dict[str, list[Any]] = {"initContainerStatuses": [], "containerStatuses": []}
    for cluster, status in members(items):
        if status is None:
            phases.add("Pending")
            continue
        with reported_by(cluster):
            phases.add(_phase(status))
            for key, out in reduced.items():
                out.extend(_container_states(status, key))
    phase = _first_present(phases, _POD_PHASES)
    written = {key: [_written_container(c) for c in held] for key, held in reduced.items()}
    # Karmada's list of container statuses is never nil, that of init containers is when empty
    held = {**reduced, "initContainerStatuses": reduced["initContainerStatuses"] or None}
    return with_status(
        obj,
        _fields.compact({"phase": phase, **written}),
        _gotypes.POD,
        held={"phase": phase, **held},
    )


def _container_states(status: dict[str, Any], key: str) -> Iterator[dict[str, Any]]:
    """Each container's readiness and state, as Karmada holds the container status it makes
    of them (times as the member spelled them)."""
    path = ("status", key)
    for i, container in enumerate(_fields.array(status.get(key), path)):
        at = (*path, i)
        container = _fields.mapping(container, at)
        yield {
            "state": _container_state(container.get("state"), (*at, "state")),
            "ready": _fields.boolean(container.get("ready"), (*at, "ready")),
        }


def _written_container(held: dict[str, Any]) -> dict[str, Any]:
    """A container status of `_container_states` as Karmada's Go type writes it: Go's zero
    name, restart count and images included, times in UTC."""
    state = {
        part: {k: _times.written(v, ()) if k in _STATE_TIMES else v for k, v in fields.items()}
        for part, fields in held["state"].items()
    }
    return {
        "name": "",
        "state": state,
        "ready": held["ready"],
        "restartCount": 0,
        "image": "",
        "imageID": "",
    }


_STATE_TIMES = ("startedAt", "finishedAt")


def _container_state(raw: Any, path: _fields.Path) -> dict[str, Any]:
    """A container state reduced to the fields of its Go type, times as spelled."""
    raw = _fields.mapping(raw, path)
    out: dict[str, Any] = {}
    waiting = _fields.optional_mapping(raw.get("waiting"), (*path, "waiting"))
    if waiting is not None:
        at = (*path, "waiting")
        out["waiting"] = _strings(waiting, at, ("reason", "message"))
    running = _fields.optional_mapping(raw.get("running"), (*path, "running"))
    if running is not None:
        at = (*path, "running")
        out["running"] = _fields.compact(_time_fields(running, at, ("startedAt",)))
    terminated = _fields.optional_mapping(raw.get("terminated"), (*path, "terminated"))
    if terminated is not None:
        at = (*path, "terminated")
        exit_code = _fields.json_integer(terminated.get("exitCode"), (*at, "exitCode"))
        signal = _fields.json_integer(terminated.get("signal"), (*at, "signal"))
        out["terminated"] = {
            "exitCode": exit_code,
            **_fields.compact(
                {
                    "signal": signal,
                    **_strings(terminated, at, ("reason", "message")),
                    **_time_fields(terminated, at, ("startedAt", "finishedAt")),
                    **_strings(terminated, at, ("containerID",)),
                }
            ),
        }
    return out


def _strings(raw: dict[str, Any], path: _fields.Path, keys: Sequence[str]) -> dict[str, str]:
    return _fields.compact({k: _fields.string(raw.get(k), (*path, k)) for k in keys})


def _time_fields(raw: dict[str, Any], path: _fields.Path, keys: Sequence[str]) -> dict[str, Any]:
    """Timestamp fields as spelled, once known to be times (None: the zero time)."""
    return {k: _times.checked(raw.get(k), (*path, k)) for k in keys}


def persistent_volume(obj: RawObject, items: Items) -> RawObject:
    """PersistentVolume: the most telling phase (Failed, Pending, Available, Bound, Released;
    a member not reported yet counts as Pending)."""
    phases: set[str] = set()
    for cluster, status in members(items):
        with reported_by(cluster):
            phases.add("Pending" if status is None else _phase(status))
    phase = _first_present(phases, _VOLUME_PHASES)
    return with_status(obj, _fields.compact({"phase": phase}), _gotypes.PERSISTENT_VOLUME)


def persistent_volume_claim(obj: RawObject, items: Items) -> RawObject:
    """PersistentVolumeClaim: Lost if any member lost it, else the last phase other than Bound
    (in item order), else Bound."""
    phase = "Bound"
    for cluster, status in members(items):
        if status is None:
            continue
        with reported_by(cluster):
            found = _phase(status)
        if found == "Lost":
            phase = found
            break
        if found != "Bound":
            phase = found
    new = _fields.compact({"phase": phase})
    return with_status(obj, new, _gotypes.PERSISTENT_VOLUME_CLAIM)


def pod_disruption_budget(obj: RawObject, items: Items) -> RawObject:
    """PodDisruptionBudget: summed counters; disrupted pods keyed `<cluster>/<pod>`."""
    keys = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")
    counters = dict.fromkeys(keys, 0)
    disrupted: dict[str, Any] = {}  # as spelled
    for cluster, status in members(items):
        if status is None:
            continue
        with reported_by(cluster):
            for key in keys:
                counters[key] = add_int32(counters[key], _reported(status, key))
            path = ("status", "disruptedPods")
            for name, when in _fields.mapping(status.get("disruptedPods"), path).items():
                disrupted[f"{cluster}/{name}"] = _times.checked(when, (*path, name))
    written = {name: _times.written(when, ()) for name, when in sorted(disrupted.items())}
    head = {"disruptedPods": written} if written else {}
    # Karmada's map of disrupted pods is never nil, even when empty
    held = {"disruptedPods": disrupted, **counters}
    return with_status(obj, {**head, **counters}, _gotypes.POD_DISRUPTION_BUDGET, held=held)


def horizontal_pod_autoscaler(obj: RawObject, items: Items) -> RawObject:
    """HorizontalPodAutoscaler: summed current and desired replicas."""
    current = desired = 0
    for cluster, status in members(items):
        if status is None:
            continue
        with reported_by(cluster):
            current = add_int32(current, _reported(status, "currentReplicas"))
            desired = add_int32(desired, _reported(status, "desiredReplicas"))
    head = {"currentReplicas": current} if current else {}
    new = {**head, "desiredReplicas": desired}
    return with_status(obj, new, _gotypes.HORIZONTAL_POD_AUTOSCALER)
