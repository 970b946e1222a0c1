"""The YAML of rendered files: deterministic, and the same value to every reader.

Aspects covered:
- strings that YAML 1.1 (go-yaml v2, PyYAML) or YAML 1.2 would read as booleans, nulls,
  numbers, timestamps, merge or value keys are quoted, as keys and as values;
- ordinary strings stay plain (names, images, `--flags`, paths, URLs);
- control characters, line and paragraph separators, byte order marks, leading and trailing
  spaces, indicators and comment starts are escaped or quoted;
- multi-line strings are literal blocks with the exact trailing newlines, indented first lines
  included, and are double-quoted when a literal block cannot hold them;
- floats keep a `.` so YAML 1.1 readers keep them floats; non-finite numbers are refused;
- layout: sorted keys, sequences under their key, empty collections inline, nested sequences;
  the same small mapping as sequence items at several depths;
- property: any JSON value reads back equal through the loader's reader (pyyaml with go-yaml
  v2's rules), PyYAML's safe loader, ruamel.yaml's YAML 1.2 safe loader and the render's own
  fast reader of what it wrote, and dumping is independent of key insertion order;
- the fast reader refuses YAML outside the writer's subset (the caller then reads it fully),
  keys included: one a YAML reader reads as other than its text, or spelled otherwise;
- documents read together with a shared memo read back the same values, a block they share
  (same text at the same depth) being one object, never confused with the same text elsewhere;
  documents that differ from one read before only in scalar values (read against it) read
  back their own values, and leave the one read before as it was; small documents of many
  layouts, which often have as many lines as another and differ in a few, read back their
  own values, one whose line was an item's first in the other included.
"""

from __future__ import annotations

import io
import math
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from parsed_yaml import parse_all
from ruamel.yaml import YAML

from gitfleet.render import _yaml, _yamlread


def read_kubectl(data: bytes) -> Any:
    """As the loader (and kubectl) reads it: YAML 1.1 with go-yaml v2's scalar rules."""
    parsed, problems = parse_all(data)
    assert not problems, problems
    return parsed[0].value


def read_pyyaml(data: bytes) -> Any:
    return yaml.safe_load(data)


def read_yaml12(data: bytes) -> Any:
    reader = YAML(typ="safe", pure=True)
    reader.version = (1, 2)
    return reader.load(io.BytesIO(data))


READERS = (read_kubectl, read_pyyaml, read_yaml12)


def _round_trip(value: dict[str, Any]) -> bytes:
    data = _yaml.dump(value)
    for read in (*READERS, _yamlread.load):
        assert read(data) == value, (getattr(read, "__name__", read), data)
    return data


TYPED_LOOKING = [
    "no", "No", "NO", "n", "N", "y", "Y", "1e5", "yes", "on", "On", "off", "true", "False",
    "~", "null", "Null", "", "1e3", "1E3", "0x1F", "0o17", "0b101", "012", "08", "1_000",
    ".inf", "-.inf", ".NaN", ".5", "1.", "+1", "-1", "1:20", "190:20:30", "2026-01-01",
    "2026-01-01T00:00:00Z", "2026-01-01 01:02:03", "=", "<<", "0", "-0", "12e3", "0.1_0",
]  # fmt: skip


