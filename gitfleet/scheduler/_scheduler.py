"""`schedule`: one binding in, the binding with its schedule result out
(Karmada: pkg/scheduler/scheduler.go doScheduleBinding, scheduleResourceBinding,
scheduleResourceBindingWithClusterAffinity/ClusterAffinities,
patchScheduleResultForResourceBinding, patchBindingStatusCondition; helper.go
getAffinityIndex, getConditionByError).

Karmada keeps the last result, the placement it was computed for (annotation
`policy.karmada.io/applied-placement`), the affinity term in use and the time of the last
schedule in etcd; gitfleet reads them from the previous render's binding and writes them into
the new one.

A failure keeps the previous result. This is gitfleet's one deliberate departure from
Karmada here: when no cluster passes the filters (FitError, reason NoClusterFit) Karmada
patches an empty result and so removes the workload from every cluster; in GitOps a typo in a
policy must never do that, so the binding only gets Scheduled=False with Karmada's reason and
message, and the annotation `CLEARED`. The next schedules start from the state Karmada is in,
the empty result (a Divided workload's replicas no longer add up, so it is scheduled again;
no cluster is kept by locality, taints or served APIs), until one succeeds. Other failures
(Unschedulable, SchedulerError) keep the result in Karmada too. With `clusterAffinities` the
terms are tried in order from the one in use (from the first after a triggered reschedule);
the first that schedules wins and its name is recorded; when all fail the name stays.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Generic, TypeVar

from gitfleet.model import cluster, meta, policy, times, work
from gitfleet.scheduler import _reschedule, core, diagnosis, framework, index

B = TypeVar("B", work.ResourceBinding, work.ClusterResourceBinding)

SCHEDULED = "Scheduled"
SUCCESS_REASON = "Success"
SUCCESS_MESSAGE = "Binding has been scheduled successfully."
CLEARED = "gitfleet.io/result-cleared"
"""Annotation ("true") on a binding that keeps clusters Karmada's result no longer has: a
schedule found no cluster that fits, and none has succeeded since."""


@dataclasses.dataclass(frozen=True, slots=True)
class Outcome(Generic[B]):
    """The scheduled binding and how it came about."""

    binding: B
    """The input binding with `spec.clusters`, the applied-placement annotation and the status
    as Karmada would leave them."""
    diagnosis: diagnosis.Diagnosis
    rescheduled: bool
    """False when Karmada would keep the previous result untouched."""
    error: str | None
    """The Scheduled=False condition's message, when scheduling failed."""


@dataclasses.dataclass(frozen=True, slots=True)
class _State:
    """What Karmada would read from etcd: the binding with its last result and status."""

    spec: work.ResourceBindingSpec
    """With Karmada's result in `clusters`: empty after a NoClusterFit (`CLEARED`)."""
    status: work.ResourceBindingStatus
    annotations: dict[str, str]
    kept: tuple[work.TargetCluster, ...]
    """The result gitfleet keeps while no schedule succeeds."""


def _state(
    binding: B, previous: work.ResourceBinding | work.ClusterResourceBinding | None
) -> _State:
    if previous is None:
        annotations = dict(binding.metadata.annotations or {})
        kept = binding.spec.clusters
        spec = binding.spec
        if annotations.get(CLEARED) == "true":
            spec = dataclasses.replace(spec, clusters=())
        return _State(spec, binding.status, annotations, kept)
    cleared = (previous.metadata.annotations or {}).get(CLEARED) == "true"
    spec = dataclasses.replace(
        binding.spec,
        clusters=() if cleared else previous.spec.clusters,
        reschedule_triggered_at=binding.spec.reschedule_triggered_at
        or previous.spec.reschedule_triggered_at,
        graceful_eviction_tasks=binding.spec.graceful_eviction_tasks
        or previous.spec.graceful_eviction_tasks,
    )
    annotations = dict(binding.metadata.annotations or {})
    applied = (previous.metadata.annotations or {}).get(_reschedule.APPLIED_PLACEMENT)
    if applied is not None:
        annotations[_reschedule.APPLIED_PLACEMENT] = applied
    annotations.pop(CLEARED, None)
    if cleared:
        annotations[CLEARED] = "true"
    return _State(spec, previous.status, annotations, previous.spec.clusters)


