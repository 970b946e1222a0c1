"""The source rewrite that routes table constructors through key-order tracking.

Aspects covered:
- constructors with static keys, computed keys (all keys then recorded in order), positional
  items, nesting, call-argument constructors (`f{}`, `o:m{}`, chained `f{}{}`);
- braces inside strings, long strings and comments are left alone, and so are function bodies
  inside constructors (their commas and `=` are not fields);
- line numbers are preserved (no newline is added);
- a source the lexer cannot read is returned unchanged (Lua reports its real error).
"""

from __future__ import annotations

import pytest

from gitfleet.interpreter.lua import _rewrite

T, D, F, K = _rewrite.TRACK, _rewrite.TRACK_DYNAMIC, _rewrite.FRAME, _rewrite.KEY

CASES = [
    pytest.param("x = {}", f"x = {T}({{}})", id="empty"),
    pytest.param("x = {1, 2}", f"x = {T}({{1, 2}})", id="positional"),
    pytest.param("x = {a = 1, b = 2}", f'x = {T}({{a = 1, b = 2}}, "a", "b")', id="static keys"),
    pytest.param("x = {a = {b = 1}}", f'x = {T}({{a = {T}({{b = 1}}, "b")}}, "a")', id="nested"),
    pytest.param(
        "x = {[k] = 1, a = 2}",
        f'x = {D}({F}(),{{[{K}(k)] = 1, [{K}"a"] = 2}})',
        id="computed keys",
    ),
    pytest.param("f{a = 1}", f'f({T}({{a = 1}}, "a"))', id="call argument"),
    pytest.param("o:m{}", f"o:m({T}({{}}))", id="method call argument"),
    pytest.param("f{}{}", f"f({T}({{}}))({T}({{}}))", id="chained calls"),
    pytest.param("return {}", f"return {T}({{}})", id="after a keyword"),
    pytest.param("x = f({})", f"x = f({T}({{}}))", id="inside parentheses"),
    pytest.param("x = '{a = 1}'", "x = '{a = 1}'", id="string"),
    pytest.param("x = [==[ {a = 1} ]==]", "x = [==[ {a = 1} ]==]", id="long string"),
    pytest.param("-- {a = 1}\nx = 1", "-- {a = 1}\nx = 1", id="comment"),
    pytest.param("--[[ {a = 1} ]] x = 1", "--[[ {a = 1} ]] x = 1", id="long comment"),
    pytest.param(
        "x = {f = function() local a, b = 1, 2 end, y = 2}",
        f'x = {T}({{f = function() local a, b = 1, 2 end, y = 2}}, "f", "y")',
        id="function body in a constructor",
    ),
    pytest.param(
        "x = {a = 1, [t[1]] = 2}",
        f'x = {D}({F}(),{{[{K}"a"] = 1, [{K}(t[1])] = 2}})',
        id="brackets inside a computed key",
    ),
    pytest.param("x = 'unfinished", "x = 'unfinished", id="cannot lex: unchanged"),
    pytest.param("x = {a = 1", "x = {a = 1", id="unbalanced: unchanged"),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_rewrite(source: str, expected: str) -> None:
    assert _rewrite.rewrite(source) == expected


def test_lines_are_kept() -> None:
    source = "local t = {\n  a = 1,\n  b = {\n    c = 2,\n  },\n}\nreturn t\n"
    rewritten = _rewrite.rewrite(source)
    assert rewritten != source
    assert rewritten.count("\n") == source.count("\n")
    assert rewritten.splitlines()[-1] == "return t"
