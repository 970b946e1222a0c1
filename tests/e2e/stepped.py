"""What the stepped end-to-end scenarios share: a clock the test moves, the rendered branch's
tip as the agents would read it from the bare repository, and a fleet of Push clusters with
its reconciler and push agent on that clock."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from gitfleet.agent import kube, push
from gitfleet.gitstore import rendered, repository
from gitfleet.service import events, reconciler


class Clock:
    """Starts at the current second; moves only when the test says."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def tip(
    remote: Path, branch: str = "gitfleet/rendered", folders: tuple[str, ...] = ("works/",)
) -> tuple[str, dict[str, bytes], str]:
    """The rendered tip of `remote`: its commit, its files under `folders` and its message."""
    repo = repository.open_repository(remote)
    assert repo is not None
    try:
        found = rendered.read_tip(repo, branch)
        assert found is not None
        files = rendered.read_files(repo, found, lambda p: p.startswith(folders))
        message = repo.run("log", "-1", "--format=%B", found.commit)[1].decode()
        return found.commit, files, message
    finally:
        repo.close()


def replicas(files: Mapping[str, bytes], clusters: Iterable[str], path: str) -> dict[str, int]:
    """The replicas asked for by each cluster's manifest at `path` (inside the cluster's folder)
    among rendered `files`, for the clusters that have one."""
    found = {}
    for name in clusters:
        data = files.get(f"works/{name}/{path}")
        if data is not None:
            found[name] = int(yaml.safe_load(data)["spec"]["replicas"])
    return found


class PushFleet:
    """The remote, its reconciler and the push agent of its Push clusters, on a `Clock`, moved
    one step at a time."""

    def __init__(self, remote: Path, kubeconfigs: Path, sims: dict[str, Any]) -> None:
        self.remote, self.sims, self.clock = remote, sims, Clock()
        self.log: list[events.Event] = []
        self.reconciler = self._reconciler()
        self.push = push.PushAgent(
            push.Settings(
                repo=str(remote), kubeconfig_dir=kubeconfigs, cache_dir=remote.parent / "push",
                retry=kube.NO_WAIT, heartbeat=10.0,
            ),
            clock=self.clock,
        )  # fmt: skip

    def _reconciler(self) -> reconciler.Reconciler:
        settings = reconciler.Settings(repo=str(self.remote), branch="main", watch=False)
        return reconciler.Reconciler(settings, self.log.append, clock=self.clock)

    def restart(self) -> None:
        """A new reconciler, with nothing but Git from the one before."""
        self.reconciler.close()
        self.reconciler = self._reconciler()

    def agents(self) -> None:
        """The push agent syncs twice, the clusters' controllers settling after each."""
        for _ in range(2):
            results = self.push.once() or {}
            assert all(not r.error for r in results.values()), results
            for sim in self.sims.values():
                sim.cluster.settle()
