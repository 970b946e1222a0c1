"""A source commit that could not be rendered because another branch was in the way of its
refs, in a reconciler that keeps running.

Aspects covered:
- a branch named `gitfleet/works` (in the way of every cluster's Work ref), or one below the
  rendered branch's name, makes the commit invalid, and every later look finds it so without
  rendering while the branch stays;
- once the branch is deleted, the next look renders the same commit (no new commit needed);
- a commit invalid for its own errors is not looked at again, branches or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from service.service_helpers import Fleet

from gitfleet.service import reconciler

BLOCKING = "refs/heads/gitfleet/works"


def _service(fleet: Fleet, tmp_path: Path) -> reconciler.Reconciler:
    settings = reconciler.Settings(repo=str(fleet.remote), cache=tmp_path / "cache")
    return reconciler.Reconciler(settings, lambda e: None)


@pytest.mark.parametrize(
    "blocking",
    [
        pytest.param(BLOCKING, id="in the way of the Work refs"),
        pytest.param("refs/heads/gitfleet/rendered/x", id="in the way of the rendered branch"),
    ],
)
def test_a_commit_blocked_by_a_branch_renders_once_the_branch_is_gone(
    fleet: Fleet, tmp_path: Path, blocking: str
) -> None:
    head = fleet.git("rev-parse", "refs/heads/main")
    fleet.git("update-ref", blocking, head)
    service = _service(fleet, tmp_path)
    try:
        assert service.cycle() is reconciler.Outcome.INVALID
        assert service.cycle() is reconciler.Outcome.IDLE
        assert fleet.rendered_source() is None
        fleet.git("update-ref", "-d", blocking)
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert fleet.rendered_source() == head
        assert service.cycle() is reconciler.Outcome.IDLE
    finally:
        service.close()


def test_a_commit_invalid_for_its_own_errors_is_not_looked_at_again(
    fleet: Fleet, tmp_path: Path
) -> None:
    (fleet.work / "gitfleet.yaml").write_text("renderedBranch: [\n", encoding="utf-8")
    fleet.commit_and_push()
    fleet.git("update-ref", BLOCKING, fleet.git("rev-parse", "refs/heads/main"))
    service = _service(fleet, tmp_path)
    try:
        assert service.cycle() is reconciler.Outcome.INVALID
        fleet.git("update-ref", "-d", BLOCKING)
        assert service.cycle() is reconciler.Outcome.IDLE
        assert fleet.rendered_source() is None
    finally:
        service.close()
