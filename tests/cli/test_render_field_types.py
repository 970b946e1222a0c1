"""`gitfleet render` never writes what `validate` would refuse: one rule for both.

Aspects covered:
- templates whose fields or names a member's API server would refuse (a label read as a
  boolean, ConfigMap data read as a number, an env value read as a number, a non-ASCII name, a
  name too long for a file): `validate` and `render` both exit 1 at the field, nothing is
  rendered;
- an override that makes a field of the wrong type for one cluster (a plaintext label
  `true`, an env value `1`, an annotation `3`) or adds a field the kind does not declare (a
  container's `imagePullPolicyy`): `validate` reports it as an error for that cluster;
  `render` refuses that manifest for that cluster, located at the override rule that wrote the
  field, with the field and the policy named, lists it in render.yaml, writes the other
  clusters' manifests, and exits 3.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from builders import make_cluster, make_configmap, make_deployment, make_policy, selector
from conftest import GitRepo, Invoke

from gitfleet import render


def source(
    *templates: str, overriders: dict[str, Any] | None = None, kind: str = ""
) -> dict[str, str]:
    fleet = [
        make_cluster("m1"),
        make_cluster("m2"),
        make_policy("all", selector("ConfigMap", "v1"), selector(), namespace="default"),
    ]
    files = {
        "fleet.yaml": yaml.safe_dump_all(fleet),
        "apps/templates.yaml": "---\n".join(templates),
    }
    if overriders is not None:
        policy = {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterOverridePolicy",
            "metadata": {"name": "m2-only"},
            "spec": {
                "resourceSelectors": [
                    {"apiVersion": "apps/v1" if kind == "Deployment" else "v1", "kind": kind}
                ],
                "overrideRules": [
                    {"targetCluster": {"clusterNames": ["m2"]}, "overriders": overriders}
                ],
            },
        }
        files["policies/override.yaml"] = yaml.safe_dump(policy)
    return files


CONFIGMAP = yaml.safe_dump(make_configmap(namespace=""))
DEPLOYMENT = yaml.safe_dump(make_deployment(namespace=""))


@pytest.mark.parametrize(
    ("template", "message"),
    [
        pytest.param(CONFIGMAP.replace("  name: settings", "  name: settings\n  labels: {on: yes}"),
                     "metadata.labels.true: must be a string", id="label"),
        pytest.param(CONFIGMAP.replace("key: value", "key: 0123"),
                     "data.key: must be a string, not the number 83", id="data"),
        pytest.param(DEPLOYMENT.replace("- image: nginx", "- env: [{name: A, value: 1}]\n"
                                        "        image: nginx"),
                     "env.0.value: must be a string, not the number 1", id="env"),
        pytest.param(CONFIGMAP.replace("name: settings", "name: séttings"),
                     "metadata.name: name 'séttings' is not made of ASCII", id="unicode name"),
        pytest.param(CONFIGMAP.replace("name: settings", "name: " + "s" * 251),
                     "is not made of ASCII letters", id="long name"),
    ],
)  # fmt: skip
def test_what_validate_refuses_is_never_rendered(
    git_repo: GitRepo, cli: Invoke, template: str, message: str
) -> None:
    git_repo.commit(source(template))
    for command in ("validate", "render"):
        done = cli(command, "--repo", str(git_repo.path))
        assert done.exit_code == 1, done.output
        [error] = [line for line in done.output.splitlines() if ": error: " in line]
        assert "apps/templates.yaml:" in error and message in error, error
    assert git_repo.git("branch", "--list", "gitfleet/rendered") == ""


def plaintext(path: str, value: Any) -> dict[str, Any]:
    return {"plaintext": [{"operator": "add", "path": path, "value": value}]}


@pytest.mark.parametrize(
    ("overriders", "refused", "message"),
    [
        pytest.param(plaintext("/metadata/labels", {"enabled": True}), "ConfigMap/default/settings",
                     "metadata.labels.enabled: must be a string, not the boolean true",
                     id="label"),
        pytest.param(plaintext("/metadata/annotations", {"replicas": 3}),
                     "ConfigMap/default/settings",
                     "metadata.annotations.replicas: must be a string, not the number 3",
                     id="annotation"),
        pytest.param(plaintext("/spec/template/spec/containers/0/env", [{"name": "A", "value": 1}]),
                     "Deployment/default/web",
                     "containers.0.env.0.value: must be a string, not the number 1", id="env"),
        pytest.param(plaintext("/spec/template/spec/containers/0/imagePullPolicyy", "Always"),
                     "Deployment/default/web",
                     'containers.0.imagePullPolicyy: unknown field '
                     '"spec.template.spec.containers[0].imagePullPolicyy"', id="unknown field"),
    ],
)  # fmt: skip
def test_render_refuses_what_an_override_breaks(
    git_repo: GitRepo, cli: Invoke, overriders: dict[str, Any], refused: str, message: str
) -> None:
    kind = refused.partition("/")[0]
    git_repo.commit(source(CONFIGMAP, DEPLOYMENT, overriders=overriders, kind=kind))
    validated = cli("validate", "--repo", str(git_repo.path))
    assert validated.exit_code == 1, validated.output
    assert f"error: {refused} on cluster m2: " in validated.output
    done = cli("render", "--repo", str(git_repo.path))
    assert done.exit_code == 3, done.output
    lines = [line.strip() for line in done.output.splitlines() if message in line]
    assert len(lines) == 1, done.output
    assert lines[0].startswith(f"{git_repo.path}/policies/override.yaml:")
    assert lines[0].endswith("(written by cluster override policy m2-only)")
    assert (
        f"{refused} on cluster m2: the manifest built for this cluster would be refused"
        in (lines[0])
    )
    report = yaml.safe_load(git_repo.git("show", f"gitfleet/rendered:{render.RENDER_FILE}"))
    [entry] = report["refused"]
    assert (entry["path"], entry["cluster"], entry["resource"]) == (
        "policies/override.yaml", "m2", refused,
    )  # fmt: skip
    listed = git_repo.git("ls-tree", "-r", "--name-only", "gitfleet/rendered", "works")
    name = refused.rpartition("/")[2]
    group = "apps" if kind == "Deployment" else "core"
    assert f"works/m1/default/{kind}.{group}/{name}.yaml" in listed.splitlines()
    assert f"works/m2/default/{kind}.{group}/{name}.yaml" not in listed.splitlines()
