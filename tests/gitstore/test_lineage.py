"""Whether one commit may be applied after another (`lineage.follows`): never backwards.

Aspects covered:
- the same commit, and a descendant, follow; an ancestor does not, nor does a sibling;
- a history begun (a parentless commit) after the base follows, one begun before or at the same
  second does not, nor does a later commit of a history begun before;
- a base the repository does not hold, and a history fetched shallow (whose cut looks like a
  root), are errors rather than answers.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GIT_ENV

from gitfleet.errors import SourceError
from gitfleet.gitstore import lineage, repository


class Commits:
    """A repository where `make(name, parent, at)` commits an empty tree at second `at`."""

    def __init__(self, path: Path) -> None:
        subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
        self.path = path
        self.repo = repository.Repository(path, str(path))
        self.ids: dict[str, str] = {}

    def make(self, name: str, parent: str | None, at: int) -> str:
        env = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": f"@{at} +0000"}
        tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
        parents = ["-p", self.ids[parent]] if parent else []
        done = subprocess.run(
            ["git", "commit-tree", tree, *parents, "-m", name],
            cwd=self.path, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        self.ids[name] = done.stdout.strip()
        subprocess.run(
            ["git", "update-ref", f"refs/heads/{name}", self.ids[name]], cwd=self.path, check=True
        )
        return self.ids[name]


@pytest.fixture(name="commits")
def commits_fixture(tmp_path: Path) -> Commits:
    """a(10) ← b(20) ← c(30), b ← d(40); a new history n(50) ← m(60); an old one o(5);
    z(30), begun the second c was made."""
    made = Commits(tmp_path / "repo.git")
    history = [("a", None, 10), ("b", "a", 20), ("c", "b", 30), ("d", "b", 40),
               ("n", None, 50), ("m", "n", 60), ("o", None, 5), ("z", None, 30)]  # fmt: skip
    for name, parent, at in history:
        made.make(name, parent, at)
    return made


@pytest.mark.parametrize(
    ("commit", "base", "expected"),
    [
        pytest.param("c", "c", True, id="the same commit"),
        pytest.param("c", "a", True, id="a descendant"),
        pytest.param("a", "c", False, id="an ancestor"),
        pytest.param("b", "c", False, id="the parent"),
        pytest.param("d", "c", False, id="a sibling, made later"),
        pytest.param("n", "c", True, id="a history begun later"),
        pytest.param("m", "c", True, id="a later commit of a history begun later"),
        pytest.param("o", "c", False, id="a history begun earlier"),
        pytest.param("z", "c", False, id="a history begun the same second"),
        pytest.param("c", "m", False, id="a later commit of a history begun earlier"),
    ],
)
def test_follows(commits: Commits, commit: str, base: str, expected: bool) -> None:
    assert lineage.follows(commits.repo, commits.ids[commit], commits.ids[base]) is expected


def test_a_base_not_in_the_repository_is_an_error(commits: Commits) -> None:
    with pytest.raises(SourceError, match=f"cannot read {'1' * 40}, the commit last applied"):
        lineage.follows(commits.repo, commits.ids["c"], "1" * 40)


def test_a_shallow_history_is_not_taken_for_a_new_one(commits: Commits, tmp_path: Path) -> None:
    copy = tmp_path / "copy.git"
    url = f"file://{commits.path}"
    subprocess.run(
        ["git", "clone", "-q", "--bare", "--depth=1", "-b", "d", url, str(copy)], check=True
    )
    subprocess.run(["git", "fetch", "-q", "--depth=1", url, "c"], cwd=copy, check=True)
    repo = repository.Repository(copy, str(copy))
    with pytest.raises(SourceError, match="is not complete"):
        lineage.follows(repo, commits.ids["d"], commits.ids["c"])
