"""Files shaped like Karmada's own samples, committed unchanged, render where Karmada would
place them (`gitfleet render` and `gitfleet validate` run as a user types them, from another
folder).

tests/testdata/karmada_samples/ holds files of the shape of Karmada's samples/nginx,
samples/guestbook and examples/customresourceinterpreter: no object names a namespace, as
`kubectl apply` puts them all in `default`. Aspects covered:
- nginx: a Deployment divided 1/1 by static weights, each cluster's copy with its override;
- guestbook: a CRD sent by a ClusterPropagationPolicy, a custom resource of it placed by a
  PropagationPolicy and patched by an OverridePolicy, none of them naming a namespace;
- customresourceinterpreter: a custom workload divided 1/1/1 (a Lua customization stands in
  for the example's interpreter webhook);
- `defaultNamespace` in gitfleet.yaml moves every one of them to that namespace;
- validate is silent on all of them, and warns, with the policy's file and line, about a
  policy that selects nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import GitRepo, Invoke

SAMPLES = Path(__file__).resolve().parents[1] / "testdata" / "karmada_samples"
RENDERED = "gitfleet/rendered"


def _repository(git_repo: GitRepo, sample: str, extra: dict[str, str] | None = None) -> None:
    shutil.copy(SAMPLES / "clusters.yaml", git_repo.path / "clusters.yaml")
    shutil.copytree(SAMPLES / sample, git_repo.path / sample)
    git_repo.commit(extra or {}, f"karmada sample {sample}")


def _render(cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(git_repo.path.parent)
    repo = git_repo.path.name
    validated = cli("validate", "--repo", repo)
    assert validated.exit_code == 0, validated.output
    assert (
        validated.output == f"checked the working tree of {repo} (uncommitted changes included)\n"
    )
    result = cli("render", "--repo", repo, "-o", "json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.output)
    return report


def _files(git_repo: GitRepo) -> set[str]:
    listed = git_repo.git("ls-tree", "-r", "--name-only", RENDERED, "works")
    return {p for p in listed.splitlines() if not p.endswith("kustomization.yaml")}


def _show(git_repo: GitRepo, path: str) -> Any:
    return yaml.safe_load(git_repo.git("show", f"{RENDERED}:{path}"))


def test_nginx_divides_by_weight_with_each_clusters_override(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repository(git_repo, "nginx")
    _render(cli, git_repo, monkeypatch)
    web = "default/Deployment.apps/web.yaml"
    assert _files(git_repo) == {f"works/member1/{web}", f"works/member2/{web}"}
    first, second = _show(git_repo, f"works/member1/{web}"), _show(git_repo, f"works/member2/{web}")
    assert (first["spec"]["replicas"], second["spec"]["replicas"]) == (1, 1)
    assert first["metadata"]["namespace"] == second["metadata"]["namespace"] == "default"
    assert first["metadata"]["annotations"]["owner"] == "team-a"
    assert "stage" not in first["metadata"]["labels"]
    assert second["metadata"]["labels"]["stage"] == "canary"
    assert "owner" not in second["metadata"].get("annotations", {})
    binding = _show(git_repo, "bindings/default/Deployment.apps/web.yaml")
    placed = {c["name"]: c["replicas"] for c in binding["spec"]["clusters"]}
    assert placed == {"member1": 1, "member2": 1}


def test_guestbook_places_the_crd_and_its_resource(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repository(git_repo, "guestbook")
    _render(cli, git_repo, monkeypatch)
    book = "works/member1/default/Guestbook.webapp.example.test/guestbook-one.yaml"
    crd = (
        "works/member1/_cluster/CustomResourceDefinition.apiextensions.k8s.io/"
        "guestbooks.webapp.example.test.yaml"
    )
    assert _files(git_repo) == {book, crd}
    placed = _show(git_repo, book)
    assert placed["spec"]["size"] == 4
    assert placed["metadata"]["annotations"]["overridden"] == "yes"
    assert "namespace" not in _show(git_repo, crd)["metadata"]


def test_custom_workload_divides_over_three_clusters(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repository(git_repo, "workload")
    _render(cli, git_repo, monkeypatch)
    path = "default/Workload.workload.example.test/web.yaml"
    members = ("member1", "member2", "member3")
    assert _files(git_repo) >= {f"works/{m}/{path}" for m in members}
    assert [_show(git_repo, f"works/{m}/{path}")["spec"]["replicas"] for m in members] == [1, 1, 1]


def test_default_namespace_setting_moves_everything(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    _repository(git_repo, "nginx", {"gitfleet.yaml": "defaultNamespace: apps\n"})
    _render(cli, git_repo, monkeypatch)
    web = "apps/Deployment.apps/web.yaml"
    generated = "_cluster/Namespace.core/apps.yaml"
    assert _files(git_repo) == {
        f"works/{m}/{p}" for m in ("member1", "member2") for p in (web, generated)
    }
    second = _show(git_repo, f"works/member2/{web}")
    assert second["metadata"]["namespace"] == "apps"
    assert second["metadata"]["labels"]["stage"] == "canary"


def test_validate_warns_about_a_policy_that_selects_nothing(
    cli: Invoke, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = (SAMPLES / "nginx" / "propagationpolicy.yaml").read_text()
    typo = policy.replace("web-propagation", "typo", 1).replace("name: web\n", "name: wbe\n")
    _repository(git_repo, "nginx", {"nginx/other.yaml": typo})
    monkeypatch.chdir(git_repo.path.parent)
    result = cli("validate", "--repo", "source")
    assert result.exit_code == 0, result.output
    assert result.output == (
        "source/nginx/other.yaml:6:3: warning: PropagationPolicy default/typo: "
        "spec.resourceSelectors: selects no resource template\n"
        "checked the working tree of source (uncommitted changes included)\n"
    )
