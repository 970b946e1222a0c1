"""ClusterAffinity filter and score (Karmada: pkg/scheduler/framework/plugins/clusteraffinity/
cluster_affinity.go; matching: pkg/util/selector.go ClusterMatches).

With `clusterAffinity` the cluster must match it. With `clusterAffinities` it must match the
term the scheduler is currently trying (`status.schedulerObservingAffinityName`) or, for
workloads only, one of that term's overflow affinities: a Service or ConfigMap uses no compute
capacity, so it never overflows. Without either every cluster passes. The score is always the
minimum; it only exists to keep Karmada's plugin set.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence

from gitfleet.model import meta, policy, selectors, work
from gitfleet.scheduler import framework

NAME = "ClusterAffinity"
REASON = "cluster(s) did not match the placement cluster affinity constraint"


def observed_term(
    placement: policy.Placement, affinity_name: str
) -> policy.ClusterAffinityTerm | None:
    """The `clusterAffinities` term named `affinity_name`, if any."""
    for term in placement.cluster_affinities:
        if term.affinity_name == affinity_name:
            return term
    return None


def affinities(
    spec: work.ResourceBindingSpec, status: work.ResourceBindingStatus
) -> tuple[policy.ClusterAffinity, ...] | None:
    """The affinities a cluster must match one of; None when nothing restricts clusters."""
    placement = spec.placement
    if placement is None:
        return None
    if placement.cluster_affinity is not None:
        return (placement.cluster_affinity,)
    term = observed_term(placement, status.scheduler_observed_affinity_name)
    if term is None:
        return None
    if framework.is_workload(spec):
        return (term, *term.overflow_affinities)
    return (term,)


class ClusterAffinity:
    """Passes clusters that match the placement's (current) cluster affinity."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        wanted = affinities(spec, status)
        if wanted is None or any(selectors.cluster_matches(info.cluster, a) for a in wanted):
            return framework.SUCCESS
        return framework.unschedulable(REASON)

    def verdict_key(self, spec: framework.Spec, status: framework.Status) -> Hashable:
        """The affinities as canonical JSON (their label selectors hold dicts)."""
        wanted = affinities(spec, status)
        if wanted is None:
            return None
        return json.dumps([meta.to_doc(a) for a in wanted], sort_keys=True)

    def score(self, spec: framework.Spec, info: framework.ClusterInfo) -> int:
        return framework.MIN_CLUSTER_SCORE

    def normalize(self, scores: Sequence[int]) -> list[int]:
        return list(scores)


def new() -> ClusterAffinity:
    return ClusterAffinity()
