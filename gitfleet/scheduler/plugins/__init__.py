"""The in-tree scheduler plugins, one module each, and the single registry naming them
(Karmada: pkg/scheduler/framework/plugins/registry.go NewInTreeRegistry).

Karmada enables all of them by default; its WorkloadAffinity plugins sit behind an alpha
feature gate that is off, so they are not here. The order below is the order filters run in
and the order `explain` lists verdicts in.
"""

from __future__ import annotations

from gitfleet.scheduler import framework
from gitfleet.scheduler.plugins import (
    api_enablement,
    cluster_affinity,
    cluster_eviction,
    cluster_locality,
    spread_constraint,
    taint_toleration,
)

IN_TREE = framework.Registry(
    [
        (api_enablement.NAME, api_enablement.new),
        (taint_toleration.NAME, taint_toleration.new),
        (cluster_affinity.NAME, cluster_affinity.new),
        (spread_constraint.NAME, spread_constraint.new),
        (cluster_locality.NAME, cluster_locality.new),
        (cluster_eviction.NAME, cluster_eviction.new),
    ]
)
"""Plugin name to factory; registering a name twice raises ValueError."""
