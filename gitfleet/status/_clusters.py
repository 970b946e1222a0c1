"""One row per cluster: is it ready, when did its agent last report, which rendered commit did
it apply and is that the current one, what drifted, what failed.

The same words mean the same for Push and Pull clusters. `renderedCommit` (APPLIED) is a commit
of the rendered branch: the one a push agent synced from, or, for a pull agent, which applies
the cluster's own ref, the render that wrote the commit it applied. `current`: the folder the
agent applied is the one the rendered branch's tip has for the cluster, or, for a cluster whose
ref a progressive rollout holds back (`waiting` says for what), the one its ref has: a held
cluster is waiting, not failing. A cluster that left the fleet (`left`: its Cluster is gone
from the source, and its ref holds the folder-less commit a render leaves it) is current once
its agent applied that commit, which prunes what gitfleet made there. `synced` (SYNCED): it is
current and the agent's last sync of it had no error (every manifest applied, nothing left
undeleted, the report readable); a cluster that applied the latest render with errors is not
synced. A cluster whose agent refused the rendered commit it reports (`refused`: its signature
did not verify) applied nothing of it: it is neither current nor synced.
`capacity`: the nodes it reported and whether it collected them for that report
(`model.capacity`): collected, empty (no nodes), the last known summary or the declared one.

Ready follows Karmada's cluster controller (pkg/controllers/cluster/cluster_controller.go
tryUpdateClusterHealth): a cluster whose agent has not reported within the grace period is
Unknown (`ClusterStatusUnknown`), whatever it said last; otherwise it is what its agent reported
(`ClusterReady`, `ClusterNotReady`, `ClusterNotReachable`). A cluster that never reported is
Unknown too, with reason `NoReport`.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

from gitfleet.model import capacity, times
from gitfleet.status import reports

STALE_REASON = "ClusterStatusUnknown"
NO_REPORT_REASON = "NoReport"


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ClusterRow:
    name: str
    mode: str = ""
    """Push or Pull, as the source declares it ("" when the source does not say)."""
    ready: str = "Unknown"
    reason: str = ""
    message: str = ""
    reported: bool = False
    """Its agent has written a status ref (the fields below are about that report)."""
    heartbeat: str | None = None
    rendered_commit: str = ""
    """The rendered branch's commit whose folder the agent last applied ("": not found)."""
    reported_commit: str = ""
    """The commit the agent reported: of the rendered branch (Push) or of the cluster's own
    ref (Pull)."""
    current: bool | None = None
    """Whether what it applied is the current render of its folder (None: cannot tell)."""
    synced: bool | None = None
    """`current`, and its last sync had no error (None: cannot tell)."""
    converged: bool | None = None
    manifests: int = 0
    applied: int = 0
    drifted: int = 0
    errors: tuple[str, ...] = ()
    refused: str = ""
    """Why its agent refused the rendered commit it reported (its signature), nothing of
    which it applied; "" when it did not refuse it."""
    capacity: capacity.Capacity | None = None
    """Where the capacity it reported comes from (None: it has not reported)."""
    waiting: str = ""
    """A rollout holds its ref back from the tip's render: what it waits for; `current` and
    `synced` are then about the render released to it."""
    left: bool = False
    """It left the fleet: `current` and `synced` are about the emptied folder of its ref
    (synced: everything gitfleet made there is pruned)."""

    def to_json(self) -> dict[str, Any]:
        """`waiting` only for a cluster a rollout holds back, `left` only for one that left."""
        found: dict[str, Any] = {
            "name": self.name,
            "mode": self.mode,
            "ready": self.ready,
            "reason": self.reason,
            "message": self.message,
            "reported": self.reported,
            "heartbeat": self.heartbeat,
            "renderedCommit": self.rendered_commit,
            "reportedCommit": self.reported_commit,
            "current": self.current,
            "synced": self.synced,
            "converged": self.converged,
            "manifests": self.manifests,
            "applied": self.applied,
            "drifted": self.drifted,
            "errors": list(self.errors),
            "refused": self.refused,
            "capacity": self.capacity.to_json() if self.capacity is not None else None,
        }
        if self.waiting:
            found["waiting"] = self.waiting
        if self.left:
            found["left"] = True
        return found


def _readiness(
    report: reports.ClusterReport | None, now: datetime.datetime, grace: float
) -> tuple[str, str, str]:
    """(status, reason, message) of the cluster's Ready condition as of `now`."""
    if report is None:
        return "Unknown", NO_REPORT_REASON, "its agent has not reported yet"
    beat = times.parse(report.heartbeat)
    if beat is None or (now - beat).total_seconds() > grace:
        since = report.heartbeat or "never"
        message = f"no heartbeat from its agent since {since} (grace period {grace:g}s)"
        return "Unknown", STALE_REASON, message
    condition = report.ready_condition
    if condition is None:
        return "Unknown", NO_REPORT_REASON, "its agent reported no Ready condition"
    return condition.status, condition.reason, condition.message


def _errors(report: reports.ClusterReport) -> tuple[str, ...]:
    found = [report.error] if report.error else []
    found += [f"{m.path or m.key}: {m.message}" for m in report.manifests if m.message]
    found += [f"not deleted: {p}" for p in report.pending_deletions]
    found += [f"report: {p}" for p in report.problems]
    return tuple(found)


@dataclasses.dataclass(frozen=True, slots=True)
class Applied:
    """What a cluster's agent applied, as the rendered branch knows it."""

    rendered_commit: str = ""
    """The rendered branch's commit whose folder it applied ("": not found)."""
    current: bool | None = None
    """That folder is the tip's, or for a cluster a rollout holds back, its ref's (None: its
    commit is not in the repository)."""
    waiting: str = ""
    """What the rollout holding its ref back waits for ("": its ref has the tip's folder)."""
    left: bool = False
    """It left the fleet: the tip has no folder for it, and its ref is emptied."""


def row(
    name: str,
    mode: str,
    report: reports.ClusterReport | None,
    applied: Applied,
    *,
    now: datetime.datetime,
    grace: float,
) -> ClusterRow:
    ready, reason, message = _readiness(report, now, grace)
    if report is None:
        return ClusterRow(
            name=name, mode=mode, ready=ready, reason=reason, message=message,
            waiting=applied.waiting,
        )  # fmt: skip
    errors = _errors(report)
    clean = not errors and report.converged is not False
    current = False if report.refused else applied.current
    return ClusterRow(
        name=name,
        mode=mode,
        ready=ready,
        reason=reason,
        message=message,
        reported=True,
        heartbeat=report.heartbeat,
        rendered_commit=applied.rendered_commit,
        reported_commit=report.rendered_commit,
        current=current,
        synced=None if current is None else current and clean,
        converged=report.converged,
        manifests=len(report.manifests),
        applied=sum(1 for m in report.manifests if m.applied),
        drifted=sum(1 for m in report.manifests if m.drifted),
        errors=errors,
        refused=report.refused,
        capacity=capacity.of(report.status),
        waiting=applied.waiting,
        left=applied.left,
    )


def rows(
    names: Mapping[str, str],
    found: Mapping[str, reports.ClusterReport],
    applied: Mapping[str, Applied],
    *,
    now: datetime.datetime,
    grace: float,
) -> tuple[ClusterRow, ...]:
    """A row for every cluster of `names` (name to mode) and every one that reported."""
    every = sorted(set(names) | set(found))
    return tuple(
        row(n, names.get(n, ""), found.get(n), applied.get(n, Applied()), now=now, grace=grace)
        for n in every
    )
