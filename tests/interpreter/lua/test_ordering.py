"""`pairs` and `next` iterate as gopher-lua (Karmada's VM) does: positive integer keys in
ascending order, then the other keys in the order they were first inserted.

Aspects covered:
- keys from a constructor, from later assignments, mixed, from computed `[k] =` keys, in nested
  constructors and in constructors passed as call arguments (`f{...}`);
- deleting a key and setting it again keeps its first position;
- integer keys come first, ascending, whatever the insertion order;
- `next(t)` on empty and non-empty tables, `next(t, k)` walking, and its error for a bad key;
- tables converted from the script's arguments iterate too, their keys sorted (their order is
  unspecified in Karmada, where they come from Go maps), the same on a document's first call
  (converted value by value), on later ones (built by a compiled constructor) and for scripts
  given shared tables, so that no answer depends on which call came first;
- the errors Lua gives for a nil or NaN key are kept.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet.interpreter.lua import _readonly
from gitfleet.interpreter.lua._sandbox import ScriptError
from tests.interpreter.lua.conftest import Run, results

KEYS = """
local function keys(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = tostring(k) end
  return table.concat(out, ",")
end
function F(arg)
  {body}
end
"""

CASES = [
    pytest.param("return keys({z = 1, a = 2, m = 3})", "z,a,m", id="constructor"),
    pytest.param("local t = {} t.z = 1 t.a = 2 t.m = 3 return keys(t)", "z,a,m", id="assignments"),
    pytest.param("local t = {z = 1} t.a = 2 t.b = 3 return keys(t)", "z,a,b", id="both"),
    pytest.param(
        "local k = 'q' return keys({z = 1, [k] = 2, a = 3, ['x' .. 1] = 4})",
        "z,q,a,x1",
        id="computed keys",
    ),
    pytest.param("local t = {b = {y = 1, x = 2}} return keys(t.b)", "y,x", id="nested"),
    pytest.param(
        "local function id(t) return t end return keys(id{c = 1, b = 2})", "c,b", id="call form"
    ),
    pytest.param(
        "local t = {a = 1, b = 2, c = 3} t.a = nil t.d = 4 t.a = 5 return keys(t)",
        "a,b,c,d",
        id="reinsert keeps first place",
    ),
    pytest.param(
        "local t = {z = 1} t[3] = 'c' t[1] = 'a' t.y = 2 t[2] = 'b' return keys(t)",
        "1,2,3,z,y",
        id="integers first, ascending",
    ),
    pytest.param(
        "local t = {} for i = 1, 20 do t['k' .. (21 - i)] = i end return keys(t)",
        ",".join(f"k{21 - i}" for i in range(1, 21)),
        id="many keys",
    ),
    pytest.param("return next({})", None, id="next of empty"),
    pytest.param("local t = {b = 1, a = 2} return next(t)", "b", id="next first"),
    pytest.param("local t = {b = 1, a = 2} return (next(t, 'b'))", "a", id="next after"),
    pytest.param("local t = {b = 1, a = 2} return next(t, 'a')", None, id="next after last"),
    pytest.param("return keys(arg.obj)", "x", id="converted argument"),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_iteration_order(run: Run, body: str, expected: Any) -> None:
    assert run(KEYS.replace("{body}", body), {"obj": {"x": 1}})[0] == expected


ERRORS = [
    pytest.param("local t = {} t[nil] = 1", "table index is nil", id="nil key"),
    pytest.param("local t = {} t[0/0] = 1", "table index is NaN", id="nan key"),
    pytest.param("return next({a = 1}, 'zz')", "invalid key to 'next'", id="bad next key"),
    pytest.param("for k in pairs(nil) do end", "bad argument #1 to 'pairs'", id="pairs of nil"),
]


@pytest.mark.parametrize(("body", "message"), ERRORS)
def test_errors_are_lua_errors(run: Run, body: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        run(KEYS.replace("{body}", body), {})


def test_aggregation_by_key_keeps_first_seen_order(run: Run) -> None:
    """Karmada's MPIJob status aggregation: conditions keyed by type, listed with pairs."""
    script = """
    function F(items)
      local latest = {}
      for _, c in ipairs(items) do latest[c.type] = c end
      local out = {}
      for _, c in pairs(latest) do out[#out + 1] = c.type end
      return out
    end
    """
    items = [{"type": t} for t in ("Running", "Created", "Failed", "Running", "Succeeded")]
    assert run(script, items) == [["Running", "Created", "Failed", "Succeeded"]]


def test_arguments_iterate_in_one_order_however_built(sandbox: Any) -> None:
    document = {f"key{i}": {f"n{j}": j for j in range(i % 7)} for i in range(40)}
    body = """
      local s = ""
      for k, v in pairs(o) do
        s = s .. k .. ","
        for n in pairs(v) do s = s .. n .. "," end
      end
      return s, (next(o))
    """
    reads = f"function F(o) {body} end"
    changes = f"function F(o) local own = {{}} own.x = 1 {body} end"
    assert _readonly.cannot_change_tables(reads)
    assert not _readonly.cannot_change_tables(changes)
    expected = [
        "".join(
            f"{k}," + "".join(f"n{j}," for j in range(int(k[3:]) % 7)) for k in sorted(document)
        ),
        "key0",
    ]
    for script in (changes, changes, changes, reads, reads):
        assert results(sandbox.call(script, "F", (document,))) == expected
