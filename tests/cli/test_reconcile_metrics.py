"""`gitfleet reconcile --metrics-address` as a process: metrics and probes as a user gets them.

Aspects covered:
- `--metrics-address 127.0.0.1:0` logs the address it listens on (`metrics-listening`);
  `/readyz` passes once the first look is done, `/metrics` counts the render and says the
  reconciler leads (no leader election: it always does); `--log-format json` logs one JSON
  object a line; SIGTERM ends it with exit 0 and nothing on stderr;
- a metrics address in use exits 1 with the reason; a malformed one is a usage error (2).
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from typing import Any

from cli.logged import BOUND, read_until
from monitor.scrape import get, scrape, value
from service.service_helpers import wait_for


def test_metrics_of_the_running_command(git_repo: Any) -> None:
    git_repo.commit({"README.md": "fleet\n"})
    process = subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", "--repo", ".", "--no-watch",
         "--interval", "60", "--metrics-address", "127.0.0.1:0", "--log-format", "json"],
        cwd=git_repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines: list[str] = []
    try:
        url = "http://" + read_until(process, "metrics-listening", lines)["address"]
        read_until(process, "rendered", lines)
        wait_for(lambda: get(url + "/readyz") == (200, "ok\n"), "ready")
        samples = scrape(url)
        assert value(samples, "gitfleet_leader") == 1
        assert value(samples, "gitfleet_renders_total", result="rendered") == 1
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=BOUND)
    assert [json.loads(line)["event"] for line in [*lines, *out.splitlines()]][-1] == "stopped"
    assert (err, process.returncode) == ("", 0)


def test_metrics_address_in_use_exits_1(cli: Any, git_repo: Any) -> None:
    git_repo.commit({"README.md": "fleet\n"})
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = cli("reconcile", "--repo", str(git_repo.path), "--no-watch",
                     "--metrics-address", f"127.0.0.1:{port}")  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == f"error: metrics address 127.0.0.1:{port}: Address already in use\n"


def test_a_malformed_metrics_address_is_a_usage_error(cli: Any, git_repo: Any) -> None:
    result = cli("reconcile", "--repo", str(git_repo.path), "--metrics-address", "here")
    assert result.exit_code == 2
    assert "metrics address 'here': expected HOST:PORT" in result.stderr
