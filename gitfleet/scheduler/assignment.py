"""Replica assignment: how many replicas each selected cluster runs
(Karmada: pkg/scheduler/core/{common.go AssignReplicas,assignment.go,division_algorithm.go},
pkg/util/binding.go MergeTargetClusters).

Resources without replicas go to every selected cluster. Workloads are divided by one of four
strategies, looked up in `ASSIGN`:
- Duplicated: every cluster runs all replicas.
- StaticWeight: Webster over the static weights, ignoring the previous result.
- DynamicWeight and Aggregated: relative to the previous result (Steady mode). A scale-down
  divides the new total by the previous replicas; a scale-up (first schedule included) divides
  only the extra replicas, weighted by what each cluster can still take, and adds them to the
  previous result; Aggregated first keeps the shortest list of clusters, previously used ones
  first, whose capacity covers the replicas. A triggered reschedule (Fresh mode) divides
  everything again, weighted by capacity plus current replicas.
With overflow affinities the tiers are filled in order. Clusters left with 0 replicas are
dropped. Every step is appended to `trace`, which `explain` prints.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Sequence

from gitfleet.model import policy, selectors, work
from gitfleet.scheduler import _gosort, framework, spread, webster
from gitfleet.scheduler.plugins import cluster_affinity

Replicas = list[tuple[str, int]]
"""(cluster, replicas) pairs, in Karmada's order."""


class Strategy(enum.StrEnum):
    DUPLICATED = "Duplicated"
    AGGREGATED = "Aggregated"
    STATIC_WEIGHT = "StaticWeight"
    DYNAMIC_WEIGHT = "DynamicWeight"


def int32(value: int) -> int:
    """Go's int32 arithmetic wraps; Karmada sums replicas in int32."""
    return (value + 2**31) % 2**32 - 2**31


def strategy_of(placement: policy.Placement) -> Strategy | None:
    """The strategy a placement asks for (newAssignState); None when Karmada has none."""
    kind = framework.scheduling_type(placement)
    if kind == policy.ReplicaSchedulingType.DUPLICATED:
        return Strategy.DUPLICATED
    rs = placement.replica_scheduling
    if rs is None or kind != policy.ReplicaSchedulingType.DIVIDED:
        return None
    if rs.replica_division_preference == policy.ReplicaDivisionPreference.AGGREGATED:
        return Strategy.AGGREGATED
    if rs.replica_division_preference == policy.ReplicaDivisionPreference.WEIGHTED:
        wp = rs.weight_preference
        if wp is not None and wp.dynamic_weight is not None:
            return Strategy.DYNAMIC_WEIGHT
        return Strategy.STATIC_WEIGHT
    return None


@dataclasses.dataclass(slots=True)
class _State:
    """One assignment's inputs (assignState)."""

    candidates: Sequence[spread.Candidate]
    spec: work.ResourceBindingSpec
    strategy: Strategy
    fresh: bool
    trace: list[str]


def _pairs(replicas: Replicas) -> str:
    return ", ".join(f"{name}={n}" for name, n in replicas) or "none"


def assign_replicas(
    candidates: Sequence[spread.Candidate],
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    *,
    fresh: bool,
    trace: list[str],
) -> list[work.TargetCluster]:
    """The schedule result for the selected candidates (AssignReplicas)."""
    if not candidates:
        raise framework.ScheduleError("no clusters available to schedule")
    if (spec.replicas > 0 or spec.replica_requirements is not None) and len(spec.components) <= 1:
        return [
            work.TargetCluster(name=name, replicas=n)
            for name, n in _assign_workload(candidates, spec, status, fresh, trace)
        ]
    trace.append(f"no replicas to divide: all {len(candidates)} selected clusters get the resource")
    return [work.TargetCluster(name=c.name) for c in candidates]


def _overflow_enabled(spec: work.ResourceBindingSpec, status: work.ResourceBindingStatus) -> bool:
    placement = spec.placement
    if placement is None or placement.cluster_affinity is not None:
        return False
    term = cluster_affinity.observed_term(placement, status.scheduler_observed_affinity_name)
    return term is not None and bool(term.overflow_affinities)


