"""Required node affinity in what a customization gets from `kube.accuratePodRequirements` and
returns from GetReplicas, run as a user runs it (`gitfleet interpret` on files), as Karmada's
Lua runtime converts it (luavm/kube.go, lua_convert.go: Go's encoding/json both ways).

Aspects covered:
- a pod template's required node affinity with `nodeSelectorTerms: []` (an empty table, which
  the conversion of the script's table drops) reaches the script without `nodeSelectorTerms`
  (Go's nil slice, JSON null), and the requirements returned as they came hold a node claim
  with nothing in it; an affinity that is itself empty (`{}`) is dropped whole: no node claim;
- a node claim a script writes with a term whose expression has no `key` or `operator` is
  taken with Go's zero values (empty strings), as encoding/json fills in missing fields.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Invoke
from tests.interpreter.lua.conftest import customization_yaml

RIC = customization_yaml(
    ("apps.example.io/v1", "Pool"),
    replicaResource="""
        local kube = require("kube")
        function GetReplicas(obj)
          if obj.spec.claim then return obj.spec.replicas, obj.spec.claim end
          return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
        end""",
    statusReflection="""
        local kube = require("kube")
        function ReflectStatus(obj)
          local hard = kube.accuratePodRequirements(obj.spec.template).nodeClaim.hardNodeAffinity
          return {terms = type(hard.nodeSelectorTerms)}
        end""",
)

AFFINITY = "{nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: REQUIRED}}"
POOL = (
    "{apiVersion: apps.example.io/v1, kind: Pool, metadata: {name: p, namespace: ns},\n"
    f" spec: {{replicas: 2, template: {{spec: {{affinity: {AFFINITY},\n"
    "  containers: [{name: c, resources: {requests: {cpu: 100m}}}]}}}}\n"
)


def _interpret(cli: Invoke, tmp_path: Path, pool: str, operation: str, *flags: str) -> object:
    (tmp_path / "ric.yaml").write_text(RIC)
    (tmp_path / "pool.yaml").write_text(pool)
    args = ["-f", str(tmp_path / "ric.yaml"), "--operation", operation, *flags]
    result = cli("interpret", *args, str(tmp_path / "pool.yaml"), "-o", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


NO_TERMS = "{nodeSelectorTerms: []}"
REQUEST = {"resourceRequest": {"cpu": "100m"}}


def test_terms_absent_reach_the_script_as_nil(cli: Invoke, tmp_path: Path) -> None:
    pool = POOL.replace("REQUIRED", NO_TERMS)
    found = _interpret(cli, tmp_path, pool, "InterpretStatus", "--observed-file")
    assert found == {"status": {"terms": "nil"}}


@pytest.mark.parametrize(
    ("required", "requires"),
    [
        pytest.param(NO_TERMS, {"nodeClaim": {}, **REQUEST}, id="an empty list of terms"),
        pytest.param("{}", REQUEST, id="an empty affinity"),
    ],
)
def test_requirements_returned_as_they_came(
    cli: Invoke, tmp_path: Path, required: str, requires: dict[str, object]
) -> None:
    pool = POOL.replace("REQUIRED", required)
    found = _interpret(cli, tmp_path, pool, "InterpretReplica", "--desired-file")
    assert found == {"replica": 2, "requires": requires}


def test_missing_expression_fields_are_empty(cli: Invoke, tmp_path: Path) -> None:
    terms = "[{matchExpressions: [{values: [a]}]}]"
    claim = f"{{nodeClaim: {{hardNodeAffinity: {{nodeSelectorTerms: {terms}}}}}}}"
    pool = POOL.replace("REQUIRED", "{}").replace("replicas: 2", f"replicas: 2, claim: {claim}")
    found = _interpret(cli, tmp_path, pool, "InterpretReplica", "--desired-file")
    expression = {"key": "", "operator": "", "values": ["a"]}
    assert found == {
        "replica": 2,
        "requires": {
            "nodeClaim": {
                "hardNodeAffinity": {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}
            }
        },
    }
