"""A manifest the render refuses for a cluster is never silent, however often the same commit is
rendered: its exit status and its output do not depend on whether the render changed anything.

Aspects covered:
- the first render refuses it (exit 3, the refusal printed at the file and line of the override
  that broke it);
- rendering the same commit again changes nothing and still exits 3 with the refusal, as
  render.yaml on the branch lists it (human output and `-o json`);
- `--out DIR` of the rendered commit exits 3 and lists it in `-o json` as in DIR/render.yaml,
  as `--out DIR --full` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from builders import make_cluster, make_configmap, make_policy, selector
from conftest import GitRepo, Invoke

REFUSED = "ConfigMap/default/settings on cluster m2: the manifest built for this cluster"


def _source() -> dict[str, str]:
    """A ConfigMap on m1 and m2, which an override breaks on m2 (a label that is no string)."""
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterOverridePolicy",
        "metadata": {"name": "m2-only"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap"}],
            "overrideRules": [{
                "targetCluster": {"clusterNames": ["m2"]},
                "overriders": {"plaintext": [
                    {"operator": "add", "path": "/metadata/labels", "value": {"on": True}}
                ]},
            }],
        },
    }  # fmt: skip
    fleet = [
        make_cluster("m1"),
        make_cluster("m2"),
        make_policy("all", selector("ConfigMap", "v1"), selector(), namespace="default"),
        override,
    ]
    return {
        "fleet.yaml": yaml.safe_dump_all(fleet),
        "apps/settings.yaml": yaml.safe_dump(make_configmap(namespace="default")),
    }


def _refused_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if REFUSED in line]


def test_a_render_again_says_what_it_refused(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source())
    first = cli("render", "--repo", "../source")
    assert first.exit_code == 3, first.output
    [refused] = _refused_lines(first.output)
    assert refused.startswith("  ../source/fleet.yaml:")

    again = cli("render", "--repo", "../source")
    assert again.exit_code == 3, again.output
    assert "no change: gitfleet/rendered stays at" in again.output
    assert _refused_lines(again.output) == [refused]

    data = json.loads(cli("render", "--repo", "../source", "-o", "json").output)
    assert data["created"] is False
    [entry] = data["refused"]
    assert (entry["path"], entry["cluster"]) == ("fleet.yaml", "m2")


def test_out_of_a_rendered_commit_says_what_it_refused(
    cli: Invoke, git_repo: GitRepo, elsewhere: Path
) -> None:
    git_repo.commit(_source())
    assert cli("render", "--repo", "../source").exit_code == 3
    for out, more in (("out", []), ("full", ["--full"])):
        done = cli("render", "--repo", "../source", "--out", out, "-o", "json", *more)
        assert done.exit_code == 3, done.output
        written = yaml.safe_load((elsewhere / out / "render.yaml").read_text())
        listed = written["refused"]
        assert json.loads(done.output)["refused"] == listed
        assert [(r["path"], r["cluster"]) for r in listed] == [("fleet.yaml", "m2")]
