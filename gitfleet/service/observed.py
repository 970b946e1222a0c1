"""What failover and the descheduler need from the reconciler: a snapshot of what the agents
reported, taken now, and when the same source commit must be rendered again.

A render with failover is a function of the source, the previous render, the agents' reports
and the time (`gitfleet.failover`), and so is one with the descheduler
(`gitfleet.descheduler`). The source and the previous render move by commits; the reports and
the time move on their own: a heartbeat expires, a toleration runs out, the replacement of a
failed cluster becomes healthy, a pod waits past the descheduler's threshold.
`FailoverWatch.due` says when that may change the render: it asks the watches of the last
render made on the rendered branch's tip (or, for a tip this reconciler did not make, the
failover watch resumed from its render.yaml, and a descheduler watch that renders again while
any pod is reported unschedulable) whether a snapshot taken now differs in a way that matters.

The snapshot is read from the status refs as `gitfleet status` reads them
(`gitfleet.status.read`): each cluster's heartbeat and Ready condition, whether what it
applied is the tip's render of its folder, the health of each applied manifest, and the ready
and unschedulable replicas of each workload with pods waiting for a node.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping

from gitfleet import descheduler, failover, pipeline
from gitfleet.gitstore import rendered
from gitfleet.gitstore.repository import Repository
from gitfleet.model import loaded, times, work
from gitfleet.status import read as status_read
from gitfleet.status import reports


def _report(found: reports.ClusterReport, current: bool | None) -> failover.Report:
    return failover.Report(
        heartbeat=found.heartbeat,
        ready=found.ready_condition,
        rendered_commit=found.rendered_commit,
        current=bool(current),
        health={
            m.key: m.health if m.applied else work.ResourceHealth.UNKNOWN for m in found.manifests
        },
        replicas={m.key: m.replicas for m in found.manifests if m.unschedulable},
        unhealthy_since={
            m.key: m.unhealthy_since
            for m in found.manifests
            if m.applied and m.health is work.ResourceHealth.UNHEALTHY and m.unhealthy_since
        },
    )


def snapshot(repo: Repository, tip: rendered.Tip | None, at: str) -> failover.Observed:
    """Every cluster's last report, read at `at` (RFC 3339)."""
    found = status_read.reports_of(repo)
    current = status_read.current(repo, tip, found)
    return failover.Observed(
        at=at, reports={name: _report(r, current.get(name)) for name, r in sorted(found.items())}
    )


class FailoverWatch:
    """The reconciler's memory of what its last render's failover depended on."""

    def __init__(self, repo: Repository, clock: Callable[[], float]) -> None:
        self.repo = repo
        self.clock = clock
        self.settings = loaded.FailoverSettings()
        self.deschedule = loaded.DeschedulerSettings()
        self._watch: failover.Watch | None = None
        self._deschedule_watch = descheduler.Watch()
        self._tip: str | None = None
        """The rendered commit `_watch` is the watch of."""

    def observe(self, tip: rendered.Tip | None) -> failover.Observed:
        """A snapshot taken now."""
        moment = datetime.datetime.fromtimestamp(self.clock(), datetime.UTC)
        return snapshot(self.repo, tip, times.text(moment))

    def remember(
        self, result: pipeline.RenderResult, commit: str, settings: loaded.FailoverSettings
    ) -> None:
        """Remember the watch of `result`, rendered as (or found equal to) `commit`."""
        self._watch, self._tip, self.settings = result.failover_watch, commit, settings
        self._deschedule_watch = result.descheduler_watch or descheduler.Watch()

    def due(
        self,
        tip: rendered.Tip | None,
        read: Callable[[rendered.Tip], Mapping[str, object]],
        observed: failover.Observed | None = None,
    ) -> bool:
        """Whether a render of the tip's source made now may fail over differently; `read`
        gives the tip's render.yaml, for a tip this reconciler did not make."""
        if tip is None:
            return False
        watch = self._watch if self._tip == tip.commit else None
        if watch is None:
            report = read(tip)
            clusters = report.get("clusters")
            section = report.get("failover")
            watch = failover.Watch.resumed(
                section if isinstance(section, dict) else None,
                clusters if isinstance(clusters, dict) else (),
            )
            self._watch, self._tip = watch, tip.commit
            self._deschedule_watch = descheduler.Watch()
        snapshot = observed or self.observe(tip)
        return watch.due(snapshot, self.settings) or self._descheduling_due(snapshot)

    def _descheduling_due(self, snapshot: failover.Observed) -> bool:
        """Whether the descheduler may act differently on `snapshot` than in the last render."""
        if not self.deschedule.enabled:
            return False
        reports = pipeline.descheduler_reports(snapshot)
        return self._deschedule_watch.due(reports, snapshot.at)
