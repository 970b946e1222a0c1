"""The Go text formats Karmada's output goes through: encoding/json floats and strings,
strconv 'g' floats, go-yaml v2 scalar resolution (YAML 1.1 booleans, Go integer syntax,
timestamps) and its natural key order; Go float text reads back as the same float."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitfleet.model import gofloat
from gitfleet.overrides import _gojson, _goyaml


@pytest.mark.parametrize(
    ("value", "as_json", "as_g"),
    [
        pytest.param(1.0, "1", "1", id="integral"),
        pytest.param(0.1, "0.1", "0.1", id="fraction"),
        pytest.param(1e21, "1e+21", "1e+21", id="json exponent from 1e21"),
        pytest.param(1e20, "100000000000000000000", "1e+20", id="below 1e21"),
        pytest.param(1e-7, "1e-7", "1e-07", id="small: json trims the exponent"),
        pytest.param(1e-6, "0.000001", "1e-06", id="json fixed down to 1e-6"),
        pytest.param(1234567.5, "1234567.5", "1.2345675e+06", id="g exponent from 1e6"),
        pytest.param(0.0001, "0.0001", "0.0001", id="g fixed down to 1e-4"),
        pytest.param(-0.0, "-0", "-0", id="negative zero"),
    ],
)
def test_float_text(value: float, as_json: str, as_g: str) -> None:
    assert gofloat.format_float(value) == as_json
    assert gofloat.format_float(value, "g") == as_g


def test_float32_text() -> None:
    assert [gofloat.format_float32(v) for v in (1.1, 0.1, 2.0, 1e10)] == [
        "1.1",
        "0.1",
        "2",
        "1e+10",
    ]


def test_json_strings_and_numbers() -> None:
    doc = _gojson.loads_preserving('{"b": 1.50e1, "a": "x"}')
    doc["c"] = "<a & b>\u2028\b\x01é"
    assert _gojson.dumps(doc, sort_keys=False) == (
        '{"b":1.50e1,"a":"x","c":"\\u003ca \\u0026 b\\u003e\\u2028\\u0008\\u0001é"}'
    )
    assert _gojson.dumps({"b": 1, "a": [True, None]}, sort_keys=True) == '{"a":[true,null],"b":1}'
    with pytest.raises(ValueError, match="unsupported value"):
        _gojson.dumps(float("nan"), sort_keys=True)
    with pytest.raises(ValueError):
        _gojson.loads_preserving("NaN")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("y", True, id="y"),
        pytest.param("Off", False, id="Off"),
        pytest.param("~", None, id="tilde"),
        pytest.param("0x1F", 31, id="hex"),
        pytest.param("012", 10, id="leading zero is octal"),
        pytest.param("08", 8.0, id="not octal: a float"),
        pytest.param("1_000", 1000, id="underscores"),
        pytest.param("1e5", 100000.0, id="exponent without a dot"),
        pytest.param("1e400", "1e400", id="overflowing float stays text"),
        pytest.param("1:20", "1:20", id="no base 60"),
        pytest.param("2001-12-14", "2001-12-14", id="timestamp stays text"),
        pytest.param("18446744073709551615", 18446744073709551615, id="uint64"),
    ],
)
def test_scalar_resolution(text: str, expected: Any) -> None:
    assert _goyaml.load(f"v: {text}\n") == {"v": expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a: 1\n<<: {a: 2, b: 3}\n", {"a": 2, "b": 3}, id="merge after a key"),
        pytest.param("<<: {a: 2, b: 3}\na: 1\n", {"a": 1, "b": 3}, id="key after a merge"),
        pytest.param("<<: [{a: 1}, {a: 2, b: 2}]\nb: 3\n", {"a": 1, "b": 3}, id="list"),
        pytest.param("p: &p {a: 2}\nq: {a: 1, <<: *p}\n", {"p": {"a": 2}, "q": {"a": 2}}, id="a"),
    ],
)
def test_merge_keys_are_set_where_they_stand(text: str, expected: Any) -> None:
    """As go-yaml v2's decoder sets a merged map's keys when it reaches `<<` (Karmada's
    fieldOverrider gave each of these)."""
    assert _goyaml.load(text) == expected


def test_keys_become_json_keys_once_duplicates_are_replaced() -> None:
    """A key given again replaces its value before sigs.k8s.io/yaml turns keys into JSON keys,
    so a null key only in a replaced value is no error (Karmada's fieldOverrider took it)."""
    assert _goyaml.load("a: {~: 1, b: 1}\na: 2\nb: {null: 3}\nb: 4\n") == {"a": 2, "b": 4}
    with pytest.raises(_goyaml.DocumentError, match="unsupported map key"):
        _goyaml.load("~: 1\nb: 2\n")


def test_timestamps_and_floats_are_recognised_for_quoting() -> None:
    assert _goyaml.resolve("2001-12-14 21:59:43.10")[0] == _goyaml.TIMESTAMP
    assert _goyaml.resolve("2001-02-30")[0] == _goyaml.STR
    assert _goyaml.resolve(".5")[0] == _goyaml.FLOAT


def test_natural_key_order() -> None:
    keys = ["b", "a10", "a2", "A", "_x", "1", "10", "9", "a02"]
    text = _goyaml.dump(dict.fromkeys(keys, 0))
    assert [line.split(":")[0].strip('"') for line in text.splitlines()] == [
        "_x",
        "1",
        "9",
        "10",
        "A",
        "a2",
        "a02",
        "a10",
        "b",
    ]


def test_dump_scalars_and_blocks() -> None:
    assert _goyaml.dump("plain") == "plain\n"
    assert _goyaml.dump(None) == "null\n"
    assert _goyaml.dump({"a": "", "b": "x: y", "c": "two\nlines", "d": 1e21, "e": 2.0}) == (
        "a: \"\"\nb: 'x: y'\nc: |-\n  two\n  lines\nd: 1e+21\ne: 2\n"
    )


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_reads_back_exactly(value: float) -> None:
    assert float(gofloat.format_float(value)) == value
    assert float(gofloat.format_float(value, "g")) == value


@pytest.mark.parametrize(
    ("value", "written"),
    [
        pytest.param("a\u2028\ufeff", '"a\\L\\uFEFF"', id="line separator"),
        pytest.param("\u2029\ufeff", '"\\P\\uFEFF"', id="paragraph separator"),
        pytest.param("\ufeffa b", '"\\uFEFF\\x61\\x20\\x62"', id="after a leading BOM"),
        pytest.param("\ufeff\xa0\u65e5", '"\\uFEFF\\_\\u65E5"', id="after a BOM, no-break space"),
        pytest.param("a\ufeffb\xa0", '"a\\uFEFFb\xa0"', id="a BOM further on"),
    ],
)
def test_double_quoted_escapes(value: str, written: str) -> None:
    """What go-yaml's double-quoted writer escapes (Karmada's fieldOverrider wrote each): line
    and paragraph separators, and every character of a scalar that starts with a byte order
    mark (its test of the first bytes ignores the position)."""
    assert _goyaml.dump({"v": value}) == f"v: {written}\n"


def test_a_key_with_a_carriage_return_is_complex() -> None:
    """go-yaml counts a carriage return as a line break, so the key is not simple (Karmada's
    fieldOverrider wrote this)."""
    assert _goyaml.dump({"zz": {"ga\r": ""}}) == 'zz:\n  ? "ga\\r"\n  : ""\n'


def test_a_key_past_int64_is_refused() -> None:
    """go-yaml reads it as a uint64, which sigs.k8s.io/yaml cannot make a JSON key of
    (Karmada's fieldOverrider fails: "unsupported map key of type: uint64")."""
    with pytest.raises(_goyaml.DocumentError, match="unsupported map key"):
        _goyaml.load("9223372036854775808: v\n")
    assert _goyaml.load("9223372036854775807: v\n") == {"9223372036854775807": "v"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a: !!binary 4oI=\n", {"a": "\ufffd\ufffd"}, id="a U+FFFD per invalid byte"),
        pytest.param("a: !!binary 8J+Y\n", {"a": "\ufffd" * 3}, id="truncated four bytes"),
        pytest.param("!!binary aGk=: 1\n", {"hi": 1}, id="a key"),
        pytest.param("a: !!binary |\n  aGVs\n  bG8=\n", {"a": "hello"}, id="line breaks skipped"),
        pytest.param("a: !!binary [1]\n", {"a": [1]}, id="on a list, ignored"),
    ],
)
def test_binary(text: str, expected: Any) -> None:
    """`!!binary` as go-yaml decodes it and encoding/json writes it (Karmada's fieldOverrider
    gave each of these)."""
    assert _goyaml.load(text) == expected


