"""`gitfleet explain KIND/NAME` (or `KIND NAME`): one command answers "why is my app (not) on
cluster X?".

Aspects: the human report (winning policy with file:line, losers and why, each filter's verdict per
cluster, candidates and replica arithmetic, the Scheduled condition, the result); kubectl spellings
of KIND (case, plural, short names, group-qualified, CRD names from the source, ambiguity), the
resource as `KIND/NAME` or `KIND NAME` as kubectl takes it (more than one slash, no name, a kind
given twice or two names: exit 2); Karmada's own kinds (`pp`, a Cluster) named as such (exit 1), a
template of a kind of the same name still explained; `-o json` with stable keys; dependencies
attached and the workloads a dependency follows; the namespace controller; exit codes (not in the
source, not propagated, load errors, unknown kind, --rev of a plain folder); "did you mean" for a
mistyped kind, name or namespace; plain folders and Git revisions; without -n, the namespace is the
source's defaultNamespace; clusters whose dispatching the policy suspends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from builders import (
    make_cluster,
    make_configmap,
    make_deployment,
    make_object,
    make_policy,
    selector,
)

VOLUMES = [{"name": "conf", "configMap": {"name": "settings"}}]
TAINTED = make_cluster(
    "gpu", cpu="32", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
)
FILES: dict[str, list[dict[str, Any]]] = {
    "apps/web.yaml": [make_deployment("web", replicas=4, volumes=VOLUMES), make_configmap()],
    "apps/lonely.yaml": [make_deployment("lonely", namespace="other")],
    "policies/web.yaml": [
        make_policy(
            "web",
            selector(name="web"),
            propagateDeps=True,
            placement={
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                }
            },
        ),
        make_policy("fallback", selector(), priority=-1),
    ],
    "clusters.yaml": [make_cluster("east", cpu="8"), make_cluster("west", cpu="8"), TAINTED],
    "namespaces.yaml": [make_object("v1", "Namespace", "shop")],
}


def write(root: Path, files: dict[str, list[dict[str, Any]]]) -> Path:
    for rel, docs in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return root


@pytest.fixture(name="source")
def source_fixture(tmp_path: Path) -> str:
    return str(write(tmp_path / "src", FILES))


def test_explains_policy_filters_and_replicas(cli: Any, source: str) -> None:
    result = cli("explain", "deploy/web", "-n", "shop", "--repo", source)
    assert result.exit_code == 0, result.output
    text = result.output
    assert f"Deployment shop/web (apps/v1, {source}/apps/web.yaml:" in text
    assert f"won: PropagationPolicy shop/web ({source}/policies/web.yaml:1:1)" in text
    assert f"lost: PropagationPolicy shop/fallback ({source}/policies/web.yaml:" in text
    assert "explicit priority -1 is lower than web's 0" in text
    assert "gpu: TaintToleration: cluster(s) had untolerated taint" in text
    assert "east: fits" in text
    assert "condition Scheduled=True (Success)" in text
    assert "clusters: east=2, west=2" in text
    assert "attached: ConfigMap shop/settings" in text


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param("deploy", id="short name"),
        pytest.param("Deployment", id="kind"),
        pytest.param("DEPLOYMENTS", id="plural, any case"),
        pytest.param("deployments.apps", id="group-qualified resource"),
        pytest.param("deploy.v1.apps", id="version and group qualified"),
    ],
)
def test_kind_spellings(cli: Any, source: str, spelling: str) -> None:
    result = cli("explain", f"{spelling}/web", "-n", "shop", "--repo", source, "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["decision"]["resource"]["kind"] == "Deployment"


def test_kind_and_name_as_two_arguments(cli: Any, source: str) -> None:
    """`KIND NAME`, as `kubectl describe deploy web` takes it, explains what `KIND/NAME` does."""
    slash = cli("explain", "deploy/web", "-n", "shop", "--repo", source, "-o", "json")
    apart = cli("explain", "deploy", "web", "-n", "shop", "--repo", source, "-o", "json")
    assert apart.exit_code == slash.exit_code == 0, apart.output
    assert json.loads(apart.output) == json.loads(slash.output)


def test_a_template_of_a_kind_named_as_karmadas(cli: Any, tmp_path: Path) -> None:
    """Cluster API's Cluster is a template like any other: `cluster` names it, not Karmada's."""
    capi = make_object("cluster.x-k8s.io/v1beta1", "Cluster", "edge", "shop")
    policy = make_policy("edge", selector("Cluster", "cluster.x-k8s.io/v1beta1", name="edge"))
    source = write(tmp_path / "src", {**FILES, "capi.yaml": [capi, policy]})
    result = cli("explain", "cluster/edge", "-n", "shop", "--repo", str(source), "-o", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["decision"]["resource"]["kind"] == "Cluster"


def test_crd_names_from_the_source(cli: Any, tmp_path: Path) -> None:
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.io"},
        "spec": {
            "group": "example.io",
            "scope": "Namespaced",
            "names": {"kind": "Gadget", "plural": "gadgets", "shortNames": ["gd"]},
            "versions": [{"name": "v1", "served": True, "storage": True}],
        },
    }
    gadget = make_object("example.io/v1", "Gadget", "g1", "shop")
    policy = make_policy("g", selector("Gadget", "example.io/v1"))
    root = write(tmp_path / "src", {"all.yaml": [crd, gadget, policy, make_cluster("east")]})
    result = cli("explain", "gd/g1", "-n", "shop", "--repo", str(root))
    assert "Gadget shop/g1" in result.output
    assert "won: PropagationPolicy shop/g" in result.output


def test_json_output_has_stable_keys(cli: Any, source: str) -> None:
    result = cli("explain", "deployment/web", "-n", "shop", "--repo", source, "-o", "json")
    data = json.loads(result.output)
    assert sorted(data) == [
        "autoscaling",
        "bindings",
        "capacity",
        "decision",
        "dependencies",
        "diagnostics",
        "inputs",
        "namespaceSync",
        "refused",
        "schedules",
        "unknownApis",
    ]
    assert data["refused"] == []
    assert data["decision"]["policy"]["name"] == "web"
    assert data["decision"]["policy"]["origin"] == "policies/web.yaml:1:1"
    (binding,) = data["bindings"]
    assert binding["clusters"] == [{"name": "east", "replicas": 2}, {"name": "west", "replicas": 2}]
    assert binding["scheduled"]["status"] == "True"
    assert data["inputs"]["previousRender"] is None
    (schedule,) = data["schedules"]
    gpu = [f for f in schedule["attempts"][0]["filters"] if f["cluster"] == "gpu"]
    assert gpu[0]["feasible"] is False
    assert data["dependencies"][0]["attached"] == ["ConfigMap shop/settings"]
    assert (
        result.output
        == cli("explain", "deployment/web", "-n", "shop", "--repo", source, "-o", "json").output
    )


def test_dependency_shows_the_workloads_it_follows(cli: Any, source: str) -> None:
    result = cli("explain", "cm/settings", "-n", "shop", "--repo", source)
    assert result.exit_code == 0, result.output
    assert "required by ResourceBinding shop/web-deployment: east, west" in result.output


def test_namespace_goes_everywhere(cli: Any, source: str) -> None:
    result = cli("explain", "ns/shop", "--repo", source)
    assert "namespace controller: sent to every cluster (east, gpu, west)" in result.output
    assert result.exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        pytest.param(
            ["deploy/web"],
            "Deployment web is not in the source in namespace default "
            "(it is in namespace shop: use -n)",
            id="kubectl's default namespace, with a hint",
        ),
        pytest.param(["deploy/nope", "-n", "shop"], "is not in the source", id="not found"),
        pytest.param(
            ["deploy/wbe", "-n", "shop"],
            "Deployment wbe is not in the source in namespace shop (did you mean web?)",
            id="a close name",
        ),
        pytest.param(
            ["deploy/nope", "-n", "shpo"],
            "Deployment nope is not in the source in namespace shpo (did you mean -n shop?)",
            id="a close namespace",
        ),
        pytest.param(
            ["cm/setings", "-n", "shop"],
            "ConfigMap setings is not in the source in namespace shop (did you mean settings?)",
            id="a close name of that kind only",
        ),
    ],
)
def test_not_found(cli: Any, source: str, args: list[str], message: str) -> None:
    result = cli("explain", *args, "--repo", source)
    assert result.exit_code == 1
    assert message in result.stderr


def test_not_propagated_says_why(cli: Any, source: str) -> None:
    result = cli("explain", "deploy/lonely", "-n", "other", "--repo", source)
    assert result.exit_code == 1
    assert "not propagated: no PropagationPolicy in namespace other" in result.output


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(["gizmo/web"], 1, "unknown kind 'gizmo'", id="unknown kind"),
        pytest.param(
            ["deploymnt/web"],
            1,
            "unknown kind 'deploymnt' (did you mean deployment?)",
            id="a close kind",
        ),
        pytest.param(["web"], 2, "expected KIND/NAME or KIND NAME, got 'web'", id="no kind"),
        pytest.param(["deploy/web/x"], 2, "more than one slash", id="two slashes"),
        pytest.param(
            ["pp/web", "-n", "shop"],
            1,
            "PropagationPolicy is one of Karmada's own kinds, not a resource template",
            id="a policy",
        ),
        pytest.param(
            ["clusters.cluster.karmada.io/east"],
            1,
            "Cluster is one of Karmada's own kinds",
            id="a member cluster",
        ),
        pytest.param(["deploy/"], 2, "both a kind and a name", id="no name"),
        pytest.param(["deploy", "deploy/web"], 2, "no need to give the kind", id="kind twice"),
        pytest.param(["deploy", "web", "api"], 2, "got 'deploy web api'", id="two names"),
        pytest.param(["deploy/web", "--rev", "HEAD"], 2, "plain folder", id="--rev of a folder"),
    ],
)
def test_usage_and_lookup_errors(
    cli: Any, source: str, args: list[str], code: int, message: str
) -> None:
    result = cli("explain", *args, "--repo", source)
    assert result.exit_code == code
    assert message in result.output + result.stderr


def test_load_errors_are_located(cli: Any, source: str) -> None:
    Path(source, "broken.yaml").write_text("kind: [unclosed\n")
    result = cli("explain", "deploy/web", "-n", "shop", "--repo", source)
    assert result.exit_code == 1
    assert "broken.yaml:" in result.stderr


def test_git_revisions(cli: Any, git_repo: Any) -> None:
    files = {rel: yaml.safe_dump_all(docs, sort_keys=False) for rel, docs in FILES.items()}
    first = git_repo.commit(files)
    narrowed = make_policy(
        "web", selector(name="web"), placement={"clusterAffinity": {"clusterNames": ["west"]}}
    )
    git_repo.commit({"policies/web.yaml": yaml.safe_dump_all([narrowed], sort_keys=False)})
    now = cli("explain", "deploy/web", "-n", "shop", "--repo", str(git_repo.path))
    assert "clusters: west=4" in now.output
    assert "east: ClusterAffinity" in now.output
    then = cli("explain", "deploy/web", "-n", "shop", "--repo", str(git_repo.path), "--rev", first)
    assert "clusters: east=2, west=2" in then.output


def test_suspended_dispatching_is_said(cli: Any, tmp_path: Path) -> None:
    """The schedule moves on, but the suspended clusters keep what they were last sent."""
    suspended = make_policy(
        "web",
        selector(name="web"),
        suspension={"dispatchingOnClusters": {"clusterNames": ["west"]}},
    )
    source = str(write(tmp_path / "src", {**FILES, "policies/web.yaml": [suspended]}))
    human = cli("explain", "deploy/web", "-n", "shop", "--repo", source).output
    assert "clusters: east=4, west=4" in human
    assert (
        "dispatching suspended to west (the policy's suspension): they keep the manifests they "
        "were last sent"
    ) in human.splitlines()
    found = json.loads(
        cli("explain", "deploy/web", "-n", "shop", "--repo", source, "-o", "json").output
    )
    assert [b["dispatchingSuspended"] for b in found["bindings"]] == [["west"]]


def test_without_namespace_looks_in_the_source_default(cli: Any, tmp_path: Path) -> None:
    policy = make_policy("web", selector(name="web"))
    del policy["metadata"]["namespace"]
    files = {
        "gitfleet.yaml": "defaultNamespace: apps\n",
        "web.yaml": yaml.safe_dump_all(
            [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "metadata": {"name": "web"},
                    "spec": {"replicas": 2},
                },
                policy,
                make_cluster("east", cpu="8"),
            ],
            sort_keys=False,
        ),
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    result = cli("explain", "deploy/web", "--repo", str(tmp_path), "-o", "json")
    (binding,) = json.loads(result.output)["bindings"]
    assert binding["clusters"] == [{"name": "east", "replicas": 2}]
