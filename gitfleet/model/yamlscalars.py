"""What a plain YAML scalar means to Kubernetes: YAML 1.1 as go-yaml v2 resolves it.

kubectl and the API machinery read YAML with go-yaml v2 (through sigs.k8s.io/yaml), not with
YAML 1.2 or PyYAML's own 1.1 rules. The differences matter for values users write every day:
`yes`/`on`/`y` are booleans, `012` is octal 10, `0o17`/`0b101`/`0x1F` are integers, `1e3` is a
float, `1:20` and `2026-01-01` stay strings. This module is the single place those rules live:
the loader (`gitfleet.source`) resolves tags, builds values and reads keys with them, and the
render stage's YAML writer quotes every string that would not read back as a string.

Reference (read, not copied): go-yaml v2 `resolve.go` (`resolve`, `resolve_table`,
`yamlStyleFloat`) and Go's `strconv.ParseInt(s, 0, 64)` / `ParseUint` / `ParseFloat`, plus
sigs.k8s.io/yaml `convertToJSONableObject` for how non-string mapping keys become strings.
"""

from __future__ import annotations

import math
import re
import struct

STR = "tag:yaml.org,2002:str"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
MERGE = "tag:yaml.org,2002:merge"
TIMESTAMP = "tag:yaml.org,2002:timestamp"

BOOLEANS = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE"), True),
    **dict.fromkeys(("on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE"), False),
    **dict.fromkeys(("off", "Off", "OFF"), False),
}
NULLS = frozenset(("", "~", "null", "Null", "NULL"))
SPECIAL_FLOATS = {
    **dict.fromkeys((".nan", ".NaN", ".NAN"), math.nan),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), math.inf),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), -math.inf),
}

_WORDS = frozenset("yYnNtTfFoO~")
"""First characters for which go-yaml only looks the value up (booleans, null)."""
_NUMERIC = frozenset("+-0123456789")

_GO_INT = re.compile(
    r"(?P<sign>[-+]?)(?:0[bB](?P<bin>[01]+)|0[oO](?P<oct>[0-7]+)|0[xX](?P<hex>[0-9a-fA-F]+)"
    r"|(?P<zoct>0[0-7]*)|(?P<dec>[1-9][0-9]*))"
)
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
"""What Go's ParseFloat accepts for a value starting with `.` (no underscores there)."""

_KINDS = {
    INT: "an integer",
    FLOAT: "a number",
    BOOL: "a boolean",
    NULL: "null",
    TIMESTAMP: "a timestamp",
}
"""What each core tag's scalar is, as `unreadable` names it."""
_SHOWN = 40
"""Characters of a refused scalar that a message quotes (a number may have thousands)."""

_INT64 = 1 << 63
_UINT64 = 1 << 64
_UINT64_DIGITS = 20
"""Decimal digits of the largest uint64: a longer number (no leading zeros) is out of range,
which is known without converting it (Python refuses to convert more than 4300 digits)."""


def go_int(text: str) -> int | None:
    """`strconv.ParseInt(text, 0, 64)`, then `ParseUint` for large unsigned values."""
    match = _GO_INT.fullmatch(text)
    if match is None:
        return None
    if match["bin"]:
        value = int(match["bin"], 2)
    elif match["oct"]:
        value = int(match["oct"], 8)
    elif match["hex"]:
        value = int(match["hex"], 16)
    elif match["zoct"]:
        value = int(match["zoct"], 8)
    elif len(match["dec"]) > _UINT64_DIGITS:
        return None
    else:
        value = int(match["dec"])
    if match["sign"] == "-":
        value = -value
    if -_INT64 <= value < _INT64 or (not match["sign"] and value < _UINT64):
        return value
    return None


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None  # Go's ParseFloat: out of range is an error


def go_float(text: str) -> float | None:
    """A float as go-yaml resolves one (None when go-yaml would keep the text a string)."""
    if text in SPECIAL_FLOATS:
        return SPECIAL_FLOATS[text]
    if text[:1] == ".":
        return _finite(text) if _DOT_FLOAT.fullmatch(text) else None
    plain = text.replace("_", "")
    return _finite(plain) if _GO_FLOAT.fullmatch(plain) else None


def implicit_tag(value: str) -> str:
    """The tag go-yaml v2 gives a plain (unquoted, untagged) scalar."""
    if not value:
        return NULL
    first = value[0]
    if first in _WORDS:
        if value in BOOLEANS:
            return BOOL
        return NULL if value in NULLS else STR
    if first == ".":
        return FLOAT if go_float(value) is not None else STR
    if first in _NUMERIC:
        if value in SPECIAL_FLOATS:
            return FLOAT
        plain = value.replace("_", "")
        if go_int(plain) is not None:
            return INT
        return FLOAT if go_float(value) is not None else STR
    return MERGE if value == "<<" else STR


def _float32(value: float) -> float:
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


def _go_float32_text(value: float) -> str:
    """Go's `strconv.FormatFloat(v, 'g', -1, 32)`, as go-yaml turns float keys into text."""
    try:
        narrow = _float32(value)
    except OverflowError:
        narrow = math.copysign(math.inf, value)
    if math.isinf(narrow):
        return ".inf" if narrow > 0 else "-.inf"
    if narrow == 0:
        return "-0" if math.copysign(1, narrow) < 0 else "0"
    for precision in range(9):
        text = f"{narrow:.{precision}e}"
        if _float32(float(text)) == narrow:
            break
    mantissa, _, exponent_text = text.partition("e")
    digits = mantissa.lstrip("-").replace(".", "").rstrip("0") or "0"
    sign = "-" if narrow < 0 else ""
    exponent = int(exponent_text)
    if exponent < -4 or exponent >= 6:  # Go's %g switches to %e outside [-4, 6) when shortest
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    whole, fraction = digits[: exponent + 1], digits[exponent + 1 :]
    whole = whole.ljust(exponent + 1, "0")
    return f"{sign}{whole}.{fraction}" if fraction else f"{sign}{whole}"


def key_text(key: object) -> str | None:
    """A mapping key as the JSON object key Kubernetes sees; None if it cannot be one."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _go_float32_text(key)
    return None


def unreadable(tag: str, text: str) -> str:
    """Why the scalar `text` tagged `tag` makes no value (`'abc' is not an integer`), in one
    wording for every YAML reader that refuses one. The scalar is quoted with its control
    characters escaped, and cut when long, so the message stays one short line."""
    shown = repr(text) if len(text) <= _SHOWN else f"{text[:_SHOWN]!r}… ({len(text)} characters)"
    kind = _KINDS.get(tag)
    short = tag.replace("tag:yaml.org,2002:", "!!")
    return f"{shown} is not {kind}" if kind else f"{shown} cannot be read as {short}"
