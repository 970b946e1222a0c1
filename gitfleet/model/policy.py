"""policy.karmada.io/v1alpha1: PropagationPolicy, ClusterPropagationPolicy, OverridePolicy,
ClusterOverridePolicy (Karmada: pkg/apis/policy/v1alpha1/{propagation,override}_types.go).

Fields are exactly Karmada's, with Karmada's optionality; defaults that Karmada's webhooks fill
in are applied by the stages that use them, so a policy re-encodes to what the user wrote.
"""

from __future__ import annotations

import enum
from typing import Any

from gitfleet.model import meta
from gitfleet.model._codec import field
from gitfleet.model.origin import Origin

API_VERSION = "policy.karmada.io/v1alpha1"


class ReplicaSchedulingType(enum.StrEnum):
    DUPLICATED = "Duplicated"
    DIVIDED = "Divided"


class ReplicaDivisionPreference(enum.StrEnum):
    AGGREGATED = "Aggregated"
    WEIGHTED = "Weighted"


class DynamicWeightFactor(enum.StrEnum):
    AVAILABLE_REPLICAS = "AvailableReplicas"


class SpreadFieldValue(enum.StrEnum):
    CLUSTER = "cluster"
    REGION = "region"
    ZONE = "zone"
    PROVIDER = "provider"


class PreemptionBehavior(enum.StrEnum):
    ALWAYS = "Always"
    NEVER = "Never"


class ConflictResolution(enum.StrEnum):
    ABORT = "Abort"
    OVERWRITE = "Overwrite"


class ActivationPreference(enum.StrEnum):
    LAZY = "Lazy"


class PurgeMode(enum.StrEnum):
    DIRECTLY = "Directly"
    GRACEFULLY = "Gracefully"
    NEVER = "Never"


class OverriderOperator(enum.StrEnum):
    ADD = "add"
    REMOVE = "remove"
    REPLACE = "replace"


class ImageComponent(enum.StrEnum):
    REGISTRY = "Registry"
    REPOSITORY = "Repository"
    TAG = "Tag"


@meta.frozen
class ResourceSelector:
    """Selects resource templates; every set part must match."""

    api_version: str = field(doc="apiVersion of the target resources.")
    kind: str = field(doc="Kind of the target resources.")
    namespace: str = field(
        "", doc="Namespace of the target resources; empty is any (or the policy's own)."
    )
    name: str = field("", doc="Name of the target resource; when set, labelSelector is ignored.")
    label_selector: meta.LabelSelector | None = field(None)


@meta.frozen
class FieldSelector:
    """Cluster fields to match: keys provider, region or zone; operators In or NotIn."""

    match_expressions: tuple[meta.NodeSelectorRequirement, ...] = field(())


@meta.frozen
class ClusterAffinity:
    """Which clusters qualify; all set parts must match and `exclude` wins over everything."""

    label_selector: meta.LabelSelector | None = field(None)
    field_selector: FieldSelector | None = field(None)
    cluster_names: tuple[str, ...] = field((), doc="Clusters that qualify by name.")
    exclude: tuple[str, ...] = field((), doc="Clusters that never qualify.")


@meta.frozen
class OverflowClusterAffinity(ClusterAffinity):
    """A cluster group used when the term's own clusters lack capacity."""

    affinity_name: str = field()


@meta.frozen
class ClusterAffinityTerm(ClusterAffinity):
    """One group of `clusterAffinities`, tried in order."""

    affinity_name: str = field(doc="Unique name of this group.")
    overflow_affinities: tuple[OverflowClusterAffinity, ...] = field(())


@meta.frozen
class SpreadConstraint:
    """Spread over groups of clusters (by a field or a label), between min and max groups."""

    spread_by_field: SpreadFieldValue | None = field(None)
    spread_by_label: str = field("")
    max_groups: int = field(0)
    min_groups: int = field(0)


@meta.frozen
class StaticClusterWeight:
    """A weight for the clusters an affinity selects."""

    target_cluster: ClusterAffinity = field()
    weight: int = field(doc="Weight, at least 1.")


