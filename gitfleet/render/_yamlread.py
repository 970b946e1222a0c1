"""Read back the YAML `_yaml` writes, fast: the previous render's bindings, on every render.

A general YAML reader builds each value through Python-level constructors (milliseconds for a
binding), while the writer only ever produces a small subset: block mappings with sorted keys,
block sequences under their key, `{}` and `[]`, plain scalars that no reader types differently
than the writer meant, double-quoted strings with a fixed set of escapes, literal blocks with
an explicit chomping indicator, and explicit `? ` keys. This reader takes exactly that subset
and returns None for anything else, so the caller falls back to a full YAML reader (a file
edited by hand, a render from another version). Every scalar, keys included, must be spelled
exactly as the writer spells its value (a plain string the writer would quote is refused), so
plain scalars mean what the writer meant: `null`, `true`, `false`, integers, floats, otherwise
strings, and a key is the string it reads as (`yes:`, `1:` or `&a k:` are left to the full
reader, which reads a boolean, a number or an anchor there).
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import itertools
import operator
import re
import typing
from collections.abc import Callable
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
_SCALARS = 4096
"""Lines and scalars remembered: the lines that repeat (structure, cluster names, common
values) are met again within a few thousand others, and the rest (names, ids, digests) never
are; at 10,000 bindings a memo sixteen times larger is hit as often, and a long-running
reconciler would hold tens of MiB of lines no render reads again."""
_MEMO_DEPTH = 2
"""Blocks under keys this deep are read through the memo: a policy's placement, a target
list, conditions; deeper ones are parts of those."""
_LIKE = 4
"""Documents kept per line count to read the next ones against (bindings of a few policies
interleave)."""
_LIKE_CHANGES = 64
"""Lines a document may differ by from one read before to be read against it."""

Path = tuple[str | int, ...]
"""Where a value is in a document: keys and item indexes from its root."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Read:
    """A document read line by line: its lines, its value, and where the value of each line
    `key: scalar` went (line index to path, key and indentation)."""

    lines: list[str]
    value: dict[str, Any]
    entries: dict[int, tuple[Path, str, int]]


@dataclasses.dataclass(slots=True)
class Memo:
    """What documents read together share (see `load`)."""

    blocks: dict[str, Any] = dataclasses.field(default_factory=dict)
    """Values of the blocks read, by their text."""
    read: dict[int, list[_Read]] = dataclasses.field(default_factory=dict)
    """The last documents read line by line, by their number of lines."""


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
        if len(text) > 20 or str(int(text)) != text:  # gitfleet writes no longer integer
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
    it apart itself, and refuses what it must); remembered, as rendered files repeat most of
    their lines."""
    content = line.lstrip(" ")
    if content.startswith(("- ", "? ", '"')):
        return None
    cut = content.find(": ")
    if cut < 0:
        if content.endswith(":") and _plain_key(content[:-1]):
            return len(line) - len(content), content[:-1], _NESTED
        return None
    text, key = content[cut + 2 :], content[:cut]
    if text in ("{}", "[]") or text.startswith("|") or not _plain_key(key):
        return None
    try:
        return len(line) - len(content), key, _scalar(text)
    except _Unreadable:
        return None


def _plain_key(key: str) -> bool:
    """Whether the writer writes the string `key` plain, as it stands."""
    return _yaml.scalar_text(key) == key


class _Reader:
    def __init__(self, text: str, lines: list[str], blocks: dict[str, Any] | None) -> None:
        self.lines = lines
        self.at = 0
        self.text = text
        self.blocks = blocks
        self.starts: list[int] = []
        """Where each line starts in `text`, and where a line after the last would."""
        self.path: list[str | int] = []
        """Where the value being read goes."""
        self.entries: dict[int, tuple[Path, str, int]] = {}
        """Where each `key: scalar` line's value went (see `_Read`)."""
        if blocks is not None:
            lengths = map((1).__add__, map(len, self.lines))
            self.starts = list(itertools.accumulate(lengths, initial=0))

    def child(self, key: str | int, read: Callable[[], Any]) -> Any:
        """`read()`, with `key` added to the path of what it reads."""
        self.path.append(key)
        try:
            return read()
        finally:
            self.path.pop()

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
        lines, entries, here = self.lines, self.entries, tuple(self.path)
        while self.at < len(lines):
            entry = _entry(lines[self.at])
            if entry is None:
                if not self.other_entry(indent, found):
                    break
                continue
            depth, key, value = entry
            if depth != indent:
                break
            if key in found:
                raise _Unreadable
            if value is _NESTED:
                self.at += 1
                found[key] = self.child(key, lambda: self.value("", indent))
                continue
            entries[self.at] = (here, key, indent)
            self.at += 1
            found[key] = value
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
            written = _yaml.quoted(key) if "\n" in key else _yaml.scalar_text(key)
            if not rest.startswith(":") or written != content[: len(content) - len(rest)]:
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
            if not _plain_key(key):
                raise _Unreadable
        if not isinstance(key, str) or key in found:
            raise _Unreadable
        found[key] = self.child(key, lambda: self.value(rest, indent))
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
            read: Callable[[], Any]
            if rest.startswith(" - ") or rest == " -":
                self.lines[self.at] = " " * (indent + 2) + rest[1:]
                read = functools.partial(self.sequence, indent + 2)
            elif rest.startswith(" ") and _is_key(rest[1:]):
                self.lines[self.at] = " " * (indent + 2) + rest[1:]
                read = functools.partial(self.mapping, indent + 2)
            else:
                self.at += 1
                read = functools.partial(self.value, rest, indent)
            found.append(self.child(len(found), read))
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


