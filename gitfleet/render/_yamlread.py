"""Read back the YAML `_yaml` writes, fast: the previous render's bindings, on every render.

A general YAML reader builds each value through Python-level constructors (milliseconds for a
binding), while the writer only ever produces a small subset: block mappings with sorted keys,
block sequences under their key, `{}` and `[]`, plain scalars that no reader types differently
than the writer meant, double-quoted strings with a fixed set of escapes, literal blocks with
an explicit chomping indicator, and explicit `? ` keys. This reader takes exactly that subset
and returns None for anything else, so the caller falls back to a full YAML reader (a file
edited by hand, a render from another version). Every scalar must be spelled exactly as the
writer spells its value (a plain string the writer would quote is refused), so plain scalars
mean what the writer meant: `null`, `true`, `false`, integers, floats, otherwise strings.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gitfleet.model import yamllimits
from gitfleet.render import _yaml

_INT = re.compile(r"-?[0-9]+")
_FLOAT = re.compile(r"-?[0-9]+\.[0-9]*(e[-+][0-9]+)?")
_ESCAPE = re.compile(r'\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\\"tnr0])')
_SIMPLE = {"\\": "\\", '"': '"', "t": "\t", "n": "\n", "r": "\r", "0": "\0"}
_WORDS: dict[str, Any] = {"null": None, "true": True, "false": False}
_MAX_INDENT = 2 * yamllimits.MAX_DEPTH
_MISSING = object()
_SCALARS = 65_536
_MEMO_DEPTH = 2
"""Blocks under keys this deep are read through the memo: a policy's placement, a target
list, conditions; deeper ones are parts of those."""


class _Unreadable(Exception):
    """Not the writer's subset."""


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1)
    if code in _SIMPLE:
        return _SIMPLE[code]
    return chr(int(code[1:], 16))


def _quoted(text: str) -> tuple[str, str]:
    """A double-quoted string at the start of `text`, and what follows it."""
    at = 1
    while True:
        end = text.find('"', at)
        if end < 0:
            raise _Unreadable
        backslashes = len(text[at:end]) - len(text[at:end].rstrip("\\"))
        if backslashes % 2 == 0:
            return _ESCAPE.sub(_unescape, text[1:end]), text[end + 1 :]
        at = end + 1


@functools.lru_cache(maxsize=_SCALARS)
def _scalar(text: str) -> Any:
    """A scalar exactly as the writer writes it (anything else is refused); remembered, as
    checking the spelling is the dearest part of reading and rendered files repeat their
    scalars (names, counts, reasons)."""
    if text.startswith('"'):
        value, rest = _quoted(text)
        if rest or _yaml.quoted(value) != text:
            raise _Unreadable
        return value
    if text in _WORDS:
        return _WORDS[text]
    if _INT.fullmatch(text):
        if str(int(text)) != text:
            raise _Unreadable
        return int(text)
    if _FLOAT.fullmatch(text):
        number = float(text)
        if _yaml.format_float(number) != text:
            raise _Unreadable
        return number
    if _yaml.scalar_text(text) != text:
        raise _Unreadable
    return text


