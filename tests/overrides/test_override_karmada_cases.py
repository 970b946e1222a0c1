"""Karmada's own override cases (shared/karmada/override-cases.yaml, outside the repository),
each run through gitfleet: generated patches, resulting fields, per-cluster results and the
order of applied rules. Skipped when the file is not there; the same facts are also ported
into the table tests of this folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gitfleet import overrides

CASES_FILE = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "karmada" / "override-cases.yaml"
)


def _cases() -> list[Any]:
    if not CASES_FILE.is_file():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CASES_FILE} is absent"))]
    cases = yaml.safe_load(CASES_FILE.read_text())["cases"]
    return [pytest.param(case, id=case["id"]) for case in cases]


def _policy_spec(entry: dict[str, Any], block: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if entry.get("resourceSelectors"):
        spec["resourceSelectors"] = entry["resourceSelectors"]
    if "overrideRules" in entry:
        spec["overrideRules"] = [
            {**rule, "overriders": block(rule["overriders"])} for rule in entry["overrideRules"]
        ]
    if "targetCluster" in entry:
        spec["targetCluster"] = entry["targetCluster"]
    if "overriders" in entry:
        spec["overriders"] = block(entry["overriders"])
    return spec


def _tagged(name: Any) -> dict[str, Any]:
    """A recognisable block standing for an overriders id such as `overriders1`."""
    return {"labelsOverrider": [{"operator": "add", "value": {"case": name}}]}


def _run_order(case: dict[str, Any], make_cluster: Any, make_policy: Any) -> None:
    resource = case["resource"]
    manifest = {
        "apiVersion": resource["apiVersion"],
        "kind": resource["kind"],
        "metadata": {"name": resource["name"], "namespace": resource["namespace"]},
    }
    ops = [
        make_policy(entry["name"], _policy_spec(entry, _tagged), resource["namespace"])
        for entry in case["policies"]
    ]
    result = overrides.apply(manifest, make_cluster(case["cluster"]), ops, [])  # type: ignore[arg-type]
    order = [
        [item.policy_name, (item.overriders.labels_overrider[0].value or {})["case"]]
        for item in result.applied_overrides
    ]
    assert order == case["expect"]["order"]


def _run_per_cluster(case: dict[str, Any], make_cluster: Any, make_policy: Any, get: Any) -> None:
    cops: list[Any] = []
    ops: list[Any] = []
    for entry in case["policies"]:
        cluster_scoped = entry.get("kind") == "ClusterOverridePolicy"
        made = make_policy(
            entry["name"], _policy_spec(entry, lambda b: b), None if cluster_scoped else "default"
        )
        (cops if cluster_scoped else ops).append(made)
    for cluster_name, fields in case["expect"]["per_cluster"].items():
        result = overrides.apply(case["manifest"], make_cluster(cluster_name), ops, cops)
        for pointer, value in fields.items():
            assert get(result.manifest, pointer) == value, cluster_name


@pytest.mark.parametrize("case", _cases())
def test_karmada_case(
    case: dict[str, Any],
    make_cluster: Any,
    make_policy: Any,
    block_ops: Any,
    apply_block: Any,
    pointer_get: Any,
) -> None:
    expect = case["expect"]
    if "order" in expect:
        _run_order(case, make_cluster, make_policy)
        return
    if "per_cluster" in expect:
        _run_per_cluster(case, make_cluster, make_policy, pointer_get)
        return
    if "patches" in expect:
        generated = block_ops(case["manifest"], case["overriders"])
        assert generated == [{"value": None, **op} for op in expect["patches"]]
    if "fields" in expect:
        result = apply_block(case["manifest"], case["overriders"])
        for pointer, value in expect["fields"].items():
            assert pointer_get(result, pointer) == value
