"""A source commit with errors is not rendered; the reconciler says why, where.

Aspects covered:
- the rendered branch stays at the last good render; the look is `invalid`, logged with the
  file, line and message of the first error;
- the reconciler's status ref records the error (file, line, source commit) next to the last
  good render, and the same commit is not rendered again at the next look;
- a fixing commit renders, and the recorded error is cleared;
- the status ref is one parentless commit, replaced at each write, naming the rendered commit
  in its `Rendered-Commit` trailer; deleted while the reconciler is idle, it is written again
  at the next look, and a present one is left alone.
"""

from __future__ import annotations

from service.service_helpers import WEB, Fleet, break_web

from gitfleet.service import events, reconciler

STATUS = "refs/heads/gitfleet/status/_reconciler"


def test_invalid_commit_keeps_the_last_good_render(fleet: Fleet) -> None:
    logged: list[events.Event] = []
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), logged.append)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        good = fleet.ref("gitfleet/rendered")
        good_source = fleet.rendered_source()
        bad = break_web(fleet)
        assert service.cycle() is reconciler.Outcome.INVALID
        assert fleet.ref("gitfleet/rendered") == good
        (invalid,) = [e for e in logged if e.name == "invalid"]
        assert invalid.source == bad
        assert invalid.fields["path"] == WEB
        assert isinstance(invalid.fields["line"], int) and invalid.fields["line"] > 0
        recorded = fleet.reconciler_state()
        assert recorded.last_seen == bad
        assert recorded.last_rendered == good
        assert recorded.last_rendered_source == good_source
        assert recorded.last_error is not None
        assert recorded.last_error.source_commit == bad
        assert (recorded.last_error.path, recorded.last_error.line) == (WEB, invalid.fields["line"])
        count = len(logged)
        assert service.cycle() is reconciler.Outcome.IDLE
        assert len(logged) == count

        path = fleet.work / WEB
        path.write_text(path.read_text().replace("replicas: [6", "replicas: 6"), encoding="utf-8")
        fixed = fleet.push_change()
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert fleet.rendered_source() == fixed
        assert fleet.reconciler_state().last_error is None
    finally:
        service.close()


def test_status_ref_is_one_parentless_commit_naming_the_render(fleet: Fleet) -> None:
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        service.cycle()
        first = fleet.ref(STATUS)
        fleet.push_change()
        service.cycle()
    finally:
        service.close()
    assert fleet.ref(STATUS) != first
    assert fleet.git("rev-list", "--count", STATUS) == "1"
    trailer = fleet.git("log", "-1", "--format=%(trailers:key=Rendered-Commit,valueonly)", STATUS)
    assert trailer.strip() == fleet.ref("gitfleet/rendered")
    assert fleet.git("ls-tree", "--name-only", STATUS) == "reconciler.yaml"


def test_a_status_ref_deleted_while_idle_is_written_again(fleet: Fleet) -> None:
    logged: list[events.Event] = []
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), logged.append)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        before = fleet.reconciler_state()
        fleet.git("update-ref", "-d", STATUS)
        assert fleet.ref(STATUS) is None
        assert service.cycle() is reconciler.Outcome.IDLE
        again = fleet.reconciler_state()
        first_idle = fleet.ref(STATUS)
        assert service.cycle() is reconciler.Outcome.IDLE
    finally:
        service.close()
    assert (again.last_seen, again.last_rendered) == (before.last_seen, before.last_rendered)
    assert fleet.ref(STATUS) == first_idle  # a present ref is left alone
    assert [e.name for e in logged].count("rendered") == 1
