"""What an agent reports of a workload's replicas on its cluster besides health and status: how
many are ready, and since when pods of the workload have been waiting for a node (Karmada: the
binding's aggregated `readyReplicas`, and the scheduler estimator's count of unschedulable pods,
pkg/estimator/server/replica).

A report says *since when* pods are unschedulable rather than how many are unschedulable for
longer than a threshold: the threshold is the reconciler's setting (gitfleet.yaml), and a count
of old-enough pods would change as time passes while a pod's transition time does not, so the
report stays the same as long as the cluster does."""

from __future__ import annotations

import dataclasses

MAX_PENDING = 10
"""The most `Pending` entries a report holds for one workload (see `bounded`)."""


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class Pending:
    """`replicas` pods unschedulable since `since` (RFC 3339: their PodScheduled condition's
    lastTransitionTime)."""

    since: str
    replicas: int


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class WorkloadReplicas:
    """One workload on one cluster."""

    ready: int | None = None
    """`status.readyReplicas` as reported; None when the status has none (Karmada then treats
    the cluster's ready count as unknown)."""
    unschedulable: tuple[Pending, ...] = ()
    """Pods unschedulable, grouped by transition time, oldest first."""


def bounded(times: list[str]) -> tuple[Pending, ...]:
    """The transition times of unschedulable pods, grouped: at most `MAX_PENDING` entries, the
    newest pods beyond that counted under the newest time among them, so that a bounded report
    never counts a pod as unschedulable for longer than it has been."""
    grouped: dict[str, int] = {}
    for moment in sorted(times):
        grouped[moment] = grouped.get(moment, 0) + 1
    entries = sorted(grouped.items())
    if len(entries) > MAX_PENDING:
        kept, rest = entries[: MAX_PENDING - 1], entries[MAX_PENDING - 1 :]
        entries = [*kept, (rest[-1][0], sum(n for _, n in rest))]
    return tuple(Pending(since, replicas) for since, replicas in entries)
