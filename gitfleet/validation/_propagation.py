"""What Karmada's webhook refuses in a (Cluster)PropagationPolicy.

Ported from pkg/util/validation/validation.go (ValidatePropagationSpec, ValidatePlacement,
ValidateClusterAffinities, ValidateOverflowAffinities, ValidateSpreadConstraint,
ValidateWorkloadAffinity, validateClusterTolerations, ValidateFailover, validateSuspension,
validateResourceSelectors*), checked after the defaults its mutating webhook and the CRD apply
(pkg/webhook/propagationpolicy/mutating.go, pkg/util/helper/policy.go), plus the CRD's own
constraints the model does not carry (affinity names of 1..32 characters, 32-bit integers).
Constraints on a single value (at least one selector, weights >= 1, group counts >= 0,
cluster failover without `Never`, positive grace periods) are field rules of the model, which
the loader enforces and the JSON Schemas carry.
"""

from __future__ import annotations

from gitfleet.model import labelsyntax, meta, policy
from gitfleet.validation import _affinity, _report

Propagation = policy.PropagationPolicy | policy.ClusterPropagationPolicy
Keys = tuple[str | int, ...]

INT32 = (-(2**31), 2**31 - 1)
AFFINITY_NAME_MAX = 32
DEFAULT_TOLERATION_SECONDS = 300
_SERVICE_IMPORT = ("multicluster.x-k8s.io/v1alpha1", "ServiceImport")
_COMPARISONS = ("Lt", "Gt")
"""Toleration operators Karmada's webhook refuses (Kubernetes' alpha comparison operators)."""


def check(obj: Propagation, report: _report.Report) -> None:
    spec = obj.spec
    _selectors(obj, report)
    _placement(spec.placement, report)
    _failover(spec, report)
    if spec.priority is not None:
        _int32(report, ("spec", "priority"), spec.priority)
    suspension = spec.suspension
    on_clusters = suspension.dispatching_on_clusters if suspension else None
    if suspension and suspension.dispatching and on_clusters and on_clusters.cluster_names:
        message = "dispatching cannot be used together with dispatchingOnClusters.clusterNames"
        report.error(("spec", "suspension"), message)


def _int32(report: _report.Report, keys: Keys, value: int) -> None:
    if not INT32[0] <= value <= INT32[1]:
        report.error(keys, f"{value} does not fit in a 32-bit integer")


def check_selectors_namespace(
    selectors: tuple[policy.ResourceSelector, ...], namespace: str, report: _report.Report
) -> None:
    """A namespaced policy selects only in its own namespace (validateResourceSelectors). A
    label selector next to a name is ignored, as Karmada matches such a selector by the name
    alone (ResourceSelectorPriority): a warning says so, whether it could match or not."""
    for index, selector in enumerate(selectors):
        keys = ("spec", "resourceSelectors", index, "labelSelector")
        if selector.name and selector.label_selector is not None:
            message = (
                "ignored: a selector with a name selects the template of that name whatever "
                "its labels"
            )
            report.warning(keys, message)
        else:
            _affinity.label_selector(report, keys, selector.label_selector, policy_api=True)
        if namespace and selector.namespace and selector.namespace != namespace:
            message = f"must be the policy's own namespace {namespace!r}, or empty"
            report.error(("spec", "resourceSelectors", index, "namespace"), message)


def _selectors(obj: Propagation, report: _report.Report) -> None:
    selectors = obj.spec.resource_selectors
    check_selectors_namespace(selectors, obj.namespace, report)
    if obj.spec.preemption is policy.PreemptionBehavior.ALWAYS:
        for index, selector in enumerate(selectors):
            if not selector.name:
                message = "a name is required when preemption is Always"
                report.error(("spec", "resourceSelectors", index, "name"), message)


def overflow_allowed(strategy: policy.ReplicaSchedulingStrategy | None) -> bool:
    """Karmada's IsOverflowSchedulingAllowed, after the CRD and webhook defaults."""
    if strategy is None:
        return False
    kind = strategy.replica_scheduling_type or policy.ReplicaSchedulingType.DIVIDED
    if kind is not policy.ReplicaSchedulingType.DIVIDED:
        return False
    preference = strategy.replica_division_preference or policy.ReplicaDivisionPreference.WEIGHTED
    if preference is policy.ReplicaDivisionPreference.AGGREGATED:
        return True
    weights = strategy.weight_preference
    return weights is not None and weights.dynamic_weight is not None


