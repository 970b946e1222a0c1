"""The bounds the sandbox puts on single library calls, and what scripts see of them.

Aspects covered:
- table.insert and table.remove at positions outside the array answer at once, as gopher-lua
  (Karmada's VM) does: insert sets that one key, remove below 1 takes the last element, past the
  end nothing; within the array they move elements as before;
- table.concat takes i and j as gopher-lua does (clamped to the array); table.sort gives C's
  order and errors, with or without a comparison function; table.maxn;
- string functions refuse inputs over the size cap (Karmada's), table.concat and os.date
  results over it; string.gsub, rep and dump raise Karmada's error, whatever their arguments;
  argument errors name the function;
- os.date: leading `!`s are trimmed as Go trims them, `*t` lists its fields in Karmada's order;
  os.time refuses parts and dates beyond Go's int64;
- kube quantity strings over their total cap; results with more values than the cap; error
  messages are clipped; scripts over the size cap do not compile;
- only the results an operation reads are encoded (Karmada's `nRets`).
"""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from gitfleet.errors import LuaError
from gitfleet.interpreter import lua
from gitfleet.interpreter.lua._sandbox import ScriptError
from tests.interpreter.lua.conftest import HEALTHY, REP, Run, assert_still_works, health_layer

RESULTS = [
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, -2^31, 'x') return {#t, t[-2^31]}",
        [3, "x"],
        id="insert far below the array",
    ),
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, 0, 'x') return {t[0], t[1], #t}",
        ["x", 1, 3],
        id="insert at 0",
    ),
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, 10, 'x') return {t[10], #t}",
        ["x", 10],  # Karmada's answer: the length runs to the last key set
        id="insert past the end",
    ),
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, 1e300, 'x') return #t", 3, id="insert at 1e300"
    ),
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, 2, 'x') return t", [1, "x", 2, 3], id="insert inside"
    ),
    pytest.param(
        "local t = {1, 2, 3} table.insert(t, '4', 'x') return t",
        [1, 2, 3, "x"],
        id="insert at a numeric string",
    ),
    pytest.param(
        "local t = {1, 2, 3} local v = table.remove(t, -5) return {v, #t}",
        [3, 2],
        id="remove below 1 takes the last",
    ),
    pytest.param(
        "local t = {1, 2, 3} local v = table.remove(t, 10) return {v == nil, #t}",
        [True, 3],
        id="remove past the end takes nothing",
    ),
    pytest.param(
        "local t = {1, 2, 3} local v = table.remove(t, 2) return {v, t}",
        [2, [1, 3]],
        id="remove inside",
    ),
    pytest.param(
        "local t = {1, 2, 3} local v = table.remove(t) return {v, t}", [3, [1, 2]], id="remove"
    ),
    pytest.param(
        "return table.concat({'a', 'b', 'c'}, ',', 2, 10)", "b,c", id="concat j past the end"
    ),
    pytest.param("return table.concat({'a', 'b', 'c'}, ',', -5, 2)", "a,b", id="concat i below 1"),
    pytest.param("return table.concat({'a', 'b', 'c'}, ',', 5)", "", id="concat i past the end"),
    pytest.param("return table.concat({1, 2.5, 'x'}, '-')", "1-2.5-x", id="concat numbers"),
    pytest.param(
        "local t = {5, 2, 8, 1, 9, 3} table.sort(t) return t", [1, 2, 3, 5, 8, 9], id="sort"
    ),
    pytest.param(
        "local t = {'b', 'c', 'a'} table.sort(t, function(a, b) return a > b end) return t",
        ["c", "b", "a"],
        id="sort with a function",
    ),
    pytest.param(
        "local t = {3, 1, 2} table.sort(t, function() return true end) return #t",
        3,
        id="sort with an inconsistent function",
    ),
    pytest.param("local t = {1, 2} t[10.5] = 1 t[-3] = 1 return table.maxn(t)", 10.5, id="maxn"),
    pytest.param("return os.date('!!%Y', 0)", "1970", id="date trims every !"),
    pytest.param(
        "local n = {} for k in pairs(os.date('*t', 0)) do n[#n + 1] = k end return n",
        ["year", "month", "day", "hour", "min", "sec", "wday", "yday", "isdst"],
        id="date *t in Karmada's order",
    ),
    pytest.param("return #os.date(rep('%Y', 200000), 0)", 800_000, id="date below the cap"),
]


@pytest.mark.parametrize(("body", "expected"), RESULTS)
def test_library_result(run: Run, body: str, expected: Any) -> None:
    assert run(f"{REP}function F() {body} end") == [expected]


