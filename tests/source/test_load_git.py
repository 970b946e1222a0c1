"""A Git repository is read at one commit, from its object database.

Aspects covered:
- default revision: HEAD, or the source branch that HEAD's gitfleet.yaml names (a missing
  one is an error at the setting), with the settings of the commit read; explicit revisions:
  branch, tag, sha, `HEAD~1`;
- the commit is read, not the working tree (uncommitted edits and untracked files are
  ignored); `revision` is the commit id;
- unknown revisions, an empty repository, a missing folder are `SourceError`s; a revision of
  a plain folder is a `UsageError`; a plain folder where a repository is required is an error;
- a subfolder of a repository is read as a plain folder;
- symbolic links and submodules in a commit are reported, never followed;
- a crafted tree (an entry named `..` or `.git`) is an invalid revision, not a crash;
- a tree listing more entries than a walk takes (folders named many times over) is an invalid
  revision, and excluded folders do not count.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitfleet import source
from gitfleet.errors import SourceError, UsageError
from gitfleet.source import _files


def config_map(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def names(result: source.LoadedSource) -> list[str]:
    return sorted(t.name for t in result.objects.templates)


def test_head_is_read_from_the_object_database(git_repo: Any) -> None:
    commit = git_repo.commit({"a.yaml": config_map("a")})
    (git_repo.path / "a.yaml").write_text(config_map("edited"))
    (git_repo.path / "untracked.yaml").write_text(config_map("untracked"))
    result = source.load(git_repo.path)
    assert result.revision == commit
    assert names(result) == ["a"]


def test_explicit_revisions(git_repo: Any) -> None:
    first = git_repo.commit({"a.yaml": config_map("one")})
    git_repo.git("tag", "v1")
    second = git_repo.commit({"a.yaml": config_map("two")})
    for rev, expected in [("v1", first), ("HEAD~1", first), (first[:10], first), ("main", second)]:
        assert source.load(git_repo.path, rev).revision == expected, rev


def test_source_branch_of_gitfleet_yaml(git_repo: Any) -> None:
    settings = "sourceBranch: release\n"
    released = git_repo.commit({"gitfleet.yaml": settings, "a.yaml": config_map("released")})
    git_repo.git("branch", "release")
    git_repo.commit({"a.yaml": config_map("unreleased")})
    result = source.load(git_repo.path)
    assert result.revision == released
    assert names(result) == ["released"]
    assert names(source.load(git_repo.path, "HEAD")) == ["unreleased"]
    git_repo.git("branch", "-D", "release")
    with pytest.raises(SourceError) as info:
        source.load(git_repo.path)
    assert str(info.value).startswith(
        f"{git_repo.path}/gitfleet.yaml:1:1: sourceBranch: branch 'release' does not exist"
    )


def test_settings_are_those_of_the_commit_read(git_repo: Any) -> None:
    git_repo.commit({"gitfleet.yaml": "renderedBranch: from-release\n"})
    git_repo.git("branch", "release")
    bad = "renderedBranch: from-head\nmaxFileSize: -1\n"
    git_repo.commit({"gitfleet.yaml": "sourceBranch: release\n" + bad})
    released = source.load(git_repo.path)
    assert released.config.rendered_branch == "from-release"
    assert released.ok, released.diagnostics
    git_repo.commit({"gitfleet.yaml": bad})
    head = source.load(git_repo.path)
    assert head.config.rendered_branch == "from-head"
    [problem] = head.diagnostics
    assert str(problem.origin) == "gitfleet.yaml:2:1"


@pytest.mark.parametrize("rev", ["nope", "-x", "HEAD~5"])
def test_unknown_revision(git_repo: Any, rev: str) -> None:
    git_repo.commit({"a.yaml": config_map("a")})
    with pytest.raises(SourceError) as info:
        source.load(git_repo.path, rev)
    assert str(info.value) == f"{git_repo.path}: unknown revision {rev!r}"


@pytest.mark.parametrize("rev", [None, "main"])
def test_empty_repository(git_repo: Any, rev: str | None) -> None:
    with pytest.raises(SourceError) as info:
        source.load(git_repo.path, rev)
    assert str(info.value) == f"{git_repo.path}: empty repository: no commits yet"


def test_plain_folders(git_repo: Any, tmp_path: Path) -> None:
    git_repo.commit({"apps/a.yaml": config_map("a")})
    (git_repo.path / "apps" / "b.yaml").write_text(config_map("b"))
    assert names(source.load(git_repo.path / "apps")) == ["a", "b"]
    with pytest.raises(UsageError, match="--rev needs a Git repository"):
        source.load(git_repo.path / "apps", "HEAD")
    with pytest.raises(SourceError, match="not a Git repository"):
        source.load(git_repo.path / "apps", require_repository=True)
    with pytest.raises(SourceError, match="no such folder"):
        source.load(tmp_path / "missing")
    with pytest.raises(SourceError, match="not a folder"):
        source.load(git_repo.path / "apps" / "a.yaml")


def test_links_and_submodules_in_a_commit(git_repo: Any) -> None:
    git_repo.commit({"a.yaml": config_map("a")})
    os.symlink("/etc/passwd", git_repo.path / "link.yaml")
    commit = git_repo.commit({})
    git_repo.git("update-index", "--add", "--cacheinfo", f"160000,{commit},vendored")
    git_repo.git("commit", "-q", "-m", "submodule")
    result = source.load(git_repo.path)
    assert names(result) == ["a"]
    assert [str(d) for d in result.diagnostics] == [
        "link.yaml: error: symbolic link is not followed",
        "vendored: warning: submodule is not read",
    ]


@pytest.mark.parametrize("name", ["..", ".git"])
def test_crafted_tree_is_an_invalid_revision(git_repo: Any, name: str) -> None:
    git_repo.commit({"a.yaml": config_map("a")})
    blob = git_repo.git("rev-parse", "HEAD:a.yaml")
    listing = f"100644 blob {blob}\t{name}\n100644 blob {blob}\ta.yaml\n"
    tree = subprocess.run(
        ["git", "mktree"], cwd=git_repo.path, input=listing, text=True, capture_output=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    commit = git_repo.git("commit-tree", tree, "-p", "HEAD", "-m", "crafted")
    with pytest.raises(SourceError) as info:
        source.load(git_repo.path, commit)
    assert f"invalid revision {commit}: tree entry {name!r}" in str(info.value)


def test_too_many_entries_is_an_invalid_revision(
    git_repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def git_in(*args: str, text: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=git_repo.path, input=text, text=True, capture_output=True,
            check=True,
        ).stdout.strip()  # fmt: skip

    git_repo.commit({"a.yaml": config_map("a")})
    blob = git_repo.git("rev-parse", "HEAD:a.yaml")
    tree = git_repo.git("write-tree")
    for _ in range(4):  # each folder names the one below ten times: 10,000 files
        tree = git_in("mktree", text="".join(f"040000 tree {tree}\td{i}\n" for i in range(10)))
    listing = f"100644 blob {blob}\ta.yaml\n040000 tree {tree}\tbomb\n"
    commit = git_repo.git("commit-tree", git_in("mktree", text=listing), "-m", "bomb")
    monkeypatch.setattr(_files, "MAX_ENTRIES", 5000)
    with pytest.raises(SourceError) as info:
        source.load(git_repo.path, commit)
    assert f"invalid revision {commit}: its tree holds more than 5000 entries" in str(info.value)
    settings = git_in("hash-object", "-w", "--stdin", text="exclude: [bomb]\n")
    listing += f"100644 blob {settings}\tgitfleet.yaml\n"
    excluded = git_repo.git("commit-tree", git_in("mktree", text=listing), "-m", "excluded")
    assert names(source.load(git_repo.path, excluded)) == ["a"]