@pytest.mark.parametrize("text", [pytest.param(t, id=repr(t)) for t in TYPED_LOOKING])
def test_typed_looking_strings_are_quoted(text: str) -> None:
    data = _round_trip({"value": text, text or "empty": "x"})
    assert f"value: {text}\n".encode() not in data


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("web", id="name"),
        pytest.param("registry.example.com/team/web:1.2@sha256:ab", id="image"),
        pytest.param("--port=8080", id="flag"),
        pytest.param("-Xmx512m", id="short flag"),
        pytest.param("/var/lib/data", id="path"),
        pytest.param("http://example.com/a?b=c#d", id="url"),
        pytest.param("a,b", id="comma"),
        pytest.param("nope", id="word starting like no"),
        pytest.param("100m", id="quantity"),
        pytest.param("日本語", id="unicode"),
        pytest.param("back\\slash", id="backslash"),
    ],
)
def test_ordinary_strings_stay_plain(text: str) -> None:
    data = _round_trip({"value": text})
    assert data == f"value: {text}\n".encode()


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(" lead", id="leading space"),
        pytest.param("trail ", id="trailing space"),
        pytest.param("a: b", id="colon space"),
        pytest.param("ends:", id="trailing colon"),
        pytest.param("a #b", id="comment"),
        pytest.param("#x", id="hash"),
        pytest.param("- x", id="dash space"),
        pytest.param("-", id="dash"),
        pytest.param("---", id="document start"),
        pytest.param("...", id="document end"),
        pytest.param("*ref", id="alias"),
        pytest.param("&anchor", id="anchor"),
        pytest.param("!tag", id="tag"),
        pytest.param("{a: 1}", id="flow mapping"),
        pytest.param("[1]", id="flow sequence"),
        pytest.param("'q'", id="single quote"),
        pytest.param('"q"', id="double quote"),
        pytest.param("%YAML", id="directive"),
        pytest.param("@x", id="reserved at"),
        pytest.param("`x", id="reserved backtick"),
        pytest.param("|x", id="literal"),
        pytest.param(">x", id="folded"),
        pytest.param("a\tb", id="tab"),
        pytest.param("a\x00b\x07c\x1b", id="control"),
        pytest.param("a\u2028b\u2029c\x85d", id="line separators"),
        pytest.param("\ufeffbom", id="byte order mark"),
        pytest.param("a\x7fb\x9f", id="delete and c1"),
        pytest.param("a\rb", id="carriage return"),
    ],
)
def test_unsafe_strings_are_quoted(text: str) -> None:
    data = _round_trip({"value": text, "list": [text], text: 1})
    assert data.startswith(b'"') or b'- "' in data


@pytest.mark.parametrize(
    ("text", "header"),
    [
        pytest.param("a\nb\n", b"|\n", id="one trailing newline"),
        pytest.param("a\nb", b"|-\n", id="no trailing newline"),
        pytest.param("a\nb\n\n\n", b"|+\n", id="kept newlines"),
        pytest.param("  indented\nb\n", b"|2\n", id="indented first line"),
        pytest.param("\n\nafter blank lines\n", b"|\n", id="leading blank lines"),
        pytest.param("a\n\nb\n", b"|\n", id="blank line inside"),
        pytest.param("key: value\n# not a comment\n- x\n", b"|\n", id="yaml inside"),
    ],
)
def test_multiline_strings_are_literal_blocks(text: str, header: bytes) -> None:
    data = _round_trip({"data": {"config": text}, "list": [text, {"k": text}]})
    assert b"config: " + header in data


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("trailing \nspace", id="trailing space on a line"),
        pytest.param("\n", id="only a newline"),
        pytest.param("\n\n", id="only newlines"),
        pytest.param("tab\t\nend", id="trailing tab"),
        pytest.param("a\x01\nb", id="control character"),
        pytest.param("a\r\nb", id="crlf"),
    ],
)
def test_multiline_strings_a_literal_cannot_hold_are_quoted(text: str) -> None:
    data = _round_trip({"value": text})
    assert data.startswith(b'value: "')


