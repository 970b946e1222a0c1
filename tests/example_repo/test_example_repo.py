"""The example repository is valid, varied and documented.

Aspects covered:
- every YAML file parses; every document has apiVersion, kind and metadata.name;
- every Karmada object decodes with the model (no unknown or missing field) and round-trips;
- the loader reads every document and gitfleet.yaml's settings without a diagnostic;
- clusters: at least five, two providers, three regions, a Pull cluster, a tainted cluster,
  a complete declared status, and every kind the templates use is served everywhere;
- placement variety: Duplicated, static weights, dynamic weight, Aggregated, spread by
  region, clusterAffinities fallback, a toleration of the tainted cluster's taint;
- a CRD, custom resources of its kind and a ClusterPropagationPolicy selecting both;
- a Lua ResourceInterpreterCustomization for the CRD's kind with the four hooks;
- image, plaintext, labels and args overriders, and a ClusterOverridePolicy;
- no Secret manifest; the web app references its Secret instead;
- the example's README lists every file;
- once the commands exist: `validate` reports no error, `interpret --check` compiles the
  Lua, and `render --out` places everything as the README says.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import Result

from gitfleet import source
from gitfleet.model import cluster, config, policy

Invoke = Callable[..., Result]
Doc = Any
"""conftest.Doc: a document and its file."""
Placement = dict[str, Any]

MODEL_KINDS: dict[str, Any] = {
    "Cluster": cluster.Cluster,
    "PropagationPolicy": policy.PropagationPolicy,
    "ClusterPropagationPolicy": policy.ClusterPropagationPolicy,
    "OverridePolicy": policy.OverridePolicy,
    "ClusterOverridePolicy": policy.ClusterOverridePolicy,
    "ResourceInterpreterCustomization": config.ResourceInterpreterCustomization,
}
PROPAGATION_KINDS = ("PropagationPolicy", "ClusterPropagationPolicy")
OVERRIDE_KINDS = ("OverridePolicy", "ClusterOverridePolicy")
LUA_HOOKS = {
    "replicaResource": "GetReplicas",
    "replicaRevision": "ReviseReplica",
    "healthInterpretation": "InterpretHealth",
    "statusAggregation": "AggregateStatus",
}


def command_exists(name: str) -> bool:
    return importlib.util.find_spec(f"gitfleet.cli.{name}") is not None


def policies(by_kind: dict[str, list[Doc]], kinds: tuple[str, ...]) -> list[Doc]:
    return [doc for kind in kinds for doc in by_kind.get(kind, [])]


def placements(by_kind: dict[str, list[Doc]]) -> list[Placement]:
    return [doc.spec.get("placement") or {} for doc in policies(by_kind, PROPAGATION_KINDS)]


def strategy(placement: Placement) -> dict[str, Any]:
    return dict(placement.get("replicaScheduling") or {})


def is_duplicated(p: Placement) -> bool:
    return strategy(p).get("replicaSchedulingType", "Duplicated") == "Duplicated"


def is_divided(p: Placement, preference: str) -> bool:
    s = strategy(p)
    return (
        s.get("replicaSchedulingType") == "Divided"
        and s.get("replicaDivisionPreference") == preference
    )


def has_static_weights(p: Placement) -> bool:
    weights = strategy(p).get("weightPreference") or {}
    return is_divided(p, "Weighted") and bool(weights.get("staticWeightList"))


def has_dynamic_weight(p: Placement) -> bool:
    weights = strategy(p).get("weightPreference") or {}
    return is_divided(p, "Weighted") and weights.get("dynamicWeight") == "AvailableReplicas"


def spreads_by_region(p: Placement) -> bool:
    return any(c.get("spreadByField") == "region" for c in p.get("spreadConstraints") or [])


def has_fallback_groups(p: Placement) -> bool:
    return len(p.get("clusterAffinities") or []) >= 2


def load_yaml(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def test_every_yaml_file_parses(yaml_files: list[Path]) -> None:
    assert yaml_files, "the example repository has no YAML"
    for path in yaml_files:
        assert load_yaml(path), f"{path} holds no document"


def test_every_document_is_named(docs: list[Doc]) -> None:
    for doc in docs:
        assert doc.api_version and doc.kind and doc.name, f"{doc.path}: {doc.body}"


def test_karmada_objects_decode_with_the_model(docs: list[Doc]) -> None:
    karmada = [d for d in docs if d.kind in MODEL_KINDS]
    assert len(karmada) >= 18
    for doc in karmada:
        assert MODEL_KINDS[doc.kind].from_doc(doc.body).to_doc() == doc.body, doc.path


def test_loader_reads_everything_without_a_problem(example: Path, docs: list[Doc]) -> None:
    loaded = source.load(example)
    assert loaded.diagnostics == ()
    assert len(loaded.documents) == len(docs)
    assert loaded.config.source_branch == "main"
    assert loaded.config.exclude == (".github/**",)


def test_clusters_are_varied(by_kind: dict[str, list[Doc]]) -> None:
    clusters = [cluster.Cluster.from_doc(d.body) for d in by_kind["Cluster"]]
    assert len(clusters) >= 5
    assert {c.spec.provider for c in clusters} == {"aws", "gcp"}
    assert len({c.spec.region for c in clusters}) >= 3
    assert any(c.spec.sync_mode == cluster.SyncMode.PULL for c in clusters)
    assert any(t.effect == "NoSchedule" for c in clusters for t in c.spec.taints)
    assert all(c.metadata.labels and c.spec.zones for c in clusters)


def test_clusters_declare_their_status(by_kind: dict[str, list[Doc]]) -> None:
    for doc in by_kind["Cluster"]:
        status = cluster.Cluster.from_doc(doc.body).status
        summary = status.resource_summary
        assert status.kubernetes_version, doc.path
        assert summary and summary.allocatable and summary.allocated, doc.path
        assert {"cpu", "memory", "pods"} <= set(summary.allocatable), doc.path
        assert [(c.type, c.status) for c in status.conditions] == [("Ready", "True")], doc.path


def test_clusters_serve_every_kind_the_templates_use(
    docs: list[Doc], by_kind: dict[str, list[Doc]]
) -> None:
    used = {(d.api_version, d.kind) for d in docs if d.kind not in MODEL_KINDS}
    assert ("example.gitfleet.io/v1alpha1", "Widget") in used
    for doc in by_kind["Cluster"]:
        status = cluster.Cluster.from_doc(doc.body).status
        served = {(e.group_version, r.kind) for e in status.api_enablements for r in e.resources}
        assert used <= served, f"{doc.path} does not serve {sorted(used - served)}"


@pytest.mark.parametrize(
    "present",
    [
        pytest.param(is_duplicated, id="duplicated"),
        pytest.param(has_static_weights, id="static weights"),
        pytest.param(has_dynamic_weight, id="dynamic weight"),
        pytest.param(lambda p: is_divided(p, "Aggregated"), id="aggregated"),
        pytest.param(spreads_by_region, id="spread by region"),
        pytest.param(has_fallback_groups, id="cluster affinities"),
    ],
)
def test_placement_strategy_is_shown(
    by_kind: dict[str, list[Doc]], present: Callable[[Placement], bool]
) -> None:
    assert any(present(p) for p in placements(by_kind))


def test_a_workload_tolerates_the_tainted_cluster(by_kind: dict[str, list[Doc]]) -> None:
    taints = {
        (t["key"], t.get("value", ""), t["effect"])
        for d in by_kind["Cluster"]
        for t in d.spec.get("taints", [])
    }
    tolerated = {
        (t.get("key"), t.get("value", ""), t.get("effect"))
        for p in placements(by_kind)
        for t in p.get("clusterTolerations", [])
        if t.get("operator", "Equal") == "Equal"
    }
    assert taints and taints <= tolerated


def test_crd_and_its_resources_have_a_cluster_policy(by_kind: dict[str, list[Doc]]) -> None:
    (crd,) = by_kind["CustomResourceDefinition"]
    group, kind = crd.spec["group"], crd.spec["names"]["kind"]
    version = crd.spec["versions"][0]["name"]
    resources = [d for d in by_kind[kind] if d.api_version == f"{group}/{version}"]
    assert len(resources) >= 2
    selected = {
        (s["apiVersion"], s["kind"], s.get("name", ""))
        for d in by_kind["ClusterPropagationPolicy"]
        for s in d.spec["resourceSelectors"]
    }
    assert (crd.api_version, crd.kind, crd.name) in selected
    assert (f"{group}/{version}", kind, "") in selected


def test_lua_customization_interprets_the_crd(by_kind: dict[str, list[Doc]]) -> None:
    (crd,) = by_kind["CustomResourceDefinition"]
    target = {"apiVersion": f"{crd.spec['group']}/v1alpha1", "kind": crd.spec["names"]["kind"]}
    (ric,) = [d for d in by_kind["ResourceInterpreterCustomization"] if d.spec["target"] == target]
    hooks = ric.spec["customizations"]
    for hook, function in LUA_HOOKS.items():
        assert re.search(rf"^function {function}\(", hooks[hook]["luaScript"], re.M), hook


@pytest.mark.parametrize(
    "overrider", ["imageOverrider", "plaintext", "labelsOverrider", "argsOverrider"]
)
def test_override_kind_is_shown(by_kind: dict[str, list[Doc]], overrider: str) -> None:
    rules = [r for d in policies(by_kind, OVERRIDE_KINDS) for r in d.spec["overrideRules"]]
    assert any(rule["overriders"].get(overrider) for rule in rules)


def test_a_cluster_override_policy_exists(by_kind: dict[str, list[Doc]]) -> None:
    assert by_kind.get("ClusterOverridePolicy")


def test_no_secret_is_stored(docs: list[Doc], by_kind: dict[str, list[Doc]]) -> None:
    assert not [d.path for d in docs if d.kind == "Secret"]
    (web,) = [d for d in by_kind["Deployment"] if d.name == "web"]
    env_from = web.spec["template"]["spec"]["containers"][0]["envFrom"]
    assert {"secretRef": {"name": "web-credentials"}} in env_from


def test_readme_lists_every_file(example: Path) -> None:
    readme = (example / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `([^`]+)` \|", readme, re.M)
    files = [p.relative_to(example).as_posix() for p in example.rglob("*") if p.is_file()]
    unlisted = [
        f for f in files if f != "README.md" and not any(fnmatch.fnmatch(f, g) for g in listed)
    ]
    assert not unlisted


@pytest.mark.skipif(not command_exists("validate"), reason="validate not built yet")
def test_validate_finds_no_error(cli: Invoke, example: Path) -> None:
    result = cli("validate", "--repo", str(example))
    assert result.exit_code == 0, result.output
    assert "error" not in result.output.lower()


@pytest.mark.skipif(not command_exists("interpret"), reason="interpret not built yet")
def test_lua_compiles(cli: Invoke, example: Path) -> None:
    result = cli("interpret", "-f", str(example / "interpreter/widget.yaml"), "--check")
    assert result.exit_code == 0, result.output


@pytest.mark.skipif(not command_exists("interpret"), reason="interpret not built yet")
def test_lua_counts_widget_replicas(cli: Invoke, example: Path) -> None:
    banner = example / "apps/shop/widgets/banner.yaml"
    result = cli(
        "interpret", "-f", str(example / "interpreter/widget.yaml"),
        "--operation", "InterpretReplica", "--desired-file", str(banner), "-o", "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["replica"] == 4
