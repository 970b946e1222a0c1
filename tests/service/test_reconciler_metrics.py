"""The reconciler's metrics and probes carry what a known run did, scraped over real HTTP.

Aspects covered, for one run (a render, an invalid commit, a webhook push, a bad request):
- `gitfleet_renders_total` by result, and one duration observed per look counted;
- `gitfleet_bindings`, `gitfleet_render_refusals` and `gitfleet_unscheduled_resources` of the
  render on the branch, `gitfleet_last_successful_render_timestamp_seconds` when it was made
  (an invalid commit leaves them all as they were);
- `gitfleet_webhook_requests_total` by the status of each reply;
- `/readyz` fails until the first look is done, then passes; `/healthz` passes while the loop
  runs, and the loop's deadline is gone once the reconciler stopped.
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest
from monitor.scrape import get, scrape, serving, value
from service.service_helpers import Fleet, Start, break_web, wait_for
from service.webhook_client import SECRET, github

from gitfleet.monitor import health, metrics
from gitfleet.service import events, reconciler


@pytest.fixture(name="observed")
def observed_fixture() -> Iterator[tuple[str, metrics.ReconcilerMetrics, health.Health]]:
    registry = metrics.new_registry()
    counts = metrics.ReconcilerMetrics(registry)
    alive = health.Health()
    with serving(registry, alive) as url:
        yield url, counts, alive


def post(address: str, body: bytes, headers: dict[str, str]) -> int:
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=20)
    try:
        conn.request("POST", "/", body, headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_metrics_of_a_known_run(
    fleet: Fleet,
    start: Start,
    observed: tuple[str, metrics.ReconcilerMetrics, health.Health],
) -> None:
    url, counts, alive = observed
    at_start: list[tuple[int, str]] = []

    def on_event(event: events.Event) -> None:
        if event.name == "started":  # logged before the first look
            at_start.append(get(url + "/readyz"))

    settings = reconciler.Settings(
        repo=str(fleet.remote),
        interval=0.1,
        webhook=("127.0.0.1", 0),
        webhook_secret=SECRET,
    )
    before = time.time()
    running = start(settings, None, on_event, counts=counts, alive=alive)
    rendered = wait_for(lambda: running.find("rendered"), "the first render")[0]
    assert at_start == [(503, "reconcile: no look done yet\n")]
    wait_for(lambda: get(url + "/readyz") == (200, "ok\n"), "ready after the first look")
    assert get(url + "/healthz") == (200, "ok\n")
    bad = break_web(fleet)
    wait_for(lambda: running.find("invalid", bad), "the invalid commit")
    address = str(running.find("listening")[0].fields["address"])
    body = json.dumps({"ref": "refs/heads/main", "after": bad}).encode()
    assert post(address, body, github(body)) == 202
    assert post(address, body, {"X-GitHub-Event": "push", "X-Hub-Signature-256": "x"}) == 401
    wait_for(lambda: running.find("webhook"), "the webhook logged")
    bindings = fleet.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", "bindings/")

    def counted() -> dict[tuple[str, frozenset[tuple[str, str]]], float] | None:
        """The samples once the invalid look and both replies are counted (each is counted
        just after it is logged or sent)."""
        found = scrape(url)
        done = value(found, "gitfleet_renders_total", result="invalid") == 1 and all(
            value(found, "gitfleet_webhook_requests_total", code=code) for code in ("202", "401")
        )
        return found if done else None

    samples = wait_for(counted, "the invalid look and the replies counted")
    assert value(samples, "gitfleet_renders_total", result="rendered") == 1
    assert value(samples, "gitfleet_render_duration_seconds_count") == 2
    assert value(samples, "gitfleet_bindings") == len(bindings.splitlines()) > 0
    assert value(samples, "gitfleet_render_refusals") == 0
    assert value(samples, "gitfleet_unscheduled_resources") == 0
    success = value(samples, "gitfleet_last_successful_render_timestamp_seconds")
    assert success is not None and before <= success <= rendered.time
    assert value(samples, "gitfleet_webhook_requests_total", code="202") == 1
    assert value(samples, "gitfleet_webhook_requests_total", code="401") == 1

    running.stop()
    assert alive.liveness() == ""
    assert alive.readiness() == ""
