"""Grouping the feasible clusters and selecting among them by spread constraints
(Karmada: pkg/scheduler/core/spreadconstraint/{group_clusters.go,select_clusters.go,
select_clusters_by_cluster.go,select_clusters_by_region.go,util.go}).

Each feasible cluster becomes a `Candidate`: its score, its overflow tier, the replicas the
estimator says it can still take (`allocatable`) and that plus what it already runs
(`available`). Candidates are ordered by tier, score desc, available desc, name; that order is
what every later step starts from.

Selection then keeps all candidates (no constraint, or static weights, which ignore spread
constraints), or applies the region constraint if there is one, else the cluster constraint.
Zone and provider constraints only act through the SpreadConstraint filter; spreading by label
is not implemented by Karmada's scheduler and fails here as there.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from gitfleet.model import cluster, policy, work
from gitfleet.scheduler import _groups, framework

INVALID_REPLICAS = -1
"""`need_replicas` meaning "do not check available replicas"."""
WEIGHT_UNIT = 1000
"""Makes replicas dominate the average cluster score (0..100) in a group's score."""
_GO_INT64_OF_INF = -(2**63)
"""What Go's int64(math.Ceil(x/0)) gives on amd64, for a region minGroups left at 0."""


def _int64(value: int) -> int:
    """`value` wrapped as Go's int64 arithmetic wraps it."""
    return (value + 2**63) % 2**64 - 2**63


