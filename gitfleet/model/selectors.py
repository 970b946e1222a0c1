"""Selector matching shared by the detector, scheduler, overrides and failover
(Karmada: pkg/util/selector.go; Kubernetes: apimachinery labels.Selector, core/v1
Toleration.ToleratesTaint).

A selector that Kubernetes would fail to convert (e.g. `In` without values) matches nothing,
as in Karmada, where the conversion error makes the match false; `validate` reports it. The
label selectors written in policies are converted as `metav1.LabelSelectorAsSelector` converts
them (`LabelSelector.convertible`: keys, values, operators); `label_selector_matches` alone also
serves kubectl's text selectors (`labelquery`), whose `labels.Parse` knows more operators.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from gitfleet.model import cluster, labelsyntax, meta, policy
from gitfleet.model.template import ResourceTemplate

PROVIDER_FIELD = "provider"
REGION_FIELD = "region"
ZONE_FIELD = "zone"


class ImplicitPriority(enum.IntEnum):
    """How specifically a resource selector matched (Karmada's ImplicitPriority)."""

    MISMATCH = 0
    MATCH_ALL = 1
    MATCH_LABEL_SELECTOR = 2
    MATCH_NAME = 3


def _as_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def _requirement_matches(
    key: str, operator: str, values: Sequence[str], labels: Mapping[str, str]
) -> bool | None:
    """One requirement against a label set; None when Kubernetes would reject it."""
    present = key in labels
    if operator in ("In", "in", "=", "=="):
        if not values:
            return None
        return present and labels[key] in values
    if operator in ("NotIn", "notin", "!="):
        if not values:
            return None
        return not present or labels[key] not in values
    if operator in ("Exists", "exists"):
        return None if values else present
    if operator in ("DoesNotExist", "!"):
        return None if values else not present
    if operator in ("Gt", "Lt"):
        bound = _as_int(values[0]) if len(values) == 1 else None
        if bound is None:
            return None
        actual = _as_int(labels[key]) if present else None
        if actual is None:
            return False
        return actual > bound if operator == "Gt" else actual < bound
    return None


def label_selector_matches(selector: meta.LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """`metav1.LabelSelectorAsSelector(selector).Matches(labels)`; a nil selector matches nothing,
    an empty one matches everything."""
    if selector is None:
        return False
    for key, value in (selector.match_labels or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.match_expressions:
        if not _requirement_matches(expr.key, expr.operator, expr.values, labels):
            return False
    return True


def _zones_match(expr: meta.NodeSelectorRequirement, zones: Sequence[str]) -> bool:
    if expr.operator == "In":
        return any(z in expr.values for z in zones)
    if expr.operator == "NotIn":
        return not any(z in expr.values for z in zones)
    if expr.operator == "Exists":
        return bool(zones)
    if expr.operator == "DoesNotExist":
        return not zones
    return False


def cluster_fields(c: cluster.Cluster) -> dict[str, str]:
    """The fields a FieldSelector's provider/region expressions see."""
    fields = {}
    if c.spec.provider:
        fields[PROVIDER_FIELD] = c.spec.provider
    if c.spec.region:
        fields[REGION_FIELD] = c.spec.region
    return fields


def field_selector_matches(selector: policy.FieldSelector, c: cluster.Cluster) -> bool:
    """Zone expressions test the zones Karmada stores (`spec.zones`, or the deprecated
    `spec.zone` moved there), compared as written; provider/region use label semantics on
    the spec, after Kubernetes' conversion of them, which refuses a value that is no label
    value (then the selector matches no cluster)."""
    fields = cluster_fields(c)
    for expr in selector.match_expressions:
        if expr.key == ZONE_FIELD:
            if not _zones_match(expr, cluster.stored_zones(c.spec)):
                return False
        elif not _converts(expr) or not _requirement_matches(
            expr.key, expr.operator, expr.values, fields
        ):
            return False
    return True


def _converts(expr: meta.NodeSelectorRequirement) -> bool:
    return not any(labelsyntax.label_value(v) for v in expr.values)


def cluster_matches(c: cluster.Cluster, affinity: policy.ClusterAffinity) -> bool:
    """Karmada's ClusterMatches: exclude wins; then label selector, field selector and names,
    every present part must match; absent parts match all."""
    if c.name in affinity.exclude:
        return False
    labels = c.metadata.labels or {}
    if affinity.label_selector is not None and not (
        affinity.label_selector.convertible
        and label_selector_matches(affinity.label_selector, labels)
    ):
        return False
    if affinity.field_selector is not None and not field_selector_matches(
        affinity.field_selector, c
    ):
        return False
    return not affinity.cluster_names or c.name in affinity.cluster_names


def resource_selector_priority(
    template: ResourceTemplate, selector: policy.ResourceSelector
) -> ImplicitPriority:
    """Karmada's ResourceSelectorPriority: apiVersion and kind must be equal, a set namespace
    must be equal; a set name decides alone; no label selector matches all."""
    if template.api_version != selector.api_version or template.kind != selector.kind:
        return ImplicitPriority.MISMATCH
    if selector.namespace and template.namespace != selector.namespace:
        return ImplicitPriority.MISMATCH
    if selector.name:
        if selector.name == template.name:
            return ImplicitPriority.MATCH_NAME
        return ImplicitPriority.MISMATCH
    if selector.label_selector is None:
        return ImplicitPriority.MATCH_ALL
    if selector.label_selector.convertible and label_selector_matches(
        selector.label_selector, template.labels
    ):
        return ImplicitPriority.MATCH_LABEL_SELECTOR
    return ImplicitPriority.MISMATCH


def selectors_priority(
    template: ResourceTemplate, selectors: Sequence[policy.ResourceSelector]
) -> ImplicitPriority:
    """The highest priority over a policy's selectors (its implicit priority for a template)."""
    return max(
        (resource_selector_priority(template, s) for s in selectors),
        default=ImplicitPriority.MISMATCH,
    )


def tolerates(toleration: meta.Toleration, taint: meta.Taint) -> bool:
    """Kubernetes Toleration.ToleratesTaint: an empty effect or key matches any; Exists ignores
    the value; Equal (or empty) needs the same value; Lt/Gt are not enabled (as in Karmada)."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def taint_text(taint: meta.Taint) -> str:
    """corev1 Taint.ToString: `key=value:effect`, or `key:effect` without a value."""
    if not taint.value:
        return f"{taint.key}:{taint.effect}"
    return f"{taint.key}={taint.value}:{taint.effect}"
