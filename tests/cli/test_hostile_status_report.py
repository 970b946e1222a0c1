"""A cluster's status report whose capacity is not a quantity (an agent's credential can write
any report for its own cluster) is ignored, as a report that does not decode: the cluster is
scheduled on what the source declares, and no other resource of the fleet is held back.

Aspects covered:
- `cpu: lots` and a quantity of 5,000 digits in a reported allocatable summary: `render`, typed
  from another folder, exits 0 (before, every binding that considered the cluster failed to
  schedule, exit 3, and stayed where it was) and places the replicas as it would with no report
  at all;
- a status ref naming an object the repository does not hold (a ref file written by hand, a
  repository copied without its objects): every command that reads the status refs (render,
  explain, status, `reconcile --once`) exits 1 with Git's message, never a traceback;
- a status ref whose name no cluster can have (`Caps`, `a/b`, `-x`, `_made-up`) is no cluster:
  `gitfleet status` does not list it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import DYNAMIC_WEIGHT, make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo, Invoke
from status import status_kit

from gitfleet.model import cluster


def _render(cli: Invoke, out: Path) -> tuple[int, dict[str, Any]]:
    done = cli("render", "--repo", "../source", "--out", str(out), "-o", "json")
    return done.exit_code, json.loads(done.stdout)


@pytest.mark.parametrize("cpu", ["lots", "9" * 5000], ids=["a word", "5000 digits"])
def test_a_report_whose_capacity_does_not_parse_is_ignored(
    git_repo: GitRepo, elsewhere: Path, cli: Invoke, cpu: str
) -> None:
    docs = [
        make_deployment("web", replicas=4, cpu="1"),
        make_policy("web", selector(name="web"), placement=DYNAMIC_WEIGHT),
        make_cluster("m1", cpu="2"),
        make_cluster("m2", cpu="2"),
    ]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    code, expected = _render(cli, elsewhere / "declared")
    assert code == 0
    summary = cluster.ResourceSummary(allocatable={"cpu": cpu, "memory": "64Gi", "pods": "110"})
    hostile = dataclasses.replace(status_kit.capacity_status((3, 3)), resource_summary=summary)
    status_kit.write_reports(git_repo.path, {"m2": status_kit.report_files("m2", status=hostile)})
    code, found = _render(cli, elsewhere / "reported")
    assert code == 0, found["unscheduled"]
    assert found["unscheduled"] == []
    assert found["clusters"] == expected["clusters"]
    for name in ("m1", "m2"):
        web = f"works/{name}/shop/Deployment.apps/web.yaml"
        assert (elsewhere / "reported" / web).read_text() == (
            elsewhere / "declared" / web
        ).read_text()


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("render",), id="render"),
        pytest.param(("explain", "deployment/web", "-n", "shop"), id="explain"),
        pytest.param(("status",), id="status"),
        pytest.param(("reconcile", "--once"), id="reconcile --once"),
    ],
)
def test_a_status_ref_naming_a_missing_object(
    git_repo: GitRepo, elsewhere: Path, cli: Invoke, command: tuple[str, ...]
) -> None:
    docs = [make_deployment("web"), make_policy("web", selector(name="web")), make_cluster("m1")]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    broken = git_repo.path / ".git/refs/heads/gitfleet/status/m1"
    broken.parent.mkdir(parents=True)
    broken.write_text("1" * 40 + "\n")
    done = cli(*command, "--repo", "../source")
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    assert f"missing object {'1' * 40} for refs/heads/gitfleet/status/m1" in done.stderr


@pytest.mark.parametrize("name", ["Caps", "a/b", "-x", "_made-up"])
def test_a_status_ref_no_cluster_can_have_is_not_a_cluster(
    git_repo: GitRepo, elsewhere: Path, cli: Invoke, name: str
) -> None:
    docs = [make_deployment("web", replicas=2), make_policy("web", selector(name="web"))]
    docs.append(make_cluster("m1", cpu="2"))
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False)})
    assert cli("render", "--repo", "../source").exit_code == 0
    files = status_kit.report_files(name, status=status_kit.capacity_status((3, 3)))
    status_kit.write_reports(git_repo.path, {name: files})
    listed = cli("status", "--repo", "../source", "-o", "json")
    assert listed.exit_code == 0, listed.output
    assert [c["name"] for c in json.loads(listed.stdout)["clusters"]] == ["m1"]
    assert name not in cli("status", "--repo", "../source").stdout
