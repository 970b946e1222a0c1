"""A Work directory whose files hold hostile YAML (whoever can write the rendered branch can put
it there): each such file is a located problem, the set is incomplete, nothing is built.

Aspects covered: each text of `hostile_yaml.CASES` (a manifest merging itself, merge-key and
alias billion laughs, a list holding itself, 100,000 levels of brackets, ...) and of
`hostile_yaml.SCALARS` (`!!int abc`, `!!timestamp 2026-02-30`, ...) after a manifest's own
fields is refused within seconds with its line and column, next to a good manifest that
still reads; a Python tag stays refused; a plain scalar PyYAML types but cannot build
(`hostile_yaml.PLAIN`) is the text it is, as kubectl reads it.
"""

from __future__ import annotations

import time

import pytest
from hostile_yaml import CASES, PLAIN, SCALARS

from gitfleet.agent import workdir

BASE = "works/m1/"
GOOD = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\n"
HEAD = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\n"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        *(
            pytest.param(text, f"line {line + 3}, column {col}: {message}", id=case.id)
            for case in CASES + SCALARS
            for text, (line, col), message in [case.values]
        ),
        pytest.param("data: !!python/object/apply:os.system [x]\n", "python/object", id="tag"),
    ],
)
def test_hostile_manifest_is_a_located_problem(body: str, expected: str) -> None:
    started = time.monotonic()
    found = workdir.parse(
        "m1",
        {
            BASE + "shop/ConfigMap.core/bad.yaml": HEAD + body.encode(),
            BASE + "shop/ConfigMap.core/good.yaml": GOOD,
        },
        rendered_commit="r",
    )
    assert time.monotonic() - started < 5
    assert not found.complete
    [problem] = found.problems
    assert problem.startswith(f"{BASE}shop/ConfigMap.core/bad.yaml: not valid YAML: ")
    assert expected in problem
    assert [m.ref.name for m in found.manifests] == ["good"]


@pytest.mark.parametrize("text", PLAIN)
def test_plain_scalar_is_its_text(text: str) -> None:
    body = HEAD + f"data: {{a: {text}}}\n".encode()
    found = workdir.parse("m1", {BASE + "shop/ConfigMap.core/bad.yaml": body}, rendered_commit="r")
    assert found.complete, found.problems
    [manifest] = found.manifests
    assert manifest.body["data"] == {"a": text}
