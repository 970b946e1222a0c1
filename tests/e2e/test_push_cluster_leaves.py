"""A Push cluster that leaves the fleet (its Cluster deleted from the source), end to end: a real
source repository, `gitfleet render`, simulated member clusters, `gitfleet agent push --once`
and `gitfleet status`, all through the command line, and a push agent running on a thread.

Aspects covered:
- deleted in a commit with `Gitfleet-Allow-Prune: all`, its render gives the cluster's ref one
  commit with no files: the push agent applies it (its kubeconfig found through the secretRef
  of the Cluster it had), so everything gitfleet made there is deleted, and the status ref
  says it converged on that commit; `gitfleet status` shows it synced and `left`, with nothing
  to fix; the next `--once` leaves it alone (not one request to it);
- deleted without the trailer: the prune guard refuses (exit 1, nothing deleted, the refusal
  reported), and `gitfleet status` says it left and is not pruned yet;
- of clusters leaving together, a Pull cluster is left to its pull agent, even with a
  kubeconfig in the folder, and a Push cluster without a kubeconfig there is left as it is;
- a running agent prunes a cluster that left, then stops serving it while it goes on serving
  the others.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_configmap, make_object, make_policy, selector
from service.service_helpers import BOUND, wait_for
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.agent import kube, push, worker
from gitfleet.gitstore import status

__all__ = ["make_sim_cluster_fixture"]

Invoke = Callable[..., Any]
"""The `cli` fixture: runs `gitfleet ARGS...` in-process, returns click's Result."""
CLUSTERS = ("m1", "m2", "m3", "m4")
RETIRE = "Gitfleet-Allow-Prune: all"
FRESH = ("--grace", "1e9")


def _cluster_file(name: str) -> str:
    """m1 is reached through its secretRef, m3 is a Pull cluster."""
    member = make_cluster(name)
    if name == "m1":
        member["spec"]["secretRef"] = {"namespace": "karmada-cluster", "name": "m1-credentials"}
    if name == "m3":
        member["spec"]["syncMode"] = "Pull"
    return yaml.safe_dump(member)


def _app() -> str:
    """Namespace shop (sent everywhere) and ConfigMap shop/settings on every cluster."""
    placement = {"clusterAffinity": {"clusterNames": list(CLUSTERS)}}
    docs = [
        make_object("v1", "Namespace", "shop"),
        make_configmap(),
        make_policy("settings", selector("ConfigMap", "v1"), placement=placement),
    ]
    return yaml.safe_dump_all(docs)


class Fleet:
    """The source repository, the member clusters, their kubeconfig folder and the commands."""

    def __init__(self, repo: Any, cli: Invoke, members: dict[str, RunningSim], kubeconfigs: Path):
        self.repo = repo
        self.cli = cli
        self.members = members
        self.kubeconfigs = kubeconfigs

    def render(self) -> None:
        done = self.cli("render", "--repo", str(self.repo.path))
        assert done.exit_code == 0, done.output

    def retire(self, *names: str, trailer: str = RETIRE) -> str:
        """Delete the Clusters `names` in a commit, render it; the first one's ref's new
        commit."""
        message = f"retire {', '.join(names)}\n\n{trailer}".strip()
        self.repo.commit({f"clusters/{name}.yaml": None for name in names}, message)
        self.render()
        return str(self.repo.git("rev-parse", f"gitfleet/works/{names[0]}"))

    def push_once(self) -> Any:
        return self.cli(
            "agent", "push", "--repo", str(self.repo.path),
            "--kubeconfig-dir", str(self.kubeconfigs), "--once", "-o", "json",
        )  # fmt: skip

    def pull_once(self, name: str) -> Any:
        return self.cli(
            "agent", "pull", "--repo", str(self.repo.path), "--cluster", name,
            "--kubeconfig", str(self.kubeconfigs / f"{name}.yaml"),
            "--cache-dir", str(self.repo.path.parent / "cache"), "--once",
        )  # fmt: skip

    def synced(self) -> dict[str, int]:
        """`push --once` (which must converge): the clusters it synced, with what it pruned."""
        done = self.push_once()
        assert done.exit_code == 0, done.output
        return {row["cluster"]: row["pruned"] for row in json.loads(done.output)["clusters"]}

    def settings(self, name: str) -> Any:
        return self.members[name].objects.get("v1", "ConfigMap", "settings", "shop")

    def works(self, name: str) -> dict[str, Any]:
        text = self.repo.git("show", f"{status.status_ref(name)}:works.yaml")
        found: dict[str, Any] = yaml.safe_load(text)
        return found

    def status(self) -> tuple[dict[str, dict[str, Any]], str]:
        """`gitfleet status`: its rows by cluster (-o json), and its text."""
        shown = self.cli("status", "--repo", str(self.repo.path), *FRESH)
        done = self.cli("status", "--repo", str(self.repo.path), "-o", "json", *FRESH)
        assert shown.exit_code == 0 and done.exit_code == 0, done.output
        return {c["name"]: c for c in json.loads(done.output)["clusters"]}, shown.output


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: Any, cli: Invoke, make_sim_cluster: SimFactory) -> Fleet:
    """Every cluster running what the source places there (m3 through its pull agent)."""
    members = {name: make_sim_cluster(name) for name in CLUSTERS}
    kubeconfigs = members["m1"].kubeconfig.parent
    secret = kubeconfigs / "karmada-cluster" / "m1-credentials.yaml"
    secret.parent.mkdir()
    members["m1"].kubeconfig.rename(secret)
    files = {f"clusters/{name}.yaml": _cluster_file(name) for name in CLUSTERS}
    git_repo.commit({**files, "apps/settings.yaml": _app()}, "fleet")
    fleet = Fleet(git_repo, cli, members, kubeconfigs)
    fleet.render()
    assert list(fleet.synced()) == ["m1", "m2", "m4"]
    assert fleet.pull_once("m3").exit_code == 0
    assert all(fleet.settings(name) is not None for name in CLUSTERS)
    return fleet


