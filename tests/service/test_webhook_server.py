"""The webhook endpoint over real HTTP on 127.0.0.1.

Aspects covered:
- a signed push to the source branch is accepted (202) and wakes the reconciler, logged with
  the pushed commit and the delivery id; so are GitLab's token, Gitea's signature and
  Bitbucket's (Data Center and Cloud, whose pushes move several refs), and a chunked body, and
  a client that waits for `100 Continue`;
- a wrong or missing signature is refused (401), logged, and wakes nothing;
- a request from no known host is refused (400); a push to another branch and a ping are
  acknowledged (200) and wake nothing;
- what the headers decide is answered before the body is sent: GitLab's wrong token, a
  missing signature, a declared body over the limit (413); a chunked body that outgrows the
  limit is refused (413) there;
- GET /healthz answers ok, other paths 404, other methods 405, none logged;
- `parse_address` reads HOST:PORT, [IPv6]:PORT and a bare PORT.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from service.webhook_client import (
    COMMIT,
    Served,
    bitbucket,
    bitbucket_cloud_body,
    bitbucket_data_center_body,
    chunk,
    gitea,
    github,
    gitlab,
    head,
    push_body,
    read_all,
    status_of,
)

from gitfleet.service import server, webhook


@pytest.mark.parametrize(
    ("headers", "body"),
    [
        pytest.param(github(push_body(), delivery="d-1"), push_body(), id="github"),
        pytest.param(gitlab(delivery="d-1"), push_body(), id="gitlab"),
        pytest.param(gitea(push_body(), delivery="d-1"), push_body(), id="gitea"),
        pytest.param(bitbucket(bitbucket_data_center_body(), delivery="d-1"),
                     bitbucket_data_center_body(), id="bitbucket data center"),
        pytest.param({**bitbucket(bitbucket_cloud_body(), "repo:push"), "X-Request-UUID": "d-1"},
                     bitbucket_cloud_body(), id="bitbucket cloud"),
    ],
)  # fmt: skip
def test_genuine_push_wakes_the_reconciler(
    served: Served, headers: dict[str, str], body: bytes
) -> None:
    assert served.post(headers, body) == (202, "accepted\n")
    assert served.wake.wait(0) == ("webhook",)
    [event] = served.events
    assert (event.name, event.source, event.fields["delivery"]) == ("webhook", COMMIT, "d-1")


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"X-GitHub-Event": "push"}, id="unsigned"),
        pytest.param(
            {
                "X-GitHub-Event": "push",
                "X-Hub-Signature-256": webhook.sign_github(b"guess", push_body()),
            },
            id="wrong secret",
        ),
        pytest.param(gitlab(b"guess"), id="gitlab wrong token"),
        pytest.param({"X-Gitea-Event": "push"}, id="gitea unsigned"),
        pytest.param({"X-Event-Key": "repo:refs_changed"}, id="bitbucket unsigned"),
        pytest.param(
            {**bitbucket(push_body()), "X-Hub-Signature": webhook.sign_gitea(b"x", push_body())},
            id="bitbucket signature without its prefix",
        ),
    ],
)
def test_bad_signature_is_refused_and_logged(served: Served, headers: dict[str, str]) -> None:
    status, _ = served.post(headers, push_body())
    assert status == 401
    assert served.wake.wait(0) == ()
    assert served.names() == ["webhook-rejected"]
    assert served.events[0].fields["status"] == 401


DEV = bitbucket_data_center_body("refs/heads/dev")


@pytest.mark.parametrize(
    ("headers", "body", "status", "event"),
    [
        pytest.param({}, push_body(), 400, "webhook-rejected", id="unknown host"),
        pytest.param(
            github(push_body("refs/heads/dev")),
            push_body("refs/heads/dev"),
            200,
            "webhook-ignored",
            id="another branch",
        ),
        pytest.param(github(b"{}", "ping"), b"{}", 200, "webhook-ignored", id="ping"),
        pytest.param(bitbucket(DEV), DEV, 200, "webhook-ignored", id="bitbucket: tag, dev"),
        pytest.param(bitbucket(b"{}", "diagnostics:ping"), b"{}", 200, "webhook-ignored",
                     id="bitbucket test connection"),
    ],
)  # fmt: skip
def test_requests_that_wake_nothing(
    served: Served, headers: dict[str, str], body: bytes, status: int, event: str
) -> None:
    assert served.post(headers, body)[0] == status
    assert served.wake.wait(0) == ()
    assert served.names() == [event]


@pytest.mark.parametrize(
    ("headers", "length", "status"),
    [
        pytest.param(gitlab(b"guess"), 100, 401, id="gitlab wrong token"),
        pytest.param({"X-GitHub-Event": "push"}, 100, 401, id="github unsigned"),
        pytest.param(github(b"x"), server.Limits().max_body + 1, 413, id="body over the limit"),
        pytest.param(github(b"x"), 25 * 1024 * 1024, 413, id="github's own limit"),
    ],
)
def test_headers_alone_refuse_before_the_body_is_sent(
    served: Served, headers: dict[str, str], length: int, status: int
) -> None:
    with served.connect() as sock:
        sock.sendall(head({**headers, "Content-Length": str(length)}))
        sock.shutdown(1)
        assert status_of(read_all(sock)) == status
    assert served.wake.wait(0) == ()
    assert served.names() == ["webhook-rejected"]


def test_chunked_body_over_the_limit_is_refused(serve: Callable[..., Served]) -> None:
    served = serve(server.Limits(max_body=4096))
    with served.connect() as sock:
        sock.sendall(head({"Transfer-Encoding": "chunked", **github(b"x")}))
        for _ in range(8):
            sock.sendall(chunk(b"a" * 1024))
        assert status_of(read_all(sock)) == 413
    [event] = served.events
    assert (event.fields["status"], event.fields["reason"]) == (413, "body over 4096 bytes")


def test_chunked_body_and_100_continue(served: Served) -> None:
    body = push_body()
    headers = {"Transfer-Encoding": "chunked", "Expect": "100-continue", **github(body)}
    with served.connect() as sock:
        sock.sendall(head(headers))
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 ")
        sock.sendall(chunk(body) + chunk(b""))
        assert status_of(read_all(sock)) == 202
    assert served.wake.wait(0) == ("webhook",)


def test_health_check_and_other_requests(served: Served) -> None:
    assert served.request("GET", "/healthz") == (200, "ok\n")
    assert served.request("GET", "/other")[0] == 404
    assert served.request("PUT", "/healthz")[0] == 405
    assert served.events == []


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
