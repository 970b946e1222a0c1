"""The typed contents of one source revision, as every stage after `load` sees them."""

from __future__ import annotations

import dataclasses

from gitfleet.model import autoscaling, cluster, config, policy, template


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ObjectSet:
    """All objects of a source, by kind, each sorted by (namespace, name)."""

    templates: tuple[template.ResourceTemplate, ...] = ()
    propagation_policies: tuple[policy.PropagationPolicy, ...] = ()
    cluster_propagation_policies: tuple[policy.ClusterPropagationPolicy, ...] = ()
    override_policies: tuple[policy.OverridePolicy, ...] = ()
    cluster_override_policies: tuple[policy.ClusterOverridePolicy, ...] = ()
    cluster_taint_policies: tuple[policy.ClusterTaintPolicy, ...] = ()
    clusters: tuple[cluster.Cluster, ...] = ()
    customizations: tuple[config.ResourceInterpreterCustomization, ...] = ()
    federated_hpas: tuple[autoscaling.FederatedHPA, ...] = ()
