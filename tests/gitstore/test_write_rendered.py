"""Publishing renders: the rendered branch and the per-cluster refs, moved by compare-and-swap.

Aspects covered:
- the first publication creates the branch and one ref per cluster, each holding only its own
  `works/<cluster>/` folder, every commit with the Source-Commit and Gitfleet-Render trailers,
  the branch's commit also with Gitfleet-Tree naming its own tree, a cluster ref's commit
  also with Gitfleet-Cluster naming its cluster;
- the tip reads back: trailers, every file's blob id, contents on demand;
- the same files again make no commit and move no ref;
- a change commits on top of the tip and moves only the changed cluster's ref;
- a cluster that disappears gets one commit with no files, then is left alone;
- a missing cluster ref is written again even when the branch does not change;
- compare-and-swap: a stale expected tip (also one the caller read before another writer
  moved the branch) raises RefConflictError and moves nothing; one stale
  ref in a transaction leaves every other ref where it was;
- unchanged files are not written again (only the new blob, trees and commits are added);
- the source commit's `Gitfleet-Allow-Prune` trailer is carried onto every rendered commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitstore.rendered_kit import BRANCH, WHO, bare, git, loose_count, render_files

from gitfleet.errors import RefConflictError
from gitfleet.gitstore import objects, refs, rendered, repository


@pytest.fixture(name="repo")
def repo_fixture(tmp_path: Path) -> repository.Repository:
    return bare(tmp_path / "rendered.git")


def _publish(
    repo: repository.Repository, files: dict[str, objects.Content], expected: str | None, n: int
) -> rendered.Published:
    return rendered.publish(
        repo, BRANCH, files, expected=expected, source_commit=f"{n:040x}", version="0.1.0",
        author=WHO,
    )  # fmt: skip


def test_first_publication(repo: repository.Repository) -> None:
    done = _publish(repo, render_files(east=2, west=3), None, 1)
    assert done.created
    assert sorted(done.clusters) == ["east", "west"]
    assert git(repo, "ls-tree", "-r", "--name-only", done.clusters["east"]).splitlines() == [
        "works/east/kustomization.yaml",
        "works/east/shop/Deployment.apps/web.yaml",
    ]
    rendering = [f"Source-Commit: {1:040x}", "Gitfleet-Render: 0.1.0"]
    trailers = git(repo, "log", "-1", "--format=%(trailers:only)", done.commit)
    tree = git(repo, "rev-parse", f"{done.commit}^{{tree}}")
    assert trailers.splitlines() == [*rendering, f"Gitfleet-Tree: {tree}"]
    for name, commit in done.clusters.items():
        trailers = git(repo, "log", "-1", "--format=%(trailers:only)", commit)
        assert trailers.splitlines() == [*rendering, f"Gitfleet-Cluster: {name}"]
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/west") == done.clusters["west"]
    tip = rendered.read_tip(repo, BRANCH)
    assert tip is not None
    assert tip.commit == done.commit
    assert tip.source_commit == f"{1:040x}"
    assert sorted(tip.files) == sorted(render_files(east=2, west=3))
    assert rendered.read_files(repo, tip, lambda p: p.endswith("web.yaml")) == {
        "works/east/shop/Deployment.apps/web.yaml": b"replicas: 2\n",
        "works/west/shop/Deployment.apps/web.yaml": b"replicas: 3\n",
    }


def test_same_files_make_no_commit(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2), None, 1)
    again = _publish(repo, render_files(east=2), first.commit, 2)
    assert not again.created
    assert again.commit == first.commit
    assert again.clusters == {}
    assert git(repo, "rev-list", "--count", "refs/heads/gitfleet/works/east") == "1"


def test_change_moves_only_changed_cluster(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2, west=3), None, 1)
    loose_before = loose_count(repo)
    second = _publish(repo, render_files(east=2, west=4), first.commit, 2)
    assert second.created
    assert git(repo, "rev-parse", f"{second.commit}^") == first.commit
    assert list(second.clusters) == ["west"]
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/east") == first.clusters["east"]
    assert git(repo, "rev-parse", f"{second.clusters['west']}^") == first.clusters["west"]
    # written: one blob; trees works/west/shop/Deployment.apps, works/west/shop, works/west,
    # works and the root; the cluster ref's two wrapper trees; two commits
    assert loose_count(repo) - loose_before == 1 + 5 + 2 + 2


def test_cluster_that_left_gets_an_empty_commit(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2, west=3), None, 1)
    second = _publish(repo, render_files(east=2), first.commit, 2)
    assert list(second.clusters) == ["west"]
    assert git(repo, "ls-tree", "-r", second.clusters["west"]) == ""
    third = _publish(repo, {**render_files(east=2), "render.yaml": b"other\n"}, second.commit, 3)
    assert third.created
    assert third.clusters == {}


def test_missing_cluster_ref_is_restored(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2), None, 1)
    git(repo, "update-ref", "-d", "refs/heads/gitfleet/works/east")
    again = _publish(repo, render_files(east=2), first.commit, 2)
    assert not again.created
    assert list(again.clusters) == ["east"]
    trailers = git(repo, "log", "-1", "--format=%(trailers:only)", again.clusters["east"])
    assert f"Source-Commit: {1:040x}" in trailers


def test_stale_expected_tip_moves_nothing(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2), None, 1)
    second = _publish(repo, render_files(east=3), first.commit, 2)
    with pytest.raises(RefConflictError, match="moved while rendering"):
        _publish(repo, render_files(east=4), first.commit, 3)
    with pytest.raises(RefConflictError):
        _publish(repo, render_files(east=4), None, 3)
    assert git(repo, "rev-parse", f"refs/heads/{BRANCH}") == second.commit
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/east") == second.clusters["east"]


def test_a_tip_read_before_another_writer_moved_the_branch_moves_nothing(
    repo: repository.Repository,
) -> None:
    first = _publish(repo, render_files(east=2), None, 1)
    seen = rendered.read_tip(repo, BRANCH)
    second = _publish(repo, render_files(east=3), first.commit, 2)
    with pytest.raises(RefConflictError, match="moved while rendering"):
        rendered.publish(
            repo, BRANCH, render_files(east=4), expected=first.commit, source_commit=f"{3:040x}",
            version="0.1.0", author=WHO, tip=seen,
        )  # fmt: skip
    assert git(repo, "rev-parse", f"refs/heads/{BRANCH}") == second.commit
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/east") == second.clusters["east"]


def test_one_stale_ref_fails_the_whole_transaction(repo: repository.Repository) -> None:
    first = _publish(repo, render_files(east=2, west=3), None, 1)
    east, west = first.clusters["east"], first.clusters["west"]
    moves = [
        refs.Move("refs/heads/gitfleet/works/east", west, east),
        refs.Move("refs/heads/gitfleet/works/west", east, first.commit),  # stale
    ]
    with pytest.raises(RefConflictError, match="works/west"):
        refs.update(repo, moves, "swap")
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/east") == east
    assert git(repo, "rev-parse", "refs/heads/gitfleet/works/west") == west


def test_source_allow_prune_trailer_reaches_every_cluster_ref(repo: repository.Repository) -> None:
    """A pull agent reads only its own cluster's ref: the source commit's permission to prune
    beyond the guard must be on that ref's commit too."""
    empty = git(repo, "hash-object", "-t", "tree", "-w", "/dev/null")
    source = git(repo, "commit-tree", empty, "-m", "remove the shop\n\nGitfleet-Allow-Prune: east")
    done = rendered.publish(
        repo, BRANCH, render_files(east=2), expected=None, source_commit=source, version="0.1.0",
        author=WHO,
    )  # fmt: skip
    for commit in (done.commit, done.clusters["east"]):
        trailers = git(repo, "log", "-1", "--format=%(trailers:only)", commit)
        assert "Gitfleet-Allow-Prune: east" in trailers.splitlines()
    assert rendered.commit_trailers(repo, done.clusters["east"]) == {
        "Source-Commit": source,
        "Gitfleet-Render": "0.1.0",
        "Gitfleet-Allow-Prune": "east",
        "Gitfleet-Cluster": "east",
    }


