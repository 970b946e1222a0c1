"""Helm charts and kustomizations in a source (as in a repository Argo CD or Flux deploys) are
not read as manifests: each is one error that says what it is and how to leave it out.

Aspects covered:
- a folder holding Chart.yaml is a chart: none of its files is read (its templates are not YAML
  until Helm fills them in), nested charts included, and the chart has one error at its
  Chart.yaml naming the exclude glob; a chart at the top of the source says so;
- a chart whose Chart.yaml the include globs leave out is still known by it;
- `kustomization.yaml` / `.yml` are kustomize's build files: an error each, the manifests they
  list are read as ever;
- excluded in gitfleet.yaml, as the messages say, neither is an error: `gitfleet validate`
  typed in a repository with both passes, and render places the plain manifests;
- a file named like a chart's but in no chart, and a Kustomization resource of Flux (a real
  object in its own API group), are read as manifests.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import make_cluster, make_policy
from conftest import Invoke
from source.conftest import LoadFolder

from gitfleet import source

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata: {{a: b}}\n"
CHART = {
    "charts/web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "charts/web/values.yaml": "replicaCount: 1\n",
    "charts/web/templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
    ),
    "charts/web/charts/db/Chart.yaml": "apiVersion: v2\nname: db\nversion: 0.1.0\n",
    "charts/web/charts/db/templates/cm.yaml": "{{- if .Values.db }}\nkind: x\n{{- end }}\n",
}
KUSTOMIZATION = (
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    "namespace: shop\nresources:\n- app.yaml\n"
)
FLUX_KUSTOMIZATION = """\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: fleet}
"""


def _errors(result: source.LoadedSource) -> list[str]:
    return [str(d) for d in result.diagnostics if d.severity == "error"]


def _read(result: source.LoadedSource) -> set[str]:
    return {d.origin.path for d in result.documents}


def test_a_chart_is_one_error_and_none_of_its_files_is_read(load_folder: LoadFolder) -> None:
    result = load_folder({"app.yaml": CONFIG_MAP.format(name="app"), **CHART})
    assert _read(result) == {"app.yaml"}
    assert _errors(result) == [
        "charts/web/Chart.yaml:1:1: error: charts/web/ is a Helm chart: gitfleet does not run"
        " Helm, it reads manifests as they are; exclude the chart in gitfleet.yaml (exclude:"
        ' ["charts/web/**"]) and commit what `helm template` renders'
    ]


def test_a_source_that_is_a_chart(load_folder: LoadFolder) -> None:
    top = {p.removeprefix("charts/web/"): t for p, t in CHART.items()}
    result = load_folder(top)
    assert _read(result) == set()
    assert _errors(result) == [
        "Chart.yaml:1:1: error: the source is a Helm chart: gitfleet does not run Helm, it reads"
        ' manifests as they are; exclude the chart in gitfleet.yaml (exclude: ["**"]) and commit'
        " what `helm template` renders"
    ]


def test_a_chart_known_by_a_chart_file_the_globs_leave_out(load_folder: LoadFolder) -> None:
    result = load_folder({"gitfleet.yaml": 'include: ["**/templates/*.yaml"]\n', **CHART})
    assert _read(result) == set()
    assert [e.split(":")[0] for e in _errors(result)] == ["charts/web/Chart.yaml"]


@pytest.mark.parametrize("name", ["kustomization.yaml", "kustomization.yml"])
def test_a_kustomization_is_an_error_its_resources_are_read(
    load_folder: LoadFolder, name: str
) -> None:
    result = load_folder(
        {f"apps/{name}": KUSTOMIZATION, "apps/app.yaml": CONFIG_MAP.format(name="app")}
    )
    assert _read(result) == {"apps/app.yaml"}
    (error,) = _errors(result)
    assert error.startswith(f"apps/{name}:1:1: error: kustomize's build file: gitfleet does not")
    assert 'exclude: ["**/kustomization.yaml"]' in error


def test_lookalikes_are_manifests(load_folder: LoadFolder) -> None:
    result = load_folder(
        {
            "flux/apps.yaml": FLUX_KUSTOMIZATION,
            "docs/Chart.yml": CONFIG_MAP.format(name="chart"),
            "docs/chart.yaml": CONFIG_MAP.format(name="chart2"),
        }
    )
    assert _errors(result) == []
    assert sorted(t.name for t in result.objects.templates) == ["apps", "chart", "chart2"]


def test_excluded_as_the_errors_say_a_repository_validates_and_renders(
    git_repo: Any, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = make_policy("all", {"apiVersion": "v1", "kind": "ConfigMap"}, namespace="default")
    files = {
        "clusters.yaml": yaml.safe_dump(make_cluster("member1")),
        "policy.yaml": yaml.safe_dump(policy),
        "apps/app.yaml": CONFIG_MAP.format(name="app"),
        "apps/kustomization.yaml": KUSTOMIZATION,
        **CHART,
    }
    git_repo.commit(files)
    monkeypatch.chdir(git_repo.path)
    refused = cli("validate")
    assert refused.exit_code == 1
    assert "charts/web/Chart.yaml:1:1: error: charts/web/ is a Helm chart" in refused.output
    assert "apps/kustomization.yaml:1:1: error: kustomize's build file" in refused.output
    git_repo.commit({"gitfleet.yaml": 'exclude: ["charts/web/**", "**/kustomization.yaml"]\n'})
    passed = cli("validate")
    assert passed.exit_code == 0, passed.output
    rendered = cli("render", "--out", os.path.join("..", "out"))
    assert rendered.exit_code == 0, rendered.output
    out = Path(git_repo.path).parent / "out" / "works" / "member1"
    assert (out / "default" / "ConfigMap.core" / "app.yaml").is_file()
