"""The reconciler never dies on a source file or a status file: hostile YAML is an invalid
commit, recorded with its file and line, and the service goes on.

The fleet is a real bare repository the tests push to.

Aspects covered:
- a source commit with a self-merging mapping, a merge-key billion laughs or a list holding
  itself: the look is `invalid` within seconds, the reconciler's status ref records the file,
  line and message, the rendered branch stays at the last good render;
- a reconciler started on a repository whose HEAD already holds such a file starts;
- the running service (on its thread) logs each such commit as invalid, never as an internal
  error, and renders the fixing commit that follows (as the last good render: unchanged);
- a cluster whose status ref holds such YAML, or a scalar whose tag cannot hold it
  (`hostile_yaml.SCALARS`), is scheduled on what the source declares: the render goes on.
"""

from __future__ import annotations

import time

import pytest
from hostile_yaml import CASES, SCALARS, bomb
from service.service_helpers import Fleet, Start, wait_for

from gitfleet.gitstore import repository, status
from gitfleet.service import reconciler

HOSTILE_FILE = "apps/shop/hostile.yaml"


HOSTILE = [c for c in CASES if c.id in ("self merge", "merge-key billion laughs", "cycle")]


def push_hostile(fleet: Fleet, text: str) -> str:
    (fleet.work / HOSTILE_FILE).write_text(text, encoding="utf-8")
    return fleet.commit_and_push()


def push_fix(fleet: Fleet) -> str:
    (fleet.work / HOSTILE_FILE).unlink()
    return fleet.commit_and_push()


@pytest.mark.parametrize(("text", "where", "message"), HOSTILE)
def test_hostile_commit_is_recorded_as_invalid(
    fleet: Fleet, text: str, where: tuple[int, int], message: str
) -> None:
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        good = fleet.ref("gitfleet/rendered")
        bad = push_hostile(fleet, text)
        started = time.monotonic()
        assert service.cycle() is reconciler.Outcome.INVALID
        assert time.monotonic() - started < 10
        assert fleet.ref("gitfleet/rendered") == good
        error = fleet.reconciler_state().last_error
        assert error is not None
        assert (error.source_commit, error.path, (error.line, error.col)) == (
            bad, HOSTILE_FILE, where,
        )  # fmt: skip
        assert error.message == message
    finally:
        service.close()


def test_service_starts_on_a_hostile_head(fleet: Fleet) -> None:
    push_hostile(fleet, "a: &m {<<: *m}\n")
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        assert service.cycle() is reconciler.Outcome.INVALID
    finally:
        service.close()


def test_running_service_stays_up(fleet: Fleet, start: Start) -> None:
    running = start(reconciler.Settings(repo=str(fleet.remote), interval=0.05))
    wait_for(lambda: running.find("rendered"), "the first render")
    for param in HOSTILE:
        bad = push_hostile(fleet, param.values[0])
        running.service.wake.poke("test")
        wait_for(lambda bad=bad: running.find("invalid", bad), f"{param.id} seen as invalid")
    fixed = push_fix(fleet)
    running.service.wake.poke("test")
    wait_for(lambda: running.find("unchanged", fixed), "the fixing commit rendered")
    assert running.thread.is_alive()
    assert running.find("error") == []
    wait_for(lambda: fleet.reconciler_state().last_rendered_source == fixed, "the render recorded")
    assert fleet.reconciler_state().last_error is None


@pytest.mark.parametrize(
    ("summary", "works"),
    [
        pytest.param(bomb(), "a: &m {<<: *m}\n", id="over the limits"),
        *(pytest.param(p.values[0], p.values[0], id=p.id) for p in SCALARS),
    ],
)
def test_hostile_status_ref_is_ignored(fleet: Fleet, summary: str, works: str) -> None:
    repo = repository.open_repository(fleet.remote)
    assert repo is not None
    try:
        files = {"cluster.yaml": summary.encode(), "works.yaml": works.encode()}
        status.write_status(repo, "member1", files, expected=None, rendered_commit="")
    finally:
        repo.close()
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        started = time.monotonic()
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert time.monotonic() - started < 30
    finally:
        service.close()
