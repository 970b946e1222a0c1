"""What FederatedHPAs need from the reconciler: the agents' measurements of the workloads, read
from the status refs, and when to evaluate again (every sync period, Karmada's
`--horizontal-pod-autoscaler-sync-period`, gitfleet.yaml's `autoscaling.syncPeriod`).

An evaluation is a render of the same source commit made for the time and the measurements,
the way failover renders again when time or the agents' reports move (`observed`): the
reconciler asks `due` where it asks failover, and waits no longer than `wait` between looks.
When the last render was made is kept in memory only: after a restart the first look renders
anyway, and what the autoscaler decided is on the rendered branch.
"""

from __future__ import annotations

from collections.abc import Callable

from gitfleet import autoscaling, pipeline
from gitfleet.gitstore.repository import Repository
from gitfleet.model import loaded
from gitfleet.model.template import ResourceKey
from gitfleet.status import read as status_read


def measure(repo: Repository, source: loaded.LoadedSource) -> pipeline.Measured | None:
    """Every workload the agents measured, by template, from every cluster's last report;
    None (nothing read) when the source has no FederatedHPA."""
    if not source.objects.federated_hpas:
        return None
    found: dict[ResourceKey, list[autoscaling.Workload]] = {}
    for name, report in sorted(status_read.reports_of(repo).items()):
        for manifest in report.manifests:
            workload = autoscaling.from_report(name, manifest.metrics, manifest.observed)
            if workload is not None:
                found.setdefault(manifest.key, []).append(workload)
    return found


class AutoscaleWatch:
    """The reconciler's memory of its last evaluation."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._period: float | None = None
        """The sync period of the source last rendered; None when it has no FederatedHPA."""
        self._last = 0.0

    def remember(self, source: loaded.LoadedSource) -> None:
        """An evaluation of `source` was just rendered."""
        found = bool(source.objects.federated_hpas)
        self._period = source.config.autoscaling.sync_period_seconds if found else None
        self._last = self.clock()

    def due(self) -> bool:
        return self._period is not None and self.clock() - self._last >= self._period

    def wait(self, interval: float) -> float:
        """How long the reconciler may wait for a poke before its next look."""
        if self._period is None:
            return interval
        return max(0.0, min(interval, self._last + self._period - self.clock()))
