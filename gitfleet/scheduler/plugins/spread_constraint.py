"""SpreadConstraint filter: spreading by provider, region or zone needs the cluster to declare
that property (Karmada: pkg/scheduler/framework/plugins/spreadconstraint/spread_constraint.go).

Constraints are checked in the placement's order and the first missing property is the
reason. Which clusters a spread constraint then selects is `spread.py`'s business.
"""

from __future__ import annotations

from collections.abc import Hashable

from gitfleet.model import cluster, policy
from gitfleet.scheduler import framework

NAME = "SpreadConstraint"


class SpreadConstraint:
    """Passes clusters that have every property the placement spreads by."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        if spec.placement is None:
            return framework.SUCCESS
        cluster_spec = info.cluster.spec
        for constraint in spec.placement.spread_constraints:
            by = constraint.spread_by_field
            if by == policy.SpreadFieldValue.PROVIDER and not cluster_spec.provider:
                return framework.unschedulable("cluster(s) did not have provider property")
            if by == policy.SpreadFieldValue.REGION and not cluster_spec.region:
                return framework.unschedulable("cluster(s) did not have region property")
            if by == policy.SpreadFieldValue.ZONE and not cluster.stored_zones(cluster_spec):
                return framework.unschedulable("cluster(s) did not have zones property")
        return framework.SUCCESS

    def verdict_key(self, spec: framework.Spec, status: framework.Status) -> Hashable:
        constraints = spec.placement.spread_constraints if spec.placement else ()
        return tuple(c.spread_by_field for c in constraints)


def new() -> SpreadConstraint:
    return SpreadConstraint()
