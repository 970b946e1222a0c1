"""Opening repositories: only a repository's top or a bare repository named explicitly, and
git never honours what the source itself contains.

Aspects covered:
- the top of a repository, a bare repository and a linked worktree open, also when named
  relative to the current folder; a subfolder of a repository, a plain folder and a missing
  folder do not;
- every git process gets GIT_DIR and configuration that outranks the repository's;
- a bare repository committed inside a source is never used implicitly: its config (an
  fsmonitor command that would create a marker) never runs, whether the outer repository, the
  folder holding it, or the committed repository itself is read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitfleet import source
from gitfleet.errors import SourceError
from gitfleet.gitstore import repository


@pytest.mark.parametrize(
    "relative", [pytest.param(False, id="absolute"), pytest.param(True, id="relative")]
)
def test_repository_tops_open(
    git_repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, relative: bool
) -> None:
    commit = git_repo.commit({"apps/a.yaml": "a: 1\n"})
    bare = tmp_path / "bare.git"
    git_repo.git("clone", "-q", "--bare", str(git_repo.path), str(bare))
    worktree = tmp_path / "worktree"
    git_repo.git("worktree", "add", "-q", "--detach", str(worktree), commit)
    tops = [git_repo.path, bare, worktree]
    if relative:  # git runs in another folder than the one the path is relative to
        (tmp_path / "elsewhere").mkdir()
        monkeypatch.chdir(tmp_path / "elsewhere")
        tops = [Path("..") / top.relative_to(tmp_path) for top in tops]
    for top in tops:
        opened = repository.open_repository(top)
        assert opened is not None, top
        assert opened.commit_of("HEAD") == commit
        opened.close()


def test_other_folders_do_not_open(git_repo: Any, tmp_path: Path) -> None:
    git_repo.commit({"apps/a.yaml": "a: 1\n"})
    assert repository.open_repository(git_repo.path / "apps") is None
    assert repository.open_repository(tmp_path) is None
    assert repository.open_repository(tmp_path / "missing") is None


def test_a_missing_rev_is_none_an_unreadable_repository_an_error(
    git_repo: Any, tmp_path: Path
) -> None:
    """A rev that names nothing is None, whatever the reason git finds (no such ref, a ref at
    a missing object, a tree); a repository git cannot read at all is an error naming the
    repository and git's reason, not a missing ref."""
    commit = git_repo.commit({"apps/a.yaml": "a: 1\n"})
    opened = repository.open_repository(git_repo.path)
    assert opened is not None
    (git_repo.path / ".git/refs/heads/dangling").write_text("1" * 40 + "\n")
    tree = git_repo.git("rev-parse", "HEAD^{tree}")
    for rev in ("refs/heads/absent", "dangling", tree, "HEAD~5", "-n"):
        assert opened.commit_of(rev) is None, rev
    assert opened.commit_of("main") == commit
    moved = tmp_path / "moved"
    git_repo.path.rename(moved)
    with pytest.raises(SourceError) as raised:
        opened.commit_of("main")
    assert "git cannot read the repository: fatal: not a git repository" in str(raised.value)
    assert str(git_repo.path) in str(raised.value)
    opened.close()


def test_git_processes_get_a_safe_environment(tmp_path: Path) -> None:
    env = repository.safe_environment(tmp_path)
    assert env["GIT_DIR"] == str(tmp_path)
    pairs = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert pairs == {"safe.bareRepository": "explicit", "core.fsmonitor": "false"}


@pytest.fixture(name="outer_with_bare")
def outer_with_bare_fixture(git_repo: Any, tmp_path: Path) -> tuple[Path, Path]:
    """A source repository that commits a bare repository whose config runs a command."""
    marker = tmp_path / "marker"
    inner = git_repo.path / "inner.git"
    git_repo.git("init", "-q", "--bare", str(inner))
    git_repo.git("--git-dir", str(inner), "config", "core.fsmonitor", f"touch {marker}")
    (inner / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    for keep in ("objects/.keep", "refs/heads/.keep"):
        (inner / keep).write_text("")
    git_repo.commit({"top.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: top}\n"})
    assert "inner.git/config" in git_repo.git("ls-files")
    return inner, marker


def test_committed_bare_repository_is_never_used(
    git_repo: Any, outer_with_bare: tuple[Path, Path], tmp_path: Path
) -> None:
    inner, marker = outer_with_bare
    loaded = source.load(git_repo.path)
    assert sorted(t.name for t in loaded.objects.templates) == ["c", "top"]
    plain = tmp_path / "copy"
    git_repo.git("worktree", "add", "-q", "--detach", str(plain))
    (plain / ".git").unlink()  # the same files, as a plain folder
    assert sorted(t.name for t in source.load(plain).objects.templates) == ["c", "top"]
    with pytest.raises(SourceError, match="empty repository"):
        source.load(inner)  # named explicitly: a repository, but git runs none of its commands
    assert not marker.exists()
