"""How many replicas of a binding each cluster gives up (Karmada: pkg/descheduler/core/helper.go
SchedulingResultHelper, GetUndesiredClusters, FillUnschedulableReplicas;
pkg/descheduler/descheduler.go updateScheduleResult; pkg/estimator/server/replica/replica.go
podUnschedulable).

Per cluster of the schedule result:
- `ready` is the cluster's reported `readyReplicas`, or -1 when unknown (Karmada's
  UnauthenticReplica: no status, or a status without the field, as a Deployment with no ready
  pod reports it);
- only a cluster with fewer ready replicas than assigned is looked at;
- `unschedulable` counts its pods whose PodScheduled condition has been False/Unschedulable
  for longer than the threshold, strictly (transition time + threshold before the moment
  looked at); a cluster whose count is not known counts 0;
- when 0 < unschedulable <= assigned, the cluster's replicas go down by `unschedulable`, but not
  below `ready` when ready <= assigned (a safety cap: running replicas are never taken away).
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterable

from gitfleet.model import replicas, times

UNKNOWN_READY = -1


@dataclasses.dataclass(frozen=True, slots=True)
class Lowered:
    """One cluster's replicas lowered: assigned before, unschedulable counted, and after."""

    cluster: str
    assigned: int
    unschedulable: int
    target: int

    @property
    def removed(self) -> int:
        return self.assigned - self.target


def count(pending: Iterable[replicas.Pending], moment: datetime.datetime, threshold: float) -> int:
    """Pods unschedulable for longer than `threshold` seconds at `moment`."""
    limit = max(threshold, 0)
    total = 0
    for entry in pending:
        since = times.parse(entry.since)
        if since is not None and times.later(since, limit) < moment:
            total += entry.replicas
    return total


def lowered(cluster: str, assigned: int, ready: int, unschedulable: int) -> Lowered | None:
    """The cluster's new replicas, None when they stay."""
    if ready >= assigned or unschedulable <= 0 or assigned < unschedulable:
        return None
    target = assigned - unschedulable
    if target < ready <= assigned:
        target = ready
    return Lowered(cluster, assigned, unschedulable, target)
