"""What hostile clients can take of `gitfleet reconcile --webhook`, with the default limits.

The service runs as a process (`--no-watch --interval 3600 -o json`, on a one-commit local
repository), and its resident memory and threads are read from /proc while, in turn:

- 20 clients each declare a 25 MiB body (GitHub's own limit) with a signature header, and
  send it;
- 20 clients each stream a 25 MiB chunked body (no length declared);
- 1,000 clients connect and send nothing (they wait in the kernel's queue beyond the
  connections served), held open for 3 s, then closed.

After each, a genuine signed push is sent and the time to its 202 measured. The process's
stderr must stay empty (no traceback) and every stdout line must be one JSON object. Exit 1
when memory grows by more than 64 MiB over the idle service, a thread is added, a push is not
accepted, or the logs break.

    python -m bench.bench_webhook      (from the repository root)
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from gitfleet.service import webhook

SECRET = b"bench-secret"
GROWTH_LIMIT = 64 * 1024 * 1024
CLIENTS = 20
IDLE = 1000
BODY = 25 * 1024 * 1024
_HEADERS = b"X-GitHub-Event: push\r\nX-Hub-Signature-256: sha256=00\r\n"


def _status(pid: int) -> tuple[int, int]:
    """(resident bytes, threads) of a process."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["Threads"])


def _peak_while(pid: int, work: Callable[[], None]) -> tuple[int, int]:
    """The highest (resident bytes, threads) of `pid` seen while `work` runs."""
    peak = [*_status(pid)]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            rss, threads = _status(pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], threads)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        work()
    finally:
        done.set()
        sampler.join()
    return peak[0], peak[1]


def _send_body(address: tuple[str, int], head: bytes, chunks: int, chunk: bytes) -> None:
    try:
        with socket.create_connection(address, timeout=30) as sock:
            sock.sendall(head)
            for _ in range(chunks):
                sock.sendall(chunk)
            sock.recv(1024)
    except OSError:
        return


def _clients(address: tuple[str, int], head: bytes, chunk: bytes) -> Callable[[], None]:
    def run() -> None:
        chunks = BODY // (len(chunk) or 1)
        threads = [
            threading.Thread(target=_send_body, args=(address, head, chunks, chunk))
            for _ in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    return run


def _declared(address: tuple[str, int]) -> Callable[[], None]:
    head = b"POST / HTTP/1.1\r\nHost: b\r\n" + _HEADERS + b"Content-Length: %d\r\n\r\n" % BODY
    return _clients(address, head, b"a" * 65536)


def _chunked(address: tuple[str, int]) -> Callable[[], None]:
    head = b"POST / HTTP/1.1\r\nHost: b\r\n" + _HEADERS + b"Transfer-Encoding: chunked\r\n\r\n"
    data = b"a" * 65536
    return _clients(address, head, b"%x\r\n%s\r\n" % (len(data), data))


def _idle(address: tuple[str, int]) -> Callable[[], None]:
    def run() -> None:
        sockets = []
        for _ in range(IDLE):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(address)
            sockets.append(sock)
        time.sleep(3.0)
        for sock in sockets:
            sock.close()

    return run


def _push(address: tuple[str, int], n: int) -> tuple[int, float]:
    """(status, seconds) of a genuine signed push."""
    body = json.dumps({"ref": "refs/heads/main", "after": f"{n:040x}"}).encode()
    headers = {"X-GitHub-Event": "push", "X-Hub-Signature-256": webhook.sign_github(SECRET, body)}
    start = time.perf_counter()
    conn = http.client.HTTPConnection(*address, timeout=60)
    try:
        conn.request("POST", "/", body, headers)
        status = conn.getresponse().status
    finally:
        conn.close()
    return status, time.perf_counter() - start


def _start(repo: Path) -> tuple[subprocess.Popen[str], tuple[str, int]]:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty",
         "-m", "start"], cwd=repo, check=True,
    )  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "gitfleet", "reconcile", "--repo", str(repo), "--no-watch",
         "--interval", "3600", "--webhook", "127.0.0.1:0", "-o", "json"],
        env={**os.environ, "GITFLEET_WEBHOOK_SECRET": SECRET.decode()},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    for line in process.stdout:
        event = json.loads(line)
        if event["event"] == "listening":
            host, port = event["address"].rsplit(":", 1)
            return process, (host, int(port))
    raise SystemExit("the service ended before listening")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gitfleet-bench-") as folder:
        process, address = _start(Path(folder) / "fleet")
        try:
            time.sleep(1.0)
            base_rss, base_threads = _status(process.pid)
            print(f"idle service: {base_rss / 2**20:.1f} MiB, {base_threads} threads")
            print(f"{'clients':<38} {'peak MiB':>8} {'threads':>7} {'push after':>10}")
            ok = True
            scenarios = {
                f"{CLIENTS} x declared 25 MiB bodies": _declared,
                f"{CLIENTS} x streamed 25 MiB chunked bodies": _chunked,
                f"{IDLE} idle connections for 3 s": _idle,
            }
            for n, (name, scenario) in enumerate(scenarios.items()):
                rss, threads = _peak_while(process.pid, scenario(address))
                status, seconds = _push(address, n)
                print(f"{name:<38} {rss / 2**20:>8.1f} {threads:>7} {status:>4} {seconds:>5.2f}s")
                ok &= rss - base_rss < GROWTH_LIMIT and threads == base_threads and status == 202
        finally:
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=30)
    lines = out.splitlines()
    broken = [line for line in lines if not line.startswith("{") or not line.endswith("}")]
    print(f"log: {len(lines)} more lines, {len(broken)} not JSON; stderr: {len(err)} characters")
    ok &= not broken and not err
    print("ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
