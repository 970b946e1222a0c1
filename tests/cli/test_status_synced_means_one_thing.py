"""`gitfleet status` says the same about a Push and a Pull cluster in the same state.

A push agent reports the rendered branch's commit it synced from; a pull agent reports the
commit of the cluster's own ref it applied. Aspects covered:
- APPLIED (`renderedCommit`) is a commit of the rendered branch for both: a pull agent's commit
  is resolved to the render that wrote it (`reportedCommit` keeps what the agent wrote), also
  when that render is not the tip any more;
- SYNCED (`synced`) means, for both: the folder applied is the latest render's and the sync
  had no error; an agent that applied the latest render with errors is `current` but not
  synced; one that applied an older folder is neither;
- run as a user types it: a relative `--repo` from another directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_push_and_pull
from conftest import GitRepo, Invoke
from status.status_kit import Applied, report_files, write_reports

FRESH = ("--grace", "1e12")


def _source(replicas: int) -> str:
    return yaml.safe_dump_all(make_push_and_pull("push", "pull", replicas))


def _report(git_repo: GitRepo, error: str = "") -> None:
    """Each agent reports what it would have applied now: the push agent the rendered
    branch's tip, the pull agent its cluster's own ref."""
    web = Applied("Deployment", "web", message=error)
    commits = {
        "push": git_repo.git("rev-parse", "gitfleet/rendered"),
        "pull": git_repo.git("rev-parse", "gitfleet/works/pull"),
    }
    write_reports(
        git_repo.path,
        {n: report_files(n, [web], rendered_commit=c, error=error) for n, c in commits.items()},
    )


def _clusters(cli: Invoke) -> dict[str, dict[str, Any]]:
    done = cli("status", "--repo", "../source", "-o", "json", *FRESH)
    assert done.exit_code == 0, done.output
    return {c["name"]: c for c in json.loads(done.output)["clusters"]}


def _table(cli: Invoke) -> dict[str, list[str]]:
    done = cli("status", "--repo", "../source", *FRESH)
    rows = [line.split() for line in done.output.splitlines()]
    return {row[0]: row for row in rows if row and row[0] in ("push", "pull")}


@pytest.fixture(name="rendered")
def rendered_fixture(git_repo: GitRepo, cli: Invoke, elsewhere: Path) -> GitRepo:
    git_repo.commit({"fleet.yaml": _source(replicas=2)})
    assert cli("render", "--repo", "../source").exit_code == 0
    return git_repo


def test_applied_and_synced_mean_the_same_for_push_and_pull(rendered: GitRepo, cli: Invoke) -> None:
    _report(rendered)
    tip = rendered.git("rev-parse", "gitfleet/rendered")
    clusters = _clusters(cli)
    for name in ("push", "pull"):
        assert clusters[name]["renderedCommit"] == tip
        assert (clusters[name]["current"], clusters[name]["synced"]) == (True, True)
    assert clusters["pull"]["reportedCommit"] == rendered.git("rev-parse", "gitfleet/works/pull")
    assert clusters["push"]["reportedCommit"] == tip
    table = _table(cli)
    for name, mode in (("push", "Push"), ("pull", "Pull")):
        beat = "2026-01-01T00:10:00Z"
        assert table[name][1:] == [mode, "True", "declared", beat, tip[:12], "yes", "0", "0"]


def test_errors_are_not_synced(rendered: GitRepo, cli: Invoke) -> None:
    _report(rendered, error="cannot apply")
    clusters = _clusters(cli)
    for name in ("push", "pull"):
        assert (clusters[name]["current"], clusters[name]["synced"]) == (True, False)
        assert _table(cli)[name][6:] == ["no", "0", "2"]


def test_an_older_render_is_named_for_both(rendered: GitRepo, cli: Invoke) -> None:
    _report(rendered)
    first = rendered.git("rev-parse", "gitfleet/rendered")
    rendered.commit({"fleet.yaml": _source(replicas=3)})
    assert cli("render", "--repo", "../source").exit_code == 0
    assert rendered.git("rev-parse", "gitfleet/rendered") != first
    clusters = _clusters(cli)
    for name in ("push", "pull"):
        assert clusters[name]["renderedCommit"] == first
        assert (clusters[name]["current"], clusters[name]["synced"]) == (False, False)
