"""One run of the scheduling algorithm for a binding: find the feasible clusters, prioritize
them, select among them, assign replicas (Karmada: pkg/scheduler/core/generic_scheduler.go
Schedule, core/common.go SelectClusters, core/util.go calAvailableReplicas,
spreadconstraint/group_clusters.go getClusterOverflowOrder).

`run` never raises for scheduling failures: the `Attempt` it returns holds what each step saw
and the error the run ended with, because `explain` shows both. Deciding whether to run,
which affinity term to try and what to write back is `schedule`'s job (`_scheduler.py`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from gitfleet import errors
from gitfleet.model import policy, selectors, work
from gitfleet.scheduler import assignment, framework, index, plugins, spread
from gitfleet.scheduler.plugins import cluster_affinity

FRAMEWORK = framework.Framework.from_registry(plugins.IN_TREE)
OVERFLOW_ORDER_UNMATCHED = 1000
"""The tier of a cluster matching no affinity of the term (cannot happen after filtering)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Attempt:
    """What one run of the algorithm saw and decided."""

    affinity_name: str
    """The clusterAffinities term tried ("" without clusterAffinities)."""
    num_clusters: int
    filters: Mapping[str, index.Verdicts]
    """Every live cluster's verdict from every filter plugin."""
    scores: Mapping[str, Mapping[str, int]]
    """Score plugin name to feasible cluster to score."""
    candidates: tuple[spread.Candidate, ...] = ()
    selection: spread.Selection | None = None
    steps: tuple[str, ...] = ()
    """The replica arithmetic, step by step."""
    result: tuple[work.TargetCluster, ...] | None = None
    error: errors.FitError | framework.ScheduleError | None = None


def find_feasible(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    clusters: index.ClusterIndex,
    placement_text: str,
) -> tuple[list[framework.ClusterInfo], dict[str, index.Verdicts]]:
    """Run every filter plugin on every live cluster (findClustersThatFit).

    Verdicts are shared between bindings with the same filter key; only the clusters of this
    binding's previous result are filtered again with its own target list.
    """
    key = (
        placement_text,
        status.scheduler_observed_affinity_name,
        spec.resource.api_version,
        spec.resource.kind,
        cluster_affinity.is_workload(spec),
        tuple(t.from_cluster for t in spec.graceful_eviction_tasks),
    )
    table = clusters.filter_tables.get(key)
    if table is None:
        untargeted = dataclasses.replace(spec, clusters=())
        table = clusters.filter_tables[key] = index.FilterTable(
            {info.name: _verdicts(untargeted, status, info) for info in clusters.live}
        )
    verdicts = table.verdicts
    feasible_names: set[str] | frozenset[str] = table.feasible
    targets = {t.name for t in spec.clusters if t.name in verdicts}
    if targets:
        verdicts = dict(verdicts)
        feasible_names = set(table.feasible - targets)
        for name in targets:
            verdicts[name] = _verdicts(spec, status, clusters.infos[name])
            if all(r.success for _, r in verdicts[name]):
                feasible_names.add(name)
    return [clusters.infos[name] for name in sorted(feasible_names)], verdicts


def _verdicts(
    spec: work.ResourceBindingSpec, status: work.ResourceBindingStatus, info: framework.ClusterInfo
) -> index.Verdicts:
    return tuple((p.NAME, p.filter(spec, status, info)) for p in FRAMEWORK.filters)


def first_failure(verdicts: index.Verdicts) -> framework.Result | None:
    """The verdict Karmada reports for a cluster: the first failing plugin's."""
    return next((r for _, r in verdicts if not r.success), None)


