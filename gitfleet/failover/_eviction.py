"""Graceful eviction: a binding leaves a cluster but the cluster keeps its copy until the
replacement is healthy (Karmada: pkg/apis/work/v1alpha2/binding_types_helper.go
GracefulEvictCluster; pkg/controllers/gracefuleviction/evictiontask.go assessEvictionTasks,
assessSingleTask, allScheduledResourceInHealthyState; rb_graceful_eviction_controller.go).

`evict` takes the cluster out of `spec.clusters` and records a task naming it; the scheduler's
ClusterEviction filter then keeps the binding off that cluster, and the render keeps the
cluster's Work while the task lasts (unless its purge mode is Directly). `assess` ends tasks: a
task whose deletion is suppressed stays (or goes at once when suppression was lifted); one older
than its grace period goes; one whose binding was scheduled and is healthy on every cluster of
its result goes. Karmada stamps a new task's creation time on first sight; here the render that
creates it does.

Health counts only when it describes the Works now in place: the report must be of the previous
render (`Report.current`) and the previous render must have placed the binding where it is now.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Mapping

from gitfleet.failover import _types
from gitfleet.model import loaded, policy, times, work
from gitfleet.model.template import ResourceKey

Binding = work.ResourceBinding | work.ClusterResourceBinding
PRODUCER = "TaintManager"
REASON = "TaintUntolerated"


def taint_task(
    name: str, mode: policy.PurgeMode, message: str, at: str
) -> work.GracefulEvictionTask:
    """The eviction task of a binding leaving cluster `name` for a taint it does not tolerate."""
    return work.GracefulEvictionTask(
        from_cluster=name,
        purge_mode=mode,
        reason=REASON,
        message=message,
        producer=PRODUCER,
        creation_timestamp=at,
    )


def evict(
    spec: work.ResourceBindingSpec, task: work.GracefulEvictionTask
) -> work.ResourceBindingSpec:
    """`spec` without the task's cluster in its result, and with `task` (holding the replicas
    the cluster had) unless the cluster has a task already."""
    name = task.from_cluster
    found = next((t for t in spec.clusters if t.name == name), None)
    if found is None:
        return spec
    clusters = tuple(t for t in spec.clusters if t.name != name)
    if any(t.from_cluster == name for t in spec.graceful_eviction_tasks):
        return dataclasses.replace(spec, clusters=clusters)
    held = dataclasses.replace(task, replicas=found.replicas if found.replicas > 0 else None)
    tasks = (*spec.graceful_eviction_tasks, held)
    return dataclasses.replace(spec, clusters=clusters, graceful_eviction_tasks=tasks)


class Ending(enum.StrEnum):
    """Why a task ended."""

    HEALTHY = "replacement healthy"
    TIMEOUT = "grace period over"
    CONFIRMED = "deletion confirmed"


def _healthy(
    key: ResourceKey,
    spec: work.ResourceBindingSpec,
    applied: work.ResourceBindingSpec | None,
    reports: Mapping[str, _types.Report],
) -> bool:
    if applied is None or applied.clusters != spec.clusters:
        return False
    for target in spec.clusters:
        report = reports.get(target.name)
        if report is None or not report.current:
            return False
        if report.health.get(key) is not work.ResourceHealth.HEALTHY:
            return False
    return True


def assess(
    key: ResourceKey,
    spec: work.ResourceBindingSpec,
    applied: work.ResourceBindingSpec | None,
    *,
    scheduled: bool,
    observed: _types.Observed,
    settings: loaded.FailoverSettings,
) -> tuple[tuple[work.GracefulEvictionTask, ...], dict[str, Ending]]:
    """The tasks of `spec` that stay, and why each other one ended, by cluster. `applied` is the
    binding's spec in the previous render; `scheduled`: the scheduler accepted this one."""
    now = times.parse(observed.at)
    kept: list[work.GracefulEvictionTask] = []
    ended: dict[str, Ending] = {}
    healthy: bool | None = None
    for task in spec.graceful_eviction_tasks:
        created = times.parse(task.creation_timestamp)
        if created is None or now is None:
            kept.append(dataclasses.replace(task, creation_timestamp=observed.at))
            continue
        if task.suppress_deletion is not None:
            if task.suppress_deletion:
                kept.append(task)
            else:
                ended[task.from_cluster] = Ending.CONFIRMED
            continue
        seconds = task.grace_period_seconds
        timeout = settings.graceful_eviction_timeout_seconds if seconds is None else seconds
        if now > times.later(created, timeout):
            ended[task.from_cluster] = Ending.TIMEOUT
            continue
        if healthy is None:
            healthy = scheduled and _healthy(key, spec, applied, observed.reports)
        if healthy:
            ended[task.from_cluster] = Ending.HEALTHY
        else:
            kept.append(task)
    return tuple(kept), ended


def deadline(
    tasks: tuple[work.GracefulEvictionTask, ...], settings: loaded.FailoverSettings
) -> datetime.datetime | None:
    """When the first of `tasks` times out (Karmada's nextRetry); None without such a task."""
    ends = []
    for task in tasks:
        created = times.parse(task.creation_timestamp)
        if task.suppress_deletion is not None or created is None:
            continue
        seconds = task.grace_period_seconds
        timeout = settings.graceful_eviction_timeout_seconds if seconds is None else seconds
        ends.append(times.later(created, timeout))
    return min(ends) if ends else None