@meta.frozen
class ClusterPreferences:
    """How Divided replicas are weighted: a static list, or dynamically by available replicas."""

    static_weight_list: tuple[StaticClusterWeight, ...] = field(())
    dynamic_weight: DynamicWeightFactor | None = field(None)


@meta.frozen
class ReplicaSchedulingStrategy:
    """Duplicated (every cluster runs spec.replicas) or Divided among clusters."""

    replica_scheduling_type: ReplicaSchedulingType | None = field(None)
    replica_division_preference: ReplicaDivisionPreference | None = field(None)
    weight_preference: ClusterPreferences | None = field(None)


@meta.frozen
class WorkloadAffinityTerm:
    """Workloads sharing this label's value go together."""

    group_by_label_key: str = field()


@meta.frozen
class WorkloadAffinity:
    """Affinity between workloads (alpha in Karmada)."""

    affinity: WorkloadAffinityTerm | None = field(None)
    anti_affinity: WorkloadAffinityTerm | None = field(None)


@meta.frozen
class Placement:
    """Where a resource may go and how its replicas are divided."""

    cluster_affinity: ClusterAffinity | None = field(None)
    cluster_affinities: tuple[ClusterAffinityTerm, ...] = field(())
    cluster_tolerations: tuple[meta.Toleration, ...] = field(())
    spread_constraints: tuple[SpreadConstraint, ...] = field(())
    replica_scheduling: ReplicaSchedulingStrategy | None = field(None)
    workload_affinity: WorkloadAffinity | None = field(None)


@meta.frozen
class DecisionConditions:
    """When an application failover is decided."""

    toleration_seconds: int | None = field(None)


@meta.frozen
class StatePreservationRule:
    """A value carried from the failed cluster to the new one, as a label."""

    alias_label_name: str = field()
    json_path: str = field()


@meta.frozen
class StatePreservation:
    """Values preserved across a failover."""

    rules: tuple[StatePreservationRule, ...] = field()


@meta.frozen
class ApplicationFailoverBehavior:
    """Failover of an application that is unhealthy on a cluster."""

    decision_conditions: DecisionConditions = field()
    purge_mode: PurgeMode | None = field(None)
    grace_period_seconds: int | None = field(None)
    state_preservation: StatePreservation | None = field(None)


@meta.frozen
class ClusterFailoverBehavior:
    """Failover when a whole cluster fails."""

    purge_mode: PurgeMode | None = field(None)
    state_preservation: StatePreservation | None = field(None)


@meta.frozen
class FailoverBehavior:
    """Failover settings."""

    application: ApplicationFailoverBehavior | None = field(None)
    cluster: ClusterFailoverBehavior | None = field(None)


@meta.frozen
class SuspendClusters:
    """Clusters to which dispatching is suspended."""

    cluster_names: tuple[str, ...] = field(())


@meta.frozen
class Suspension:
    """Stop dispatching to all or some clusters."""

    dispatching: bool | None = field(None)
    dispatching_on_clusters: SuspendClusters | None = field(None)


@meta.frozen
class SchedulePriority:
    """Scheduling priority of the bindings a policy makes."""

    priority_class_source: str = field()
    priority_class_name: str = field()


@meta.frozen
class PropagationSpec:
    """What a (Cluster)PropagationPolicy selects and where it places it."""

    resource_selectors: tuple[ResourceSelector, ...] = field(doc="At least one selector.")
    association: bool = field(False)
    propagate_deps: bool = field(False, doc="Dependencies follow the workload's placement.")
    placement: Placement = field(Placement())
    priority: int | None = field(None, doc="Explicit priority; higher wins (default 0).")
    preemption: PreemptionBehavior | None = field(None)
    dependent_overrides: tuple[str, ...] = field(())
    scheduler_name: str = field("")
    failover: FailoverBehavior | None = field(None)
    conflict_resolution: ConflictResolution | None = field(None)
    activation_preference: ActivationPreference | None = field(None)
    suspension: Suspension | None = field(None)
    preserve_resources_on_deletion: bool | None = field(None)
    schedule_priority: SchedulePriority | None = field(None)


