"""One YAML file becomes documents: strictly, with positions, and safely.

Aspects covered:
- multi-document files; empty and comment-only documents are skipped; positions of each
  document's first key; BOM and CRLF line endings;
- duplicate keys are refused at the second key, also in flow mappings, but keys merged with
  `<<` may be set again; merge precedence (own keys, then earlier sources);
- unknown and Python tags are refused where they are written;
- a refused document does not hide the documents after it; a syntax error ends the file;
- NUL bytes and invalid UTF-8 are refused before parsing, located; a UTF-16 or UTF-32 file
  (by its byte order mark) and a Git LFS pointer are refused, saying what they are;
- nesting beyond the bound is refused before composing (100,000 `[`, deep block nesting),
  while deep but legal files still load;
- alias bombs and self-referencing aliases are refused where they go over; ordinary anchors
  load (merge keys: test_merge_keys.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from parsed_yaml import parse_all

from gitfleet.source import _yaml


def problems_of(data: bytes) -> list[tuple[int, int, str]]:
    return [(p.line, p.col, p.message) for p in parse_all(data)[1]]


def values_of(data: bytes) -> list[Any]:
    documents, problems = parse_all(data)
    assert not problems, problems
    return [d.value for d in documents]


def test_documents_keep_their_place() -> None:
    data = b"# leading comment\na: 1\n---\n# only a comment\n---\n\n  b: 2\n---\n- x\n"
    documents, problems = parse_all(data)
    assert not problems
    assert [(d.index, d.value, d.line, d.col) for d in documents] == [
        (0, {"a": 1}, 2, 1),
        (1, None, 5, 1),
        (2, {"b": 2}, 7, 3),
        (3, ["x"], 9, 1),
    ]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xef\xbb\xbfa: 1\nb: x\n", id="byte order mark"),
        pytest.param(b"a: 1\r\nb: x\r\n", id="CRLF"),
        pytest.param(b"a: 1\nb: x", id="no final newline"),
    ],
)
def test_encodings_and_line_endings(data: bytes) -> None:
    documents, problems = parse_all(data)
    assert not problems
    assert documents[0].value == {"a": 1, "b": "x"}
    assert (documents[0].line, documents[0].col) == (1, 1)


@pytest.mark.parametrize("data", [b"", b"\n\n", b"# nothing\n", b"---\n...\n"])
def test_empty_files_hold_no_documents(data: bytes) -> None:
    documents, problems = parse_all(data)
    assert not problems
    assert all(d.value is None for d in documents)


@pytest.mark.parametrize(
    ("data", "where"),
    [
        pytest.param(b"a: 1\nb: 2\na: 3\n", (3, 1), id="block"),
        pytest.param(b"m: {x: 1, y: 2, x: 3}\n", (1, 17), id="flow"),
        pytest.param(b"m:\n  yes: 1\n  true: 2\n", (3, 3), id="same key after conversion"),
        pytest.param(b"a: &a {x: 1}\nb:\n  <<: *a\n  y: 1\n  y: 2\n", (5, 3), id="after a merge"),
    ],
)
def test_duplicate_keys_are_located_at_the_second(data: bytes, where: tuple[int, int]) -> None:
    [(line, col, message)] = problems_of(data)
    assert (line, col) == where
    assert message.startswith("duplicate key")


def test_merge_precedence() -> None:
    data = b"""\
one: &one {a: 1, b: 1, c: 1}
two: &two {b: 2, d: 2}
m:
  <<: [*one, *two]
  c: 3