@pytest.mark.parametrize(
    ("number", "text"),
    [
        pytest.param(1.5, b"1.5", id="plain"),
        pytest.param(1e-7, b"1.0e-07", id="small"),
        pytest.param(1e21, b"1.0e+21", id="large"),
        pytest.param(-2.5e300, b"-2.5e+300", id="huge"),
        pytest.param(3.0, b"3.0", id="integral float stays a float"),
        pytest.param(10, b"10", id="int"),
        pytest.param(-(2**63), b"-9223372036854775808", id="int64 min"),
    ],
)
def test_numbers(number: float, text: bytes) -> None:
    assert _round_trip({"x": number}) == b"x: " + text + b"\n"


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
def test_non_finite_numbers_are_refused(number: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        _yaml.dump({"n": number})


def test_layout() -> None:
    value = {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "web", "labels": {}, "annotations": {"b": "2", "a": "1"}},
        "spec": {
            "list": [],
            "containers": [{"name": "c", "args": ["a", "b"], "env": [{"name": "X"}]}],
            "matrix": [[1, 2], [], [[3]]],
            "nothing": None,
            "flag": True,
        },
    }
    assert _round_trip(value).decode() == (
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata:\n"
        "  annotations:\n"
        '    a: "1"\n'
        '    b: "2"\n'
        "  labels: {}\n"
        "  name: web\n"
        "spec:\n"
        "  containers:\n"
        "  - args:\n"
        "    - a\n"
        "    - b\n"
        "    env:\n"
        "    - name: X\n"
        "    name: c\n"
        "  flag: true\n"
        "  list: []\n"
        "  matrix:\n"
        "  - - 1\n"
        "    - 2\n"
        "  - []\n"
        "  - - - 3\n"
        "  nothing: null\n"
    )


def test_the_same_small_mapping_as_items_at_every_depth() -> None:
    """Items of strings and integers are written once per place they start at and reused:
    each place still gets its own indentation."""
    item = {"replicas": 2, "name": "east"}
    value = {"clusters": [item, item], "spec": {"clusters": [item], "nested": [[item]]}}
    assert _round_trip(value).decode() == (
        "clusters:\n"
        "- name: east\n"
        "  replicas: 2\n"
        "- name: east\n"
        "  replicas: 2\n"
        "spec:\n"
        "  clusters:\n"
        "  - name: east\n"
        "    replicas: 2\n"
        "  nested:\n"
        "  - - name: east\n"
        "      replicas: 2\n"
    )


def test_long_keys_are_explicit() -> None:
    key = "k" * 2000
    data = _round_trip({key: {"a": 1}, "short": [key]})
    assert data.startswith(b"? ")


def test_empty_document() -> None:
    assert _round_trip({}) == b"{}\n"


SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(TYPED_LOOKING)
)
KEYS = st.text() | st.sampled_from(TYPED_LOOKING)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_every_reader_reads_back_the_same_value(value: dict[str, Any]) -> None:
    data = _round_trip(value)
    reordered = dict(reversed(list(value.items())))
    assert _yaml.dump(reordered) == data


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(KEYS, VALUES, max_size=5), min_size=1, max_size=4))
def test_documents_read_together_read_back_the_same_values(values: list[dict[str, Any]]) -> None:
    memo = _yamlread.Memo()
    for value in [*values, *values, *({"k": v, "z": [v]} for v in values)]:
        assert _yamlread.load(_yaml.dump(value), memo) == value


def _scalars_replaced(value: Any, scalars: list[Any]) -> Any:
    """`value` with its scalars replaced, in order, by those of `scalars` (cycled)."""
    if isinstance(value, dict):
        return {k: _scalars_replaced(v, scalars) for k, v in value.items()}
    if isinstance(value, list):
        return [_scalars_replaced(v, scalars) for v in value]
    scalars.append(scalars.pop(0))
    return scalars[-1]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(KEYS, VALUES, min_size=1, max_size=5),
    st.lists(st.lists(SCALARS, min_size=1, max_size=4), min_size=1, max_size=4),
)
def test_documents_differing_in_scalars_read_back_their_own_values(
    value: dict[str, Any], others: list[list[Any]]
) -> None:
    memo = _yamlread.Memo()
    first = _yamlread.load(_yaml.dump(value), memo)
    for scalars in others:
        changed = _scalars_replaced(value, scalars)
        assert _yamlread.load(_yaml.dump(changed), memo) == changed
    assert first == value


