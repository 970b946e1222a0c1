"""`gitfleet explain` on Clusters written as a Karmada user writes them (name and spec only, no
status): Karmada collects what they serve and hold when they join, gitfleet waits for their
agents, and explain says so instead of leaving Karmada's bare filter message.

Aspects covered:
- inputs: clusters with neither a declared nor a reported status are named as such;
- a cluster the APIEnablement filter turned down because it serves no known API is named, with
  what to do (in the singular for one, the plural for several); a cluster that declares what it
  serves is not;
- capacity: a cluster with no capacity declared or reported says so, not "declared";
- `-o json`: `inputs.clusterStatus` says `none`, `unknownApis` lists the clusters,
  `capacity[].summary` whether any capacity is known.
"""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo, Invoke

BARE = """\
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata:
  name: {name}
spec:
  syncMode: Push
"""
SERVING = (
    BARE
    + """\
status:
  apiEnablements:
    - groupVersion: apps/v1
      resources:
        - {{name: deployments, kind: Deployment}}
"""
)
NGINX = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
spec:
  replicas: 2
  selector:
    matchLabels: {app: nginx}
  template:
    metadata:
      labels: {app: nginx}
    spec:
      containers: [{name: nginx, image: nginx}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: nginx-propagation
spec:
  resourceSelectors:
    - apiVersion: apps/v1
      kind: Deployment
      name: nginx
  placement:
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        dynamicWeight: AvailableReplicas
"""


@pytest.fixture(name="fleet")
def fleet_fixture(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    clusters = BARE.format(name="member1") + "---\n" + SERVING.format(name="member2")
    git_repo.commit({"clusters.yaml": clusters, "nginx.yaml": NGINX})
    monkeypatch.chdir(git_repo.path)
    return git_repo


def test_the_lines(fleet: GitRepo, cli: Invoke) -> None:
    done = cli("explain", "deployment/nginx")
    assert done.exit_code == 0, done.output
    lines = done.output.splitlines()
    assert lines[2] == (
        "inputs: no previous render on gitfleet/rendered; status declared in the source for "
        "member2; no status for member1 (none declared, none reported)"
    )
    assert "    member1: APIEnablement: cluster(s) did not have the API resource" in lines
    assert [line for line in lines if line.startswith(("APIs: ", "capacity: "))] == [
        "capacity: member2 fits 0 of 2 replicas: no capacity is declared in the source and its "
        "agent reported none",
        "APIs: member1 serves no API gitfleet knows of: no status.apiEnablements in the Cluster, "
        "none reported by an agent; declare the kinds the cluster serves there, or run its agent",
    ]


def test_the_line_names_several_clusters_as_several(git_repo: GitRepo, cli: Invoke) -> None:
    clusters = "---\n".join(
        [BARE.format(name="member1"), BARE.format(name="member3"), SERVING.format(name="member2")]
    )
    git_repo.commit({"clusters.yaml": clusters, "nginx.yaml": NGINX})
    done = cli("explain", "deployment/nginx", "--repo", str(git_repo.path))
    assert done.exit_code == 0, done.output
    assert [line for line in done.output.splitlines() if line.startswith("APIs: ")] == [
        "APIs: member1, member3 serve no API gitfleet knows of: no status.apiEnablements in "
        "their Clusters, none reported by an agent; declare the kinds each cluster serves "
        "there, or run their agents"
    ]


def test_json(fleet: GitRepo, cli: Invoke) -> None:
    done = cli("explain", "deployment/nginx", "-o", "json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.output)
    assert data["inputs"]["clusterStatus"] == {"member1": "none", "member2": "declared"}
    assert data["unknownApis"] == ["member1"]
    assert [(c["cluster"], c["summary"]) for c in data["capacity"]] == [("member2", False)]
