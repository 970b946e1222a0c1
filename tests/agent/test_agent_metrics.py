"""A cluster worker's metrics carry what its syncs did, scraped over real HTTP.

Aspects covered, for one known run against a simulated cluster:
- a first sync counts each object created, one converged sync and its duration, and a
  heartbeat whose age is read at scrape time;
- a field changed by hand is counted as drift repaired and as an object configured;
- a render without one of the objects counts it pruned;
- a render that would delete everything counts a guard refusal and a refused sync;
- an unchanged sync adds a converged sync and nothing else.
"""

from __future__ import annotations

import time
from typing import Any

import workfiles
from builders import make_configmap, make_object
from monitor.scrape import scrape, serving, value
from simfixture import RunningSim

from gitfleet.agent import fleet, kube, worker
from gitfleet.gitstore import repository, works
from gitfleet.monitor import health, metrics

GitRepo = Any
NAMESPACE = make_object("v1", "Namespace", "shop")


def _round(git_repo: GitRepo, docs: list[dict[str, Any]]) -> fleet.Round:
    source = git_repo.commit({"a.yaml": f"docs: {len(docs)}\n"})
    commit = workfiles.publish(git_repo.path, {"member1": docs}, source_commit=source)
    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    try:
        return fleet.Round(works.read_commit(repo, commit), ())
    finally:
        repo.close()


def _edit(sim_cluster: RunningSim) -> None:
    """A change by hand, as `kubectl edit` sends it."""
    sim_cluster.resource("v1", "ConfigMap").patch(
        name="settings",
        namespace="shop",
        body={"data": {"key": "changed"}},
        content_type="application/merge-patch+json",
        field_manager="kubectl-edit",
    )


def test_metrics_of_a_known_run(git_repo: GitRepo, sim_cluster: RunningSim) -> None:
    registry = metrics.new_registry()
    counts = metrics.AgentMetrics(registry)
    repo = repository.open_repository(git_repo.path)
    assert repo is not None
    member = worker.ClusterWorker(
        fleet.Target("member1", sim_cluster.kubeconfig),
        repo=repo,
        current=lambda: None,
        retry=kube.NO_WAIT,
        pace=worker.Pace(interval=60, heartbeat=3600),
        counts=counts,
    )
    both = _round(git_repo, [NAMESPACE, make_configmap(), make_configmap("extra")])
    before = time.time()
    try:
        assert member.step(both).converged
        _edit(sim_cluster)
        assert member.step(both).converged
        assert member.step(_round(git_repo, [NAMESPACE, make_configmap()])).converged
        assert member.step(both).converged
        refused = member.step(_round(git_repo, []))
        assert refused.guard_refused
        with serving(registry, health.Health()) as url:
            samples = scrape(url)
    finally:
        member.close()

    def counted(name: str, **labels: str) -> float | None:
        return value(samples, name, cluster="member1", **labels)

    assert counted("gitfleet_cluster_syncs_total", result="converged") == 4
    assert counted("gitfleet_cluster_syncs_total", result="refused") == 1
    assert counted("gitfleet_cluster_syncs_total", result="failed") is None
    assert counted("gitfleet_cluster_guard_refusals_total") == 1
    assert counted("gitfleet_cluster_applies_total", action="created") == 4
    assert counted("gitfleet_cluster_applies_total", action="configured") == 1
    assert counted("gitfleet_cluster_drift_repaired_total") == 1
    assert counted("gitfleet_cluster_prunes_total", result="pruned") == 1
    assert counted("gitfleet_cluster_sync_duration_seconds_count") == 5
    age = counted("gitfleet_cluster_heartbeat_age_seconds")
    assert age is not None and 0 <= age <= time.time() - before
