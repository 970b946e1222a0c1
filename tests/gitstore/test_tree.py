"""Reading a commit's tree from the object database.

Aspects covered:
- every file's path, kind and content, sorted; folders the caller skips are not entered;
- symbolic links and submodules are listed with their kind, never followed or read;
- sizes are known before contents are read;
- a root-level file is found without walking the tree;
- crafted trees: entries named `..`, `.`, `.git` (any case) or holding `/`, empty names and
  names listed twice make the revision invalid, wherever they are;
- a revision that names no commit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from gitfleet.errors import SourceError
from gitfleet.gitstore import repository, tree

Entries = list[tuple[str, str, bytes | str]]


@pytest.fixture(name="repo")
def repo_fixture(git_repo: Any) -> Iterator[repository.Repository]:
    opened = repository.open_repository(git_repo.path)
    assert opened is not None
    yield opened
    opened.close()


def test_walk_lists_files_sorted_and_prunes_skipped_folders(
    git_repo: Any, repo: repository.Repository
) -> None:
    commit = git_repo.commit(
        {"b.yaml": "b: 1\n", "a/x.yaml": "x: 1\n", "a/deep/y.yaml": "y\n", "vendor/v.yaml": "v"}
    )
    entries = tree.walk(repo, commit, skip=lambda folder: folder == "vendor")
    assert [(e.path, e.kind) for e in entries] == [
        ("a/deep/y.yaml", tree.EntryKind.FILE),
        ("a/x.yaml", tree.EntryKind.FILE),
        ("b.yaml", tree.EntryKind.FILE),
    ]
    assert tree.read_blobs(repo, entries) == {
        "a/deep/y.yaml": b"y\n",
        "a/x.yaml": b"x: 1\n",
        "b.yaml": b"b: 1\n",
    }
    sizes = repo.sizes([e.sha for e in entries])
    assert [sizes[e.sha] for e in entries] == [2, 5, 5]


def test_links_and_submodules_are_listed_not_followed(
    git_repo: Any, repo: repository.Repository
) -> None:
    git_repo.commit({"real.yaml": "a: 1\n"})
    os.symlink("real.yaml", git_repo.path / "link.yaml")
    commit = git_repo.commit({})
    git_repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},sub")
    git_repo.git("commit", "-q", "-m", "submodule")
    head = git_repo.git("rev-parse", "HEAD")
    kinds = {e.path: e.kind for e in tree.walk(repo, head, skip=lambda _: False)}
    assert kinds == {
        "link.yaml": tree.EntryKind.SYMLINK,
        "real.yaml": tree.EntryKind.FILE,
        "sub": tree.EntryKind.SUBMODULE,
    }


def test_root_file_is_found_without_walking(git_repo: Any, repo: repository.Repository) -> None:
    commit = git_repo.commit({"gitfleet.yaml": "include: []\n", "a/gitfleet.yaml": "x"})
    found = tree.find(repo, commit, "gitfleet.yaml")
    assert found is not None and found.path == "gitfleet.yaml"
    assert tree.find(repo, commit, "missing.yaml") is None


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("..", id="dot-dot"),
        pytest.param(".", id="dot"),
        pytest.param(".git", id="dot-git"),
        pytest.param(".GIT", id="dot-git upper case"),
        pytest.param("a/b.yaml", id="slash"),
        pytest.param("", id="empty"),
    ],
)
@pytest.mark.parametrize("nested", [False, True], ids=["at the root", "in a folder"])
def test_crafted_entry_makes_the_revision_invalid(
    craft_commit: Callable[[Entries], str],
    subtree: Callable[[Entries], str],
    repo: repository.Repository,
    name: str,
    nested: bool,
) -> None:
    entries: Entries = [("100644", name, b"kind: Secret\n")]
    if nested:
        entries = [("40000", "apps", subtree(entries))]
    commit = craft_commit(entries)
    with pytest.raises(SourceError) as info:
        tree.walk(repo, commit, skip=lambda _: False)
    assert f"invalid revision {commit}: tree entry {name!r}" in str(info.value)


def test_a_name_listed_twice_makes_the_revision_invalid(
    craft_commit: Callable[[Entries], str], repo: repository.Repository
) -> None:
    commit = craft_commit([("100644", "a.yaml", b"a: 1\n"), ("100644", "a.yaml", b"a: 2\n")])
    with pytest.raises(SourceError, match=r"tree entry 'a\.yaml'"):
        tree.walk(repo, commit, skip=lambda _: False)


def test_revisions_resolve_to_commits(git_repo: Any, repo: repository.Repository) -> None:
    first = git_repo.commit({"a.yaml": "a: 1\n"})
    second = git_repo.commit({"a.yaml": "a: 2\n"})
    git_repo.git("tag", "-a", "v1", "-m", "v1", first)
    assert repo.commit_of("HEAD") == second
    assert repo.commit_of("HEAD~1") == first
    assert repo.commit_of("v1") == first
    assert repo.commit_of("main") == second
    assert repo.commit_of("nope") is None
    assert repo.commit_of("--all") is None
    blob = git_repo.git("rev-parse", "HEAD:a.yaml")
    assert repo.commit_of(blob) is None
