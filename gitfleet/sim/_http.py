"""The HTTP side of a simulated cluster: a threading HTTPS/1.1 server on 127.0.0.1 that checks
the bearer token, applies the injected fault or canned answer, hands requests to `_api.Api`
and writes JSON answers (watches as chunked JSON lines). Each connection's TLS handshake runs
in its own thread, so a slow or failing client never holds up the listener.

Every connection runs in its own thread and is tracked, so `stop()` can close idle
keep-alive connections and join every thread: a test leaves no thread or socket behind.
Making a cluster unreachable stops the listener and closes open connections; healing it
listens on the same port again.
"""

from __future__ import annotations

import contextlib
import enum
import http.server
import json
import logging
import select
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any

from gitfleet.sim import _api, _errors, _gojson

log = logging.getLogger(__name__)

_PUBLIC_PATHS = frozenset({"/version", "/healthz", "/livez", "/readyz"})
_WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_JOIN_SECONDS = 5.0


class Fault(enum.StrEnum):
    """What is wrong with a simulated cluster, switchable while it runs."""

    NONE = "none"
    """Healthy."""
    UNREACHABLE = "unreachable"
    """Connections are refused: nothing listens on the port."""
    ERROR = "error"
    """Every request fails with 500 InternalError."""
    SLOW = "slow"
    """Every request waits `latency` seconds first."""
    READONLY = "readonly"
    """Reads work; every write fails with 403 Forbidden."""


