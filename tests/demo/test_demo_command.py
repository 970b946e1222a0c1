"""`gitfleet demo` end to end: the whole story on simulated clusters, in fast mode.

Aspects covered:
- in-process (`-o json`): exit 0 and a summary saying that every cluster (Push and Pull)
  converged, the scale and the override reached them, the failed cluster's web replicas moved
  to the others and stayed there after it recovered; the story is told on standard error with
  the reconciler's failover commits; every demo thread is stopped and the temporary folder
  removed;
- as a command (`--keep`): everything keeps running after the summary, `gitfleet status`
  works on the kept repository meanwhile, SIGINT stops it with exit 0 and the folder stays.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

Invoke = Any


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
    assert steps == ["converge", "scale", "override", "unhealthy", "moved", "released", "recovered"]
    failover = summary["failover"]
    down = failover["cluster"]
    assert down in failover["before"] and down not in failover["after"]
    assert sum(failover["before"].values()) == sum(failover["after"].values()) == 9
    assert failover["afterRecovery"] == failover["after"], "nothing moves back"
    assert f"failover: {down} NotReady since" in done.stderr
    assert f"failover: {down} Ready again" in done.stderr
    assert summary["workspace"] is None and list(tmp_path.iterdir()) == []
    assert not [t for t in threading.enumerate() if t.name.startswith("gitfleet-")]


def test_keep_leaves_everything_running_until_interrupted(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONFAULTHANDLER": "1"}
    command = [sys.executable, "-m", "gitfleet", "demo", "--fast", "--keep", "-o", "json"]
    process = subprocess.Popen(
        [*command, "--dir", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    told: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        # Read stderr to the end, so the demo never blocks on a full pipe while it runs.
        assert process.stderr is not None
        for line in process.stderr:
            told.append(line)
            if "press Ctrl-C to stop" in line:
                ready.set()
        ready.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        assert ready.wait(timeout=180), "".join(told)
        assert any("try: gitfleet status --repo" in line for line in told), "".join(told)
        status = subprocess.run(
            [sys.executable, "-m", "gitfleet", "status", "--repo", str(folder / "fleet.git")],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert status.returncode == 0, status.stderr
        assert "gcp-euw1-a" in status.stdout
        process.send_signal(signal.SIGINT)
        assert process.stdout is not None
        # SIGABRT, with PYTHONFAULTHANDLER set, makes a hung demo print every thread's stack.
        deadline = threading.Timer(120, process.send_signal, (signal.SIGABRT,))
        deadline.start()
        try:
            out = process.stdout.read()
            process.wait()
        finally:
            deadline.cancel()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=10)
    assert process.returncode == 0, "".join(told[-60:])
    summary = json.loads(out)
    assert summary["ok"] and summary["workspace"] == str(folder)
    assert (folder / "fleet.git").is_dir() and (folder / "source" / "gitfleet.yaml").is_file()
