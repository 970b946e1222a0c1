"""The defaults Karmada's API server fills into a (Cluster)PropagationPolicy before anyone reads it,
applied in this one place so the bindings (and so the scheduler) see what Karmada's would.

Two sources, in the order the API server applies them:
1. CRD schema defaults (`+kubebuilder:default` in pkg/apis/policy/v1alpha1/propagation_types.go):
   priority 0, preemption Never, schedulerName default-scheduler, conflictResolution Abort,
   replicaSchedulingType Divided when replicaScheduling is present, failover purgeMode Gracefully,
   decisionConditions.tolerationSeconds 300.
2. The mutating webhooks (pkg/webhook/{propagationpolicy,clusterpropagationpolicy}/mutating.go,
   pkg/util/helper/policy.go): a PropagationPolicy's selectors without namespace get the
   policy's; a spread constraint without field or label spreads by cluster and minGroups 0
   becomes 1; a ServiceImport selector forces propagateDeps; Divided without a division
   preference becomes Weighted; application failover purging Gracefully gets
   gracePeriodSeconds 600.

A nil `replicaScheduling` stays nil: Karmada treats it as Duplicated where it is read
(`Placement.ReplicaSchedulingType`), and the binding carries the placement as written.

The API server defaults templates too, and one of those defaults decides where a workload goes:
its replica count (k8s.io/kubernetes pkg/apis/apps/v1 and batch/v1 defaults.go). An apps/v1
Deployment, ReplicaSet or StatefulSet without `spec.replicas` is stored with 1; a batch/v1 Job
without `spec.parallelism` with 1, and with `spec.completions` 1 too when it has neither.
`replica_fields` gives the copy that Karmada's detector interprets (GetReplicas sees 1, so a
Divided workload runs one replica in one cluster, not one in every cluster); the manifests keep
the template as written, and each member's API server fills in the same defaults.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from gitfleet.model import policy, workloadcounts
from gitfleet.model.template import RawObject

P = TypeVar("P", policy.PropagationPolicy, policy.ClusterPropagationPolicy)

DEFAULT_SCHEDULER = "default-scheduler"
DEFAULT_TOLERATION_SECONDS = 300
DEFAULT_GRACE_PERIOD_SECONDS = 600
SERVICE_IMPORT = ("multicluster.x-k8s.io/v1alpha1", "ServiceImport")


def _spread(constraint: policy.SpreadConstraint) -> policy.SpreadConstraint:
    by_field = constraint.spread_by_field
    if by_field is None and not constraint.spread_by_label:
        by_field = policy.SpreadFieldValue.CLUSTER
    return dataclasses.replace(
        constraint, spread_by_field=by_field, min_groups=constraint.min_groups or 1
    )


def _replica_scheduling(
    strategy: policy.ReplicaSchedulingStrategy | None,
) -> policy.ReplicaSchedulingStrategy | None:
    if strategy is None:
        return None
    kind = strategy.replica_scheduling_type or policy.ReplicaSchedulingType.DIVIDED
    preference = strategy.replica_division_preference
    if kind == policy.ReplicaSchedulingType.DIVIDED and preference is None:
        preference = policy.ReplicaDivisionPreference.WEIGHTED
    return dataclasses.replace(
        strategy, replica_scheduling_type=kind, replica_division_preference=preference
    )


def placement(value: policy.Placement) -> policy.Placement:
    """A placement with Karmada's defaults filled in."""
    return dataclasses.replace(
        value,
        spread_constraints=tuple(_spread(c) for c in value.spread_constraints),
        replica_scheduling=_replica_scheduling(value.replica_scheduling),
    )


def _application_failover(
    behavior: policy.ApplicationFailoverBehavior,
) -> policy.ApplicationFailoverBehavior:
    conditions = behavior.decision_conditions
    if conditions.toleration_seconds is None:
        conditions = dataclasses.replace(conditions, toleration_seconds=DEFAULT_TOLERATION_SECONDS)
    purge = behavior.purge_mode or policy.PurgeMode.GRACEFULLY
    grace = behavior.grace_period_seconds
    if purge == policy.PurgeMode.GRACEFULLY and grace is None:
        grace = DEFAULT_GRACE_PERIOD_SECONDS
    return dataclasses.replace(
        behavior, decision_conditions=conditions, purge_mode=purge, grace_period_seconds=grace
    )


def _failover(value: policy.FailoverBehavior | None) -> policy.FailoverBehavior | None:
    if value is None:
        return None
    application = value.application
    if application is not None:
        application = _application_failover(application)
    cluster = value.cluster
    if cluster is not None and cluster.purge_mode is None:
        cluster = dataclasses.replace(cluster, purge_mode=policy.PurgeMode.GRACEFULLY)
    return dataclasses.replace(value, application=application, cluster=cluster)


def spec(value: policy.PropagationSpec, namespace: str) -> policy.PropagationSpec:
    """A policy spec with Karmada's defaults; `namespace` is a PropagationPolicy's own namespace
    (its selectors default to it) or "" for a ClusterPropagationPolicy."""
    selectors = value.resource_selectors
    if namespace:
        selectors = tuple(
            s if s.namespace else dataclasses.replace(s, namespace=namespace) for s in selectors
        )
    propagate_deps = value.propagate_deps or any(
        (s.api_version, s.kind) == SERVICE_IMPORT for s in selectors
    )
    return dataclasses.replace(
        value,
        resource_selectors=selectors,
        propagate_deps=propagate_deps,
        placement=placement(value.placement),
        priority=0 if value.priority is None else value.priority,
        preemption=value.preemption or policy.PreemptionBehavior.NEVER,
        scheduler_name=value.scheduler_name or DEFAULT_SCHEDULER,
        failover=_failover(value.failover),
        conflict_resolution=value.conflict_resolution or policy.ConflictResolution.ABORT,
    )


def defaulted(obj: P) -> P:
    """The policy as Karmada's API server would store it."""
    own_namespace = obj.namespace if isinstance(obj, policy.PropagationPolicy) else ""
    return dataclasses.replace(obj, spec=spec(obj.spec, own_namespace))


def replica_fields(obj: RawObject) -> RawObject:
    """`obj` with the replica fields its API server would default (see the module) filled in;
    `obj` itself when none is missing. A `spec` that is no object is left for the
    interpreter to refuse."""
    counts = workloadcounts.of(obj)
    spec = obj.get("spec")
    if not counts or not isinstance(spec, dict):
        return obj
    missing = {f: 1 for f in counts[:1] if spec.get(f) is None}
    if obj.get("kind") == "Job" and missing and spec.get("completions") is None:
        missing["completions"] = 1
    if not missing:
        return obj
    return {**obj, "spec": {**spec, **missing}}
