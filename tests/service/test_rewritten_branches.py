"""Branches that move other than forward, or by someone else.

Aspects covered:
- the source branch force-pushed to a rewritten commit: that commit is rendered on top of the
  last render (the rendered branch only moves forward, its history intact);
- the rendered branch moved by another writer's render before a look: the next render goes on
  top of their commit;
- the rendered branch moved by another writer's render while a render runs (between reading
  the tip and committing): the compare-and-swap refuses, the conflict is logged, and the render
  is made again on top of their commit, which stays in the history;
- the rendered branch already rendering the source (another writer did it): nothing is
  committed;
- the rendered branch, or a cluster ref, reset to a commit that is not a render (a source
  commit): nothing is built on it; the look is blocked, logged once and recorded in the status
  ref with the way out, and the reconciler stays up; once the ref is deleted the next look
  renders a new, parentless history (the rendered branch) or brings the ref back (a cluster);
  a commit whose source has errors is invalid all the same, with its errors;
- a cluster ref deleted while the reconciler runs, the source unchanged: its next look writes
  it again (parentless), and the looks after that are idle.
"""

from __future__ import annotations

import pytest
from service.service_helpers import Fleet, Start, git, wait_for

from gitfleet.service import events, reconciler

RENDERED = "refs/heads/gitfleet/rendered"
CLUSTER = "refs/heads/gitfleet/works/aws-euw1"


def look(fleet: Fleet, sink: events.Sink | None = None) -> reconciler.Outcome:
    service = reconciler.Reconciler(
        reconciler.Settings(repo=str(fleet.remote)), sink or (lambda e: None)
    )
    try:
        return service.cycle()
    finally:
        service.close()


def test_force_pushed_source_renders_forward(fleet: Fleet) -> None:
    look(fleet)
    fleet.push_change("first")
    look(fleet)
    tip = fleet.ref("gitfleet/rendered")
    git("reset", "-q", "--hard", "HEAD~1", cwd=fleet.work)
    rewritten = fleet.push_change("rewritten", force=True)
    assert look(fleet) is reconciler.Outcome.RENDERED
    assert fleet.rendered_source() == rewritten
    assert fleet.git("rev-parse", "gitfleet/rendered^") == tip
    assert len(fleet.renders()) == 3


def test_render_goes_on_top_of_someone_elses_commit(fleet: Fleet) -> None:
    look(fleet)
    foreign = fleet.other_render(fleet.ref("gitfleet/rendered") or "")
    pushed = fleet.push_change()
    assert look(fleet) is reconciler.Outcome.RENDERED
    assert fleet.git("rev-parse", "gitfleet/rendered^") == foreign
    assert fleet.rendered_source() == pushed


def test_race_with_another_writer_renders_again_on_top(fleet: Fleet) -> None:
    look(fleet)
    pushed = fleet.push_change()
    foreign: list[str] = []
    logged: list[events.Event] = []

    def sink(event: events.Event) -> None:
        logged.append(event)
        if event.name == "rendering" and not foreign:
            foreign.append(fleet.other_render(str(event.fields["onto"])))

    assert look(fleet, sink) is reconciler.Outcome.RENDERED
    names = [e.name for e in logged]
    assert names == ["seen", "rendering", "conflict", "rendering", "rendered"]
    assert logged[3].fields["onto"] == foreign[0]
    assert fleet.git("rev-parse", "gitfleet/rendered^") == foreign[0]
    assert fleet.rendered_source() == pushed


def test_source_already_rendered_commits_nothing(fleet: Fleet) -> None:
    look(fleet)
    tip = fleet.ref("gitfleet/rendered")
    assert look(fleet) is reconciler.Outcome.UP_TO_DATE
    assert fleet.ref("gitfleet/rendered") == tip


