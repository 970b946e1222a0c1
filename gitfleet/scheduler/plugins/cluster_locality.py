"""ClusterLocality score: prefer the clusters the resource already runs on
(Karmada: pkg/scheduler/framework/plugins/clusterlocality/cluster_locality.go).

The maximum score for a cluster in the previous result, the minimum otherwise; with the other
in-tree scores at 0 this makes scheduling sticky.
"""

from __future__ import annotations

from gitfleet.scheduler import framework

NAME = "ClusterLocality"


class ClusterLocality:
    """Scores clusters of the previous result highest."""

    NAME = NAME

    def score(self, spec: framework.Spec, info: framework.ClusterInfo) -> int:
        if info.name in framework.target_names(spec):
            return framework.MAX_CLUSTER_SCORE
        return framework.MIN_CLUSTER_SCORE


def new() -> ClusterLocality:
    return ClusterLocality()
