"""A publication builds only on renders: the rendered branch and cluster refs never adopt other
history.

Aspects covered:
- a commit is a render when it has both trailers, Source-Commit and Gitfleet-Render;
- `foreign_refs` names the branch and the cluster refs that are not at a render, sorted;
- publishing onto a branch or a cluster ref at another commit (a source commit, a hand-made
  commit on top of a render) raises ForeignHistoryError naming the refs and the ways out, and
  writes no object and moves no ref, even when the ref was reset after the caller checked;
- the error names five refs and counts the others;
- with `new_history`, each such ref gets a parentless render (a cluster ref even when its
  folder did not change) and the refs that are renders go on from their tips.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitstore.rendered_kit import BRANCH, WHO, bare, git, loose_count, render_files

from gitfleet.errors import ForeignHistoryError
from gitfleet.gitstore import objects, rendered, repository

RENDERED = "refs/heads/gitfleet/rendered"
EAST = "refs/heads/gitfleet/works/east"
WEST = "refs/heads/gitfleet/works/west"


@pytest.fixture(name="repo")
def repo_fixture(tmp_path: Path) -> repository.Repository:
    opened = bare(tmp_path / "rendered.git")
    _publish(opened, render_files(east=2, west=3), None, 1)
    return opened


def _publish(
    repo: repository.Repository,
    files: dict[str, objects.Content],
    expected: str | None,
    n: int,
    new_history: bool = False,
) -> rendered.Published:
    return rendered.publish(
        repo, BRANCH, files, expected=expected, source_commit=f"{n:040x}", version="0.1.0",
        author=WHO, new_history=new_history,
    )  # fmt: skip


def _source_commit(repo: repository.Repository) -> str:
    """A commit like a source commit: files, a message, no render trailers."""
    tree = git(repo, "mktree", "--missing")
    return git(repo, "commit-tree", tree, "-m", "add the shop\n\nSigned-off-by: someone")


def _refs(repo: repository.Repository) -> str:
    return git(repo, "for-each-ref", "--format=%(refname) %(objectname)")


@pytest.mark.parametrize(
    ("trailers", "render"),
    [
        pytest.param({"Source-Commit": "a", "Gitfleet-Render": "0.1.0"}, True, id="both"),
        pytest.param({"Source-Commit": "a"}, False, id="no Gitfleet-Render"),
        pytest.param({"Gitfleet-Render": "0.1.0"}, False, id="no Source-Commit"),
        pytest.param({"Signed-off-by": "someone"}, False, id="other trailers"),
    ],
)
def test_a_render_has_both_trailers(trailers: dict[str, str], render: bool) -> None:
    assert rendered.is_render(trailers) is render


def test_foreign_refs_are_named(repo: repository.Repository) -> None:
    assert rendered.foreign_refs(repo, BRANCH) == []
    source = _source_commit(repo)
    git(repo, "update-ref", WEST, source)
    git(repo, "update-ref", RENDERED, source)
    assert rendered.foreign_refs(repo, BRANCH) == [RENDERED, WEST]


@pytest.mark.parametrize("ref", [RENDERED, EAST], ids=["rendered branch", "cluster ref"])
def test_publishing_onto_a_source_commit_is_refused(repo: repository.Repository, ref: str) -> None:
    source = _source_commit(repo)
    git(repo, "update-ref", ref, source)
    before, objects_before = _refs(repo), loose_count(repo)
    tip = git(repo, "rev-parse", RENDERED)
    with pytest.raises(ForeignHistoryError) as refused:
        _publish(repo, render_files(east=4, west=3), tip, 2)
    message = str(refused.value)
    assert message.startswith(f"{ref} is at a commit that is not a render (no Source-Commit")
    assert "git update-ref -d <ref>" in message and "gitfleet render --new-history" in message
    assert (_refs(repo), loose_count(repo)) == (before, objects_before)


def test_a_hand_made_commit_on_a_render_is_not_a_render(repo: repository.Repository) -> None:
    tip = git(repo, "rev-parse", RENDERED)
    edit = git(repo, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "hand edit")
    git(repo, "update-ref", RENDERED, edit)
    with pytest.raises(ForeignHistoryError, match=f"^{RENDERED} is at a commit"):
        _publish(repo, render_files(east=4, west=3), edit, 2)


def test_the_error_names_five_refs_and_counts_the_rest() -> None:
    refs = [f"refs/heads/gitfleet/works/c{i}" for i in range(7)]
    message = str(rendered.history_error(refs))
    assert message.startswith(f"{', '.join(refs[:5])} and 2 more are at commits that are not")


def test_new_history_replaces_the_branch(repo: repository.Repository) -> None:
    east = git(repo, "rev-parse", EAST)
    source = _source_commit(repo)
    git(repo, "update-ref", RENDERED, source)
    done = _publish(repo, render_files(east=4, west=3), source, 2, new_history=True)
    assert done.created
    assert git(repo, "rev-list", "--parents", RENDERED) == done.commit
    assert git(repo, "ls-tree", "-r", "--name-only", RENDERED).splitlines() == sorted(
        render_files(east=4, west=3)
    )
    assert git(repo, "rev-parse", f"{EAST}^") == east
    assert sorted(done.clusters) == ["east"]
    assert rendered.foreign_refs(repo, BRANCH) == []


def test_new_history_replaces_a_cluster_ref_even_unchanged(repo: repository.Repository) -> None:
    tip = git(repo, "rev-parse", RENDERED)
    git(repo, "update-ref", WEST, _source_commit(repo))
    done = _publish(repo, render_files(east=2, west=3), tip, 1, new_history=True)
    assert not done.created and done.commit == tip
    assert sorted(done.clusters) == ["west"]
    assert git(repo, "rev-list", "--parents", WEST) == done.clusters["west"]
    assert git(repo, "ls-tree", "-r", "--name-only", WEST).splitlines() == [
        "works/west/kustomization.yaml",
        "works/west/shop/Deployment.apps/web.yaml",
    ]
