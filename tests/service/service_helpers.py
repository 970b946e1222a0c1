"""Helpers for the reconciler's tests: git, bounded waits, the fleet repositories and a
reconciler running on a thread (the fixtures that build them are in conftest.py).

Waits poll every 20 ms up to a generous bound, so a test is as fast as the behaviour it
checks and fails (rather than hangs) when the behaviour is missing.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitfleet.gitstore import repository
from gitfleet.service import events, reconciler
from gitfleet.status import reconciler_state

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "example-repo"
WEB = "apps/shop/web.yaml"
BOUND = 20.0
"""Seconds any wait may take before the test fails."""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(*args: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **GIT_ENV}, check=True,
        capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def wait_for(check: Callable[[], Any], what: str, bound: float = BOUND) -> Any:
    """Poll `check` until it returns something truthy; fail after `bound` seconds."""
    deadline = time.monotonic() + bound
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {bound}s waiting for {what}")
        time.sleep(0.02)


@dataclasses.dataclass
class Fleet:
    """A bare repository holding the example fleet on `main`, and a clone to push from."""

    remote: Path
    work: Path
    counter: int = 0

    @property
    def url(self) -> str:
        return self.remote.as_uri()

    def git(self, *args: str) -> str:
        """git in the remote (bare) repository."""
        return git("--git-dir", str(self.remote), *args)

    def push_change(self, text: str | None = None, force: bool = False) -> str:
        """Commit a change to the web app's config in the clone and push it; the new commit."""
        self.counter += 1
        path = self.work / WEB
        body = path.read_text(encoding="utf-8")
        before = body.split("LOG_LEVEL: ", 1)[1].split("\n", 1)[0]
        path.write_text(
            body.replace(f"LOG_LEVEL: {before}", f"LOG_LEVEL: {text or f'level-{self.counter}'}"),
            encoding="utf-8",
        )
        return self.commit_and_push(force)

    def commit_and_push(self, force: bool = False) -> str:
        git("add", "-A", cwd=self.work)
        git("commit", "-q", "--allow-empty", "-m", f"change {self.counter}", cwd=self.work)
        git("push", "-q", *(["--force"] if force else []), "origin", "main", cwd=self.work)
        return git("rev-parse", "HEAD", cwd=self.work)

    def ref(self, name: str) -> str | None:
        """Where a ref of the remote points, None if it does not exist."""
        try:
            return self.git("rev-parse", "--verify", "--quiet", name)
        except subprocess.CalledProcessError:
            return None

    def other_render(self, on: str, ref: str = "refs/heads/gitfleet/rendered") -> str:
        """A render by another writer on `ref`, now at `on`: the same tree and source commit
        in a new commit."""
        tree = self.git("rev-parse", f"{on}^{{tree}}")
        source = self.git("log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", on)
        message = f"another render\n\nSource-Commit: {source}\nGitfleet-Render: 0.0.0"
        made = self.git("commit-tree", tree, "-p", on, "-m", message)
        self.git("update-ref", ref, made, on)
        return made

    def reconciler_state(self) -> reconciler_state.ReconcilerState:
        """What the reconciler's status ref in the remote says (it must be there)."""
        repo = repository.open_repository(self.remote)
        assert repo is not None
        try:
            found, _ = reconciler_state.read(repo)
        finally:
            repo.close()
        assert found is not None
        return found

    def rendered_source(self, branch: str = "gitfleet/rendered") -> str | None:
        """The Source-Commit trailer of the rendered branch's tip."""
        if self.ref(f"refs/heads/{branch}") is None:
            return None
        text = self.git("log", "-1", "--format=%(trailers:key=Source-Commit,valueonly)", branch)
        return text.strip() or None

    def renders(self, branch: str = "gitfleet/rendered") -> list[tuple[str, list[str]]]:
        """(source commit, parents) of every commit of the rendered branch, newest first."""
        out = self.git(
            "log", "--format=%H %P%x00%(trailers:key=Source-Commit,valueonly)%x00", branch
        )
        found = []
        for record in out.split("\x00\n") if out else []:
            head, _, source = record.partition("\x00")
            parents = head.split()[1:]
            found.append((source.strip().rstrip("\x00").strip(), parents))
        return found


def break_web(fleet: Fleet) -> str:
    """Push a commit whose web app does not load (a YAML error in WEB)."""
    path = fleet.work / WEB
    path.write_text(path.read_text().replace("replicas: 6", "replicas: [6"), encoding="utf-8")
    return fleet.commit_and_push()


@dataclasses.dataclass
class Running:
    """A reconciler running `run()` on a thread, and the events it logged so far."""

    service: reconciler.Reconciler
    logged: list[events.Event]
    thread: threading.Thread

    def find(self, name: str, source: str | None = None) -> list[events.Event]:
        """The events called `name` (about `source`, if given) logged so far."""
        logged = list(self.logged)
        return [e for e in logged if e.name == name and source in (None, e.source)]

    def stop(self) -> None:
        self.service.wake.stop()
        self.thread.join(BOUND)
        assert not self.thread.is_alive(), "the reconciler did not stop"


Start = Callable[..., Running]
"""The `start` fixture: `start(settings, wake=None, on_event=None) -> Running`."""