class Candidate(NamedTuple):
    """A feasible cluster with what selection and assignment need
    (Karmada spreadconstraint.ClusterDetailInfo); a named tuple because every binding makes
    one per feasible cluster."""

    name: str
    score: int
    overflow_order: int
    available: int
    allocatable: int
    cluster: cluster.Cluster

    def sort_key(self) -> tuple[int, int, int, str]:
        return (self.overflow_order, -self.score, -self.available, self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Region:
    """The candidates of one region and the region's score."""

    name: str
    score: int
    clusters: tuple[Candidate, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Groups:
    """Candidates in scheduling order, and per region when a region constraint needs them."""

    clusters: tuple[Candidate, ...]
    regions: Mapping[str, Region] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True, slots=True)
class Selection:
    """The selected candidates, in the order assignment receives them, and how they were
    chosen (for `explain`)."""

    clusters: tuple[Candidate, ...]
    method: str
    notes: tuple[str, ...] = ()


class SelectionError(framework.ScheduleError):
    """No selection satisfies the spread constraints."""


def ignores_spread_constraints(placement: policy.Placement) -> bool:
    """Divided+Weighted with no weightPreference, or with a static list and no dynamic
    weight, ignores spread constraints (select_clusters.go shouldIgnoreSpreadConstraint)."""
    strategy = placement.replica_scheduling
    if strategy is None or strategy.replica_scheduling_type != policy.ReplicaSchedulingType.DIVIDED:
        return False
    if strategy.replica_division_preference != policy.ReplicaDivisionPreference.WEIGHTED:
        return False
    preference = strategy.weight_preference
    return preference is None or (
        bool(preference.static_weight_list) and preference.dynamic_weight is None
    )


def ignores_available_replicas(placement: policy.Placement) -> bool:
    """Duplicated (or no replicaScheduling) selects without looking at capacity."""
    return framework.scheduling_type(placement) == policy.ReplicaSchedulingType.DUPLICATED


def _constraint(
    constraints: Sequence[policy.SpreadConstraint], by: policy.SpreadFieldValue
) -> policy.SpreadConstraint | None:
    """The last constraint spreading by `by` (Karmada keys them in a map)."""
    found = None
    for c in constraints:
        if c.spread_by_field == by:
            found = c
    return found


def group_candidates(
    candidates: Sequence[Candidate], placement: policy.Placement, spec: work.ResourceBindingSpec
) -> Groups:
    """Sort the candidates and, when a region constraint applies, group them by region
    (GroupClustersWithScore)."""
    ordered = tuple(sorted(candidates, key=Candidate.sort_key))
    constraints = placement.spread_constraints
    region_constraint = _constraint(constraints, policy.SpreadFieldValue.REGION)
    if region_constraint is None or ignores_spread_constraints(placement):
        return Groups(clusters=ordered)
    members: dict[str, list[Candidate]] = {}
    for c in ordered:
        if c.cluster.spec.region:
            members.setdefault(c.cluster.spec.region, []).append(c)
    regions = {
        name: Region(name, _group_score(group, spec, region_constraint.min_groups), tuple(group))
        for name, group in members.items()
    }
    return Groups(clusters=ordered, regions=regions)


def _group_score(
    clusters: Sequence[Candidate], spec: work.ResourceBindingSpec, min_groups: int
) -> int:
    """A region's score (group_clusters.go calcGroupScore): replicas it can take, in units of
    1000, plus the average score of the clusters counted; `/` rounds down as Go's does on
    these non-negative numbers. The product wraps in int64 as Go's does: with a region
    minGroups of 0 the target is int64's minimum, which times 1000 is 0, so such a region
    scores the average alone (and a path of more regions weighs more, as in Karmada)."""
    placement = spec.placement
    if placement is None or ignores_available_replicas(placement):
        valid = [c for c in clusters if c.available >= spec.replicas]
        if not valid:
            return 0
        return len(valid) * WEIGHT_UNIT + sum(c.score for c in valid) // len(valid)
    if min_groups == 0:
        target = _GO_INT64_OF_INF
    else:
        target = math.ceil(float(spec.replicas) / float(min_groups))
    cluster_constraint = _constraint(placement.spread_constraints, policy.SpreadFieldValue.CLUSTER)
    needed = max(cluster_constraint.min_groups if cluster_constraint else 0, min_groups)
    total_available = total_score = counted = 0
    for c in clusters:
        total_available += c.available
        total_score += c.score
        counted += 1
        if counted >= needed and total_available >= target:
            break
    if total_available < target:
        return total_available * WEIGHT_UNIT + total_score // len(clusters)
    return _int64(target * WEIGHT_UNIT) + total_score // counted


def select_best_clusters(
    placement: policy.Placement, groups: Groups, need_replicas: int
) -> Selection:
    """The candidates to assign replicas to (SelectBestClusters)."""
    constraints = placement.spread_constraints
    if not constraints or ignores_spread_constraints(placement):
        return Selection(groups.clusters, "all candidates")
    if ignores_available_replicas(placement):
        need_replicas = INVALID_REPLICAS
    region = _constraint(constraints, policy.SpreadFieldValue.REGION)
    by_cluster = _constraint(constraints, policy.SpreadFieldValue.CLUSTER)
    if region is not None:
        return select_by_region(groups.regions, region, by_cluster or policy.SpreadConstraint())
    if by_cluster is not None:
        return select_by_cluster(groups.clusters, by_cluster, need_replicas)
    raise SelectionError("just support cluster and region spread constraint")


def select_by_cluster(
    clusters: Sequence[Candidate], constraint: policy.SpreadConstraint, need_replicas: int
) -> Selection:
    """The first maxGroups candidates; when they cannot hold `need_replicas`, swap slots from
    the last to the first for the unchosen candidate with the most available replicas above
    the slot's (selectBestClustersByCluster, selectClustersByAvailableResource)."""
    if len(clusters) < constraint.min_groups:
        raise SelectionError(
            "the number of feasible clusters is less than spreadConstraint.MinGroups"
        )
    count = min(len(clusters), constraint.max_groups)
    method = f"cluster spread: first {count} of {len(clusters)} candidates"
    if need_replicas == INVALID_REPLICAS:
        return Selection(tuple(clusters[:count]), method)
    chosen = list(clusters[:count])
    rest = list(clusters[count:])
    notes: list[str] = []
    slot = len(chosen) - 1
    while sum(c.available for c in chosen) < need_replicas and slot >= 0:
        best = _most_available(rest, chosen[slot].available)
        if best is not None:
            notes.append(
                f"swapped {chosen[slot].name} (available {chosen[slot].available}) for "
                f"{rest[best].name} (available {rest[best].available})"
            )
            chosen[slot], rest[best] = rest[best], chosen[slot]
        slot -= 1
    if not chosen or sum(c.available for c in chosen) < need_replicas:
        raise SelectionError(f"no enough resource when selecting {count} clusters")
    return Selection(tuple(chosen), method + f", needing {need_replicas} replicas", tuple(notes))


def _most_available(clusters: Sequence[Candidate], above: int) -> int | None:
    """Index of the first candidate with the most available replicas, if more than `above`."""
    best, most = None, above
    for i, c in enumerate(clusters):
        if c.available > most:
            best, most = i, c.available
    return best


def select_by_region(
    regions: Mapping[str, Region],
    region_constraint: policy.SpreadConstraint,
    cluster_constraint: policy.SpreadConstraint,
) -> Selection:
    """The best cluster of each chosen region, then the other clusters of those regions by
    score, up to the cluster constraint's maxGroups (selectBestClustersByRegion)."""
    if len(regions) < region_constraint.min_groups:
        raise SelectionError(
            "the number of feasible region is less than spreadConstraint.MinGroups"
        )
    chosen = _groups.select_groups(
        [_groups.Group(r.name, len(r.clusters), r.score) for r in regions.values()],
        region_constraint.min_groups,
        region_constraint.max_groups,
        cluster_constraint.min_groups,
    )
    if not chosen:
        raise SelectionError(
            "the number of clusters is less than the cluster spreadConstraint.MinGroups"
        )
    selected = [regions[g.name].clusters[0] for g in chosen]
    others = sorted(
        (c for g in chosen for c in regions[g.name].clusters[1:]), key=Candidate.sort_key
    )
    wanted = min(len(others) + len(selected), cluster_constraint.max_groups)
    selected.extend(others[: max(wanted - len(selected), 0)])
    scores = ", ".join(
        f"{r.name}={r.score}" for r in sorted(regions.values(), key=lambda r: r.name)
    )
    return Selection(
        tuple(selected),
        f"region spread: regions {', '.join(g.name for g in chosen)}",
        (f"region scores {scores}",),
    )
