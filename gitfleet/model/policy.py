"""policy.karmada.io/v1alpha1: PropagationPolicy, ClusterPropagationPolicy, OverridePolicy,
ClusterOverridePolicy, ClusterTaintPolicy (Karmada:
pkg/apis/policy/v1alpha1/{propagation,override,clustertaint}_types.go).

Fields are exactly Karmada's, with Karmada's optionality; defaults that Karmada's webhooks fill
in are applied by the stages that use them, so a policy re-encodes to what the user wrote.
"""

from __future__ import annotations

import enum
from typing import Any

from gitfleet.model import meta, rules
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


class MatchConditionOperator(enum.StrEnum):
    """How a ClusterTaintPolicy tests a cluster condition's status (Karmada accepts any
    string there; the others never match)."""

    IN = "In"
    NOT_IN = "NotIn"


class PriorityClassSource(enum.StrEnum):
    KUBE_PRIORITY_CLASS = "KubePriorityClass"


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
    label_selector: meta.LabelSelector | None = field(
        None, doc="Labels the resources must have; ignored when name is set."
    )


@meta.frozen
class FieldSelector:
    """Cluster fields to match: keys provider, region or zone; operators In or NotIn."""

    match_expressions: tuple[meta.NodeSelectorRequirement, ...] = field(
        (), doc="Expressions on provider, region or zone, with In or NotIn."
    )


@meta.frozen
class ClusterAffinity:
    """Which clusters qualify; all set parts must match and `exclude` wins over everything."""

    label_selector: meta.LabelSelector | None = field(None, doc="Labels the clusters must have.")
    field_selector: FieldSelector | None = field(
        None, doc="Provider, region or zone the clusters must have."
    )
    cluster_names: tuple[str, ...] = field((), doc="Clusters that qualify by name.")
    exclude: tuple[str, ...] = field((), doc="Clusters that never qualify.")


@meta.frozen
class OverflowClusterAffinity(ClusterAffinity):
    """A cluster group used when the term's own clusters lack capacity."""

    affinity_name: str = field(doc="Unique name of this overflow group.")


@meta.frozen
class ClusterAffinityTerm(ClusterAffinity):
    """One group of `clusterAffinities`, tried in order."""

    affinity_name: str = field(doc="Unique name of this group.")
    overflow_affinities: tuple[OverflowClusterAffinity, ...] = field(
        (),
        doc="Groups tried in order when this one lacks capacity (dynamic weight or Aggregated).",
    )


@meta.frozen
class SpreadConstraint:
    """Spread over groups of clusters (by a field or a label), between min and max groups."""

    spread_by_field: SpreadFieldValue | None = field(
        None, doc="Group clusters by this field: cluster, region, zone or provider."
    )
    spread_by_label: str = field("", doc="Group clusters by this label (not with spreadByField).")
    max_groups: int = field(0, doc="Most groups to select.", rule=rules.Rule(minimum=0))
    min_groups: int = field(
        0, doc="Fewest groups to select (at least 1).", rule=rules.Rule(minimum=0)
    )


@meta.frozen
class StaticClusterWeight:
    """A weight for the clusters an affinity selects."""

    target_cluster: ClusterAffinity = field(doc="The clusters this weight applies to.")
    weight: int = field(doc="Weight, at least 1.", rule=rules.Rule(minimum=1))


@meta.frozen
class ClusterPreferences:
    """How Divided replicas are weighted: a static list, or dynamically by available replicas."""

    static_weight_list: tuple[StaticClusterWeight, ...] = field(
        (), doc="Fixed weights per group of clusters."
    )
    dynamic_weight: DynamicWeightFactor | None = field(
        None, doc="Weigh clusters by a live measure instead (AvailableReplicas)."
    )