def test_binary_is_strict_base64() -> None:
    """Go's StdEncoding skips only line breaks and wants its padding."""
    for text in ('a: !!binary "aG k="\n', "a: !!binary aGk\n"):
        with pytest.raises(_goyaml.DocumentError, match="invalid base64"):
            _goyaml.load(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a: !!map 12\n", {"a": "12"}, id="a collection tag on a scalar"),
        pytest.param("a: !!set {x: 1}\n", {"a": {"x": 1}}, id="set"),
        pytest.param("a: !!str [1]\n", {"a": [1]}, id="a scalar tag on a list"),
        pytest.param("a: !!omap [{b: 1}]\n", {"a": [{"b": 1}]}, id="omap"),
        pytest.param("a: ! 12\n", {"a": "12"}, id="the non-specific tag"),
        pytest.param("!!merge 12: 1\n", {"12": 1}, id="merge tag on another key"),
    ],
)
def test_tags_go_yaml_does_not_resolve(text: str, expected: Any) -> None:
    """go-yaml decodes a list or map by its kind, whatever its tag, and a scalar under a tag it
    does not resolve as its text (Karmada's fieldOverrider gave each of these)."""
    assert _goyaml.load(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("a: &x 1\nb: &x 2\nc: *x\n", {"a": 1, "b": 2, "c": 2}, id="anchor again"),
        pytest.param("a:\tb\n", {"a": "b"}, id="tab after a colon"),
        pytest.param("a: b\tc\n", {"a": "b\tc"}, id="tab inside a plain scalar"),
        pytest.param("a: [1,\t2]\n", {"a": [1, 2]}, id="tab in a flow list"),
        pytest.param('a: "it\\\'s"\n', {"a": "it's"}, id="escaped single quote"),
    ],
)
def test_read_as_go_yaml_scans(text: str, expected: Any) -> None:
    """What go-yaml's scanner (libyaml's) takes and PyYAML's refuses (Karmada's fieldOverrider
    read each of these)."""
    assert _goyaml.load(text) == expected


