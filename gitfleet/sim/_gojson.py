"""JSON text as the API server writes it (Go's encoding/json), for response bodies, watch
events and the few messages and fields that hold a value as JSON.

Python's `json` writes a float as Python prints it; Go writes a float64 that is a whole number
below 1e21 without fraction or exponent (`1000000`, `100000000000000000000`; past 2**53 its
shortest digits padded with zeros, `12345678901234567000`), and any other in its shortest
digits, positional from 1e-6, in exponent form below that or from 1e21, a one-digit negative
exponent without its leading zero (`0.00001`, `1.5e-7`, `1e+21`). So `1000000.0`, `1e+20`,
`1e-05` and `1.5e-07` are written as Go writes them. The server reads every object it answers
with back from storage, where a whole number within int64 is an int64 again, so a negative
zero is written `0`. NaN and infinities, which Go's decoder refuses, are written as Python
writes them, and an integer past int64 as Python holds it (exactly; Go's decoder makes it a
float64: `12345678901234567890` reads back `12345678901234567000`).

Few bodies hold a float, so `dumps` writes with Python's C encoder and looks over the text
for the end of a float Go would write otherwise (`_SUSPECTS`); only where it finds one (or a
string merely ending so) is the value written again in Python, with Go's floats (`_gofmt`).
Strings are escaped as Python's encoder escapes them (ASCII), as everywhere else in the
simulator.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gitfleet.sim import _gofmt

_COMPACT = (",", ":")
_SUSPECTS = (
    re.compile(r"\.0(?:[,\]}\n]|$)"),
    re.compile(r"e-0\d(?:[,\]}\n]|$)"),
    re.compile(r"e\+(?:1[6-9]|20)(?:[,\]}\n]|$)"),
)
"""The ends of the floats Python writes otherwise than Go (`1.0`, `1e-05`, `1e+16`), or of a
string that merely holds such text before a `,`, `]` or `}`: each with a literal start, which
Python's regular expressions look for fast. Inside a JSON string no newline stands."""
_escape = json.encoder.encode_basestring_ascii


def dumps(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """`value` as Go writes it: compact, or indented by `indent` spaces (`/version`)."""
    if indent is None:
        text = json.dumps(value, separators=_COMPACT, sort_keys=sort_keys)
    else:
        text = json.dumps(value, indent=indent, sort_keys=sort_keys)
    if not any(suspect.search(text) for suspect in _SUSPECTS):
        return text
    out: list[str] = []
    _write(value, out, " " * indent if indent is not None else None, 0, sort_keys)
    return "".join(out)


def _write(value: Any, out: list[str], indent: str | None, level: int, sort_keys: bool) -> None:
    if isinstance(value, str):
        out.append(_escape(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, float):
        out.append(_gofmt.json_float64(value))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, dict):
        items = sorted(value.items()) if sort_keys else value.items()
        _container("{", "}", [(k, v) for k, v in items], out, indent, level, sort_keys)
    elif isinstance(value, list | tuple):
        _container("[", "]", [(None, v) for v in value], out, indent, level, sort_keys)
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")


def _container(
    opening: str,
    closing: str,
    entries: list[tuple[str | None, Any]],
    out: list[str],
    indent: str | None,
    level: int,
    sort_keys: bool,
) -> None:
    if not entries:
        out.append(opening + closing)
        return
    inner = "" if indent is None else "\n" + indent * (level + 1)
    colon = ":" if indent is None else ": "
    out.append(opening)
    for position, (key, item) in enumerate(entries):
        out.append(("," if position else "") + inner)
        if key is not None:
            out.append(_escape(str(key)) + colon)
        _write(item, out, indent, level + 1, sort_keys)
    out.append("" if indent is None else "\n" + indent * level)
    out.append(closing)
