"""Lua patterns: the hook-bounded matcher in Lua gives what C's lstrlib gives.

Aspects covered:
- find, match and gmatch agree between the Lua matcher and the C one on generated subjects
  and patterns, errors included (malformed patterns, bad captures), with init positions and
  plain searches (gsub raises Karmada's error before any matching);
- anchors, `%b`, `%f` (a plain `f`, as Karmada's matcher reads it), back references, position
  captures, classes and sets, as tables;
- the cost model sends cheap patterns to C and expensive ones to the Lua matcher, whose runs
  the instruction budget bounds.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from tests.interpreter.lua.conftest import results

PROBE = r"""
local function pack(...)
  local t = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if v == nil then t[i] = "<nil>" else t[i] = v end
  end
  t[#t + 1] = "<end>"
  return t
end

function F(op, s, p, init, plain)
  if op == "gmatch" then
    local ok, out = pcall(function()
      local found = {}
      for a, b, c in string.gmatch(s, p) do found[#found + 1] = pack(a, b, c) end
      return found
    end)
    return pack(ok, out)
  end
  return pack(pcall(string[op], s, p, init, plain))
end
"""

IN_LUA = lua.Sandbox(lua.Limits(pattern_cost=0))
IN_C = lua.Sandbox(lua.Limits(pattern_cost=float("inf")))


def _both(*args: Any) -> tuple[Any, Any]:
    return (
        results(IN_LUA.call(PROBE, "F", args))[0],
        results(IN_C.call(PROBE, "F", args))[0],
    )


SUBJECT = st.text(alphabet="ab(c)[%]- .", max_size=12)
PIECES = [
    *("a", "b", ".", "%a", "%d", "%s", "%w", "%p", "%A", "[ab]", "[^a]", "[a-c]", "[%]]"),
    *("*", "+", "-", "?", "(", ")", "()", "%1", "%b()", "%f[a]", "^", "$", "%", "[", "%%"),
]
PATTERN = st.lists(st.sampled_from(PIECES), max_size=7).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    op=st.sampled_from(["find", "match", "gmatch"]),
    subject=SUBJECT,
    pattern=PATTERN,
    init=st.sampled_from([None, 1, 2, -1, -3, 0, 20]),
)
def test_lua_matcher_agrees_with_c(op: str, subject: str, pattern: str, init: int | None) -> None:
    in_lua, in_c = _both(op, subject, pattern, init)
    assert in_lua == in_c


@settings(max_examples=100, deadline=None)
@given(subject=SUBJECT, pattern=st.text(alphabet="ab.%(", max_size=4), init=st.integers(-5, 15))
def test_plain_find_agrees_with_c(subject: str, pattern: str, init: int) -> None:
    in_lua, in_c = _both("find", subject, pattern, init, True)
    assert in_lua == in_c


CASES = [  # (operation, subject, pattern, init or replacement, results)
    ("find", "hello world", "o w", None, [True, 5, 7], "plain substring"),
    ("find", "key=value", "(%w+)=(%w+)", None, [True, 1, 9, "key", "value"], "captures"),
    ("match", "  trim me  ", "^%s*(.-)%s*$", None, [True, "trim me"], "trim"),
    ("match", "f(a(b)c)d", "%b()", None, [True, "(a(b)c)"], "balanced"),
    ("match", "THE (quick) fox", "%f[%a]%a+", 5, [True, "fox"], "frontier is a plain f"),
    ("match", "abcabc", "(abc)%1", None, [True, "abc"], "back reference"),
    ("match", "hello", "()ll()", None, [True, 3, 5], "position captures"),
    ("find", "a.b", ".", 2, [True, 2, 2], "init"),
    ("match", "x", "[a", None, [False, "malformed pattern (missing ']')"], "missing ]"),
    ("match", "x", "%", None, [False, "malformed pattern (ends with '%')"], "ends with %"),
    ("match", "x", "(x", None, [False, "unfinished capture"], "unfinished capture"),
    ("match", "x", "x)", None, [False, "invalid pattern capture"], "bad close"),
    ("match", "x", "%1", None, [False, "invalid capture index"], "bad back reference"),
]


@pytest.mark.parametrize("sandbox_", [IN_LUA, IN_C], ids=["lua matcher", "c matcher"])
@pytest.mark.parametrize(
    ("op", "subject", "pattern", "arg", "expected"), [pytest.param(*c[:5], id=c[5]) for c in CASES]
)
def test_pattern_cases(
    sandbox_: lua.Sandbox, op: str, subject: str, pattern: str, arg: Any, expected: list[Any]
) -> None:
    found = results(sandbox_.call(PROBE, "F", (op, subject, pattern, arg)))[0]
    if found[0] is False:  # a caught error names the script's line, as Karmada's does
        assert found[1].startswith("<string>:")
        found[1] = found[1].split(": ", 1)[1]
    assert found == [*expected, "<end>"]


def test_expensive_pattern_runs_bounded(tight_sandbox: lua.Sandbox) -> None:
    """The same call that would backtrack for hours in C stops on the instruction budget."""
    script = "function F(s) return string.find(s, '" + "a*" * 12 + "b') end"
    with pytest.raises(lua._sandbox.ScriptError, match="instruction limit exceeded"):
        tight_sandbox.call(script, "F", ("a" * 200,))
    assert results(tight_sandbox.call(script, "F", ("a" * 5 + "b",))) == [1, 6]


def test_oversized_subject_is_refused(sandbox: lua.Sandbox) -> None:
    script = "function F(s) return string.find(s .. s, 'x') end"
    with pytest.raises(lua._sandbox.ScriptError, match="maximum allowed input string length"):
        sandbox.call(script, "F", ("a" * 600_000,))


def test_pattern_error_is_located_in_a_customization() -> None:
    from tests.interpreter.lua.conftest import deployment, make_customization

    script = "function InterpretHealth(o)\n  local x = string.match('a', '[a')\n  return x\nend"
    ric = make_customization(healthInterpretation=script)
    with pytest.raises(LuaError, match="lua line 2: malformed pattern"):
        lua.LuaLayer([ric], sandbox=IN_LUA).interpret_health(deployment())
