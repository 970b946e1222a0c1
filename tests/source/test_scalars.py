"""Plain scalars mean what they mean to kubectl (go-yaml v2, YAML 1.1).

Aspects covered:
- booleans: every spelling go-yaml v2 accepts, and near misses that stay strings;
- null: the four spellings and the empty value;
- integers as Go's ParseInt(s, 0, 64) reads them after removing `_`: decimal, legacy octal
  (`012`), `0o`, `0x`, `0b`, signs, the int64/uint64 limits; thousands of digits (more than
  Python converts) are text, as go-yaml keeps them;
- floats by go-yaml's regex: exponents without a dot, leading dots, digits that are not
  octal (`09` is a float), out-of-range values that stay strings;
- no timestamps, no sexagesimal numbers: they stay strings; quoted scalars are strings;
- explicit core tags convert or are refused; infinities and NaN cannot reach JSON;
- non-string keys become the text Kubernetes uses (`yes:` is "true", `1.5:` is "1.5").
"""

from __future__ import annotations

from typing import Any

import pytest
from parsed_yaml import parse_all


def value_of(text: str) -> Any:
    documents, problems = parse_all(f"v: {text}\n".encode())
    assert not problems, problems
    return documents[0].value["v"]


SCALARS = [
    *(
        pytest.param(s, True, id=f"bool {s}")
        for s in ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]
    ),
    *(
        pytest.param(s, False, id=f"bool {s}")
        for s in ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]
    ),
    pytest.param("yEs", "yEs", id="mixed-case yes is text"),
    pytest.param("tRUE", "tRUE", id="mixed-case true is text"),
    pytest.param("On1", "On1", id="word prefix is text"),
    pytest.param("~", None, id="tilde"),
    pytest.param("null", None, id="null"),
    pytest.param("Null", None, id="Null"),
    pytest.param("NULL", None, id="NULL"),
    pytest.param("", None, id="empty"),
    pytest.param("nULL", "nULL", id="mixed-case null is text"),
    pytest.param("12", 12, id="decimal"),
    pytest.param("-12", -12, id="negative"),
    pytest.param("+12", 12, id="plus sign"),
    pytest.param("0", 0, id="zero"),
    pytest.param("012", 10, id="leading zero is octal"),
    pytest.param("0o17", 15, id="0o octal"),
    pytest.param("0O17", 15, id="0O octal"),
    pytest.param("0x1F", 31, id="hex"),
    pytest.param("-0x1F", -31, id="negative hex"),
    pytest.param("0b101", 5, id="binary"),
    pytest.param("1_000", 1000, id="underscores removed"),
    pytest.param("0x_1F", 31, id="underscore after prefix"),
    pytest.param("9223372036854775807", 2**63 - 1, id="int64 max"),
    pytest.param("9223372036854775808", 2**63, id="uint64 range"),
    pytest.param("18446744073709551616", 1.8446744073709552e19, id="past uint64 is float"),
    pytest.param("-9223372036854775809", -9.223372036854776e18, id="past int64 min is float"),
    pytest.param("08", 8.0, id="non-octal digits make a float"),
    pytest.param("1e3", 1000.0, id="exponent without dot"),
    pytest.param("1.5", 1.5, id="decimal float"),
    pytest.param("1.", 1.0, id="trailing dot"),
    pytest.param(".5", 0.5, id="leading dot"),
    pytest.param("-.5", -0.5, id="signed leading dot"),
    pytest.param("+1e-2", 0.01, id="signed exponent"),
    pytest.param("1_0.5", 10.5, id="underscore in float"),
    pytest.param(".1_0", ".1_0", id="underscore after leading dot is text"),
    pytest.param("1e400", "1e400", id="out of range float is text"),
    pytest.param("9" * 5000, "9" * 5000, id="5000 digits are text, not a crash"),
    pytest.param("-" + "9" * 5000, "-" + "9" * 5000, id="5000 negative digits"),
    pytest.param("1_" * 3000 + "1", "1_" * 3000 + "1", id="3001 digits with underscores"),
    pytest.param("0x" + "f" * 5000, "0x" + "f" * 5000, id="5000 hex digits are text"),
    pytest.param("0" * 5000 + "1", 1, id="5000 leading zeros are octal 1"),
    pytest.param(".Nan", ".Nan", id="odd NaN spelling is text"),
    pytest.param("0x", "0x", id="bare prefix is text"),
    pytest.param("0b2", "0b2", id="bad binary digit is text"),
    pytest.param("+", "+", id="lone sign"),
    pytest.param("1:20", "1:20", id="no sexagesimal"),
    pytest.param("2026-01-01", "2026-01-01", id="date stays text"),
    pytest.param("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00", id="timestamp"),
    pytest.param("'yes'", "yes", id="single-quoted"),
    pytest.param('"012"', "012", id="double-quoted"),
    pytest.param("<<", "<<", id="merge key text as a value"),
    pytest.param("!!str 12", "12", id="explicit str"),
    pytest.param("!!int '0x1F'", 31, id="explicit int"),
    pytest.param("!!float 1", 1.0, id="explicit float of an integer"),
    pytest.param("!!bool yes", True, id="explicit bool"),
]


@pytest.mark.parametrize(("text", "expected"), SCALARS)
def test_scalar_resolves_as_go_yaml_v2(text: str, expected: Any) -> None:
    value = value_of(text)
    assert value == expected
    assert type(value) is type(expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(".inf", ".inf cannot be represented in JSON", id="infinity"),
        pytest.param("-.INF", "-.INF cannot be represented in JSON", id="negative infinity"),
        pytest.param(".NaN", ".NaN cannot be represented in JSON", id="nan"),
        pytest.param("!!int abc", "'abc' is not an integer", id="explicit int of text"),
        pytest.param("!!bool maybe", "'maybe' is not a boolean", id="explicit bool of text"),
        pytest.param("!!null x", "'x' is not null", id="explicit null of text"),
        pytest.param(
            "!!int " + "9" * 5000,
            f"{'9' * 40!r}… (5000 characters) is not an integer",
            id="explicit int of 5000 digits, quoted short",
        ),
        pytest.param("!!int [1]", "does not apply to a sequence", id="scalar tag on a list"),
    ],
)
def test_unrepresentable_scalar_is_located(text: str, message: str) -> None:
    documents, problems = parse_all(f"a: 1\nv: {text}\n".encode())
    assert not documents
    assert [(p.line, p.col) for p in problems] == [(2, 4)]
    assert message in problems[0].message


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("yes", "true", id="bool key"),
        pytest.param("off", "false", id="false key"),
        pytest.param("12", "12", id="int key"),
        pytest.param("0x10", "16", id="hex key"),
        pytest.param("1.5", "1.5", id="float key"),
        pytest.param("1e6", "1e+06", id="large float key as Go prints it"),
        pytest.param("'yes'", "yes", id="quoted key"),
    ],
)
def test_keys_become_kubernetes_text(text: str, key: str) -> None:
    documents, problems = parse_all(f"{text}: v\n".encode())
    assert not problems
    assert documents[0].value == {key: "v"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("~: v", "null cannot be a mapping key", id="null key"),
        pytest.param("[a]: v", "a sequence cannot be a mapping key", id="list key"),
        pytest.param("? {a: 1}\n: v", "a mapping cannot be a mapping key", id="map key"),
    ],
)
def test_keys_json_cannot_hold_are_refused(text: str, message: str) -> None:
    documents, problems = parse_all(text.encode())
    assert not documents
    assert message in problems[0].message
