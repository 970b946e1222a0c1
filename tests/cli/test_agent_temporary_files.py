"""The agents leave no temporary files behind (each cluster client keeps its API discovery in
a temporary folder while it runs).

Aspects covered:
- `agent push --once` with a cluster that answers and one that does not, and `agent pull
  --once`: no `gitfleet-discovery-*` folder is left;
- a long-running `agent push` stopped by SIGTERM once it reported: exit 0, nothing left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from builders import make_cluster, make_cluster_policy, make_deployment, selector
from conftest import GitRepo, Invoke, git
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet import sim
from gitfleet.gitstore import status

__all__ = ["make_sim_cluster_fixture"]

BOUND = 60.0
"""Seconds that only a hung agent exceeds."""


NAMES = ("member1", "member2", "member3")


@pytest.fixture(name="members")
def members_fixture(make_sim_cluster: SimFactory) -> dict[str, RunningSim]:
    return {name: make_sim_cluster(name) for name in NAMES}


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, cli: Invoke, members: dict[str, RunningSim]) -> GitRepo:
    """member1 and member2 in Push mode, member3 in Pull mode; web goes to all three."""
    names = list(members)
    placement = {"clusterAffinity": {"clusterNames": names}}
    docs = [
        make_cluster("member1"),
        make_cluster("member2"),
        make_cluster("member3", syncMode="Pull"),
        make_deployment("web", "default", replicas=1),
        make_cluster_policy("web", selector(name="web"), placement=placement),
    ]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)})
    assert cli("render", "--repo", str(git_repo.path)).exit_code == 0
    return git_repo


@pytest.fixture(name="temp")
def temp_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the agents use (in this process and in the ones it starts)."""
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    return temp


def _left(temp: Path) -> list[str]:
    return sorted(p.name for p in temp.glob("gitfleet-discovery-*"))


def test_once_leaves_nothing(
    fleet: GitRepo, cli: Invoke, temp: Path, tmp_path: Path, members: dict[str, RunningSim]
) -> None:
    members["member2"].cluster.set_fault(sim.Fault.UNREACHABLE)
    kubeconfigs = tmp_path / "kubeconfigs"
    pushed = cli(
        "agent", "push", "--repo", str(fleet.path), "--kubeconfig-dir", str(kubeconfigs), "--once"
    )
    assert pushed.exit_code == 1, pushed.output
    assert "member2: NOT converged" in pushed.stdout
    pulled = cli(
        "agent", "pull", "--repo", str(fleet.path), "--cluster", "member3",
        "--kubeconfig", str(kubeconfigs / "member3.yaml"), "--cache-dir", str(tmp_path / "cache"),
        "--once",
    )  # fmt: skip
    assert pulled.exit_code == 0, pulled.output
    assert _left(temp) == []


def test_a_stopped_agent_leaves_nothing(fleet: GitRepo, temp: Path, tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "gitfleet", "agent", "push", "--repo", str(fleet.path),
        "--kubeconfig-dir", str(tmp_path / "kubeconfigs"), "--interval", "0.2",
    ]  # fmt: skip
    process = subprocess.Popen(command, env=os.environ, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + BOUND
        while not git(fleet.path, "for-each-ref", status.status_ref("member1")):
            assert time.monotonic() < deadline, "the agent never reported"
            time.sleep(0.1)
        assert _left(temp), "a running agent keeps its discovery"
        process.send_signal(signal.SIGTERM)
        assert process.wait(BOUND) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert _left(temp) == []
