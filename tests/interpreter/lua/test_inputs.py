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
- the cache is bounded by the size of the documents it holds.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gitfleet.interpreter import lua
from gitfleet.interpreter.lua import _inputs
from tests.interpreter.lua.conftest import results

IDENTITY = "function F(o) return o end"

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
    first = [
        json.loads(r.json or "null", strict=False) for r in sandbox.call(IDENTITY, "F", (document,))
    ]
    again = [
        json.loads(r.json or "null", strict=False) for r in sandbox.call(IDENTITY, "F", (document,))
    ]
    assert first == again


def test_too_deep_for_the_parser_falls_back(sandbox: lua.Sandbox) -> None:
    document: Any = {"leaf": 1}
    for _ in range(300):
        document = {"x": document}
    script = "function F(o) local n = 0 while o.x do o = o.x n = n + 1 end return n, o.leaf end"
    for _ in range(3):
        assert results(sandbox.call(script, "F", (document,))) == [300, 1]


def test_cache_is_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(_inputs, "_CACHE_BYTES", 200)
    sandbox = lua.Sandbox()
    for i in range(50):
        document = {"name": f"object-{i}", "data": "x" * 20}
        for _ in range(2):
            assert results(sandbox.call(IDENTITY, "F", (document,))) == [document]
    assert sandbox._inputs._size <= 200


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
