"""`gitfleet render` over a Git repository holding the example, end to end.

Aspects covered:
- the rendered branch and one ref per cluster, each holding only its cluster's folder, with
  the Source-Commit and Gitfleet-Render trailers (the branch also Gitfleet-Tree, its tree);
  replicas, overrides and labels per cluster;
- rendering again makes no commit; `--full` gives the same tree; `--out` writes the same
  files, byte for byte, every time;
- a deleted template removes its files, and the output says which;
- a renamed cluster: the old folder goes, the old cluster's ref gets a commit with no files,
  the new cluster gets its folder and ref;
- `-o json` reports per-cluster changes with stable keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from conftest import GitRepo, Invoke

BRANCH = "refs/heads/gitfleet/rendered"
CLUSTERS = ("aws-euw1", "aws-use1-a", "aws-use1-b", "gcp-euw1-a", "gcp-euw1-gpu")
WEB = "shop/Deployment.apps/web.yaml"


def _render(cli: Invoke, fleet: GitRepo, *args: str) -> Any:
    result = cli("render", "--repo", str(fleet.path), "-o", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _show(fleet: GitRepo, rev: str, path: str) -> Any:
    return yaml.safe_load(fleet.git("show", f"{rev}:{path}"))


def test_render_commits_the_fleet(cli: Invoke, fleet: GitRepo) -> None:
    source = fleet.git("rev-parse", "HEAD")
    report = _render(cli, fleet)
    assert report["created"] and report["sourceCommit"] == source
    assert fleet.git("rev-parse", BRANCH) == report["commit"]
    trailers = fleet.git("log", "-1", "--format=%(trailers:only)", BRANCH).splitlines()
    tree = fleet.git("rev-parse", f"{BRANCH}^{{tree}}")
    assert trailers == [
        f"Source-Commit: {source}",
        "Gitfleet-Render: 0.1.0",
        f"Gitfleet-Tree: {tree}",
    ]
    for name in CLUSTERS:
        ref = f"refs/heads/gitfleet/works/{name}"
        listed = fleet.git("ls-tree", "-r", "--name-only", ref).splitlines()
        assert listed and all(p.startswith(f"works/{name}/") for p in listed)
        assert fleet.git("rev-parse", f"{ref}^{{tree}}:works/{name}") == fleet.git(
            "rev-parse", f"{BRANCH}:works/{name}"
        )
    replicas = {
        name: _show(fleet, BRANCH, f"works/{name}/{WEB}")["spec"]["replicas"]
        for name in CLUSTERS[:4]
    }
    assert replicas == {"aws-euw1": 1, "aws-use1-a": 2, "aws-use1-b": 2, "gcp-euw1-a": 1}
    web = _show(fleet, BRANCH, f"works/aws-euw1/{WEB}")
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert container["image"].startswith("123456789012.dkr.ecr.eu-west-1.amazonaws.com/")
    assert web["metadata"]["labels"]["gitfleet.io/cluster"] == "aws-euw1"
    assert web["metadata"]["annotations"]["gitfleet.io/source-path"] == "apps/shop/web.yaml"
    binding = _show(fleet, BRANCH, "bindings/shop/Deployment.apps/web.yaml")
    assert binding["kind"] == "ResourceBinding"
    assert {c["name"]: c["replicas"] for c in binding["spec"]["clusters"]} == replicas
    render_file = _show(fleet, BRANCH, "render.yaml")
    assert render_file["sourceCommit"] == source and render_file["refused"] == []


def test_rendering_again_changes_nothing(cli: Invoke, fleet: GitRepo, tmp_path: Path) -> None:
    first = _render(cli, fleet)
    again = _render(cli, fleet)
    assert not again["created"] and again["commit"] == first["commit"]
    assert all(c == {"added": [], "changed": [], "removed": []} for c in again["clusters"].values())
    full = _render(cli, fleet, "--full")
    assert not full["created"]
    fleet.commit({"README.md": "changed\n"})
    later = _render(cli, fleet)
    assert not later["created"] and fleet.git("rev-parse", BRANCH) == first["commit"]
    out = tmp_path / "out"
    _render(cli, fleet, "--out", str(out))
    written = {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _render(cli, fleet, "--out", str(out))
    assert {
        str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()
    } == written
    on_branch = fleet.git("ls-tree", "-r", "--name-only", BRANCH).splitlines()
    assert sorted(written) == on_branch
    assert (
        written[f"works/aws-euw1/{WEB}"].decode()
        == fleet.git("show", f"{BRANCH}:works/aws-euw1/{WEB}") + "\n"
    )


def test_deleted_template_removes_its_files(cli: Invoke, fleet: GitRepo) -> None:
    _render(cli, fleet)
    fleet.commit({"apps/shop/worker.yaml": None})
    report = _render(cli, fleet)
    assert report["clusters"]["aws-use1-a"]["removed"] == ["shop/Deployment.apps/worker.yaml"]
    listed = fleet.git("ls-tree", "-r", "--name-only", BRANCH)
    assert "worker" not in listed
    kustomization = _show(fleet, BRANCH, "works/aws-use1-a/kustomization.yaml")
    assert "shop/Deployment.apps/worker.yaml" not in kustomization["resources"]


def test_renamed_cluster(cli: Invoke, fleet: GitRepo) -> None:
    first = _render(cli, fleet)
    text = (fleet.path / "clusters" / "aws-use1-b.yaml").read_text()
    fleet.commit(
        {
            "clusters/aws-use1-b.yaml": None,
            "clusters/aws-use1-c.yaml": text.replace("aws-use1-b", "aws-use1-c"),
        }
    )
    report = _render(cli, fleet)
    assert report["created"] and report["commit"] != first["commit"]
    folders = fleet.git("ls-tree", "--name-only", f"{BRANCH}:works").splitlines()
    assert "aws-use1-b" not in folders and "aws-use1-c" in folders
    assert fleet.git("ls-tree", "-r", "refs/heads/gitfleet/works/aws-use1-b") == ""
    moved = fleet.git("ls-tree", "-r", "--name-only", "refs/heads/gitfleet/works/aws-use1-c")
    assert f"works/aws-use1-c/{WEB}" in moved.splitlines()