@meta.frozen
class ReplicaSchedulingStrategy:
    """Duplicated (every cluster runs spec.replicas) or Divided among clusters."""

    replica_scheduling_type: ReplicaSchedulingType | None = field(
        None,
        doc="Duplicated (each cluster runs all replicas) or Divided (the default here).",
    )
    replica_division_preference: ReplicaDivisionPreference | None = field(
        None, doc="How Divided replicas are split: Aggregated (fewest clusters) or Weighted."
    )
    weight_preference: ClusterPreferences | None = field(None, doc="Weights for Weighted division.")


@meta.frozen
class WorkloadAffinityTerm:
    """Workloads sharing this label's value go together."""

    group_by_label_key: str = field(doc="Label whose value groups workloads.")


@meta.frozen
class WorkloadAffinity:
    """Affinity between workloads (alpha in Karmada)."""

    affinity: WorkloadAffinityTerm | None = field(None, doc="Keep workloads of a group together.")
    anti_affinity: WorkloadAffinityTerm | None = field(None, doc="Keep workloads of a group apart.")


@meta.frozen
class Placement:
    """Where a resource may go and how its replicas are divided."""

    cluster_affinity: ClusterAffinity | None = field(
        None, doc="Which clusters qualify (not with clusterAffinities)."
    )
    cluster_affinities: tuple[ClusterAffinityTerm, ...] = field(
        (), doc="Groups of clusters tried in order until one can take the resource."
    )
    cluster_tolerations: tuple[meta.Toleration, ...] = field(
        (), doc="Cluster taints the resource tolerates."
    )
    spread_constraints: tuple[SpreadConstraint, ...] = field(
        (), doc="How many clusters, regions, zones or providers to spread over."
    )
    replica_scheduling: ReplicaSchedulingStrategy | None = field(
        None, doc="How replicas are scheduled; Duplicated when absent."
    )
    workload_affinity: WorkloadAffinity | None = field(
        None, doc="Affinity between workloads (not supported by gitfleet yet)."
    )


@meta.frozen
class DecisionConditions:
    """When an application failover is decided."""

    toleration_seconds: int | None = field(
        None,
        doc="How long an unhealthy application is tolerated before failover (default 300).",
        rule=rules.Rule(minimum=0),
    )


@meta.frozen
class StatePreservationRule:
    """A value carried from the failed cluster to the new one, as a label."""

    alias_label_name: str = field(doc="Label that carries the value to the new cluster.")
    json_path: str = field(doc="JSONPath of the value in the resource's status.")


@meta.frozen
class StatePreservation:
    """Values preserved across a failover."""

    rules: tuple[StatePreservationRule, ...] = field(doc="Values to carry over.")


@meta.frozen
class ApplicationFailoverBehavior:
    """Failover of an application that is unhealthy on a cluster."""

    decision_conditions: DecisionConditions = field(doc="When to fail over.")
    purge_mode: PurgeMode | None = field(
        None, doc="How the old cluster's copy is removed: Directly, Gracefully (default) or Never."
    )
    grace_period_seconds: int | None = field(
        None, doc="How long Gracefully waits (default 600).", rule=rules.Rule(minimum=1)
    )
    state_preservation: StatePreservation | None = field(
        None, doc="Values preserved across the failover."
    )


@meta.frozen
class ClusterFailoverBehavior:
    """Failover when a whole cluster fails."""

    purge_mode: PurgeMode | None = field(
        None,
        doc="How the failed cluster's copy is removed: Directly or Gracefully.",
        rule=rules.Rule(one_of=(PurgeMode.DIRECTLY, PurgeMode.GRACEFULLY)),
    )
    state_preservation: StatePreservation | None = field(
        None, doc="Values preserved across the failover."
    )


@meta.frozen
class FailoverBehavior:
    """Failover settings."""

    application: ApplicationFailoverBehavior | None = field(
        None, doc="Failover of unhealthy applications (not supported by gitfleet yet)."
    )
    cluster: ClusterFailoverBehavior | None = field(None, doc="Failover when a cluster fails.")


@meta.frozen
class SuspendClusters:
    """Clusters to which dispatching is suspended."""

    cluster_names: tuple[str, ...] = field((), doc="Clusters dispatching is suspended for.")