SMALL_KEYS = st.sampled_from("ab")
SMALL_VALUES = st.recursive(
    st.sampled_from([1, 2]),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=2) | st.dictionaries(SMALL_KEYS, inner, min_size=1)
    ),
    max_leaves=3,
)
"""Values of a few lines, so that documents of other layouts often have as many lines and
differ in a few of them."""


@settings(max_examples=600, deadline=None)
@given(st.lists(st.dictionaries(SMALL_KEYS, SMALL_VALUES, min_size=1), min_size=2, max_size=8))
def test_small_documents_of_many_layouts_read_together_read_back_their_own_values(
    values: list[dict[str, Any]],
) -> None:
    memo = _yamlread.Memo()
    for value in values:
        assert _yamlread.load(_yaml.dump(value), memo) == value


def test_a_document_in_another_layout_is_not_read_against_one_read_before() -> None:
    memo = _yamlread.Memo()
    assert _yamlread.load(_yaml.dump({"items": [{"a": 1}]}), memo) == {"items": [{"a": 1}]}
    assert _yamlread.load(_yaml.dump({"items": {"a": 2}}), memo) == {"items": {"a": 2}}


def test_a_document_differing_in_names_is_read_against_one_read_before() -> None:
    shared = {"clusters": [{"name": "a", "replicas": 2}], "policy": "spread"}
    memo = _yamlread.Memo()
    docs = [
        {"metadata": {"name": name, "labels": {"id": f"{name}-id"}}, "spec": shared}
        for name in ("one", "two", "three")
    ]
    read = [_yamlread.load(_yaml.dump(doc), memo) for doc in docs]
    assert read == docs
    assert read[1] is not None and read[2] is not None
    assert read[1]["spec"] is read[2]["spec"]
    assert len(memo.read) == 1 and len(next(iter(memo.read.values()))) == 1


def test_a_block_documents_share_is_read_once() -> None:
    shared = {"clusters": [{"name": "a", "replicas": 2}], "note": "x\n\ny\n"}
    memo = _yamlread.Memo()
    first = _yamlread.load(_yaml.dump({"spec": shared, "name": "one"}), memo)
    second = _yamlread.load(_yaml.dump({"spec": shared, "name": "two"}), memo)
    deeper = _yamlread.load(_yaml.dump({"top": {"spec": shared}}), memo)
    listed = _yamlread.load(_yaml.dump({"items": [["x\n\ny\n"], 1], "n": 1}), memo)
    assert first is not None and second is not None and deeper is not None
    assert first["spec"] is second["spec"]
    assert (second["name"], deeper["top"]["spec"]) == ("two", shared)
    assert listed == {"items": [["x\n\ny\n"], 1], "n": 1}


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a: {b: 1}\n", id="flow mapping"),
        pytest.param("a: &x 1\nb: *x\n", id="anchor"),
        pytest.param("a: 1 # note\n", id="comment"),
        pytest.param("a: 1\na: 2\n", id="duplicate key"),
        pytest.param("a:\n    b: 1\n", id="other indentation"),
        pytest.param("- 1\n", id="not a mapping"),
        pytest.param("a: >\n  folded\n", id="folded block"),
        pytest.param('a: "open\n', id="unclosed quote"),
        pytest.param("yes: 1\n", id="key read as a boolean"),
        pytest.param("1: a\n", id="key read as a number"),
        pytest.param("null:\n  a: 1\n", id="key read as null"),
        pytest.param("&x a: 1\n", id="anchored key"),
        pytest.param("!!str a: 1\n", id="tagged key"),
        pytest.param("a:\n  on: 1\n", id="nested key read as a boolean"),
        pytest.param('"a": 1\n', id="key the writer writes plain"),
        pytest.param("a:\n- yes: 1\n", id="item key read as a boolean"),
    ],
)
def test_fast_reader_refuses_other_yaml(text: str) -> None:
    assert _yamlread.load(text.encode()) is None