def _placement(placement: policy.Placement, report: _report.Report) -> None:
    base: Keys = ("spec", "placement")
    if placement.cluster_affinity is not None and placement.cluster_affinities:
        report.error(base, "clusterAffinities cannot be used together with clusterAffinity")
    for keys, affinity in _affinity.placement_affinities(placement):
        _affinity.cluster_affinity(report, keys, affinity)
    _terms(placement, report)
    _spread(placement.spread_constraints, report)
    _spread_unused(placement, report)
    _workload_affinity(placement.workload_affinity, report)
    for index, toleration in enumerate(placement.cluster_tolerations):
        _toleration_operator(report, (*base, "clusterTolerations", index, "operator"), toleration)


def _toleration_operator(report: _report.Report, keys: Keys, toleration: meta.Toleration) -> None:
    """validateClusterTolerations refuses only the comparison operators Lt and Gt; any other
    unknown operator passes, and Kubernetes' ToleratesTaint then tolerates no taint with it
    (`selectors.tolerates` neither)."""
    operator = toleration.operator
    if operator in _COMPARISONS:
        message = f"unsupported operator {operator!r}: expected Exists or Equal"
        report.error(keys, message)
    elif operator not in ("", "Exists", "Equal"):
        message = f"unknown operator {operator!r} (not Exists or Equal): it tolerates no taint"
        report.warning(keys, message)


def _affinity_name(report: _report.Report, keys: Keys, name: str) -> None:
    if not 1 <= len(name) <= AFFINITY_NAME_MAX:
        report.error(keys, f"must be 1 to {AFFINITY_NAME_MAX} characters")
    problem = labelsyntax.qualified_name(name)
    if problem:
        report.error(keys, problem)


def _terms(placement: policy.Placement, report: _report.Report) -> None:
    base: Keys = ("spec", "placement", "clusterAffinities")
    seen: set[str] = set()
    overflow_ok = overflow_allowed(placement.replica_scheduling)
    for index, term in enumerate(placement.cluster_affinities):
        _affinity_name(report, (*base, index, "affinityName"), term.affinity_name)
        if term.affinity_name in seen:
            message = f"affinityName {term.affinity_name!r} is used by an earlier term"
            report.error((*base, index, "affinityName"), message)
        seen.add(term.affinity_name)
        if not term.overflow_affinities:
            continue
        where = (*base, index, "overflowAffinities")
        if not overflow_ok:
            message = "needs Divided scheduling with dynamic weight, or Aggregated"
            report.error(where, message)
        if _affinity.is_empty(term):
            report.error(where, "needs the term's own cluster affinity to select clusters")
        names = {term.affinity_name}
        for overflow_index, overflow in enumerate(term.overflow_affinities):
            keys = (*where, overflow_index, "affinityName")
            _affinity_name(report, keys, overflow.affinity_name)
            if overflow.affinity_name in names:
                message = f"{overflow.affinity_name!r} must differ from the term's other names"
                report.error(keys, message)
            names.add(overflow.affinity_name)


def _spread(constraints: tuple[policy.SpreadConstraint, ...], report: _report.Report) -> None:
    base: Keys = ("spec", "placement", "spreadConstraints")
    fields: set[policy.SpreadFieldValue] = set()
    for index, constraint in enumerate(constraints):
        field = constraint.spread_by_field
        if field is None and not constraint.spread_by_label:
            field = policy.SpreadFieldValue.CLUSTER  # the webhook's default
        minimum = constraint.min_groups or 1  # the webhook's default
        if constraint.spread_by_field is not None and constraint.spread_by_label:
            report.error((*base, index), "spreadByLabel cannot be used together with spreadByField")
        if constraint.max_groups > 0 and constraint.max_groups < minimum:
            report.error((*base, index, "maxGroups"), f"must not be lower than minGroups {minimum}")
        if field is not None:
            if field in fields:
                report.error((*base, index), f"more than one {field} spread constraint")
            fields.add(field)
    if fields and policy.SpreadFieldValue.CLUSTER not in fields:
        message = "spreading by a field needs a cluster spread constraint too"
        report.error(base, message)


def _static_weighted(placement: policy.Placement) -> bool:
    """shouldIgnoreSpreadConstraint: Divided by static weights (or Weighted without a weight
    preference) ignores the spread constraints (webhook defaults applied: Divided without a
    preference is Weighted)."""
    strategy = placement.replica_scheduling
    if (
        strategy is None
        or strategy.replica_scheduling_type == policy.ReplicaSchedulingType.DUPLICATED
    ):
        return False
    preference = strategy.replica_division_preference or policy.ReplicaDivisionPreference.WEIGHTED
    if preference != policy.ReplicaDivisionPreference.WEIGHTED:
        return False
    weights = strategy.weight_preference
    return weights is None or (bool(weights.static_weight_list) and weights.dynamic_weight is None)


