"""`gitfleet explain` reads what `gitfleet render` reads, so the two say the same thing.

Aspects covered:
- after a render, explain reads the rendered branch's tip as the previous render: the policy's
  claim and the last schedule carry over, and it no longer says "never scheduled";
- the clusters' reported status (their status refs) supersedes the declared one in explain as
  in render: with zero capacity reported, both place the workload nowhere, and explain shows
  the scheduler's reason;
- the inputs are named, in the human form and under `inputs` in `-o json`;
- run as a user types it: a relative `--repo` from another directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from builders import DYNAMIC_WEIGHT, make_cluster, make_deployment, make_policy, selector
from conftest import GitRepo, Invoke
from status.status_kit import report_no_room

SOURCE = {
    "apps/web.yaml": [make_deployment("web", replicas=4)],
    "policies/web.yaml": [make_policy("web", selector(name="web"), placement=DYNAMIC_WEIGHT)],
    "clusters.yaml": [make_cluster("east", cpu="8"), make_cluster("west", cpu="8")],
}


def _commit(git_repo: GitRepo) -> str:
    files = {rel: yaml.safe_dump_all(docs, sort_keys=False) for rel, docs in SOURCE.items()}
    return git_repo.commit(files)


def _rendered_clusters(git_repo: GitRepo) -> list[dict[str, object]]:
    text = git_repo.git("show", "gitfleet/rendered:bindings/shop/Deployment.apps/web.yaml")
    clusters: list[dict[str, object]] = yaml.safe_load(text)["spec"].get("clusters") or []
    return clusters


def test_after_a_render_the_previous_schedule_carries_over(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    _commit(git_repo)
    before = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source")
    assert "never scheduled" in before.output
    assert "inputs: no previous render on gitfleet/rendered" in before.output
    assert cli("render", "--repo", "../source").exit_code == 0
    tip = git_repo.git("rev-parse", "gitfleet/rendered")
    after = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source")
    assert after.exit_code == 0, after.output
    assert "never scheduled" not in after.output
    assert f"inputs: previous render {tip[:12]} on gitfleet/rendered" in after.output
    assert "claimed by PropagationPolicy shop/web in the previous render" in after.output
    assert "divided workload unchanged: previous result kept" in after.output
    assert "clusters: east=2, west=2" in after.output
    assert "last scheduled: 2026-01-01T00:00:00Z" in after.output


def test_reported_capacity_places_nothing_in_both(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    source_commit = _commit(git_repo)
    report_no_room(git_repo.path, "east", "west")
    assert cli("render", "--repo", "../source").exit_code == 3
    assert _rendered_clusters(git_repo) == []
    result = cli("explain", "deploy/web", "-n", "shop", "--repo", "../source")
    assert "clusters: none" in result.output
    assert "condition Scheduled=False (Unschedulable)" in result.output
    assert "east: 0, 0, 0, 0" in result.output
    assert "status reported by east, west" in result.output
    data = json.loads(
        cli("explain", "deploy/web", "-n", "shop", "--repo", "../source", "-o", "json").output
    )
    assert data["bindings"][0]["clusters"] == []
    assert data["inputs"] == {
        "renderedBranch": "gitfleet/rendered",
        "previousRender": git_repo.git("rev-parse", "gitfleet/rendered"),
        "previousSource": source_commit,
        "clusterStatus": {"east": "reported", "west": "reported"},
    }
