"""Clients that hold, starve or abandon the webhook endpoint, over real sockets on 127.0.0.1.

After each, the server answers a genuine signed push (202), still runs on its one thread, and
has written nothing on stderr (no traceback). Aspects covered:
- many idle connections, beyond the connection bound: no thread per connection; each idle
  one is answered 408 after the time limit and closed; a push after them is served;
- a client trickling its headers, or its body, is answered 408 at the time limit although it
  keeps sending;
- headers over the limit (431) and bytes that are not HTTP (400) are refused;
- a client that goes away mid-request (closed or reset) is logged as one `webhook-dropped`
  event; one that connects and goes away without a byte is not logged;
- clients that vanish right after sending a whole request never disturb the server;
- bodies streamed far beyond the body limit by as many clients as may connect keep the
  memory the server allocates within the limits, not the size of what was sent;
- generated requests (the headers the endpoint reads, with any values, and any body) and
  arbitrary bytes are each answered or closed, never with a failure of the server.
"""

from __future__ import annotations

import socket
import struct
import threading
import tracemalloc
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service.service_helpers import wait_for
from service.webhook_client import (
    BOUND,
    Served,
    chunk,
    github,
    head,
    push_body,
    read_all,
    status_of,
)

from gitfleet.service import server

QUICK = server.Limits(timeout=0.5, connections=4, max_body=64 * 1024, max_header=4096)


@pytest.fixture(name="quick")
def quick_fixture(
    serve: Callable[..., Served], capfd: pytest.CaptureFixture[str]
) -> Iterator[Served]:
    """A server with short limits; after the test, a genuine push is accepted and nothing was
    written on stderr."""
    threads = threading.active_count()
    served = serve(QUICK)
    yield served
    body = push_body(after="e" * 40)
    assert served.post(github(body), body)[0] == 202
    assert threading.active_count() <= threads + 1
    assert capfd.readouterr().err == ""


def _open_idle(served: Served, count: int) -> list[socket.socket]:
    """`count` connections that send nothing (connected without waiting: beyond the bound
    they wait in the kernel's queue)."""
    found = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(served.server.address)
        found.append(sock)
    return found


def test_many_idle_connections_hold_no_threads(quick: Served) -> None:
    before = threading.active_count()
    idle = _open_idle(quick, 200)
    try:
        wait_for(lambda: len(quick.events) >= QUICK.connections, "the first idle ones cut off")
        assert threading.active_count() == before
    finally:
        for sock in idle:
            sock.close()


def test_idle_connection_is_answered_408_and_closed(quick: Served) -> None:
    with quick.connect() as sock:
        reply = read_all(sock)
    assert status_of(reply) == 408
    assert reply.endswith(b"no complete request within 0.5s\n")
    [event] = quick.events
    assert (event.name, event.fields["status"]) == ("webhook-rejected", 408)


def _trickle(sock: socket.socket, data: bytes, stop: threading.Event) -> None:
    """Send `data` a byte every 50 ms until told to stop or the server hangs up."""
    for byte in data:
        if stop.wait(0.05):
            return
        try:
            sock.send(bytes([byte]))
        except OSError:
            return


@pytest.mark.parametrize(
    ("head", "rest"),
    [
        pytest.param(
            b"", b"POST / HTTP/1.1\r\nHost: g\r\n" + b"X-Padding: a\r\n" * 50, id="headers"
        ),
        pytest.param(head({"Content-Length": "400", **github(b"x")}), b"a" * 400, id="body"),
    ],
)
def test_trickling_client_is_cut_off_at_the_time_limit(
    quick: Served, head: bytes, rest: bytes
) -> None:
    stop = threading.Event()
    with quick.connect() as sock:
        sock.sendall(head)
        trickler = threading.Thread(target=_trickle, args=(sock, rest, stop))
        trickler.start()
        try:
            assert status_of(read_all(sock)) == 408
        finally:
            stop.set()
            trickler.join(BOUND)
    assert quick.names() == ["webhook-rejected"]


@pytest.mark.parametrize(
    ("data", "status"),
    [
        pytest.param(
            b"GET / HTTP/1.1\r\nHost: g\r\nX-Big: " + b"a" * 5000 + b"\r\n\r\n",
            431,
            id="headers over the limit",
        ),
        pytest.param(
            b"GET / HTTP/1.1\r\n" + b"X-Many: a\r\n" * 1000 + b"\r\n", 431, id="too many headers"
        ),
        pytest.param(
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400, id="a TLS hello"
        ),
        pytest.param(
            b"POST / HTTP/1.1\r\nHost: g\r\nContent-Length: -1\r\n\r\n", 400, id="negative length"
        ),
    ],
)
def test_requests_over_the_limits_or_not_http(quick: Served, data: bytes, status: int) -> None:
    with quick.connect() as sock:
        sock.sendall(data)
        assert status_of(read_all(sock)) == status
    [event] = quick.events
    assert (event.name, event.fields["status"]) == ("webhook-rejected", status)


