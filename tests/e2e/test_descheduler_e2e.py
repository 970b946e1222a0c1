"""The descheduler end to end: a source pushed to a bare repository, the reconciler, the push
agent, three simulated member clusters (one much smaller than its declared capacity) and a
clock that the test moves.

Aspects covered:
- the first render divides a dynamically weighted Deployment by the declared capacity; the small
  cluster cannot run its share: its simulated scheduler leaves pods Pending (PodScheduled
  False, Unschedulable) and its agent reports them through Git;
- nothing moves before the first descheduling run after the threshold; at that run the
  reconciler, with no new source commit, renders a commit naming the cluster, the workload
  and the counts, and the replicas go to the other clusters; the small cluster keeps the
  replica it runs;
- a statically weighted and a duplicated Deployment with pods just as unschedulable there do
  not move;
- after the agents apply it nothing pending is left and nothing moves again; `gitfleet
  explain` says the descheduler lowered the schedule; a new reconciler (a restart) changes
  nothing.
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import Any

import yaml
from builders import (
    DYNAMIC_WEIGHT,
    make_cluster,
    make_deployment,
    make_object,
    make_policy,
    selector,
)
from e2e import stepped
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.service import reconciler

__all__ = ["make_sim_cluster_fixture"]

CLUSTERS = ("m1", "m2", "m3")
INTERVAL, THRESHOLD = 10, 5
SETTINGS = f"""\
descheduler:
  deschedulingInterval: {INTERVAL}s
  unschedulableThreshold: {THRESHOLD}s
"""
NODE = {"memory": "16Gi", "pods": "110"}
STATIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [{"targetCluster": {"clusterNames": list(CLUSTERS)}, "weight": 1}]
        },
    }
}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def _source() -> str:
    """web (dynamic weights, 6 x 500m), api (static weights, 3 x 2 CPUs) and jobs (duplicated,
    2 CPUs) over three clusters that each declare 8 CPUs."""
    docs: list[Any] = [make_cluster(n, cpu="8") for n in CLUSTERS]
    docs.append(make_object("v1", "Namespace", "shop"))
    for name, replicas, cpu, placement in (
        ("web", 6, "500m", DYNAMIC_WEIGHT),
        ("api", 3, "2", STATIC),
        ("jobs", 1, "2", DUPLICATED),
    ):
        docs.append(make_deployment(name, replicas=replicas, cpu=cpu))
        affinity = {"clusterAffinity": {"clusterNames": list(CLUSTERS)}}
        docs.append(make_policy(name, selector(name=name), placement={**affinity, **placement}))
    return yaml.safe_dump_all(docs)


class Fleet(stepped.PushFleet):
    """The descheduler's fleet: web's replicas and its waiting pods."""

    def tip(self) -> tuple[str, dict[str, bytes], str]:
        return stepped.tip(self.remote)

    def replicas(self, name: str) -> dict[str, int]:
        _, files, _ = self.tip()
        return stepped.replicas(files, CLUSTERS, f"shop/Deployment.apps/{name}.yaml")

    def waiting_since(self, cluster: str) -> list[str]:
        """When each of web's pods on `cluster` became unschedulable."""
        return [
            c["lastTransitionTime"]
            for pod in self.sims[cluster].objects.list("v1", "Pod", "shop")
            if pod["metadata"]["name"].startswith("web-")
            for c in pod["status"].get("conditions", [])
            if c["type"] == "PodScheduled" and c["status"] == "False"
        ]


def _next_run(since: str) -> float:
    """The first descheduling run after a pod waiting since `since` passed the threshold."""
    moment = datetime.datetime.fromisoformat(since).timestamp() + THRESHOLD
    return (math.floor(moment / INTERVAL) + 1) * INTERVAL


def test_a_cluster_that_cannot_run_its_share_loses_it(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory, cli: Any
) -> None:
    small = {"cpu": "500m", **NODE}
    sims = {
        name: make_sim_cluster(name, nodes=1, node_allocatable=small if name == "m1" else
                               {"cpu": "8", **NODE})
        for name in CLUSTERS
    }  # fmt: skip
    git_repo.commit({"fleet.yaml": _source(), "gitfleet.yaml": SETTINGS}, "fleet")
    git_repo.git("push", "-q", "origin", "main")
    fleet = Fleet(bare_remote, sims["m1"].kubeconfig.parent, sims)
    try:
        assert fleet.reconciler.cycle("test") is reconciler.Outcome.RENDERED
        fleet.agents()
        assert fleet.replicas("web") == {"m1": 2, "m2": 2, "m3": 2}
        others = {name: fleet.replicas(name) for name in ("api", "jobs")}
        (since,) = fleet.waiting_since("m1")
        fleet.reconciler.cycle("test")
        assert fleet.replicas("web") == {"m1": 2, "m2": 2, "m3": 2}, (
            "reported capacity moves nothing"
        )
        first, _, _ = fleet.tip()

        fleet.clock.now = _next_run(since) - 1
        fleet.agents()
        fleet.reconciler.cycle("test")
        assert fleet.tip()[0] == first, "the threshold has passed, but no run since"

        fleet.clock.now = _next_run(since)
        fleet.agents()
        fleet.reconciler.cycle("test")
        moved, _, message = fleet.tip()
        assert moved != first
        assert message.startswith(
            "descheduler: Deployment shop/web: m1 cannot run 1 of 2 replicas, moved to m"
        ), message
        web = fleet.replicas("web")
        assert web["m1"] == 1 and sum(web.values()) == 6, web
        assert {name: fleet.replicas(name) for name in ("api", "jobs")} == others

        fleet.agents()
        assert fleet.waiting_since("m1") == []
        running = sims["m1"].objects.get("apps/v1", "Deployment", "web", "shop")
        assert running["status"]["readyReplicas"] == 1
        fleet.clock.now += 3 * INTERVAL
        fleet.agents()
        fleet.reconciler.cycle("test")
        assert fleet.tip()[0] == moved, "nothing moves again"

        done = cli("explain", "deployment/web", "-n", "shop", "--repo", str(bare_remote))
        assert "lowered by the descheduler at " in done.output, done.output
        assert "m1 cannot run 1 of 2 replicas" in done.output

        fleet.restart()
        fleet.reconciler.cycle("test")
        assert fleet.tip()[0] == moved, "a restart changes nothing"
    finally:
        fleet.reconciler.close()
