"""End-to-end fixtures: `fleet`, a Git repository holding a committed copy of example-repo/,
with the `GitRepo` helpers (`commit`, `git`) of the shared `git_repo` fixture. (The type is
not imported from tests/conftest.py: another folder's conftest may shadow that name.)"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import realk8s
import realk8s_session
from e2e import members

from gitfleet.demo import simulated

EXAMPLE = Path(__file__).resolve().parents[2] / "example-repo"


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: Any) -> Any:
    shutil.copytree(EXAMPLE, git_repo.path, dirs_exist_ok=True)
    git_repo.git("add", "-A")
    git_repo.git("commit", "-q", "-m", "example")
    return git_repo


@pytest.fixture(name="real_tier", scope="session")
def real_tier_fixture(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str, str], Path]]:
    """Real API servers for the example fleet's clusters: `kubeconfig(cluster, user)` writes
    a kubeconfig for the administrator ("admin") or the pull agent's service account."""
    given = realk8s_session.external()
    if given is not None:
        out = tmp_path_factory.mktemp("tier-credentials")
        yield lambda cluster, user: realk8s.external_kubeconfig(given, out, cluster, user)
        return
    binaries = realk8s_session.binaries(request.config)
    names = [plan.name for plan in simulated.plans_from_repo(str(EXAMPLE))]
    tier = realk8s.start(tmp_path_factory.mktemp("tier"), names, binaries, [members.AGENT_ACCOUNT])
    try:
        yield tier.kubeconfig
    finally:
        tier.stop()
