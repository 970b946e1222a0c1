"""What Karmada refuses in a FederatedHPA, and what gitfleet cannot scale on.

Ported from pkg/util/lifted/validatingfhpa.go (the rules Karmada lifted from Kubernetes'
HorizontalPodAutoscaler validation): minReplicas and maxReplicas int32s (the types' own bound),
maxReplicas at least minReplicas, a target reference with a kind and a name usable in a path,
each metric naming the one source its type says (an `external` source next to it is ignored
there, and only warned about here), a
resource target with a utilization or an average value (not both), the sources of the metric
types gitfleet does not read (Pods, Object, ContainerResource: names, targets), and scaling
rules with at least one policy, windows up to an hour and periods up to half an hour (a
direction's `tolerance`, which Karmada's CRD takes as a quantity and its controller never
reads, is a warning). The
bounds a single field keeps (minReplicas, maxReplicas, policy values) are rules of the model.

Across objects: a target that is no template of the source in the FederatedHPA's namespace is
a warning (Karmada takes such a FederatedHPA, and it scales nothing, failing to get the
target's scale; gitfleet's autoscaling skips it), and so is a second FederatedHPA scaling the
same template (Karmada takes both, and scales with neither: each reports ScalingActive False,
AmbiguousSelector, as the autoscaling stage does).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import autoscaling, diagnostic, loaded, template
from gitfleet.validation import _report, _syntax

Keys = tuple[str | int, ...]

MAX_INT32 = 2**31 - 1
"""minReplicas and maxReplicas are int32 fields: the API server cannot decode a larger one."""
MAX_PERIOD_SECONDS = 1800
MAX_STABILIZATION_WINDOW_SECONDS = 3600
_SOURCES = {
    "Resource": "resource",
    "ContainerResource": "containerResource",
    "Pods": "pods",
    "Object": "object",
}
_UNCOUNTED = "external"
"""The source Karmada's check does not count among those a metric sets (it does not take
External metrics): set next to another metric's own source, it is ignored."""
_READ = ("Resource",)
"""The metric types gitfleet computes (the others need per-container or custom metrics)."""


def check(obj: autoscaling.FederatedHPA, report: _report.Report) -> None:
    spec = obj.spec
    for key, count in (("minReplicas", spec.min_replicas), ("maxReplicas", spec.max_replicas)):
        if count is not None and count > MAX_INT32:
            report.error(("spec", key), f"must be at most {MAX_INT32} (int32), got {count}")
    minimum = spec.min_replicas if spec.min_replicas is not None else 1
    if spec.max_replicas < minimum:
        report.error(("spec", "maxReplicas"), "must be greater than or equal to `minReplicas`")
    ref = spec.scale_target_ref
    for key, value in (("kind", ref.kind), ("name", ref.name)):
        _path_segment(value, ("spec", "scaleTargetRef", key), report)
    for index, metric in enumerate(spec.metrics):
        _metric(metric, ("spec", "metrics", index), report)
    if spec.behavior is not None:
        for key, rules in (
            ("scaleUp", spec.behavior.scale_up),
            ("scaleDown", spec.behavior.scale_down),
        ):
            if rules is not None:
                _rules(rules, ("spec", "behavior", key), report)


def _metric(
    metric: autoscaling.MetricSpec, keys: tuple[str | int, ...], report: _report.Report
) -> None:
    present = [
        name
        for name, value in (
            ("resource", metric.resource),
            ("containerResource", metric.container_resource),
            ("pods", metric.pods),
            ("object", metric.object),
            ("external", metric.external),
        )
        if value is not None
    ]
    expected = _SOURCES.get(metric.type)
    if expected is not None and expected not in present:
        report.error((*keys, expected), "must populate information for the given metric source")
    for other in present:
        if other == _UNCOUNTED and expected != _UNCOUNTED:
            message = f"ignored: a {metric.type} metric reads its {expected} source only"
            report.warning((*keys, other), message)
        elif other != expected:
            report.error((*keys, other), "must populate the given metric source only")
    source = metric.resource
    if metric.type in _READ and source is not None:
        where = (*keys, "resource")
        if source.name not in ("cpu", "memory"):
            report.warning((*where, "name"), f"gitfleet reads cpu and memory, not {source.name!r}")
        _target(source.target, (*where, "target"), report)
    elif metric.type not in _READ:
        report.warning((*keys, "type"), f"{metric.type} metrics are not read by gitfleet yet")
    _unread_source(metric, keys, report)


def _path_segment(value: Any, keys: Keys, report: _report.Report) -> None:
    """A name Kubernetes puts in a path (IsValidPathSegmentName), which must be given."""
    if not isinstance(value, str) or not value:
        report.error(keys, "required")
    elif value in (".", "..") or "/" in value or "%" in value:
        report.error(keys, f"{value!r} is not a valid path segment")


