"""The pull agent's Git credential, read from a mounted Secret's files.

Aspects covered:
- basic-auth (`username`, `password`): git asks the helper in the copy's configuration, which
  reads the files each time (a rotated Secret is used at once; `username` defaults to git);
- ssh-auth (`ssh-privatekey`, `known_hosts`): ssh is told the key and the known hosts, and to
  check the server's key;
- a folder with neither is an error naming what it expected;
- a folder named relative to the current one works wherever git runs (it runs the status push
  in the copy's folder).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from agent.pull_kit import Remote, remote_fixture

from gitfleet import errors
from gitfleet.agent import _credentials, _fetch
from gitfleet.gitstore import rendered

__all__ = ["remote_fixture"]


def _copy(remote: Remote, tmp_path: Path, secret: Path) -> _fetch.ClusterRemote:
    return _fetch.ClusterRemote(
        remote.url,
        "m1",
        rendered.cluster_ref("m1"),
        tmp_path / "cache",
        sparse=False,
        settings=_credentials.git_settings(secret),
    )


def _fill(copy: _fetch.ClusterRemote, cwd: Path | None = None) -> dict[str, str]:
    """What git would send to https://git.example for the copy, asked from `cwd`."""
    done = subprocess.run(
        ["git", "credential", "fill"],
        input="protocol=https\nhost=git.example\n\n",
        cwd=cwd,
        env={**os.environ, "GIT_DIR": str(copy.path), "GIT_TERMINAL_PROMPT": "0"},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def test_basic_auth_reads_the_files_each_time(remote: Remote, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "username").write_text("agent-m1")
    (secret / "password").write_text("token-1")
    copy = _copy(remote, tmp_path, secret)
    assert _fill(copy) == {
        "protocol": "https",
        "host": "git.example",
        "username": "agent-m1",
        "password": "token-1",
    }
    (secret / "password").write_text("token-2")
    (secret / "username").unlink()
    found = _fill(copy)
    assert (found["username"], found["password"]) == ("git", "token-2")


def test_a_relative_folder_is_read_from_any_folder(
    remote: Remote, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "password").write_text("token-1")
    monkeypatch.chdir(tmp_path)
    copy = _copy(remote, tmp_path, Path("secret"))
    assert _fill(copy, cwd=copy.path)["password"] == "token-1"


def test_ssh_auth(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "ssh-privatekey").write_text("KEY")
    ((key, command),) = _credentials.git_settings(secret)
    assert key == "core.sshCommand"
    assert f"-i {secret / 'ssh-privatekey'}" in command
    assert f"UserKnownHostsFile={secret / 'known_hosts'}" in command
    assert "StrictHostKeyChecking=yes" in command


def test_no_credential(tmp_path: Path) -> None:
    with pytest.raises(errors.SourceError, match=r"expected password .* or ssh-privatekey"):
        _credentials.git_settings(tmp_path)
