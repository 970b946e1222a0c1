"""One cluster's worker: a step syncs and reports; failures back off.

Aspects covered:
- the backoff doubles from its base up to its cap;
- a step syncs the cluster and writes its status ref, and a repeated step writes neither;
- a cluster without a kubeconfig is reported with the problem and not Ready, and the step
  does not raise;
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


def test_a_cluster_without_kubeconfig_is_reported(git_repo: GitRepo) -> None:
    round_ = _round(git_repo)
    problem = "no kubeconfig for cluster member1: expected kube/member1.yaml"
    member = _worker(git_repo, fleet.Target("member1", None, problem), lambda: round_)
    try:
        result = member.step(round_)
    finally:
        member.close()
    assert result.error == problem
    assert _status_file(git_repo, "works.yaml")["error"] == problem
    summary = _status_file(git_repo, "cluster.yaml")
    assert isinstance(summary["status"], dict)
    assert summary["status"]["conditions"][0]["reason"] == "ClusterNotReachable"


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
