"""The webhook endpoint: an HTTP server that wakes the reconciler on a genuine push.

Any path accepts POSTed push events (hosts let users type any URL); `GET /healthz` answers
`ok`. Replies: 202 a push to the source branch (the reconciler is woken), 200 a genuine event
that needs nothing (another branch, a ping), 401 a missing or wrong signature or token,
400 a request from no known host, 413 a body over 25 MiB (GitHub's own limit). Every request
but the health check is logged as one event; a rejected request changes nothing else.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Callable

from gitfleet.service import events, wakeup, webhook

MAX_BODY = 25 * 1024 * 1024


def parse_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6); a bare `PORT` listens on 127.0.0.1."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"webhook address {text!r}: expected HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


class WebhookServer:
    """Listens on `address` until `close`; each request is served on its own thread."""

    def __init__(
        self,
        address: tuple[str, int],
        secret: bytes,
        source_ref: str,
        wake: wakeup.Wakeup,
        sink: events.Sink,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.secret = secret
        self.source_ref = source_ref
        self.wake = wake
        self.sink = sink
        self.clock = clock
        self._httpd = http.server.ThreadingHTTPServer(address, _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._httpd.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._httpd.shutdown()
            self._thread.join()
        self._httpd.server_close()

    def handle(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        """(status, reply) for one POST; pokes the reconciler for a push to the source."""
        provider = webhook.identify(headers)
        if provider is None:
            self._log("webhook-rejected", "", status=400, reason="no GitHub, GitLab or Gitea event")
            return 400, "not a push event from GitHub, GitLab or Gitea"
        if not webhook.verify(provider, headers, body, self.secret):
            self._log("webhook-rejected", "", status=401, provider=provider, reason="bad signature")
            return 401, "missing or wrong signature"
        push = webhook.push_of(provider, headers, body)
        if push is None or push.ref != self.source_ref:
            ref = push.ref if push else None
            self._log("webhook-ignored", push.after if push else "", provider=provider, ref=ref)
            return 200, "ignored"
        self._log("webhook", push.after, provider=provider, ref=push.ref)
        self.wake.poke("webhook")
        return 202, "accepted"

    def _log(self, name: str, source: str, **fields: events.Value) -> None:
        self.sink(events.Event(name, source, self.clock(), fields))


def _handler_for(server: WebhookServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/healthz":
                self._reply(200, "ok")
            else:
                self._reply(404, "not found")

        def do_POST(self) -> None:
            length = self.headers.get("Content-Length", "")
            if not length.isdigit():
                self._reply(411, "content length required")
                return
            if int(length) > MAX_BODY:
                self.close_connection = True
                self._reply(413, "body too large")
                return
            body = self.rfile.read(int(length))
            status, reply = server.handle(dict(self.headers.items()), body)
            self._reply(status, reply)

        def _reply(self, status: int, text: str) -> None:
            data = (text + "\n").encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            """Requests are logged as events by `WebhookServer.handle`, not on stderr."""

    return Handler
