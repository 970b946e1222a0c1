"""`gitfleet demo` end to end: the whole story on simulated clusters, in fast mode.

Aspects covered:
- in-process (`-o json`): exit 0 and a summary saying that every cluster (Push and Pull)
  converged, the scale and the override reached them, the failed cluster's web replicas moved
  to the others and stayed there after it recovered; the story is told on standard error with
  the reconciler's failover commits; every table names its rendered commit with that commit's
  own message, and the table of the step that moves web off the failed cluster already shows
  the new placement (the replicas each cluster was asked for); every demo thread is stopped
  and the temporary folder removed;
- as a command (`--keep`, `--dir` relative to the current folder): everything keeps running
  after the summary, `gitfleet status` works on the kept repository meanwhile, SIGINT stops
  it with exit 0 and the folder stays;
- as a command, Ctrl-C twice while it starts: exit 130 and a summary saying it was stopped,
  no traceback; Ctrl-C to its whole process group while a git it runs (the story's first
  commit), killing that git first: exit 130, stopped, not failed.

A command that does not end within 120 s of its signal gets SIGABRT, which (with
PYTHONFAULTHANDLER) makes it print every thread's stack into the failure message.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

Invoke = Any
BOUND = 120.0
"""Seconds after a signal that only a hung demo exceeds (it normally ends within seconds)."""
MODES = ("Push", "Pull", "-")
"""What the MODE column of the demo's status table holds."""


