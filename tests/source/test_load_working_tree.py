"""A repository's working tree read as the source (`load(..., working_tree=True)`).

Aspects covered:
- the files as they are now: edited, added (untracked) and deleted files count, on whatever
  branch is checked out, whatever source branch gitfleet.yaml names; `revision` is None and
  `working_tree` is set;
- files git ignores are left out (a virtual environment, a render written inside the
  repository), files git tracks are read even when ignored;
- the loader's rules hold as for any folder: gitfleet.yaml's include and exclude and
  maxFileSize, symbolic links reported and never followed, also a link that replaced a tracked
  file's folder (never read through), a nested repository reported as not read;
- a repository with no commit yet is read; a linked worktree is read as its own working tree;
- folders nested deeper than Python's call stack (1,100 deep) are read, in a working tree and
  in a plain folder;
- `--rev` still reads a commit; a bare repository, having no working tree, is read at a commit.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from gitfleet import source
from gitfleet.model import diagnostic


def config_map(name: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def names(result: source.LoadedSource) -> list[str]:
    return sorted(t.name for t in result.objects.templates)


def problems(result: source.LoadedSource) -> list[str]:
    return [f"{d.origin.path}: {d.severity}: {d.message}" for d in result.diagnostics]


def load(path: Path, rev: str | None = None) -> source.LoadedSource:
    return source.load(path, rev, working_tree=True)


def test_the_files_as_they_are_now(git_repo: Any) -> None:
    settings = "sourceBranch: main\n"
    git_repo.commit(
        {"gitfleet.yaml": settings, "a.yaml": config_map("a"), "b.yaml": config_map("b")}
    )
    git_repo.git("checkout", "-q", "-b", "feature")
    (git_repo.path / "a.yaml").write_text(config_map("edited"))
    (git_repo.path / "b.yaml").unlink()
    (git_repo.path / "new.yaml").write_text(config_map("new"))
    result = load(git_repo.path)
    assert names(result) == ["edited", "new"]
    assert (result.revision, result.working_tree) == (None, True)


def test_ignored_files_are_left_out(git_repo: Any) -> None:
    git_repo.commit({".gitignore": ".venv/\nout/\n*.local.yaml\n", "a.yaml": config_map("a")})
    (git_repo.path / ".venv" / "lib").mkdir(parents=True)
    (git_repo.path / ".venv" / "lib" / "broken.yaml").write_text("not: [valid\n")
    (git_repo.path / "out").mkdir()
    (git_repo.path / "out" / "rendered.yaml").write_text(config_map("rendered"))
    (git_repo.path / "mine.local.yaml").write_text(config_map("local"))
    git_repo.git("add", "-f", "mine.local.yaml")
    result = load(git_repo.path)
    assert names(result) == ["a", "local"]
    assert result.diagnostics == ()


def test_include_exclude_and_size_limit(git_repo: Any) -> None:
    settings = "include: ['apps/**']\nexclude: ['apps/skip/**']\nmaxFileSize: 100\n"
    git_repo.commit({"gitfleet.yaml": settings})
    files = {
        "apps/a.yaml": config_map("a"),
        "apps/skip/b.yaml": config_map("b"),
        "other/c.yaml": config_map("c"),
        "apps/big.yaml": config_map("big") + "#" * 200 + "\n",
    }
    for rel, text in files.items():
        (git_repo.path / rel).parent.mkdir(parents=True, exist_ok=True)
        (git_repo.path / rel).write_text(text)
    result = load(git_repo.path)
    assert names(result) == ["a"]
    assert problems(result) == [
        "apps/big.yaml: error: file is 254 bytes, over the limit of 100 (maxFileSize)"
    ]


def test_links_are_never_followed(git_repo: Any, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(config_map("secret"))
    git_repo.commit({"apps/a.yaml": config_map("a"), "keep.yaml": config_map("keep")})
    os.symlink(outside / "secret.yaml", git_repo.path / "link.yaml")
    (git_repo.path / "apps" / "a.yaml").unlink()
    (git_repo.path / "apps").rmdir()
    os.symlink(outside, git_repo.path / "apps")  # the tracked apps/a.yaml, now through a link
    result = load(git_repo.path)
    assert names(result) == ["keep"]
    assert problems(result) == [
        "apps: warning: symbolic link is not followed",
        "link.yaml: error: symbolic link is not followed",
    ]


def test_a_nested_repository_is_not_read(git_repo: Any) -> None:
    git_repo.commit({"a.yaml": config_map("a")})
    nested = git_repo.path / "vendor"
    nested.mkdir()
    (nested / "b.yaml").write_text(config_map("b"))
    git_repo.git("-C", str(nested), "init", "-q")
    result = load(git_repo.path)
    assert names(result) == ["a"]
    assert problems(result) == ["vendor: warning: submodule is not read"]
    assert all(d.severity is diagnostic.Severity.WARNING for d in result.diagnostics)


def _nest(top: Path, depth: int, name: str) -> None:
    """`top/a/a/.../a/x.yaml`, `depth` folders deep, made a folder at a time (pathlib and
    os.makedirs recurse once per missing parent)."""
    folder = top
    for _ in range(depth):
        folder = folder / "a"
        folder.mkdir()
    (folder / "x.yaml").write_text(config_map(name))


def _unnest(top: Path) -> None:
    """Remove what `_nest` made, deepest first (shutil.rmtree, which cleans up after the
    tests, recurses once per folder too)."""
    folders = [top / "a"]
    while (folders[-1] / "a").is_dir():
        folders.append(folders[-1] / "a")
    (folders[-1] / "x.yaml").unlink()
    for folder in reversed(folders):
        folder.rmdir()


def test_folders_nested_deeper_than_the_call_stack(git_repo: Any, tmp_path: Path) -> None:
    """Paths may nest a folder a thousand times over (`a/a/a/...`, within the system's limit on
    a path's length): a pull request's working tree holding one is read as any other."""
    plain = tmp_path / "plain"
    plain.mkdir()
    try:
        _nest(git_repo.path, 1100, "deep")
        git_repo.commit({})
        assert names(load(git_repo.path)) == ["deep"]
        _nest(plain, 1100, "plain")
        assert names(source.load(plain)) == ["plain"]
    finally:
        for top in (git_repo.path, plain):
            if (top / "a").exists():
                _unnest(top)


def test_a_repository_without_commits(git_repo: Any) -> None:
    (git_repo.path / "a.yaml").write_text(config_map("a"))
    assert names(load(git_repo.path)) == ["a"]


def test_a_linked_worktree(git_repo: Any, tmp_path: Path) -> None:
    git_repo.commit({"a.yaml": config_map("a")})
    linked = tmp_path / "linked"
    git_repo.git("worktree", "add", "-q", "-b", "other", str(linked))
    (linked / "b.yaml").write_text(config_map("b"))
    (git_repo.path / "c.yaml").write_text(config_map("c"))
    assert names(load(linked)) == ["a", "b"]


@pytest.mark.parametrize("bare", [pytest.param(False, id="--rev"), pytest.param(True, id="bare")])
def test_commits_are_read_where_asked_or_without_a_working_tree(
    git_repo: Any, tmp_path: Path, bare: bool
) -> None:
    commit = git_repo.commit({"a.yaml": config_map("a")})
    (git_repo.path / "b.yaml").write_text(config_map("b"))
    if bare:
        path = tmp_path / "bare.git"
        git_repo.git("clone", "-q", "--bare", str(git_repo.path), str(path))
        result = load(path)
    else:
        result = load(git_repo.path, "HEAD")
    assert names(result) == ["a"]
    assert (result.revision, result.working_tree) == (commit, False)
