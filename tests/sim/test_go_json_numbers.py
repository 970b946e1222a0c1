"""The simulator writes JSON as Go's encoding/json does (`_gojson`), so a float reads as a
real API server writes it.

Aspects covered:
- floats in Go's text, each expected value the one Go's encoding/json wrote for the same
  float64 (Go 1.27, run on it): whole numbers below 1e21 without fraction or exponent (past
  2**53 the shortest digits padded with zeros), positional from 1e-6, an exponent below that
  and from 1e21 with a one-digit negative exponent left without its zero; but a negative zero
  as `0` (Go writes `-0`), as the server reads it back from storage, an integer;
- integers, strings that merely look like Python's floats (`"1.0"`, `"x.0,"`) and bodies
  without floats written as Python's encoder writes them; indented and key-sorted output;
- a Table's cell of a string column holding a number, written as Go's JSON.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from gitfleet.sim import _gofmt, _gojson, _tables

GO_WRITES = [
    pytest.param(1000000.0, "1000000", id="whole"),
    pytest.param(1.0, "1", id="one"),
    pytest.param(-3.0, "-3", id="negative whole"),
    pytest.param(-0.0, "0", id="negative zero reads back as the integer 0"),
    pytest.param(1e16, "10000000000000000", id="1e16"),
    pytest.param(1e20, "100000000000000000000", id="1e20"),
    pytest.param(1.2345678901234567e19, "12345678901234567000", id="shortest digits padded"),
    pytest.param(9007199254740993.0, "9007199254740992", id="past 2^53"),
    pytest.param(999999999999999999999.0, "1e+21", id="rounds to 1e21"),
    pytest.param(1e21, "1e+21", id="1e21"),
    pytest.param(-2.5e30, "-2.5e+30", id="large negative"),
    pytest.param(1.7976931348623157e308, "1.7976931348623157e+308", id="largest"),
    pytest.param(123456789.125, "123456789.125", id="fraction"),
    pytest.param(0.1, "0.1", id="one tenth"),
    pytest.param(0.0001, "0.0001", id="1e-4"),
    pytest.param(1e-5, "0.00001", id="1e-5 positional"),
    pytest.param(2.5e-5, "0.000025", id="2.5e-5 positional"),
    pytest.param(1e-6, "0.000001", id="1e-6 positional"),
    pytest.param(9.999999999999997e-7, "9.999999999999997e-7", id="just below 1e-6"),
    pytest.param(1.5e-7, "1.5e-7", id="one-digit exponent"),
    pytest.param(-1e-9, "-1e-9", id="negative small"),
    pytest.param(1e-10, "1e-10", id="two-digit exponent"),
    pytest.param(5e-324, "5e-324", id="smallest"),
]


@pytest.mark.parametrize(("value", "text"), GO_WRITES)
def test_floats_as_go_writes_them(value: float, text: str) -> None:
    assert _gofmt.json_float64(value) == text
    assert _gojson.dumps({"a": [value]}) == f'{{"a":[{text}]}}'
    assert _gojson.dumps(value) == text


@pytest.mark.parametrize(
    "value",
    [
        pytest.param({"a": 1, "b": [True, None, "x"], "c": {}}, id="no floats"),
        pytest.param({"tag": "nginx:1.0", "ip": "10.0.0.1", "note": "x.0,"}, id="text like floats"),
        pytest.param({"n": 12345678901234567890, "m": -(2**63)}, id="integers as they are"),
        pytest.param({"é": "ü\n\u2028"}, id="escapes as Python's"),
        pytest.param([0.5, 2.25, 1e22], id="floats Python writes as Go does"),
    ],
)
def test_written_as_python_writes_it_where_go_agrees(value: Any) -> None:
    assert _gojson.dumps(value) == json.dumps(value, separators=(",", ":"))


def test_strings_beside_floats_are_kept() -> None:
    value = {"s": "1.0", "t": "x.0,", "f": 1.0, "l": ["2.0]", 2.0]}
    assert _gojson.dumps(value) == '{"s":"1.0","t":"x.0,","f":1,"l":["2.0]",2]}'


def test_indented_and_sorted() -> None:
    value = {"b": [1.0, {}], "a": {"c": 1e-5, "d": []}}
    assert _gojson.dumps(value, indent=2, sort_keys=True) == (
        '{\n  "a": {\n    "c": 0.00001,\n    "d": []\n  },\n  "b": [\n    1,\n    {}\n  ]\n}'
    )
    assert _gojson.dumps({"b": 1, "a": 2.0}, sort_keys=True) == '{"a":2,"b":1}'


def test_a_number_in_a_string_column() -> None:
    """apiextensions' table convertor writes a value that is not a string as JSON."""
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    assert _tables._custom_cell("string", [1e6, 1.5e-7], now) == "[1000000,1.5e-7]"
