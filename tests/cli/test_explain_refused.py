"""`gitfleet explain` on a resource whose manifests the render refuses says so: it never calls
applied what no cluster receives.

Aspects covered:
- a plain-text Secret (refused for every cluster): the outcome is `refused` with the file and
  line the render names, and explain exits 1;
- an override that breaks a field on one cluster: the outcome stays the policy's, a line names
  the override's file and line and the cluster, and explain exits 0;
- `-o json` lists the refusals under `refused`, as render.yaml records them;
- run as a user types it: a relative `--repo` from another directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from builders import make_cluster, make_deployment, make_object, make_policy, selector
from click.testing import Result
from conftest import GitRepo, Invoke

PLAIN_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "db", "namespace": "shop"},
    "stringData": {"password": "hunter2"},
}

BROKEN_ON_EAST = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "OverridePolicy",
    "metadata": {"name": "sidecar-image", "namespace": "shop"},
    "spec": {
        "resourceSelectors": [selector(name="web")],
        "overrideRules": [
            {
                "targetCluster": {"clusterNames": ["east"]},
                "overriders": {
                    "plaintext": [
                        {
                            "path": "/spec/template/spec/containers/3/image",
                            "operator": "replace",
                            "value": "sidecar:2",
                        }
                    ]
                },
            }
        ],
    },
}


def _commit(git_repo: GitRepo) -> None:
    everywhere = {"clusterAffinity": {"clusterNames": ["east", "west"]}}
    source = {
        "clusters.yaml": [make_cluster("east"), make_cluster("west")],
        "shop.yaml": [make_object("v1", "Namespace", "shop")],
        "apps/db.yaml": [PLAIN_SECRET],
        "apps/web.yaml": [make_deployment("web", replicas=2)],
        "policies/all.yaml": [
            make_policy("all", selector(), selector("Secret", "v1"), placement=everywhere)
        ],
        "policies/override.yaml": [BROKEN_ON_EAST],
    }
    git_repo.commit(
        {rel: yaml.safe_dump_all(docs, sort_keys=False) for rel, docs in source.items()}
    )


def _render_refusals(git_repo: GitRepo) -> list[dict[str, object]]:
    report = yaml.safe_load(git_repo.git("show", "gitfleet/rendered:render.yaml"))
    refused: list[dict[str, object]] = report["refused"]
    return refused


def _explained(cli: Invoke, git_repo: GitRepo, resource: str) -> tuple[Result, dict[str, Any]]:
    """The source committed and rendered, then `resource` explained, as text and as JSON."""
    _commit(git_repo)
    assert cli("render", "--repo", "../source").exit_code == 3
    args = ("explain", resource, "-n", "shop", "--repo", "../source")
    return cli(*args), json.loads(cli(*args, "-o", "json").output)


def test_a_resource_refused_everywhere_is_not_called_applied(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    result, data = _explained(cli, git_repo, "secret/db")
    assert result.exit_code == 1, result.output
    outcome = result.output.splitlines()[1]
    assert outcome.startswith(
        "outcome: refused: no cluster receives it (../source/apps/db.yaml:3:1): Secrets are not "
        "written in plain text"
    ), outcome
    assert "applied" not in outcome
    mine = [r for r in _render_refusals(git_repo) if r["resource"] == "Secret/shop/db"]
    assert data["refused"] == mine != []


def test_a_manifest_refused_on_one_cluster_is_named_with_its_cluster(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    result, data = _explained(cli, git_repo, "deploy/web")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1] == "outcome: applied: PropagationPolicy shop/all claims it"
    refused = [line for line in lines if "refused for cluster" in line]
    assert len(refused) == 1, result.output
    assert refused[0].startswith("../source/policies/override.yaml:")
    assert "refused for cluster east: override policy shop/sidecar-image" in refused[0]
    assert "clusters: east=2, west=2" in result.output
    assert [r["cluster"] for r in data["refused"]] == ["east"]
    mine = [r for r in _render_refusals(git_repo) if r["resource"] == "Deployment/shop/web"]
    assert data["refused"] == mine
