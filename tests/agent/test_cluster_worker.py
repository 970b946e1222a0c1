"""One cluster's worker: a step syncs and reports; failures back off.

Aspects covered:
- the backoff doubles from its base up to its cap;
- a step syncs the cluster and writes its status ref, and a repeated step writes neither;
- an agent that cannot use its access to the cluster (no kubeconfig, an unparseable one,
  credentials refused) reports nothing, not even a heartbeat, says why, and does not raise;
- a running worker retries a cluster that was down until it converges; an idle one stops
  at once when halted;
- a quiet worker steps (and so can report) every heartbeat, even with a long sync interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import workfiles
import yaml
from builders import make_configmap, make_object
from simfixture import RunningSim

from gitfleet import sim
from gitfleet.agent import fleet, kube, worker
from gitfleet.gitstore import repository, status, works

GitRepo = Any
"""The `git_repo` fixture's repository (tests/conftest.py): `.path`, `.commit()`, `.git()`."""

DOCS = [make_object("v1", "Namespace", "shop"), make_configmap()]


@pytest.mark.parametrize(
    ("failures", "delay"),
    [pytest.param(1, 1.0, id="first"), pytest.param(3, 4.0, id="doubled"),
     pytest.param(10, 30.0, id="capped")],
)  # fmt: skip
def test_backoff(failures: int, delay: float) -> None:
    assert worker.Backoff(base=1.0, cap=30.0).delay(failures) == delay


def _round(git_repo: GitRepo) -> fleet.Round:
    source = git_repo.commit({"a.yaml": "a: 1\n"})
    commit = workfiles.publish(git_repo.path, {"member1": DOCS}, source_commit=source)
    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    return fleet.Round(works.read_commit(repo, commit), ())


def _worker(
    git_repo: GitRepo, target: fleet.Target, current: Callable[[], fleet.Round | None]
) -> worker.ClusterWorker:
    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    pace = worker.Pace(interval=0.05, heartbeat=3600, backoff=worker.Backoff(0.05, 0.1))
    return worker.ClusterWorker(target, repo=repo, current=current, retry=kube.NO_WAIT, pace=pace)


def _status_file(git_repo: GitRepo, name: str) -> dict[str, object]:
    found: dict[str, object] = yaml.safe_load(
        git_repo.git("show", f"{status.status_ref('member1')}:{name}")
    )
    return found


def test_a_step_syncs_and_reports(git_repo: GitRepo, sim_cluster: RunningSim) -> None:
    round_ = _round(git_repo)
    member = _worker(git_repo, fleet.Target("member1", sim_cluster.kubeconfig), lambda: round_)
    try:
        assert member.step(round_).converged
        first = git_repo.git("rev-parse", status.status_ref("member1"))
        assert _status_file(git_repo, "works.yaml")["converged"] is True
        sim_cluster.cluster.reset_requests()
        assert member.step(round_).converged
        assert sim_cluster.cluster.requests.writes == 0
        assert git_repo.git("rev-parse", status.status_ref("member1")) == first
    finally:
        member.close()


def _wrong_token(sim_cluster: RunningSim, tmp_path: Path) -> Path:
    data = sim_cluster.cluster.kubeconfig_data()
    data["users"][0]["user"]["token"] = "not-the-token"
    path = tmp_path / "wrong-token.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _unparseable(sim_cluster: RunningSim, tmp_path: Path) -> Path:
    path = tmp_path / "broken.yaml"
    path.write_text("clusters: [unclosed\n")
    return path


@pytest.mark.parametrize(
    ("kubeconfig", "says"),
    [
        pytest.param(None, "no kubeconfig for cluster member1", id="no kubeconfig"),
        pytest.param(_wrong_token, "Unauthorized", id="credentials refused (401)"),
        pytest.param(_unparseable, "cannot read kubeconfig", id="unparseable kubeconfig"),
    ],
)
def test_a_misconfigured_agent_reports_nothing(
    git_repo: GitRepo,
    sim_cluster: RunningSim,
    tmp_path: Path,
    kubeconfig: Callable[[RunningSim, Path], Path] | None,
    says: str,
) -> None:
    round_ = _round(git_repo)
    good = _worker(git_repo, fleet.Target("member1", sim_cluster.kubeconfig), lambda: round_)
    try:
        assert good.step(round_).converged
    finally:
        good.close()
    reported = git_repo.git("rev-parse", status.status_ref("member1"))
    path = kubeconfig(sim_cluster, tmp_path) if kubeconfig is not None else None
    problem = "no kubeconfig for cluster member1: expected kube/member1.yaml"
    member = _worker(git_repo, fleet.Target("member1", path, problem), lambda: round_)
    try:
        result = member.step(round_)
    finally:
        member.close()
    assert result.error.startswith(worker.MISCONFIGURED)
    assert says in result.error
    assert not result.converged
    assert git_repo.git("rev-parse", status.status_ref("member1")) == reported


def test_a_running_worker_retries_until_the_cluster_is_back(
    git_repo: GitRepo, sim_cluster: RunningSim
) -> None:
    round_ = _round(git_repo)
    sim_cluster.cluster.set_fault(sim.Fault.UNREACHABLE)
    member = _worker(git_repo, fleet.Target("member1", sim_cluster.kubeconfig), lambda: round_)
    member.start()
    try:
        deadline = time.monotonic() + 20
        while member.failures < 2:
            assert time.monotonic() < deadline, "the worker never retried"
            time.sleep(0.02)
        sim_cluster.cluster.set_fault(sim.Fault.NONE)
        while sim_cluster.objects.get("v1", "ConfigMap", "settings", "shop") is None:
            assert time.monotonic() < deadline, "the worker never converged"
            time.sleep(0.02)
    finally:
        member.halt()
        member.close()
    assert member.thread is not None and not member.thread.is_alive()


def test_an_idle_worker_stops_when_halted(git_repo: GitRepo, tmp_path: Path) -> None:
    member = _worker(git_repo, fleet.Target("member1", tmp_path / "absent.yaml"), lambda: None)
    member.pace = worker.Pace(interval=3600)
    member.start()
    member.halt()
    member.close()
    assert member.thread is not None and not member.thread.is_alive()


def test_a_quiet_worker_still_steps_every_heartbeat(
    git_repo: GitRepo, sim_cluster: RunningSim
) -> None:
    """A long sync interval must not starve the heartbeat, or failover would take a healthy,
    idle cluster for a dead one."""
    round_ = _round(git_repo)
    steps: list[fleet.Round] = []

    def current() -> fleet.Round:
        steps.append(round_)
        return round_

    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    pace = worker.Pace(interval=3600, heartbeat=0.05, backoff=worker.Backoff(0.05, 0.1))
    member = worker.ClusterWorker(
        fleet.Target("member1", sim_cluster.kubeconfig),
        repo=repo,
        current=current,
        retry=kube.NO_WAIT,
        pace=pace,
    )
    member.start()
    try:
        deadline = time.monotonic() + 20
        while len(steps) < 3:
            assert time.monotonic() < deadline, "the worker waited for the sync interval"
            time.sleep(0.02)
    finally:
        member.halt()
        member.close()
