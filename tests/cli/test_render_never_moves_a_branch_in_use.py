"""A render never moves a branch someone works on: the source branch, one checked out in a work
tree, or the one a bare repository's HEAD names. Moved, the source would be replaced by a
rendered tree (the error for a branch that is not at a render suggests `--new-history`, which
would have done it), or a work tree left behind its branch, its next commit undoing the render.

Aspects covered, typed from the folder above the repository:
- `render --branch main` (the source, checked out), with and without `--new-history`, and
  `render --rev main --branch main`: a usage error (exit 2) naming the option, every ref kept;
- gitfleet.yaml whose renderedBranch is its sourceBranch: `validate` and `render` exit 1 with
  the error at renderedBranch's line; nothing is written;
- the rendered branch checked out in a linked work tree: `render` of a new source commit exits
  1 naming the work tree, the branch stays; once the work tree checks out something else, the
  render goes ahead (a render of the same commit is no shortcut around the error);
- a bare repository: the branch its HEAD names cannot be rendered onto;
- `reconcile --once` with the same `--branch` and `--rendered-branch`: refused, nothing written;
- a renderedBranch naming a branch of one's own (not a render): `validate` fails with the error
  `render` gives, whose `--new-history` way out says that it replaces the branch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_deployment, make_policy
from conftest import GitRepo, Invoke, git

SOURCE = yaml.safe_dump_all(
    [make_cluster("m1"), make_deployment(namespace=""), make_policy("web", namespace="default")]
)


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """The source committed on main (checked out), the current folder the one above it."""
    git_repo.commit({"fleet.yaml": SOURCE})
    monkeypatch.chdir(git_repo.path.parent)
    return git_repo


def _refs(repo: GitRepo) -> str:
    return repo.git("for-each-ref", "--format=%(refname) %(objectname)")


@pytest.mark.parametrize(
    "extra",
    [(), ("--new-history",), ("--rev", "main")],
    ids=["plain", "new history", "rev main"],
)
def test_rendering_onto_the_source_branch_is_a_usage_error(
    fleet: GitRepo, cli: Invoke, extra: tuple[str, ...]
) -> None:
    before = _refs(fleet)
    done = cli("render", "--repo", "source", "--branch", "main", *extra)
    assert done.exit_code == 2, done.output
    assert "Invalid value for '--branch': branch 'main' is " in done.output
    assert "render onto another branch" in done.output
    assert _refs(fleet) == before
    assert fleet.git("ls-tree", "--name-only", "main") == "fleet.yaml"


def test_a_rendered_branch_that_is_the_source_branch_is_refused_at_its_line(
    fleet: GitRepo, cli: Invoke
) -> None:
    fleet.commit({"gitfleet.yaml": "sourceBranch: main\nrenderedBranch: main\n"})
    before = _refs(fleet)
    expected = (
        "source/gitfleet.yaml:2:1: error: renderedBranch: 'main' is the sourceBranch: a render "
        "would replace the source with its output; name another branch"
    )
    for command in ("validate", "render"):
        done = cli(command, "--repo", "source")
        assert done.exit_code == 1, done.output
        assert expected in done.output.splitlines()
    assert _refs(fleet) == before


def test_a_rendered_branch_checked_out_in_a_work_tree_is_not_moved(
    fleet: GitRepo, cli: Invoke, tmp_path: Path
) -> None:
    assert cli("render", "--repo", "source").exit_code == 0
    fleet.git("worktree", "add", "-q", str(tmp_path / "look"), "gitfleet/rendered")
    fleet.commit({"fleet.yaml": SOURCE.replace("replicas: 3", "replicas: 4")})
    before = _refs(fleet)
    for _ in range(2):  # the second time, the branch's tip is no longer this commit's render
        done = cli("render", "--repo", "source")
        assert done.exit_code == 1, done.output
        assert (
            "renderedBranch: branch 'gitfleet/rendered' is checked out in the work tree at "
            f"{tmp_path / 'look'}: a render would move it from under its work" in done.output
        )
        assert _refs(fleet) == before
    git(tmp_path / "look", "checkout", "-q", "--detach")
    assert cli("render", "--repo", "source").exit_code == 0
    assert _refs(fleet) != before


def test_the_branch_a_bare_repository_s_head_names_is_not_rendered_onto(
    fleet: GitRepo, cli: Invoke, tmp_path: Path
) -> None:
    git(tmp_path, "clone", "-q", "--bare", str(fleet.path), "hub.git")
    hub = GitRepo(tmp_path / "hub.git")
    before = _refs(hub)
    done = cli("render", "--repo", "hub.git", "--rev", "HEAD", "--branch", "main")
    assert done.exit_code == 2, done.output
    assert "branch 'main' is the one HEAD names" in done.output
    assert _refs(hub) == before
    assert cli("render", "--repo", "hub.git").exit_code == 0
    assert hub.git("ls-tree", "--name-only", "main") == "fleet.yaml"


def test_reconcile_onto_its_source_branch_is_refused(fleet: GitRepo, cli: Invoke) -> None:
    before = _refs(fleet)
    done = cli("reconcile", "--once", "--repo", "source", "--rendered-branch", "main")
    assert done.exit_code != 0, done.output
    assert "branch 'main' is the source" in done.output
    assert _refs(fleet).replace("\n", " ").count("refs/heads/gitfleet/rendered") == 0
    assert fleet.git("ls-tree", "--name-only", "main") == "fleet.yaml"
    assert before.splitlines()[0] in _refs(fleet)


def test_a_rendered_branch_of_one_s_own_fails_validate_as_render(
    fleet: GitRepo, cli: Invoke
) -> None:
    """A branch that is not a render: render refuses to build on it, naming `--new-history`
    (which would replace it); validate says the same, so that what passes it renders."""
    fleet.git("branch", "feat")
    fleet.commit({"gitfleet.yaml": "renderedBranch: feat\n"})
    before = _refs(fleet)
    validated = cli("validate", "--repo", "source")
    assert validated.exit_code == 1, validated.output
    assert (
        "source/gitfleet.yaml:1:1: error: renderedBranch: refs/heads/feat is at a commit that is"
        " not a render" in validated.output
    )
    assert "which replaces it" in validated.output
    done = cli("render", "--repo", "source")
    assert done.exit_code == 1, done.output
    assert "refs/heads/feat is at a commit that is not a render" in done.output
    assert _refs(fleet) == before
