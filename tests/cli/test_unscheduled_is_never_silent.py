"""A placement that fails is never silent: render, render.yaml, status and the reconciler's
status ref all say which resource was not scheduled and why.

Aspects covered:
- clusters that report no capacity left: `gitfleet render` prints a warning at the template's
  file and line with the scheduler's reason, still commits, and exits 3; `-o json` lists it
  under `unscheduled`; render.yaml lists and counts it; a render that changes nothing exits 3
  again (the resource is still not placed); `--out` exits 3 too;
- no cluster fits after a good render (NoClusterFit): the binding keeps its previous clusters,
  and the warning says so; for a Namespace, that the namespace controller sends it to every
  cluster all the same (render.yaml marks it `syncedEverywhere`), never that it runs nowhere;
- `gitfleet status` shows the resource not scheduled, with the reason (human and `-o json`);
- `gitfleet reconcile --once` renders, exits 0, and records the resources in its status ref,
  which `gitfleet status` shows;
- run as a user types it: relative paths from another directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from builders import (
    DYNAMIC_WEIGHT,
    make_cluster,
    make_cluster_policy,
    make_deployment,
    make_object,
    make_policy,
    selector,
)
from conftest import GitRepo, Invoke
from status.status_kit import report_no_room

REASON = "Clusters available replicas 0 are not enough to schedule"


def _source(placement: dict[str, object]) -> dict[str, str]:
    docs = {
        "apps/web.yaml": [make_deployment("web", replicas=4)],
        "policies/web.yaml": [make_policy("web", selector(name="web"), placement=placement)],
        "clusters.yaml": [make_cluster("east", cpu="8"), make_cluster("west", cpu="8")],
    }
    return {rel: yaml.safe_dump_all(d, sort_keys=False) for rel, d in docs.items()}


def test_no_capacity_is_a_warning_and_exit_3(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source(DYNAMIC_WEIGHT))
    report_no_room(git_repo.path, "east", "west")
    result = cli("render", "--repo", "../source")
    assert result.exit_code == 3, result.output
    assert (
        "apps/web.yaml:1:1: warning: Deployment shop/web is not scheduled (Unschedulable): "
        "failed to assign replicas: failed to scale up: " + REASON + "; it runs on no cluster"
    ) in result.output
    assert "rendered " in result.output
    report = yaml.safe_load(git_repo.git("show", "gitfleet/rendered:render.yaml"))
    assert report["counts"]["unscheduled"] == 1
    (listed,) = report["unscheduled"]
    assert listed["resource"] == "Deployment shop/web"
    assert (listed["path"], listed["line"], listed["reason"]) == (
        "apps/web.yaml",
        1,
        "Unschedulable",
    )
    assert listed["clusters"] == []

    again = cli("render", "--repo", "../source", "-o", "json")
    assert again.exit_code == 3
    data = json.loads(again.output)
    assert data["created"] is False
    assert [u["resource"] for u in data["unscheduled"]] == ["Deployment shop/web"]
    assert REASON in data["unscheduled"][0]["message"]

    written = cli("render", "--repo", "../source", "--out", "out")
    assert written.exit_code == 3
    assert "is not scheduled (Unschedulable)" in written.output


def test_no_cluster_fits_keeps_the_previous_clusters(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source({"clusterAffinity": {"clusterNames": ["east", "west"]}}))
    assert cli("render", "--repo", "../source").exit_code == 0
    git_repo.commit(_source({"clusterAffinity": {"clusterNames": ["north"]}}))
    result = cli("render", "--repo", "../source")
    assert result.exit_code == 3, result.output
    assert "Deployment shop/web is not scheduled (NoClusterFit)" in result.output
    assert "it stays on east, west (the previous result)" in result.output
    assert git_repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", "works/east/shop")


def test_an_unscheduled_namespace_is_still_synced_everywhere(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    files = _source({"clusterAffinity": {"clusterNames": ["east", "west"]}})
    nowhere = {"clusterAffinity": {"clusterNames": ["north"]}}
    team = [
        make_object("v1", "Namespace", "team"),
        make_cluster_policy("team", selector("Namespace", "v1", name="team"), placement=nowhere),
    ]
    git_repo.commit({**files, "team.yaml": yaml.safe_dump_all(team, sort_keys=False)})
    result = cli("render", "--repo", "../source")
    assert result.exit_code == 3, result.output
    assert "Namespace team is not scheduled (NoClusterFit)" in result.output
    assert "the namespace controller sends it to every cluster all the same" in result.output
    assert "it runs on no cluster" not in result.output
    report = yaml.safe_load(git_repo.git("show", "gitfleet/rendered:render.yaml"))
    (listed,) = report["unscheduled"]
    assert (listed["resource"], listed["syncedEverywhere"]) == ("Namespace team", True)
    works = git_repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", "works")
    assert "works/east/_cluster/Namespace.core/team.yaml" in works.splitlines()


def test_status_shows_the_reason(cli: Invoke, git_repo: GitRepo, elsewhere: Path) -> None:
    git_repo.commit(_source(DYNAMIC_WEIGHT))
    report_no_room(git_repo.path, "east", "west")
    assert cli("render", "--repo", "../source").exit_code == 3
    shown = cli("status", "--repo", "../source")
    assert shown.exit_code == 0
    row = next(line for line in shown.output.splitlines() if line.startswith("Deployment/shop/web"))
    assert row.split()[:3] == ["Deployment/shop/web", "0", "no"]
    assert "Deployment/shop/web: not scheduled (Unschedulable): failed to assign replicas" in (
        shown.output
    )
    data = json.loads(cli("status", "--repo", "../source", "-o", "json").output)
    (web,) = [r for r in data["resources"] if r["name"] == "web"]
    assert web["scheduled"]["status"] == "False"
    assert web["scheduled"]["reason"] == "Unschedulable"
    assert REASON in web["scheduled"]["message"]


def test_reconcile_records_it_in_its_status_ref(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source(DYNAMIC_WEIGHT))
    report_no_room(git_repo.path, "east", "west")
    done = cli("reconcile", "--repo", "../source", "--once", "--no-watch")
    assert done.exit_code == 0, done.output
    assert "unscheduled=1" in done.output
    state = yaml.safe_load(
        git_repo.git("show", "refs/heads/gitfleet/status/_reconciler:reconciler.yaml")
    )
    (listed,) = state["unscheduled"]
    assert (listed["resource"], listed["reason"]) == ("Deployment shop/web", "Unschedulable")
    shown = cli("status", "--repo", "../source")
    assert "last render: 1 resources not scheduled" in shown.output
    data = json.loads(cli("status", "--repo", "../source", "-o", "json").output)
    assert data["reconciler"]["unscheduled"][0]["resource"] == "Deployment shop/web"
