"""The descheduler stage: replicas a member cluster cannot run are taken off its share of the
schedule, so that the scheduler places them elsewhere (Karmada: pkg/descheduler, with the
scheduler estimator's unschedulable count, pkg/estimator/server/replica).

A pure function of the previous render's bindings, the agents' reports and the time they were
read, which the reconciler passes in (as it does for failover) and render.yaml records:

1. `Descheduler.lower` takes a previous binding the descheduler acts on (`_filter`: Deployments
   whose last applied placement divides replicas dynamically) and lowers each cluster's
   replicas by the pods unschedulable there for longer than the threshold (`_arithmetic`). The
   reports are read as Karmada's descheduler sees the world at its last run: at the last
   multiple of the descheduling interval, so every render between two runs decides the same.
   Only a report of the Works the previous render wrote counts (the pods it saw belong to the
   schedule being lowered); another report is an estimator that cannot answer.
2. The pipeline hands the lowered binding to the scheduler as the previous result: its replicas
   no longer add up to the desired count, which is Karmada's trigger for a scale-up, dividing the
   missing replicas among the candidates by their available replicas (the lowered cluster
   included, if it has room by then).
3. `moved` records where the replicas went, for the commit message (`summary`); the binding
   keeps a `Descheduled` condition saying what was lowered and when, which `explain` shows.
4. `watch` says when the same source must be rendered again: at the next run at which a
   waiting pod will have passed the threshold, or when the reports' unschedulable pods change.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Mapping, Sequence

from gitfleet.descheduler import _arithmetic, _filter
from gitfleet.model import loaded, meta, replicas, times, work
from gitfleet.model.template import ResourceKey

CONDITION = "Descheduled"
"""The binding condition that records the last lowering."""
REASON = "UnschedulableReplicas"
Binding = work.ResourceBinding | work.ClusterResourceBinding
Lowered = _arithmetic.Lowered
SUBJECT_LIMIT = 160


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ClusterReport:
    """What the descheduler reads of one cluster's last report."""

    current: bool = False
    """The report is of the Works the previous render wrote for the cluster."""
    workloads: Mapping[ResourceKey, replicas.WorkloadReplicas] = dataclasses.field(
        default_factory=dict
    )


def key_of(binding: Binding) -> ResourceKey:
    r = binding.spec.resource
    return ResourceKey(r.api_version, r.kind, r.namespace, r.name)


def _subject(binding: Binding) -> str:
    r = binding.spec.resource
    return loaded.describe(r.kind, r.namespace, r.name)


def pending_of(
    reports: Mapping[str, ClusterReport],
) -> dict[str, tuple[bool, dict[ResourceKey, tuple[replicas.Pending, ...]]]]:
    """The part of the reports that can make the descheduler act: each cluster's unschedulable
    pods, by workload (and whether the report is current)."""
    found = {}
    for name, report in sorted(reports.items()):
        waiting = {
            k: w.unschedulable for k, w in sorted(report.workloads.items()) if w.unschedulable
        }
        if waiting:
            found[name] = (report.current, waiting)
    return found


def _describe(lowered: Sequence[Lowered]) -> str:
    return ", ".join(
        f"{c.cluster} cannot run {c.removed} of {c.assigned} replicas" for c in lowered
    )


