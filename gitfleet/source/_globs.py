"""The include/exclude patterns of gitfleet.yaml, matched in time that grows with the path and
the pattern, never exponentially.

Patterns are paths from the source's root with `/` between segments: `*` and `?` and `[...]`
stay inside a segment, `**` spans any number of segments (none included). A pattern without
`/` matches at any depth, as in .gitignore (`*.yml` is `**/*.yml`). A pattern matches a path
when it matches the path itself or one of its folders, so `vendor` and `vendor/**` both keep
everything below vendor/ out. Absolute patterns, `..` segments and character classes that
match nothing (`[z-a]`) are refused: a pattern can never reach outside the source.

gitfleet.yaml comes with the pull request it is part of, so a pattern is hostile input: one
regular expression for a whole pattern would backtrack through every way of sharing a name
among its stars, or a path among its `**` (`*a*a*a*a*b`, `**/a/**/a/**/b`: minutes for one
path). So a segment is cut at its stars into pieces of fixed width, each found leftmost after
the one before (the first at the start of the name, the last at its end), and a pattern's
segments are matched name by name, keeping the set of depths its segments so far can reach.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_ANY_DEPTH = "**"


def problem(pattern: str) -> str | None:
    """Why a pattern is refused, or None."""
    if not pattern.strip("/"):
        return "empty pattern"
    if pattern.startswith("/"):
        return f"pattern {pattern!r} is absolute; patterns are relative to the source's root"
    if ".." in pattern.split("/"):
        return f"pattern {pattern!r} has a '..' segment; patterns stay inside the source"
    try:
        _Pattern(pattern)
    except re.error as error:
        return f"pattern {pattern!r} has a character class that is not one: {error.msg}"
    return None


def _class_end(segment: str, at: int) -> int:
    """Where the class `[` at `at` opens closes (-1: it does not, and `[` is itself)."""
    return segment.find("]", at + 2 if segment[at + 1 : at + 2] in ("!", "]") else at + 1)


def _pieces(segment: str) -> list[tuple[str, int]]:
    """`segment` cut at its stars: (regular expression, characters it matches) a piece."""
    pieces: list[tuple[str, int]] = []
    parts: list[str] = []
    at = 0
    while at < len(segment):
        char = segment[at]
        end = _class_end(segment, at) if char == "[" else -1
        if char == "*":
            pieces.append(("".join(parts), len(parts)))
            parts = []
        elif char == "?":
            parts.append("[^/]")
        elif end >= 0:
            body = segment[at + 1 : end]
            if body.startswith("!"):
                body = "^/" + body[1:]  # a negated class still stays inside the segment
            parts.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            at = end
        else:
            parts.append(re.escape(char))
        at += 1
    pieces.append(("".join(parts), len(parts)))
    return pieces


class _Segment:
    """A segment other than `**`, matched against one name."""

    __slots__ = ("_first", "_last", "_last_width", "_middle", "_whole")

    def __init__(self, segment: str) -> None:
        pieces = [(re.compile(text, re.DOTALL), width) for text, width in _pieces(segment)]
        self._whole = pieces[0][0] if len(pieces) == 1 else None
        self._first = pieces[0][0]
        self._middle = tuple(piece for piece, _ in pieces[1:-1])
        self._last, self._last_width = pieces[-1]

    def matches(self, name: str) -> bool:
        if self._whole is not None:
            return self._whole.fullmatch(name) is not None
        found = self._first.match(name)
        if found is None:
            return False
        at = found.end()
        for piece in self._middle:  # the leftmost place leaves the most room to the rest
            found = piece.search(name, at)
            if found is None:
                return False
            at = found.end()
        start = len(name) - self._last_width
        return start >= at and self._last.fullmatch(name, start) is not None


class _Pattern:
    """One pattern: its segments, `None` standing for `**` (runs of them made one)."""

    __slots__ = ("_segments",)

    def __init__(self, pattern: str) -> None:
        texts = pattern.strip("/").split("/")
        if len(texts) == 1:
            texts = [_ANY_DEPTH, *texts]
        segments: list[_Segment | None] = []
        for text in texts:
            if text != _ANY_DEPTH:
                segments.append(_Segment(text))
            elif not segments or segments[-1] is not None:
                segments.append(None)
        self._segments = tuple(segments)

    def matches(self, names: Sequence[str]) -> bool:
        """Whether the pattern matches the first names of `names` (all of them, or a
        folder's)."""
        reached = [0]  # how many names the segments so far can have matched, ascending
        for segment in self._segments:
            if segment is None:
                reached = list(range(reached[0], len(names) + 1))
                continue
            reached = [
                depth + 1
                for depth in reached
                if depth < len(names) and segment.matches(names[depth])
            ]
            if not reached:
                return False
        return True


class Globs:
    """A set of patterns; `matches(path)` is true when any covers the path or a folder of it."""

    __slots__ = ("_patterns",)

    def __init__(self, patterns: Sequence[str]) -> None:
        self._patterns = tuple(_Pattern(p) for p in patterns)

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def matches(self, path: str) -> bool:
        """`path` has no trailing slash; folders and files are matched alike."""
        if not self._patterns:
            return False
        names = path.split("/")
        return any(pattern.matches(names) for pattern in self._patterns)
