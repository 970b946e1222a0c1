"""Reconciling a remote repository through its mirror in a cache folder.

Aspects covered:
- a render of the remote's source is pushed back: the rendered branch, every per-cluster ref
  and the reconciler's status ref appear on the remote, and the mirror lives in the cache;
- a remote that cannot be reached is retried with doubling delays up to the cap, pokes do not
  shorten the wait (no busy loop), and once the remote exists the source is rendered;
- the remote's rendered branch moved by another writer's render between fetch and push: the lease
  refuses the push, nothing is overwritten, and the render is made again on top of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from service.service_helpers import Fleet, Start, git, wait_for

from gitfleet.service import events, reconciler

HOUR = 3600.0


def remote_settings(url: str, cache: Path, **overrides: object) -> reconciler.Settings:
    values: dict[str, object] = {"repo": url, "interval": HOUR, "cache": cache}
    values.update(overrides)
    return reconciler.Settings(**values)  # type: ignore[arg-type]


def test_render_is_pushed_to_the_remote(fleet: Fleet, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    logged: list[events.Event] = []
    service = reconciler.Reconciler(remote_settings(fleet.url, cache), logged.append)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
    finally:
        service.close()
    head = fleet.ref("main")
    assert fleet.rendered_source() == head
    clusters = fleet.git("for-each-ref", "--format=%(refname)", "refs/heads/gitfleet/works/")
    assert len(clusters.splitlines()) == 5
    assert fleet.ref("refs/heads/gitfleet/status/_reconciler") is not None
    (mirror,) = cache.iterdir()
    assert mirror.name.endswith(".git")
    assert [e.name for e in logged] == ["seen", "rendering", "committed", "rendered"]


def test_unreachable_remote_backs_off_then_recovers(
    fleet: Fleet, tmp_path: Path, start: Start
) -> None:
    missing = tmp_path / "later.git"
    settings = remote_settings(missing.as_uri(), tmp_path / "cache", retry_base=0.05, retry_cap=0.2)
    running = start(settings)
    wait_for(lambda: len(running.find("remote-error")) >= 4, "four failed fetches")
    delays = [e.fields["retry_in"] for e in running.find("remote-error")][:4]
    assert delays == [0.05, 0.1, 0.2, 0.2]
    failures = len(running.find("remote-error"))
    for _ in range(200):
        running.service.wake.poke("webhook")
    assert len(running.find("remote-error")) <= failures + 2
    shutil.copytree(fleet.remote, missing)
    wait_for(lambda: running.find("rendered"), "the render once the remote exists")
    source = git("--git-dir", str(missing), "rev-parse", "main")
    assert running.find("rendered")[0].source == source
    rendered_source = git(
        "--git-dir", str(missing), "log", "-1",
        "--format=%(trailers:key=Source-Commit,valueonly)", "gitfleet/rendered",
    )  # fmt: skip
    assert rendered_source.strip() == source


def test_lease_refuses_a_push_over_someone_elses_commit(fleet: Fleet, tmp_path: Path) -> None:
    first = reconciler.Reconciler(remote_settings(fleet.url, tmp_path / "c1"), lambda e: None)
    try:
        first.cycle()
    finally:
        first.close()
    before = fleet.ref("gitfleet/rendered")
    assert before is not None
    pushed = fleet.push_change()
    foreign: list[str] = []

    def intrude(event: events.Event) -> None:
        if event.name == "committed" and not foreign:
            foreign.append(fleet.other_render(before))

    logged: list[events.Event] = []

    def sink(event: events.Event) -> None:
        logged.append(event)
        intrude(event)

    service = reconciler.Reconciler(remote_settings(fleet.url, tmp_path / "c1"), sink)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
    finally:
        service.close()
    assert [e.name for e in logged].count("conflict") == 1
    tip = fleet.ref("gitfleet/rendered")
    assert fleet.git("rev-parse", f"{tip}^") == foreign[0]
    assert fleet.rendered_source() == pushed


def test_a_status_ref_deleted_on_the_remote_is_pushed_again(fleet: Fleet, tmp_path: Path) -> None:
    service = reconciler.Reconciler(remote_settings(fleet.url, tmp_path / "cache"), lambda e: None)
    status = "refs/heads/gitfleet/status/_reconciler"
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        rendered = fleet.reconciler_state().last_rendered
        fleet.git("update-ref", "-d", status)
        assert service.cycle() is reconciler.Outcome.IDLE
    finally:
        service.close()
    assert fleet.ref(status) is not None
    assert fleet.reconciler_state().last_rendered == rendered
