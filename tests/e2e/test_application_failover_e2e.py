"""Application failover end to end: a source pushed to a bare repository, the reconciler, the
push agent for three simulated clusters, and a clock that the test moves.

Aspects covered:
- an override gives one cluster's copy a node selector no node has: its pods stay Pending, the
  agent reports the Deployment Unhealthy with since when, and the reconciler, with no new
  source commit, renders that the eviction is waiting for the toleration;
- after the toleration the reconciler moves the replicas to the other clusters, saying why;
  the old Work stays until the agents report the new replicas healthy, then goes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from e2e import stepped
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.service import reconciler

__all__ = ["make_sim_cluster_fixture"]

CLUSTERS = ("m1", "m2", "m3")
WEB = "shop/Deployment.apps/web.yaml"
TOLERATION = 60


def _source() -> str:
    placement = {
        "clusterAffinity": {"clusterNames": list(CLUSTERS)},
        "replicaScheduling": {"replicaSchedulingType": "Divided"},
    }
    application = {"decisionConditions": {"tolerationSeconds": TOLERATION}}
    stuck = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "m3-nodes", "namespace": "shop"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["m3"]},
                    "overriders": {
                        "plaintext": [
                            {
                                "path": "/spec/template/spec/nodeSelector",
                                "operator": "add",
                                "value": {"disk": "none-has-this"},
                            }
                        ]
                    },
                }
            ],
        },
    }
    docs = [
        *(make_cluster(name) for name in CLUSTERS),
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=3),
        make_policy(
            "web", placement=placement, propagateDeps=True, failover={"application": application}
        ),
        stuck,
    ]
    return yaml.safe_dump_all(docs)


class Fleet(stepped.PushFleet):
    def render(self) -> reconciler.Outcome:
        return self.reconciler.cycle("test")

    def replicas(self) -> dict[str, int]:
        _, files, _ = stepped.tip(self.remote)
        return stepped.replicas(files, CLUSTERS, WEB)


def test_an_unhealthy_application_fails_over(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory
) -> None:
    sims = {name: make_sim_cluster(name) for name in CLUSTERS}
    kubeconfigs = sims["m1"].kubeconfig.parent
    git_repo.commit({"fleet.yaml": _source()}, "fleet")
    git_repo.git("push", "-q", "origin", "main")
    fleet = Fleet(bare_remote, kubeconfigs, sims)
    try:
        assert fleet.render() is reconciler.Outcome.RENDERED
        _, files, _ = stepped.tip(bare_remote)
        assert fleet.replicas() == {"m1": 1, "m2": 1, "m3": 1}
        old_work = files[f"works/m3/{WEB}"]
        fleet.agents()
        pod = sims["m3"].objects.list("v1", "Pod", "shop")
        assert pod and all(p["status"]["phase"] == "Pending" for p in pod), pod

        fleet.render()
        _, _, message = stepped.tip(bare_remote)
        assert message.startswith("render "), "no failover yet: the toleration runs"
        assert fleet.replicas() == {"m1": 1, "m2": 1, "m3": 1}

        fleet.clock.advance(TOLERATION + 1)
        fleet.agents()
        assert fleet.render() is reconciler.Outcome.RENDERED
        _, files, message = stepped.tip(bare_remote)
        assert message.startswith("failover: Deployment shop/web is Unhealthy on m3 since ")
        assert "Deployment shop/web moved 1 replicas from m3 to " in message
        moved = {k: v for k, v in fleet.replicas().items() if k != "m3"}
        assert sum(moved.values()) == 3
        assert files[f"works/m3/{WEB}"] == old_work, "the old Work stays"

        fleet.agents()
        fleet.render()
        _, files, message = stepped.tip(bare_remote)
        assert "Deployment shop/web removed from m3 (replacement healthy)" in message
        assert f"works/m3/{WEB}" not in files
    finally:
        fleet.reconciler.close()
