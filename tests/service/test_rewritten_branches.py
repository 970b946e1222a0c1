"""Branches that move other than forward, or by someone else.

Aspects covered:
- the source branch force-pushed to a rewritten commit: that commit is rendered on top of the
  last render (the rendered branch only moves forward, its history intact);
- the rendered branch moved by someone else before a look: the next render goes on top of
  their commit;
- the rendered branch moved by someone else while a render runs (between reading the tip and
  committing): the compare-and-swap refuses, the conflict is logged, and the render is made
  again on top of their commit, which stays in the history;
- the rendered branch already rendering the source (another writer did it): nothing is
  committed.
"""

from __future__ import annotations

from service.service_helpers import Fleet, git

from gitfleet.service import events, reconciler


def look(fleet: Fleet, sink: events.Sink | None = None) -> reconciler.Outcome:
    service = reconciler.Reconciler(
        reconciler.Settings(repo=str(fleet.remote)), sink or (lambda e: None)
    )
    try:
        return service.cycle()
    finally:
        service.close()


def hand_commit(fleet: Fleet, on: str) -> str:
    """A commit by someone else on the rendered branch (same tree, a new commit)."""
    tree = fleet.git("rev-parse", f"{on}^{{tree}}")
    made = fleet.git("commit-tree", tree, "-p", on, "-m", "hand edit")
    fleet.git("update-ref", "refs/heads/gitfleet/rendered", made, on)
    return made


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
    foreign = hand_commit(fleet, fleet.ref("gitfleet/rendered") or "")
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
            foreign.append(hand_commit(fleet, str(event.fields["onto"])))

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