@pytest.mark.parametrize("ref", [RENDERED, CLUSTER], ids=["rendered branch", "cluster ref"])
def test_a_ref_reset_to_a_source_commit_blocks_until_deleted(fleet: Fleet, ref: str) -> None:
    look(fleet)
    source = fleet.git("rev-parse", "main")
    fleet.git("update-ref", ref, source)
    pushed = fleet.push_change()
    logged: list[events.Event] = []
    assert look(fleet, logged.append) is reconciler.Outcome.BLOCKED
    assert fleet.ref(ref) == source
    error = fleet.reconciler_state().last_error
    assert error is not None and error.source_commit == pushed
    assert f"{ref} is at a commit that is not a render" in error.message
    assert "gitfleet render --new-history" in error.message and "--delete" in error.message
    (blocked,) = [e for e in logged if e.name == "blocked"]
    assert blocked.fields["error"] == error.message
    fleet.git("update-ref", "-d", ref)
    assert look(fleet) is reconciler.Outcome.RENDERED
    assert fleet.reconciler_state().last_error is None
    assert fleet.rendered_source() == pushed
    assert source not in fleet.git("rev-list", ref).split()
    assert fleet.git("log", "-1", "--format=%P", ref) == ""


def test_a_source_with_errors_is_invalid_whatever_the_refs(fleet: Fleet) -> None:
    """A commit whose source has errors is invalid, with its errors, also while a ref is not
    at a render: the errors are what to fix in it, and nothing would be written either way."""
    look(fleet)
    fleet.git("update-ref", RENDERED, fleet.git("rev-parse", "main"))
    (fleet.work / "gitfleet.yaml").write_text("renderedBranch: a\nrenderedBranch: b\n")
    pushed = fleet.commit_and_push()
    assert look(fleet) is reconciler.Outcome.INVALID
    error = fleet.reconciler_state().last_error
    assert error is not None and error.source_commit == pushed
    assert (error.path, error.line, error.message) == (
        "gitfleet.yaml",
        2,
        "duplicate key 'renderedBranch'",
    )


def test_blocked_looks_log_once_and_recover_the_rendered_source(fleet: Fleet) -> None:
    """A cluster ref reset while the branch already renders the source: every look finds it
    again but logs and records it once; deleted, the ref is rendered back at the next look."""
    look(fleet)
    tip = fleet.ref(RENDERED)
    fleet.git("update-ref", CLUSTER, fleet.git("rev-parse", "main"))
    logged: list[events.Event] = []
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), logged.append)
    try:
        outcomes = [service.cycle() for _ in range(3)]
        assert outcomes == [reconciler.Outcome.BLOCKED] * 3
        assert [e.name for e in logged].count("blocked") == 1
        status = fleet.ref("refs/heads/gitfleet/status/_reconciler")
        fleet.git("update-ref", "-d", CLUSTER)
        assert service.cycle() is reconciler.Outcome.UNCHANGED
    finally:
        service.close()
    assert fleet.ref(RENDERED) == tip
    assert fleet.git("log", "-1", "--format=%P", CLUSTER) == ""
    assert fleet.ref("refs/heads/gitfleet/status/_reconciler") != status


def test_a_blocked_service_stays_up(fleet: Fleet, start: Start) -> None:
    look(fleet)
    fleet.git("update-ref", RENDERED, fleet.git("rev-parse", "main"))
    running = start(reconciler.Settings(repo=str(fleet.remote), interval=0.05, watch=False))
    wait_for(lambda: running.find("blocked"), "the blocked look")
    pushed = fleet.push_change()
    wait_for(lambda: len(running.find("blocked")) == 2, "the next commit blocked too")
    fleet.git("update-ref", "-d", RENDERED)
    wait_for(lambda: fleet.rendered_source() == pushed, "a new history once the ref is gone")
    assert running.thread.is_alive() and not running.find("error")


def test_a_cluster_ref_deleted_while_running_comes_back(fleet: Fleet) -> None:
    """A look with nothing new still lists the cluster refs: the ref is written again without
    waiting for a source commit (its pull agent has nothing to apply meanwhile)."""
    service = reconciler.Reconciler(reconciler.Settings(repo=str(fleet.remote)), lambda e: None)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        tip = fleet.ref(RENDERED)
        assert service.cycle() is reconciler.Outcome.IDLE
        fleet.git("update-ref", "-d", CLUSTER)
        assert service.cycle() is reconciler.Outcome.UNCHANGED
        assert service.cycle() is reconciler.Outcome.IDLE
    finally:
        service.close()
    assert fleet.ref(RENDERED) == tip
    assert fleet.git("log", "-1", "--format=%P", CLUSTER) == ""
    assert fleet.git("rev-parse", f"{CLUSTER}:works/aws-euw1") == fleet.git(
        "rev-parse", f"{RENDERED}:works/aws-euw1"
    )
