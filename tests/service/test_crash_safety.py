"""The reconciler killed at any point: no partial render is ever visible, and a restart
finishes the work.

Aspects covered:
- killed (os._exit, at the exact moment) after committing into a remote's mirror and before
  pushing: the remote shows nothing new; a restart with the same cache renders and pushes;
- killed after reading the tip and before committing, on a local repository: nothing moved;
- `gitfleet reconcile` killed with SIGKILL at several moments while it renders pushes to a
  remote: after every kill, the remote's rendered branch and per-cluster refs agree with each
  other (each cluster ref holds exactly the tip's folder of that cluster) and name a pushed
  source commit; `--once` afterwards renders the newest commit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from service.service_helpers import BOUND, ROOT, Fleet

from gitfleet.service import reconciler

KILL_DELAYS = (0.0, 0.03, 0.08, 0.2)
"""Seconds after a look starts: while loading, rendering, committing, pushing, writing status."""
KILL_AT = """
import os, sys
from pathlib import Path
from gitfleet.service import events, reconciler

def sink(event):
    print(events.text_line(event), flush=True)
    if event.name == sys.argv[3]:
        os._exit(9)

cache = Path(sys.argv[2]) if sys.argv[2] else None
service = reconciler.Reconciler(reconciler.Settings(repo=sys.argv[1], cache=cache), sink)
service.cycle()
"""


def killed_at(repo: str, cache: Path | None, event: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", KILL_AT, repo, str(cache or ""), event],
        cwd=ROOT, capture_output=True, text=True, timeout=BOUND, check=False,
    )  # fmt: skip


def work_refs(fleet: Fleet) -> dict[str, str]:
    out = fleet.git(
        "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/gitfleet/works/"
    )
    return dict(line.split(" ") for line in out.splitlines())


def _outlived(group: int) -> None:
    """Wait for what the killed reconciler started to end on its own: a `git push` it ran
    goes on without it, and the remote's refs are read once that push has ended, as a real
    remote's would be (a local remote's refs change one file at a time while a push lands)."""
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.02)
    pytest.fail("what the killed reconciler started is still running")


def consistent(fleet: Fleet, sources: set[str]) -> None:
    """The remote's rendered tip and cluster refs describe one and the same render."""
    tip = fleet.ref("refs/heads/gitfleet/rendered")
    if tip is None:
        assert work_refs(fleet) == {}
        return
    assert fleet.rendered_source() in sources
    folders = fleet.git("ls-tree", "--name-only", f"{tip}:works").split()
    for ref, commit in work_refs(fleet).items():
        name = ref.rsplit("/", 1)[1]
        own = fleet.git("ls-tree", "--name-only", f"{commit}:works").split()
        if name in folders:
            assert fleet.git("rev-parse", f"{commit}:works/{name}") == fleet.git(
                "rev-parse", f"{tip}:works/{name}"
            )
        else:
            assert own == []


def test_killed_between_commit_and_push(fleet: Fleet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    done = killed_at(fleet.url, cache, "committed")
    assert done.returncode == 9, done.stderr
    assert " committed " in done.stdout
    assert fleet.ref("refs/heads/gitfleet/rendered") is None
    assert work_refs(fleet) == {}
    service = reconciler.Reconciler(
        reconciler.Settings(repo=fleet.url, cache=cache), lambda e: None
    )
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
    finally:
        service.close()
    assert fleet.rendered_source() == fleet.ref("main")
    consistent(fleet, {fleet.ref("main") or ""})


def test_killed_before_commit_moves_nothing(fleet: Fleet) -> None:
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        service.cycle()
    finally:
        service.close()
    before = fleet.git("for-each-ref", "--format=%(refname) %(objectname)")
    fleet.push_change()
    pushed_refs = fleet.git("for-each-ref", "--format=%(refname) %(objectname)")
    done = killed_at(str(fleet.remote), None, "rendering")
    assert done.returncode == 9, done.stderr
    assert pushed_refs != before
    assert fleet.git("for-each-ref", "--format=%(refname) %(objectname)") == pushed_refs


def test_sigkill_at_any_moment_leaves_the_remote_consistent(fleet: Fleet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    sources = {fleet.ref("main") or ""}
    command = [
        sys.executable, "-m", "gitfleet", "reconcile", "--repo", fleet.url, "--cache", str(cache),
        "--interval", "0.05",
    ]  # fmt: skip
    for delay in KILL_DELAYS:
        sources.add(fleet.push_change())
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, text=True, start_new_session=True
        )
        watchdog = threading.Timer(BOUND, process.kill)
        watchdog.start()
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if " seen " in line:
                    break
            else:
                pytest.fail("the reconciler logged no look")
            time.sleep(delay)
            os.kill(process.pid, signal.SIGKILL)
        finally:
            watchdog.cancel()
            process.wait(BOUND)
            process.stdout.close()  # type: ignore[union-attr]
        _outlived(process.pid)
        consistent(fleet, sources)
    done = subprocess.run(
        [*command, "--once"], cwd=ROOT, capture_output=True, text=True, timeout=BOUND, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert fleet.rendered_source() == fleet.ref("main")
    consistent(fleet, sources)
