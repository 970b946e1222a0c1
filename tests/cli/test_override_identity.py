"""An OverridePolicy that would change what an object is, through `gitfleet validate` and
`gitfleet render` on a fleet written as Karmada's samples are (no metadata.namespace).

Aspects covered:
- known from the policy alone (a plaintext path to /kind, /metadata/namespace, /metadata/name,
  /apiVersion, /metadata/generateName, an imageOverrider predicate or a fieldOverrider path to
  one of them, removing /metadata): `validate` exits 1 at the policy's file, line and column,
  and `render` renders nothing;
- known only with the object (a plaintext replacing /metadata with another namespace):
  `validate` reports it as an error for that cluster; `render` refuses that manifest for the
  one cluster the rule targets, listed with the policy's file and line and in render.yaml,
  writes every other manifest, keeps the cluster's previous manifest when there was one, and
  exits 3; the cluster's Work directory stays complete, so its agent applies the rest.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from builders import make_cluster, make_configmap, make_policy, selector
from conftest import GitRepo, Invoke

from gitfleet import render
from gitfleet.agent import workdir

POLICY_FILE = "policies/override.yaml"


def source(*, override: dict[str, Any] | None = None) -> dict[str, str]:
    fleet = [
        make_cluster("m1"),
        make_cluster("m2"),
        make_configmap("settings", namespace=""),
        make_configmap("other", namespace=""),
        make_policy("all", selector("ConfigMap", "v1"), namespace="default"),
    ]
    files = {"fleet.yaml": yaml.safe_dump_all(fleet)}
    if override is not None:
        policy = {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "OverridePolicy",
            "metadata": {"name": "sneaky", "namespace": "default"},
            "spec": {
                "resourceSelectors": [selector("ConfigMap", "v1", name="settings")],
                "overrideRules": [
                    {"targetCluster": {"clusterNames": ["m2"]}, "overriders": override}
                ],
            },
        }
        files[POLICY_FILE] = "# an override of m2's settings\n" + yaml.safe_dump(policy)
    return files


def plaintext(op: str, path: str, value: Any = None) -> dict[str, Any]:
    entry = {"operator": op, "path": path}
    return {"plaintext": [entry if value is None else {**entry, "value": value}]}


STATIC = [
    pytest.param(plaintext("replace", "/kind", "Secret"), "plaintext", "'/kind' changes kind",
                 id="kind"),
    pytest.param(plaintext("add", "/metadata/namespace", "kube-system"), "plaintext",
                 "'/metadata/namespace' changes metadata.namespace", id="namespace"),
    pytest.param(plaintext("replace", "/metadata/name", "x"), "plaintext",
                 "'/metadata/name' changes metadata.name", id="name"),
    pytest.param(plaintext("replace", "/apiVersion", "v2"), "plaintext",
                 "'/apiVersion' changes apiVersion", id="apiVersion"),
    pytest.param(plaintext("add", "/metadata/generateName", "x-"), "plaintext",
                 "'/metadata/generateName' changes metadata.generateName", id="generateName"),
    pytest.param(plaintext("remove", "/metadata"), "plaintext",
                 "'/metadata' changes metadata.namespace, metadata.name, metadata.generateName",
                 id="metadata removed"),
    pytest.param(plaintext("replace", "/metadata", {"labels": {}}), "plaintext",
                 "'/metadata' changes metadata.namespace, metadata.name, metadata.generateName",
                 id="metadata without a name"),
    pytest.param(
        {"imageOverrider": [{"predicate": {"path": "/metadata/name"}, "component": "Tag",
                             "operator": "replace", "value": "x"}]},
        "imageOverrider", "'/metadata/name' changes metadata.name", id="image predicate",
    ),
    pytest.param(
        {"fieldOverrider": [{"fieldPath": "/kind",
                             "yaml": [{"subPath": "", "operator": "replace", "value": "x"}]}]},
        "fieldOverrider", "'/kind' changes kind", id="field path",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("override", "overrider", "message"), STATIC)
def test_validate_refuses_what_the_policy_shows(
    git_repo: GitRepo, cli: Invoke, override: dict[str, Any], overrider: str, message: str
) -> None:
    git_repo.commit(source(override=override))
    for command in ("validate", "render"):
        done = cli(command, "--repo", str(git_repo.path))
        assert done.exit_code == 1, done.output
        [error] = [line for line in done.output.splitlines() if ": error: " in line]
        assert f"{POLICY_FILE}:" in error
        assert f": spec.overrideRules.0.overriders.{overrider}.0." in error
        assert f"{message}: overriders must not change what an object is" in error
    assert git_repo.git("branch", "--list", "gitfleet/rendered") == ""


MOVED = plaintext("replace", "/metadata", {"name": "settings", "namespace": "kube-system"})


def _files(repo: GitRepo, cluster: str) -> dict[str, bytes]:
    names = repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", f"works/{cluster}")
    return {
        name: repo.git("show", f"gitfleet/rendered:{name}").encode() + b"\n"
        for name in names.splitlines()
    }


def _render(repo: GitRepo, cli: Invoke, code: int = 0) -> str:
    done = cli("render", "--repo", str(repo.path))
    assert done.exit_code == code, done.output
    return done.output


@pytest.mark.parametrize("rendered_before", [False, True], ids=["first render", "kept"])
def test_render_refuses_the_manifest_for_that_cluster_only(
    git_repo: GitRepo, cli: Invoke, rendered_before: bool
) -> None:
    settings = "works/m2/default/ConfigMap.core/settings.yaml"
    if rendered_before:
        git_repo.commit(source())
        _render(git_repo, cli)
        before = git_repo.git("show", f"gitfleet/rendered:{settings}")
    git_repo.commit(source(override=MOVED))
    validated = cli("validate", "--repo", str(git_repo.path))
    assert validated.exit_code == 1, validated.output
    assert "error: ConfigMap/default/settings on cluster m2: " in validated.output
    output = _render(git_repo, cli, code=3)
    refused = [line.strip() for line in output.splitlines() if "overriders must not" in line]
    assert len(refused) == 1, output
    assert refused[0].startswith(f"{git_repo.path}/{POLICY_FILE}:")
    assert "ConfigMap/default/settings on cluster m2" in refused[0]
    assert "metadata.namespace 'default' became 'kube-system'" in refused[0]
    report = yaml.safe_load(git_repo.git("show", f"gitfleet/rendered:{render.RENDER_FILE}"))
    [entry] = report["refused"]
    assert (entry["path"], entry["cluster"]) == (POLICY_FILE, "m2")
    assert entry["line"] > 1
    m1, m2 = _files(git_repo, "m1"), _files(git_repo, "m2")
    assert "works/m1/default/ConfigMap.core/settings.yaml" in m1
    assert "works/m2/default/ConfigMap.core/other.yaml" in m2
    if rendered_before:
        assert git_repo.git("show", f"gitfleet/rendered:{settings}") == before
    else:
        assert settings not in m2
    work = workdir.parse("m2", m2, rendered_commit="r")
    assert work.complete, work.problems
    assert all(m.ref.namespace == "default" for m in work.manifests)
