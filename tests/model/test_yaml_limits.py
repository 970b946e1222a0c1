"""The limits every YAML reader holds to (`model.yamllimits`): hostile text is refused, located,
before any value is built; ordinary text reads exactly as PyYAML reads it.

Aspects covered:
- merge keys: a mapping that merges itself (directly, in block style, through a list, through
  another mapping), merge-key bombs (each level merging ten aliases of the one below), chains
  of merges deeper than the depth bound; each refused with `LimitError` at the entry, fast,
  with the C and the pure-Python loaders;
- aliases: bombs, lists and mappings that hold themselves, nesting that only aliases make deep;
- nesting: 100,000 flow brackets, compact block sequences, deep block mappings;
- what still reads: merges with their precedence, shared anchors, many documents, long
  scalars, nesting just under the bound; anchors do not cross documents;
- tags: Python tags stay refused by the safe loaders;
- scalars: one whose explicit tag cannot hold it (`!!int abc`, `!!timestamp 2026-02-30`, an
  int of 5,000 digits) is a `ScalarError` at the scalar, in the source reader's words, with
  the C and the pure-Python loaders and with a loader of one's own; a plain one that PyYAML's
  patterns type but cannot build (an invalid date, 5,000 digits) is its text, as go-yaml
  reads it;
- `LimitError` and `ScalarError` are `yaml.MarkedYAMLError`s, so every reader's YAML error
  handling covers them, and they print their line and column; `load` wants a single document.
"""

from __future__ import annotations

import time

import pytest
import yaml
from hostile_yaml import (
    CASES,
    CYCLE,
    PLAIN,
    SCALARS,
    SELF_MERGE,
    TOO_DEEP,
    TOO_DEEP_EXPANDED,
    alias_tower,
    merge_chain,
)

from gitfleet.model import yamllimits

REFUSED = [
    *CASES,
    pytest.param("a: &m\n  x: 1\n  <<: *m\n", (3, 3), SELF_MERGE, id="self merge, block"),
    pytest.param(
        "a: &m {x: 1, <<: [{y: 2}, *m]}\n", (1, 18), SELF_MERGE, id="self merge in a list"
    ),
    pytest.param("a: &a {b: {c: *a}}\n", (1, 12), CYCLE, id="mapping holding itself"),
    pytest.param(alias_tower(30), (21, 1), TOO_DEEP_EXPANDED, id="deep only once expanded"),
    pytest.param("- " * 100_000 + "x\n", (1, 401), TOO_DEEP, id="compact sequences"),
    pytest.param(
        "".join(" " * i + "k:\n" for i in range(300)), (201, 201), TOO_DEEP, id="deep block"
    ),
]


@pytest.mark.parametrize(("text", "where", "message"), REFUSED)
@pytest.mark.parametrize("loader", [yaml.CSafeLoader, yaml.SafeLoader], ids=["C", "Python"])
def test_hostile_text_is_refused_where_it_goes_over(
    text: str, where: tuple[int, int], message: str, loader: type[yaml.SafeLoader]
) -> None:
    started = time.monotonic()
    with pytest.raises(yamllimits.LimitError) as raised:
        yamllimits.load_all(text, loader)
    assert time.monotonic() - started < 5
    assert (raised.value.located.line, raised.value.located.col) == where
    assert raised.value.located.message == message
    assert str(raised.value) == f"line {where[0]}, column {where[1]}: {message}"
    assert isinstance(raised.value, yaml.MarkedYAMLError)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("a: &x {k: 1, j: 2}\nb: {<<: *x, k: 3}\nc: [*x, *x]\n", id="merge, aliases"),
        pytest.param(
            "a: &x {k: 1}\nb: &y {k: 2, j: 2}\nc: {<<: [*x, *y], i: 0}\n", id="merge precedence"
        ),
        pytest.param(merge_chain(150), id="merge chain under the bound"),
        pytest.param(alias_tower(19), id="aliases nesting under the bound"),
        pytest.param("a: " + "[" * 199 + "]" * 199 + "\n", id="deep flow under the bound"),
        pytest.param("---\na: 1\n" * 2000, id="many documents"),
        pytest.param("a: " + "x" * 1_000_000 + "\n", id="long scalar"),
    ],
)
def test_ordinary_text_reads_as_pyyaml_reads_it(text: str) -> None:
    assert yamllimits.load_all(text) == list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    assert yamllimits.load_all(text.encode()) == yamllimits.load_all(text)


def test_anchors_do_not_cross_documents() -> None:
    with pytest.raises(yaml.YAMLError, match="undefined alias"):
        yamllimits.load_all("a: &x {k: 1}\n---\nb: *x\n")


def test_python_tags_stay_refused() -> None:
    with pytest.raises(yaml.YAMLError, match="python/object"):
        yamllimits.load("a: !!python/object/apply:os.system [echo pwned]\n")


LOADERS = pytest.mark.parametrize(
    "loader", [yaml.CSafeLoader, yaml.SafeLoader], ids=["C", "Python"]
)


@pytest.mark.parametrize(("text", "where", "message"), SCALARS)
@LOADERS
def test_a_scalar_its_tag_cannot_hold_is_refused_where_it_stands(
    text: str, where: tuple[int, int], message: str, loader: type[yaml.SafeLoader]
) -> None:
    for read in (yamllimits.load, yamllimits.load_all):
        with pytest.raises(yamllimits.ScalarError) as raised:
            read("a: 1\n" + text, loader)
        assert str(raised.value) == f"line {where[0] + 1}, column {where[1]}: {message}"
        assert isinstance(raised.value, yaml.MarkedYAMLError)


@pytest.mark.parametrize("text", PLAIN)
@LOADERS
def test_a_plain_scalar_its_type_cannot_hold_is_text(
    text: str, loader: type[yaml.SafeLoader]
) -> None:
    assert yamllimits.load(f"x: {text}\n", loader) == {"x": text}


def test_a_loader_of_ones_own_is_held_to_the_same() -> None:
    """Whatever a reader's own constructor raises on a scalar is a `ScalarError` there."""

    class Own(yaml.CSafeLoader):
        pass

    Own.add_constructor("!port", lambda loader, node: int(node.value))
    assert yamllimits.load("x: !port 80\n", Own) == {"x": 80}
    with pytest.raises(yamllimits.ScalarError) as raised:
        yamllimits.load("x: !port http\n", Own)
    assert str(raised.value) == "line 1, column 4: 'http' cannot be read as !port"


def test_load_reads_one_document() -> None:
    assert yamllimits.load(b"a: 1\n") == {"a": 1}
    assert yamllimits.load(b"") is None
    with pytest.raises(yaml.YAMLError, match="single document"):
        yamllimits.load(b"a: 1\n---\nb: 2\n")
