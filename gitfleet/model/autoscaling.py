"""autoscaling.karmada.io/v1alpha1 FederatedHPA (Karmada:
pkg/apis/autoscaling/v1alpha1/federatedhpa_types.go), whose spec is Kubernetes' autoscaling/v2
HorizontalPodAutoscalerSpec: a target, replica bounds, metrics and scaling behaviour.

Field rules that hold for one value (bounds, allowed values) are declared here; the rules that
relate fields (a metric source matching its type, a target with one kind of value, the bounds
of windows and periods) are `gitfleet.validation`'s, and the defaults Karmada's mutating
webhook fills in are `gitfleet.autoscaling`'s.
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import meta, rules
from gitfleet.model._codec import field
from gitfleet.model.origin import Origin

API_VERSION = "autoscaling.karmada.io/v1alpha1"
METRIC_TYPES = ("Object", "Pods", "Resource", "ContainerResource")
"""The metric types Karmada's webhook takes: not External, which Kubernetes' HPA has."""
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
SELECT_POLICIES = ("Max", "Min", "Disabled")
POLICY_TYPES = ("Pods", "Percent")


@meta.frozen
class CrossVersionObjectReference:
    """The resource template whose replicas are scaled."""

    kind: str = field(doc="Kind of the template, such as Deployment.")
    name: str = field(doc="Name of the template, in the FederatedHPA's namespace.")
    api_version: str = field("", doc="apiVersion of the template.")


@meta.frozen
class MetricTarget:
    """The value a metric is kept at."""

    type: str = field(
        doc="Utilization, Value or AverageValue.", rule=rules.Rule(one_of=TARGET_TYPES)
    )
    value: meta.Quantity | None = field(None, doc="Target value of the metric (Value).")
    average_value: meta.Quantity | None = field(
        None, doc="Target value of the metric averaged over the pods (AverageValue)."
    )
    average_utilization: int | None = field(
        None, doc="Target usage in percent of the pods' requests (Utilization)."
    )


@meta.frozen
class ResourceMetricSource:
    """A resource (cpu, memory) of the target's pods, from the metrics API."""

    name: str = field(doc="The resource: cpu or memory.")
    target: MetricTarget = field(doc="The value to keep it at.")


@meta.frozen
class ContainerResourceMetricSource:
    """A resource of one container of the target's pods."""

    name: str = field(doc="The resource: cpu or memory.")
    container: str = field(doc="The container's name.")
    target: MetricTarget = field(doc="The value to keep it at.")


@meta.frozen
class MetricSpec:
    """One metric to scale on; its `type` names the one source that is set."""

    type: str = field(
        doc="Resource, ContainerResource, Pods or Object (Karmada takes no External).",
        rule=rules.Rule(one_of=METRIC_TYPES),
    )
    resource: ResourceMetricSource | None = field(None, doc="A resource of the pods.")
    container_resource: ContainerResourceMetricSource | None = field(
        None, doc="A resource of one container of the pods."
    )
    pods: Any = field(None, doc="A custom metric of the pods (not read by gitfleet yet).")
    object: Any = field(None, doc="A metric of another object (not read by gitfleet yet).")
    external: Any = field(None, doc="A metric from outside the cluster (not read by gitfleet).")


@meta.frozen
class ScalingPolicy:
    """How much may change within a period."""

    type: str = field(doc="Pods or Percent.", rule=rules.Rule(one_of=POLICY_TYPES))
    value: int = field(
        doc="Pods, or percent of the replicas, per period.", rule=rules.Rule(minimum=1)
    )
    period_seconds: int = field(
        doc="The period the change is counted over (1 to 1800).", rule=rules.Rule(minimum=1)
    )


@meta.frozen
class ScalingRules:
    """The behaviour of one direction of scaling."""

    stabilization_window_seconds: int | None = field(
        None,
        doc="Past recommendations considered (0 to 3600 seconds).",
        rule=rules.Rule(minimum=0),
    )
    select_policy: str | None = field(
        None, doc="Max, Min or Disabled.", rule=rules.Rule(one_of=SELECT_POLICIES)
    )
    policies: tuple[ScalingPolicy, ...] = field(
        (),
        doc="Limits on the change per period; Kubernetes' when left out, never none.",
        rule=rules.Rule(min_items=1),
    )
    tolerance: meta.Quantity | None = field(
        None,
        doc="Not read, as Karmada's controller does not read it: both directions scale with"
        " the fleet-wide tolerance (autoscaling.tolerance in gitfleet.yaml, 0.1).",
    )


@meta.frozen
class Behavior:
    """Scaling behaviour up and down; a direction left out gets Kubernetes' defaults."""

    scale_up: ScalingRules | None = field(None, doc="Rules for scaling up.")
    scale_down: ScalingRules | None = field(None, doc="Rules for scaling down.")


@meta.frozen
class FederatedHPASpec:
    """What to scale, between which bounds, on which metrics, how fast."""

    scale_target_ref: CrossVersionObjectReference = field(doc="The template scaled.")
    min_replicas: int | None = field(
        None, doc="Fewest replicas (default 1).", rule=rules.Rule(minimum=1)
    )
    max_replicas: int = field(doc="Most replicas.", rule=rules.Rule(minimum=1))
    metrics: tuple[MetricSpec, ...] = field(
        (), doc="Metrics to scale on (default: cpu at 80% of requests)."
    )
    behavior: Behavior | None = field(None, doc="Scaling behaviour (default: none).")


@meta.frozen
class FederatedHPA(meta.ApiObject):
    """Scales a resource template on metrics aggregated across its member clusters."""

    API_VERSION = API_VERSION
    KIND = "FederatedHPA"
    NAMESPACED = True
    metadata: meta.ObjectMeta = field()
    spec: FederatedHPASpec = field()
    status: Any = field(None, doc="Written by the autoscaler; ignored in the source.")
    origin: Origin = meta.origin_field()
