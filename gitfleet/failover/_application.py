"""Application failover: a binding leaves a cluster where its application has been Unhealthy for
longer than its policy tolerates (Karmada: pkg/controllers/applicationfailover,
rb_application_failover_controller.go and crb_application_failover_controller.go: bindingFilter,
detectFailure, distinguishUnhealthyClustersWithOthers, buildTaskOptions).

Karmada watches a binding only when its policy sets `failover.application` and propagates
dependencies (its webhook refuses the one without the other); of the clusters of its result,
those that report the application Unhealthy and are not being evicted already count, each from
the moment it was first seen Unhealthy; a report of Healthy or Unknown starts the count anew.
Here the moment is the agent's: its report carries, per object, since when it has been
Unhealthy (`Report.unhealthy_since`), and only a report of the Works now in place counts
(`Report.current`). Once `decisionConditions.tolerationSeconds` have passed, the cluster is
evicted with the policy's purge mode: Gracefully keeps the old copy until the replacement is
healthy or `gracePeriodSeconds` are over, Never keeps it until someone confirms the deletion
(the task's `suppressDeletion`), Directly removes it at once.
"""

from __future__ import annotations

import dataclasses
import datetime

from gitfleet.failover import _types
from gitfleet.model import policy, times, work
from gitfleet.model.template import ResourceKey

Binding = work.ResourceBinding | work.ClusterResourceBinding
REASON = "ApplicationFailure"
_PRODUCERS = {
    work.ResourceBinding.KIND: "resource-binding-application-failover-controller",
    work.ClusterResourceBinding.KIND: "cluster-resource-binding-application-failover-controller",
}


def behavior(spec: work.ResourceBindingSpec) -> policy.ApplicationFailoverBehavior | None:
    """The binding's application failover, when Karmada would watch it."""
    found = spec.failover.application if spec.failover is not None else None
    return found if found is not None and spec.propagate_deps else None


@dataclasses.dataclass(frozen=True, slots=True)
class Failure:
    """An application Unhealthy on one cluster: since when, and when it is to leave."""

    since: str
    evict_at: datetime.datetime


def failure(
    key: ResourceKey,
    chosen: policy.ApplicationFailoverBehavior,
    spec: work.ResourceBindingSpec,
    name: str,
    report: _types.Report | None,
) -> Failure | None:
    """How long the application `key`, placed by `spec` and watched by `chosen`, has been
    failing on cluster `name`, if it is."""
    if report is None or not report.current:
        return None
    if any(task.from_cluster == name for task in spec.graceful_eviction_tasks):
        return None
    since = report.unhealthy_since.get(key)
    start = times.parse(since)
    if since is None or start is None:
        return None
    seconds = chosen.decision_conditions.toleration_seconds or 0
    return Failure(since, times.later(start, seconds))


def task(binding: Binding, name: str, message: str, at: str) -> work.GracefulEvictionTask:
    """The eviction task of an application failover from cluster `name` (replicas and the
    cluster are `_eviction.evict`'s to fill in)."""
    chosen = behavior(binding.spec)
    mode = (chosen.purge_mode if chosen else None) or policy.PurgeMode.GRACEFULLY
    return work.GracefulEvictionTask(
        from_cluster=name,
        purge_mode=mode,
        reason=REASON,
        message=message,
        producer=_PRODUCERS[binding.KIND],
        grace_period_seconds=chosen.grace_period_seconds
        if chosen and mode is policy.PurgeMode.GRACEFULLY
        else None,
        suppress_deletion=True if mode is policy.PurgeMode.NEVER else None,
        creation_timestamp=at,
    )