def schedule(
    binding: B,
    clusters: Sequence[cluster.Cluster] | index.ClusterIndex,
    previous: work.ResourceBinding | work.ClusterResourceBinding | None = None,
    *,
    now: str | None = None,
) -> Outcome[B]:
    """Schedule `binding` as Karmada would, given every cluster and the previous render's
    binding; `now` (RFC 3339, e.g. the source commit's time) stamps the schedule so that a
    later `rescheduleTriggeredAt` can be compared with it."""
    fleet = clusters if isinstance(clusters, index.ClusterIndex) else index.ClusterIndex(clusters)
    state = _state(binding, previous)
    spec, status = state.spec, state.status
    if spec.placement is None:
        message = f"failed to get placement from binding {binding.name}"
        failure = framework.Failure.of(framework.ScheduleError(message))
        return _finish(binding, state, [], None, failure, "binding has no placement", now)
    doc, text = fleet.placement_document(spec.placement)
    applied = state.annotations.get(_reschedule.APPLIED_PLACEMENT, "")
    decision = _reschedule.decide(spec, status, doc, applied, fleet)
    reason = decision.reason
    if state.annotations.get(CLEARED) == "true":
        reason += " (no cluster fit since the last success: Karmada's result is empty)"
        kept_spec = dataclasses.replace(spec, clusters=state.kept)
        if not decision.reschedule and _reschedule.replicas_changed(kept_spec):
            # A Divided workload scaled to 0: Karmada's empty result adds up and stays; the
            # kept clusters do not, so schedule to replace them (as Karmada's would be).
            decision = _reschedule.Decision(True, reason)
    if not decision.reschedule:
        kept = _rebuild(binding, state, state.kept, state.annotations, status)
        report = diagnosis.Diagnosis(
            resource=spec.resource,
            rescheduled=False,
            decision=reason,
            result=state.kept,
        )
        return Outcome(kept, report, False, None)
    fresh = _reschedule.reschedule_required(
        spec.reschedule_triggered_at, status.last_scheduled_time
    )
    if not spec.placement.cluster_affinities:
        attempt = core.run(spec, status, fleet, placement_text=text, fresh=fresh)
        return _finish(binding, state, [attempt], text, attempt.error, reason, now)
    return _schedule_with_affinities(binding, state, fleet, text, fresh, reason, now)


def reads_capacity(binding: work.ResourceBinding | work.ClusterResourceBinding) -> bool:
    """Whether scheduling `binding` again could read the clusters' capacity. Not when it has no
    replicas (the estimator is not asked), nor when it is a Divided workload whose last
    schedule succeeded: that result is kept until its placement or replicas change or a
    reschedule is asked for (`_reschedule.decide`), none of which capacity does."""
    spec = binding.spec
    if not core.asks_estimator(spec):
        return False
    divided = framework.scheduling_type(spec.placement) == policy.ReplicaSchedulingType.DIVIDED
    scheduled = any(c.type == SCHEDULED and c.status == "True" for c in binding.status.conditions)
    return not (divided and scheduled)