_FILTER_ONLY = {policy.SpreadFieldValue.ZONE: "zone", policy.SpreadFieldValue.PROVIDER: "provider"}


def _spread_unused(placement: policy.Placement, report: _report.Report) -> None:
    """Karmada's scheduler spreads by cluster and region only
    (selectBestClustersBySpreadConstraints): a zone or provider constraint only keeps the
    clusters that have the field (the SpreadConstraint filter), a label constraint is ignored
    next to a cluster or region one and alone fails the placement; none of it when static
    weights ignore every constraint."""
    constraints = placement.spread_constraints
    labelled = [i for i, c in enumerate(constraints) if c.spread_by_label]
    if not constraints or _static_weighted(placement):
        return
    spreads = {
        c.spread_by_field or policy.SpreadFieldValue.CLUSTER
        for c in constraints
        if not c.spread_by_label
    }
    usable = {policy.SpreadFieldValue.CLUSTER, policy.SpreadFieldValue.REGION} & spreads
    for index, constraint in enumerate(constraints):
        if constraint.spread_by_field in _FILTER_ONLY:
            keys = ("spec", "placement", "spreadConstraints", index, "spreadByField")
            report.warning(
                keys,
                f"only a filter: Karmada's scheduler keeps the clusters that have a "
                f"{_FILTER_ONLY[constraint.spread_by_field]} and spreads by cluster and region "
                "only",
            )
    for index in labelled:
        keys = ("spec", "placement", "spreadConstraints", index, "spreadByLabel")
        if usable:
            report.warning(keys, "ignored: Karmada's scheduler spreads by cluster and region only")
        else:
            report.warning(
                keys,
                "Karmada's scheduler spreads by cluster and region only, and fails a placement "
                "that has neither ('just support cluster and region spread constraint'): "
                "add a cluster spread constraint",
            )


def _workload_affinity(affinity: policy.WorkloadAffinity | None, report: _report.Report) -> None:
    if affinity is None:
        return
    base: Keys = ("spec", "placement", "workloadAffinity")
    for name, term in (("affinity", affinity.affinity), ("antiAffinity", affinity.anti_affinity)):
        problem = labelsyntax.qualified_name(term.group_by_label_key) if term else None
        if problem:
            report.error((*base, name, "groupByLabelKey"), problem)
    together, apart = affinity.affinity, affinity.anti_affinity
    if together and apart and together.group_by_label_key == apart.group_by_label_key:
        report.error(base, "affinity and antiAffinity must not use the same groupByLabelKey")


def _failover(spec: policy.PropagationSpec, report: _report.Report) -> None:
    failover = spec.failover
    if failover is None:
        return
    base: Keys = ("spec", "failover")
    application = failover.application
    if application is not None:
        if not _propagates_deps(spec):
            report.error(("spec", "propagateDeps"), "must be true when application failover is set")
        seconds = application.decision_conditions.toleration_seconds
        seconds = DEFAULT_TOLERATION_SECONDS if seconds is None else seconds
        keys = (*base, "application", "decisionConditions", "tolerationSeconds")
        _int32(report, keys, seconds)
        _grace_period(application, report)
        _preservation(application.state_preservation, (*base, "application"), report)
    if failover.cluster is not None:
        _preservation(failover.cluster.state_preservation, (*base, "cluster"), report)


def _propagates_deps(spec: policy.PropagationSpec) -> bool:
    """propagateDeps after the mutating webhook, which turns it on for a policy selecting
    ServiceImports."""
    return spec.propagate_deps or any(
        (s.api_version, s.kind) == _SERVICE_IMPORT for s in spec.resource_selectors
    )


def _grace_period(application: policy.ApplicationFailoverBehavior, report: _report.Report) -> None:
    keys: Keys = ("spec", "failover", "application", "gracePeriodSeconds")
    mode = application.purge_mode or policy.PurgeMode.GRACEFULLY
    period = application.grace_period_seconds
    if mode is not policy.PurgeMode.GRACEFULLY and period is not None:
        report.error(keys, "only applies when purgeMode is Gracefully")
    if period is not None:
        _int32(report, keys, period)


def _preservation(
    preservation: policy.StatePreservation | None, keys: Keys, report: _report.Report
) -> None:
    for index, rule in enumerate(preservation.rules if preservation else ()):
        problem = labelsyntax.qualified_name(rule.alias_label_name)
        if problem:
            report.error((*keys, "statePreservation", "rules", index, "aliasLabelName"), problem)
