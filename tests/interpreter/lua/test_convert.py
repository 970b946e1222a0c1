"""Values between Python and Lua, as Karmada's runtime converts them (luavm/lua.go decodeValue,
lua_convert.go ConvertLuaResultInto, layeh.com/gopher-json).

Aspects covered:
- into Lua: objects and arrays become tables, nulls disappear (null array elements are skipped,
  later ones move up), numbers are Lua numbers (an integer beyond int64 the nearest float, as
  Go's JSON decoder reads it), non-string keys become strings; an object met
  twice (a YAML alias) becomes a table in each place;
- out of Lua: string keys make an object, keys 1..n an array, an empty table `[]`; holes, mixed
  keys, functions, a table met twice, NaN and overly deep nesting are errors with gopher-json's
  messages; integral numbers within int64 come back as ints, spelled with Go's shortest digits;
  invalid UTF-8 becomes U+FFFD, in results, error messages and arguments of kube functions alike;
- Karmada's repair of empty tables: a path that was `{}` (or `[]`) in a reference object keeps
  that form, array indices ignored; any other empty table is deleted; a bare `[]` result is `{}`
  for object targets; sjson's paths decide the rest: an empty key at the root and a key with
  `|#@*?` fail the repair, a key with a backslash leaves its empty tables as they are (and
  where one should become `{}`, sjson makes `{}` at the path without the backslash);
- numbers printed as Go's encoding/json prints them (for quantities given as numbers).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gitfleet.interpreter.lua import _convert
from gitfleet.interpreter.lua._sandbox import ScriptError
from tests.interpreter.lua.conftest import Run

INTO_LUA = [
    pytest.param(
        {"a": None, "b": 1},
        "local n = 0 for _ in pairs(o) do n = n + 1 end return n",
        1,
        id="null field dropped",
    ),
    pytest.param({"l": [1, None, 3]}, "return #o.l * 10 + o.l[2]", 23, id="null element skipped"),
    pytest.param({"l": [None]}, "return #o.l", 0, id="only null element"),
    pytest.param({"n": 3}, "return type(o.n) .. tostring(o.n)", "number3", id="integer"),
    pytest.param({"n": 2.5}, "return o.n * 2", 5, id="float"),
    pytest.param({"b": False}, "return o.b == false", True, id="false kept"),
    pytest.param({"e": {}, "l": []}, "return next(o.e) == nil and #o.l == 0", True, id="empty"),
    pytest.param({1: "x"}, "return o['1']", "x", id="key made a string"),
    pytest.param({"deep": [[{"x": [1]}]]}, "return o.deep[1][1].x[1]", 1, id="nested"),
    pytest.param(
        {"n": 2**64 + 1, "l": [None, -(2**70)]},
        "return o.n == 2^64 and o.l[1] == -2^70",
        True,
        id="integer beyond int64 read as the nearest float, as Go's JSON decoder reads it",
    ),
]


@pytest.mark.parametrize(("value", "body", "expected"), INTO_LUA)
def test_into_lua(run: Run, value: Any, body: str, expected: Any) -> None:
    reads = f"function F(o) {body} end"  # given shared tables
    changes = f"function F(o) local own = {{}} own.x = 1 {body} end"  # converted, then built
    for script in (reads, changes):
        assert run(script, value) == run(script, value) == [expected]


def test_an_object_met_twice_becomes_two_tables(run: Run) -> None:
    shared = {"name": "c"}  # as a YAML alias reads
    doc = {"containers": [shared, shared], "byName": {"a": shared, "b": shared}}
    script = "function F(o) o.containers[1].name = 'd' return o end"
    expected = {"containers": [{"name": "d"}, {"name": "c"}], "byName": {"a": shared, "b": shared}}
    assert run(script, doc) == [expected]
    assert run(script, doc) == [expected]  # the compiled constructor too


OUT_OF_LUA = [
    pytest.param("return {a = 1, b = {2, 3}}", {"a": 1, "b": [2, 3]}, id="object and array"),
    pytest.param("return {}", [], id="empty table"),
    pytest.param("return {a = {}, b = {1}}", {"b": [1]}, id="empty table deleted"),
    pytest.param("return {1.0, 2.5, 2^53, 1e300, -0}", [1, 2.5, 2**53, 1e300, 0], id="numbers"),
    pytest.param("return {2^63}", [2.0**63], id="beyond int64 stays a float"),
    pytest.param(
        "return {math.huge, -math.huge}",
        [1.7976931348623157e308, -1.7976931348623157e308],
        id="math.huge is gopher-lua's largest float",
    ),
    pytest.param(
        "return {2^62, 2^53 + 2, -2^60}",
        [4611686018427388000, 2**53 + 2, -1152921504606847000],
        id="big integers as Go spells them",
    ),
    pytest.param("return {s = 'caf\\195\\169'}", {"s": "café"}, id="utf-8"),
    pytest.param("return {s = 'a\\255b'}", {"s": "a\ufffdb"}, id="invalid utf-8 replaced"),
    pytest.param("return {s = 'tab\\tquote\"\\0'}", {"s": 'tab\tquote"\x00'}, id="escapes"),
    pytest.param("return true", True, id="boolean"),
    pytest.param("return 'text'", "text", id="string"),
]


@pytest.mark.parametrize(("body", "expected"), OUT_OF_LUA)
def test_out_of_lua(run: Run, body: str, expected: Any) -> None:
    assert run(f"function F() {body} end") == [expected]


def test_keys_and_strings_met_again_encode_alike(run: Run) -> None:
    """The encoder keeps the escaped text of short keys and strings from call to call, and
    starts over when it keeps too many: every call still gets the text of its own values."""
    script = """
    function F(n, tag)
      local t = {}
      for i = 1, n do t['k"' .. i .. '\\\\'] = tag .. i end
      local q = '' for i = 1, 300 do q = q .. '"' end
      t.long = q .. tag
      return t
    end
    """
    for n, tag in ((3000, 'v"'), (3000, "w"), (10, 'v"')):
        expected = {f'k"{i}\\': f"{tag}{i}" for i in range(1, n + 1)}
        assert run(script, n, tag) == [{**expected, "long": '"' * 300 + tag}]
    both = "function F() return {{a = 1}, {b = 1}, {a = 2, b = 2}} end"  # keys first, then not
    assert run(both) == run(both) == [[{"a": 1}, {"b": 1}, {"a": 2, "b": 2}]]


ENCODING_ERRORS = [
    pytest.param(
        "local t = {} t[1] = 1 t[3] = 3 return t", "cannot encode sparse array", id="hole"
    ),
    pytest.param("return {1, a = 2}", "cannot encode mixed or invalid key types", id="mixed keys"),
    pytest.param("return {[true] = 1}", "cannot encode mixed or invalid key types", id="bool key"),
    pytest.param("return {[1.5] = 1}", "cannot encode sparse array", id="float key"),
    pytest.param("return {f = print}", "cannot encode function to JSON", id="function"),
    pytest.param("local t = {} return {t, t}", "recursively nested tables", id="table twice"),
    pytest.param("local t = {} t.self = t return t", "recursively nested tables", id="cycle"),
    pytest.param("return {0/0}", "json: unsupported value", id="nan"),
    pytest.param("return {1/0}", "json: unsupported value", id="infinity"),
    pytest.param(
        "local t = {} local c = t for i = 1, 300 do c.x = {} c = c.x end return t",
        "nested deeper than",
        id="too deep",
    ),
]


@pytest.mark.parametrize(("body", "message"), ENCODING_ERRORS)
def test_values_json_cannot_hold(run: Run, body: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        run(f"function F() {body} end")


REPAIRS = [
    pytest.param({"a": []}, [{"a": {}}], {"a": {}}, id="was an empty object"),
    pytest.param({"a": []}, [{"a": []}], {"a": []}, id="was an empty array"),
    pytest.param({"a": []}, [{"b": {}}], {}, id="was nothing: deleted"),
    pytest.param(
        {"items": [{"tags": []}, {"tags": ["x"]}]},
        [{"items": [{"tags": {}}]}],
        {"items": [{"tags": {}}, {"tags": ["x"]}]},
        id="array indices ignored",
    ),
    pytest.param({"l": [[], 1, []]}, [], {"l": [1]}, id="empty elements removed"),
    pytest.param(
        {"a": []}, [{"a": []}, {"a": {}}], {"a": {}}, id="object form wins over array form"
    ),
    pytest.param({"x": {"y": []}}, [{"x": {"y": {}}}], {"x": {"y": {}}}, id="nested path"),
    pytest.param({"x": {"": []}}, [], {"x": {}}, id="empty key below the root"),
    pytest.param({"a\\b": [], "x": {"c\\d": [[], 1]}}, [], None, id="backslash: left as it is"),
    pytest.param(
        {"a\\b": [], "x": {"c\\d": [[], 1]}},
        [{"a\\b": {}, "x": {"c\\d": [{}, 1]}}],
        {"a\\b": [], "ab": {}, "x": {"c\\d": [[], 1], "cd": [{}]}},
        id="backslash: an object made where sjson reads the path",
    ),
]


@pytest.mark.parametrize(("result", "references", "expected"), REPAIRS)
def test_repair_of_empty_tables(result: Any, references: list[Any], expected: Any) -> None:
    unchanged = copy.deepcopy(result)
    found = _convert.repair(result, references, struct=True)
    assert found == (unchanged if expected is None else expected)


@pytest.mark.parametrize(
    ("result", "references", "message"),
    [
        pytest.param({"": [], "a": 1}, [], "path cannot be empty", id="empty key at the root"),
        pytest.param({"": []}, [{"": {}}], "path cannot be empty", id="made an object"),
        pytest.param({"a*b": []}, [], "complex path", id="wildcard key"),
        pytest.param({"x": {"a?b": [1, []]}}, [], "complex path", id="element below"),
    ],
)
def test_repairs_karmada_cannot_make(result: Any, references: list[Any], message: str) -> None:
    with pytest.raises(_convert.ConversionError, match=message):
        _convert.repair(result, references, struct=True)


@pytest.mark.parametrize(("struct", "expected"), [(True, {}), (False, [])])
def test_bare_empty_result(struct: bool, expected: Any) -> None:
    assert _convert.repair([], [], struct=struct) == expected


GO_NUMBERS = [
    pytest.param(3, "3", id="int"),
    pytest.param(2.5, "2.5", id="float"),
    pytest.param(1e16, "10000000000000000", id="large integral float"),
    pytest.param(1e21, "1e+21", id="exponent from 1e21"),
    pytest.param(1.5e-7, "1.5e-7", id="small"),
    pytest.param(0.000001, "0.000001", id="1e-6 is positional"),
    pytest.param(2.048, "2.048", id="shortest digits"),
    pytest.param(-0.5, "-0.5", id="negative"),
    pytest.param(2.0**62, "4611686018427388000", id="past 2^53: shortest digits, then zeros"),
    pytest.param(4611686018427388000, "4611686018427388000", id="a decoded result's integer"),
    pytest.param(-(2**60), "-1152921504606847000", id="negative past 2^53"),
]


@pytest.mark.parametrize(("value", "text"), GO_NUMBERS)
def test_go_number_text(value: float, text: str) -> None:
    assert _convert.go_number_text(value) == text


def test_decode_repairs_only_when_needed() -> None:
    assert _convert.decode('{"a":1.0,"b":[]}', [{"b": {}}], struct=True) == {"a": 1, "b": {}}
    assert _convert.decode('{"a":"[]"}', [], struct=True) == {"a": "[]"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param("error('bad \\255 byte')", "bad \ufffd byte", id="error message"),
        pytest.param(
            "return require('kube').resourceAdd('1\\255')",
            "cannot parse '1\ufffd'",
            id="kube argument",
        ),
    ],
)
def test_invalid_utf8_reaches_python_cleaned(run: Run, body: str, message: str) -> None:
    with pytest.raises(ScriptError, match=message):
        run(f"function F() {body} end")