def prioritize(
    spec: work.ResourceBindingSpec, feasible: list[framework.ClusterInfo]
) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Total score per cluster and each score plugin's scores (prioritizeClusters); weights
    are all 1."""
    totals = dict.fromkeys((info.name for info in feasible), 0)
    per_plugin: dict[str, dict[str, int]] = {}
    for plugin in FRAMEWORK.scorers:
        scores = [plugin.score(spec, info) for info in feasible]
        if isinstance(plugin, framework.ScoreNormalizer):
            scores = plugin.normalize(scores)
        per_plugin[plugin.NAME] = dict(zip(totals, scores, strict=True))
        for name, score in per_plugin[plugin.NAME].items():
            totals[name] += score
    return totals, per_plugin


def overflow_order(
    info: framework.ClusterInfo,
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
) -> int:
    """0 for the clusters of the current affinity term, i for its i-th overflow affinity."""
    placement = spec.placement
    if placement is None or placement.cluster_affinity is not None:
        return 0
    if not placement.cluster_affinities:
        return 0
    term = cluster_affinity.observed_term(placement, status.scheduler_observed_affinity_name)
    if term is not None:
        if selectors.cluster_matches(info.cluster, term):
            return 0
        for i, overflow in enumerate(term.overflow_affinities, start=1):
            if selectors.cluster_matches(info.cluster, overflow):
                return i
    return OVERFLOW_ORDER_UNMATCHED


def allocatable_replicas(
    spec: work.ResourceBindingSpec,
    feasible: list[framework.ClusterInfo],
    clusters: index.ClusterIndex,
) -> list[int]:
    """Replicas each cluster can still take (calAvailableReplicas): unbounded for resources
    without replicas, else the estimator's answer, an unbounded answer meaning all replicas."""
    if spec.replicas == 0 and not spec.components:
        return [estimator_unbounded()] * len(feasible)
    answers = [clusters.estimate(info.name, spec.replica_requirements) for info in feasible]
    return [spec.replicas if a == estimator_unbounded() else a for a in answers]


def estimator_unbounded() -> int:
    return 2**31 - 1


def select(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    feasible: list[framework.ClusterInfo],
    totals: Mapping[str, int],
    clusters: index.ClusterIndex,
) -> tuple[tuple[spread.Candidate, ...], spread.Selection]:
    """Candidates in scheduling order and the spread selection among them (SelectClusters)."""
    placement = spec.placement or policy.Placement()
    assigned = {t.name: t.replicas for t in spec.clusters}
    allocatable = allocatable_replicas(spec, feasible, clusters)
    candidates = [
        spread.Candidate(
            name=info.name,
            score=totals[info.name],
            overflow_order=overflow_order(info, spec, status),
            available=free + assigned.get(info.name, 0),
            allocatable=free,
            cluster=info.cluster,
        )
        for info, free in zip(feasible, allocatable, strict=True)
    ]
    groups = spread.group_candidates(candidates, placement, spec)
    return groups.clusters, spread.select_best_clusters(placement, groups, spec.replicas)


def run(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    clusters: index.ClusterIndex,
    *,
    placement_text: str,
    fresh: bool,
) -> Attempt:
    """One run of the algorithm (genericScheduler.Schedule)."""
    feasible, verdicts = find_feasible(spec, status, clusters, placement_text)
    attempt = Attempt(
        affinity_name=status.scheduler_observed_affinity_name,
        num_clusters=len(clusters),
        filters=verdicts,
        scores={},
    )
    if not feasible:
        failures = {n: r for n, vs in verdicts.items() if (r := first_failure(vs)) is not None}
        message = framework.fit_error_message(len(clusters), failures)
        return dataclasses.replace(attempt, error=errors.FitError(message, failures))
    totals, per_plugin = prioritize(spec, feasible)
    attempt = dataclasses.replace(attempt, scores=per_plugin)
    try:
        candidates, selection = select(spec, status, feasible, totals, clusters)
    except framework.ScheduleError as e:
        return dataclasses.replace(attempt, error=e.wrapped("failed to select clusters"))
    attempt = dataclasses.replace(attempt, candidates=candidates, selection=selection)
    steps: list[str] = []
    try:
        result = assignment.assign_replicas(
            selection.clusters, spec, status, fresh=fresh, trace=steps
        )
    except framework.ScheduleError as e:
        return dataclasses.replace(
            attempt, steps=tuple(steps), error=e.wrapped("failed to assign replicas")
        )
    return dataclasses.replace(attempt, steps=tuple(steps), result=tuple(result))