def load(data: bytes, memo: Memo | None = None) -> dict[str, Any] | None:
    """The mapping the writer wrote as `data`; None when `data` is not in its subset.

    `memo` is shared by the documents read together. A nested mapping or sequence whose text
    another of them had (bindings of one policy share their placement, target list and
    conditions) is read once, and is then the same object in each (never to be changed). A
    document that has the lines of one read before but for some `key: scalar` lines (a
    binding of the same policy as another: its name, ids and digests differ) is that
    document's value with those values in their place: the lines are read the same way up
    to each of them, so they go to the same places (`_like`)."""
    try:
        text = data.decode()
        if text == "{}\n":
            return {}
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        found = _like(lines, memo) if memo is not None else None
        if found is not None:
            return found
        reader = _Reader(text, list(lines), memo.blocks if memo is not None else None)
        found = reader.mapping(0)
    except (_Unreadable, UnicodeDecodeError, ValueError):
        return None
    if reader.at != len(reader.lines):
        return None
    if memo is not None:
        kept = memo.read.setdefault(len(lines), [])
        kept.insert(0, _Read(lines, found, reader.entries))
        del kept[_LIKE:]
    return found


def _like(lines: list[str], memo: Memo) -> dict[str, Any] | None:
    """The value of a document with the lines of one `memo` read line by line, but for some
    `key: scalar` lines, each one where the other had a `key: scalar` line with the same
    indentation and key that went into a mapping of its own; None when there is none."""
    for before in memo.read.get(len(lines), ()):
        changed = list(itertools.compress(itertools.count(), map(operator.ne, lines, before.lines)))
        if len(changed) > _LIKE_CHANGES:
            continue
        values: list[tuple[Path, str, Any]] = []
        for at in changed:
            was, entry = before.entries.get(at), _entry(lines[at])
            if was is None or entry is None or entry[2] is _NESTED:
                break
            path, key, indent = was
            if entry[:2] != (indent, key) or _entry(before.lines[at]) is None:
                break  # another key, or the line read was an item's first (`- key: ...`)
            values.append((path, key, entry[2]))
        else:
            return _replaced(before.value, values)
    return None


def _replaced(root: dict[str, Any], values: list[tuple[Path, str, Any]]) -> dict[str, Any]:
    """`root` with each (path, key, value) in place: the mappings and sequences on the way
    are copies, the rest is shared."""
    copies: dict[Path, Any] = {(): dict(root)}

    def copied(path: Path) -> Any:
        found = copies.get(path)
        if found is None:
            parent = copied(path[:-1])
            found = parent[path[-1]].copy()
            parent[path[-1]] = found
            copies[path] = found
        return found

    for path, key, value in values:
        copied(path)[key] = value
    return typing.cast(dict[str, Any], copies[()])