def _assign_workload(
    candidates: Sequence[spread.Candidate],
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    fresh: bool,
    trace: list[str],
) -> Replicas:
    """Fill overflow tiers in order, or assign to all candidates at once."""
    if not _overflow_enabled(spec, status):
        return _assign_to(candidates, spec, fresh, trace)
    tiers: dict[int, list[spread.Candidate]] = {}
    for c in candidates:
        tiers.setdefault(c.overflow_order, []).append(c)
    result: Replicas = []
    remaining = spec.replicas
    for order in range(max(tiers) + 1):
        tier = tiers.get(order)
        if not tier:
            continue
        budget = min(remaining, sum(c.available for c in tier))
        trace.append(f"overflow tier {order}: {budget} of {remaining} remaining replicas")
        result.extend(_assign_to(tier, dataclasses.replace(spec, replicas=budget), fresh, trace))
        remaining -= budget
        if remaining <= 0:
            break
    if remaining > 0:
        raise framework.UnschedulableError(
            "Clusters available replicas are not enough to schedule."
        )
    return result


def _assign_to(
    candidates: Sequence[spread.Candidate],
    spec: work.ResourceBindingSpec,
    fresh: bool,
    trace: list[str],
) -> Replicas:
    """One strategy over `candidates`, zeros dropped (assignReplicasToClusters)."""
    return [(name, n) for name, n in divide(candidates, spec, fresh=fresh, trace=trace) if n > 0]


def divide(
    candidates: Sequence[spread.Candidate],
    spec: work.ResourceBindingSpec,
    *,
    fresh: bool = False,
    trace: list[str] | None = None,
) -> Replicas:
    """The placement's strategy over `candidates`, zero-replica clusters kept (the function
    assignFuncMap gives)."""
    placement = spec.placement or policy.Placement()
    strategy = strategy_of(placement)
    if strategy is None:
        rs = placement.replica_scheduling
        raise framework.ScheduleError(
            "unsupported replica scheduling strategy, replicaSchedulingType: "
            f"{rs.replica_scheduling_type if rs else ''}, replicaDivisionPreference: "
            f"{rs.replica_division_preference if rs else ''}, "
            "please try another scheduling strategy"
        )
    steps = [] if trace is None else trace
    mode = "Fresh" if fresh and strategy in _DYNAMIC else "Steady"
    steps.append(f"strategy {strategy}, {spec.replicas} replicas, {mode} mode")
    return ASSIGN[strategy](_State(candidates, spec, strategy, fresh, steps))


def _duplicated(state: _State) -> Replicas:
    return [(c.name, state.spec.replicas) for c in state.candidates]


def _static_weights(state: _State) -> Replicas:
    """Webster over static weights: a cluster's weight is the largest of the rules matching
    it; unmatched clusters are left out; all weigh 1 when none is matched, when the weights'
    int64 total wraps to 0, or when there is no weightPreference (getStaticWeightInfoList)."""
    rs = state.spec.placement.replica_scheduling if state.spec.placement else None
    preference = rs.weight_preference if rs else None
    weights: Replicas = []
    for c in state.candidates:
        if preference is None:
            weight = 1
        else:
            weight = max(
                (
                    rule.weight
                    for rule in preference.static_weight_list
                    if selectors.cluster_matches(c.cluster, rule.target_cluster)
                ),
                default=0,
            )
        if weight > 0:
            weights.append((c.name, weight))
    if webster.weight_sum(weights) == 0:
        weights = [(c.name, 1) for c in state.candidates]
    result = webster.dispense(state.spec.replicas, weights, (), state.spec.resource.uid)
    state.trace.append(f"static weights {_pairs(weights)} -> Webster: {_pairs(result)}")
    return result


def _by_weight_desc(items: Replicas) -> Replicas:
    """Sorted by replicas desc with Go's sort.Sort (TargetClustersList)."""
    ordered = list(items)
    _gosort.go_sort(ordered, lambda a, b: a[1] > b[1])
    return ordered


