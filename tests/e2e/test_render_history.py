"""`gitfleet render` builds only on renders, and `--new-history` is the way out.

Aspects covered (through the CLI):
- the rendered branch reset to a source commit, or a hand-made commit on top of a render:
  render exits 1 naming the ref and the ways out, and moves no ref;
- a hand edit amended into a render (its message, and so its trailers, kept): the next render
  reuses none of its files, and the edit is rendered over as a full render would;
- a cluster ref reset to a source commit: the same, naming that ref; a source with errors
  reports its errors instead (nothing would be rendered either way);
- `--new-history` gives the branch a parentless render, rendered from scratch: the same tree
  as the render it replaced, with none of the source history; `-o json` lists the ref under
  `newHistory`;
- `--new-history` on a cluster ref replaces only that ref; the branch goes on from its tip;
- deleting the ref is the other way out: the next render starts a new history;
- with every ref at a render, `--new-history` changes nothing; with `--out` it is a usage
  error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GitRepo, Invoke, git

RENDERED = "refs/heads/gitfleet/rendered"
CLUSTER = "refs/heads/gitfleet/works/aws-euw1"


@pytest.fixture(name="rendered_fleet")
def rendered_fleet_fixture(cli: Invoke, fleet: GitRepo) -> GitRepo:
    """The example fleet, rendered."""
    assert render(cli, fleet).exit_code == 0
    return fleet


def render(cli: Invoke, fleet: GitRepo, *args: str) -> Any:
    return cli("render", "--repo", str(fleet.path), *args)


def refs(fleet: GitRepo) -> str:
    return fleet.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/gitfleet/")


@pytest.mark.parametrize("ref", [RENDERED, CLUSTER], ids=["rendered branch", "cluster ref"])
def test_a_ref_reset_to_a_source_commit_is_refused(
    cli: Invoke, rendered_fleet: GitRepo, ref: str
) -> None:
    rendered_fleet.git("update-ref", ref, "main")
    rendered_fleet.commit({"apps/shop/worker.yaml": None})
    before = refs(rendered_fleet)
    result = render(cli, rendered_fleet)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {ref} is at a commit that is not a render")
    assert "gitfleet render --new-history" in result.stderr
    assert "git push origin --delete <ref>" in result.stderr
    assert refs(rendered_fleet) == before


def test_a_source_with_errors_reports_them_before_the_history(
    cli: Invoke, rendered_fleet: GitRepo
) -> None:
    rendered_fleet.git("update-ref", RENDERED, "main")
    rendered_fleet.commit({"gitfleet.yaml": "renderedBranch: a\nrenderedBranch: b\n"})
    before = refs(rendered_fleet)
    result = render(cli, rendered_fleet)
    assert result.exit_code == 1
    assert "gitfleet.yaml:2:1: error: duplicate key 'renderedBranch'" in result.output
    assert "not a render" not in result.output + result.stderr
    assert refs(rendered_fleet) == before


def test_a_hand_made_commit_on_the_branch_is_refused(cli: Invoke, rendered_fleet: GitRepo) -> None:
    tip = rendered_fleet.git("rev-parse", RENDERED)
    edit = rendered_fleet.git("commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "hand edit")
    rendered_fleet.git("update-ref", RENDERED, edit)
    result = render(cli, rendered_fleet)
    assert result.exit_code == 1 and f"{RENDERED} is at a commit" in result.stderr
    assert rendered_fleet.git("rev-parse", RENDERED) == edit


def test_an_edit_amended_into_a_render_is_rendered_over(
    cli: Invoke, rendered_fleet: GitRepo, tmp_path: Path
) -> None:
    web = "works/aws-euw1/shop/Deployment.apps/web.yaml"
    rendered_web = rendered_fleet.git("show", f"{RENDERED}:{web}")
    edit = tmp_path / "edit"
    git(tmp_path, "clone", "-q", "-b", "gitfleet/rendered", str(rendered_fleet.path), str(edit))
    (edit / web).write_text(rendered_web.replace("replicas: 1\n", "replicas: 99\n") + "\n")
    git(edit, "commit", "-q", "-a", "--amend", "--no-edit")
    git(edit, "push", "-q", "-f", "origin", "gitfleet/rendered")
    assert "replicas: 99" in rendered_fleet.git("show", f"{RENDERED}:{web}")
    inference = (rendered_fleet.path / "apps/ml/inference.yaml").read_text()
    scaled = inference.replace("replicas: 2", "replicas: 3")  # web's inputs stay as they were
    rendered_fleet.commit({"apps/ml/inference.yaml": scaled})
    result = render(cli, rendered_fleet)
    assert result.exit_code == 0, result.output
    assert rendered_fleet.git("show", f"{RENDERED}:{web}") == rendered_web


def test_new_history_replaces_the_branch(cli: Invoke, rendered_fleet: GitRepo) -> None:
    good = rendered_fleet.git("rev-parse", f"{RENDERED}^{{tree}}")
    source = rendered_fleet.git("rev-parse", "main")
    rendered_fleet.git("update-ref", RENDERED, source)
    result = render(cli, rendered_fleet, "--new-history", "-o", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["newHistory"] == [RENDERED] and report["created"]
    assert rendered_fleet.git("rev-list", "--parents", RENDERED) == report["commit"]
    assert rendered_fleet.git("rev-parse", f"{RENDERED}^{{tree}}") == good
    again = render(cli, rendered_fleet)
    assert again.exit_code == 0 and "no change" in again.stdout


def test_new_history_replaces_only_a_cluster_ref(cli: Invoke, rendered_fleet: GitRepo) -> None:
    tip = rendered_fleet.git("rev-parse", RENDERED)
    folder = rendered_fleet.git("rev-parse", f"{RENDERED}:works/aws-euw1")
    rendered_fleet.git("update-ref", CLUSTER, "main")
    result = render(cli, rendered_fleet, "--new-history")
    assert result.exit_code == 0, result.output
    assert f"new history on {CLUSTER}: it was not at a render" in result.stdout
    assert rendered_fleet.git("rev-parse", RENDERED) == tip
    assert rendered_fleet.git("log", "-1", "--format=%P", CLUSTER) == ""
    assert rendered_fleet.git("rev-parse", f"{CLUSTER}:works/aws-euw1") == folder


def test_deleting_the_ref_starts_a_new_history(cli: Invoke, rendered_fleet: GitRepo) -> None:
    rendered_fleet.git("update-ref", RENDERED, "main")
    assert render(cli, rendered_fleet).exit_code == 1
    rendered_fleet.git("update-ref", "-d", RENDERED)
    result = render(cli, rendered_fleet)
    assert result.exit_code == 0, result.output
    assert rendered_fleet.git("log", "-1", "--format=%P", RENDERED) == ""


def test_new_history_with_every_ref_at_a_render(cli: Invoke, rendered_fleet: GitRepo) -> None:
    before = refs(rendered_fleet)
    result = render(cli, rendered_fleet, "--new-history", "-o", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["newHistory"] == []
    assert refs(rendered_fleet) == before
    rendered_fleet.commit({"apps/shop/worker.yaml": None})
    tip = rendered_fleet.git("rev-parse", RENDERED)
    assert render(cli, rendered_fleet, "--new-history").exit_code == 0
    assert rendered_fleet.git("rev-parse", f"{RENDERED}^") == tip


def test_new_history_and_out_exclude_each_other(
    cli: Invoke, rendered_fleet: GitRepo, tmp_path: Path
) -> None:
    result = render(cli, rendered_fleet, "--new-history", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "--new-history and --out" in result.stderr
