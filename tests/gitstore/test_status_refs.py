"""Status refs: one parentless commit per cluster, replaced by compare-and-swap.

Aspects covered:
- a status is written, read back (files, rendered commit trailer) and listed per cluster;
- each write replaces the previous commit: history stays one commit long;
- a stale expected commit raises RefConflictError and leaves the ref alone;
- a branch in the way of the ref (`gitfleet/status`, or one below the cluster's ref) is named
  in a SourceError, not in git's words, and nothing is written.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitfleet.errors import RefConflictError, SourceError
from gitfleet.gitstore import objects, repository, status

WHO = objects.Signature("gitfleet", "gitfleet@localhost", 1767225600)


@pytest.fixture(name="repo")
def repo_fixture(tmp_path: Path) -> repository.Repository:
    path = tmp_path / "fleet.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    opened = repository.open_repository(path)
    assert opened is not None
    return opened


def _write(repo: repository.Repository, text: bytes, expected: str | None) -> str:
    return status.write_status(
        repo,
        "m1",
        {"works.yaml": text, "cluster.yaml": b"cluster: m1\n"},
        expected=expected,
        rendered_commit="a" * 40,
        author=WHO,
    )


def test_a_status_reads_back(repo: repository.Repository) -> None:
    commit = _write(repo, b"one\n", None)
    found = status.read_status(repo, "m1")
    assert found is not None
    assert found.commit == commit
    assert found.rendered_commit == "a" * 40
    assert found.files == {"works.yaml": b"one\n", "cluster.yaml": b"cluster: m1\n"}
    assert list(status.read_all(repo)) == ["m1"]
    assert status.read_status(repo, "m2") is None


def test_history_stays_one_commit_long(repo: repository.Repository) -> None:
    first = _write(repo, b"one\n", None)
    second = _write(repo, b"two\n", first)
    count = subprocess.run(
        ["git", "--git-dir", str(repo.git_dir), "rev-list", "--count", status.status_ref("m1")],
        capture_output=True,
        check=True,
    )
    assert count.stdout.strip() == b"1"
    found = status.read_status(repo, "m1")
    assert found is not None and found.commit == second


def test_a_stale_expectation_loses(repo: repository.Repository) -> None:
    first = _write(repo, b"one\n", None)
    _write(repo, b"two\n", first)
    with pytest.raises(RefConflictError, match="moved by another writer"):
        _write(repo, b"three\n", first)
    found = status.read_status(repo, "m1")
    assert found is not None and found.files["works.yaml"] == b"two\n"


@pytest.mark.parametrize(
    "other",
    [
        pytest.param("refs/heads/gitfleet/status", id="the folder of status refs"),
        pytest.param("refs/heads/gitfleet/status/m1/old", id="below the cluster's ref"),
    ],
)
def test_a_branch_in_the_way_is_named(repo: repository.Repository, other: str) -> None:
    kept = _write(repo, b"one\n", None)
    git = ["git", "--git-dir", str(repo.git_dir)]
    subprocess.run([*git, "update-ref", "-d", status.status_ref("m1")], check=True)
    subprocess.run([*git, "update-ref", other, kept], check=True)
    with pytest.raises(SourceError) as raised:
        _write(repo, b"two\n", None)
    assert str(raised.value).endswith(
        f"cannot make refs/heads/gitfleet/status/m1 while {other} exists (a ref cannot also be"
        f" a folder of refs): delete or rename {other}"
    )
    assert status.read_status(repo, "m1") is None
