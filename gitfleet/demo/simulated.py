"""Simulated member clusters for the Clusters a source defines (`gitfleet sim --from-repo` and
`gitfleet demo`): one `gitfleet.sim.SimCluster` per Cluster, named after it, whose nodes add up
to the Cluster's declared `status.resourceSummary.allocatable` (over
`status.nodeSummary.totalNum` nodes, default one), carry its region and zone as topology labels,
and which reports the Cluster's declared `status.kubernetesVersion`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gitfleet import source

REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"


@dataclasses.dataclass(frozen=True, slots=True)
class ClusterPlan:
    """How to simulate one cluster: its name and its constructor options."""

    name: str
    options: dict[str, Any]
    mode: str = ""
    """The Cluster's sync mode: Push (the push agent applies) or Pull (an agent inside)."""


def plans_from_repo(repo: str) -> list[ClusterPlan]:
    """One plan per Cluster of the source at `repo`, in name order."""
    loaded = source.load(repo)
    plans = []
    for cluster in sorted(loaded.objects.clusters, key=lambda c: c.metadata.name):
        status, spec = cluster.status, cluster.spec
        nodes = status.node_summary.total_num if status.node_summary else 0
        nodes = max(nodes, 1)
        plan_options: dict[str, Any] = {"nodes": nodes}
        declared = status.resource_summary.allocatable if status.resource_summary else None
        if declared:
            plan_options["capacity"] = {name: str(amount) for name, amount in declared.items()}
        labels = {}
        if spec.region:
            labels[REGION_LABEL] = spec.region
        zone = spec.zone or (spec.zones[0] if spec.zones else "")
        if zone:
            labels[ZONE_LABEL] = zone
        if labels:
            plan_options["node_labels"] = labels
        if status.kubernetes_version:
            plan_options["kubernetes_version"] = status.kubernetes_version
        plans.append(ClusterPlan(cluster.metadata.name, plan_options, str(spec.sync_mode)))
    return plans
