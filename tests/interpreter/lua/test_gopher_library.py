"""Library functions answer as they do in gopher-lua with Karmada's safe libraries (Karmada's
VM), where PUC Lua's C library would answer otherwise.

Aspects covered:
- numbers printed by tostring and table.concat: integral values within int64 in full, others
  with Go's shortest digits, in exponent form below 1e-4 and from 1e6 on; NaN and infinities
  spelled as Go spells them;
- table.concat takes a string separator and number positions only;
- tonumber reads strings with Go's parsers: a `.` makes a float (decimal or hexadecimal), else
  an integer in the base (a `0x` prefix is base 16 when no base is given; base 0 is Go's
  literal syntax); no exponent without a `.`, no infinity, nothing beyond int64; the base must
  be a number;
- string.upper and string.lower map every Unicode letter to its simple case mapping, as Go's
  strings.ToUpper/ToLower do; invalid UTF-8 bytes become U+FFFD.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.interpreter.lua.conftest import Run

NUMBER_TEXTS = [
    pytest.param("1e15", "1000000000000000", id="integer in full"),
    pytest.param("-2^63", "-9223372036854775808", id="smallest int64"),
    pytest.param("2^63", "9.223372036854776e+18", id="beyond int64"),
    pytest.param("0.1 + 0.2", "0.30000000000000004", id="shortest digits"),
    pytest.param("1/3", "0.3333333333333333", id="seventeen digits"),
    pytest.param("123456.5", "123456.5", id="below 1e6"),
    pytest.param("1234567.5", "1.2345675e+06", id="from 1e6 on"),
    pytest.param("0.0001", "0.0001", id="1e-4"),
    pytest.param("0.00001", "1e-05", id="below 1e-4"),
    pytest.param("-0.0", "0", id="negative zero"),
    pytest.param("0/0", "NaN", id="nan"),
    pytest.param("1/0", "+Inf", id="infinity"),
    pytest.param("-1/0", "-Inf", id="negative infinity"),
]


@pytest.mark.parametrize(("expression", "expected"), NUMBER_TEXTS)
def test_numbers_printed_as_go_prints_them(run: Run, expression: str, expected: str) -> None:
    script = (
        f"function F() local n = {expression} return tostring(n), table.concat({{n, n}}, ',') end"
    )
    assert run(script) == [expected, f"{expected},{expected}"]


CONCAT = [
    pytest.param("table.concat({1, 2}, 0)", False, id="number separator"),
    pytest.param("table.concat({1, 2}, ',', '1')", False, id="string position"),
    pytest.param("table.concat({1, 2.5, 'x'}, '-', 2)", "2.5-x", id="range"),
]


@pytest.mark.parametrize(("call", "expected"), CONCAT)
def test_concat_arguments(run: Run, call: str, expected: Any) -> None:
    ok, value = run(f"function F() return pcall(function() return {call} end) end")
    assert (value if ok else False) == expected


TONUMBER = [
    pytest.param('"0x1A"', 26, id="hex prefix"),
    pytest.param('" 12\\n"', 12, id="spaces and newlines trimmed"),
    pytest.param('" 5\\r"', None, id="carriage return not trimmed"),
    pytest.param('"1e2"', None, id="exponent without a dot"),
    pytest.param('"1.5e3"', 1500, id="exponent with a dot"),
    pytest.param('"5."', 5, id="trailing dot"),
    pytest.param('".5"', 0.5, id="leading dot"),
    pytest.param('"0x1.8p1"', 3, id="hex float"),
    pytest.param('"inf"', None, id="no infinity"),
    pytest.param('"1.0e400"', None, id="float out of range"),
    pytest.param('"99999999999999999999"', None, id="beyond int64"),
    pytest.param('"z", 36', 35, id="base 36"),
    pytest.param('"Z", 36.9', 35, id="base truncated"),
    pytest.param('"0x10", 16', None, id="prefix with a base"),
    pytest.param('"0x-10"', -16, id="sign after the prefix"),
    pytest.param('"-0x10"', None, id="sign before the prefix"),
    pytest.param('"017", 0', 15, id="base 0 octal"),
    pytest.param('"1_000", 0', 1000, id="base 0 underscores"),
    pytest.param('"10", 1', None, id="base out of range"),
    pytest.param("12.5, 16", 12.5, id="number as it is"),
    pytest.param("true", None, id="boolean"),
]


@pytest.mark.parametrize(("args", "expected"), TONUMBER)
def test_tonumber_reads_as_go_parses(run: Run, args: str, expected: Any) -> None:
    assert run(f"function F() return tonumber({args}) end") == [expected]


@pytest.mark.parametrize("call", ["pcall(tonumber)", 'pcall(tonumber, "1", "2")'])
def test_tonumber_argument_errors(run: Run, call: str) -> None:
    assert run(f"function F() return ({call}) end") == [False]


CASES = [
    pytest.param('string.upper("wörker")', "WÖRKER", id="upper beyond ascii"),
    pytest.param('string.lower("ÀBC İ ǅ")', "àbc i ǆ", id="lower beyond ascii"),
    pytest.param('string.upper("ß ﬃ")', "ß ﬃ", id="no multi-character mappings"),
    pytest.param('string.upper("a\\255b")', "A\ufffdB", id="invalid utf-8"),
    pytest.param('("plain"):upper()', "PLAIN", id="ascii"),
    pytest.param("string.lower(1.5)", "1.5", id="number"),
]


@pytest.mark.parametrize(("call", "expected"), CASES)
def test_case_mapped_as_go_maps_it(run: Run, call: str, expected: str) -> None:
    assert run(f"function F() return {call} end") == [expected]
