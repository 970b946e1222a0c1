"""ClusterEviction filter: a cluster the binding is being evicted from takes nothing new
(Karmada: pkg/scheduler/framework/plugins/clustereviction/cluster_eviction.go)."""

from __future__ import annotations

from collections.abc import Hashable

from gitfleet.scheduler import framework

NAME = "ClusterEviction"
REASON = "cluster(s) is in the process of eviction"


class ClusterEviction:
    """Fails clusters named as `fromCluster` by a graceful eviction task of the binding."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        if any(task.from_cluster == info.name for task in spec.graceful_eviction_tasks):
            return framework.unschedulable(REASON)
        return framework.SUCCESS

    def verdict_key(self, spec: framework.Spec, status: framework.Status) -> Hashable:
        return tuple(task.from_cluster for task in spec.graceful_eviction_tasks)


def new() -> ClusterEviction:
    return ClusterEviction()
