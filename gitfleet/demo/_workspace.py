"""The demo's folder: the user's source repository (a copy of the example fleet), the bare
repository everything meets at, as a Git host would hold it, the simulated clusters'
kubeconfigs and the agents' caches.

Changes are made the way a user makes them: edit a file in the working copy, commit, push.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from gitfleet.gitstore import scaffold

SETTINGS = """
# Added by `gitfleet demo`: fail over within seconds rather than minutes (the defaults are a
# 40s heartbeat grace period, a 30s failure threshold, 300s of toleration and a 10m graceful
# eviction timeout).
failover:
  heartbeatGracePeriod: 10s
  clusterFailureThreshold: 3s
  defaultTolerationSeconds: 5
  gracefulEvictionTimeout: 60s
"""


@dataclasses.dataclass(frozen=True, slots=True)
class Workspace:
    root: Path
    branch: str
    """The source branch."""

    @property
    def source(self) -> Path:
        """The user's working copy."""
        return self.root / "source"

    @property
    def remote(self) -> Path:
        """The bare repository: the reconciler, the push agent and `gitfleet status` read it,
        the pull agent reaches it by URL."""
        return self.root / "fleet.git"

    @property
    def url(self) -> str:
        return self.remote.as_uri()

    @property
    def kubeconfigs(self) -> Path:
        return self.root / "kubeconfigs"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @classmethod
    def create(cls, root: Path) -> Workspace:
        """The example fleet committed in `root/source` with the demo's failover settings,
        and pushed to the bare repository `root/fleet.git`. `root` is made absolute: git runs
        in other folders, and the bare repository is reached by a file:// URL."""
        root = root.absolute()
        root.mkdir(parents=True, exist_ok=True)
        _, branch, _ = scaffold.scaffold(root / "source")
        made = cls(root, branch)
        settings = made.source / "gitfleet.yaml"
        text = settings.read_text(encoding="utf-8")
        made.commit({"gitfleet.yaml": text + SETTINGS}, "Fail over within seconds", push=False)
        scaffold.git(root, "clone", "-q", "--bare", str(made.source), str(made.remote))
        scaffold.git(made.source, "remote", "add", "origin", str(made.remote))
        made.kubeconfigs.mkdir()
        return made

    def commit(self, files: Mapping[str, str], message: str, *, push: bool = True) -> str:
        """Write `files` (path: text) in the working copy, commit them and push; the commit."""
        for path, text in files.items():
            target = self.source / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        scaffold.git(self.source, "add", "--", *files)
        scaffold.commit(self.source, message)
        if push:
            scaffold.git(self.source, "push", "-q", "origin", f"HEAD:{self.branch}")
        return scaffold.git(self.source, "rev-parse", "HEAD")

    def read(self, path: str) -> str:
        return (self.source / path).read_text(encoding="utf-8")
