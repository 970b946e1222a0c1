"""A remote repository through a bare copy in a cache folder.

Aspects covered:
- which locations are remote; how git is given each (a local path made absolute, a URL as
  written, a `file://` URL naming a host refused);
- fetching brings the remote's branches (and drops deleted ones);
- pushing a ref by compare-and-swap: created, replaced, and refused when the remote moved;
- a URL's user information (a token, a password) is never shown: not in the errors of
  `reconcile` and of the agents when the remote cannot be reached, nor in the reconciler's log.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from gitfleet.errors import RefConflictError, UsageError
from gitfleet.gitstore import refs, remote, status

GitRepo = Any
"""The `git_repo` fixture's repository (tests/conftest.py): `.path`, `.commit()`, `.git()`."""


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        pytest.param("https://example.com/fleet.git", True, id="https"),
        pytest.param("file:///srv/fleet.git", True, id="file url"),
        pytest.param("git@example.com:fleet.git", True, id="scp-like"),
        pytest.param("/srv/fleet", False, id="absolute path"),
        pytest.param("fleet", False, id="relative path"),
    ],
)
def test_remote_locations(location: str, expected: bool) -> None:
    assert remote.is_remote(location) is expected


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        pytest.param("https://example.com/fleet.git", "https://example.com/fleet.git", id="https"),
        pytest.param("git@example.com:fleet.git", "git@example.com:fleet.git", id="scp-like"),
        pytest.param("file:///srv/fleet.git", "file:///srv/fleet.git", id="file url"),
        pytest.param("file://localhost/srv/f.git", "file://localhost/srv/f.git", id="localhost"),
        pytest.param("../fleet.git", "{cwd}/fleet.git", id="relative path"),
        pytest.param("fleet.git", "{cwd}/work/fleet.git", id="plain name"),
    ],
)
def test_locations_as_git_takes_them(
    location: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert remote.locate(location) == expected.format(cwd=tmp_path)


def test_a_file_url_naming_a_host_is_refused() -> None:
    with pytest.raises(UsageError, match="file:///path/to/repo"):
        remote.locate("file://fleet.git")


SHOWN = {
    "https://x:T0KEN@h.example/f.git": "https://***@h.example/f.git",
    "https://T0KEN@h.example:8443/f": "https://***@h.example:8443/f",
    "https://h.example/f.git": "https://h.example/f.git",
    "git@h.example:f.git": "git@h.example:f.git",
    "../fleet.git": "../fleet.git",
}
"""Locations as messages show them: a token as user name or password, none, no URL at all."""


@pytest.mark.parametrize(("location", "expected"), SHOWN.items())
def test_locations_as_shown(location: str, expected: str) -> None:
    assert remote.shown(location) == expected


def test_no_message_shows_a_token(cli: Any, tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://gitfleet:T0KEN@127.0.0.1:{port}/fleet.git"
    shown = f"http://***@127.0.0.1:{port}/fleet.git"
    (tmp_path / "kube").mkdir()
    runs = [
        ("reconcile", "--repo", url, "--once", "--cache", str(tmp_path / "cache")),
        ("agent", "push", "--repo", url, "--kubeconfig-dir", str(tmp_path / "kube"),
         "--cache-dir", str(tmp_path / "cache"), "--once"),
    ]  # fmt: skip
    for args in runs:
        done = cli(*args)
        assert done.exit_code == 1, done.output
        assert "T0KEN" not in done.output
        assert shown in done.output


def test_fetch_and_push(git_repo: GitRepo, bare_remote: Path, tmp_path: Path) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    git_repo.git("push", "-q", "origin", "main", "main:doomed")
    mirror = remote.Mirror(f"file://{bare_remote}", tmp_path / "cache")
    mirror.fetch()
    assert mirror.repo.commit_of("refs/heads/main") == git_repo.git("rev-parse", "HEAD")
    git_repo.git("push", "-q", "origin", ":doomed")
    mirror.fetch()
    assert mirror.repo.commit_of("refs/heads/doomed") is None

    first = status.write_status(
        mirror.repo, "m1", {"a": b"1"}, expected=None, rendered_commit="", move=mirror.push
    )
    assert git_repo.git("ls-remote", "origin", status.status_ref("m1")).split()[0] == first
    second = status.write_status(
        mirror.repo, "m1", {"a": b"2"}, expected=first, rendered_commit="", move=mirror.push
    )
    copied = refs.read_ref(mirror.repo, status.status_ref("m1"))
    assert copied is not None and copied.commit == second  # the copy follows the remote
    assert git_repo.git("ls-remote", "origin", status.status_ref("m1")).split()[0] == second
    with pytest.raises(RefConflictError):
        status.write_status(
            mirror.repo, "m1", {"a": b"3"}, expected=first, rendered_commit="", move=mirror.push
        )
    assert git_repo.git("ls-remote", "origin", status.status_ref("m1")).split()[0] == second
    mirror.close()