class _Reader:
    def __init__(self, text: str, blocks: dict[str, Any] | None) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.at = 0
        self.blocks = blocks
        self.depths: list[int] = []
        """Each line's indentation as read (-1: empty), and whether it starts an item."""
        self.items: list[bool] = []
        if blocks is not None:
            contents = [line.lstrip(" ") for line in self.lines]
            self.depths = [
                len(line) - len(content) if line else -1
                for line, content in zip(self.lines, contents, strict=True)
            ]
            self.items = [content.startswith("- ") for content in contents]

    def peek(self) -> tuple[int, str] | None:
        if self.at >= len(self.lines):
            return None
        line = self.lines[self.at]
        content = line.lstrip(" ")
        return len(line) - len(content), content

    def mapping(self, indent: int) -> dict[str, Any]:
        if indent > _MAX_INDENT:  # deeper than the writer ever goes: the full reader decides
            raise _Unreadable
        found: dict[str, Any] = {}
        while (line := self.peek()) is not None and line[0] == indent:
            content = line[1]
            if content.startswith("- "):
                break
            self.at += 1
            if content.startswith("? "):
                key = _scalar(content[2:])
                following = self.peek()
                if following is None or following[0] != indent or not following[1].startswith(":"):
                    raise _Unreadable
                self.at += 1
                rest = following[1][1:]
            elif content.startswith('"'):
                key, rest = _quoted(content)
                if not rest.startswith(":"):
                    raise _Unreadable
                rest = rest[1:]
            else:
                cut = content.find(": ")
                if cut < 0:
                    if not content.endswith(":"):
                        raise _Unreadable
                    key, rest = content[:-1], ""
                else:
                    key, rest = content[:cut], content[cut + 1 :]
            if not isinstance(key, str) or key in found:
                raise _Unreadable
            found[key] = self.value(rest, indent)
        return found

    def sequence(self, indent: int) -> list[Any]:
        if indent > _MAX_INDENT:
            raise _Unreadable
        found: list[Any] = []
        while (line := self.peek()) is not None and line[0] == indent:
            content = line[1]
            if not content.startswith("- "):
                break
            rest = content[1:]
            if rest.startswith(" - ") or rest == " -":
                self.lines[self.at] = " " * (indent + 2) + rest[1:]
                found.append(self.sequence(indent + 2))
            elif rest.startswith(" ") and _is_key(rest[1:]):
                self.lines[self.at] = " " * (indent + 2) + rest[1:]
                found.append(self.mapping(indent + 2))
            else:
                self.at += 1
                found.append(self.value(rest, indent))
        return found

    def value(self, rest: str, indent: int) -> Any:
        """The value after `key:` or `-` (`rest` starts with a space, or is empty)."""
        if not rest:
            following = self.peek()
            if following is None:
                raise _Unreadable
            if following[0] == indent and following[1].startswith("- "):
                return self.nested(indent, sequence=True)
            if following[0] == indent + 2:
                return self.nested(indent + 2, sequence=False)
            raise _Unreadable
        if not rest.startswith(" "):
            raise _Unreadable
        text = rest[1:]
        if text == "{}":
            return {}
        if text == "[]":
            return []
        if text.startswith("|"):
            return self.block(text, indent + 2)
        return _scalar(text)

    def nested(self, indent: int, sequence: bool) -> Any:
        """A block sequence or mapping at `indent`; with `blocks`, one under a key of the
        first two levels whose text was read before is that value again (values are never
        changed once read; deeper blocks are left to those)."""
        read = self.sequence if sequence else self.mapping
        key_depth = indent if sequence else indent - 2
        if self.blocks is None or key_depth > _MEMO_DEPTH:
            return read(indent)
        depths, items = self.depths, self.items
        start = end = self.at
        while end < len(depths):
            depth = depths[end]
            if depth >= 0 and (depth < indent or (sequence and depth == indent and not items[end])):
                break
            end += 1
        text = "\n".join(self.lines[start:end])
        found = self.blocks.get(text, _MISSING)
        if found is not _MISSING:
            self.at = end
            return found
        value = read(indent)
        if self.at == end:
            self.blocks[text] = value
        return value

    def block(self, header: str, indent: int) -> str:
        if header not in ("|", "|-", "|+", "|2", "|2-", "|2+"):
            raise _Unreadable
        lines = []
        while self.at < len(self.lines):
            line = self.lines[self.at]
            if line and (len(line) - len(line.lstrip(" "))) < indent:
                break
            lines.append(line[indent:])
            self.at += 1
        body = "\n".join(lines)
        if header.endswith("+"):
            return body + "\n"
        body = body.rstrip("\n")
        return body if header.endswith("-") else body + "\n"


def _is_key(text: str) -> bool:
    """Whether a sequence item's text starts a mapping (`key: ...`, `key:`, `? key`)."""
    if text.startswith("? "):
        return True
    if text.startswith('"'):
        try:
            _, rest = _quoted(text)
        except _Unreadable:
            return False
        return rest == ":" or rest.startswith(": ")
    return ": " in text or text.endswith(":")


def load(data: bytes, blocks: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The mapping the writer wrote as `data`; None when `data` is not in its subset.

    `blocks` is a memo shared by the documents read together: a nested mapping or sequence
    whose text another of them had (bindings of one policy share their placement, target list
    and conditions) is read once, and is then the same object in each (never to be changed)."""
    try:
        text = data.decode()
        if text == "{}\n":
            return {}
        reader = _Reader(text, blocks)
        found = reader.mapping(0)
    except (_Unreadable, UnicodeDecodeError, ValueError):
        return None
    return found if reader.at == len(reader.lines) else None
