"""A webhook server on 127.0.0.1 for tests, and clients for it: well-behaved (http.client,
signed the way GitHub, GitLab, Gitea and Bitbucket sign) and raw sockets for clients that misbehave.
The fixtures that start the server are in conftest.py."""

from __future__ import annotations

import http.client
import json
import socket
import time
from collections.abc import Callable

from gitfleet.service import events, server, wakeup, webhook

SECRET = b"hook-secret"
COMMIT = "b" * 40
SOURCE_REF = "refs/heads/main"
BOUND = 20.0
"""Seconds a client waits for any answer before the test fails."""


def push_body(ref: str = SOURCE_REF, after: str = COMMIT) -> bytes:
    return json.dumps({"ref": ref, "after": after, "repository": {"name": "fleet"}}).encode()


def github(body: bytes, event: str = "push", delivery: str | None = None) -> dict[str, str]:
    """GitHub's headers for `body`, signed with SECRET."""
    headers = {"X-GitHub-Event": event, "X-Hub-Signature-256": webhook.sign_github(SECRET, body)}
    if delivery is not None:
        headers["X-GitHub-Delivery"] = delivery
    return headers


def gitlab(token: bytes = SECRET, delivery: str | None = None) -> dict[str, str]:
    headers = {"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": token.decode()}
    if delivery is not None:
        headers["Idempotency-Key"] = delivery
    return headers


def gitea(body: bytes, delivery: str | None = None) -> dict[str, str]:
    headers = {"X-Gitea-Event": "push", "X-Gitea-Signature": webhook.sign_gitea(SECRET, body)}
    if delivery is not None:
        headers["X-Gitea-Delivery"] = delivery
    return headers


def bitbucket_data_center_body(ref: str = SOURCE_REF, after: str = COMMIT) -> bytes:
    """Bitbucket Data Center's `repo:refs_changed` payload: a tag pushed with the branch."""
    changes = [
        {"ref": {"id": "refs/tags/v1", "type": "TAG"}, "refId": "refs/tags/v1",
         "fromHash": "0" * 40, "toHash": "c" * 40, "type": "ADD"},
        {"ref": {"id": ref, "displayId": ref.rpartition("/")[2], "type": "BRANCH"},
         "refId": ref, "fromHash": "a" * 40, "toHash": after, "type": "UPDATE"},
    ]  # fmt: skip
    return json.dumps({"eventKey": "repo:refs_changed", "changes": changes}).encode()


def bitbucket_cloud_body(branch: str = "main", after: str = COMMIT) -> bytes:
    """Bitbucket Cloud's `repo:push` payload: a branch deleted, then `branch` moved."""
    changes = [
        {"new": None, "old": {"type": "branch", "name": "gone"}},
        {"new": {"type": "branch", "name": branch, "target": {"hash": after}}},
    ]
    return json.dumps({"push": {"changes": changes}, "repository": {"name": "fleet"}}).encode()


def bitbucket(
    body: bytes, event: str = "repo:refs_changed", delivery: str | None = None
) -> dict[str, str]:
    """Bitbucket's headers for `body`, signed with SECRET (Data Center's delivery header)."""
    headers = {"X-Event-Key": event, "X-Hub-Signature": webhook.sign_bitbucket(SECRET, body)}
    if delivery is not None:
        headers["X-Request-Id"] = delivery
    return headers


class Served:
    """A started `WebhookServer` for SOURCE_REF and SECRET, what it logged, what it woke."""

    def __init__(self, limits: server.Limits, clock: Callable[[], float] = time.time) -> None:
        self.wake = wakeup.Wakeup()
        self.events: list[events.Event] = []
        self.server = server.WebhookServer(
            ("127.0.0.1", 0), SECRET, SOURCE_REF, self.wake, self.events.append, clock, limits
        )
        self.server.start()

    def post(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        return self.request("POST", "/hooks/gitfleet", headers, body)

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> tuple[int, str]:
        host, port = self.server.address
        conn = http.client.HTTPConnection(host, port, timeout=BOUND)
        try:
            conn.request(method, path, body=body or None, headers=headers or {})
            reply = conn.getresponse()
            return reply.status, reply.read().decode()
        finally:
            conn.close()

    def connect(self) -> socket.socket:
        """A raw connection (waits at most BOUND for anything)."""
        return socket.create_connection(self.server.address, timeout=BOUND)

    def names(self) -> list[str]:
        return [event.name for event in list(self.events)]


def head(headers: dict[str, str], method: str = "POST") -> bytes:
    """A request line and headers, ended by the blank line, as a raw client sends them."""
    lines = [f"{method} /hooks/gitfleet HTTP/1.1", "Host: gitfleet"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def status_of(raw: bytes) -> int:
    """The status code of a raw HTTP reply."""
    return int(raw.split(b" ", 2)[1])


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)
