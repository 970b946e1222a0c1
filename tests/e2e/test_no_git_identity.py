"""gitfleet on a machine where Git has no identity (a new laptop, a CI container): every command
that commits names the author Git names, else `gitfleet <gitfleet@localhost>`.

Aspects covered, each through the command line with an empty home directory and no Git
identity in the environment:
- `init` commits the scaffold;
- `render` commits to the rendered branch and the per-cluster refs;
- `agent push --once` writes a cluster's status ref;
- an identity Git does name (here from the environment) is the one recorded.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from simfixture import make_sim_cluster_fixture  # noqa: F401

from gitfleet.gitstore import identity

CLUSTER = "aws-use1-a"
"""A Push cluster of the example fleet."""


def _fresh_env(home: Path, **extra: str) -> dict[str, str]:
    """What a new machine's shell has: a home with nothing in it, a PATH, nothing of Git's."""
    package_root = Path(identity.__file__).parents[2]
    return {"HOME": str(home), "PATH": os.environ["PATH"], "PYTHONPATH": str(package_root), **extra}


def _gitfleet(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitfleet", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _author(repo: Path, rev: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(repo / ".git"), "log", "-1", "--format=%an <%ae>|%cn <%ce>", rev],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture(name="home")
def home_fixture(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def test_init_render_and_status_write_without_identity(
    tmp_path: Path, home: Path, make_sim_cluster: object
) -> None:
    env = _fresh_env(home)
    created = _gitfleet(tmp_path, env, "init", "fleet")
    assert created.returncode == 0, created.stderr
    fleet = tmp_path / "fleet"
    fallback = f"{identity.FALLBACK_NAME} <{identity.FALLBACK_EMAIL}>"
    assert _author(fleet, "HEAD") == f"{fallback}|{fallback}"

    rendered = _gitfleet(tmp_path, env, "render", "--repo", str(fleet))
    assert rendered.returncode == 0, rendered.stderr
    for ref in ("gitfleet/rendered", f"refs/heads/gitfleet/works/{CLUSTER}"):
        assert _author(fleet, ref) == f"{fallback}|{fallback}"

    running = make_sim_cluster(CLUSTER)  # type: ignore[operator]
    pushed = _gitfleet(
        tmp_path, env, "agent", "push", "--repo", str(fleet),
        "--kubeconfig-dir", str(running.kubeconfig.parent), "--once",
    )  # fmt: skip
    assert f"refs/heads/gitfleet/status/{CLUSTER}" in subprocess.run(
        ["git", "--git-dir", str(fleet / ".git"), "for-each-ref", "refs/heads/gitfleet/status/"],
        capture_output=True, text=True, check=True,
    ).stdout, pushed.stderr  # fmt: skip
    assert _author(fleet, f"refs/heads/gitfleet/status/{CLUSTER}") == f"{fallback}|{fallback}"


def test_an_identity_git_names_is_kept(tmp_path: Path, home: Path) -> None:
    who = {"GIT_AUTHOR_NAME": "Ana", "GIT_AUTHOR_EMAIL": "ana@example.com"}
    who |= {"GIT_COMMITTER_NAME": "Ana", "GIT_COMMITTER_EMAIL": "ana@example.com"}
    env = _fresh_env(home, **who)
    assert _gitfleet(tmp_path, env, "init", "fleet").returncode == 0
    assert _gitfleet(tmp_path, env, "render", "--repo", str(tmp_path / "fleet")).returncode == 0
    ana = "Ana <ana@example.com>"
    assert _author(tmp_path / "fleet", "HEAD") == f"{ana}|{ana}"
    assert _author(tmp_path / "fleet", "gitfleet/rendered") == f"{ana}|{ana}"
