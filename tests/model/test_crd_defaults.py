"""Custom resources are read with the defaults their CRD's schema declares, as Karmada's API
server stores them (apiextensions-apiserver's structural defaulting).

Aspects covered:
- the walk: an absent property, or a null one the schema does not allow null, gets a copy of
  its default; a present value (null where nullable) stays; a default filled in is defaulted
  in turn; list items by `items`, map values by `additionalProperties`; a null default is none;
  `metadata` is left alone; only the template's own version's schema counts;
- in a render from a real repository: a Lua customization reads the defaulted replicas, which
  Karmada divides, and the manifests carry the defaults.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import builders
import pytest
import yaml

from gitfleet.model import crddefaults
from gitfleet.model.origin import Origin
from gitfleet.model.template import ResourceTemplate
from tests.conftest import GitRepo, Invoke
from tests.interpreter.lua.conftest import customization_yaml

GROUP, KIND = "apps.example.io", "Pool"
SCHEMA = {
    "type": "object",
    "properties": {
        "metadata": {"type": "object", "properties": {"name": {"default": "x"}}},
        "spec": {
            "type": "object",
            "default": {},
            "properties": {
                "replicas": {"type": "integer", "default": 4},
                "paused": {"type": "boolean", "default": False},
                "note": {"type": "string", "nullable": True, "default": "noted"},
                "none": {"type": "string", "default": None},
                "strategy": {
                    "type": "object",
                    "default": {"type": "Rolling"},
                    "properties": {"maxSurge": {"type": "integer", "default": 1}},
                },
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"protocol": {"type": "string", "default": "TCP"}},
                    },
                },
                "limits": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"unit": {"type": "string", "default": "m"}},
                    },
                },
            },
        },
    },
}


def _crd(schema: dict[str, Any], version: str = "v1") -> dict[str, Any]:
    crd = builders.make_crd(GROUP, KIND, version=version)
    crd["spec"]["versions"][0]["schema"] = {"openAPIV3Schema": schema}
    return crd


def _pool(spec: dict[str, Any] | None, version: str = "v1") -> dict[str, Any]:
    doc = builders.make_object(f"{GROUP}/{version}", KIND, "p", "shop")
    if spec is not None:
        doc["spec"] = spec
    return doc


def _defaulted(pool: dict[str, Any], crd: dict[str, Any]) -> dict[str, Any]:
    templates = [ResourceTemplate(d, Origin("x.yaml")) for d in (crd, pool)]
    found = crddefaults.schemas(templates)
    return dict(crddefaults.defaulted(templates[1], found).body)


FULL = {
    "replicas": 4,
    "paused": False,
    "note": "noted",
    "strategy": {"type": "Rolling", "maxSurge": 1},
}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(None, FULL, id="absent spec defaulted, then its own defaults"),
        pytest.param({"replicas": 2}, {**FULL, "replicas": 2}, id="a present value stays"),
        pytest.param({"replicas": None}, FULL, id="null where not nullable"),
        pytest.param({"note": None}, {**FULL, "note": None}, id="null where nullable stays"),
        pytest.param({"strategy": {}}, {**FULL, "strategy": {"maxSurge": 1}}, id="nested default"),
        pytest.param(
            {"ports": [{"port": 80}, {"protocol": "UDP"}]},
            {**FULL, "ports": [{"port": 80, "protocol": "TCP"}, {"protocol": "UDP"}]},
            id="list items",
        ),
        pytest.param(
            {"limits": {"cpu": {}, "memory": {"unit": "Mi"}}},
            {**FULL, "limits": {"cpu": {"unit": "m"}, "memory": {"unit": "Mi"}}},
            id="map values",
        ),
    ],
)
def test_defaulting_walk(spec: dict[str, Any] | None, expected: dict[str, Any]) -> None:
    pool = _pool(copy.deepcopy(spec))
    found = _defaulted(pool, _crd(SCHEMA))
    assert found["spec"] == expected
    assert found["metadata"] == pool["metadata"]
    assert pool["spec" if spec is not None else "kind"] == (spec if spec is not None else KIND)


def test_only_the_templates_own_version() -> None:
    pool = _pool({"paused": True}, version="v2")
    assert _defaulted(pool, _crd(SCHEMA)) == pool


def test_defaults_are_copied() -> None:
    crd = _crd(SCHEMA)
    first, second = _defaulted(_pool(None), crd), _defaulted(_pool(None), crd)
    first["spec"]["strategy"]["type"] = "changed"
    assert second["spec"]["strategy"]["type"] == "Rolling"


CUSTOMIZATION = customization_yaml(
    (f"{GROUP}/v1", KIND),
    replicaResource="function GetReplicas(obj) return obj.spec.replicas, nil end",
    replicaRevision="""
        function ReviseReplica(obj, replicas)
          obj.spec.replicas = replicas
          return obj
        end""",
)


def test_render_reads_the_defaults(git_repo: GitRepo, cli: Invoke, tmp_path: Path) -> None:
    served = [{"groupVersion": f"{GROUP}/v1", "resources": [{"name": "pools", "kind": KIND}]}]
    clusters = [builders.make_cluster(name) for name in ("member1", "member2")]
    for c in clusters:
        c["status"]["apiEnablements"] = [*c["status"]["apiEnablements"], *served]
    weights = [
        {"targetCluster": {"clusterNames": [c["metadata"]["name"]]}, "weight": 1} for c in clusters
    ]
    placement = {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"staticWeightList": weights},
        }
    }
    docs = [
        *clusters,
        builders.make_object("v1", "Namespace", "shop"),
        _crd(SCHEMA),
        _pool({"paused": True}),
        builders.make_policy("pools", builders.selector(KIND, f"{GROUP}/v1"), placement=placement),
    ]
    git_repo.commit(
        {"fleet.yaml": yaml.safe_dump_all(docs, sort_keys=False), "ric.yaml": CUSTOMIZATION}
    )
    out = tmp_path / "out"
    result = cli("render", "--repo", str(git_repo.path), "--out", str(out))
    assert result.exit_code == 0, result.output
    for name in ("member1", "member2"):
        manifest = yaml.safe_load((out / f"works/{name}/shop/{KIND}.{GROUP}/p.yaml").read_text())
        assert manifest["spec"] == {**FULL, "paused": True, "replicas": 2}
