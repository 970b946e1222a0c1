"""The failover stage: cluster health from the agents' reports, Karmada's taints, taint-based
eviction and graceful eviction, as pure functions of the clusters, the previous bindings, a
status snapshot and its time (Karmada: pkg/controllers/cluster, pkg/controllers/gracefuleviction,
the scheduler's ClusterEviction filter).

One `Failover` serves one render:
1. built from the clusters and the snapshot (`Observed`), it judges each cluster (`_health`):
   an agent silent for longer than the grace period makes its cluster Ready=Unknown, an agent
   reporting Ready=False for at least the failure threshold makes it False; either way the
   cluster gets Karmada's taints, which `clusters` carries for the scheduler;
2. around the scheduler, for each binding: `attempt` evicts the previous binding from every
   NoExecute-tainted cluster it must leave now (`_taints`: the policy's clusterTolerations,
   the default tolerations of gitfleet.yaml) and from every cluster where its application has
   been Unhealthy for longer than its application failover tolerates (`_application`) before
   the scheduler sees it (`_eviction`), so the scheduler places its replicas elsewhere; if the
   scheduler then fails, `blocked` gives the eviction up: nothing is removed, the binding is
   scheduled against its previous render and a `Failover` condition says why. `settle` then
   drops finished eviction tasks (replacement healthy, or grace period over);
3. `summary` gives what render.yaml records (unhealthy clusters, evictions waiting for a
   toleration to end, evictions blocked) and the lines of the commit message that say what
   changed since the previous render.

Nothing moves back when a cluster recovers: a Divided workload keeps its new placement (the
scheduler keeps a result unless something triggers it); a Duplicated one goes back to every
cluster it fits, which is what its policy asks. The render keeps an evicted cluster's Work while
its task lasts (`gitfleet.render`), so there is no moment without the replicas.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from gitfleet.failover import _application, _eviction, _health, _summary, _taints, _types
from gitfleet.model import cluster, loaded, meta, policy, times, work
from gitfleet.model.template import ResourceKey

Report = _types.Report
Observed = _types.Observed
ClusterHealth = _types.ClusterHealth
Summary = _summary.Summary
Binding = work.ResourceBinding | work.ClusterResourceBinding
B = TypeVar("B", work.ResourceBinding, work.ClusterResourceBinding)
_EPOCH = datetime.datetime.fromtimestamp(0, datetime.UTC)
CONDITION = "Failover"
"""The binding condition that says why a failover could not happen."""
BLOCKED_REASON = "NoReplacement"
NOT_READY_TAINT = _health.NOT_READY
UNREACHABLE_TAINT = _health.UNREACHABLE


@dataclasses.dataclass(frozen=True, slots=True)
class Attempt:
    """One binding's way through failover: the previous binding the scheduler is given (with
    the clusters it must leave evicted), those clusters, and why the eviction was given up."""

    previous: Binding | None
    before: Binding | None
    left: tuple[str, ...] = ()
    why: tuple[str, ...] = ()
    """Why it leaves each cluster of `left`."""
    blocked: str | None = None


def _key(spec: work.ResourceBindingSpec) -> ResourceKey:
    r = spec.resource
    return ResourceKey(r.api_version, r.kind, r.namespace, r.name)


def _subject(spec: work.ResourceBindingSpec) -> str:
    r = spec.resource
    return loaded.describe(r.kind, r.namespace, r.name)


class Failover:
    """One render's failover (see the module)."""

    def __init__(
        self,
        clusters: Sequence[cluster.Cluster],
        observed: Observed,
        settings: loaded.FailoverSettings,
    ) -> None:
        now = times.parse(observed.at)
        if now is None:
            raise ValueError(f"observed.at: {observed.at!r} is not an RFC 3339 time")
        self.observed = observed
        self.settings = settings
        self._now = now
        self.health: dict[str, ClusterHealth] = {}
        for c in clusters:
            found = _health.judge(observed.reports.get(c.name), now, settings)
            if found is not None:
                self.health[c.name] = found
        self.clusters = tuple(
            _health.tainted(c, self.health[c.name], settings) if c.name in self.health else c
            for c in clusters
        )
        self._members = {c.name: c for c in self.clusters}
        self._events = _summary.Events()
        self._deadlines = [
            when
            for name, report in observed.reports.items()
            if name not in self.health and (when := _health.changes_at(report, settings))
        ]

    def retaint(self, clusters: Sequence[cluster.Cluster]) -> None:
        """Take `clusters` (these clusters, with the taints ClusterTaintPolicies gave them
        after this judgement) as the ones to evict by; before any binding is attempted."""
        self.clusters = tuple(clusters)
        self._members = {c.name: c for c in self.clusters}

    def _evicted(
        self, binding: Binding, before: Binding
    ) -> tuple[work.ResourceBindingSpec, list[str], list[str]]:
        """`before`'s spec with every cluster the binding must leave now evicted, those
        clusters, and why it leaves each."""
        spec, left, why = before.spec, [], []
        subject = _subject(binding.spec)
        tolerations = _taints.tolerations(binding.spec.placement, self.settings)
        mode = _taints.purge_mode(binding.spec, self.settings)
        for target in before.spec.clusters:
            member = self._members.get(target.name)
            when = (
                _taints.eviction_time(member.spec.taints, tolerations, self._now)
                if member
                else None
            )
            if when is None:
                continue
            if when > self._now:
                self._events.waiting(subject, target.name, times.text(when))
                self._deadlines.append(when)
                continue
            reason = self._why(target.name)
            spec = _eviction.evict(
                spec, _eviction.taint_task(target.name, mode, reason, self.observed.at)
            )
            left.append(target.name)
            why.append(reason)
        chosen = _application.behavior(binding.spec)
        if chosen is not None:
            spec = self._failed_over(binding, chosen, spec, left, why)
        return spec, left, why

    def _failed_over(
        self,
        binding: Binding,
        chosen: policy.ApplicationFailoverBehavior,
        spec: work.ResourceBindingSpec,
        left: list[str],
        why: list[str],
    ) -> work.ResourceBindingSpec:
        """`spec` with every cluster evicted where the application has failed for longer than
        `chosen` tolerates (added to `left`, with why to `why`)."""
        subject, key = _subject(binding.spec), _key(binding.spec)
        for target in spec.clusters:
            report = self.observed.reports.get(target.name)
            failing = _application.failure(key, chosen, spec, target.name, report)
            if failing is None:
                continue
            if failing.evict_at > self._now:
                self._events.waiting(subject, target.name, times.text(failing.evict_at))
                self._deadlines.append(failing.evict_at)
                continue
            reason = f"{subject} is Unhealthy on {target.name} since {failing.since}"
            task = _application.task(binding, target.name, reason, self.observed.at)
            spec = _eviction.evict(spec, task)
            self._events.failed(reason)
            left.append(target.name)
            why.append(reason)
        return spec

    def _why(self, name: str) -> str:
        health = self.health.get(name)
        if health is None:
            return f"cluster {name} has an untolerated NoExecute taint"
        return f"cluster {name} is {_summary.state(health)} since {health.since}: {health.message}"

    @property
    def idle(self) -> bool:
        """Whether failover leaves every binding without eviction tasks as it is, whatever
        the time: no cluster judged unhealthy, none tainted NoExecute."""
        return not self.health and not any(
            t.effect == _health.NO_EXECUTE for c in self.clusters for t in c.spec.taints
        )

    def acting_on(self, binding: Binding) -> bool:
        """Whether application failover may move `binding` now, whatever else changed: it
        watches the binding's application, and an agent reports it Unhealthy."""
        key = _key(binding.spec)
        return _application.behavior(binding.spec) is not None and any(
            key in report.unhealthy_since for report in self.observed.reports.values()
        )

    def attempt(self, binding: Binding, before: Binding | None) -> Attempt:
        """What to schedule `binding` against: `before` (its previous render) evicted from every
        cluster it must leave now."""
        if before is None or not self.settings.enabled:
            return Attempt(before, before)
        spec, left, why = self._evicted(binding, before)
        if not left:
            return Attempt(before, before)
        return Attempt(dataclasses.replace(before, spec=spec), before, tuple(left), tuple(why))

    def blocked(self, attempt: Attempt, error: str) -> Attempt:
        """`attempt` given up because the scheduler failed with `error`: the binding is
        scheduled against its previous render instead, and says why."""
        why = "; ".join(attempt.why)
        message = f"{why}; no other cluster can take its replicas, so they stay: {error}"
        return Attempt(attempt.before, attempt.before, attempt.left, attempt.why, message)

    def settle(self, attempt: Attempt, binding: B, error: str | None) -> B:
        """The scheduled `binding` (`error` when the scheduler failed) with its finished
        eviction tasks dropped and its Failover condition set or cleared; records the
        transitions."""
        spec = binding.spec
        subject = _subject(spec)
        if attempt.blocked is not None:
            for name in attempt.left:
                self._events.blocked(subject, name, attempt.blocked)
        elif attempt.left and attempt.before is not None and error is None:
            self._events.moved(subject, attempt.left, attempt.before.spec, spec)
        before = attempt.before.spec if attempt.before is not None else None
        tasks, ended = _eviction.assess(
            _key(spec), spec, before, scheduled=error is None, observed=self.observed,
            settings=self.settings,
        )  # fmt: skip
        for name, why in sorted(ended.items()):
            self._events.released(subject, name, str(why))
        for task in tasks:
            end = _eviction.deadline((task,), self.settings)
            self._events.evicting(subject, task.from_cluster, times.text(end) if end else None)
            if end is not None:
                self._deadlines.append(end)
        conditions = self._condition(binding.status.conditions, attempt.blocked)
        return dataclasses.replace(
            binding,
            spec=dataclasses.replace(spec, graceful_eviction_tasks=tasks),
            status=dataclasses.replace(binding.status, conditions=conditions),
        )

    def _condition(
        self, conditions: tuple[meta.Condition, ...], blocked: str | None
    ) -> tuple[meta.Condition, ...]:
        """The Failover condition set (blocked) or removed, keeping its transition time."""
        others = tuple(c for c in conditions if c.type != CONDITION)
        if blocked is None:
            return others
        old = next((c for c in conditions if c.type == CONDITION), None)
        since = old.last_transition_time if old is not None else self.observed.at
        condition = meta.Condition(
            type=CONDITION,
            status="False",
            reason=BLOCKED_REASON,
            message=blocked,
            last_transition_time=since,
        )
        return (*others, condition)

    def next_deadline(self) -> str | None:
        """The earliest time after the snapshot at which a render may fail over differently
        (a heartbeat expiring, a toleration or a grace period ending), if any."""
        later = [d for d in self._deadlines if d > self._now]
        return times.text(min(later)) if later else None

    def watch(self, bindings: Iterable[Binding]) -> Watch:
        """What says when a render of the same source must be made again, given the render's
        `bindings`: while one has an eviction task open, or application failover watches one,
        the agents' health reports matter."""
        chosen = tuple(bindings)
        return Watch(
            deadline=self.next_deadline(),
            clusters=frozenset(self._members),
            unhealthy=frozenset(self.health),
            evicting=any(b.spec.graceful_eviction_tasks for b in chosen),
            reports=_without_heartbeats(self.observed.reports),
            applications=watching_applications(chosen),
        )

    def summary(
        self, previous: Mapping[str, Any] | None, bindings: Iterable[Binding] = ()
    ) -> Summary:
        """What render.yaml records and what changed since the `previous` render.yaml's
        failover section, given the render's `bindings`."""
        watching = watching_applications(bindings)
        return self._events.summary(self.health, self.clusters, previous, watching)


