"""TaintToleration filter: the placement's clusterTolerations must tolerate every NoSchedule
and NoExecute taint of the cluster (Karmada: pkg/scheduler/framework/plugins/tainttoleration/
taint_toleration.go; Kubernetes: component-helpers FindMatchingUntoleratedTaint and
core/v1 Toleration.ToleratesTaint, comparison operators disabled as Karmada does).

A cluster already in the result always passes: Karmada leaves evicting it to the taint
manager. PreferNoSchedule taints never block.
"""

from __future__ import annotations

from collections.abc import Hashable

from gitfleet.model import selectors
from gitfleet.scheduler import framework

NAME = "TaintToleration"


class TaintToleration:
    """Passes clusters whose blocking taints are all tolerated."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        if not info.blocking_taints or info.name in framework.target_names(spec):
            return framework.SUCCESS
        tolerations = spec.placement.cluster_tolerations if spec.placement else ()
        for taint in info.blocking_taints:
            if not any(selectors.tolerates(t, taint) for t in tolerations):
                return framework.unschedulable(
                    f"cluster(s) had untolerated taint {{{selectors.taint_text(taint)}}}"
                )
        return framework.SUCCESS

    def verdict_key(self, spec: framework.Spec, status: framework.Status) -> Hashable:
        return spec.placement.cluster_tolerations if spec.placement else ()


def new() -> TaintToleration:
    return TaintToleration()
