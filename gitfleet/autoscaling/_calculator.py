"""The replica calculator: how many replicas bring a resource metric of the pods to its target
(Karmada: pkg/controllers/federatedhpa/replica_calculator.go, metrics/utilization.go; the
same rules as Kubernetes' HPA).

Pods are grouped first. Deleted and failed pods are ignored. Pending pods are unready. A pod
without metrics is missing. For cpu, a pod is also unready when it has no Ready condition or
start time; within the cpu initialization period after its start, when it is not ready or its
sample was taken before it turned ready; after that, when it is not ready and turned so within
the initial readiness delay of its start. Unready and ignored pods' samples are dropped.

Utilization is the summed usage over the summed requests of the measured pods (percent,
rounded down); the ratio to the target decides. Within the tolerance nothing changes. With no
missing pod and no unready pod that could matter, the proposal is ceil(ratio x ready pods /
calibration). Otherwise missing pods count as using the fallback (scale down: their request,
or the target if above 100%) or nothing (scale up), unready pods as using nothing (scale up),
and the ratio is computed again: if it is within the tolerance or changed direction, nothing
changes; a proposal that would move against the new ratio's direction is dropped too.

`calibration` is the members' summed spec replicas over the template's replicas: with a
Duplicated policy every member runs all replicas, so the pods are that many times the template.
Pods are named `<cluster>/<pod>` (Karmada keys them by pod name only, so same-named pods of two
clusters would count once).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Mapping, Sequence

from gitfleet.autoscaling import _samples
from gitfleet.model import loaded, times


class CalculationError(Exception):
    """No proposal could be computed; the message says why (for the HPA's condition)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Proposal:
    replicas: int
    utilization: int | None
    """Percent of requests (utilization targets only)."""
    average: int
    """Average usage per measured pod, in thousandths."""


@dataclasses.dataclass(frozen=True, slots=True)
class Target:
    resource: str
    utilization: int | None = None
    """Percent of requests; None: `average` is the target."""
    average: int = 0
    """Average usage per pod, in thousandths (AverageValue targets)."""


@dataclasses.dataclass(slots=True)
class _Groups:
    ready: int = 0
    unready: set[str] = dataclasses.field(default_factory=set)
    missing: set[str] = dataclasses.field(default_factory=set)
    ignored: set[str] = dataclasses.field(default_factory=set)


def _moment(text: str | None) -> datetime.datetime | None:
    return times.parse(text)


def _cpu_unready(
    pod: _samples.Pod, now: datetime.datetime, settings: loaded.AutoscalingSettings
) -> bool:
    started, changed = _moment(pod.started), _moment(pod.ready_changed)
    if pod.ready is None or started is None:
        return True
    if times.later(started, settings.cpu_initialization_period_seconds) > now:
        measured = _moment(pod.measured)
        sampled_before = changed is not None and (
            measured is None or measured < times.later(changed, pod.window)
        )
        return not pod.ready or sampled_before
    delay = times.later(started, settings.initial_readiness_delay_seconds)
    return not pod.ready and (changed is None or delay > changed)


def _group(
    pods: Mapping[str, _samples.Pod],
    resource: str,
    now: datetime.datetime,
    settings: loaded.AutoscalingSettings,
) -> _Groups:
    groups = _Groups()
    for name, pod in pods.items():
        if pod.deleting or pod.phase == "Failed":
            groups.ignored.add(name)
        elif pod.phase == "Pending":
            groups.unready.add(name)
        elif resource not in pod.usage:
            groups.missing.add(name)
        elif resource == "cpu" and _cpu_unready(pod, now, settings):
            groups.unready.add(name)
        else:
            groups.ready += 1
    return groups


def _requests(pods: Mapping[str, _samples.Pod], resource: str) -> dict[str, int]:
    found = {}
    for name, pod in pods.items():
        request = pod.requests.get(resource)
        if request is None:
            raise CalculationError(f"missing request for {resource} in a container of pod {name}")
        found[name] = request
    return found


def _utilization(
    usage: Mapping[str, int], requests: Mapping[str, int], target: int
) -> tuple[float, int, int]:
    """(ratio to the target, utilization percent, average usage) of the pods with a request."""
    used = [(v, requests[n]) for n, v in usage.items() if n in requests]
    total_request = sum(r for _, r in used)
    if total_request == 0:
        raise CalculationError("no metrics returned matched known pods")
    total = sum(v for v, _ in used)
    percent = total * 100 // total_request
    return percent / target, percent, total // len(used)


def _average(usage: Mapping[str, int], target: int) -> tuple[float, int]:
    average = sum(usage.values()) // len(usage)
    return average / target, average


def propose(
    pods: Mapping[str, _samples.Pod],
    target: Target,
    current: int,
    calibration: float,
    now: datetime.datetime,
    settings: loaded.AutoscalingSettings,
) -> Proposal:
    """The replicas that bring `target.resource` to its target (`pods` by unique name)."""
    if not pods:
        raise CalculationError("no pods returned by selector while calculating replica count")
    groups = _group(pods, target.resource, now, settings)
    usage = {
        n: p.usage[target.resource]
        for n, p in pods.items()
        if target.resource in p.usage and n not in groups.ignored and n not in groups.unready
    }
    requests = _requests(pods, target.resource) if target.utilization is not None else {}
    if not usage:
        raise CalculationError("did not receive metrics for any ready pods")
    ratio, percent, average = _measure(usage, requests, target)
    tolerance = settings.tolerance
    with_unready = bool(groups.unready) and ratio > 1.0
    if not with_unready and not groups.missing:
        if abs(1.0 - ratio) <= tolerance:
            return Proposal(current, percent, average)
        return Proposal(math.ceil(ratio * groups.ready / calibration), percent, average)
    filled = dict(usage)
    if groups.missing and ratio != 1.0:
        for name in groups.missing:
            filled[name] = _fallback(name, requests, target) if ratio < 1.0 else 0
    if with_unready:
        filled.update(dict.fromkeys(groups.unready, 0))
    new_ratio = _measure(filled, requests, target)[0]
    if abs(1.0 - new_ratio) <= tolerance or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return Proposal(current, percent, average)
    replicas = math.ceil(new_ratio * len(filled) / calibration)
    if (new_ratio < 1.0 and replicas > current) or (new_ratio > 1.0 and replicas < current):
        return Proposal(current, percent, average)
    return Proposal(replicas, percent, average)


def _measure(
    usage: Mapping[str, int], requests: Mapping[str, int], target: Target
) -> tuple[float, int | None, int]:
    if target.utilization is not None:
        return _utilization(usage, requests, target.utilization)
    ratio, average = _average(usage, target.average)
    return ratio, None, average


def _fallback(name: str, requests: Mapping[str, int], target: Target) -> int:
    """What a missing pod counts as on a scale-down: its request (or the target's share of it
    when the target is above 100%), or the average target."""
    if target.utilization is None:
        return target.average
    return requests.get(name, 0) * max(100, target.utilization) // 100


def pods_of(workloads: Sequence[_samples.Workload]) -> dict[str, _samples.Pod]:
    """The pods of every cluster, each named `<cluster>/<pod>`."""
    return {f"{w.cluster}/{p.name}": p for w in workloads for p in w.pods}