def test_an_escaped_slash_is_refused() -> None:
    """go-yaml knows no `\\/` escape (Karmada's fieldOverrider fails: "found unknown escape
    character")."""
    with pytest.raises(_goyaml.DocumentError):
        _goyaml.load('a: "\\/"\n')


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("t: !custom\tx\n", {"t": "x"}, id="a tag ended by a tab"),
        pytest.param("t: !!int\t'12'\n", {"t": 12}, id="a resolved tag ended by a tab"),
    ],
)
def test_a_tag_may_end_at_a_tab(text: str, expected: Any) -> None:
    """As go-yaml's scanner ends a tag at any blank (Karmada's fieldOverrider read these)."""
    assert _goyaml.load(text) == expected


@pytest.mark.parametrize("text", ["a: |\n \tx\n", "a: |\n  x\n \ty\n"])
def test_a_tab_in_a_block_scalars_indentation_is_refused(text: str) -> None:
    """go-yaml: "found a tab character where an indentation space is expected"."""
    with pytest.raises(_goyaml.DocumentError):
        _goyaml.load(text)


def test_no_end_marker_after_a_kept_line_separator() -> None:
    """A literal block keeping its final U+2028 ends the document without `...`, as go-yaml
    writes it (Karmada's fieldOverrider wrote this)."""
    assert _goyaml.dump({"zz": "\nx\u2028\u2028"}) == "zz: |2+\n\n  x\u2028\u2028"
