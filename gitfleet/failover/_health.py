"""Cluster health from the agents' reports, and the taints it puts on a cluster (Karmada:
pkg/controllers/cluster/cluster_controller.go tryUpdateClusterHealth, taintClusterByCondition;
pkg/util/helper/taint.go SetCurrentClusterTaints).

Karmada's cluster controller marks a cluster Ready=Unknown when its status was not refreshed
within the monitor grace period, and taints it by its Ready condition: `not-ready` for False,
`unreachable` for Unknown. Here the agent's heartbeat on its status ref plays the lease, and the
agent's own Ready condition (False when it cannot reach its cluster) the status controller's.

A failed check is not yet a failed cluster: Karmada's cluster status controller keeps the
previous Ready condition until the new one has held for `--cluster-failure-threshold`
(pkg/controllers/status/cluster_condition_cache.go thresholdAdjustedReadyCondition), so that a
blip of the network fails nothing over. Here the agent reports what it sees, with the time it
first saw it as the condition's transition time, and failover counts a not-Ready condition
only once it has lasted `failover.clusterFailureThreshold`; the taints then date from that
moment. An agent that stops reporting at all is judged by the heartbeat grace period alone.

Two choices for GitOps, documented in docs/design.md:
- The taints carry effect NoExecute as well as NoSchedule, as Karmada's cluster controller did
  while taint-based eviction was built in (a ClusterTaintPolicy does it today), so that the
  taint manager's rules decide eviction. With failover disabled only NoSchedule is added.
- A cluster that never reported is not judged: the first render comes before any agent runs,
  and nothing would be placed if silence meant failure. Karmada gives such a cluster a startup
  grace period instead.

A taint's `timeAdded` is when the cluster became unhealthy (the heartbeat's expiry, or the Ready
condition's transition), not when a render noticed it, so every render computes the same taint.
"""

from __future__ import annotations

import dataclasses
import datetime

from gitfleet.failover import _types
from gitfleet.model import cluster, loaded, meta, times

NOT_READY = "cluster.karmada.io/not-ready"
UNREACHABLE = "cluster.karmada.io/unreachable"
NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
READY = "Ready"
STALE_REASON = "ClusterStatusUnknown"


def judge(
    report: _types.Report | None, at: datetime.datetime, settings: loaded.FailoverSettings
) -> _types.ClusterHealth | None:
    """The health of a cluster whose agent sent `report`, at `at`; None when it is ready, has
    never reported, or has been reported not Ready for less than the failure threshold."""
    beat = times.parse(report.heartbeat) if report is not None else None
    if report is None or beat is None:
        return None
    expiry = times.later(beat, settings.heartbeat_grace_seconds)
    if at > expiry:
        message = (
            f"no heartbeat from the cluster's agent since {report.heartbeat}"
            f" (grace period {settings.heartbeat_grace_seconds}s)"
        )
        return _types.ClusterHealth("Unknown", STALE_REASON, message, times.text(expiry))
    counted = _failure_counts_at(report, settings)
    if counted is None or at < counted:
        return None
    assert report.ready is not None
    ready = report.ready
    status = "False" if ready.status == "False" else "Unknown"
    return _types.ClusterHealth(status, ready.reason, ready.message, times.text(counted))


def _failure_counts_at(
    report: _types.Report, settings: loaded.FailoverSettings
) -> datetime.datetime | None:
    """When the not-Ready condition `report` carries has lasted the failure threshold (None:
    the cluster is reported Ready). The condition's transition time is when the agent first
    found its cluster failing; every report since kept it (a success in between would have
    moved it), so reaching the threshold means the failure persisted that long."""
    ready = report.ready
    beat = times.parse(report.heartbeat)
    if ready is None or ready.status == "True" or beat is None:
        return None
    since = times.parse(ready.last_transition_time) or beat
    return times.later(since, settings.failure_threshold_seconds)


def changes_at(
    report: _types.Report, settings: loaded.FailoverSettings
) -> datetime.datetime | None:
    """The first moment at which time alone may change the judgment of a cluster judged
    healthy now: its heartbeat expiring, or its reported failure reaching the threshold."""
    beat = times.parse(report.heartbeat)
    if beat is None:
        return None
    expiry = times.later(beat, settings.heartbeat_grace_seconds)
    counted = _failure_counts_at(report, settings)
    return min(expiry, counted) if counted is not None else expiry


def taints(health: _types.ClusterHealth, settings: loaded.FailoverSettings) -> list[meta.Taint]:
    """The taints Karmada puts on a cluster in this state (NoExecute only with eviction on)."""
    key = NOT_READY if health.status == "False" else UNREACHABLE
    effects = (NO_SCHEDULE, NO_EXECUTE) if settings.enabled else (NO_SCHEDULE,)
    return [meta.Taint(key=key, effect=effect, time_added=health.since) for effect in effects]


def tainted(
    member: cluster.Cluster, health: _types.ClusterHealth, settings: loaded.FailoverSettings
) -> cluster.Cluster:
    """`member` as the scheduler sees it when unhealthy: its Ready condition replaced and the
    health taints added to the declared ones (a declared taint with the same key and effect
    stays as declared)."""
    declared = {(t.key, t.effect) for t in member.spec.taints}
    added = tuple(t for t in taints(health, settings) if (t.key, t.effect) not in declared)
    condition = meta.Condition(
        type=READY,
        status=health.status,
        reason=health.reason,
        message=health.message,
        last_transition_time=health.since,
    )
    conditions = (*(c for c in member.status.conditions if c.type != READY), condition)
    return dataclasses.replace(
        member,
        spec=dataclasses.replace(member.spec, taints=(*member.spec.taints, *added)),
        status=dataclasses.replace(member.status, conditions=conditions),
    )
