"""fieldOverrider: JSON documents patched and written compact with their key order, number
text and Go's HTML-safe escaping; YAML documents read with go-yaml v2's scalar rules and
written as sigs.k8s.io/yaml does (natural key order, numbers through JSON, quoting, literal
blocks); empty and neither-kind cases; documents json-patch v5 cannot patch (scalars, an array
after a space, null); failures located at fieldPath or at the sub-operation."""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet.errors import OverrideError


def _configmap(text: str, key: str = "f") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "test1", "namespace": "default"},
        "data": {key: text},
    }


def _ops(kind: str, *ops: tuple[str, str, Any]) -> dict[str, Any]:
    listed = [
        {"subPath": path, "operator": op, **({} if value is None else {"value": value})}
        for op, path, value in ops
    ]
    return {"fieldOverrider": [{"fieldPath": "/data/f", kind: listed}]}


@pytest.mark.parametrize(
    ("text", "overriders", "expected"),
    [
        # ported from Karmada's overridemanager tests
        pytest.param(
            "\nkey: \n  key1: value\n",
            _ops("yaml", ("replace", "/key/key1", "updated_value")),
            "key:\n  key1: updated_value\n",
            id="yaml replace",
        ),
        pytest.param(
            '{"key":{"key1":"value"}}',
            _ops("json", ("replace", "/key/key1", "updated_value")),
            '{"key":{"key1":"updated_value"}}',
            id="json replace",
        ),
        # gitfleet's own cases: JSON
        pytest.param(
            '{"z": 1, "a": {"n": 1.50}}',
            _ops("json", ("add", "/b", {"y": 2, "x": 1})),
            '{"z":1,"a":{"n":1.50},"b":{"x":1,"y":2}}',
            id="json keeps key order and number text, compact",
        ),
        pytest.param(
            '{"url": "a"}',
            _ops("json", ("replace", "/url", "http://h/?a=1&b=<2>")),
            '{"url":"http://h/?a=1\\u0026b=\\u003c2\\u003e"}',
            id="json escapes html characters as Go does",
        ),
        pytest.param(
            '{"list": [1, 2]}',
            _ops("json", ("add", "/list/-", 3), ("remove", "/list/0", None)),
            '{"list":[2,3]}',
            id="json operations in order",
        ),
        pytest.param(
            '{"ratio": 1}',
            _ops("json", ("replace", "/ratio", 0.5), ("add", "/big", 1e21)),
            '{"ratio":0.5,"big":1e+21}',
            id="json floats in Go's form",
        ),
        pytest.param("", _ops("json", ("add", "/a", 1)), "", id="json empty text unchanged"),
        # gitfleet's own cases: YAML
        pytest.param(
            "b: 1\na10: x\na2: y\n",
            _ops("yaml", ("add", "/a1", "z")),
            "a1: z\na2: true\na10: x\nb: 1\n",
            id="yaml natural key order, y is a boolean",
        ),
        pytest.param(
            "ratio: 1.0\nport: 0x1F\nzip: '08'\n",
            _ops("yaml", ("add", "/on", "true")),
            '"on": "true"\nport: 31\nratio: 1\nzip: "08"\n',
            id="yaml numbers through JSON, ambiguous strings quoted",
        ),
        pytest.param(
            "motd: |\n  hello\n  world\n",
            _ops("yaml", ("add", "/day", "2001-12-14")),
            'day: "2001-12-14"\nmotd: |\n  hello\n  world\n',
            id="yaml literal block kept, timestamp-like string quoted",
        ),
        pytest.param(
            "servers:\n- a\n",
            _ops("yaml", ("add", "/servers/-", "b"), ("add", "/extra", {"k": []})),
            "extra:\n  k: []\nservers:\n- a\n- b\n",
            id="yaml sequences unindented, empty list in flow style",
        ),
        pytest.param(
            "base: &b {a: 1}\nuse:\n  <<: *b\n  c: 2\n",
            _ops("yaml", ("remove", "/base", None)),
            "use:\n  a: 1\n  c: 2\n",
            id="yaml merge keys and aliases expanded",
        ),
        pytest.param(
            "1: one\ntrue: yes\n",
            _ops("yaml", ("replace", "/1", "uno")),
            '"1": uno\n"true": true\n',
            id="yaml non-string keys become strings",
        ),
        pytest.param(
            "x: 1\n",
            {"fieldOverrider": [{"fieldPath": "/data/f"}]},
            "",
            id="neither json nor yaml empties the field",
        ),
        # Karmada's answers (its override manager run on these documents)
        pytest.param(
            r'{"s":"\u00e9<\/x>", "k\u00e9y": "v", "n": 1.50}',
            _ops("json", ("add", "/b", "é<")),
            r'{"s":"\u00e9\u003c\/x\u003e","kéy":"v","n":1.50,"b":"é\u003c"}',
            id="json string values keep their escapes, keys of a reached object do not",
        ),
        pytest.param(
            r'{"a":{"k\u00e9y":1,"x":{"\/":2}},"b":{"\u0041":3}}',
            _ops("json", ("add", "/a/n", 1)),
            r'{"a":{"kéy":1,"x":{"\/":2},"n":1},"b":{"\u0041":3}}',
            id="json keys of objects the path does not go through keep their escapes",
        ),
        pytest.param(
            r'{"a" : { "x" : [ 1 , { "\u0041" : 2 }, {"\u0042":3} ] } }',
            _ops("json", ("replace", "/a/x/0", 5), ("add", "/a/x/-1/c", 1)),
            r'{"a":{"x":[5,{"\u0041":2},{"B":3,"c":1}]}}',
            id="json objects in a reached array keep their keys until reached",
        ),
        pytest.param(
            r'{"a":{"\u003c":1,">":2,"x\"y":3}}',
            _ops("json", ("add", "/c", 1)),
            r'{"a":{"\u003c":1,"\u003e":2,"x\"y":3},"c":1}',
            id="json keys kept as written are compacted as Go compacts raw text",
        ),
        pytest.param(
            r'[{"\u0041":1},{"\u0041":{"\u0042":1}}]',
            _ops("json", ("add", "/1/A/c", 1)),
            r'[{"\u0041":1},{"A":{"B":1,"c":1}}]',
            id="json keys rewritten along the path from an array",
        ),
        pytest.param("[1,2]", _ops("json", ("add", "/-", 3)), "[1,2,3]", id="json array"),
        pytest.param(
            '\n{"a": 1}',
            _ops("json", ("add", "/b", 3)),
            '{"a":1,"b":3}',
            id="json object after space",
        ),
        pytest.param(
            "null", _ops("json", ("add", "", {"a": 1})), '{"a":1}', id="json null given a document"
        ),
        pytest.param("", _ops("yaml", ("add", "", {"a": 1})), "a: 1\n", id="empty yaml given one"),
        pytest.param(
            "- 1\n- two\n", _ops("yaml", ("add", "/-", 3)), "- 1\n- two\n- 3\n", id="yaml list"
        ),
        pytest.param(
            "a: 1\n", _ops("yaml", ("replace", "", [1])), "- 1\n", id="yaml replaced by a list"
        ),
    ],
)
def test_field_overrider(
    text: str, overriders: dict[str, Any], expected: str, apply_block: Any
) -> None:
    assert apply_block(_configmap(text), overriders)["data"]["f"] == expected


