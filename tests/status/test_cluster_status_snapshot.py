"""The reported cluster status the next render reads (`gitstore.status.read_cluster_status`),
and `gitfleet render` using it.

Aspects covered:
- every cluster's reported ClusterStatus by name; the reconciler's own ref and reports that do
  not decode are left out;
- the snapshot id names the statuses, not the reports: a heartbeat alone does not change it,
  a changed status does, and so do changed node resources (`nodeAvailable`) alone;
- the nodes' available resources are read back as written; ones that do not decode or parse
  are left out, the rest of the status kept;
- a render records which clusters' status came from their agents, and reported status
  supersedes the declared one (a cluster reported not to serve Deployments gets none).
"""

from __future__ import annotations

import dataclasses

import yaml
from builders import make_cluster, make_deployment, make_object, make_policy
from conftest import GitRepo, Invoke
from status.status_kit import ready_status, report_files

from gitfleet.agent import report
from gitfleet.gitstore import repository, status
from gitfleet.model import cluster


def _write(path: str, name: str, files: dict[str, bytes]) -> None:
    repo = repository.open_repository(path)
    assert repo is not None
    try:
        current = status.read_status(repo, name)
        status.write_status(
            repo, name, files, expected=current.commit if current else None, rendered_commit="r1"
        )
    finally:
        repo.close()


def _snapshot(path: str) -> tuple[str, dict[str, cluster.ClusterStatus]]:
    repo = repository.open_repository(path)
    assert repo is not None
    try:
        return status.read_cluster_status(repo)
    finally:
        repo.close()


def test_statuses_by_cluster(git_repo: GitRepo) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    path = str(git_repo.path)
    _write(path, "m1", report_files("m1"))
    _write(path, "m2", {report.CLUSTER_FILE: b"status: {conditions: 3}\n"})
    _write(path, "_reconciler", report_files("_reconciler"))
    _, found = _snapshot(path)
    assert found == {"m1": ready_status()}


def test_the_snapshot_id_names_the_statuses(git_repo: GitRepo) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    path = str(git_repo.path)
    empty, _ = _snapshot(path)
    _write(path, "m1", report_files("m1", heartbeat="2026-01-01T00:00:00Z"))
    first, _ = _snapshot(path)
    _write(path, "m1", report_files("m1", heartbeat="2026-01-01T00:05:00Z"))
    beat, _ = _snapshot(path)
    _write(path, "m1", report_files("m1", status=ready_status("False", "ClusterNotReady")))
    changed, _ = _snapshot(path)
    assert first.startswith("sha256:")
    assert first == beat
    assert len({empty, first, changed}) == 3


def _with_nodes(*groups: tuple[int, str]) -> cluster.ClusterStatus:
    nodes = tuple(cluster.NodeAvailable(count=n, resources={"cpu": cpu}) for n, cpu in groups)
    summary = cluster.ResourceSummary(allocatable={"cpu": "12"}, node_available=nodes)
    return dataclasses.replace(ready_status(), resource_summary=summary)


def test_node_resources_are_part_of_the_status(git_repo: GitRepo) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    path = str(git_repo.path)
    three = _with_nodes((3, "4"))
    _write(path, "m1", report_files("m1", status=three))
    first, found = _snapshot(path)
    assert found == {"m1": three}
    moved = _with_nodes((1, "-500m"), (1, "4"), (1, "5"))
    _write(path, "m1", report_files("m1", status=moved))
    second, found = _snapshot(path)
    assert found == {"m1": moved}
    assert first != second


def test_node_resources_that_do_not_decode_are_left_out(git_repo: GitRepo) -> None:
    git_repo.commit({"a.yaml": "a: 1\n"})
    path = str(git_repo.path)
    files = report_files("m1", status=_with_nodes((3, "4")))
    doc = yaml.safe_load(files[report.CLUSTER_FILE])
    for broken in ([{"count": 0}], [{"count": 1, "resources": {"cpu": "lots"}}], "3 nodes"):
        doc[status.NODE_AVAILABLE] = broken
        _write(path, "m1", {**files, report.CLUSTER_FILE: yaml.safe_dump(doc).encode()})
        _, found = _snapshot(path)
        assert found["m1"].resource_summary == cluster.ResourceSummary(allocatable={"cpu": "12"})


def test_a_render_uses_the_reported_status(git_repo: GitRepo, cli: Invoke) -> None:
    docs = [
        make_cluster("m1"),
        make_cluster("m2"),
        make_object("v1", "Namespace", "shop"),
        make_deployment(),
        make_policy("web"),
    ]
    git_repo.commit({"fleet.yaml": yaml.safe_dump_all(docs)})
    serves_no_apps = cluster.ClusterStatus(
        api_enablements=(cluster.APIEnablement(group_version="v1"),),
        conditions=ready_status().conditions,
    )
    _write(str(git_repo.path), "m2", report_files("m2", status=serves_no_apps))
    done = cli("render", "--repo", str(git_repo.path), "-o", "json")
    assert done.exit_code == 0, done.output
    render = yaml.safe_load(git_repo.git("show", "gitfleet/rendered:render.yaml"))
    assert render["status"]["m1"]["from"] == "declared"
    assert render["status"]["m2"]["from"] == "reported"
    listing = git_repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", "works/")
    assert "works/m1/shop/Deployment.apps/web.yaml" in listing
    assert "works/m2/shop/Deployment.apps/web.yaml" not in listing
