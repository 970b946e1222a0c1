"""Fixtures every test area shares: real Git repositories in temporary folders and the CLI
run in-process. Area-specific fixtures live in each area's own conftest.py."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import realk8s_session
from click.testing import CliRunner, Result
from realk8s_session import real_tier_fixture  # noqa: F401

from gitfleet.cli.main import cli as gitfleet_cli

# Every test runs as on a new machine: Git reads no global or system configuration, so nothing
# passes here only because the developer's ~/.gitconfig names an author.
os.environ["GIT_CONFIG_GLOBAL"] = os.devnull
os.environ["GIT_CONFIG_NOSYSTEM"] = "1"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` with a fixed identity and clock; return stdout."""
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


@dataclasses.dataclass
class GitRepo:
    """A temporary repository with a working tree; `commit` writes files and commits them."""

    path: Path

    def commit(self, files: dict[str, str | None], message: str = "change") -> str:
        """Write (or, for None, delete) files, commit everything, return the new sha."""
        for rel, text in files.items():
            target = self.path / rel
            if text is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "--allow-empty", "-m", message)
        return git(self.path, "rev-parse", "HEAD")

    def git(self, *args: str) -> str:
        return git(self.path, *args)


@pytest.fixture(name="git_repo")
def git_repo_fixture(tmp_path: Path) -> GitRepo:
    path = tmp_path / "source"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    return GitRepo(path)


@pytest.fixture(name="bare_remote")
def bare_remote_fixture(tmp_path: Path, git_repo: GitRepo) -> Iterator[Path]:
    """A bare repository acting as the remote of `git_repo`."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git_repo.git("remote", "add", "origin", str(remote))
    yield remote


def pytest_configure(config: pytest.Config) -> None:
    realk8s_session.configure(config)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    realk8s_session.schedule(config, items)


def pytest_unconfigure(config: pytest.Config) -> None:
    realk8s_session.finish(config)


Invoke = Callable[..., Result]


@pytest.fixture(name="cli")
def cli_fixture() -> Invoke:
    """Run `gitfleet ARGS...` in-process; returns click's Result (exit_code, stdout, stderr)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(gitfleet_cli, list(args), input=input, catch_exceptions=False)

    return invoke
