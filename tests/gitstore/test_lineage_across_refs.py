"""A push agent switching between the rendered branch and its cluster's ref (a progressive
rollout begins or ends): `lineage.follows` between a branch commit and a cluster ref's commit,
which share no history.

Aspects covered:
- a cluster ref's commit made at or after the branch commit last applied follows it, and the
  other way round; one made before it does not (an old cluster commit replayed);
- within one kind the rules are unchanged (an older cluster commit of the same ref does not
  follow a newer one).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GIT_ENV

from gitfleet.gitstore import lineage, repository

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@pytest.fixture(name="made")
def made_fixture(tmp_path: Path) -> tuple[repository.Repository, dict[str, str]]:
    """Cluster ref commits c1(10) ← c2(30) ← c3(50) and branch commits b1(10) ← b2(30)."""
    path = tmp_path / "repo.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    ids: dict[str, str] = {}
    plan = [
        ("c1", None, 10),
        ("c2", "c1", 30),
        ("c3", "c2", 50),
        ("b1", None, 10),
        ("b2", "b1", 30),
    ]
    for name, parent, at in plan:
        env = {**os.environ, **GIT_ENV, "GIT_COMMITTER_DATE": f"@{at} +0000"}
        trailer = "\n\nGitfleet-Cluster: p1" if name.startswith("c") else ""
        parents = ["-p", ids[parent]] if parent else []
        done = subprocess.run(
            ["git", "commit-tree", EMPTY_TREE, *parents, "-m", f"render {name}{trailer}"],
            cwd=path, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        ids[name] = done.stdout.strip()
    repo = repository.Repository(path, str(path))
    return repo, ids


@pytest.mark.parametrize(
    ("commit", "base", "expected"),
    [
        pytest.param("c2", "b2", True, id="a cluster commit of the same publication"),
        pytest.param("c3", "b2", True, id="a later release"),
        pytest.param("c1", "b2", False, id="an older cluster commit replayed"),
        pytest.param("b2", "c2", True, id="back to the branch, as new"),
        pytest.param("b1", "c2", False, id="back to an older branch commit"),
        pytest.param("c1", "c3", False, id="an ancestor of the same ref"),
    ],
)
def test_follows_across_refs(
    made: tuple[repository.Repository, dict[str, str]], commit: str, base: str, expected: bool
) -> None:
    repo, ids = made
    assert lineage.follows(repo, ids[commit], ids[base]) is expected
