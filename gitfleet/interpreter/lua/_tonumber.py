"""Strings read as numbers the ways gopher-lua reads them (Karmada's VM): by `tonumber`
(baselib.go baseToNumber, `to_number`), and in arithmetic and the math library (utils.go
parseNumber, `parse_number`).

`tonumber`:

A string holding a `.` is read by Go's `strconv.ParseFloat` (decimal, or hexadecimal with a `p`
exponent; out of range is no number), any other by `strconv.ParseInt` in the given base, a
`0x` prefix meaning base 16 when no base is given. So `"1e2"` and `"inf"` are no numbers, and
neither is an integer beyond int64, where PUC Lua reads them all. Only spaces, tabs and
newlines around the number are ignored. sandbox.lua dispatches on the argument types.
"""

from __future__ import annotations

import re
from typing import Any

Result = tuple[bool, Any]

_DECIMAL_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX_FLOAT = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+")
_PREFIXED = re.compile(
    r"([+-]?)(?:0([xX])((?:_?[0-9a-fA-F])+)|0([bB])((?:_?[01])+)|0([oO])((?:_?[0-7])+)"
    r"|(0)((?:_?[0-7])*)|([1-9](?:_?[0-9])*))"
)
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_INT64 = 2**63
_MAX_DIGITS = 64
"""More digits than this (after leading zeros) are beyond int64 in any base."""


def to_number(text: str, base: int, given: bool) -> Result:
    """The number gopher-lua's tonumber reads in `text` (None: no number); `given`: whether the
    script passed a base."""
    text = text.strip(" \n\t")
    if "." in text:
        return True, parse_float(text)
    if not given and text[:2].lower() == "0x":
        base, text = 16, text[2:]
    return True, parse_int(text, base)


_SPECIAL = {
    **{
        f"{sign}{word}": sign_value * float("inf")
        for word in ("inf", "infinity")
        for sign, sign_value in (("", 1), ("+", 1), ("-", -1))
    },
    "nan": float("nan"),
}
"""The words Go's strconv.ParseFloat reads, in any letter case."""


def parse_number(text: str) -> Result:
    """A string as gopher-lua reads it in arithmetic and in the math library (utils.go
    parseNumber): Go's ParseInt with base 0 (prefixes, a leading 0 for octal, underscores),
    else Go's ParseFloat (infinity and NaN in words; out of range is no number), around spaces,
    tabs and newlines only (None: no number)."""
    text = text.strip(" \n\t")
    found = _parse_prefixed(text)
    if found is None:
        found = _SPECIAL.get(text.lower())
    return True, parse_float(text) if found is None else found


def parse_float(text: str) -> float | None:
    """Go's strconv.ParseFloat (None: an error)."""
    if _DECIMAL_FLOAT.fullmatch(text):
        value = float(text)
    elif _HEX_FLOAT.fullmatch(text):
        value = float.fromhex(text)
    else:
        return None
    return None if value in (float("inf"), float("-inf")) else value


def parse_int(text: str, base: int) -> float | None:
    """Go's strconv.ParseInt into 64 bits, as a Lua number (None: an error)."""
    if base == 0:
        return _parse_prefixed(text)
    if not 2 <= base <= 36:
        return None
    sign, digits = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    allowed = _DIGITS[:base]
    if not digits or any(c not in allowed for c in digits.lower()):
        return None
    digits = digits.lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return None
    return _ranged(-int(digits, base) if sign == "-" else int(digits, base))


def _parse_prefixed(text: str) -> float | None:
    """Base 0: Go's integer literal syntax (prefixes, a leading 0 for octal, underscores)."""
    found = _PREFIXED.fullmatch(text)
    if found is None:
        return None
    groups = found.groups()
    sign, rest = groups[0], [g for g in groups[1:] if g is not None]
    prefix, digits = ("", rest[0]) if len(rest) == 1 else rest
    digits = digits.replace("_", "").lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return None
    value = int(digits, {"": 10, "x": 16, "b": 2, "o": 8, "0": 8}[prefix.lower()])
    return _ranged(-value if sign == "-" else value)


def _ranged(value: int) -> float | None:
    return float(value) if -_INT64 <= value < _INT64 else None
