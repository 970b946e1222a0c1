"""A workload whose replica count is `null` is the workload that leaves it out: Karmada's API
server decodes both into the same nil pointer (k8s.io/api apps/v1 and batch/v1 types) and
stores neither as null, so `validate`, `render` and `explain` typed by a user treat them alike.

Aspects covered:
- a Deployment, ReplicaSet or StatefulSet with `replicas: null`, a Job with `parallelism:
  null` (its completions set, or null too): `validate` is clean; `render` refuses nothing;
  the binding counts the 1 the API server stores, on one cluster of a Divided policy;
  the rendered works are byte for byte those of the template that leaves the field out (no
  `null` in a manifest, the field left to the member's API server as for a missing one);
- a Duplicated one goes to every cluster, one replica each, and `explain` says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_policy, selector
from conftest import Invoke

DEPLOYMENT = "shop/Deployment.apps/web.yaml"
DIVIDED = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
DUPLICATED = {"replicaSchedulingType": "Duplicated"}
WORKLOAD_APIS = [
    {
        "groupVersion": "apps/v1",
        "resources": [
            {"name": "deployments", "kind": "Deployment"},
            {"name": "replicasets", "kind": "ReplicaSet"},
            {"name": "statefulsets", "kind": "StatefulSet"},
        ],
    },
    {"groupVersion": "batch/v1", "resources": [{"name": "jobs", "kind": "Job"}]},
]


def _fleet(api_version: str, kind: str, scheduling: dict[str, str]) -> str:
    clusters = [make_cluster(name) for name in ("member1", "member2")]
    for member in clusters:
        member["status"]["apiEnablements"] = WORKLOAD_APIS
    placement = {
        "clusterAffinity": {"clusterNames": ["member1", "member2"]},
        "replicaScheduling": scheduling,
    }
    policy = make_policy("web", selector(kind, api_version, name="web"), placement=placement)
    return yaml.safe_dump_all([*clusters, policy])


POD_TEMPLATE = """\
  template:
    metadata:
      labels:
        app: web
    spec:
      restartPolicy: {restart}
      containers:
        - name: web
          image: nginx
"""


def _workload(api_version: str, kind: str, counts: str) -> str:
    head = f"apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: web\n  namespace: shop\n"
    matching = "" if kind == "Job" else "  selector:\n    matchLabels:\n      app: web\n"
    restart = "Never" if kind == "Job" else "Always"
    return head + "spec:\n" + counts + matching + POD_TEMPLATE.format(restart=restart)


WORKLOADS = [
    pytest.param("apps/v1", "Deployment", "  replicas: null\n", "", id="Deployment"),
    pytest.param("apps/v1", "ReplicaSet", "  replicas: null\n", "", id="ReplicaSet"),
    pytest.param("apps/v1", "StatefulSet", "  replicas: null\n", "", id="StatefulSet"),
    pytest.param(
        "batch/v1", "Job", "  parallelism: null\n  completions: 5\n", "  completions: 5\n",
        id="Job with completions",
    ),
    pytest.param(
        "batch/v1", "Job", "  parallelism: null\n  completions: null\n", "", id="Job without",
    ),
]  # fmt: skip


def _source(root: Path, workload: str, fleet: str) -> Path:
    root.mkdir()
    (root / "fleet.yaml").write_text(fleet)
    (root / "web.yaml").write_text(workload)
    return root


def _render(cli: Invoke, root: Path) -> tuple[dict[str, Any], Path]:
    out = root.parent / f"{root.name}-out"
    result = cli("render", "--repo", str(root), "--out", str(out), "-o", "json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report, out


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("api_version", "kind", "null", "left_out"), WORKLOADS)
def test_null_count_renders_as_the_count_left_out(
    cli: Invoke, tmp_path: Path, api_version: str, kind: str, null: str, left_out: str
) -> None:
    fleet = _fleet(api_version, kind, DIVIDED)
    with_null = _source(tmp_path / "null", _workload(api_version, kind, null), fleet)
    without = _source(tmp_path / "left-out", _workload(api_version, kind, left_out), fleet)
    assert "null" in (with_null / "web.yaml").read_text()
    checked = cli("validate", "--repo", str(with_null))
    assert (checked.exit_code, checked.stdout) == (0, "")

    report, out = _render(cli, with_null)
    assert report["refused"] == []
    path = f"shop/{kind}.{api_version.split('/')[0]}/web.yaml"
    binding = yaml.safe_load((out / "bindings" / path).read_text())
    assert binding["spec"]["replicas"] == 1
    assert binding["spec"]["clusters"] == [{"name": "member1", "replicas": 1}]
    manifest = (out / "works" / "member1" / path).read_text()
    assert "null" not in manifest
    assert not (out / "works" / "member2" / path).exists()

    _, expected = _render(cli, without)
    assert _tree(out / "works") == _tree(expected / "works")


def test_null_count_duplicated_goes_everywhere(cli: Invoke, tmp_path: Path) -> None:
    workload = _workload("apps/v1", "Deployment", "  replicas: null\n")
    root = _source(tmp_path / "null", workload, _fleet("apps/v1", "Deployment", DUPLICATED))
    report, out = _render(cli, root)
    assert report["refused"] == []
    for member in ("member1", "member2"):
        manifest = yaml.safe_load((out / "works" / member / DEPLOYMENT).read_text())
        assert "replicas" not in manifest["spec"]
    explained = cli("explain", "Deployment/web", "-n", "shop", "--repo", str(root), "-o", "json")
    assert explained.exit_code == 0, explained.output
    (binding,) = json.loads(explained.stdout)["bindings"]
    assert binding["replicas"] == 1
    assert binding["clusters"] == [
        {"name": "member1", "replicas": 1},
        {"name": "member2", "replicas": 1},
    ]
