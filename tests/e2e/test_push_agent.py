"""The push agent end to end: real Git repositories, simulated member clusters, the command line.

Aspects covered:
- a rendered commit reaches every Push cluster with its own replicas and overrides, through
  `gitfleet agent push --once` (exit 0); a Pull cluster is left to its own agent; a Cluster's
  secretRef names its kubeconfig; each Push cluster gets its status ref;
- changes and deletions in the next rendered commit propagate;
- a change made by hand is repaired by the next sync and reported as drift;
- the prune guard holds (exit 1, nothing deleted, the refusal in the status) until the source
  commit allows it with the trailer `Gitfleet-Allow-Prune: all`;
- a cluster that is down does not keep the others from converging, and is reported not Ready;
- status refs stay one commit long, and a sync that changes nothing writes no status commit;
- running, the agent applies each new rendered commit, and stops cleanly when asked;
- a remote repository (URL) is fetched into a cache and the status refs are pushed back;
- SIGTERM ends a running agent with exit 0;
- no rendered branch yet, or no repository at all, is exit 1 with the reason.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import workfiles
import yaml
from builders import make_configmap, make_deployment, make_object
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture  # noqa: F401

from gitfleet import sim
from gitfleet.agent import kube, push, worker
from gitfleet.gitstore import status

GitRepo = Any
"""The `git_repo` fixture's repository (tests/conftest.py): `.path`, `.commit()`, `.git()`."""
Invoke = Callable[..., Any]
"""The `cli` fixture: runs `gitfleet ARGS...` in-process, returns click's Result."""

CLUSTERS = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Push}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m2}
spec:
  syncMode: Push
  secretRef: {namespace: karmada-cluster, name: m2-credentials}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m3}