def test_cluster_refs_name_their_sync_mode(repo: repository.Repository) -> None:
    """A pull agent reads only its cluster's ref, so the ref's commit says whether the cluster
    is Push or Pull; a change of mode alone (same folder) makes a commit on the cluster's ref
    only, the same mode again none; a publication that does not know the modes names none
    and makes no commit for them."""

    def publish(expected: str | None, n: int, **modes: str) -> rendered.Published:
        return rendered.publish(
            repo, BRANCH, render_files(east=2, west=3), expected=expected,
            source_commit=f"{n:040x}", version="0.1.0", author=WHO, sync_modes=modes,
        )  # fmt: skip

    def mode(commit: str) -> str | None:
        return (rendered.commit_trailers(repo, commit) or {}).get("Gitfleet-Sync-Mode")

    first = publish(None, 1, east="Push", west="Pull")
    assert {name: mode(c) for name, c in first.clusters.items()} == {"east": "Push", "west": "Pull"}
    assert mode(first.commit) is None
    same = publish(first.commit, 2, east="Push", west="Pull")
    assert same.clusters == {}
    assert not same.created
    rendered.forget_tips()
    switched = publish(first.commit, 3, east="Push", west="Push")
    assert not switched.created
    assert list(switched.clusters) == ["west"]
    west = switched.clusters["west"]
    assert mode(west) == "Push"
    assert git(repo, "rev-parse", f"{west}^") == first.clusters["west"]
    assert git(repo, "rev-parse", f"{west}^{{tree}}") == git(
        repo, "rev-parse", f"{first.clusters['west']}^{{tree}}"
    )
    unnamed = rendered.publish(
        repo, BRANCH, render_files(east=2, west=4), expected=first.commit,
        source_commit=f"{4:040x}", version="0.1.0", author=WHO,
    )  # fmt: skip
    assert list(unnamed.clusters) == ["west"]
    assert mode(unnamed.clusters["west"]) is None
