"""YAML texts that once crashed or hung a reader, shared by the tests of every reader (source
files, status files, the rendered branch, field documents, interpreter inputs). Each builder
gives top-level mapping entries, so a text can follow a manifest's own fields.

`CASES` pairs the most telling of them with where (line, column) and what `model.yamllimits`
reports when the text stands alone."""

from __future__ import annotations

import pytest

CYCLE = "an alias makes a collection contain itself"
SELF_MERGE = "'<<' merges a mapping into itself"
TOO_MANY = "aliases and merge keys expand to more than 1000000 values"
TOO_DEEP_EXPANDED = "aliases and merge keys nest deeper than 200 levels"
TOO_DEEP = "nesting deeper than 200 levels"


def bomb(merge: bool = True, levels: int = 11) -> str:
    """A billion laughs: each level holds ten aliases of the one below, as a list or, with
    `merge`, merged into a mapping."""
    lines = ["l0: &l0 {a: 1}" if merge else "l0: &l0 [a, a, a, a, a, a, a, a, a, a]"]
    for level in range(1, levels + 1):
        sources = ", ".join([f"*l{level - 1}"] * 10)
        value = f"{{k{level}: 1, <<: [{sources}]}}" if merge else f"[{sources}]"
        lines.append(f"l{level}: &l{level} {value}")
    return "\n".join(lines) + "\n"


def merge_chain(length: int) -> str:
    """Each mapping merges the one before: `length` levels of merging."""
    lines = ["m0: &m0 {k0: 0}"]
    lines += [f"m{i}: &m{i} {{k{i}: {i}, <<: *m{i - 1}}}" for i in range(1, length)]
    return "\n".join(lines) + "\n"


def alias_tower(levels: int) -> str:
    """Each level nests the one below ten deep: little text, deep once expanded."""
    lines = ["t0: &t0 x"]
    for i in range(1, levels):
        lines.append(f"t{i}: &t{i} " + "[" * 10 + f"*t{i - 1}" + "]" * 10)
    return "\n".join(lines) + "\n"


CASES = [
    pytest.param("a: &m {<<: *m}\n", (1, 8), SELF_MERGE, id="self merge"),
    pytest.param(
        "a: &a\n  b: &b\n    <<: *a\n  <<: *b\n", (3, 5), SELF_MERGE,
        id="merge through another mapping",
    ),
    pytest.param(bomb(), (7, 21), TOO_MANY, id="merge-key billion laughs"),
    pytest.param(bomb(merge=False), (6, 5), TOO_MANY, id="billion laughs"),
    pytest.param("a: &a [x, *a]\n", (1, 4), CYCLE, id="cycle"),
    pytest.param(merge_chain(300), (200, 1), TOO_DEEP_EXPANDED, id="merge chain"),
    pytest.param("a: " + "[" * 100_000, (1, 204), TOO_DEEP, id="100k brackets"),
]  # fmt: skip
"""(text, (line, column), message) of hostile texts, as `model.yamllimits` reports them."""

LONG_INT = "9" * 5000
"""More digits than Python converts to an integer (4300)."""

SCALARS = [
    pytest.param("x: !!int abc\n", (1, 4), "'abc' is not an integer", id="int of text"),
    pytest.param("x: !!int 0x\n", (1, 4), "'0x' is not an integer", id="int of no digits"),
    pytest.param(
        f"x: !!int {LONG_INT}\n", (1, 4),
        f"{LONG_INT[:40]!r}… (5000 characters) is not an integer", id="int of 5000 digits",
    ),
    pytest.param("x: !!float x\n", (1, 4), "'x' is not a number", id="float of text"),
    pytest.param("x: !!bool maybe\n", (1, 4), "'maybe' is not a boolean", id="bool of text"),
    pytest.param("x: !!timestamp x\n", (1, 4), "'x' is not a timestamp", id="timestamp of text"),
    pytest.param(
        "x: !!timestamp 2026-02-30\n", (1, 4), "'2026-02-30' is not a timestamp",
        id="timestamp of no day",
    ),
]  # fmt: skip
"""(text, (line, column), message) of scalars whose explicit tag cannot hold them, which once
crashed the readers built on PyYAML's safe loader, as `model.yamllimits` reports them."""

PLAIN = [
    pytest.param("2026-02-30T00:00:00Z", id="timestamp of no day"),
    pytest.param(LONG_INT, id="5000 digits"),
    pytest.param("0x_", id="hexadecimal of no digits"),
]
"""Plain scalars that PyYAML's patterns type but its constructors cannot build, which also
crashed those readers; go-yaml, and so kubectl, reads each as the text it is."""
