"""The source rewrite that routes table constructors through key-order tracking, and the
operands of `..` through gopher-lua's number text.

Aspects covered:
- constructors with static keys, computed keys (all keys then recorded in order), positional
  items, nesting, call-argument constructors (`f{}`, `o:m{}`, chained `f{}{}`);
- braces inside strings, long strings and comments are left alone, and so are function bodies
  inside constructors (their commas and `=` are not fields);
- line numbers are preserved (no newline is added);
- a source the lexer cannot read is returned unchanged (Lua reports its real error);
- `#x` becomes a call (in parentheses, so never a tail call) around its unary operand, and
  each binary arithmetic operator (`a % b`, `a + b`, ...) a call of two arguments, nested as
  the operators' precedence and associativity group them (of two calls opening at one place,
  the longer holding the shorter), and a unary minus (but of a number literal) a call inside
  every other call that opens with it;
- `..` operands are whole expressions of higher precedence (arithmetic, unary operators, `^`,
  calls, indexing, parentheses), in chains, inside comparisons, calls, keys and constructors,
  in every statement; string literals are left as they are; a wrapped operand holds the
  constructors it starts or ends with and is held by the key brackets around it; a source the
  parser cannot read keeps its operands as they are (and its constructors still tracked), and
  so does one nested deeper than the parser follows (thousands of parentheses, unary
  operators, blocks or functions), without failing.

What a wrapped number prints is checked against Karmada's answers in test_lua_oracle.py and
test_gopher_library.py.
"""

from __future__ import annotations

import pytest

from gitfleet.interpreter.lua import _rewrite

T, D, F, K = _rewrite.TRACK, _rewrite.TRACK_DYNAMIC, _rewrite.FRAME, _rewrite.KEY
X = _rewrite.TEXT
L = _rewrite.LENGTH
M, A, S, P = (_rewrite.ARITHMETIC[op] for op in "%+-^")
MUL, DIV = _rewrite.ARITHMETIC["*"], _rewrite.ARITHMETIC["/"]
N = _rewrite.NEGATE
TEXT_CALL = f"{X}("

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
    pytest.param(
        'return "n=" .. a + b', f'return "n=" .. {X}(({A}(a , b)))', id="arithmetic operand"
    ),
    pytest.param("x = a..b..'c'", f"x = {X}(a)..{X}(b)..'c'", id="chain, literal left alone"),
    pytest.param(
        "x = -a .. b ^ 2 .. #t .. not c",
        f"x = {X}(({N}(a))) .. {X}(({P}(b , 2))) .. {X}(({L}(t))) .. {X}(not c)",
        id="unary and power",
    ),
    pytest.param(
        "if a .. b == c and d then end",
        f"if {X}(a) .. {X}(b) == c and d then end",
        id="inside a comparison",
    ),
    pytest.param(
        "x = f(a).b[c]:m(d) .. o.p",
        f"x = {X}(f(a).b[c]:m(d)) .. {X}(o.p)",
        id="calls and indexing",
    ),
    pytest.param(
        "x = (a .. b) .. 1.5",
        f"x = {X}(({X}(a) .. {X}(b))) .. {X}(1.5)",
        id="parentheses and a number",
    ),
    pytest.param(
        "x = {[a .. b] = 1, c = d .. {e = 1}}",
        f"x = {D}({F}(),{{[{K}({X}(a) .. {X}(b))] = 1,"
        f' [{K}"c"] = {X}(d) .. {X}({T}({{e = 1}}, "e"))}})',
        id="in a key and before a constructor",
    ),
    pytest.param(
        "y = f{a = 1} .. x", f'y = {X}(f({T}({{a = 1}}, "a"))) .. {X}(x)', id="call with a table"
    ),
    pytest.param(
        "for i = 1, n .. '' do local s = i .. '' repeat until s .. x end",
        f"for i = 1, {X}(n) .. '' do local s = {X}(i) .. '' repeat until {X}(s) .. {X}(x) end",
        id="statements",
    ),
    pytest.param(
        "local function f(...) return ... .. g(function() return a .. 1 end) end",
        f"local function f(...) return {X}(...)"
        f" .. {X}(g(function() return {X}(a) .. {X}(1) end)) end",
        id="varargs and functions",
    ),
    pytest.param("n = #t.items + 1", f"n = ({A}(({L}(t.items)) , 1))", id="length"),
    pytest.param(
        "return #t ^ 2, - #u",
        f"return ({L}(({P}(t , 2)))), ({N}( ({L}(u))))",
        id="length of a power",
    ),
    pytest.param(
        "x = {[#t] = #{1}}",
        f"x = {D}({F}(),{{[{K}(({L}(t)))] = ({L}({T}({{1}})))}})",
        id="lengths in a key and of a constructor",
    ),
    pytest.param("return a % b", f"return ({M}(a , b))", id="modulo"),
    pytest.param("x = a % b % 2", f"x = ({M}(({M}(a , b)) , 2))", id="modulo chain"),
    pytest.param(
        "x = -a % b ^ 2 + 1",
        f"x = ({A}(({M}(({N}(a)) , ({P}(b , 2)))) , 1))",
        id="modulo of unary and power",
    ),
    pytest.param(
        "x = a + b * c - d / e",
        f"x = ({S}(({A}(a , ({MUL}(b , c)))) , ({DIV}(d , e))))",
        id="precedence",
    ),
    pytest.param(
        "x = 2 ^ -3 ^ 2", f"x = ({P}(2 , ({N}(({P}(3 , 2))))))", id="power, right to left"
    ),
    pytest.param("x = -a + -1", f"x = ({A}(({N}(a)) , -1))", id="minus, not of a number"),
    pytest.param(
        "x = a + -b .. - -c",
        f"x = {X}(({A}(a , ({N}(b))))) .. {X}(({N}( ({N}(c)))))",
        id="minus inside calls",
    ),
    pytest.param("x = a % b .. c", f"x = {X}(({M}(a , b))) .. {X}(c)", id="modulo joined"),
    pytest.param("x = #t % 2", f"x = ({M}(({L}(t)) , 2))", id="modulo of a length"),
    pytest.param(
        "x = {[a % 2] = b % c}",
        f"x = {D}({F}(),{{[{K}(({M}(a , 2)))] = ({M}(b , c))}})",
        id="modulo in a key",
    ),
    pytest.param("x = a .. ", "x = a .. ", id="cannot parse: kept"),
    pytest.param(
        "x = {a = 1} y = a .. .. b",
        f'x = {T}({{a = 1}}, "a") y = a .. .. b',
        id="cannot parse: constructors still tracked",
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


@pytest.mark.parametrize(
    "source",
    [
        "return " + "(" * 5000 + "a .. 1" + ")" * 5000,
        "return " + "-" * 5000 + "a .. 1",
        "if a then " * 3000 + "x = a .. 1 " + "end " * 3000,
        "x = " + "f(function() " * 2000 + "return a .. 1 " + "end)" * 2000,
    ],
    ids=["parentheses", "unary operators", "blocks", "functions"],
)
def test_nesting_past_what_the_parser_follows_keeps_the_operands(source: str) -> None:
    """Lua refuses such a chunk (too many syntax levels); the rewrite must not fail first."""
    assert TEXT_CALL not in _rewrite.rewrite(source)