def test_field_path_into_a_list(apply_block: Any) -> None:
    manifest = {"kind": "Thing", "metadata": {"name": "t"}, "spec": {"docs": ["{}", '{"a":1}']}}
    overriders = {
        "fieldOverrider": [
            {
                "fieldPath": "/spec/docs/1",
                "json": [{"subPath": "/a", "operator": "replace", "value": 2}],
            }
        ]
    }
    assert apply_block(manifest, overriders)["spec"]["docs"] == ["{}", '{"a":2}']


@pytest.mark.parametrize(
    ("text", "overriders", "keys", "message"),
    [
        pytest.param(
            '{"a":1}',
            _ops("json", ("remove", "/b", None)),
            ("fieldOverrider", 0, "json", 0, "subPath"),
            'cannot remove "/b": the document root has no field "b"',
            id="json sub-path missing",
        ),
        pytest.param(
            "a: 1\n",
            _ops("yaml", ("replace", "/a", 2), ("add", "/b/c", 1)),
            ("fieldOverrider", 0, "yaml", 1, "subPath"),
            'cannot add "/b/c": the document root has no field "b"',
            id="yaml second sub-operation",
        ),
        pytest.param(
            "{a:1}",
            _ops("json", ("remove", "/a", None)),
            ("fieldOverrider", 0, "fieldPath"),
            "the field does not hold JSON",
            id="not json",
        ),
        pytest.param(
            "a: [1",
            _ops("yaml", ("remove", "/a", None)),
            ("fieldOverrider", 0, "fieldPath"),
            "the field does not hold YAML",
            id="not yaml",
        ),
        pytest.param(
            "a: .nan\n",
            _ops("yaml", ("remove", "/a", None)),
            ("fieldOverrider", 0, "fieldPath"),
            "unsupported value",
            id="yaml NaN has no JSON form",
        ),
        # Karmada's answers: json-patch v5 patches objects and arrays only
        pytest.param(
            '"just a string"',
            _ops("json", ("replace", "", {"a": 1})),
            ("fieldOverrider", 0, "fieldPath"),
            "neither an object nor an array",
            id="json string",
        ),
        pytest.param(
            "42",
            _ops("json", ("add", "", {"a": 1})),
            ("fieldOverrider", 0, "fieldPath"),
            "neither an object nor an array",
            id="json number",
        ),
        pytest.param(
            " [1,2]",
            _ops("json", ("add", "/-", 3)),
            ("fieldOverrider", 0, "fieldPath"),
            "neither an object nor an array",
            id="json array after a space",
        ),
        pytest.param(
            "plain text\n",
            _ops("yaml", ("replace", "", {"a": 1})),
            ("fieldOverrider", 0, "fieldPath"),
            "neither an object nor an array",
            id="yaml string",
        ),
        pytest.param(
            "null",
            _ops("json", ("add", "/x", 1)),
            ("fieldOverrider", 0, "json", 0, "subPath"),
            "the document is null",
            id="json null",
        ),
        pytest.param(
            "",
            _ops("yaml", ("add", "/a", 1)),
            ("fieldOverrider", 0, "yaml", 0, "subPath"),
            "the document is null",
            id="empty yaml",
        ),
        pytest.param(
            '{"a": 1}',
            _ops("json", ("replace", "", "str")),
            ("fieldOverrider", 0, "json", 0, "subPath"),
            "cannot replace the whole document with a str",
            id="whole document replaced by a string",
        ),
        pytest.param(
            "a: 1\n",
            _ops("yaml", ("add", "", None)),
            ("fieldOverrider", 0, "yaml"),
            "cannot write a null document",
            id="whole document made null",
        ),
    ],
)
def test_field_overrider_failures(
    text: str, overriders: dict[str, Any], keys: tuple[Any, ...], message: str, apply_block: Any
) -> None:
    with pytest.raises(OverrideError) as caught:
        apply_block(_configmap(text), overriders)
    assert caught.value.origin.keys[-len(keys) :] == keys
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("field_path", "message"),
    [
        pytest.param("/data/g", '/data has no field "g"', id="missing"),
        pytest.param("/data", 'the value at "/data" is not a string', id="not a string"),
        pytest.param("data/f", 'must start with "/"', id="not a pointer"),
    ],
)
def test_field_path_failures(field_path: str, message: str, apply_block: Any) -> None:
    overriders = {
        "fieldOverrider": [
            {"fieldPath": field_path, "json": [{"subPath": "/a", "operator": "remove"}]}
        ]
    }
    with pytest.raises(OverrideError) as caught:
        apply_block(_configmap("{}"), overriders)
    assert caught.value.origin.keys[-3:] == ("fieldOverrider", 0, "fieldPath")
    assert message in caught.value.message


