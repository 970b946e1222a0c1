"""The webhook endpoint over real HTTP on 127.0.0.1.

Aspects covered:
- a signed push to the source branch is accepted (202) and wakes the reconciler, logged with
  the pushed commit; so are GitLab's token and Gitea's signature;
- a wrong or missing signature is refused (401), logged, and wakes nothing;
- a request from no known host is refused (400); a push to another branch and a ping are
  acknowledged (200) and wake nothing;
- a body over the size limit is refused (413) before it is read; GET /healthz answers ok;
- `parse_address` reads HOST:PORT, [IPv6]:PORT and a bare PORT.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

from gitfleet.service import events, server, wakeup, webhook

SECRET = b"hook-secret"
COMMIT = "b" * 40


def push_body(ref: str = "refs/heads/main") -> bytes:
    return json.dumps({"ref": ref, "after": COMMIT, "repository": {"name": "fleet"}}).encode()


class Endpoint:
    def __init__(self) -> None:
        self.wake = wakeup.Wakeup()
        self.events: list[events.Event] = []
        self.server = server.WebhookServer(
            ("127.0.0.1", 0), SECRET, "refs/heads/main", self.wake, self.events.append
        )

    def post(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        return self.request("POST", "/hooks/gitfleet", headers, body)

    def request(
        self, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
    ) -> tuple[int, str]:
        host, port = self.server.address
        conn = http.client.HTTPConnection(host, port, timeout=10)
        try:
            conn.request(method, path, body=body or None, headers=headers or {})
            reply = conn.getresponse()
            return reply.status, reply.read().decode()
        finally:
            conn.close()


@pytest.fixture(name="endpoint")
def endpoint_fixture() -> Iterator[Endpoint]:
    found = Endpoint()
    found.server.start()
    yield found
    found.server.close()


def signed(body: bytes, event: str = "push") -> dict[str, str]:
    return {"X-GitHub-Event": event, "X-Hub-Signature-256": webhook.sign_github(SECRET, body)}


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param(signed(push_body()), id="github"),
        pytest.param({"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": SECRET.decode()},
                     id="gitlab"),
        pytest.param({"X-Gitea-Event": "push",
                      "X-Gitea-Signature": webhook.sign_gitea(SECRET, push_body())}, id="gitea"),
    ],
)  # fmt: skip
def test_genuine_push_wakes_the_reconciler(endpoint: Endpoint, headers: dict[str, str]) -> None:
    assert endpoint.post(headers, push_body()) == (202, "accepted\n")
    assert endpoint.wake.wait(0) == ("webhook",)
    assert [(e.name, e.source) for e in endpoint.events] == [("webhook", COMMIT)]


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"X-GitHub-Event": "push"}, id="unsigned"),
        pytest.param({"X-GitHub-Event": "push",
                      "X-Hub-Signature-256": webhook.sign_github(b"guess", push_body())},
                     id="wrong secret"),
        pytest.param({"X-Gitlab-Event": "Push Hook", "X-Gitlab-Token": "guess"},
                     id="gitlab wrong token"),
    ],
)  # fmt: skip
def test_bad_signature_is_refused_and_logged(endpoint: Endpoint, headers: dict[str, str]) -> None:
    status, _ = endpoint.post(headers, push_body())
    assert status == 401
    assert endpoint.wake.wait(0) == ()
    assert [e.name for e in endpoint.events] == ["webhook-rejected"]
    assert endpoint.events[0].fields["status"] == 401


@pytest.mark.parametrize(
    ("headers", "body", "status", "event"),
    [
        pytest.param({}, push_body(), 400, "webhook-rejected", id="unknown host"),
        pytest.param(signed(push_body("refs/heads/dev")), push_body("refs/heads/dev"), 200,
                     "webhook-ignored", id="another branch"),
        pytest.param(signed(b"{}", "ping"), b"{}", 200, "webhook-ignored", id="ping"),
    ],
)  # fmt: skip
def test_requests_that_wake_nothing(
    endpoint: Endpoint, headers: dict[str, str], body: bytes, status: int, event: str
) -> None:
    assert endpoint.post(headers, body)[0] == status
    assert endpoint.wake.wait(0) == ()
    assert [e.name for e in endpoint.events] == [event]


def test_oversized_body_is_refused_unread(endpoint: Endpoint) -> None:
    host, port = endpoint.server.address
    conn = http.client.HTTPConnection(host, port, timeout=10)
    conn.putrequest("POST", "/")
    conn.putheader("Content-Length", str(server.MAX_BODY + 1))
    conn.putheader("X-GitHub-Event", "push")
    conn.endheaders()
    assert conn.getresponse().status == 413
    conn.close()
    assert endpoint.wake.wait(0) == ()


def test_health_check(endpoint: Endpoint) -> None:
    assert endpoint.request("GET", "/healthz") == (200, "ok\n")
    assert endpoint.request("GET", "/other")[0] == 404
    assert endpoint.events == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        pytest.param("127.0.0.1:8080", ("127.0.0.1", 8080), id="host and port"),
        pytest.param("[::1]:9000", ("::1", 9000), id="ipv6"),
        pytest.param("8081", ("127.0.0.1", 8081), id="port only"),
        pytest.param(":8082", ("0.0.0.0", 8082), id="every interface"),
    ],
)
def test_parse_address(text: str, address: tuple[str, int]) -> None:
    assert server.parse_address(text) == address


@pytest.mark.parametrize("text", ["host:", "host:http", "1:99999"])
def test_parse_address_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="HOST:PORT"):
        server.parse_address(text)
