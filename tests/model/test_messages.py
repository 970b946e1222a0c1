"""Messages as status files record them.

Aspects covered: a message of one line is kept; one of many lines is its first line and how
many follow (blank lines around it not counted, every kind of line break counted); a line
beyond the byte bound is cut at a character, ending with `…` (or keeping its end after it, when
asked), the count of lines kept; a
blank message is empty; control characters (a NUL, a terminal's escape), bidirectional
controls and zero-width characters (which show a text in another order, or hide part of it)
are written escaped, and the bound holds for the escaped line.
"""

from __future__ import annotations

import pytest

from gitfleet.model import messages


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        pytest.param("no such object", 1024, "no such object", id="one line"),
        pytest.param(
            "is invalid: spec: Forbidden\n  core.Spec{\n- \tA: 1,\n+ \tA: 2,\n  }\n",
            1024,
            "is invalid: spec: Forbidden (+4 more lines)",
            id="a go-cmp report",
        ),
        pytest.param("\n\n  first  \nsecond\n\n", 1024, "first (+1 more line)", id="blank lines"),
        pytest.param("a\rb\u2028c\x0bd", 1024, "a (+3 more lines)", id="other line breaks"),
        pytest.param("ab" * 20, 10, "abababa…", id="cut"),
        pytest.param("é" * 20, 10, "ééé…", id="cut at a character"),
        pytest.param("x" * 50 + "\nmore", 30, "xxxxxxxxxxxx… (+1 more line)", id="cut, count kept"),
        pytest.param(" \n\t\n", 1024, "", id="blank"),
        pytest.param("a\x00b \x1b[2J", 1024, "a\\x00b \\x1b[2J", id="control characters escaped"),
        pytest.param("\x1b" * 20, 10, "\\x1b\\x1…", id="cut once escaped"),
        pytest.param(
            "image: \u202erenim/live\u200b",
            1024,
            "image: \\u202erenim/live\\u200b",
            id="bidirectional and zero-width characters escaped",
        ),
    ],
)
def test_one_line(text: str, limit: int, expected: str) -> None:
    line = messages.one_line(text, limit)
    assert line == expected
    assert len(line.encode()) <= limit


@pytest.mark.parametrize(
    ("text", "limit", "keep", "expected"),
    [
        pytest.param("a" * 30 + ": immutable", 22, 9, "aaaaaaaaaa…immutable", id="end kept"),
        pytest.param("a" * 30 + ": immutable\nmore", 40, 9,
                     "aaaaaaaaaaaaa…immutable (+1 more line)", id="end kept, count kept"),
        pytest.param("a" * 10 + "é" * 10, 12, 4, "aaaaa…éé", id="end cut at a character"),
        pytest.param("short: immutable", 100, 9, "short: immutable", id="not cut"),
        pytest.param("a" * 30, 5, 20, "a…a", id="the end takes half the room at most"),
    ],
)  # fmt: skip
def test_one_line_keeping_its_end(text: str, limit: int, keep: int, expected: str) -> None:
    line = messages.one_line(text, limit, keep_end=keep)
    assert line == expected
    assert len(line.encode()) <= limit
    assert len(line.splitlines()) <= 1
