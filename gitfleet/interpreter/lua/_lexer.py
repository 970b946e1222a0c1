"""Lua 5.1 source as tokens, for the passes that read a script before Lua compiles it (the
rewrite of table constructors, `_rewrite`; the check that a script changes no table,
`_readonly`). Comments and whitespace are skipped; strings, long strings included, are one
token each, so nothing inside them is read as code. A script this lexer cannot read raises
`LexError`, and each pass then leaves the script to Lua's own compiler.
"""

from __future__ import annotations

import dataclasses
import re

KEYWORDS = frozenset(
    {
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    }
)  # fmt: skip
BLOCK_OPEN = frozenset({"function", "if", "do", "repeat"})
BLOCK_CLOSE = frozenset({"end", "until"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"(?:[0-9]|\.[0-9])[0-9.]*(?:[eE][+-]?)?[A-Za-z0-9_]*")
_SPACE = re.compile(r"[ \t\r\n\v\f]+")
_LONG_OPEN = re.compile(r"\[(=*)\[")
_OPERATORS = ("...", "..", "==", "~=", "<=", ">=")


class LexError(Exception):
    """The source is no sequence of Lua tokens (an unfinished string, say)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "name", "string", "number", "op"
    text: str
    start: int
    end: int


def _long_bracket_end(source: str, pos: int) -> int | None:
    """End of a long bracket starting at `pos` (`[[`, `[==[`), or None if there is none."""
    found = _LONG_OPEN.match(source, pos)
    if found is None:
        return None
    close = source.find("]" + found.group(1) + "]", found.end())
    if close < 0:
        raise LexError("unfinished long bracket")
    return close + len(found.group(1)) + 2


def _quoted_end(source: str, pos: int) -> int:
    quote, i = source[pos], pos + 1
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if c == "\n":
            break
        i += 1
    raise LexError("unfinished string")


def tokens(source: str) -> list[Token]:
    """The tokens of `source`, in order."""
    out: list[Token] = []
    pos, end = 0, len(source)
    while pos < end:
        c = source[pos]
        space = _SPACE.match(source, pos)
        if space:
            pos = space.end()
            continue
        if source.startswith("--", pos):
            long_end = _long_bracket_end(source, pos + 2)
            if long_end is not None:
                pos = long_end
            else:
                newline = source.find("\n", pos)
                pos = end if newline < 0 else newline
            continue
        if c in "\"'":
            stop = _quoted_end(source, pos)
            out.append(Token("string", source[pos:stop], pos, stop))
            pos = stop
            continue
        if c == "[":
            long_end = _long_bracket_end(source, pos)
            if long_end is not None:
                out.append(Token("string", source[pos:long_end], pos, long_end))
                pos = long_end
                continue
        number = _NUMBER.match(source, pos)
        if number:
            out.append(Token("number", number.group(), pos, number.end()))
            pos = number.end()
            continue
        name = _NAME.match(source, pos)
        if name:
            out.append(Token("name", name.group(), pos, name.end()))
            pos = name.end()
            continue
        op = next((o for o in _OPERATORS if source.startswith(o, pos)), c)
        if op == c and c not in "+-*/%^#=<>(){}[];:,.~":
            raise LexError(f"unexpected character {c!r}")
        out.append(Token("op", op, pos, pos + len(op)))
        pos += len(op)
    return out