def _schedule_with_affinities(
    binding: B,
    state: _State,
    fleet: index.ClusterIndex,
    text: str,
    fresh: bool,
    reason: str,
    now: str | None,
) -> Outcome[B]:
    """Try the clusterAffinities terms in order from the one in use."""
    spec, status = state.spec, state.status
    assert spec.placement is not None
    terms = spec.placement.cluster_affinities
    observed = status.scheduler_observed_affinity_name
    names = [t.affinity_name for t in terms]
    start = names.index(observed) if observed in names else 0
    if fresh:
        start = 0
        why = "reschedule triggered: trying terms from the first"
    elif observed in names:
        why = f"trying terms from {observed}, the term in use"
    else:
        why = "no term in use: trying terms from the first"
    attempts: list[core.Attempt] = []
    for term in terms[start:]:
        tried = dataclasses.replace(status, scheduler_observed_affinity_name=term.affinity_name)
        attempt = core.run(spec, tried, fleet, placement_text=text, fresh=fresh)
        attempts.append(attempt)
        if attempt.error is None:
            used = dataclasses.replace(state, status=tried)
            chosen = f"term {term.affinity_name} scheduled"
            return _finish(binding, used, attempts, text, None, reason, now, (why, chosen))
    first = attempts[0].error if attempts else None
    return _finish(binding, state, attempts, text, first, reason, now, (why, "every term failed"))


def _finish(
    binding: B,
    state: _State,
    attempts: list[core.Attempt],
    placement_text: str | None,
    failure: framework.Failure | None,
    reason: str,
    now: str | None,
    affinity: tuple[str, ...] = (),
) -> Outcome[B]:
    """Write back what Karmada patches for this outcome."""
    spec, status = state.spec, state.status
    annotations = state.annotations
    if failure is None or failure.no_cluster_fits:
        annotations = {**annotations, _reschedule.APPLIED_PLACEMENT: placement_text or ""}
        annotations.pop(CLEARED, None)
    if failure is not None and failure.no_cluster_fits:
        annotations[CLEARED] = "true"
    if failure is None:
        result = attempts[-1].result or ()
        condition = meta.Condition(
            type=SCHEDULED, status="True", reason=SUCCESS_REASON, message=SUCCESS_MESSAGE
        )
        status = dataclasses.replace(
            status,
            scheduler_observed_generation=binding.metadata.generation,
            last_scheduled_time=now
            or _latest(status.last_scheduled_time, spec.reschedule_triggered_at),
        )
    else:
        result = state.kept
        condition = meta.Condition(
            type=SCHEDULED, status="False", reason=failure.reason, message=failure.message
        )
    status = dataclasses.replace(
        status, conditions=_set_condition(status.conditions, condition, now)
    )
    report = diagnosis.Diagnosis(
        resource=spec.resource,
        rescheduled=True,
        decision=reason,
        affinity=affinity,
        attempts=tuple(attempts),
        result=tuple(result),
        failure=failure,
    )
    out = _rebuild(binding, state, tuple(result), annotations, status)
    return Outcome(out, report, True, None if failure is None else failure.message)


def _rebuild(
    binding: B,
    state: _State,
    result: tuple[work.TargetCluster, ...],
    annotations: dict[str, str],
    status: work.ResourceBindingStatus,
) -> B:
    metadata = dataclasses.replace(binding.metadata, annotations=annotations or None)
    spec = dataclasses.replace(state.spec, clusters=result)
    return dataclasses.replace(binding, metadata=metadata, spec=spec, status=status)


def _latest(*moments: str | None) -> str | None:
    """The latest of the given RFC 3339 times."""
    known = [(parsed, t) for t in moments if (parsed := times.parse(t)) is not None]
    return max(known)[1] if known else None


def _set_condition(
    conditions: tuple[meta.Condition, ...], new: meta.Condition, now: str | None
) -> tuple[meta.Condition, ...]:
    """apimachinery meta.SetStatusCondition: replace the condition of the same type, moving its
    transition time only when the status changes."""
    for i, old in enumerate(conditions):
        if old.type == new.type:
            moved = now if old.status != new.status else old.last_transition_time
            updated = dataclasses.replace(new, last_transition_time=moved)
            return (*conditions[:i], updated, *conditions[i + 1 :])
    return (*conditions, dataclasses.replace(new, last_transition_time=now))
