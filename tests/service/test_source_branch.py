"""Which branch the reconciler renders.

Aspects covered:
- without a branch in the settings, the `sourceBranch` of gitfleet.yaml on the repository's
  default branch (what HEAD names, here `trunk`; for a URL, the remote's HEAD), not main's;
- a branch in the settings wins over gitfleet.yaml;
- a default branch whose gitfleet.yaml names none: main;
- the branch used is the one the reconciler's status ref records, for a local repository and
  for a remote URL alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from service.service_helpers import Fleet, git

from gitfleet.service import reconciler

SETTING = "sourceBranch: main"


def branch_off(fleet: Fleet, name: str) -> None:
    git("checkout", "-q", "-b", name, "main", cwd=fleet.work)


def publish(fleet: Fleet, branch: str) -> str:
    git("add", "-A", cwd=fleet.work)
    git("commit", "-q", "--allow-empty", "-m", f"on {branch}", cwd=fleet.work)
    git("push", "-q", "origin", branch, cwd=fleet.work)
    return git("rev-parse", "HEAD", cwd=fleet.work)


def default_branch_naming(fleet: Fleet, source_branch: str | None) -> None:
    """Make `trunk` the remote's default branch, its gitfleet.yaml naming `source_branch`."""
    branch_off(fleet, "trunk")
    config = fleet.work / "gitfleet.yaml"
    text = config.read_text(encoding="utf-8")
    assert SETTING in text
    replacement = f"sourceBranch: {source_branch}" if source_branch else ""
    config.write_text(text.replace(SETTING, replacement), encoding="utf-8")
    publish(fleet, "trunk")
    fleet.git("symbolic-ref", "HEAD", "refs/heads/trunk")


@pytest.mark.parametrize("remote", [pytest.param(False, id="local"), pytest.param(True, id="url")])
@pytest.mark.parametrize(
    ("configured", "given", "expected"),
    [
        pytest.param("production", None, "production", id="gitfleet.yaml names it"),
        pytest.param("production", "main", "main", id="the settings win"),
        pytest.param(None, None, "main", id="named nowhere: main"),
    ],
)
def test_the_source_branch(
    fleet: Fleet,
    tmp_path: Path,
    remote: bool,
    configured: str | None,
    given: str | None,
    expected: str,
) -> None:
    branch_off(fleet, "production")
    publish(fleet, "production")
    default_branch_naming(fleet, configured)
    heads = {name: fleet.ref(f"refs/heads/{name}") for name in ("main", "production")}
    assert heads["main"] != heads["production"]
    location = fleet.url if remote else str(fleet.remote)
    settings = reconciler.Settings(repo=location, branch=given, cache=tmp_path / "cache")
    service = reconciler.Reconciler(settings, lambda e: None)
    try:
        assert service.cycle() is reconciler.Outcome.RENDERED
        assert service.source_branch == expected
    finally:
        service.close()
    assert fleet.rendered_source() == heads[expected]
    assert fleet.reconciler_state().source_branch == expected