def test_the_demo_tells_the_whole_story(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    done = cli("demo", "--fast", "-o", "json")
    assert done.exit_code == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["ok"] and summary["error"] is None and summary["stuck"] == []
    assert sorted(set(summary["clusters"].values())) == ["Pull", "Push"]
    steps = [s["step"] for s in summary["steps"]]
    assert steps == [
        "converge", "scale", "override", "unhealthy", "moved", "released", "recovered",
        "canary", "rollout", "rolled-back",
    ]  # fmt: skip
    failover = summary["failover"]
    down = failover["cluster"]
    assert down in failover["before"] and down not in failover["after"]
    assert sum(failover["before"].values()) == sum(failover["after"].values()) == 9
    assert failover["afterRecovery"] == failover["after"], "nothing moves back"
    assert f"failover: {down} NotReady since" in done.stderr
    assert f"failover: {down} Ready again" in done.stderr
    told = done.stderr.splitlines()
    _assert_tables_name_their_commit(told)
    assert _desired_after(told, f"shop/web moved off {down}:") == failover["after"]
    assert summary["workspace"] is None and list(tmp_path.iterdir()) == []
    assert not [t for t in threading.enumerate() if t.name.startswith("gitfleet-")]


def _assert_tables_name_their_commit(told: list[str]) -> None:
    """Each table's first line (`  rendered <sha>: <message>`) gives the message the commit
    was told with (`    reconciler rendered <sha>: <message>`)."""
    messages = dict(
        line.split("reconciler rendered ", 1)[1].split(": ", 1)
        for line in told
        if "reconciler rendered " in line
    )
    heads = [
        line.strip().removeprefix("rendered ") for line in told if line.startswith("  rendered ")
    ]
    assert heads, told
    for head in heads:
        commit, message = head.split(": ", 1)
        assert messages[commit] == message, head


def _desired_after(told: list[str], step: str) -> dict[str, int]:
    """The replicas of shop/web each cluster runs or is asked to run (the `ready/desired`
    column) in the table written after the line telling `step`."""
    at = next(i for i, line in enumerate(told) if step in line)
    header = next(i for i in range(at, len(told)) if told[i].strip().startswith("CLUSTER"))
    desired = {}
    for line in told[header + 1 :]:
        cells = line.split()
        if line[:2] != "  " or line[2:3].isspace() or len(cells) < 6 or cells[1] not in MODES:
            break  # a row: indented by two spaces, its MODE second (a step's `  ✓` line is not)
        if cells[5] != "-":
            desired[cells[0]] = int(cells[5].split("/")[1])
    return {name: n for name, n in desired.items() if n}


class Running:
    """`gitfleet demo --fast -o json` as a process, its standard error read as it comes (so
    the demo never blocks on a full pipe)."""

    def __init__(
        self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1", **(env or {})}
        command = [sys.executable, "-m", "gitfleet", "demo", "--fast", "-o", "json", *args]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,  # a process group of its own, as a terminal gives a command
        )
        self.told: list[str] = []
        self._new_line = threading.Condition()
        self._ended = False
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self._new_line:
                self.told.append(line)
                self._new_line.notify_all()
        with self._new_line:
            self._ended = True
            self._new_line.notify_all()

    def said(self, text: str) -> bool:
        return any(text in line for line in self.told)

    def until(self, text: str, timeout: float = 180) -> None:
        """Wait for a line holding `text` on standard error."""
        with self._new_line:
            self._new_line.wait_for(lambda: self._ended or self.said(text), timeout)
        assert self.said(text), "".join(self.told)

    def stop(self, *signals: int) -> tuple[int, str]:
        """Send `signals`; the exit code and standard output once the demo ended."""
        assert self.process.stdout is not None
        for sig in signals:
            self.process.send_signal(sig)
        deadline = threading.Timer(BOUND, self.process.send_signal, (signal.SIGABRT,))
        deadline.start()
        try:
            out = self.process.stdout.read()
            self.process.wait()
        finally:
            deadline.cancel()
            self._reader.join(timeout=10)
        return self.process.returncode, out

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def test_keep_leaves_everything_running_until_interrupted(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    demo = Running("--keep", "--dir", "demo", cwd=tmp_path)
    try:
        demo.until("press Ctrl-C to stop")
        assert demo.said("try: gitfleet status --repo"), "".join(demo.told)
        status = subprocess.run(
            [sys.executable, "-m", "gitfleet", "status", "--repo", str(folder / "fleet.git")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert status.returncode == 0, status.stderr
        assert "gcp-euw1-a" in status.stdout
        code, out = demo.stop(signal.SIGINT)
    finally:
        demo.kill()
    assert code == 0, "".join(demo.told[-60:])
    summary = json.loads(out)
    assert summary["ok"] and summary["workspace"] == "demo"
    assert (folder / "fleet.git").is_dir() and (folder / "source" / "gitfleet.yaml").is_file()


def test_ctrl_c_twice_while_it_starts_stops_it_with_a_summary(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    demo = Running("--keep", "--dir", str(folder))
    try:
        demo.until("Simulated clusters:")
        code, out = demo.stop(signal.SIGINT, signal.SIGINT)
    finally:
        demo.kill()
    told = "".join(demo.told)
    assert code == 130, told[-4000:]
    assert "Traceback" not in told
    summary = json.loads(out)
    assert summary["stopped"] and not summary["ok"] and summary["error"] == "stopped"
    assert summary["stuck"] == [] and summary["steps"] == []
    assert summary["workspace"] == str(folder)


GIT_INTERRUPTED_WHILE_ADDING = """\
#!/bin/sh
# git, except that the first `git add --` (the story's first commit) is interrupted as Ctrl-C
# interrupts it: the whole process group gets SIGINT while it runs, git first.
if [ "$1" = add ] && [ "$2" = -- ] && mkdir "{mark}" 2>/dev/null; then kill -INT 0; fi
exec "{git}" "$@"
"""


def test_ctrl_c_that_kills_the_git_it_runs_is_a_stop_not_a_failure(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole process group, so a git the story runs may die of it before the
    demo hears the signal: the demo says it was stopped (exit 130), not that it failed."""
    real_git, mark = shutil.which("git"), tmp_path / "interrupted"
    assert real_git is not None
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(GIT_INTERRUPTED_WHILE_ADDING.format(mark=mark, git=real_git))
    wrapper.chmod(0o755)
    demo = Running(env={"PATH": f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}"})
    try:
        code, out = demo.stop()
    finally:
        demo.kill()
    told = "".join(demo.told)
    assert mark.is_dir(), told[-4000:]
    assert code == 130, told[-4000:]
    summary = json.loads(out)
    assert summary["stopped"] and not summary["ok"] and summary["error"] == "stopped"
    assert summary["stuck"] == []