def _reset(sock: socket.socket) -> None:
    """Close so that the peer sees a reset, not an orderly end."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.parametrize("close", [socket.socket.close, _reset], ids=["closed", "reset"])
def test_client_gone_mid_request_is_logged_once(
    quick: Served, close: Callable[[socket.socket], None]
) -> None:
    sock = quick.connect()
    sock.sendall(b"POST / HTTP/1.1\r\nHost: g\r\nContent-Le")
    close(sock)
    wait_for(lambda: quick.events, "the drop logged")
    assert quick.names() == ["webhook-dropped"]
    assert quick.events[0].fields["reason"].startswith("closed before a complete request")


def test_connection_without_a_byte_is_not_logged(quick: Served) -> None:
    for _ in range(10):
        quick.connect().close()
    body = push_body(after="f" * 40)
    assert quick.post(github(body), body)[0] == 202
    assert quick.names() == ["webhook"]


def test_clients_vanishing_after_their_request(quick: Served) -> None:
    for n in range(20):
        body = push_body(after=f"{n:040x}")
        sock = quick.connect()
        sock.sendall(head({"Content-Length": str(len(body)), **github(body)}) + body)
        _reset(sock)
    wait_for(lambda: len(quick.events) >= 20, "every request answered or dropped")
    assert set(quick.names()) <= {"webhook", "webhook-dropped"}


def _stream(served: Served, framed: bytes, chunks: int) -> None:
    """POST a chunked body of `chunks` x `framed` (one chunk), signed for nothing; give up
    when refused."""
    try:
        with served.connect() as sock:
            sock.sendall(head({"Transfer-Encoding": "chunked", **github(b"x")}))
            for _ in range(chunks):
                sock.sendall(framed)
    except OSError:
        return


def test_memory_stays_within_the_limits_whatever_is_sent(quick: Served) -> None:
    framed = chunk(b"a" * 65536)
    chunks = 64  # 4 MiB a client, 64 times the body limit
    clients = [
        threading.Thread(target=_stream, args=(quick, framed, chunks))
        for _ in range(QUICK.connections)
    ]
    tracemalloc.start()
    try:
        for client in clients:
            client.start()
        for client in clients:
            client.join(BOUND)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    sent = QUICK.connections * chunks * len(framed)
    assert peak < 4 * 1024 * 1024 < sent
    assert set(quick.names()) == {"webhook-rejected"}
    assert {e.fields["status"] for e in quick.events} == {413}


_HOSTS = (
    ("X-GitHub-Event", "X-Hub-Signature-256", "X-GitHub-Delivery"),
    ("X-Gitlab-Event", "X-Gitlab-Token", "Idempotency-Key"),
    ("X-Gitea-Event", "X-Gitea-Signature", "X-Gitea-Delivery"),
)
_EXTRAS = ("Content-Length", "Transfer-Encoding", "Expect", "Connection", "X-GitHub-Event")


@st.composite
def _requests(draw: st.DrawFn) -> bytes:
    """A request with a host's event, signature and delivery headers, any values, any other
    headers the server reads, and any body (with its length declared, or not)."""
    event, signature, delivery = draw(st.sampled_from(_HOSTS))
    headers = {
        event: draw(st.sampled_from(["push", "Push Hook", "ping"]) | st.text(max_size=20)),
        signature: draw(st.text(max_size=80)),
        delivery: draw(st.text(max_size=40)),
    }
    headers |= draw(st.dictionaries(st.sampled_from(_EXTRAS), st.text(max_size=20), max_size=3))
    body = draw(st.binary(max_size=300) | st.just(push_body()))
    if draw(st.booleans()):
        headers["Content-Length"] = str(len(body))
    return head(headers, draw(st.sampled_from(["POST", "GET", "PUT"]))) + body


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=_requests() | st.binary(min_size=1, max_size=400))
def test_any_request_is_answered_or_closed(quick: Served, data: bytes) -> None:
    before = len(quick.events)
    with quick.connect() as sock:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
            reply = read_all(sock)
        except ConnectionResetError:
            reply = b""
    assert reply == b"" or reply.startswith(b"HTTP/1.1 ")
    assert "webhook-error" not in quick.names()[before:], "logged before the reply or close"