spec: {syncMode: Pull}
"""
NAMESPACE = make_object("v1", "Namespace", "shop")
WAIT = 20.0


def _app(replicas: int, region: str, configs: int = 3) -> list[dict[str, Any]]:
    web = make_deployment(replicas=replicas, labels={"region": region})
    return [NAMESPACE, web, *(make_configmap(f"c{i}") for i in range(configs))]


@dataclasses.dataclass
class Fleet:
    repo: GitRepo
    kubeconfigs: Path
    members: dict[str, RunningSim]
    source: str

    def render(self, m1: list[dict[str, Any]], m2: list[dict[str, Any]]) -> str:
        """A rendered commit of the current source with these Work directories."""
        clusters = {"m1": m1, "m2": m2, "m3": [make_configmap("pulled")]}
        return workfiles.publish(self.repo.path, clusters, source_commit=self.source)

    def agent(self, **settings: Any) -> push.PushAgent:
        settings.setdefault("retry", kube.NO_WAIT)
        settings.setdefault("backoff", worker.Backoff(base=0.05, cap=0.2))
        return push.PushAgent(
            push.Settings(repo=str(self.repo.path), kubeconfig_dir=self.kubeconfigs, **settings)
        )

    def works(self, cluster: str) -> dict[str, Any]:
        return self._file(cluster, "works.yaml")

    def summary(self, cluster: str) -> dict[str, Any]:
        return self._file(cluster, "cluster.yaml")

    def _file(self, cluster: str, name: str) -> dict[str, Any]:
        text = self.repo.git("show", f"{status.status_ref(cluster)}:{name}")
        found: dict[str, Any] = yaml.safe_load(text)
        return found

    def live(self, cluster: str, kind: str, name: str) -> dict[str, Any] | None:
        api_version = "apps/v1" if kind == "Deployment" else "v1"
        return self.members[cluster].objects.get(api_version, kind, name, "shop")


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, make_sim_cluster: SimFactory, tmp_path: Path) -> Fleet:
    source = git_repo.commit({"clusters.yaml": CLUSTERS}, "clusters")
    members = {name: make_sim_cluster(name) for name in ("m1", "m2")}
    directory = tmp_path / "kubeconfigs"  # where make_sim_cluster writes <name>.yaml
    secret = directory / "karmada-cluster" / "m2-credentials.yaml"
    secret.parent.mkdir(parents=True)
    (directory / "m2.yaml").rename(secret)
    return Fleet(git_repo, directory, members, source)


def _push_once(cli: Invoke, fleet: Fleet, *extra: str) -> Any:
    return cli(
        "agent", "push", "--repo", str(fleet.repo.path),
        "--kubeconfig-dir", str(fleet.kubeconfigs), "--once", *extra,
    )  # fmt: skip


def _status_commits(fleet: Fleet, cluster: str) -> int:
    return int(fleet.repo.git("rev-list", "--count", status.status_ref(cluster)))


def _until(check: Callable[[], bool], what: str) -> None:
    """Wait (bounded) for something another thread or process does."""
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def test_a_rendered_commit_reaches_every_push_cluster(cli: Invoke, fleet: Fleet) -> None:
    rendered = fleet.render(_app(2, "us"), _app(5, "eu"))
    done = _push_once(cli, fleet, "-o", "json")
    assert done.exit_code == 0, done.output
    rows = yaml.safe_load(done.output)["clusters"]
    assert [(r["cluster"], r["converged"], r["applied"]) for r in rows] == [
        ("m1", True, 5),
        ("m2", True, 5),
    ]
    for name, replicas, region in (("m1", 2, "us"), ("m2", 5, "eu")):
        web = fleet.live(name, "Deployment", "web")
        assert web is not None
        assert web["spec"]["replicas"] == replicas
        assert web["metadata"]["labels"]["region"] == region
        works = fleet.works(name)
        assert works["renderedCommit"] == rendered
        assert works["converged"] is True
        assert {m["name"]: m["health"] for m in works["manifests"]}["web"] == "Healthy"
        assert fleet.summary(name)["status"]["conditions"][0]["status"] == "True"
    assert "m3" not in fleet.repo.git("for-each-ref", "--format=%(refname)", status.STATUS_REFS)


def test_changes_and_deletions_propagate(cli: Invoke, fleet: Fleet) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    assert _push_once(cli, fleet).exit_code == 0
    fleet.render(_app(3, "us", configs=2), _app(5, "eu-west", configs=2))
    done = _push_once(cli, fleet)
    assert done.exit_code == 0, done.output
    assert "1 pruned" in done.output
    m1_web, m2_web = fleet.live("m1", "Deployment", "web"), fleet.live("m2", "Deployment", "web")
    assert m1_web is not None and m1_web["spec"]["replicas"] == 3
    assert m2_web is not None and m2_web["metadata"]["labels"]["region"] == "eu-west"
    assert fleet.live("m1", "ConfigMap", "c2") is None
    assert fleet.live("m2", "ConfigMap", "c2") is None
    assert fleet.live("m1", "ConfigMap", "c1") is not None


def test_a_change_by_hand_is_repaired(cli: Invoke, fleet: Fleet) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    assert _push_once(cli, fleet).exit_code == 0
    web = fleet.live("m1", "Deployment", "web")
    assert web is not None
    web["spec"]["replicas"] = 8
    fleet.members["m1"].objects.put(web)
    done = _push_once(cli, fleet)
    assert done.exit_code == 0
    assert "m1: converged, 5 applied, 0 failed, 0 pruned, 1 drifted" in done.output
    repaired = fleet.live("m1", "Deployment", "web")
    assert repaired is not None and repaired["spec"]["replicas"] == 2
    drifted = {m["name"]: m.get("drifted") for m in fleet.works("m1")["manifests"]}
    assert drifted["web"] == ["spec.replicas"]


def test_the_prune_guard_holds_until_allowed(cli: Invoke, fleet: Fleet) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    assert _push_once(cli, fleet).exit_code == 0
    fleet.render([NAMESPACE], _app(5, "eu"))
    refused = _push_once(cli, fleet)
    assert refused.exit_code == 1
    assert "refusing to delete 4 of the 5 objects" in refused.output
    assert fleet.live("m1", "Deployment", "web") is not None
    assert "refusing to delete" in fleet.works("m1")["error"]
    assert fleet.works("m2")["converged"] is True
    fleet.source = fleet.repo.commit({}, "retire the app on m1\n\nGitfleet-Allow-Prune: m1")
    fleet.render([NAMESPACE], _app(5, "eu"))
    allowed = _push_once(cli, fleet)
    assert allowed.exit_code == 0, allowed.output
    assert fleet.live("m1", "Deployment", "web") is None
    assert fleet.live("m1", "ConfigMap", "c0") is None


def test_a_cluster_that_is_down_does_not_block_the_others(fleet: Fleet) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    fleet.members["m2"].cluster.set_fault(sim.Fault.UNREACHABLE)
    agent = fleet.agent()
    results = agent.once()
    assert results is not None
    assert results["m1"].converged
    assert not results["m2"].converged
    assert "cannot reach cluster m2" in results["m2"].error
    assert fleet.live("m1", "Deployment", "web") is not None
    condition = fleet.summary("m2")["status"]["conditions"][0]
    assert (condition["status"], condition["reason"]) == ("False", "ClusterNotReachable")
    assert fleet.works("m2")["converged"] is False


def test_status_refs_stay_one_commit_long(cli: Invoke, fleet: Fleet) -> None:
    for replicas in (1, 2, 3):
        fleet.render(_app(replicas, "us"), _app(5, "eu"))
        assert _push_once(cli, fleet).exit_code == 0
    assert _status_commits(fleet, "m1") == 1
    before = fleet.repo.git("rev-parse", status.status_ref("m1"))
    assert _push_once(cli, fleet).exit_code == 0
    assert fleet.repo.git("rev-parse", status.status_ref("m1")) == before


@pytest.fixture(name="running")
def running_fixture(fleet: Fleet) -> Iterator[tuple[push.PushAgent, threading.Thread]]:
    agent = fleet.agent(interval=0.2)
    thread = threading.Thread(target=agent.run)
    thread.start()
    yield agent, thread
    agent.stop()
    thread.join()


def test_a_running_agent_applies_each_new_rendered_commit(
    fleet: Fleet, running: tuple[push.PushAgent, threading.Thread]
) -> None:
    agent, thread = running
    fleet.render(_app(2, "us"), _app(5, "eu"))

    def replicas(cluster: str) -> int | None:
        web = fleet.live(cluster, "Deployment", "web")
        return None if web is None else int(web["spec"]["replicas"])

    _until(lambda: replicas("m1") == 2 and replicas("m2") == 5, "the first rendered commit")
    second = fleet.render(_app(4, "us"), _app(5, "eu"))
    _until(lambda: replicas("m1") == 4, "the second rendered commit")
    _until(lambda: fleet.works("m1")["renderedCommit"] == second, "m1's status of it")
    agent.stop()
    thread.join(WAIT)
    assert not thread.is_alive()


def test_a_remote_repository(fleet: Fleet, bare_remote: Path, tmp_path: Path) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    fleet.repo.git("push", "-q", "origin", "main", "gitfleet/rendered")
    agent = push.PushAgent(
        push.Settings(
            repo=f"file://{bare_remote}",
            kubeconfig_dir=fleet.kubeconfigs,
            cache_dir=tmp_path / "cache",
            retry=kube.NO_WAIT,
        )
    )
    results = agent.once()
    assert results is not None and all(r.converged for r in results.values())
    pushed = fleet.repo.git("ls-remote", "origin", f"{status.STATUS_REFS}*")
    assert sorted(line.split()[1] for line in pushed.splitlines()) == [
        status.status_ref("m1"),
        status.status_ref("m2"),
    ]


def test_sigterm_ends_a_running_agent_cleanly(fleet: Fleet) -> None:
    fleet.render(_app(2, "us"), _app(5, "eu"))
    env = {**os.environ, "PYTHONPATH": str(Path(push.__file__).parents[2])}
    process = subprocess.Popen(
        [
            sys.executable, "-m", "gitfleet", "agent", "push", "--repo", str(fleet.repo.path),
            "--kubeconfig-dir", str(fleet.kubeconfigs), "--interval", "0.2",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        _until(
            lambda: "m2" in fleet.repo.git("for-each-ref", status.STATUS_REFS),
            "the agent's first reports",
        )
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


def test_nothing_to_apply_or_no_repository(cli: Invoke, fleet: Fleet, tmp_path: Path) -> None:
    missing = _push_once(cli, fleet)
    assert missing.exit_code == 1
    assert "gitfleet/rendered does not exist" in missing.output
    plain = tmp_path / "plain"
    plain.mkdir()
    args = ("agent", "push", "--repo", str(plain), "--kubeconfig-dir", str(fleet.kubeconfigs))
    refused = cli(*args, "--once")
    assert refused.exit_code == 1
    assert "not a Git repository" in refused.output