def _unread_source(metric: autoscaling.MetricSpec, keys: Keys, report: _report.Report) -> None:
    """The source of a metric type gitfleet does not read, as Karmada's webhook checks it
    (validateContainerResourceSource, validatePodsSource, validateObjectSource): refused there,
    so the whole FederatedHPA is, though gitfleet would not read it."""
    container = metric.container_resource
    if metric.type == "ContainerResource" and container is not None:
        where = (*keys, "containerResource")
        problem = _syntax.dns1123_label(container.container)
        if problem:
            report.error((*where, "container"), problem)
        _target(container.target, (*where, "target"), report)
    source = {"Pods": metric.pods, "Object": metric.object}.get(metric.type)
    if not isinstance(source, dict):
        return
    where = (*keys, _SOURCES[metric.type])
    if metric.type == "Object":
        described = source.get("describedObject")
        described = described if isinstance(described, dict) else {}
        for key in ("kind", "name"):
            _path_segment(described.get(key), (*where, "describedObject", key), report)
    identifier = source.get("metric")
    name = identifier.get("name") if isinstance(identifier, dict) else None
    _path_segment(name, (*where, "metric", "name"), report)
    target = source.get("target")
    target = target if isinstance(target, dict) else {}
    _raw_target(target, (*where, "target"), report)
    if metric.type == "Pods" and target.get("averageValue") is None:
        report.error(
            (*where, "target", "averageValue"), "must specify a positive target averageValue"
        )
    if (
        metric.type == "Object"
        and target.get("value") is None
        and target.get("averageValue") is None
    ):
        report.error(
            (*where, "target", "averageValue"), "must set either a target value or averageValue"
        )


def _raw_target(target: dict[str, Any], keys: Keys, report: _report.Report) -> None:
    """validateMetricTarget on a target gitfleet keeps as written."""
    kind = target.get("type")
    if not kind:
        report.error((*keys, "type"), "must specify a metric target type")
    elif kind not in autoscaling.TARGET_TYPES:
        report.error((*keys, "type"), "must be either Utilization, Value, or AverageValue")
    for key in ("value", "averageValue"):
        if target.get(key) is not None:
            _positive(target[key], (*keys, key), report)
    utilization = target.get("averageUtilization")
    if isinstance(utilization, int | float) and utilization < 1:
        report.error((*keys, "averageUtilization"), "must be greater than 0")


def _positive(value: Any, keys: Keys, report: _report.Report) -> None:
    """A quantity above zero."""
    try:
        positive = quantity.parse(str(value)).nanos > 0
    except ValueError as error:
        report.error(keys, str(error))
        return
    if not positive:
        report.error(keys, "must be positive")


def _target(
    target: autoscaling.MetricTarget, keys: tuple[str | int, ...], report: _report.Report
) -> None:
    """A resource target: a positive utilization or a positive average value, not both."""
    utilization, value = target.average_utilization, target.average_value
    if utilization is None and value is None:
        message = "must set either a target raw value or a target utilization"
        report.error((*keys, "averageUtilization"), message)
    elif utilization is not None and value is not None:
        message = "may not set both a target raw value and a target utilization"
        report.error((*keys, "averageValue"), message)
    elif utilization is not None:
        if utilization <= 0:
            report.error((*keys, "averageUtilization"), "must be greater than 0")
    else:
        _positive(value, (*keys, "averageValue"), report)
    if target.value is not None:
        _positive(target.value, (*keys, "value"), report)


def _rules(rules: autoscaling.ScalingRules, keys: tuple[str, ...], report: _report.Report) -> None:
    window = rules.stabilization_window_seconds
    if window is not None and window > MAX_STABILIZATION_WINDOW_SECONDS:
        report.error(
            (*keys, "stabilizationWindowSeconds"),
            f"must be less than or equal to {MAX_STABILIZATION_WINDOW_SECONDS}",
        )
    for index, policy in enumerate(rules.policies):
        if policy.period_seconds > MAX_PERIOD_SECONDS:
            report.error(
                (*keys, "policies", index, "periodSeconds"),
                f"must be less than or equal to {MAX_PERIOD_SECONDS}",
            )
    if rules.tolerance is not None:
        try:
            quantity.parse(str(rules.tolerance))
        except ValueError as error:
            report.error((*keys, "tolerance"), str(error))
            return
        report.warning(
            (*keys, "tolerance"),
            "ignored, as Karmada's FederatedHPA controller ignores it: both directions scale"
            " with the fleet-wide tolerance (autoscaling.tolerance in gitfleet.yaml, 0.1)",
        )


def across(
    hpas: Iterable[autoscaling.FederatedHPA], templates: Iterable[template.ResourceTemplate]
) -> list[diagnostic.Diagnostic]:
    """Targets that are no template of the source, and templates scaled twice (warnings)."""
    known: dict[tuple[str, str, str], list[str]] = {}
    for t in templates:
        known.setdefault((t.namespace, t.kind, t.name), []).append(t.api_version)
    claimed: dict[tuple[str, str, str], str] = {}
    found: list[diagnostic.Diagnostic] = []
    for hpa in hpas:
        report = _report.Report(hpa.origin, loaded.subject(hpa))
        ref = hpa.spec.scale_target_ref
        key = (hpa.namespace, ref.kind, ref.name)
        versions = known.get(key, [])
        if not versions or (ref.api_version and ref.api_version not in versions):
            what = f"{ref.api_version} {ref.kind}".strip()
            report.warning(
                ("spec", "scaleTargetRef"),
                f"names no template: no {what} {ref.name!r} in namespace {hpa.namespace!r}; "
                "it scales nothing",
            )
        elif key in claimed:
            report.warning(
                ("spec", "scaleTargetRef"),
                f"{ref.kind} {ref.name} is also scaled by FederatedHPA {claimed[key]}: neither"
                " scales it (each reports ScalingActive False, AmbiguousSelector)",
            )
        else:
            claimed[key] = f"{hpa.namespace}/{hpa.name}"
        found += report.diagnostics
    return found
