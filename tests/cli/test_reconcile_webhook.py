"""`gitfleet reconcile --webhook` as a process, under clients that misbehave.

Aspects covered:
- idle, trickling, oversized and vanishing clients against the running command
  (`--webhook-timeout`, `--webhook-max-body`, `--webhook-max-connections` as a user types
  them): the service answers a genuine push afterwards, its `-o json` log stays one JSON
  object per line, and nothing reaches stderr (no traceback);
- an address that cannot be listened on (in use) exits 1 with the reason on stderr;
- the webhook limits without `--webhook` are a usage error (exit 2).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli.logged import read_until

from gitfleet.service import webhook

BOUND = 20.0
SECRET = b"s3cret"


def _start(repo: Path, tmp_path: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", "--repo", ".", "--no-watch",
         "--interval", "60", "--webhook", "127.0.0.1:0", "--webhook-timeout", "0.5",
         "--webhook-max-body", "4096", "--webhook-max-connections", "2", "-o", "json"],
        cwd=repo, env={**os.environ, "GITFLEET_WEBHOOK_SECRET": SECRET.decode()},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _misbehave(address: tuple[str, int]) -> None:
    """An idle client, a trickling one, one over the body limit, one that resets."""
    idle = socket.create_connection(address)
    slow = socket.create_connection(address)
    slow.sendall(b"POST / HTTP/1.1\r\nHost: g\r\n")
    github = b"POST / HTTP/1.1\r\nHost: g\r\nX-GitHub-Event: push\r\nX-Hub-Signature-256: x\r\n"
    with socket.create_connection(address, timeout=BOUND) as large:
        large.sendall(github + b"Content-Length: 30000000\r\n\r\n")
        assert large.recv(64).startswith(b"HTTP/1.1 413 ")
    reset = socket.create_connection(address)
    reset.sendall(github + b"Content-Length: 10\r\n\r\nabc")
    reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    reset.close()
    for sock in (idle, slow):
        assert sock.recv(64).startswith(b"HTTP/1.1 408 ")
        sock.close()


def test_misbehaving_clients_leave_the_service_serving(git_repo: Any, tmp_path: Path) -> None:
    head = git_repo.commit({"README.md": "fleet\n"})
    process = _start(git_repo.path, tmp_path)
    lines: list[str] = []
    try:
        host, port = read_until(process, "listening", lines)["address"].rsplit(":", 1)
        _misbehave((host, int(port)))
        body = json.dumps({"ref": "refs/heads/main", "after": head}).encode()
        signed = {
            "X-GitHub-Event": "push",
            "X-Hub-Signature-256": webhook.sign_github(SECRET, body),
        }
        conn = http.client.HTTPConnection(host, int(port), timeout=BOUND)
        conn.request("POST", "/", body, signed)
        assert conn.getresponse().status == 202
        conn.close()
        assert read_until(process, "webhook", lines)["source"] == head
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=BOUND)
    lines += out.splitlines()
    logged = [json.loads(line) for line in lines]
    assert {"webhook-rejected", "webhook-dropped", "webhook", "stopped"} <= {
        e["event"] for e in logged
    }
    assert {e["status"] for e in logged if e["event"] == "webhook-rejected"} == {408, 413}
    assert err == ""
    assert process.returncode == 0


@pytest.mark.parametrize(
    "option", [["--webhook-timeout", "3"], ["--webhook-max-body", "2048"],
               ["--webhook-max-connections", "8"]],
)  # fmt: skip
def test_webhook_limits_need_the_webhook(cli: Any, git_repo: Any, option: list[str]) -> None:
    result = cli("reconcile", "--repo", str(git_repo.path), "--once", *option)
    assert result.exit_code == 2
    assert f"{option[0]} applies to --webhook" in result.stderr


def test_address_in_use_exits_1(cli: Any, git_repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo.commit({"README.md": "fleet\n"})
    monkeypatch.setenv("GITFLEET_WEBHOOK_SECRET", SECRET.decode())
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = cli("reconcile", "--repo", str(git_repo.path), "--no-watch",
                     "--webhook", f"127.0.0.1:{port}")  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr == f"error: webhook address 127.0.0.1:{port}: Address already in use\n"
