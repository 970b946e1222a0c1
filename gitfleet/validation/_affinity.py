"""Selectors inside policies: label selectors, cluster affinities, and where affinities live.

Label selectors follow apimachinery's LabelSelectorAsSelector: Karmada takes a policy whose
selector it cannot convert, and the selector matches nothing; here that is a warning (an error
in gitfleet's own settings). Field selectors follow Karmada's ValidatePolicyFieldSelector
(pkg/util/validation/validation.go): keys provider, region, zone; operators In, NotIn; an
expression without values is a warning saying what it matches. `placement_affinities` and
`override_affinities` list every cluster affinity of a policy with its field path, for the
checks that look at all of them.
"""

from __future__ import annotations

from collections.abc import Iterator

from gitfleet.model import labelsyntax, meta, policy
from gitfleet.validation import _report

Keys = tuple[str | int, ...]

_FIELD_KEYS = ("provider", "region", "zone")


def label_selector(
    report: _report.Report, keys: Keys, selector: meta.LabelSelector | None, *, policy_api: bool
) -> None:
    """What Kubernetes' conversion of a label selector refuses. In a policy of Karmada's API
    (`policy_api`) Karmada takes such a selector and it matches nothing (so do gitfleet's
    selectors, `LabelSelector.convertible`): each problem is a warning. Elsewhere it is an error."""
    problems: list[tuple[Keys, str]] = []
    if selector is None:
        return
    for key, value in (selector.match_labels or {}).items():
        problem = labelsyntax.qualified_name(key) or labelsyntax.label_value(value)
        if problem:
            problems.append(((*keys, "matchLabels", key), problem))
    for index, expression in enumerate(selector.match_expressions):
        where = (*keys, "matchExpressions", index)
        problem = labelsyntax.qualified_name(expression.key)
        if problem:
            problems.append(((*where, "key"), problem))
        fault = labelsyntax.operator(expression.operator, expression.values)
        if fault:
            problems.append(((*where, fault[0]), fault[1]))
        for value_index, value in enumerate(expression.values):
            problem = labelsyntax.label_value(value)
            if problem:
                problems.append(((*where, "values", value_index), problem))
    for where, problem in problems:
        if policy_api:
            report.warning(
                where, f"{problem}; Kubernetes cannot convert the selector, which matches nothing"
            )
        else:
            report.error(where, problem)


def cluster_affinity(
    report: _report.Report,
    keys: Keys,
    affinity: policy.ClusterAffinity | None,
    *,
    policy_api: bool = True,
) -> None:
    """A cluster affinity of a policy, or (not `policy_api`) of gitfleet's own settings."""
    if affinity is None:
        return
    selector = affinity.label_selector
    label_selector(report, (*keys, "labelSelector"), selector, policy_api=policy_api)
    if affinity.field_selector is None:
        return
    for index, expression in enumerate(affinity.field_selector.match_expressions):
        where = (*keys, "fieldSelector", "matchExpressions", index)
        if expression.key not in _FIELD_KEYS:
            message = f"unsupported key {expression.key!r}: must be provider, region, or zone"
            report.error((*where, "key"), message)
        if expression.operator not in labelsyntax.WITH_VALUES:
            message = f"unsupported operator {expression.operator!r}: must be In or NotIn"
            report.error((*where, "operator"), message)
        elif not expression.values:
            _no_values(report, (*where, "values"), expression, policy_api=policy_api)
        if expression.key != "zone":
            for value_index, value in enumerate(expression.values):
                problem = labelsyntax.label_value(value)
                if problem and policy_api:
                    message = (
                        f"{problem}; Kubernetes cannot convert the selector, which matches nothing"
                    )
                    report.warning((*where, "values", value_index), message)
                elif problem:
                    report.error((*where, "values", value_index), problem)


def _no_values(
    report: _report.Report,
    keys: Keys,
    expression: meta.NodeSelectorRequirement,
    *,
    policy_api: bool,
) -> None:
    """In or NotIn without values: Karmada's webhook takes it. A zone expression is matched
    against the zones as written (NotIn then excludes nothing); a provider or region
    expression Kubernetes cannot convert, and the affinity matches no cluster (as
    `selectors.field_selector_matches`). An error in gitfleet's own settings."""
    operator = expression.operator
    if not policy_api:
        report.error(keys, f"operator {operator} needs values")
    elif expression.key == "zone" and operator == "NotIn":
        report.warning(keys, "operator NotIn without values excludes no zone")
    else:
        report.warning(keys, f"operator {operator} without values: the affinity matches no cluster")


def is_empty(affinity: policy.ClusterAffinity) -> bool:
    """Karmada's emptyClusterAffinity: no selection criteria at all."""
    return (
        affinity.label_selector is None
        and affinity.field_selector is None
        and not affinity.cluster_names
        and not affinity.exclude
    )


def placement_affinities(
    placement: policy.Placement,
) -> Iterator[tuple[Keys, policy.ClusterAffinity]]:
    """Every cluster affinity of a placement, with its path from the document's root."""
    base: Keys = ("spec", "placement")
    if placement.cluster_affinity is not None:
        yield (*base, "clusterAffinity"), placement.cluster_affinity
    for index, term in enumerate(placement.cluster_affinities):
        yield (*base, "clusterAffinities", index), term
        for overflow_index, overflow in enumerate(term.overflow_affinities):
            where = (*base, "clusterAffinities", index, "overflowAffinities", overflow_index)
            yield where, overflow
    strategy = placement.replica_scheduling
    preference = strategy.weight_preference if strategy else None
    for index, weight in enumerate(preference.static_weight_list if preference else ()):
        where = (*base, "replicaScheduling", "weightPreference", "staticWeightList", index)
        yield (*where, "targetCluster"), weight.target_cluster


def override_affinities(
    spec: policy.OverrideSpec,
) -> Iterator[tuple[Keys, policy.ClusterAffinity]]:
    """Every target cluster affinity of an override policy, with its path."""
    if spec.target_cluster is not None:
        yield ("spec", "targetCluster"), spec.target_cluster
    for index, rule in enumerate(spec.override_rules):
        if rule.target_cluster is not None:
            yield ("spec", "overrideRules", index, "targetCluster"), rule.target_cluster
