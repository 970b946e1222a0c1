"""The webhook endpoint's HTTP server: one thread, one event loop, every connection bounded.

Each connection has `Limits.timeout` seconds to deliver one whole request, whose headers may
not exceed `Limits.max_header` bytes nor its body `Limits.max_body`; it is then answered and
closed (one request per connection, as Git hosts deliver them). At most `Limits.connections`
are served at once; `BACKLOG` more wait in the kernel's queue until one ends. So neither many idle
connections nor slow or huge requests hold more than those bounds of time, memory or threads,
and a genuine push arriving after them is answered at once. Framing HTTP is h11's (it rejects
malformed and oversized requests); what to answer is `endpoint`'s. A client that goes away is
logged in one event, never with a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import http
import socket
import threading
import time
from collections.abc import Callable

import h11

from gitfleet import errors
from gitfleet.monitor import endpoint as monitor_endpoint
from gitfleet.service import endpoint, events, replay, wakeup

MIB = 1024 * 1024
REPLAY_CAPACITY = 10_000
"""Deliveries remembered at most within the replay window (only genuine ones are)."""
BACKLOG = 128
"""Connections the kernel holds, beyond those served, until one of those ends."""
_CHUNK = 64 * 1024
_QUOTED = 100
"""Characters of h11's account of a malformed request kept in the log (it quotes the request)."""
_LINGER = 2.0
"""Seconds spent, after an early reply, reading what the client still sends (`_Client.linger`)."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one client may take of the server. Documented in docs/security.md."""

    max_body: int = MIB
    """Bytes of a request's body. GitHub and Gitea sign the body, so it is read before it can
    be checked; a push event needs only its ref."""
    max_header: int = 16 * 1024
    """Bytes of a request's line and headers together (Git hosts send about 1 KiB)."""
    timeout: float = 10.0
    """Seconds a connection has to deliver its whole request (GitHub gives up on an answer
    after 10 s), and again to take the reply."""
    connections: int = 32
    """Connections served at once."""
    replay_window: float = 600.0
    """Seconds during which a delivery already accepted is refused."""


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6); a bare `PORT` listens on 127.0.0.1."""
    return monitor_endpoint.parse_address(text, "webhook address")


class WebhookServer:
    """Listens on `address` (bound at once: `errors.ListenError` if it cannot be) from `start`
    until `close`."""

    def __init__(
        self,
        address: tuple[str, int],
        secret: bytes,
        source_ref: str,
        wake: wakeup.Wakeup,
        sink: events.Sink,
        clock: Callable[[], float] = time.time,
        limits: Limits = Limits(),
        replied: Callable[[int], None] = lambda status: None,
    ) -> None:
        """`replied` hears the status of every reply sent (the metrics count them)."""
        self.limits = limits
        self.replied = replied
        self.endpoint = endpoint.Endpoint(
            secret,
            source_ref,
            wake,
            sink,
            max_body=limits.max_body,
            replays=replay.Window(limits.replay_window, REPLAY_CAPACITY),
            clock=clock,
        )
        self._listener = _listen(address)
        self._loop = asyncio.new_event_loop()
        self._main: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, name="gitfleet-webhook", daemon=True)

    @property
    def source_ref(self) -> str:
        return self.endpoint.source_ref

    @source_ref.setter
    def source_ref(self, ref: str) -> None:
        """Set by the reconciler once it knows the source branch (a plain assignment, safe
        from its thread)."""
        self.endpoint.source_ref = ref

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._listener.getsockname()[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._main = self._loop.create_task(self._serve())
        self._thread.start()

    def close(self) -> None:
        """Stop accepting, end every connection, release the port."""
        if self._main is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._main.cancel)
            self._thread.join()
        self._loop.close()
        self._listener.close()

    def _run(self) -> None:
        assert self._main is not None
        with contextlib.suppress(asyncio.CancelledError):
            self._loop.run_until_complete(self._main)

    async def _serve(self) -> None:
        slots = asyncio.Semaphore(self.limits.connections)
        async with asyncio.TaskGroup() as group:
            while True:
                await slots.acquire()
                try:
                    sock, peer = await self._loop.sock_accept(self._listener)
                except OSError as error:  # out of file descriptors, say: try again shortly
                    slots.release()
                    self.endpoint.failed(f"accepting a connection: {error}", "")
                    await asyncio.sleep(1.0)
                    continue
                client = _Client(self._loop, sock, _peer(peer), self.limits.max_header)
                group.create_task(self._serve_one(client, slots))

    async def _serve_one(self, client: _Client, slots: asyncio.Semaphore) -> None:
        try:
            await self._exchange(client)
        except Exception as error:  # a bug serving one client must not end the server
            self.endpoint.failed(f"{type(error).__name__}: {error}", client.peer)
        finally:
            client.sock.close()
            slots.release()

    async def _exchange(self, client: _Client) -> None:
        try:
            async with asyncio.timeout(self.limits.timeout):
                reply = await self._answer(client)
        except TimeoutError:
            reason = f"no complete request within {self.limits.timeout:g}s"
            reply = self.endpoint.reject(408, reason, client.peer)
        except h11.RemoteProtocolError as error:
            status = error.error_status_hint
            if status == 431:
                reason = f"headers over {self.limits.max_header} bytes"
            else:
                reason = f"malformed request: {str(error)[:_QUOTED]}"
            reply = self.endpoint.reject(status, reason, client.peer)
        except _ClientGone as gone:
            if client.received:
                self.endpoint.dropped(f"closed before a complete request: {gone}", client.peer)
            return
        try:
            async with asyncio.timeout(self.limits.timeout):
                await client.reply(reply)
        except (TimeoutError, OSError) as error:
            self.endpoint.dropped(f"did not take the reply: {_why(error)}", client.peer)
            return
        self.replied(reply.status)
        await client.linger()

    async def _answer(self, client: _Client) -> endpoint.Reply:
        request = await client.next_event()
        if not isinstance(request, h11.Request):
            raise _ClientGone("no request")
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in request.headers
        }
        method, path = request.method.decode("ascii"), request.target.decode("latin-1")
        early = self.endpoint.head(method, path, headers, client.peer)
        if early is not None:
            return early
        body = bytearray()
        while not isinstance(event := await client.next_event(), h11.EndOfMessage):
            if isinstance(event, h11.Data):
                body += event.data
            if len(body) > self.limits.max_body:
                return self.endpoint.too_large(client.peer, headers)
        return self.endpoint.body(headers, bytes(body), client.peer)


def _listen(address: tuple[str, int]) -> socket.socket:
    host, port = address
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(BACKLOG)
    except OSError as error:
        listener.close()
        raise errors.ListenError(f"webhook address {host}:{port}: {_why(error)}") from error
    listener.setblocking(False)
    return listener


class _ClientGone(Exception):
    """The client closed or reset the connection before its request was complete."""


def _why(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "timed out"
    return getattr(error, "strerror", None) or type(error).__name__


def _peer(address: tuple[object, ...]) -> str:
    host, port = address[:2]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


class _Client:
    """One connection: its socket, h11's state of the exchange, and who is at the other end."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, sock: socket.socket, peer: str, max_header: int
    ) -> None:
        self.loop = loop
        self.sock = sock
        self.peer = peer
        self.max_header = max_header
        self.received = 0
        """Bytes the client sent (a connection closed unused is not logged)."""
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=max_header)

    async def next_event(self) -> h11.Event:
        """The next part of the request, reading as much as it takes."""
        while (event := self.h11.next_event()) is h11.NEED_DATA:
            if self.h11.they_are_waiting_for_100_continue:
                await self._send(h11.InformationalResponse(status_code=100, headers=[]))
            try:
                data = await self.loop.sock_recv(self.sock, self._wanted())
            except OSError as error:
                raise _ClientGone(_why(error)) from error
            if not data:
                raise _ClientGone("end of stream")
            self.received += len(data)
            self.h11.receive_data(data)
        assert isinstance(event, h11.Event), "one request a connection: never paused"
        return event

    def _wanted(self) -> int:
        """How much to read next. Until the request line and headers are complete, no more
        than makes them one byte over `max_header`, which h11 then refuses (it checks only
        what is incomplete, so a larger read could bring in larger headers whole)."""
        if self.h11.their_state is h11.IDLE:
            return max(1, self.max_header + 1 - self.received)
        return _CHUNK

    async def reply(self, reply: endpoint.Reply) -> None:
        data = (reply.text + "\n").encode()
        headers = [
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Length", str(len(data))),
            ("Connection", "close"),
        ]
        phrase = http.HTTPStatus(reply.status).phrase
        await self._send(h11.Response(status_code=reply.status, headers=headers, reason=phrase))
        await self._send(h11.Data(data=data))
        await self._send(h11.EndOfMessage())

    async def linger(self) -> None:
        """When the request was not read to its end, read what still comes for a moment before
        closing: closing with unread data resets the connection, which can destroy the reply
        before the client reads it."""
        if self.h11.their_state is h11.DONE:
            return
        with contextlib.suppress(TimeoutError, OSError):
            self.sock.shutdown(socket.SHUT_WR)
            async with asyncio.timeout(_LINGER):
                while await self.loop.sock_recv(self.sock, _CHUNK):
                    pass

    async def _send(self, event: h11.Event) -> None:
        data = self.h11.send(event)
        if data:
            await self.loop.sock_sendall(self.sock, data)
