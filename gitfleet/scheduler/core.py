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
from collections.abc import Hashable, Mapping

from gitfleet.model import policy, selectors, work
from gitfleet.scheduler import assignment, framework, index, plugins, spread, webster
from gitfleet.scheduler.plugins import cluster_affinity

FRAMEWORK = framework.Framework.from_registry(plugins.IN_TREE)
UNBOUNDED = 2**31 - 1
"""An estimate without limit (Go's math.MaxInt32)."""
UNAUTHENTIC = -1
"""An estimate Karmada discards (estimatorclient.UnauthenticReplica), so that the cluster keeps
the unbounded one: the general estimator gives it when the pods left wrap to -1 in int32."""
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
    error: framework.Failure | None = None


def find_feasible(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    clusters: index.ClusterIndex,
    placement_text: str,
) -> tuple[list[framework.ClusterInfo], Mapping[str, index.Verdicts]]:
    """Run every filter plugin on every live cluster (findClustersThatFit).

    Verdicts are shared between bindings with the same filter key (`index.FilterTable`).
    """
    key = (
        placement_text,
        status.scheduler_observed_affinity_name,
        spec.resource.api_version,
        spec.resource.kind,
        framework.is_workload(spec),
        tuple(t.from_cluster for t in spec.graceful_eviction_tasks),
    )
    table = clusters.filter_table(key, FRAMEWORK.filters, spec, status)
    own = {
        t.name: table.targeted(clusters.infos[t.name])
        for t in spec.clusters
        if t.name in table.verdicts
    }
    if not own:
        return [clusters.infos[name] for name in sorted(table.feasible)], table.verdicts
    feasible = (table.feasible - own.keys()) | (table.targeted_feasible & own.keys())
    view = index.VerdictView(table.verdicts, own)
    return [clusters.infos[name] for name in sorted(feasible)], view


def first_failure(verdicts: index.Verdicts) -> framework.Result | None:
    """The verdict Karmada reports for a cluster: the first failing plugin's."""
    return next((r for _, r in verdicts if not r.success), None)


def prioritize(
    spec: work.ResourceBindingSpec, feasible: list[framework.ClusterInfo]
) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Total score per cluster and each score plugin's scores (prioritizeClusters); weights
    are all 1."""
    names = [info.name for info in feasible]
    totals = [0] * len(feasible)
    per_plugin: dict[str, dict[str, int]] = {}
    for plugin, normalizer in FRAMEWORK.scorers:
        scores = [plugin.score(spec, info) for info in feasible]
        if normalizer is not None:
            scores = normalizer.normalize(scores)
        per_plugin[plugin.NAME] = dict(zip(names, scores, strict=True))
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
    return dict(zip(names, totals, strict=True)), per_plugin


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


def asks_estimator(spec: work.ResourceBindingSpec) -> bool:
    """Whether scheduling `spec` reads the clusters' capacity: only a resource with replicas
    (or components) asks the estimator."""
    return spec.replicas != 0 or bool(spec.components)


def allocatable_replicas(
    spec: work.ResourceBindingSpec,
    feasible: list[framework.ClusterInfo],
    clusters: index.ClusterIndex,
) -> list[int]:
    """Replicas each cluster can still take (calAvailableReplicas): unbounded for resources
    without replicas, else the estimator's answer, an unbounded answer meaning all replicas;
    an answer of -1 is discarded, as mergeReplicaResults discards it, and so means all
    replicas too."""
    if not asks_estimator(spec):
        return [UNBOUNDED] * len(feasible)
    answers = clusters.estimates(spec.replica_requirements, (info.name for info in feasible))
    return [spec.replicas if a in (UNBOUNDED, UNAUTHENTIC) else a for a in answers]


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
    tiers = placement.cluster_affinity is None and bool(placement.cluster_affinities)
    candidates = [
        spread.Candidate(
            info.name,
            totals[info.name],
            overflow_order(info, spec, status) if tiers else 0,
            free + assigned.get(info.name, 0),
            free,
            info.cluster,
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
    """One run of the algorithm (genericScheduler.Schedule), made once per render for all the
    bindings that pose the same problem: many templates share a policy, their replicas and
    their requests, and so, on a first render or once their results agree, every input the
    algorithm reads. Of the template it reads only the apiVersion, the kind and whether its
    UID breaks Webster's ties by descending name; of the status, only the affinity term in
    use."""
    key = _problem(spec, status, placement_text, fresh)
    return clusters.attempt(key, lambda: _run(spec, status, clusters, placement_text, fresh))


def _problem(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    placement_text: str,
    fresh: bool,
) -> Hashable:
    """Everything `_run` reads, hashable: the placement as its text, the template as its
    apiVersion, kind and tie-breaking order, the status as its affinity term."""
    resource = spec.resource
    kind = work.ObjectReference(api_version=resource.api_version, kind=resource.kind, name="")
    rest = dataclasses.replace(spec, resource=kind, clusters=(), placement=None)
    return (
        _hashable(rest),
        spec.clusters,
        webster.names_descending(resource.uid),
        status.scheduler_observed_affinity_name,
        placement_text,
        fresh,
    )


def _hashable(value: object) -> Hashable:
    """`value` as nested tuples (dataclasses and mappings hold dictionaries and lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (type(value), *(_hashable(getattr(value, f.name)) for f in fields))
    if isinstance(value, Mapping):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _run(
    spec: work.ResourceBindingSpec,
    status: work.ResourceBindingStatus,
    clusters: index.ClusterIndex,
    placement_text: str,
    fresh: bool,
) -> Attempt:
    feasible, verdicts = find_feasible(spec, status, clusters, placement_text)
    name, count = status.scheduler_observed_affinity_name, len(clusters)
    if not feasible:
        failures = {n: r for n, vs in verdicts.items() if (r := first_failure(vs)) is not None}
        message = framework.fit_error_message(count, failures)
        failure = framework.Failure(framework.NO_CLUSTER_FIT, message)
        return Attempt(name, count, verdicts, {}, error=failure)
    totals, scores = prioritize(spec, feasible)
    try:
        candidates, selection = select(spec, status, feasible, totals, clusters)
    except framework.ScheduleError as e:
        failure = framework.Failure.of(e.wrapped("failed to select clusters"))
        return Attempt(name, count, verdicts, scores, error=failure)
    steps: list[str] = []
    try:
        result = assignment.assign_replicas(
            selection.clusters, spec, status, fresh=fresh, trace=steps
        )
    except framework.ScheduleError as e:
        return Attempt(
            name,
            count,
            verdicts,
            scores,
            candidates,
            selection,
            tuple(steps),
            error=framework.Failure.of(e.wrapped("failed to assign replicas")),
        )
    return Attempt(
        name, count, verdicts, scores, candidates, selection, tuple(steps), tuple(result)
    )
