"""`gitfleet reconcile` as a process: SIGTERM and SIGINT end it cleanly with exit 0.

Aspects covered:
- SIGTERM while idle: the last log line is `stopped`, exit 0;
- SIGINT while it watches and serves a webhook: exit 0, the port is released;
- SIGTERM while a commit is being rendered: exit 0, and the rendered branch either still
  lacks the commit or holds its complete render (with every cluster ref).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOUND = 20.0


@pytest.fixture(name="bare_fleet")
def bare_fleet_fixture(git_repo: Any, bare_remote: Path) -> Path:
    shutil.copytree(ROOT / "example-repo", git_repo.path, dirs_exist_ok=True)
    git_repo.commit({})
    git_repo.git("push", "-q", "origin", "main")
    return bare_remote


def _lines(process: subprocess.Popen[str]) -> Iterator[str]:
    """Lines as the process writes them (not `yield from`, which would close the pipe when
    the caller stops early)."""
    assert process.stdout is not None
    while line := process.stdout.readline():
        yield line


def start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "GITFLEET_WEBHOOK_SECRET": "s"}
    return subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip


def until(process: subprocess.Popen[str], word: str) -> str:
    """The first line logging `word`; the process is killed (and the test fails) if it does
    not come within BOUND seconds."""
    watchdog = threading.Timer(BOUND, process.kill)
    watchdog.start()
    try:
        for line in _lines(process):
            if f" {word} " in line:
                return line
    finally:
        watchdog.cancel()
    pytest.fail(f"the process ended, or logged nothing, before logging {word}")


def finish(process: subprocess.Popen[str], sig: int) -> tuple[int, list[str]]:
    process.send_signal(sig)
    rest = list(_lines(process))
    return process.wait(BOUND), rest


def test_sigterm_when_idle_exits_0(bare_fleet: Path) -> None:
    process = start("--repo", str(bare_fleet), "--interval", "60")
    until(process, "rendered")
    code, rest = finish(process, signal.SIGTERM)
    assert code == 0
    assert rest[-1].split(" ")[1] == "stopped"


def test_sigint_with_watcher_and_webhook_exits_0(bare_fleet: Path) -> None:
    process = start("--repo", str(bare_fleet), "--webhook", "127.0.0.1:0")
    line = until(process, "listening")
    port = int(line.rsplit(":", 1)[1])
    until(process, "started")
    code, _ = finish(process, signal.SIGINT)
    assert code == 0
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))


def test_sigterm_during_a_render_exits_0_without_a_partial_render(
    git_repo: Any, bare_fleet: Path
) -> None:
    process = start("--repo", str(bare_fleet), "--interval", "60")
    until(process, "rendered")
    git_repo.commit({"apps/shop/extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
                     "  name: extra\n  namespace: shop\ndata:\n  a: b\n"})  # fmt: skip
    git_repo.git("push", "-q", "origin", "main")
    until(process, "rendering")
    code, rest = finish(process, signal.SIGTERM)
    assert code == 0
    assert rest[-1].split(" ")[1] == "stopped"
    tip = subprocess.run(
        ["git", "--git-dir", str(bare_fleet), "log", "-1",
         "--format=%(trailers:key=Source-Commit,valueonly)", "gitfleet/rendered"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    head = git_repo.git("rev-parse", "HEAD")
    names = [line.split(" ")[1] for line in rest]
    assert (tip == head) == ("rendered" in names)
