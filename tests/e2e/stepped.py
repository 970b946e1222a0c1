"""What the stepped end-to-end scenarios share: a clock the test moves, and the rendered
branch's tip as the agents would read it from the bare repository."""

from __future__ import annotations

import time
from pathlib import Path

from gitfleet.gitstore import rendered, repository


class Clock:
    """Starts at the current second; moves only when the test says."""

    def __init__(self) -> None:
        self.now = float(int(time.time()))

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def tip(remote: Path, branch: str = "gitfleet/rendered") -> tuple[str, dict[str, bytes], str]:
    """The rendered tip of `remote`: its commit, its `works/` files and its message."""
    repo = repository.open_repository(remote)
    assert repo is not None
    try:
        found = rendered.read_tip(repo, branch)
        assert found is not None
        files = rendered.read_files(repo, found, lambda p: p.startswith("works/"))
        message = repo.run("log", "-1", "--format=%B", found.commit)[1].decode()
        return found.commit, files, message
    finally:
        repo.close()
