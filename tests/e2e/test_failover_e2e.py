"""Failover end to end: a source pushed to a bare repository, the reconciler, the push agent
for two Push clusters and a pull agent for a Pull cluster, simulated member clusters, and a
clock that the test moves.

Aspects covered:
- a commit reaches every cluster; the agents' heartbeats and health come back through Git;
- the Pull cluster's agent stops: once its heartbeat is older than the grace period the
  reconciler, with no new source commit, renders a commit saying the cluster is unreachable,
  and nothing moves while the toleration runs;
- after the toleration the reconciler moves its replicas to the other clusters; the old Work
  stays in the rendered tree, byte for byte, until the agents report the new replicas healthy,
  then goes; every transition is a commit whose message says why;
- the agent comes back: the cluster is Ready again, nothing moves back, its agent drops the
  workload it no longer has, and `gitfleet status` sees every cluster synced.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from e2e import stepped
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.agent import kube, pull, worker
from gitfleet.service import reconciler

__all__ = ["make_sim_cluster_fixture"]

PUSH, PULL = ("m1", "m2"), "m3"
WEB = "shop/Deployment.apps/web.yaml"
SETTINGS = """\
failover:
  heartbeatGracePeriod: 40s
  defaultTolerationSeconds: 30
  gracefulEvictionTimeout: 10m
"""


def _source() -> str:
    clusters = [make_cluster(name) for name in (*PUSH, PULL)]
    clusters[-1]["spec"]["syncMode"] = "Pull"
    placement = {
        "clusterAffinity": {"clusterNames": [*PUSH, PULL]},
        "replicaScheduling": {"replicaSchedulingType": "Divided"},
    }
    docs = [
        *clusters,
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=3),
        make_policy("web", placement=placement),
    ]
    return yaml.safe_dump_all(docs)


class Fleet(stepped.PushFleet):
    """The remote, the reconciler and the agents (push and pull), moved one step at a time."""

    def __init__(self, remote: Path, kubeconfigs: Path, sims: dict[str, Any]) -> None:
        super().__init__(remote, kubeconfigs, sims)
        self.pull = pull.PullAgent(
            pull.Settings(
                repo=remote.as_uri(), cluster=PULL, kubeconfig=kubeconfigs / f"{PULL}.yaml",
                cache_dir=remote.parent / "pull", retry=kube.NO_WAIT,
                pace=worker.Pace(heartbeat=10.0),
            ),
            clock=self.clock,
        )  # fmt: skip

    def close(self) -> None:
        self.pull.close()
        self.reconciler.close()

    def render(self) -> reconciler.Outcome:
        return self.reconciler.cycle("test")

    def agents(self, *, pull_agent: bool = True) -> None:
        """Every running agent syncs, the clusters' controllers settle, and they report."""
        for _ in range(2):
            results = self.push.once() or {}
            assert all(not r.error for r in results.values()), results
            if pull_agent:
                assert self.pull.once() is not None
            for sim in self.sims.values():
                sim.cluster.settle()

    def tip(self) -> tuple[str, dict[str, bytes], str]:
        """The rendered tip: commit, files, message."""
        return stepped.tip(self.remote)

    def replicas(self) -> dict[str, int]:
        _, files, _ = self.tip()
        return stepped.replicas(files, (*PUSH, PULL), WEB)

    def running(self, cluster: str) -> int | None:
        web = self.sims[cluster].objects.get("apps/v1", "Deployment", "web", "shop")
        return None if web is None else int(web["spec"]["replicas"])


def test_a_silent_cluster_fails_over_and_recovers(
    git_repo: Any, bare_remote: Path, make_sim_cluster: SimFactory, cli: Any
) -> None:
    sims = {name: make_sim_cluster(name) for name in (*PUSH, PULL)}
    kubeconfigs = sims["m1"].kubeconfig.parent
    git_repo.commit({"fleet.yaml": _source(), "gitfleet.yaml": SETTINGS}, "fleet")
    git_repo.git("push", "-q", "origin", "main")
    fleet = Fleet(bare_remote, kubeconfigs, sims)
    try:
        assert fleet.render() is reconciler.Outcome.RENDERED
        fleet.agents()
        assert fleet.replicas() == {"m1": 1, "m2": 1, "m3": 1}
        assert [fleet.running(n) for n in (*PUSH, PULL)] == [1, 1, 1]
        first, files, _ = fleet.tip()
        old_work = files[f"works/{PULL}/{WEB}"]

        fleet.clock.advance(45)
        fleet.agents(pull_agent=False)
        fleet.render()
        noticed, _, message = fleet.tip()
        assert noticed != first
        assert message.startswith(f"failover: {PULL} unreachable since ")
        assert fleet.replicas() == {"m1": 1, "m2": 1, "m3": 1}, "the toleration runs"
        assert fleet.render() is reconciler.Outcome.IDLE, "nothing new to say"

        fleet.clock.advance(30)
        fleet.agents(pull_agent=False)
        fleet.render()
        _, files, message = fleet.tip()
        assert "Deployment shop/web moved 1 replicas from m3 to " in message
        assert sorted(fleet.replicas().items()) in (
            [("m1", 2), ("m2", 1), ("m3", 1)],
            [("m1", 1), ("m2", 2), ("m3", 1)],
        ), "the old Work stays"
        assert files[f"works/{PULL}/{WEB}"] == old_work

        fleet.agents(pull_agent=False)
        fleet.render()
        _, files, message = fleet.tip()
        assert "Deployment shop/web removed from m3 (replacement healthy)" in message
        assert f"works/{PULL}/{WEB}" not in files
        moved = fleet.replicas()
        assert sum(moved.values()) == 3 and PULL not in moved
        assert sum(fleet.running(n) or 0 for n in PUSH) == 3

        fleet.clock.advance(5)
        fleet.agents()
        fleet.render()
        _, _, message = fleet.tip()
        assert message.startswith(f"failover: {PULL} Ready again")
        assert fleet.replicas() == moved, "nothing moves back"
        fleet.agents()
        assert fleet.running(PULL) is None, "the returning cluster dropped the old copy"
        done = cli("status", "--repo", str(bare_remote), "-o", "json", "--grace", "1e9")
        view = json.loads(done.output)
        assert [(c["name"], c["synced"]) for c in view["clusters"]] == [
            ("m1", True),
            ("m2", True),
            ("m3", True),
        ]
    finally:
        fleet.close()
