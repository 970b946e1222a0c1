"""The demo's services stop within bounds, whatever their threads are doing.

Aspects covered:
- agents stuck in requests to clusters that answer too slowly: `stop` returns all the same,
  names the push agent and the pull agent's worker, and leaves only daemon threads, which end
  once the clusters are gone.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from gitfleet import demo, sim
from gitfleet.demo import _services, _workspace, simulated
from gitfleet.service import events

BOUND = 60.0
"""Seconds that only a hang exceeds."""


def test_stop_returns_and_names_the_threads_stuck_in_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_services, "JOIN_SECONDS", 0.5)
    workspace = _workspace.Workspace.create(tmp_path / "demo")
    plans = simulated.plans_from_repo(str(workspace.source))
    told: list[events.Event] = []
    services = _services.Services(workspace, plans, demo.Options(fast=True).pace, told.append)
    services.start()
    try:
        deadline = time.monotonic() + BOUND
        while any(cluster.requests.writes == 0 for cluster in services.clusters):
            assert time.monotonic() < deadline, "the agents never applied the fleet"
            time.sleep(0.1)
        for cluster in services.clusters:
            cluster.set_fault(sim.Fault.SLOW, latency=BOUND)
        # Every worker syncs at least every second: it is waiting for an answer by then (for
        # ten seconds, the demo's read timeout).
        time.sleep(3)
    finally:
        started = time.monotonic()
        stuck = services.stop()
        took = time.monotonic() - started
    assert took < BOUND
    assert "gitfleet-demo push agent" in stuck
    assert [name for name in stuck if name.endswith(" worker")], stuck
    left = [t for t in threading.enumerate() if t.name.startswith("gitfleet-")]
    assert all(t.daemon for t in left), [t.name for t in left if not t.daemon]
    for thread in left:
        thread.join(BOUND)
    assert not [t.name for t in left if t.is_alive()]
