"""Which bindings the descheduler acts on (Karmada: pkg/descheduler/core/filter.go
FilterBindings, pkg/util/helper/policy.go IsReplicaDynamicDivided, GetAppliedPlacement).

Only ResourceBindings of `apps/v1` Deployments (the one kind Karmada's estimator counts pods
for) whose placement *as last applied by the scheduler* (the annotation
`policy.karmada.io/applied-placement`) divides replicas dynamically: Divided and Aggregated, or
Divided and Weighted with `dynamicWeight` set. Duplicated and static weights never move: their
result does not follow the clusters' capacity. A binding never scheduled (no annotation) or
whose annotation cannot be read is left alone, as Karmada leaves it.
"""

from __future__ import annotations

import json
from typing import Any

from gitfleet.model import work

APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"
KINDS = frozenset({("apps/v1", "Deployment")})


def acts_on(binding: work.ResourceBinding | work.ClusterResourceBinding) -> bool:
    """Whether the descheduler may lower `binding`'s schedule."""
    if not isinstance(binding, work.ResourceBinding):
        return False
    resource = binding.spec.resource
    if (resource.api_version, resource.kind) not in KINDS:
        return False
    applied = (binding.metadata.annotations or {}).get(APPLIED_PLACEMENT)
    if not applied:
        return False
    try:
        placement = json.loads(applied)
    except (ValueError, RecursionError):
        return False
    return isinstance(placement, dict) and dynamically_divided(placement)


def dynamically_divided(placement: dict[str, Any]) -> bool:
    """IsReplicaDynamicDivided, on the placement as JSON."""
    strategy = placement.get("replicaScheduling")
    if not isinstance(strategy, dict) or strategy.get("replicaSchedulingType") != "Divided":
        return False
    preference = strategy.get("replicaDivisionPreference")
    if preference == "Aggregated":
        return True
    weights = strategy.get("weightPreference")
    return (
        preference == "Weighted"
        and isinstance(weights, dict)
        and bool(weights.get("dynamicWeight"))
    )