LONG_KEY = "x" * 90 + " " + "y" * 30


def _add_yaml(path: str, value: Any) -> dict[str, Any]:
    return _ops("yaml", ("add", path, value))


@pytest.mark.parametrize(
    ("overriders", "expected"),
    [
        # Karmada's answers (its override manager on "a: 1\n"): sigs.k8s.io/yaml reads the
        # Go JSON text back with go-yaml, and go-yaml's emitter writes it
        pytest.param(_add_yaml("/", 1), '"": 1\na: 1\n', id="an empty key is a simple key"),
        pytest.param(
            _add_yaml("/" + "k" * 128, 1), "a: 1\n" + "k" * 128 + ": 1\n", id="128-byte key"
        ),
        pytest.param(
            _add_yaml("/" + "é" * 65, 1), "a: 1\n? " + "é" * 65 + "\n: 1\n", id="130-byte key"
        ),
        pytest.param(_add_yaml("/a", "\u2028"), "a: '\u2028'\n", id="quoted ending in a break"),
        pytest.param(_add_yaml("/a", "x\u2028y"), "a: 'x\u2028  y'\n", id="quoted break inside"),
        pytest.param(_add_yaml("/a", "a \x85 b"), "a: a b\n", id="next-line folded to a space"),
        pytest.param(_add_yaml("/a", "a \x85\x85  b\x85"), 'a: "a\\nb "\n', id="next-lines folded"),
        pytest.param(
            _add_yaml("/a", "\U0001f600 \ud7ff"),
            'a: "\\U0001F600 \ud7ff"\n',
            id="beyond U+FFFF escaped",
        ),
        pytest.param(
            _add_yaml("/a", "tail\n\n"), "a: |+\n  tail\n\n", id="kept final breaks, no end marker"
        ),
        pytest.param(
            _add_yaml("/" + LONG_KEY, "\x01ctl"),
            "a: 1\n" + LONG_KEY + ': "\\x01ctl"\n',
            id="double-quoted past the width, no space to fold at",
        ),
        pytest.param(
            _add_yaml("/a", "\x01" + "w  " * 40),
            'a: "\\x01' + "w  " * 24 + "w\n  \\ " + "w  " * 15 + '"\n',
            id="double-quoted folded at a space",
        ),
    ],
)
def test_yaml_written_as_go_yaml_writes_it(
    overriders: dict[str, Any], expected: str, apply_block: Any
) -> None:
    assert apply_block(_configmap("a: 1\n"), overriders)["data"]["f"] == expected