class Descheduler:
    """One render's descheduler (see the module)."""

    def __init__(
        self,
        reports: Mapping[str, ClusterReport],
        at: str,
        settings: loaded.DeschedulerSettings,
    ) -> None:
        now = times.parse(at)
        if now is None:
            raise ValueError(f"at: {at!r} is not an RFC 3339 time")
        self.reports, self.at, self.settings = reports, at, settings
        self.run_at = _last_run(now, settings.interval_seconds)
        """The moment of the descheduler's last run, which the reports are judged at."""
        self.lowered: dict[ResourceKey, tuple[Lowered, ...]] = {}
        self._lines: list[str] = []
        self._deadlines: list[datetime.datetime] = []

    def _unschedulable(self, cluster: str, key: ResourceKey) -> tuple[int, int]:
        """(ready, unschedulable) of the workload on `cluster`."""
        report = self.reports.get(cluster)
        found = report.workloads.get(key) if report is not None else None
        if found is None:
            return _arithmetic.UNKNOWN_READY, 0
        ready = found.ready if found.ready is not None else _arithmetic.UNKNOWN_READY
        if report is None or not report.current:
            return ready, 0
        threshold = self.settings.unschedulable_threshold_seconds
        self._later(found.unschedulable)
        return ready, _arithmetic.count(found.unschedulable, self.run_at, threshold)

    def _later(self, pending: Sequence[replicas.Pending]) -> None:
        """Remember the next run at which one of `pending` will count."""
        threshold = self.settings.unschedulable_threshold_seconds
        for entry in pending:
            since = times.parse(entry.since)
            if since is None:
                continue
            passed = times.later(since, max(threshold, 0))
            if passed >= self.run_at:
                self._deadlines.append(_next_run(passed, self.settings.interval_seconds))

    def lower(self, binding: Binding) -> Binding:
        """`binding` (a previous render's) with the replicas its clusters cannot run taken off,
        and its Descheduled condition saying so; `binding` itself when nothing changes."""
        if not self.settings.enabled or not _filter.acts_on(binding):
            return binding
        key = key_of(binding)
        found = []
        targets = []
        for target in binding.spec.clusters:
            ready, unschedulable = self._unschedulable(target.name, key)
            change = _arithmetic.lowered(target.name, target.replicas, ready, unschedulable)
            if change is not None:
                found.append(change)
                target = dataclasses.replace(target, replicas=change.target)
            targets.append(target)
        if not found:
            return binding
        self.lowered[key] = tuple(found)
        condition = meta.Condition(
            type=CONDITION,
            status="True",
            reason=REASON,
            message=f"{_describe(found)} (unschedulable for more than "
            f"{self.settings.unschedulable_threshold_seconds}s)",
            last_transition_time=self.at,
        )
        others = tuple(c for c in binding.status.conditions if c.type != CONDITION)
        return dataclasses.replace(
            binding,
            spec=dataclasses.replace(binding.spec, clusters=tuple(targets)),
            status=dataclasses.replace(binding.status, conditions=(*others, condition)),
        )

    def moved(self, lowered: Binding, scheduled: Binding, error: str | None) -> None:
        """Record where the replicas `lower` took off `lowered` went in `scheduled` (`error`:
        why the scheduler could not place them)."""
        found = self.lowered.get(key_of(lowered))
        if not found:
            return
        line = f"{_subject(lowered)}: {_describe(found)}"
        if error is not None:
            self._lines.append(f"{line}, not placed elsewhere: {error}")
            return
        old = {t.name: t.replicas for t in lowered.spec.clusters}
        gains = [
            f"{t.name} (+{t.replicas - old.get(t.name, 0)})"
            for t in sorted(scheduled.spec.clusters, key=lambda t: t.name)
            if t.replicas > old.get(t.name, 0)
        ]
        self._lines.append(f"{line}, moved to {', '.join(gains)}" if gains else line)

    @property
    def changes(self) -> tuple[str, ...]:
        """One line per binding lowered in this render."""
        return tuple(self._lines)

    def watch(self) -> Watch:
        """When a render of the same source may deschedule differently."""
        later = [d for d in self._deadlines if d > self.run_at]
        return Watch(
            deadline=times.text(min(later)) if later else None,
            pending=pending_of(self.reports),
        )


def message(changes: Sequence[str], default: str) -> str:
    """A commit message: what the descheduler moved (`changes`, one line per binding), then
    `default`."""
    if not changes:
        return default
    subject = "descheduler: " + "; ".join(changes)
    if len(subject) > SUBJECT_LIMIT:
        subject = f"descheduler: {changes[0]} (and {len(changes) - 1} more)"
    body = "\n".join(f"- {line}" for line in changes)
    return f"{subject}\n\n{body}\n\n{default}"


def _last_run(now: datetime.datetime, interval: int) -> datetime.datetime:
    if interval <= 0:
        return now
    stamp = math.floor(now.timestamp() / interval) * interval
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC)


def _next_run(moment: datetime.datetime, interval: int) -> datetime.datetime:
    """The first run strictly after `moment`."""
    if interval <= 0:
        return times.later(moment, 1)
    stamp = (math.floor(moment.timestamp() / interval) + 1) * interval
    return datetime.datetime.fromtimestamp(stamp, datetime.UTC)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Watch:
    """What a render's descheduler depended on besides the source: the next run at which a
    waiting pod will count, and the unschedulable pods reported (None: not known, for a render
    this reconciler did not make, or made before a restart)."""

    deadline: str | None = None
    pending: Mapping[str, object] | None = None

    def due(self, reports: Mapping[str, ClusterReport], at: str) -> bool:
        """Whether a render at `at` with `reports` may deschedule differently."""
        found = pending_of(reports)
        if self.pending is None:
            return bool(found)
        now, deadline = times.parse(at), times.parse(self.deadline)
        if now is None or (deadline is not None and now >= deadline):
            return True
        return found != self.pending
