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

import bisect
import functools
import itertools
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
_NESTED = object()
"""What `_entry` gives as the value of a key whose block follows on the next lines."""
_SCALARS = 65_536
_MEMO_DEPTH = 2
"""Blocks under keys this deep are read through the memo: a policy's placement, a target
list, conditions; deeper ones are parts of those."""


@functools.cache
def _block_end(indent: int, sequence: bool) -> re.Pattern[str]:
    """The line break before the first non-empty line that ends a block at `indent`: one
    indented less, or for a sequence, one at its indentation that is not an item."""
    more = "(?: |- )" if sequence else ""
    return re.compile(rf"\n(?=[^\n])(?! {{{indent}}}{more})")


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


@functools.lru_cache(maxsize=_SCALARS)
def _entry(line: str) -> tuple[int, str, Any] | None:
    """A line `key: scalar` or `key:` (`_NESTED`: a block follows) as (indentation, key,
    value), None for any other line or one the writer would not write (the reader then takes
    it apart itself, and says why not); remembered, as rendered files repeat most of their
    lines."""
    content = line.lstrip(" ")
    if content.startswith(("- ", "? ", '"')):
        return None
    cut = content.find(": ")
    if cut < 0:
        if content.endswith(":"):
            return len(line) - len(content), content[:-1], _NESTED
        return None
    text = content[cut + 2 :]
    if text in ("{}", "[]") or text.startswith("|"):
        return None
    try:
        return len(line) - len(content), content[:cut], _scalar(text)
    except _Unreadable:
        return None


class _Reader:
    def __init__(self, text: str, blocks: dict[str, Any] | None) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.at = 0
        self.text = text
        self.blocks = blocks
        self.starts: list[int] = []
        """Where each line starts in `text`, and where a line after the last would."""
        if blocks is not None:
            lengths = map((1).__add__, map(len, self.lines))
            self.starts = list(itertools.accumulate(lengths, initial=0))

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
        lines = self.lines
        while self.at < len(lines):
            entry = _entry(lines[self.at])
            if entry is None:
                if not self.other_entry(indent, found):
                    break
                continue
            depth, key, value = entry
            if depth != indent:
                break
            self.at += 1
            if key in found:
                raise _Unreadable
            found[key] = self.value("", indent) if value is _NESTED else value
        return found

    def other_entry(self, indent: int, found: dict[str, Any]) -> bool:
        """Read the entry at the current line into `found`, one `_entry` does not take (an
        explicit or quoted key, a block or empty value); False when the line is not one of
        this mapping's."""
        line = self.peek()
        if line is None or line[0] != indent:
            return False
        content = line[1]
        if content.startswith("- "):
            return False
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
        return True

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
        starts = self.starts
        first = starts[self.at]
        after = _block_end(indent, sequence).search(self.text, first)
        cut = after.start() if after is not None else starts[-1] - 1
        end = bisect.bisect_left(starts, cut + 1)
        text = self.text[first:cut]
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
