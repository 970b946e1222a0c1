"""Checking customizations without objects (`lua.check`, for `validate` and `interpret --check`).

Aspects covered:
- a script that compiles and defines its function has no diagnostics;
- syntax errors (one naming a lone byte of a UTF-8 character too) are errors at the
  `luaScript` field, with the Lua line; a missing function, a function name bound to something
  else, and top-level code that fails or runs away are warnings there (Karmada's webhook only
  compiles a script: each call of such a one fails);
- what Karmada refuses (string.gsub, string.rep, string.dump, `kube` without require) is a
  warning;
- diagnostics come sorted, each naming the rule field.
"""

from __future__ import annotations

import pytest

from gitfleet.interpreter import lua
from gitfleet.model import diagnostic
from tests.interpreter.lua.conftest import make_customization

FAILS = "; Karmada takes the script, and each call of it fails"
CASES = [
    pytest.param("function InterpretHealth(o) return true end", [], id="clean"),
    pytest.param(
        "function InterpretHealth(o)\n  return o.x ==\nend",
        [("error", "healthInterpretation: lua line 3: unexpected symbol near 'end'")],
        id="syntax error",
    ),
    pytest.param(
        "function InterpretHealth(o) return é end",
        [("error", "healthInterpretation: lua line 1: unexpected symbol near '\ufffd'")],
        id="syntax error naming one byte of a character",
    ),
    pytest.param(
        "function Health(o) return true end",
        [
            (
                "warning",
                "healthInterpretation: the script does not define function InterpretHealth" + FAILS,
            )
        ],
        id="missing function",
    ),
    pytest.param(
        "InterpretHealth = true",
        [("warning", "healthInterpretation: InterpretHealth is a boolean, not a function" + FAILS)],
        id="not a function",
    ),
    pytest.param(
        "local x = nil\nlocal y = x.field\nfunction InterpretHealth(o) return true end",
        [
            (
                "warning",
                "healthInterpretation: lua line 2: attempt to index local 'x' (a nil value)"
                + FAILS,
            )
        ],
        id="top level fails",
    ),
    pytest.param(
        "while true do end\nfunction InterpretHealth(o) return true end",
        [("warning", "healthInterpretation: lua line 1: instruction limit exceeded" + FAILS)],
        id="top level runs away",
    ),
    pytest.param(
        "function InterpretHealth(o)\n  return (string.gsub(o.x, 'a', 'b')) == ('x'):rep(2)\n"
        "  or string.dump(InterpretHealth)\nend",
        [
            ("warning", "healthInterpretation: string.dump raises an error in Karmada"),
            ("warning", "healthInterpretation: string.gsub raises an error in Karmada"),
            ("warning", "healthInterpretation: string.rep raises an error in Karmada"),
        ],
        id="karmada refuses gsub, rep and dump",
    ),
    pytest.param(
        "function InterpretHealth(o) return kube.getResourceQuantity('1') > 0 end",
        [
            (
                "warning",
                'healthInterpretation: kube is used without local kube = require("kube"), '
                "which Karmada needs",
            )
        ],
        id="kube without require",
    ),
]


@pytest.mark.parametrize(("script", "expected"), CASES)
def test_check(tight_sandbox: lua.Sandbox, script: str, expected: list[tuple[str, str]]) -> None:
    found = lua.check(make_customization(healthInterpretation=script), tight_sandbox)
    assert [(str(d.severity), d.message) for d in found] == expected
    assert all(str(d.origin) == "ric.yaml:11:7" for d in found)


def test_every_rule_is_checked(tight_sandbox: lua.Sandbox) -> None:
    customization = make_customization(
        replicaResource="function GetReplicas(o) return 1 end",
        retention="function Keep(d, o) return d end",
        statusAggregation="function AggregateStatus(d, items) return d",
    )
    found = lua.check(customization, tight_sandbox)
    assert found == diagnostic.sorted_diagnostics(found)
    messages = sorted(d.message.split(":")[0] for d in found)
    assert messages == ["retention", "statusAggregation"]
