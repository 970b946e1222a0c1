"""FederatedHPA end to end: a source pushed to a bare repository, the reconciler, the push agent
for two simulated clusters serving the resource metrics API, and a clock the test moves.

Aspects covered:
- the agents report the target's pods with their usage and requests through Git;
- under load the reconciler, with no new source commit, scales the workload up after a sync
  period: one commit whose message names the metric, the old and the new replicas, and the
  scheduler divides the new replicas between the clusters;
- when the load goes, nothing moves during the scale-down stabilization window, and the
  workload scales down once it has passed;
- the FederatedHPA's file on the rendered branch keeps its status and memory, so a new
  reconciler decides as the old one would; `gitfleet status` and `gitfleet explain` show the
  last decision.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from e2e import stepped
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.service import reconciler

__all__ = ["make_sim_cluster_fixture"]

CLUSTERS = ("m1", "m2")
WEB = "shop/Deployment.apps/web.yaml"
HPA_FILE = "autoscaling/shop/web.yaml"
SETTINGS = """\
autoscaling:
  syncPeriod: 15s
  cpuInitializationPeriod: 0s
"""
HPA = {
    "apiVersion": "autoscaling.karmada.io/v1alpha1",
    "kind": "FederatedHPA",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
        "minReplicas": 1,
        "maxReplicas": 10,
        "metrics": [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
        "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
    },
}


def _source() -> str:
    placement = {
        "clusterAffinity": {"clusterNames": list(CLUSTERS)},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
        },
    }
    docs = [
        *(make_cluster(name) for name in CLUSTERS),
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=2, cpu="100m"),
        make_policy("web", placement=placement),
        HPA,
    ]
    return yaml.safe_dump_all(docs)


class Fleet(stepped.PushFleet):
    """The FederatedHPA's fleet: the load its pods report, and the replicas decided."""

    def load(self, cpu: str) -> None:
        for sim in self.sims.values():
            sim.cluster.set_pod_usage("shop", {"cpu": cpu}, labels={"app": "web"})

    def tip(self) -> tuple[str, dict[str, bytes], str]:
        return stepped.tip(self.remote, folders=("works/", "autoscaling/"))

    def replicas(self) -> dict[str, int]:
        _, files, _ = self.tip()
        return stepped.replicas(files, CLUSTERS, WEB)

    def running(self) -> int:
        found = (s.objects.get("apps/v1", "Deployment", "web", "shop") for s in self.sims.values())
        return sum(int(w["spec"]["replicas"]) for w in found if w is not None)


def test_a_federated_hpa_scales_up_under_load_and_down_after_its_window(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory, cli: Any, tmp_path: Path
) -> None:
    sims = {name: make_sim_cluster(name) for name in CLUSTERS}
    kubeconfigs = sims["m1"].kubeconfig.parent
    git_repo.commit({"fleet.yaml": _source(), "gitfleet.yaml": SETTINGS}, "fleet")
    git_repo.git("push", "-q", "origin", "main")
    fleet = Fleet(bare_remote, kubeconfigs, sims)
    try:
        assert fleet.reconciler.cycle("test") is reconciler.Outcome.RENDERED
        fleet.agents()
        assert sum(fleet.replicas().values()) == 2
        assert fleet.running() == 2

        fleet.load("90m")
        fleet.agents()
        assert fleet.reconciler.cycle("test") is reconciler.Outcome.IDLE, "within the period"
        fleet.clock.advance(15)
        fleet.reconciler.cycle("test")
        _, files, message = fleet.tip()
        assert message.startswith(
            "autoscale: FederatedHPA shop/web: cpu 90% of 50% target, 2 -> 4 replicas"
        ), message
        assert sum(fleet.replicas().values()) == 4
        assert set(fleet.replicas()) == set(CLUSTERS), "divided across the clusters"
        status = yaml.safe_load(files[HPA_FILE])["status"]
        assert (status["currentReplicas"], status["desiredReplicas"]) == (2, 4)
        fleet.agents()
        assert fleet.running() == 4

        fleet.load("10m")
        fleet.agents()
        fleet.clock.advance(15)
        fleet.reconciler.cycle("test")
        assert sum(fleet.replicas().values()) == 4, "the stabilization window holds"
        fleet.restart()
        fleet.clock.advance(30)
        fleet.reconciler.cycle("test")
        assert sum(fleet.replicas().values()) == 4, "a restart remembers the window"

        fleet.clock.advance(31)
        fleet.reconciler.cycle("test")
        _, files, message = fleet.tip()
        assert message.startswith(
            "autoscale: FederatedHPA shop/web: cpu 10% of 50% target, 4 -> 1 replicas"
        ), message
        assert sum(fleet.replicas().values()) == 1
        fleet.agents()
        assert fleet.running() == 1

        done = cli("status", "--repo", str(bare_remote), "-o", "json", "--grace", "1e9")
        (shown,) = json.loads(done.output)["autoscalers"]
        assert shown["target"] == "Deployment/shop/web" and shown["replicas"] == 1
        last = shown["lastDecision"]
        assert (last["from"], last["to"], last["reason"]) == (4, 1, "cpu 10% of 50% target")
        done = cli("status", "--repo", str(bare_remote), "--grace", "1e9")
        assert "FederatedHPA shop/web scales Deployment/shop/web: 1 replicas (1..10)" in done.output
        git_repo.git("fetch", "-q", "origin", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*")
        done = cli("explain", "deploy/web", "-n", "shop", "--repo", str(git_repo.path))
        assert (
            "autoscaling: FederatedHPA shop/web scales Deployment/shop/web: 1 replicas (1..10);"
            " last scaled 4 -> 1 at " in done.output
        ), done.output
    finally:
        fleet.reconciler.close()
