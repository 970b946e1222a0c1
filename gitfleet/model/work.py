"""work.karmada.io/v1alpha2 ResourceBinding and ClusterResourceBinding
(Karmada: pkg/apis/work/v1alpha2/binding_types.go).

A binding ties one resource template to its placement and records the schedule result. gitfleet
writes them under `bindings/` of the rendered branch, where the next render reads the previous
result back (Karmada keeps the same state in etcd).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any

from gitfleet.model import meta, policy
from gitfleet.model._codec import field
from gitfleet.model.origin import Origin

API_VERSION = "work.karmada.io/v1alpha2"


class ResourceHealth(enum.StrEnum):
    HEALTHY = "Healthy"
    UNHEALTHY = "Unhealthy"
    UNKNOWN = "Unknown"


@meta.frozen
class ObjectReference:
    """The template a binding is for."""

    api_version: str = field()
    kind: str = field()
    namespace: str = field("")
    name: str = field()
    uid: str = field("")
    resource_version: str = field("")


@meta.frozen
class NodeClaim:
    """Node constraints of one replica."""

    hard_node_affinity: meta.NodeSelector | None = field(None)
    node_selector: dict[str, str] | None = field(None)
    tolerations: tuple[meta.Toleration, ...] = field(())


@meta.frozen
class ReplicaRequirements:
    """What one replica needs; the estimator divides capacity by it."""

    node_claim: NodeClaim | None = field(None)
    resource_request: dict[str, meta.Quantity] | None = field(None)
    namespace: str = field("")
    priority_class_name: str = field("")


@meta.frozen
class ComponentReplicaRequirements:
    """What one replica of a component needs."""

    node_claim: NodeClaim | None = field(None)
    resource_request: dict[str, meta.Quantity] | None = field(None)
    priority_class_name: str = field("")


@meta.frozen
class Component:
    """One pod template of a multi-template workload."""

    name: str = field()
    replicas: int = field()
    replica_requirements: ComponentReplicaRequirements | None = field(None)


@meta.frozen
class TargetComponent:
    """Replicas of one component on a cluster."""

    name: str = field()
    replicas: int = field()


@meta.frozen
class TargetCluster:
    """One cluster of the schedule result."""

    name: str = field()
    replicas: int = field(0)
    components: tuple[TargetComponent, ...] = field(())


@meta.frozen
class GracefulEvictionTask:
    """A cluster being left that keeps its workload until the replacement is healthy."""

    from_cluster: str = field()
    purge_mode: policy.PurgeMode | None = field(None)
    replicas: int | None = field(None)
    reason: str = field()
    message: str = field("")
    producer: str = field()
    grace_period_seconds: int | None = field(None)
    suppress_deletion: bool | None = field(None)
    preserved_label_state: dict[str, str] | None = field(None)
    creation_timestamp: str | None = field(None)
    clusters_before_failover: tuple[str, ...] = field(())


@meta.frozen
class BindingSnapshot:
    """A binding that requires this one (for dependencies)."""

    namespace: str = field("")
    name: str = field()
    clusters: tuple[TargetCluster, ...] = field(())


@meta.frozen
class BindingSuspension(policy.Suspension):
    """Suspension copied from the policy, plus scheduling."""

    scheduling: bool | None = field(None)


@meta.frozen
class BindingSchedulePriority:
    """The binding's resolved scheduling priority."""

    priority: int = field(0)


@meta.frozen
class WorkloadAffinityGroups:
    """Resolved workload affinity groups."""

    affinity_group: str = field("")
    anti_affinity_group: str = field("")


@meta.frozen
class ResourceBindingSpec:
    """The template, what it needs, where it may go, and where it went."""

    resource: ObjectReference = field()
    propagate_deps: bool = field(False)
    replica_requirements: ReplicaRequirements | None = field(None)
    replicas: int = field(0)
    components: tuple[Component, ...] = field(())
    clusters: tuple[TargetCluster, ...] = field((), doc="The schedule result.")
    placement: policy.Placement | None = field(None)
    graceful_eviction_tasks: tuple[GracefulEvictionTask, ...] = field(())
    required_by: tuple[BindingSnapshot, ...] = field(())
    scheduler_name: str = field("")
    failover: policy.FailoverBehavior | None = field(None)
    conflict_resolution: policy.ConflictResolution | None = field(None)
    reschedule_triggered_at: str | None = field(None)
    suspension: BindingSuspension | None = field(None)
    preserve_resources_on_deletion: bool | None = field(None)
    schedule_priority: BindingSchedulePriority | None = field(None)
    workload_affinity_groups: WorkloadAffinityGroups | None = field(None)

    def dispatching_suspended(self, clusters: Iterable[str]) -> tuple[str, ...]:
        """Of `clusters`, those whose Work the suspension leaves as it was."""
        held = self.suspension
        return tuple(c for c in clusters if held is not None and held.suspends_dispatching_to(c))


@meta.frozen
class AggregatedStatusItem:
    """The status of the resource on one cluster."""

    cluster_name: str = field()
    status: Any = field(None)
    applied: bool = field(False)
    applied_message: str = field("")
    health: ResourceHealth | None = field(None)


@meta.frozen
class ResourceBindingStatus:
    """Scheduling conditions and per-cluster status."""

    scheduler_observed_generation: int = field(0)
    scheduler_observed_affinity_name: str = field("", json="schedulerObservingAffinityName")
    last_scheduled_time: str | None = field(None)
    conditions: tuple[meta.Condition, ...] = field(())
    aggregated_status: tuple[AggregatedStatusItem, ...] = field(())


@meta.frozen
class ResourceBinding(meta.ApiObject):
    """Binding of a namespaced template."""

    API_VERSION = API_VERSION
    KIND = "ResourceBinding"
    NAMESPACED = True
    metadata: meta.ObjectMeta = field()
    spec: ResourceBindingSpec = field()
    status: ResourceBindingStatus = field(ResourceBindingStatus())
    origin: Origin = meta.origin_field()


@meta.frozen
class ClusterResourceBinding(meta.ApiObject):
    """Binding of a cluster-scoped template."""

    API_VERSION = API_VERSION
    KIND = "ClusterResourceBinding"
    metadata: meta.ObjectMeta = field()
    spec: ResourceBindingSpec = field()
    status: ResourceBindingStatus = field(ResourceBindingStatus())
    origin: Origin = meta.origin_field()


def binding_name(name: str, kind: str) -> str:
    """Karmada's binding name: lowercase `<name>-<kind>`, `:` replaced by `.`
    (pkg/util/names/names.go GenerateBindingName)."""
    return f"{name}-{kind}".lower().replace(":", ".")


def evicting_clusters(spec: ResourceBindingSpec) -> tuple[str, ...]:
    """The clusters that keep the binding's Work while a graceful eviction task lasts: each
    task's cluster that is not in the result, unless the task purges it Directly (Karmada:
    pkg/util/helper/binding.go ObtainBindingSpecExistingClusters)."""
    if not spec.graceful_eviction_tasks:
        return ()  # asked of every binding at every render: most have no task
    placed = {t.name for t in spec.clusters}
    return tuple(
        sorted(
            {
                task.from_cluster
                for task in spec.graceful_eviction_tasks
                if task.purge_mode is not policy.PurgeMode.DIRECTLY
                and task.from_cluster not in placed
            }
        )
    )