def _dynamic(state: _State) -> Replicas:
    """DynamicWeight and Aggregated (assignByDynamicStrategy)."""
    names = {c.name for c in state.candidates}
    previous = [(t.name, t.replicas) for t in state.spec.clusters if t.name in names]
    assigned = int32(sum(n for _, n in previous))
    desired = state.spec.replicas
    trace = state.trace
    trace.append(f"previous result on candidates: {_pairs(previous)} (sum {assigned})")
    if state.fresh:
        current = dict(previous)
        weights = [
            (c.name, int32(c.allocatable + current.get(c.name, 0))) for c in state.candidates
        ]
        trace.append(f"fresh: divide all {desired} replicas by allocatable + current replicas")
        return _divide_or_explain(state, desired, weights, [], "failed to do fresh scale")
    if assigned > desired:
        trace.append(f"scale down to {desired}: weights are the previous replicas")
        return _divide_or_explain(state, desired, previous, [], "failed to scale down")
    if assigned < desired:
        extra = desired - assigned
        weights = [(c.name, c.allocatable) for c in state.candidates]
        trace.append(f"scale up by {extra}: weights are the allocatable replicas")
        return _divide_or_explain(state, extra, weights, previous, "failed to scale up")
    trace.append("replicas unchanged: previous result kept")
    return previous


def _divide_or_explain(
    state: _State, target: int, weights: Replicas, previous: Replicas, context: str
) -> Replicas:
    try:
        return divide_dynamic(
            state.strategy,
            target,
            _by_weight_desc(weights),
            previous,
            uid=state.spec.resource.uid,
            trace=state.trace,
        )
    except framework.ScheduleError as e:
        raise e.wrapped(context) from e


def divide_dynamic(
    strategy: Strategy,
    target: int,
    weights: Replicas,
    previous: Sequence[tuple[str, int]] = (),
    *,
    uid: str = "",
    trace: list[str] | None = None,
) -> Replicas:
    """Divide `target` replicas by `weights` (already in Karmada's order) and add `previous`
    (dynamicDivideReplicas). Aggregated first keeps the shortest prefix, previously used
    clusters moved first, whose weights cover the target."""
    steps = [] if trace is None else trace
    available = int32(sum(w for _, w in weights))
    if available < target:
        raise framework.UnschedulableError(
            f"Clusters available replicas {available} are not enough to schedule."
        )
    if strategy is Strategy.AGGREGATED:
        used = {name for name, n in previous if n > 0}
        if used:
            weights = [w for w in weights if w[0] in used] + [
                w for w in weights if w[0] not in used
            ]
        total = 0
        for i, (_, w) in enumerate(weights):
            total += w
            if total >= target:
                weights = weights[: i + 1]
                break
        steps.append(f"aggregated: clusters kept {_pairs(weights)}")
    divided = webster.dispense(target, weights, (), uid)
    steps.append(f"Webster({target}) over {_pairs(weights)} -> {_pairs(divided)}")
    merged = _merge(previous, divided)
    if previous:
        steps.append(f"added to previous result: {_pairs(merged)}")
    return merged


def _merge(old: Sequence[tuple[str, int]], new: Replicas) -> Replicas:
    """`new` with `old` added per cluster, then old-only clusters (MergeTargetClusters; Karmada
    appends those in map order, gitfleet in their previous order)."""
    if not old:
        return new
    if not new:
        return list(old)
    extra = dict(old)
    merged = [(name, n + extra.pop(name, 0)) for name, n in new]
    for name, _ in old:
        if name in extra:
            merged.append((name, extra.pop(name)))
    return merged


_DYNAMIC = frozenset({Strategy.AGGREGATED, Strategy.DYNAMIC_WEIGHT})

ASSIGN: dict[Strategy, Callable[[_State], Replicas]] = {
    Strategy.DUPLICATED: _duplicated,
    Strategy.AGGREGATED: _dynamic,
    Strategy.STATIC_WEIGHT: _static_weights,
    Strategy.DYNAMIC_WEIGHT: _dynamic,
}
"""Strategy name to assignment function (Karmada assignFuncMap)."""