def watching_applications(bindings: Iterable[Binding]) -> bool:
    """Whether application failover watches any of `bindings`."""
    return any(_application.behavior(b.spec) is not None for b in bindings)


def _without_heartbeats(reports: Mapping[str, Report]) -> dict[str, Report]:
    return {n: dataclasses.replace(r, heartbeat=None) for n, r in sorted(reports.items())}


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Watch:
    """What a render's failover depended on besides the source, so that a service knows when
    to render the same source commit again: a deadline (time alone changes the outcome), which
    clusters were unhealthy, and, while eviction tasks are open, the agents' reports."""

    deadline: str | None
    clusters: frozenset[str]
    unhealthy: frozenset[str]
    evicting: bool
    reports: Mapping[str, Report]
    applications: bool = False
    """Application failover watches some binding: a report of an application's health
    starting or ending a failure may move it."""

    @classmethod
    def resumed(cls, section: Mapping[str, Any] | None, clusters: Iterable[str]) -> Watch:
        """The watch of a render made by someone else (or before a restart), from its
        render.yaml `failover` section and the fleet's `clusters`: its deadline is the first
        eviction waiting or task ending; open tasks make any report worth a render."""
        found = section or {}
        waiting, evicting = _summary.items(found, "waiting"), _summary.items(found, "evicting")
        ends = [
            item[key]
            for items, key in ((waiting, "evictAt"), (evicting, "until"))
            for item in items
            if isinstance(item.get(key), str)
        ]
        unhealthy = _summary.mapping(found.get("clusters"))
        return cls(
            deadline=min(ends, key=lambda t: times.parse(t) or _EPOCH) if ends else None,
            clusters=frozenset(clusters),
            unhealthy=frozenset(unhealthy),
            evicting=bool(evicting),
            reports={},
            applications=found.get(_summary.APPLICATIONS) is True,
        )

    def due(self, observed: Observed, settings: loaded.FailoverSettings) -> bool:
        """Whether a render at `observed` may fail over differently from the one watched."""
        now = times.parse(observed.at)
        deadline = times.parse(self.deadline)
        if now is None or (deadline is not None and now >= deadline):
            return True
        unhealthy = {
            name
            for name in self.clusters
            if _health.judge(observed.reports.get(name), now, settings) is not None
        }
        if unhealthy != self.unhealthy:
            return True
        watching = self.evicting or self.applications
        return watching and _without_heartbeats(observed.reports) != self.reports
