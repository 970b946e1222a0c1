"""Replicas estimated by resource models from what the push agent reports, end to end: a real
Git repository, two simulated member clusters, `gitfleet render`, `gitfleet agent push
--once` and `gitfleet explain`, as a user types them.

m1 has three nodes of 4 CPUs and 16Gi, one of them running a pod of 1 CPU and 1Gi; m2 has one
node of 8 CPUs and 64Gi. Neither Cluster writes resource models, so Karmada's nine default
grades apply: m1's idle nodes are in grade 2 (2 CPUs, 16Gi: room for 2 replicas of 1 CPU and
1Gi each), its busy one in grade 1 (1 CPU, 4Gi: 1 replica), 5 in all where its summary holds
11; m2's node is in grade 4 (8 CPUs, 64Gi: 8 replicas).

Aspects covered:
- the agent reports what each node has available beside its status (`nodeAvailable`): the
  busy node less its pod's requests, the two idle ones as one entry;
- a Deployment of 13 such replicas divided by available replicas goes 5 to m1 and 8 to m2,
  as Karmada's general estimator counts them from `allocatableModelings`, and `explain`
  (before the render that places it) shows those estimates and the grades they come from;
- a report without `nodeAvailable` (an earlier agent's) is estimated from its summary, as
  before: the next such Deployment goes 8 to m1 and 5 to m2.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from builders import DYNAMIC_WEIGHT, make_cluster, make_deployment, make_policy, selector
from simfixture import SimFactory, make_sim_cluster_fixture

from gitfleet.gitstore import repository, status

__all__ = ["make_sim_cluster_fixture"]

GitRepo = Any
Invoke = Any


def _deployment(name: str, replicas: int, namespace: str = "shop") -> dict[str, Any]:
    """A Deployment of replicas of 1 CPU and 1Gi."""
    deployment = make_deployment(name, namespace, replicas, cpu="1")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["requests"]["memory"] = "1Gi"
    return deployment


def _workload(name: str) -> str:
    """A Deployment of 13 replicas divided over m1 and m2 by available replicas."""
    deployment = _deployment(name, 13)
    placement = {"clusterAffinity": {"clusterNames": ["m1", "m2"]}, **DYNAMIC_WEIGHT}
    policy = make_policy(name, selector(name=name), placement=placement)
    return yaml.safe_dump_all([deployment, policy])


def _scheduled(repo: GitRepo, name: str) -> dict[str, int]:
    text = repo.git("show", f"gitfleet/rendered:bindings/shop/Deployment.apps/{name}.yaml")
    return {t["name"]: t["replicas"] for t in yaml.safe_load(text)["spec"]["clusters"]}


def _without_nodes(repo: GitRepo, cluster: str) -> None:
    """Replace `cluster`'s report with the same one without `nodeAvailable`."""
    opened = repository.open_repository(repo.path)
    assert opened is not None
    found = status.read_status(opened, cluster)
    assert found is not None
    doc = yaml.safe_load(found.files[status.CLUSTER_FILE])
    del doc[status.NODE_AVAILABLE]
    files = {**found.files, status.CLUSTER_FILE: yaml.safe_dump(doc).encode()}
    status.write_status(
        opened,
        cluster,
        files,
        expected=found.commit,
        rendered_commit=found.rendered_commit or "",
    )


def test_agents_nodes_are_graded_by_resource_models(
    git_repo: GitRepo,
    make_sim_cluster: SimFactory,
    cli: Invoke,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    m1 = make_sim_cluster("m1")
    make_sim_cluster("m2", nodes=1, node_allocatable={"cpu": "8", "memory": "64Gi", "pods": "110"})
    m1.objects.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "batch"}})
    m1.objects.put(_deployment("batch", 1, namespace="batch"))
    m1.cluster.settle()
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    docs = [make_cluster("m1"), make_cluster("m2"), namespace]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)}, "clusters")
    monkeypatch.chdir(git_repo.path)
    agent = ("agent", "push", "--repo", ".", "--kubeconfig-dir", "../kubeconfigs")
    assert cli("render", "--repo", ".").exit_code == 0
    assert cli(*agent, "--once").exit_code == 0
    report = yaml.safe_load(git_repo.git("show", f"{status.status_ref('m1')}:cluster.yaml"))
    idle = {"cpu": "4", "ephemeral-storage": "100Gi", "memory": "16Gi", "pods": "110"}
    busy = {**idle, "cpu": "3", "memory": "15Gi", "pods": "109"}
    assert report[status.NODE_AVAILABLE] == [
        {"count": 1, "resources": busy},
        {"count": 2, "resources": idle},
    ]

    git_repo.commit({"web.yaml": _workload("web")}, "web")
    explained = cli("explain", "Deployment/web", "-n", "shop", "--repo", ".", "-o", "json")
    assert explained.exit_code == 0, explained.output
    (schedule,) = json.loads(explained.output)["schedules"]
    candidates = [c for attempt in schedule["attempts"] for c in attempt["candidates"]]
    assert {c["name"]: c["available"] for c in candidates} == {"m1": 5, "m2": 8}
    explained = cli("explain", "Deployment/web", "-n", "shop", "--repo", ".")
    assert [line for line in explained.output.splitlines() if line.startswith("capacity:")] == [
        "capacity: m1 fits 5 of 13 replicas by its resource models: 1 node in grade 1,"
        " 2 nodes in grade 2",
        "capacity: m2 fits 8 of 13 replicas by its resource models: 1 node in grade 4",
    ]
    assert cli("render", "--repo", ".").exit_code == 0
    assert _scheduled(git_repo, "web") == {"m1": 5, "m2": 8}

    _without_nodes(git_repo, "m1")
    git_repo.commit({"api.yaml": _workload("api")}, "api")
    explained = cli("explain", "Deployment/api", "-n", "shop", "--repo", ".", "-o", "json")
    limits = {c["cluster"]: c["models"] for c in json.loads(explained.output)["capacity"]}
    assert limits == {"m1": None, "m2": [{"grade": 4, "count": 1}]}
    assert cli("render", "--repo", ".").exit_code == 0
    assert _scheduled(git_repo, "api") == {"m1": 8, "m2": 5}
    assert _scheduled(git_repo, "web") == {"m1": 5, "m2": 8}