"""
    [doc] = values_of(data)
    assert doc["m"] == {"c": 3, "a": 1, "b": 1, "d": 2}


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        pytest.param("!!python/object:os.system x", "!!python/object:os.system", id="python"),
        pytest.param("!!python/name:os.system ''", "!!python/name:os.system", id="python name"),
        pytest.param("!foo 1", "!foo", id="local tag"),
        pytest.param("!!binary aGk=", "!!binary", id="binary"),
        pytest.param("!!timestamp 2026-01-01", "!!timestamp", id="timestamp"),
        pytest.param("!!set {a: null}", "!!set", id="set"),
    ],
)
def test_unsupported_tags_are_refused(text: str, tag: str) -> None:
    assert problems_of(f"a: 1\nv: {text}\n".encode()) == [(2, 4, f"unsupported tag {tag!r}")]


def test_a_refused_document_does_not_hide_the_next() -> None:
    documents, problems = parse_all(b"a: 1\na: 2\n---\nb: 1\n")
    assert [(p.line, p.col) for p in problems] == [(2, 1)]
    assert [(d.index, d.value) for d in documents] == [(1, {"b": 1})]


def test_a_syntax_error_ends_the_file() -> None:
    documents, problems = parse_all(b"a: 1\n---\nb: [1, 2\nc: 3\n---\nd: 1\n")
    assert [d.value for d in documents] == [{"a": 1}]
    [problem] = problems
    assert problem.message.startswith("invalid YAML: ")
    assert problem.line == 4


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        pytest.param(b"a: 1\nb: x\x00y\n", (2, 5), "binary file (NUL byte) is not YAML", id="NUL"),
        pytest.param(b"a: 1\nb: caf\xe9\n", (2, 7), "file is not UTF-8 text", id="latin-1"),
        pytest.param(b"\xff\xfea\x00:\x00", (1, 1), "file is UTF-16 text, not UTF-8", id="UTF-16"),
        pytest.param(b"\xfe\xff\x00a\x00:", (1, 1), "file is UTF-16 text", id="UTF-16BE"),
        pytest.param(b"\xff\xfe\x00\x00a\x00\x00\x00", (1, 1), "file is UTF-32 text", id="UTF-32"),
        pytest.param(
            b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a21\nsize 12345\n",
            (1, 1),
            "file is a Git LFS pointer, not YAML",
            id="LFS pointer",
        ),
    ],
)
def test_bytes_that_are_not_text(data: bytes, where: tuple[int, int], message: str) -> None:
    [(line, col, text)] = problems_of(data)
    assert (line, col) == where
    assert text.startswith(message)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"[" * 100_000, id="100k open brackets"),
        pytest.param(b"a: " + b"[" * 300 + b"]" * 300 + b"\n", id="deep flow"),
        pytest.param(b"".join(b" " * i + b"k:\n" for i in range(300)), id="deep block"),
        pytest.param(b"- " * 300 + b"x\n", id="compact sequences"),
    ],
)
def test_nesting_beyond_the_bound_is_refused(data: bytes) -> None:
    [(line, col, message)] = problems_of(data)
    assert message == f"nesting deeper than {_yaml.MAX_DEPTH} levels"
    assert line >= 1 and col >= 1


def test_deep_but_legal_nesting_loads() -> None:
    depth = _yaml.MAX_DEPTH - 1
    [doc] = values_of(b"a: " + b"[" * depth + b"]" * depth + b"\n")
    inner = doc["a"]
    for _ in range(depth - 1):
        inner = inner[0]
    assert inner == []


def test_many_brackets_without_depth_load() -> None:
    data = b"items: [" + b", ".join(b"[%d]" % i for i in range(500)) + b"]\n"
    [doc] = values_of(data)
    assert doc["items"][499] == [499]


BOMB = b"""\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
"""


@pytest.mark.parametrize(
    ("data", "where", "message"),
    [
        pytest.param(
            BOMB, (7, 4), "aliases and merge keys expand to more than", id="billion laughs"
        ),
        pytest.param(
            b"a: &a {b: *a}\n", (1, 8), "an alias makes a collection", id="self reference"
        ),
    ],
)
def test_alias_expansion_is_bounded(data: bytes, where: tuple[int, int], message: str) -> None:
    [(line, col, text)] = problems_of(data)
    assert (line, col) == where
    assert text.startswith(message)


def test_ordinary_anchors_load() -> None:
    [doc] = values_of(b"labels: &l {app: web}\nselector: {matchLabels: *l}\n")
    assert doc["selector"]["matchLabels"] == {"app": "web"}