def test_a_push_cluster_that_left_is_pruned_once(fleet: Fleet) -> None:
    leaving = fleet.retire("m1")
    assert fleet.synced() == {"m1": 2, "m2": 0, "m4": 0}  # m1: the Namespace and ConfigMap
    assert fleet.settings("m1") is None
    assert fleet.settings("m2") is not None
    works = fleet.works("m1")
    assert (works["renderedCommit"], works["converged"], works["manifests"]) == (leaving, True, [])
    rows, shown = fleet.status()
    assert (rows["m1"]["left"], rows["m1"]["synced"], rows["m1"]["mode"]) == (True, True, "")
    assert "left" not in rows["m2"]
    assert "yes (left)" in shown and "not pruned" not in shown
    fleet.members["m1"].cluster.reset_requests()
    assert fleet.synced() == {"m2": 0, "m4": 0}
    assert fleet.members["m1"].cluster.requests.by_verb == {}


def test_the_prune_guard_holds_for_a_cluster_that_left(fleet: Fleet) -> None:
    fleet.retire("m1", trailer="")
    refused = fleet.push_once()
    assert refused.exit_code == 1
    (row,) = [r for r in json.loads(refused.output)["clusters"] if r["cluster"] == "m1"]
    assert "refusing to delete all 2 objects" in row["error"]
    assert fleet.settings("m1") is not None
    assert "refusing to delete" in fleet.works("m1")["error"]
    rows, shown = fleet.status()
    assert (rows["m1"]["left"], rows["m1"]["synced"]) == (True, False)
    assert "m1: left the fleet (no Cluster in the source), not pruned yet" in shown
    assert "no (left)" in shown


def test_only_push_clusters_with_a_kubeconfig_are_pruned(fleet: Fleet) -> None:
    """Three leave at once: m1 is pruned; m2, whose kubeconfig is gone, and m3, a Pull
    cluster whose kubeconfig is in the folder, keep what runs there."""
    (fleet.kubeconfigs / "m2.yaml").unlink()
    reported = fleet.works("m3")
    fleet.retire("m1", "m2", "m3")
    assert fleet.synced() == {"m1": 2, "m4": 0}
    assert fleet.settings("m1") is None
    assert fleet.settings("m2") is not None and fleet.settings("m3") is not None
    assert fleet.works("m3") == reported


@pytest.fixture(name="running")
def running_fixture(fleet: Fleet) -> Iterator[push.PushAgent]:
    agent = push.PushAgent(
        push.Settings(
            repo=str(fleet.repo.path),
            kubeconfig_dir=fleet.kubeconfigs,
            interval=0.1,
            retry=kube.NO_WAIT,
            backoff=worker.Backoff(base=0.05, cap=0.2),
            watch=False,
        )
    )
    thread = threading.Thread(target=agent.run)
    thread.start()
    yield agent
    agent.stop()
    thread.join(BOUND)


def test_a_running_agent_stops_serving_a_cluster_once_it_is_pruned(
    fleet: Fleet, running: push.PushAgent
) -> None:
    serving = wait_for(lambda: running.workers.get("m1"), "the agent's first look")
    fleet.retire("m1")
    wait_for(lambda: fleet.settings("m1") is None, "m1 pruned")
    wait_for(lambda: "m1" not in running.workers, "the agent to leave m1 alone")
    wait_for(lambda: not serving.thread.is_alive(), "m1's worker to end its last request")
    m1, m2 = fleet.members["m1"].cluster, fleet.members["m2"].cluster
    m1.reset_requests()
    m2.reset_requests()
    time.sleep(1.0)  # ten intervals
    assert m1.requests.by_verb == {}
    assert m2.requests.reads > 0
