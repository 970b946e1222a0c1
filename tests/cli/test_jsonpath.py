"""kubectl's JSONPath templates (`gitfleet.cli.jsonpath`), which `get -o jsonpath=...` and
`-o custom-columns=...` print with.

Aspects covered:
- each template prints what kubectl 1.32 prints for it on the same object (the real kubectl,
  `kubectl label --local -o jsonpath=...`, run where installed; the expected text is also
  written here, so the engine is checked without it): fields and escaped dots, quoted keys,
  indexes, negative indexes and slices with steps, unions, wildcards, recursive descent,
  filters comparing numbers, strings and booleans or testing that a field exists, ranges
  (nested, empty, and without their `{end}`), quoted text with Go's escapes, numbers, booleans,
  null, floats as Go prints them, maps and lists as Go's compact JSON;
- templates that do not parse, or that fail on the object, fail with kubectl's reasons;
- `jsonpath-as-json` prints each action's results as an indented JSON array;
- `--allow-missing-template-keys=false` makes a missing field an error;
- a custom-columns cell joins what it finds with commas, `<none>` when nothing, maps written
  as Go's `fmt.Sprint` writes them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from simfixture import KUBECTL, needs_kubectl

from gitfleet.cli import jsonpath

OBJECT: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "a",
        "namespace": "default",
        "labels": {"k": "v"},
        "annotations": {"example.com/tier": "<front>"},
    },
    "spec": {
        "items": [
            {"name": "p", "n": 1, "f": 1.5, "b": True, "z": None, "t": [1, 2]},
            {"name": "q", "n": 3, "f": 2.5, "b": False},
            {"name": "r", "m": "3"},
        ],
        "nul": None,
        "big": 12345678901,
        "fl": 0.5,
        "e": 1e21,
        "empty": [],
        "one": {"x": "1"},
        "s": "h\u00e9",
    },
}

PRINTED = [
    ("{.metadata.name}", "a"),
    ("{$.kind} {@.metadata.namespace}", "ConfigMap default"),
    ("{.metadata.annotations.example\\.com/tier}", "<front>"),
    ("{.metadata['name']}", "a"),
    ("{.metadata.labels}", '{"k":"v"}'),
    ("{.metadata.nothing}", ""),
    ("{.}", ""),
    ("{.spec.nul}", "null"),
    ("{.spec.items[0].z}", "null"),
    ("{.spec.big} {.spec.fl} {.spec.e}", "12345678901 0.5 1e+21"),
    ("{.spec.empty}{.spec.one}", '[]{"x":"1"}'),
    ("{.spec.s}", "h\u00e9"),
    ("{.spec.items[*].name}", "p q r"),
    ("{.spec.items[-1].name}", "r"),
    ("{.spec.items[0:2].name}", "p q"),
    ("{.spec.items[::2].name}", "p r"),
    ("{.spec.items[1:].name}", "q r"),
    ("{.spec.items[2:2].name}", ""),
    ("{.spec.items[0,2].name}", "p r"),
    ("{.spec.items[0]['name','n']}", "p 1"),
    ("{.spec.items[*].t[*]}", "1 2"),
    ("{.spec.items[0].t}", "[1,2]"),
    ("{.spec.items[*].b}", "true false"),
    ("{.spec.items[?(@.n==1)].name}", "p"),
    ("{.spec.items[?(@.n>1)].name}", "q"),
    ("{.spec.items[?(@.n>=3)].name}", "q"),
    ('{.spec.items[?(@.m=="3")].name}', "r"),
    ("{.spec.items[?(@.name=='q')].n}", "3"),
    ('{.spec.items[?(@.name!="p")].name}', "q r"),
    ('{.spec.items[?(@.name>"p")].name}', "q r"),
    ("{.spec.items[?(@.f<2.0)].name}", "p"),
    ("{.spec.items[?(@.b==true)].name}", "p"),
    ("{.spec.items[?(@.t)].name}", "p"),
    ("{.spec.items[?(@.z)].name}", "p"),
    ("{.spec.items[?(@.n==1)]}", '{"b":true,"f":1.5,"n":1,"name":"p","t":[1,2],"z":null}'),
    ('{range .spec.items[*]}{.name}{"\\n"}{end}', "p\nq\nr\n"),
    ("{range .spec.items[*]}[{.name}:{range .t[*]}{@},{end}]{end}", "[p:1,2,][q:][r:]"),
    ("{range .spec.empty[*]}x{end}y", "y"),
    ("{range .spec.items[*]}{.name}{end}{.kind}", "pqrConfigMap"),
    ("{range .spec.items[*]}<{.name}>", "<p><q><r><>"),
    ("{range .spec.items[*]}<{.name}>{range .t[*]}{@}{end}", "<p>12<q><r>"),
    ("{range}{.kind}{end}", "ConfigMap"),
    ("{.spec.items..name}", "p q r"),
    ("{.spec.items[*]..name}", "p q r"),
    ('{"\\u00e9\\x41\\101\\t"}', "\u00e9AA\t"),
    ("{'it\\'s'}", "it's"),
    ("{1.5} {true} {-1} {+2}", "1.5 true -1 2"),
    ("{ .metadata.name }{.spec.items[0 , 1].name}", "ap q"),
    ("text only", "text only"),
    (
        "{}",
        json.dumps(OBJECT, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e"),
    ),
    ("{.metadata.labels.k}|{.metadata.name}", "v|a"),
]

FAILING = [
    ("{.metadata.name", "unclosed action"),
    ("{%}", "unrecognized character in action: U+0025 '%'"),
    ('{.spec.items[?(@.n=~"1")]}', "unrecognized character in action: U+007E '~'"),
    ("{.spec.items[0}", "unterminated array"),
    ("{.spec.items[a]}", "invalid array index a"),
    ("{.spec.items[?(@.n==1]}", "unterminated filter"),
    ('{"abc}', "unterminated quoted string"),
    ("{1.2.3}", "cannot parse number 1.2.3"),
    ("{....x}", "invalid multiple recursive descent"),
    ("{end}", "not in range, nothing to end"),
    ("{.spec.items[5].name}", "array index out of bounds: index 5, length 3"),
    ("{.spec.items[-5].name}", "array index out of bounds: index -2, length 3"),
    ("{.spec.items[2:1].name}", "starting index 2 is greater than ending index 1"),
    ("{.spec.items[0:3:0].name}", "step must be > 0"),
    ("{.metadata.name[0]}", "string is not array or slice"),
    ("{.kind[*]}", "string is not array or slice"),
    ("{.spec.one[?(@==1)]}", "map[x:1] is not array or slice and cannot be filtered"),
    ("{.spec.items[?(@.f==1)].name}", "incompatible types for comparison"),
    ("{.spec.items[?(@.t==1)].name}", "invalid type for comparison"),
    ("{.spec.items[?(@.b<true)].name}", "invalid type for comparison"),
    ("{.spec.items[?(@.n = 1)].name}", "unrecognized filter operator ="),
    ("{.spec.items[?(@.t[*]==1)].name}", "can only compare one element at a time"),
    ("{what}", "unrecognized identifier what"),
    ("{.spec.items[ 0 ]}", "invalid array index  0 "),
    ('{.spec.items[?(@.n=="1")]}', "incompatible types for comparison"),
]


def _printed(template: str, data: Any = OBJECT, **options: Any) -> str:
    return jsonpath.render(jsonpath.parse(template), data, **options)


@pytest.mark.parametrize(("template", "expected"), PRINTED, ids=[t for t, _ in PRINTED])
def test_a_template_prints_what_kubectl_prints(template: str, expected: str) -> None:
    assert _printed(template) == expected


@pytest.mark.parametrize(("template", "reason"), FAILING, ids=[t for t, _ in FAILING])
def test_a_template_fails_for_kubectls_reason(template: str, reason: str) -> None:
    with pytest.raises(jsonpath.TemplateError) as failed:
        _printed(template)
    assert str(failed.value) == reason


@needs_kubectl
def test_kubectl_agrees(tmp_path: Path) -> None:
    """The same templates through the real kubectl: an object it relabels with the label it
    has already, so what it prints is the object as given."""
    path = tmp_path / "object.json"
    path.write_text(json.dumps(OBJECT))
    env = {**os.environ, "KUBECONFIG": os.devnull, "HOME": str(tmp_path)}

    def kubectl(template: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(KUBECTL), "label", "--local", "-f", str(path), "k=v", "--overwrite",
             "-o", f"jsonpath={template}"],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip

    for template, expected in PRINTED:
        done = kubectl(template)
        assert (done.returncode, done.stdout) == (0, expected), template
    for template, reason in FAILING:
        done = kubectl(template)
        assert done.returncode == 1 and reason in done.stderr, (template, done.stderr)


def test_as_json_prints_each_actions_results_as_an_array() -> None:
    printed = _printed("{.spec.items[*].name}{.spec.nothing}", as_json=True)
    assert printed == '[\n    "p",\n    "q",\n    "r"\n]\n[]\n'


def test_a_missing_field_is_an_error_when_keys_must_be_there() -> None:
    assert _printed("{.metadata.nothing}") == ""
    with pytest.raises(jsonpath.TemplateError, match=r"^nothing is not found$"):
        _printed("{.metadata.nothing}", allow_missing=False)


def test_a_cell_joins_its_values() -> None:
    def cell(template: str) -> str:
        return jsonpath.cell(jsonpath.parse(template), OBJECT)

    assert cell("{.spec.items[*].name}") == "p,q,r"
    assert cell("{.spec.nothing}") == "<none>"
    assert cell("{.metadata.labels}") == "map[k:v]"
    assert cell("{.spec.items[0].t}") == "[1 2]"
    assert cell("{.spec.nul}") == "<nil>"
    assert jsonpath.cell(jsonpath.parse("{.n}"), {"n": 1000000.0}) == "1e+06"
