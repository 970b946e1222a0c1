"""Liveness, readiness and the metrics endpoint, over real HTTP on 127.0.0.1.

Aspects covered:
- a loop is alive until the deadline it gave, overdue after it; a loop that ended is no
  longer waited for; the work allowance grows with the interval, never below its floor;
- readiness waits for the loops to start and for every pending condition, and says which;
- `/healthz` and `/readyz` answer 200 `ok`, or 503 with the reason; `/metrics` is Prometheus'
  text format of the registry; any other path is 404;
- an address in use is a `ListenError` naming it; addresses parse as HOST:PORT, :PORT, PORT.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from monitor.scrape import get, scrape, serving, value

from gitfleet import errors
from gitfleet.monitor import endpoint, health, metrics


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_loop_is_alive_until_its_deadline() -> None:
    clock = Clock()
    state = health.Health(clock)
    state.beat("reconcile", 90)
    clock.now += 90
    assert state.liveness() == ""
    clock.now += 1
    assert state.liveness() == "reconcile: 1s overdue"
    state.beat("reconcile", 10)
    assert state.liveness() == ""


def test_an_ended_loop_is_not_waited_for() -> None:
    clock = Clock()
    state = health.Health(clock)
    state.done(health.STARTING)
    state.beat("cluster member1", 5)
    state.pending("cluster member1", "no sync done yet")
    state.end("cluster member1")
    clock.now += 100
    assert (state.liveness(), state.readiness()) == ("", "")


@pytest.mark.parametrize(
    ("interval", "allowed"),
    [pytest.param(1, 60.0, id="floor"), pytest.param(30, 90.0, id="three intervals")],
)
def test_allowance(interval: float, allowed: float) -> None:
    assert health.allowance(interval) == allowed


def test_ready_once_nothing_is_pending() -> None:
    state = health.Health()
    assert state.readiness() == "starting: the loops have not started yet"
    state.done(health.STARTING)
    state.pending("b", "waiting for b")
    state.pending("a", "waiting for a")
    assert state.readiness() == "a: waiting for a; b: waiting for b"
    state.done("a")
    assert state.readiness() == "b: waiting for b"
    state.done("b")
    assert state.readiness() == ""


@pytest.fixture(name="served")
def served_fixture() -> Iterator[tuple[str, health.Health, metrics.ReconcilerMetrics]]:
    registry = metrics.new_registry()
    counts = metrics.ReconcilerMetrics(registry)
    state = health.Health()
    with serving(registry, state) as url:
        yield url, state, counts


def test_probes_answer_what_they_mean(
    served: tuple[str, health.Health, metrics.ReconcilerMetrics],
) -> None:
    url, state, _ = served
    assert get(url + "/healthz") == (200, "ok\n")
    state.done(health.STARTING)
    state.pending("reconcile", "no look done yet")
    assert get(url + "/readyz") == (503, "reconcile: no look done yet\n")
    state.done("reconcile")
    assert get(url + "/readyz") == (200, "ok\n")
    state.beat("reconcile", -1)
    status, text = get(url + "/healthz")
    assert status == 503
    assert text.startswith("reconcile: ")
    assert get(url + "/") == (404, "not found\n")


def test_metrics_are_the_registry(
    served: tuple[str, health.Health, metrics.ReconcilerMetrics],
) -> None:
    url, _, counts = served
    counts.renders.labels("rendered").inc(2)
    assert value(scrape(url), "gitfleet_renders_total", result="rendered") == 2


def test_an_address_in_use_is_refused() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with pytest.raises(errors.ListenError, match=f"metrics address 127.0.0.1:{port}: "):
            endpoint.MetricsServer(("127.0.0.1", port), metrics.new_registry(), health.Health())


@pytest.mark.parametrize(
    ("text", "address"),
    [("127.0.0.1:9090", ("127.0.0.1", 9090)), (":8080", ("0.0.0.0", 8080)),
     ("8080", ("127.0.0.1", 8080)), ("[::1]:80", ("::1", 80))],
)  # fmt: skip
def test_addresses(text: str, address: tuple[str, int]) -> None:
    assert endpoint.parse_address(text, "metrics address") == address


def test_a_bad_address_names_what_it_is() -> None:
    with pytest.raises(ValueError, match="metrics address 'host:port': expected HOST:PORT"):
        endpoint.parse_address("host:port", "metrics address")