@meta.frozen
class PropagationPolicy(meta.ApiObject):
    """Places resources of its own namespace."""

    API_VERSION = API_VERSION
    KIND = "PropagationPolicy"
    NAMESPACED = True
    metadata: meta.ObjectMeta = field()
    spec: PropagationSpec = field()
    origin: Origin = meta.origin_field()


@meta.frozen
class ClusterPropagationPolicy(meta.ApiObject):
    """Places resources of any namespace and cluster-scoped resources."""

    API_VERSION = API_VERSION
    KIND = "ClusterPropagationPolicy"
    metadata: meta.ObjectMeta = field()
    spec: PropagationSpec = field()
    origin: Origin = meta.origin_field()


@meta.frozen
class PlaintextOverrider:
    """A raw JSON patch operation."""

    path: str = field(doc="JSON pointer to the field.")
    operator: OverriderOperator = field()
    value: Any = field(None)


@meta.frozen
class ImagePredicate:
    """Which image field to override."""

    path: str = field()


@meta.frozen
class ImageOverrider:
    """Changes one component of container images."""

    predicate: ImagePredicate | None = field(None)
    component: ImageComponent = field()
    operator: OverriderOperator = field()
    value: str = field("")


@meta.frozen
class CommandArgsOverrider:
    """Adds to or removes from a container's command or args."""

    container_name: str = field()
    operator: OverriderOperator = field()
    value: tuple[str, ...] = field(())


@meta.frozen
class LabelAnnotationOverrider:
    """Adds, removes or replaces labels or annotations."""

    operator: OverriderOperator = field()
    value: dict[str, str] | None = field(None)


@meta.frozen
class PatchOperation:
    """One operation inside a JSON or YAML document held in a string field."""

    sub_path: str = field()
    operator: OverriderOperator = field()
    value: Any = field(None)


@meta.frozen
class FieldOverrider:
    """Patches a JSON or YAML document held in a string field (e.g. a ConfigMap key)."""

    field_path: str = field()
    json: tuple[PatchOperation, ...] = field(())
    yaml: tuple[PatchOperation, ...] = field(())


@meta.frozen
class Overriders:
    """The overriders of one rule, applied in Karmada's fixed order."""

    plaintext: tuple[PlaintextOverrider, ...] = field(())
    image_overrider: tuple[ImageOverrider, ...] = field(())
    command_overrider: tuple[CommandArgsOverrider, ...] = field(())
    args_overrider: tuple[CommandArgsOverrider, ...] = field(())
    labels_overrider: tuple[LabelAnnotationOverrider, ...] = field(())
    annotations_overrider: tuple[LabelAnnotationOverrider, ...] = field(())
    field_overrider: tuple[FieldOverrider, ...] = field(())


@meta.frozen
class RuleWithCluster:
    """Overriders for the clusters an affinity selects (all clusters when absent)."""

    target_cluster: ClusterAffinity | None = field(None)
    overriders: Overriders = field()


@meta.frozen
class OverrideSpec:
    """What an (Cluster)OverridePolicy selects and how it changes it per cluster."""

    resource_selectors: tuple[ResourceSelector, ...] = field(())
    override_rules: tuple[RuleWithCluster, ...] = field(())
    target_cluster: ClusterAffinity | None = field(None, doc="Deprecated: use overrideRules.")
    overriders: Overriders = field(Overriders(), doc="Deprecated: use overrideRules.")


@meta.frozen
class OverridePolicy(meta.ApiObject):
    """Per-cluster changes to resources of its own namespace."""

    API_VERSION = API_VERSION
    KIND = "OverridePolicy"
    NAMESPACED = True
    metadata: meta.ObjectMeta = field()
    spec: OverrideSpec = field()
    origin: Origin = meta.origin_field()


@meta.frozen
class ClusterOverridePolicy(meta.ApiObject):
    """Per-cluster changes to resources of any namespace."""

    API_VERSION = API_VERSION
    KIND = "ClusterOverridePolicy"
    metadata: meta.ObjectMeta = field()
    spec: OverrideSpec = field()
    origin: Origin = meta.origin_field()