ERRORS = [
    pytest.param(
        "local t = {1} table.insert(t, 0/0, 'x')",
        "bad argument #2 to 'insert' (number expected, got NaN)",
        id="insert at NaN",
    ),
    pytest.param(
        "table.insert({}, 'a', 1)",
        "bad argument #2 to 'insert' (number expected, got string)",
        id="insert at a word",
    ),
    pytest.param(
        "local t = {} for i = 1, 200 do t[i] = rep('x', 10000) end\nlocal s = table.concat(t)",
        "table.concat result of more than 1000000 bytes exceeds the limit",
        id="concat result",
    ),
    pytest.param(
        "local s = table.concat({'a', {}, 'c'})",
        "invalid value (table) at index 2 in table for 'concat'",
        id="concat of a table",
    ),
    pytest.param(
        "table.sort({1, 'a', 2})", "attempt to compare string with number", id="sort mixed"
    ),
    pytest.param(
        "table.sort({3, 1, 2}, function(a, b) error('no order') end)",
        "no order",
        id="sort function fails",
    ),
    pytest.param(
        "table.sort({3, 1}, 5)",
        "bad argument #2 to 'sort' (function expected, got number)",
        id="sort with a number",
    ),
    pytest.param(
        "local i = string.find(nil, 'x')",
        "bad argument #1 to 'find' (string expected, got nil)",
        id="argument errors name the function",
    ),
    *[
        pytest.param(
            f"local s = rep('x', 1000000) .. 'y'\nlocal r = {call}",
            f"string length 1000001 exceeds the maximum allowed input string length 1000000 in "
            f"'{name}'",
            id=f"{name} input",
        )
        for name, call in [
            ("upper", "s:upper()"),
            ("lower", "string.lower(s)"),
            ("reverse", "s:reverse()"),
            ("sub", "s:sub(1, 2)"),
            ("byte", "s:byte(1)"),
            ("format", "string.format(s)"),
            ("find", "s:find('x', 1, true)"),
            ("match", "s:match('y')"),
            ("gmatch", "s:gmatch('y')"),
            ("date", "os.date(s)"),
        ]
    ],
    *[
        pytest.param(
            call,
            f"The Lua function string.{name} is not supported by Karmada. If you believe this"
            " function is essential for your use case, please submit an issue to let us know why"
            " you need it.",
            id=f"{name} refused",
        )
        for name, call in [
            ("gsub", "local r = string.gsub('abc', 'b', 'x')"),
            ("rep", "local r = ('ab'):rep(2)"),
            ("dump", "local d = string.dump(F)"),
        ]
    ],
    pytest.param(
        "local d = os.date(rep('%c', 60000), 0)",
        "os.date result of more than 1000000 bytes exceeds the limit",
        id="date result",
    ),
    pytest.param(
        "local t = os.time({year = 1e300})", "field 'year' 1e+300 is out of range", id="time part"
    ),
    pytest.param("local t = os.time({year = 1e15})", "the date is out of range", id="time result"),
    pytest.param(
        "local kube = require('kube')\nlocal q = kube.resourceAdd('1', rep('1', 70000))",
        "resourceAdd arguments of 70001 bytes exceed the limit of 65536 bytes",
        id="kube quantities",
    ),
    pytest.param(
        "local kube = require('kube')\nlocal q = kube.getResourceQuantity(rep('1', 70000))",
        "getResourceQuantity arguments of 70000 bytes exceed the limit of 65536 bytes",
        id="kube quantity",
    ),
]


@pytest.mark.parametrize(("body", "message"), ERRORS)
def test_library_error(run: Run, body: str, message: str) -> None:
    with pytest.raises(ScriptError) as caught:
        run(f"{REP}function F()\n{body}\nend")
    assert caught.value.message == message
    assert caught.value.line is not None


def test_a_result_holds_at_most_the_value_cap(run: Run) -> None:
    with pytest.raises(ScriptError, match="cannot encode more than 50000 values"):
        run("function F() local t = {} for i = 1, 50000 do t[i] = i end return t end")
    assert len(run("function F() local t = {} for i = 1, 49999 do t[i] = i end return t end")[0])


def test_error_messages_are_clipped(run: Run) -> None:
    with pytest.raises(ScriptError) as caught:
        run(REP + "function F()\nerror(rep('x', 5000))\nend")
    assert caught.value.message == "x" * 1000 + "... (4000 more bytes)"
    assert caught.value.line == 2


def test_scripts_over_the_size_cap_do_not_compile(sandbox: lua.Sandbox) -> None:
    script = "function F() return 1 end\n" + "-- " + "x" * 65536 + "\n"
    with pytest.raises(ScriptError, match="script of 65566 bytes exceeds the limit of 65536"):
        sandbox.compile(script)


def test_only_the_results_an_operation_reads_are_encoded(sandbox: lua.Sandbox) -> None:
    """A second result JSON cannot hold: Karmada reads one result of InterpretHealth."""
    body = "return true, {1, a = 2}"
    assert health_layer(sandbox, body).interpret_health(HEALTHY) == (True, True)
    with pytest.raises(ScriptError, match="mixed or invalid key types"):
        sandbox.call(textwrap.dedent(f"function F() {body} end"), "F", [])


def test_a_stopped_call_leaves_the_sandbox_working(sandbox: lua.Sandbox) -> None:
    body = REP + "local t = {} for i = 1, 200 do t[i] = rep('x', 10000) end"
    with pytest.raises(LuaError, match="exceeds the limit"):
        health_layer(sandbox, body + " return table.concat(t)").interpret_health(HEALTHY)
    assert_still_works(sandbox)
