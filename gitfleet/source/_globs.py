"""The include/exclude patterns of gitfleet.yaml, compiled once into one regular expression.

Patterns are paths from the source's root with `/` between segments: `*` and `?` and `[...]`
stay inside a segment, `**` spans any number of segments (none included). A pattern without
`/` matches at any depth, as in .gitignore (`*.yml` is `**/*.yml`). A pattern matches a path
when it matches the path itself or one of its folders, so `vendor` and `vendor/**` both keep
everything below vendor/ out. Absolute patterns and `..` segments are refused: a pattern can
never reach outside the source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def problem(pattern: str) -> str | None:
    """Why a pattern is refused, or None."""
    if not pattern.strip("/"):
        return "empty pattern"
    if pattern.startswith("/"):
        return f"pattern {pattern!r} is absolute; patterns are relative to the source's root"
    if ".." in pattern.split("/"):
        return f"pattern {pattern!r} has a '..' segment; patterns stay inside the source"
    return None


def _segment(segment: str) -> str:
    out = []
    at = 0
    while at < len(segment):
        char = segment[at]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", at + 2 if segment[at + 1 : at + 2] in ("!", "]") else at + 1)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = segment[at + 1 : end]
                if body.startswith("!"):
                    body = "^/" + body[1:]  # a negated class still stays inside the segment
                out.append("[" + body.replace("\\", "\\\\") + "]")
                at = end
        else:
            out.append(re.escape(char))
        at += 1
    return "".join(out)


def _regex(pattern: str) -> str:
    segments = pattern.strip("/").split("/")
    if len(segments) == 1:
        segments = ["**", *segments]
    parts = []
    for segment in segments:
        parts.append("(?:[^/]+/)*" if segment == "**" else _segment(segment) + "/")
    return "".join(parts)


class Globs:
    """A set of patterns; `matches(path)` is true when any covers the path or a folder of it."""

    __slots__ = ("_regex",)

    def __init__(self, patterns: Sequence[str]) -> None:
        body = "|".join(_regex(p) for p in patterns)
        self._regex = re.compile(f"(?:{body})") if patterns else None

    def __bool__(self) -> bool:
        return self._regex is not None

    def matches(self, path: str) -> bool:
        """`path` has no trailing slash; folders and files are matched alike."""
        return self._regex is not None and self._regex.match(path + "/") is not None
