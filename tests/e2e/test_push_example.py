"""The example repository, end to end: `gitfleet init`, `gitfleet render`, one simulated
cluster per Cluster it defines, `gitfleet agent push --once`.

Aspects covered:
- every Push cluster converges (exit 0); the Pull cluster is left to its own agent;
- the placement and overrides example-repo/README.md documents are what runs: web's
  divided replicas, the gateway override on aws-use1-a, the EU compliance argument, the
  regional image registry, the GPU workload only on the GPU cluster;
- the custom resources are applied after their CRD, in the same sync, and their health comes
  from the repository's Lua customization;
- a second push changes nothing in any cluster.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from simfixture import RunningSim, SimFactory, make_sim_cluster_fixture  # noqa: F401

from gitfleet.cli import sim as sim_command
from gitfleet.gitstore import status

Invoke = Callable[..., Any]
"""The `cli` fixture: runs `gitfleet ARGS...` in-process, returns click's Result."""

PUSH_CLUSTERS = ("aws-euw1", "aws-use1-a", "aws-use1-b", "gcp-euw1-gpu")


@pytest.fixture(name="example")
def example_fixture(
    cli: Invoke, tmp_path: Path, make_sim_cluster: SimFactory
) -> tuple[Path, Path, dict[str, RunningSim]]:
    repo = tmp_path / "fleet"
    assert cli("init", str(repo)).exit_code == 0
    rendered = cli("render", "--repo", str(repo))
    assert rendered.exit_code == 0, rendered.output
    members = {
        plan.name: make_sim_cluster(plan.name, **plan.options)
        for plan in sim_command.plans_from_repo(str(repo))
    }
    return repo, tmp_path / "kubeconfigs", members


def _deployment(members: dict[str, RunningSim], cluster: str, ns: str, name: str) -> Any:
    return members[cluster].objects.get("apps/v1", "Deployment", name, ns)


def test_the_example_fleet_converges(
    cli: Invoke, example: tuple[Path, Path, dict[str, RunningSim]]
) -> None:
    repo, kubeconfigs, members = example
    args = ("agent", "push", "--repo", str(repo), "--kubeconfig-dir", str(kubeconfigs), "--once")
    done = cli(*args, "-o", "json")
    assert done.exit_code == 0, done.output
    rows = yaml.safe_load(done.output)["clusters"]
    assert [r["cluster"] for r in rows] == list(PUSH_CLUSTERS)
    assert all(r["converged"] for r in rows)
    assert members["gcp-euw1-a"].objects.get("v1", "Namespace", "shop") is None

    web = {c: _deployment(members, c, "shop", "web") for c in ("aws-use1-a", "aws-use1-b")}
    assert [w["spec"]["replicas"] for w in web.values()] == [2, 2]
    assert _deployment(members, "aws-euw1", "shop", "web")["spec"]["replicas"] == 1
    assert _deployment(members, "aws-use1-a", "platform", "gateway")["spec"]["replicas"] == 4
    assert _deployment(members, "aws-use1-b", "platform", "gateway")["spec"]["replicas"] == 2
    eu_web = _deployment(members, "aws-euw1", "shop", "web")["spec"]["template"]["spec"]
    container = next(c for c in eu_web["containers"] if c["name"] == "web")
    assert "--cookie-consent=required" in container.get("args", [])
    assert container["image"].startswith("123456789012.dkr.ecr.eu-west-1.amazonaws.com/")
    assert _deployment(members, "gcp-euw1-gpu", "ml", "inference") is not None
    assert _deployment(members, "aws-use1-a", "ml", "inference") is None

    banner = members["aws-use1-a"].objects.get(
        "example.gitfleet.io/v1alpha1", "Widget", "banner", "shop"
    )
    assert banner is not None and banner["spec"]["replicas"] == 1
    works = yaml.safe_load(_git_show(repo, f"{status.status_ref('aws-use1-a')}:works.yaml"))
    health = {m["name"]: m["health"] for m in works["manifests"]}
    assert health["banner"] == "Unhealthy"  # no status yet: the Lua rule says so
    assert health["web"] == "Healthy"

    for member in members.values():
        member.cluster.reset_requests()
    again = cli(*args)
    assert again.exit_code == 0
    assert sum(m.cluster.requests.writes for m in members.values()) == 0


def _git_show(repo: Path, spec: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "show", spec], capture_output=True, text=True, check=True
    ).stdout
