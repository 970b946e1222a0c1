"""What the demo watches, read from the bare repository the way a user would with
`gitfleet status`: the fleet view (`gitfleet.status.read`), plus the rendered tip's commit
message, its render.yaml failover section and its bindings, all of the commit the view is of
(the reconciler may move the branch between the two reads: then both are read again)."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from gitfleet import pipeline
from gitfleet import status as fleet_status
from gitfleet.gitstore import rendered, repository
from gitfleet.model import loaded, work
from gitfleet.model.template import ResourceKey
from gitfleet.status import read as status_read

Binding = work.ResourceBinding | work.ClusterResourceBinding


@dataclasses.dataclass(frozen=True, slots=True)
class State:
    """The fleet at one moment."""

    view: fleet_status.FleetView
    subject: str
    """The first line of the rendered tip's commit message."""
    failover: Mapping[str, Any]
    """render.yaml's `failover` section (empty before failover ever ran)."""
    bindings: Mapping[ResourceKey, Binding]

    @property
    def tip(self) -> str | None:
        return self.view.rendered.commit

    @property
    def source_commit(self) -> str | None:
        return self.view.rendered.source_commit

    def converged(self, source_commit: str, down: Collection[str] = ()) -> bool:
        """The tip renders `source_commit`, and every cluster but those `down` applied it
        all and is ready."""
        if self.source_commit != source_commit or not self.view.clusters:
            return False
        return all(
            row.synced and row.converged and row.ready == "True"
            for row in self.view.clusters
            if row.name not in down
        )

    def applied(self, key: ResourceKey) -> bool:
        """Every cluster the tip places the workload on reports the replicas the tip asks of
        it (ready or not yet): the table shows the placement."""
        replicas = self.ready_replicas(key)
        return all(
            name in replicas and replicas[name][1] == wanted
            for name, wanted in self.placed(key).items()
        )

    def runs(self, key: ResourceKey) -> bool:
        """Every cluster the tip places the workload on reports all its replicas ready."""
        replicas = self.ready_replicas(key)
        return all(
            replicas.get(name) == (wanted, wanted) for name, wanted in self.placed(key).items()
        )

    def placed(self, key: ResourceKey) -> dict[str, int]:
        """Replicas of the resource per cluster in the tip's schedule."""
        found = self.bindings.get(key)
        return {t.name: t.replicas for t in found.spec.clusters} if found else {}

    def evicting(self, key: ResourceKey) -> tuple[str, ...]:
        found = self.bindings.get(key)
        return work.evicting_clusters(found.spec) if found else ()

    def unhealthy(self) -> tuple[str, ...]:
        """The clusters failover found unhealthy in the tip's render."""
        clusters = self.failover.get("clusters")
        return tuple(sorted(clusters)) if isinstance(clusters, dict) else ()

    def ready_replicas(self, key: ResourceKey) -> dict[str, tuple[int, int]]:
        """Per cluster where the resource is, (ready, desired) replicas as its agent reported."""
        found = {}
        for row in self.view.resources:
            if row.key != key:
                continue
            for item in row.items:
                status = item.status if isinstance(item.status, dict) else {}
                ready, wanted = status.get("readyReplicas", 0), status.get("replicas", 0)
                if isinstance(ready, int) and isinstance(wanted, int):
                    found[item.cluster_name] = (ready, wanted)
        return found


def _subject(repo: repository.Repository, commit: str) -> str:
    code, out, _ = repo.run("log", "-1", "--format=%s", commit)
    return out.decode("utf-8", "replace").strip() if code == 0 else ""


def _bindings(
    repo: repository.Repository, tip: rendered.Tip
) -> tuple[Mapping[str, Any], Mapping[ResourceKey, Binding]]:
    previous = pipeline.read_previous(tip.commit, tip.files, rendered.reader(repo, tip))
    section = previous.report.get("failover")
    return (section if isinstance(section, dict) else {}), previous.bindings


READS = 20
"""How many times a state is read while the branch keeps moving between its two reads (the
reconciler renders a few times a step; the last read is taken when it moved every time)."""


def read(remote: Path) -> State:
    """The state of the fleet whose repository is `remote`."""
    repo = repository.open_repository(remote)
    assert repo is not None, f"{remote} is not a repository"
    try:
        for _ in range(READS):
            view = status_read.read(str(remote), now=datetime.datetime.now(datetime.UTC))
            branch = view.rendered.branch or loaded.DEFAULT_RENDERED_BRANCH
            tip = rendered.read_tip(repo, branch)
            if (tip.commit if tip is not None else None) == view.rendered.commit:
                break
        if tip is None:
            return State(view, "", {}, {})
        section, bindings = _bindings(repo, tip)
        return State(view, _subject(repo, tip.commit), section, bindings)
    finally:
        repo.close()