class Frontend:
    """What every connection of one cluster shares: the API, its token, the fault and the
    canned answers."""

    def __init__(self, api: _api.Api, token: str) -> None:
        self.api = api
        self.token = token
        self.fault = Fault.NONE
        self.latency = 0.0
        self.answers: dict[tuple[str, str], _api.Response] = {}
        """Answers given instead of the API's, by (method, URL path)."""
        self.stopping = threading.Event()

    def serve(self, request: _api.Request) -> _api.Response | _api.WatchResponse:
        fault, latency = self.fault, self.latency
        if fault == Fault.SLOW:
            self.stopping.wait(latency)
        if fault == Fault.ERROR:
            error = _errors.ApiError(500, "simulated fault: the cluster fails every request")
            return _api.Response(500, error.status())
        if request.path not in _PUBLIC_PATHS and (
            request.headers.get("authorization") != f"Bearer {self.token}"
        ):
            return _api.Response(401, _errors.ApiError(401, "Unauthorized").status())
        answer = self.answers.get((request.method, request.path))
        if answer is not None:
            return answer
        if fault == Fault.READONLY and request.method in _WRITE_METHODS:
            error = _errors.ApiError(403, "simulated fault: the cluster is read-only")
            return _api.Response(403, error.status())
        return self.api.handle(request)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stall
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def _chunked_body(self) -> bytes:
        """A request body sent in chunks (`kubectl create --raw -f -` streams its input so):
        each chunk's size in hex on its own line, the chunk, then a size 0 and the trailer
        lines up to a blank one (http.server reads only bodies of a given length)."""
        parts = []
        while True:
            size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if not size:
                break
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline().strip():
            pass
        return b"".join(parts)

    def _serve(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            try:
                body = self._chunked_body()
            except ValueError:
                self.send_error(400, "the chunked request body cannot be read")
                return
        else:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
        request = _api.Request(
            method=self.command,
            path=urllib.parse.unquote(url.path),
            query=dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        answer = self.server.frontend.serve(request)
        if isinstance(answer, _api.WatchResponse):
            self._stream(answer)
            return
        if isinstance(answer.body, _api.Encoded):
            data, content_type = answer.body.data, answer.body.media_type
        elif isinstance(answer.body, str):
            data, content_type = answer.body.encode(), "text/plain; charset=utf-8"
        else:
            data, content_type = _encode(answer), "application/json"
        self.send_response(answer.code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache, private")
        for warning in answer.warnings:
            self.send_header("Warning", f"299 - {json.dumps(warning)}")
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, answer: _api.WatchResponse) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.close_connection = True
        try:
            for event in answer.events:
                if event is None:
                    if self._peer_gone():
                        return
                    continue
                line = _gojson.dumps(event).encode() + b"\n"
                self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            return
        finally:
            close = getattr(answer.events, "close", None)
            if close is not None:
                close()

    def _peer_gone(self) -> bool:
        """Whether the client closed the connection. It sends nothing during a watch, so what
        can be read is its TLS close or the end of the stream (a partial TLS record is not)."""
        connection = self.connection
        try:
            readable, _, _ = select.select([connection], [], [], 0)
            if not readable:
                return False
            connection.setblocking(False)
            try:
                return not connection.recv(1)
            finally:
                connection.setblocking(True)
        except ssl.SSLWantReadError:
            return False
        except OSError:
            return True


class _Server(http.server.ThreadingHTTPServer):
    """A threading server that tracks its connections and handler threads."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, frontend: Frontend, tls: ssl.SSLContext) -> None:
        self.frontend = frontend
        self._tls = tls
        self._tracked: dict[threading.Thread, ssl.SSLSocket] = {}
        self._tracked_lock = threading.Lock()
        super().__init__(("127.0.0.1", port), _Handler)

    def get_request(self) -> tuple[ssl.SSLSocket, Any]:
        """Accept a connection; its handshake waits for the connection's own thread."""
        connection, address = self.socket.accept()
        try:
            secured = self._tls.wrap_socket(
                connection, server_side=True, do_handshake_on_connect=False
            )
        except BaseException:
            connection.close()
            raise
        return secured, address

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._work,
            args=(request, client_address),
            daemon=True,
            name=f"sim-connection-{self.server_address[1]}",
        )
        with self._tracked_lock:
            self._tracked[thread] = request
        thread.start()

    def _work(self, request: Any, client_address: Any) -> None:
        try:
            request.do_handshake()
            self.finish_request(request, client_address)
        except OSError:
            pass
        except Exception:
            log.exception("simulated cluster failed on a request")
        finally:
            self.shutdown_request(request)
            with self._tracked_lock:
                self._tracked.pop(threading.current_thread(), None)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("connection error from %s", client_address, exc_info=True)

    def close_connections(self, wake: Callable[[], None], *, graceful: bool) -> None:
        """End every open connection and join the threads. Gracefully, only the reading side
        is shut first, so watches (which `wake` ends) still send their last chunk; else
        connections are cut as a network failure would."""
        with self._tracked_lock:
            tracked = dict(self._tracked)
        how = socket.SHUT_RD if graceful else socket.SHUT_RDWR
        for connection in tracked.values():
            _shut(connection, how)
        wake()
        _join(tracked, _JOIN_SECONDS)
        for connection in tracked.values():
            _shut(connection, socket.SHUT_RDWR)
        _join(tracked, _JOIN_SECONDS)


def _encode(answer: _api.Response) -> bytes:
    """JSON as the API server writes it (`_gojson`): compact, ending in a newline; `/version`
    indented, without one."""
    if answer.indented:
        return _gojson.dumps(answer.body, indent=2).encode()
    return _gojson.dumps(answer.body).encode() + b"\n"


def _shut(connection: ssl.SSLSocket, how: int) -> None:
    """Shut the TCP connection under a TLS one. `SSLSocket.shutdown` would also drop the TLS
    session, and the watch still writing to the connection would then send plain text."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(connection, how)


def _join(threads: Iterable[threading.Thread], seconds: float) -> None:
    """Wait for all of them for `seconds` in all, not each: many connections must not make a
    stop last longer."""
    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


class Endpoint:
    """A listener that can be started, stopped and started again on the same port."""

    def __init__(self, frontend: Frontend, port: int, tls: ssl.SSLContext) -> None:
        self.frontend = frontend
        self.port = port
        self.tls = tls
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def listening(self) -> bool:
        return self._server is not None

    def start(self) -> int:
        if self._server is not None:
            return self.port
        server = _Server(self.port, self.frontend, self.tls)
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name=f"sim-listener-{self.port}",
        )
        self._thread.start()
        return self.port

    def stop(self, wake: Callable[[], None], *, graceful: bool) -> None:
        """Stop listening, close every connection and join every thread. `wake` is called
        once connections are shut so that waiting watches notice at once."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        self._server = self._thread = None
        server.shutdown()
        server.server_close()
        thread.join(_JOIN_SECONDS)
        server.close_connections(wake, graceful=graceful)
