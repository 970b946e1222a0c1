"""Failover as rendered commits (gitfleet.pipeline.render with a status snapshot, published on a
rendered branch in a real repository).

Aspects: the evicted cluster keeps its Work, byte for byte, while the eviction task lasts, and
loses it when the replacement is healthy; purge mode Directly removes it at once; each
transition is a commit whose message says what happened (cluster unhealthy, replicas moved,
old copy removed, recovery) and render.yaml records the snapshot time, the heartbeats and the
failover state; time passing without a transition makes no commit; a render is reproducible
from its recorded inputs; the watch says when the same source must be rendered again, also
when resumed from render.yaml.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from failover_kit import (
    SETTINGS,
    RenderedBranch,
    at,
    beats,
    fleet_docs,
)

from gitfleet import failover
from gitfleet.model import work

GRACE = SETTINGS.heartbeat_grace_seconds
LATE = GRACE + (SETTINGS.default_toleration_seconds or 0) + 60
M2_WEB = "works/m2/shop/Deployment.apps/web.yaml"


def test_replicas_move_the_old_work_stays_until_the_new_one_is_healthy(tmp_path: Path) -> None:
    branch = RenderedBranch(tmp_path / "rendered.git")
    first = branch.render(fleet_docs(), beats(0))
    assert (first.replicas("m1"), first.replicas("m2"), first.replicas("m3")) == (1, 1, 1)
    assert first.message.startswith("render "), "no failover transition"

    noticed = branch.render(fleet_docs(), beats(GRACE + 10, {"m2": 0}))
    assert noticed.created
    assert noticed.message.startswith(f"failover: m2 unreachable since {at(GRACE)}")
    assert noticed.report["failover"]["clusters"]["m2"]["ready"] == "Unknown"
    assert noticed.report["status"]["m2"]["heartbeat"] == at(0)
    assert noticed.report["observedAt"] == at(GRACE + 10)

    quiet = branch.render(fleet_docs(), beats(GRACE + 20, {"m2": 0}))
    assert not quiet.created, "time passing inside the toleration changes nothing"

    moved = branch.render(fleet_docs(), beats(LATE, {"m2": 0}))
    assert (moved.replicas("m1"), moved.replicas("m3")) == (2, 1)
    assert moved.files[M2_WEB] == first.files[M2_WEB], "the old Work stays as it was"
    assert "Deployment shop/web moved 1 replicas from m2 to m1 (+1)" in moved.message
    (task,) = moved.report["failover"]["evicting"]
    assert task == {
        "resource": "Deployment shop/web",
        "cluster": "m2",
        "until": at(LATE + SETTINGS.graceful_eviction_timeout_seconds),
    }

    applied = beats(LATE + 20, {"m2": 0}, current=True, health=work.ResourceHealth.HEALTHY)
    released = branch.render(fleet_docs(), applied)
    assert M2_WEB not in released.files
    assert "Deployment shop/web removed from m2 (replacement healthy)" in released.message

    recovered = branch.render(fleet_docs(), beats(LATE + 60))
    assert recovered.message.startswith("failover: m2 Ready again")
    assert (recovered.replicas("m1"), recovered.replicas("m2"), recovered.replicas("m3")) == (
        2,
        None,
        1,
    ), "nothing moves back"
    assert recovered.report["failover"] == {
        "clusters": {},
        "waiting": [],
        "blocked": [],
        "evicting": [],
    }


def test_purge_directly_removes_the_old_work_at_once(tmp_path: Path) -> None:
    branch = RenderedBranch(tmp_path / "rendered.git")
    docs = fleet_docs(failover={"cluster": {"purgeMode": "Directly"}})
    branch.render(docs, beats(0))
    moved = branch.render(docs, beats(LATE, {"m2": 0}))
    assert M2_WEB not in moved.files
    assert moved.replicas("m1") == 2


def test_a_render_is_reproduced_from_its_recorded_inputs(tmp_path: Path) -> None:
    one = RenderedBranch(tmp_path / "one.git")
    two = RenderedBranch(tmp_path / "two.git")
    for branch in (one, two):
        branch.render(fleet_docs(), beats(0))
    snapshot = beats(LATE, {"m2": 0})
    first = one.render(fleet_docs(), snapshot)
    again = two.render(fleet_docs(), snapshot)
    assert first.files == again.files
    assert first.report["observedAt"] == snapshot.at


def test_the_watch_says_when_to_render_again(tmp_path: Path) -> None:
    branch = RenderedBranch(tmp_path / "rendered.git")
    branch.render(fleet_docs(), beats(0))
    waiting = branch.render(fleet_docs(), beats(GRACE + 10, {"m2": 0}))
    watch = waiting.result.failover_watch
    assert watch is not None and watch.unhealthy == {"m2"}
    assert not watch.due(beats(GRACE + 15, {"m2": 0}), SETTINGS), "m1, m3 beat again: same"
    assert watch.due(beats(GRACE + 15), SETTINGS), "m2 is back"
    assert watch.deadline is not None
    stale = dataclasses.replace(beats(0), at=watch.deadline)
    assert watch.due(stale, SETTINGS), "the deadline passed"


def test_a_watch_resumed_from_render_yaml(tmp_path: Path) -> None:
    """A reconciler that did not make the tip's render (restarted, or another one) watches
    from its render.yaml."""
    branch = RenderedBranch(tmp_path / "rendered.git")
    branch.render(fleet_docs(), beats(0))
    waiting = branch.render(fleet_docs(), beats(GRACE + 10, {"m2": 0}))
    resumed = failover.Watch.resumed(waiting.report["failover"], ("m1", "m2", "m3"))
    assert resumed.unhealthy == {"m2"} and not resumed.evicting
    assert resumed.deadline == at(GRACE + (SETTINGS.default_toleration_seconds or 0))
    assert not resumed.due(beats(GRACE + 15, {"m2": 0}), SETTINGS)
    moved = branch.render(fleet_docs(), beats(LATE, {"m2": 0}))
    evicting = failover.Watch.resumed(moved.report["failover"], ("m1", "m2", "m3"))
    assert evicting.evicting and evicting.due(beats(LATE + 1, {"m2": 0}), SETTINGS), (
        "open tasks: the reports it did not see are worth a render"
    )
    assert failover.Watch.resumed(None, ()).deadline is None
