"""The Karmada kinds a source declares and gitfleet reads, each with its model class: what the
source's classifier builds from a document, and what the JSON schemas describe."""

from __future__ import annotations

from gitfleet.model import autoscaling, cluster, config, meta, policy

SOURCE_KINDS: tuple[type[meta.ApiObject], ...] = (
    cluster.Cluster,
    policy.PropagationPolicy,
    policy.ClusterPropagationPolicy,
    policy.OverridePolicy,
    policy.ClusterOverridePolicy,
    policy.ClusterTaintPolicy,
    config.ResourceInterpreterCustomization,
    autoscaling.FederatedHPA,
)
