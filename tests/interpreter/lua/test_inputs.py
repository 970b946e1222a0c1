"""Documents met again are built in Lua by a compiled constructor (`_inputs`), which must give
the very tables the value-by-value conversion gives.

Aspects covered:
- generated documents (nested objects and arrays, nulls, unicode and control characters,
  quotes and backslashes, integers, floats, booleans) read the same in Lua the first time
  (`_convert.to_lua`) and every later time (the constructor);
- documents Lua cannot compile as one expression (nested deeper than its parser allows) still
  convert, through `to_lua`;
- documents that differ only in the type of a value (`1`, `1.0`, `true`), or hold values JSON
  cannot (NaN), or are of a subclass of dict, each get tables of their own;
- the cache is bounded by the size of the documents it holds;
- a script that cannot change a table (`_readonly`) is given the same tables for the same
  document call after call, with the same answers (also from `kube`, whose argument's text is
  kept); a script that can change one gets tables of its own every call, and what it changes
  reaches neither its next call nor a script sharing tables; the shared tables are bounded too.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitfleet.interpreter import lua
from gitfleet.interpreter.lua import _inputs, _readonly
from tests.interpreter.lua.conftest import results

IDENTITY = "function F(o) return o end"
"""Returns its argument; it cannot change a table, so it is given shared tables."""
OWN_TABLES = "function F(o) local t = {} t.x = o return o end"
"""Returns its argument; it could change a table, so every call builds its tables."""

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False, width=64)
    | st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=8)
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
).filter(lambda d: isinstance(d, dict | list))


@settings(max_examples=200, deadline=None)
@given(document=DOCUMENTS)
def test_constructor_builds_what_conversion_builds(sandbox: lua.Sandbox, document: Any) -> None:
    # the tables as JSON, before Karmada's repair of empty tables (which refuses some keys)
    def returned(script: str) -> list[Any]:
        found = sandbox.call(script, "F", (document,))
        return [json.loads(r.json or "null", strict=False) for r in found]

    first = returned(OWN_TABLES)
    assert returned(OWN_TABLES) == first  # from the constructor
    assert returned(IDENTITY) == returned(IDENTITY) == first  # shared tables


def test_too_deep_for_the_parser_falls_back(sandbox: lua.Sandbox) -> None:
    document: Any = {"leaf": 1}
    for _ in range(300):
        document = {"x": document}
    script = (
        "function F(o) local n = {v = 0}"  # a table it changes: it gets tables of its own
        " while o.x do o = o.x n.v = n.v + 1 end return n.v, o.leaf end"
    )
    for _ in range(3):
        assert results(sandbox.call(script, "F", (document,))) == [300, 1]


@pytest.mark.parametrize(
    ("limit", "script", "kept"),
    [
        ("_CACHE_BYTES", OWN_TABLES, "_constructors"),
        ("_SHARED_BYTES", IDENTITY, "_shared"),
    ],
    ids=["constructors", "shared tables"],
)
def test_cache_is_bounded(monkeypatch: Any, limit: str, script: str, kept: str) -> None:
    monkeypatch.setattr(_inputs, limit, 200)
    sandbox = lua.Sandbox()
    for i in range(50):
        document = {"name": f"object-{i}", "data": "x" * 20}
        for _ in range(2):
            assert results(sandbox.call(script, "F", (document,))) == [document]
    assert 0 < getattr(sandbox._inputs, kept).size <= 200


class _Document(dict[str, Any]):
    """A subclass of dict, as some YAML loaders give (marshal refuses it)."""


def test_documents_differing_only_in_types_are_told_apart(sandbox: lua.Sandbox) -> None:
    script = "function F(o) return type(o.v), tostring(o.v) end"
    for _ in range(3):  # first met, then built by the constructor
        for value, expected in (
            (1, ["number", "1"]),
            (1.5, ["number", "1.5"]),
            (True, ["boolean", "true"]),
        ):
            assert results(sandbox.call(script, "F", ({"v": value},))) == expected
            assert results(sandbox.call(script, "F", (_Document(v=value),))) == expected
    nan = {"v": float("nan")}
    for _ in range(3):
        assert results(sandbox.call(script, "F", (nan,))) == ["number", "NaN"]


POD_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 3,
        "template": {
            "spec": {
                "containers": [
                    {"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}
                ],
                "nodeSelector": {"pool": "general"},
            }
        },
    },
}
READS = """
local kube = require("kube")
function F(o)
  return tostring(o), o.spec.replicas, kube.accuratePodRequirements(o.spec.template)
end
"""
CHANGES = """
local kube = require("kube")
function F(o)
  local before = o.spec.replicas
  o.spec.replicas = before + 1
  o.spec.template.spec.containers[1].resources.requests.cpu = "2"
  table.insert(o.spec.template.spec.containers, {name = "b"})
  return before, #o.spec.template.spec.containers, kube.accuratePodRequirements(o.spec.template)
end
"""
REQUIREMENTS = {"nodeClaim": {"nodeSelector": {"pool": "general"}}, "resourceRequest": {}}


def test_scripts_that_cannot_change_tables_share_them(sandbox: lua.Sandbox) -> None:
    assert _readonly.cannot_change_tables(READS)
    assert not _readonly.cannot_change_tables(CHANGES)
    answers = [results(sandbox.call(READS, "F", (POD_DEPLOYMENT,))) for _ in range(3)]
    address, replicas, requirements = answers[0]
    assert address.startswith("table: ") and replicas == 3
    assert requirements["resourceRequest"] == {"cpu": "250m", "memory": "64Mi"}
    assert answers[1] == answers[2] == answers[0]  # the very same tables, the same answers
    for _ in range(3):
        changed = results(sandbox.call(CHANGES, "F", (POD_DEPLOYMENT,)))
        assert changed[:2] == [3, 2]  # its own tables each time
        assert changed[2]["resourceRequest"] == {"cpu": "2", "memory": "64Mi"}
        assert results(sandbox.call(READS, "F", (POD_DEPLOYMENT,))) == answers[0]
