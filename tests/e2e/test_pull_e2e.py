"""Pull and push agents end to end: a source repository pushed to a bare remote, `gitfleet
render`, the push agent for the Push clusters, pull agents for the Pull clusters (one on its own
ref, one on the shared rendered branch, fetched sparsely), simulated member clusters, and
`gitfleet status` reading the remote. All through the command line.

Aspects covered:
- a commit reaches every cluster, each with its share of the replicas; every agent reports to
  its own status ref and nothing else moves on the remote;
- the status reaches `gitfleet status`: every cluster ready and synced, each naming the rendered
  commit it applied (a pull agent on its own ref too), the resource's replicas ready out of
  desired, healthy and fully applied;
- a commit that scales the workload reaches every cluster and the status follows;
- a pull agent whose remote is down exits 1 and keeps what runs; back up, it converges;
- a repository per cluster: the render's cluster refs are copied there, each pull agent reads
  and reports only there, the cluster's repository holds nothing of the others, and
  `gitfleet status --cluster-repos` brings the reports back.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import clusterrepos, repository, status

__all__ = ["make_sim_cluster_fixture"]

PUSH, PULL = ("p1", "p2"), ("q1", "q2")
FRESH = ("--grace", "1e9")


def _source(replicas: int) -> str:
    clusters = [make_cluster(name) for name in (*PUSH, *PULL)]
    for member in clusters[len(PUSH) :]:
        member["spec"]["syncMode"] = "Pull"
    placement = {
        "clusterAffinity": {"clusterNames": [*PUSH, *PULL]},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [*PUSH, *PULL]}, "weight": 1}
                ]
            },
        },
    }
    docs = [
        *clusters,
        make_object("v1", "Namespace", "shop"),
        make_deployment(replicas=replicas),
        make_policy("web", placement=placement),
    ]
    return yaml.safe_dump_all(docs)


class Fleet:
    """The source checkout, its bare remote, the member clusters, and the commands."""

    def __init__(self, git_repo: Any, remote: Path, cli: Any, members: dict[str, RunningSim]):
        self.repo = git_repo
        self.remote = remote
        self.cli = cli
        self.members = members
        self.kubeconfigs = next(iter(members.values())).kubeconfig.parent
        self.cache = remote.parent / "cache"

    @property
    def url(self) -> str:
        return f"file://{self.remote}"

    def commit_and_render(self, replicas: int) -> None:
        self.repo.commit({"fleet.yaml": _source(replicas)}, f"web: {replicas} replicas")
        done = self.cli("render", "--repo", str(self.repo.path))
        assert done.exit_code == 0, done.output
        self.repo.git(
            "push", "-q", "origin", "main", "+refs/heads/gitfleet/*:refs/heads/gitfleet/*"
        )

    def push_agent(self) -> Any:
        return self.cli(
            "agent", "push", "--repo", self.url, "--kubeconfig-dir", str(self.kubeconfigs),
            "--cache-dir", str(self.cache / "push"), "--once",
        )  # fmt: skip

    def pull_agent(self, cluster: str, *extra: str, repo: str | None = None) -> Any:
        return self.cli(
            "agent", "pull", "--repo", repo or self.url, "--cluster", cluster,
            "--kubeconfig", str(self.kubeconfigs / f"{cluster}.yaml"),
            "--cache-dir", str(self.cache / cluster), "--once", *extra,
        )  # fmt: skip

    def all_agents(self) -> None:
        for done in (self.push_agent(), self.pull_agent("q1"), self._shared("q2")):
            assert done.exit_code == 0, done.output

    def _shared(self, cluster: str) -> Any:
        return self.pull_agent(cluster, "--ref", "gitfleet/rendered")

    def status(self, *extra: str) -> dict[str, Any]:
        done = self.cli("status", "--repo", str(self.remote), "-o", "json", *FRESH, *extra)
        assert done.exit_code == 0, done.output
        found: dict[str, Any] = json.loads(done.output)
        return found

    def replicas(self, cluster: str) -> int | None:
        web = self.members[cluster].objects.get("apps/v1", "Deployment", "web", "shop")
        return None if web is None else int(web["spec"]["replicas"])

    def remote_refs(self) -> list[str]:
        listing: str = self.repo.git("ls-remote", "--refs", "origin")
        return listing.split()[1::2]


@pytest.fixture(name="fleet")
def fleet_fixture(
    git_repo: Any, bare_remote: Path, cli: Any, make_sim_cluster: SimFactory
) -> Fleet:
    git_repo.git("-C", str(bare_remote), "config", "uploadpack.allowFilter", "true")
    members = {name: make_sim_cluster(name) for name in (*PUSH, *PULL)}
    return Fleet(git_repo, bare_remote, cli, members)


def _settle(fleet: Fleet) -> None:
    """Agents again: the second round reports what the first one started."""
    for member in fleet.members.values():
        member.cluster.settle()
    fleet.all_agents()


def test_a_commit_reaches_every_cluster_and_the_status_comes_back(fleet: Fleet) -> None:
    fleet.commit_and_render(8)
    fleet.all_agents()
    assert {name: fleet.replicas(name) for name in fleet.members} == dict.fromkeys(fleet.members, 2)
    statuses = sorted(r for r in fleet.remote_refs() if r.startswith(status.STATUS_REFS))
    assert statuses == [status.status_ref(n) for n in sorted(fleet.members)]
    _settle(fleet)
    view = fleet.status()
    rows = {c["name"]: c for c in view["clusters"]}
    assert {n: (r["ready"], r["synced"], r["mode"]) for n, r in rows.items()} == {
        "p1": ("True", True, "Push"),
        "p2": ("True", True, "Push"),
        "q1": ("True", True, "Pull"),
        "q2": ("True", True, "Pull"),
    }
    tip = fleet.repo.git("rev-parse", "gitfleet/rendered")
    assert {n: r["renderedCommit"] for n, r in rows.items()} == dict.fromkeys(rows, tip)
    assert rows["q1"]["reportedCommit"] == fleet.repo.git("rev-parse", "gitfleet/works/q1")
    assert rows["q2"]["reportedCommit"] == tip
    (web,) = view["resources"]
    assert web["replicas"] == {"desired": 8, "ready": 8}
    assert (web["health"], web["fullyApplied"]) == ("Healthy", True)

    fleet.commit_and_render(12)
    fleet.all_agents()
    assert {name: fleet.replicas(name) for name in fleet.members} == dict.fromkeys(fleet.members, 3)
    _settle(fleet)
    (web,) = fleet.status()["resources"]
    assert web["replicas"] == {"desired": 12, "ready": 12}


def test_a_pull_agent_outlives_its_remote(fleet: Fleet) -> None:
    fleet.commit_and_render(8)
    assert fleet.pull_agent("q1").exit_code == 0
    away = fleet.remote.with_name("away.git")
    fleet.remote.rename(away)
    down = fleet.pull_agent("q1")
    assert down.exit_code == 1
    assert "cannot reach the repository" in down.output
    assert fleet.replicas("q1") == 2
    away.rename(fleet.remote)
    assert fleet.pull_agent("q1").exit_code == 0


def test_a_repository_per_cluster(fleet: Fleet, tmp_path: Path) -> None:
    fleet.commit_and_render(8)
    template = f"file://{tmp_path}/fleet-{{cluster}}.git"
    for name in PULL:
        fleet.repo.git("init", "-q", "--bare", str(tmp_path / f"fleet-{name}.git"))
    main = repository.open_repository(fleet.repo.path)
    assert main is not None
    try:
        copied = clusterrepos.push_works(main, template, PULL)
    finally:
        main.close()
    assert [(o.cluster, o.copy) for o in copied] == [
        ("q1", clusterrepos.Copy.PUSHED),
        ("q2", clusterrepos.Copy.PUSHED),
    ]
    for name in PULL:
        done = fleet.pull_agent(name, repo=template)
        assert done.exit_code == 0, done.output
        assert fleet.replicas(name) == 2
    own = tmp_path / "fleet-q1.git"
    refs = fleet.repo.git("-C", str(own), "for-each-ref", "--format=%(refname)").split()
    assert refs == ["refs/heads/gitfleet/status/q1", "refs/heads/gitfleet/works/q1"]
    theirs = fleet.repo.git("rev-parse", "gitfleet/works/q2:works/q2")
    missing = subprocess.run(["git", "-C", str(own), "cat-file", "-e", theirs], check=False)
    assert missing.returncode != 0
    done = fleet.cli(
        "status", "--repo", str(fleet.repo.path), "--cluster-repos", template, "-o", "json",
        *FRESH,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    rows = {c["name"]: c for c in json.loads(done.output)["clusters"]}
    assert (rows["q1"]["reported"], rows["q1"]["synced"]) == (True, True)
    assert (rows["q2"]["reported"], rows["q2"]["synced"]) == (True, True)