@meta.frozen
class Suspension:
    """Stop dispatching to all or some clusters."""

    dispatching: bool | None = field(None, doc="Suspend dispatching to every cluster.")
    dispatching_on_clusters: SuspendClusters | None = field(
        None, doc="Suspend dispatching to some clusters."
    )

    def suspends_dispatching_to(self, cluster: str) -> bool:
        """Whether the cluster's Work is left as it was (Karmada: shouldSuspendDispatching)."""
        if self.dispatching:
            return True
        on = self.dispatching_on_clusters
        return on is not None and cluster in on.cluster_names


@meta.frozen
class SchedulePriority:
    """Scheduling priority of the bindings a policy makes."""

    priority_class_source: PriorityClassSource = field(
        doc="Where the priority class comes from (KubePriorityClass)."
    )
    priority_class_name: str = field(doc="Name of the priority class.")


@meta.frozen
class PropagationSpec:
    """What a (Cluster)PropagationPolicy selects and where it places it."""

    resource_selectors: tuple[ResourceSelector, ...] = field(
        doc="At least one selector.", rule=rules.Rule(min_items=1)
    )
    association: bool = field(False, doc="Deprecated: use propagateDeps.")
    propagate_deps: bool = field(False, doc="Dependencies follow the workload's placement.")
    placement: Placement = field(Placement(), doc="Where the resources go.")
    priority: int | None = field(None, doc="Explicit priority; higher wins (default 0).")
    preemption: PreemptionBehavior | None = field(
        None, doc="Always: take resources from lower-priority policies; Never (default)."
    )
    dependent_overrides: tuple[str, ...] = field(
        (),
        doc="Override policies that must exist before the resources are propagated.",
    )
    scheduler_name: str = field("", doc="Scheduler that places the resources.")
    failover: FailoverBehavior | None = field(None, doc="Failover behaviour.")
    conflict_resolution: ConflictResolution | None = field(
        None, doc="Abort (default) or Overwrite when a resource already exists in a cluster."
    )
    activation_preference: ActivationPreference | None = field(
        None,
        doc="Lazy: a policy change reaches a resource only when the resource itself changes.",
    )
    suspension: Suspension | None = field(None, doc="Stop dispatching to all or some clusters.")
    preserve_resources_on_deletion: bool | None = field(
        None, doc="Keep the resources in the clusters when their template is deleted."
    )
    schedule_priority: SchedulePriority | None = field(
        None, doc="Scheduling priority, from a PriorityClass; it never changes a placement."
    )


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
    operator: OverriderOperator = field(doc="add, remove or replace.")
    value: Any = field(None, doc="The value for add and replace.")


@meta.frozen
class ImagePredicate:
    """Which image field to override."""

    path: str = field(doc="JSON pointer to the image field.")


@meta.frozen
class ImageOverrider:
    """Changes one component of container images."""

    predicate: ImagePredicate | None = field(
        None, doc="Which image to change; every container image when absent."
    )
    component: ImageComponent = field(doc="Registry, Repository or Tag.")
    operator: OverriderOperator = field(doc="add, remove or replace.")
    value: str = field("", doc="The value for add and replace.")


@meta.frozen
class CommandArgsOverrider:
    """Adds to or removes from a container's command or args."""

    container_name: str = field(doc="The container to change.")
    operator: OverriderOperator = field(
        doc="add or remove.",
        rule=rules.Rule(one_of=(OverriderOperator.ADD, OverriderOperator.REMOVE)),
    )
    value: tuple[str, ...] = field((), doc="Items to add or remove.")


@meta.frozen
class LabelAnnotationOverrider:
    """Adds, removes or replaces labels or annotations."""

    operator: OverriderOperator = field(doc="add, remove or replace.")
    value: dict[str, str] = field(doc="Keys and values (required, also to remove).")


@meta.frozen
class PatchOperation:
    """One operation inside a JSON or YAML document held in a string field."""

    sub_path: str = field(doc="JSON pointer inside the embedded document.")
    operator: OverriderOperator = field(doc="add, remove or replace.")
    value: Any = field(None, doc="The value for add and replace.")


