"""The metrics and probes endpoint: `/metrics` (Prometheus' text format, from the registry),
`/healthz` and `/readyz` (200 `ok`, or 503 with the reason, from `health`); anything else 404.

It listens on its own address (`--metrics-address`), as Argo CD's and Flux's controllers do,
apart from the webhook: probes and scrapes come from inside the cluster, pushes from a Git
host. The HTTP is the standard library's WSGI server, a thread per request, and
prometheus_client's exposition.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from wsgiref import simple_server

import prometheus_client
from prometheus_client import exposition

from gitfleet import errors
from gitfleet.monitor import health

METRICS_PATH = "/metrics"
LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"

Start = Callable[[str, list[tuple[str, str]]], Any]


def parse_address(text: str, what: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT` for IPv6, `:PORT` for every address); a bare `PORT` listens on
    127.0.0.1. `ValueError` naming `what` otherwise."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{what} {text!r}: expected HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


def _app(registry: prometheus_client.CollectorRegistry, state: health.Health) -> Any:
    metrics = prometheus_client.make_wsgi_app(registry)
    probes = {LIVENESS_PATH: state.liveness, READINESS_PATH: state.readiness}

    def app(environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == METRICS_PATH:
            result: Iterable[bytes] = metrics(environ, start)
            return result
        probe = probes.get(path)
        if probe is None:
            return _reply(start, "404 Not Found", "not found")
        problem = probe()
        if problem:
            return _reply(start, "503 Service Unavailable", problem)
        return _reply(start, "200 OK", "ok")

    return app


def _reply(start: Start, status: str, text: str) -> list[bytes]:
    body = (text + "\n").encode()
    start(
        status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
    )
    return [body]


class _Quiet(simple_server.WSGIRequestHandler):
    """Scrapes and probes come every few seconds: they are not logged."""

    def log_message(self, format: str, *args: Any) -> None:
        """Not logged."""


class MetricsServer:
    """Serves the endpoint on `address` (bound at once: `errors.ListenError` if it cannot be) from
    `start` until `close`."""

    def __init__(
        self,
        address: tuple[str, int],
        registry: prometheus_client.CollectorRegistry,
        state: health.Health,
    ) -> None:
        host, port = address

        class Server(exposition.ThreadingWSGIServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        try:
            self._server = simple_server.make_server(
                host, port, _app(registry, state), Server, handler_class=_Quiet
            )
        except OSError as error:
            reason = error.strerror or type(error).__name__
            raise errors.ListenError(f"metrics address {host}:{port}: {reason}") from error
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="gitfleet-metrics", daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()


@contextlib.contextmanager
def serving(
    address: tuple[str, int] | None,
    registry: prometheus_client.CollectorRegistry,
    state: health.Health,
) -> Iterator[MetricsServer | None]:
    """The endpoint on `address` while the block runs (nothing when `address` is None)."""
    if address is None:
        yield None
        return
    server = MetricsServer(address, registry, state)
    server.start()
    try:
        yield server
    finally:
        server.close()
