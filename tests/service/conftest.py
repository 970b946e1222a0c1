"""Fixtures for the reconciler: a fleet source in a bare repository (the remote every test
pushes to), a working clone to push from, and reconcilers running on threads; and webhook
servers on 127.0.0.1."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from service.service_helpers import EXAMPLE, Fleet, Running, Start, git
from service.webhook_client import Served

from gitfleet.service import events, reconciler, server, wakeup


@pytest.fixture(name="fleet")
def fleet_fixture(tmp_path: Path) -> Fleet:
    remote = tmp_path / "fleet.git"
    work = tmp_path / "work"
    git("init", "-q", "--bare", "-b", "main", str(remote))
    shutil.copytree(EXAMPLE, work)
    git("init", "-q", "-b", "main", cwd=work)
    git("remote", "add", "origin", str(remote), cwd=work)
    fleet = Fleet(remote, work)
    fleet.commit_and_push()
    return fleet


@pytest.fixture(name="start")
def start_fixture() -> Iterator[Start]:
    """`start(settings, wake=None, on_event=None, **observers)`: a reconciler running on a
    thread (`observers`: its `counts` and `alive`);
    stopped and closed at the end of the test. `on_event` sees each event as it is logged
    (before the reconciler goes on), to act at a chosen moment."""
    started: list[Running] = []

    def start(
        settings: reconciler.Settings,
        wake: wakeup.Wakeup | None = None,
        on_event: Callable[[events.Event], None] | None = None,
        **observers: Any,
    ) -> Running:
        logged: list[events.Event] = []

        def sink(event: events.Event) -> None:
            logged.append(event)
            if on_event is not None:
                on_event(event)

        service = reconciler.Reconciler(settings, sink, wake, **observers)
        thread = threading.Thread(target=service.run, daemon=True)
        running = Running(service, logged, thread)
        started.append(running)
        thread.start()
        return running

    yield start
    for running in started:
        running.stop()
        running.service.close()


@pytest.fixture(name="serve")
def serve_fixture() -> Iterator[Callable[..., Served]]:
    """`serve(limits=Limits(), clock=time.time)`: a started webhook server, closed at the end
    of the test."""
    started: list[Served] = []

    def serve(
        limits: server.Limits | None = None, clock: Callable[[], float] = time.time
    ) -> Served:
        served = Served(limits or server.Limits(), clock)
        started.append(served)
        return served

    yield serve
    for served in started:
        served.server.close()


@pytest.fixture(name="served")
def served_fixture(serve: Callable[..., Served]) -> Served:
    """A webhook server with the default limits."""
    return serve()