@meta.frozen
class FieldOverrider:
    """Patches a JSON or YAML document held in a string field (e.g. a ConfigMap key)."""

    field_path: str = field(doc="JSON pointer to a string field holding a JSON or YAML document.")
    json: tuple[PatchOperation, ...] = field((), doc="Operations when the field holds JSON.")
    yaml: tuple[PatchOperation, ...] = field((), doc="Operations when the field holds YAML.")


@meta.frozen
class Overriders:
    """The overriders of one rule, applied in Karmada's fixed order."""

    plaintext: tuple[PlaintextOverrider, ...] = field((), doc="Raw JSON patch operations.")
    image_overrider: tuple[ImageOverrider, ...] = field((), doc="Changes to container images.")
    command_overrider: tuple[CommandArgsOverrider, ...] = field(
        (), doc="Changes to container commands."
    )
    args_overrider: tuple[CommandArgsOverrider, ...] = field(
        (), doc="Changes to container arguments."
    )
    labels_overrider: tuple[LabelAnnotationOverrider, ...] = field((), doc="Changes to labels.")
    annotations_overrider: tuple[LabelAnnotationOverrider, ...] = field(
        (), doc="Changes to annotations."
    )
    field_overrider: tuple[FieldOverrider, ...] = field(
        (), doc="Changes inside JSON or YAML held in string fields."
    )


@meta.frozen
class RuleWithCluster:
    """Overriders for the clusters an affinity selects (all clusters when absent)."""

    target_cluster: ClusterAffinity | None = field(
        None, doc="The clusters this rule applies to; all when absent."
    )
    overriders: Overriders = field(doc="The changes.")


@meta.frozen
class OverrideSpec:
    """What an (Cluster)OverridePolicy selects and how it changes it per cluster."""

    resource_selectors: tuple[ResourceSelector, ...] = field(
        (), doc="Resources to change; all when empty."
    )
    override_rules: tuple[RuleWithCluster, ...] = field((), doc="Changes per group of clusters.")
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


@meta.frozen
class MatchCondition:
    """A test of one cluster condition: its status is (In) or is not (NotIn) one of the values."""

    condition_type: str = field(doc="The cluster condition's type, such as Ready.")
    operator: str = field(doc="In or NotIn; with any other the condition never matches.")
    status_values: tuple[str, ...] = field(doc="Condition statuses: True, False or Unknown.")


@meta.frozen
class PolicyTaint:
    """A taint a ClusterTaintPolicy adds to or removes from a cluster (by key and effect)."""

    key: str = field(doc="Taint key.")
    effect: str = field(
        doc="NoSchedule or NoExecute (a Cluster takes no other).",
        rule=rules.Rule(one_of=("NoSchedule", "NoExecute")),
    )
    value: str = field("", doc="Taint value.")


@meta.frozen
class ClusterTaintPolicySpec:
    """Which clusters, when to add the taints, when to remove them, and the taints."""

    target_clusters: ClusterAffinity | None = field(
        None, doc="The clusters the policy looks at; every cluster when absent."
    )
    add_on_conditions: tuple[MatchCondition, ...] = field(
        (), doc="All must match for the taints to be added; never added when empty."
    )
    remove_on_conditions: tuple[MatchCondition, ...] = field(
        (), doc="All must match for the taints to be removed; never removed when empty."
    )
    taints: tuple[PolicyTaint, ...] = field(
        doc="The taints added or removed.", rule=rules.Rule(min_items=1)
    )


@meta.frozen
class ClusterTaintPolicy(meta.ApiObject):
    """Taints clusters by their conditions (`gitfleet.taintpolicy`)."""

    API_VERSION = API_VERSION
    KIND = "ClusterTaintPolicy"
    metadata: meta.ObjectMeta = field()
    spec: ClusterTaintPolicySpec = field()
    origin: Origin = meta.origin_field()
