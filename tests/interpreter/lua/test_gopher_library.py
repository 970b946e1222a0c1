"""Library functions answer as they do in gopher-lua with Karmada's safe libraries (Karmada's
VM), where PUC Lua's C library would answer otherwise.

Aspects covered:
- numbers printed by tostring and table.concat: integral values within int64 in full, others
  with Go's shortest digits, in exponent form below 1e-4 and from 1e6 on; NaN and infinities
  spelled as Go spells them;
- table.concat takes a string separator and number positions only.
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