def test_yaml_directives_go_yaml_reads(apply_block: Any) -> None:
    """Karmada's answer: go-yaml v2 reads a `%YAML 1.1` and a `%TAG` directive."""
    for text in ("%YAML 1.1\n---\na: 1\n", "%TAG ! tag:x,2000:\n---\na: 1\n"):
        assert apply_block(_configmap(text), _add_yaml("/b", 1))["data"]["f"] == "a: 1\nb: 1\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"a": "\x7f"}', id="control character"),
        pytest.param('{"a": "\\ud83d\\ude00"}', id="surrogate escapes in a value"),
        pytest.param('{"\\ud83d\\ude00": 1}', id="surrogate escapes in a key"),
        pytest.param("%YAML 1.2\n---\na: 1\n", id="YAML 1.2 directive"),
        pytest.param("%YAML 1.0\n---\na: 1\n", id="YAML 1.0 directive"),
        pytest.param("%FOO bar\n---\na: 1\n", id="unknown directive"),
    ],
)
def test_a_yaml_document_go_yaml_cannot_read(text: str, apply_block: Any) -> None:
    """Karmada's answers: go-yaml refuses control characters in the document itself, escapes
    of UTF-16 surrogates (which JSON writers use for characters beyond U+FFFF), a `%YAML`
    directive naming any version but 1.1 ("found incompatible YAML document") and directives
    other than `%YAML` and `%TAG`."""
    with pytest.raises(OverrideError) as caught:
        apply_block(_configmap(text), _add_yaml("/b", 1))
    assert "the field does not hold YAML" in caught.value.message


def test_yaml_read_back_from_a_next_line(apply_block: Any) -> None:
    """Karmada's answer: even an untouched string holding U+0085 is folded."""
    result = apply_block(_configmap('a: "x\\Ny"\n'), _add_yaml("/b", 1))
    assert result["data"]["f"] == "a: x y\nb: 1\n"


@pytest.mark.parametrize(
    "overriders",
    [
        pytest.param(_add_yaml("/a", "\x7f"), id="delete"),
        pytest.param(_add_yaml("/a", "x\x80y"), id="C1 control"),
        pytest.param(_add_yaml("/a", "\ufffe"), id="U+FFFE"),
        pytest.param(_add_yaml("/a\x85b", 1), id="next-line in a key"),
    ],
)
def test_yaml_go_yaml_cannot_read_back(overriders: dict[str, Any], apply_block: Any) -> None:
    """Karmada's answers: go-yaml refuses the Go JSON text of these."""
    with pytest.raises(OverrideError) as caught:
        apply_block(_configmap("a: 1\n"), overriders)
    assert "cannot write the patched field" in caught.value.message


@pytest.mark.parametrize(
    ("kind", "text", "ops", "expected"),
    [
        pytest.param("json", '{"a": 1}', [("replace", "", None)], "null", id="json"),
        pytest.param("yaml", "a: 1\n", [("replace", "", None)], "null\n", id="yaml"),
        pytest.param("json", "[1]", [("replace", "", None)], "null", id="json array"),
        pytest.param(
            "yaml",
            "a: 1\n",
            [("replace", "", None), ("add", "", {"b": 1})],
            "b: 1\n",
            id="then the whole document again",
        ),
    ],
)
def test_whole_document_replaced_by_null(
    kind: str, text: str, ops: list[tuple[str, str, Any]], expected: str, apply_block: Any
) -> None:
    """Karmada's answers: json-patch v5 replaces the whole document with null as a nil array,
    which it writes `null`, and which only another operation on the whole document changes."""
    assert apply_block(_configmap(text), _ops(kind, *ops))["data"]["f"] == expected


def test_a_nil_array_document_takes_no_inner_operation(apply_block: Any) -> None:
    """Karmada fails (its json-patch even panics) on `/-` of the nil array that replacing the
    whole document with null leaves."""
    with pytest.raises(OverrideError, match="nil array"):
        apply_block(_configmap("a: 1\n"), _ops("yaml", ("replace", "", None), ("add", "/-", 1)))
