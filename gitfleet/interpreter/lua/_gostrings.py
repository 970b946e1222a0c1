"""String functions of Karmada's safe string library that Python computes, because Go's answer
needs Unicode tables (pkg/util/lifted/lua/string_safe.go).

`string.upper` and `string.lower` are Go's `strings.ToUpper` and `strings.ToLower`: every
character takes its simple case mapping (one character for one; `ß` stays `ß`), where PUC
Lua's C library maps ASCII letters only. sandbox.lua keeps ASCII strings to the C functions,
which agree on them, and hands invalid UTF-8 over with each bad byte as U+FFFD, as Go's mapping
writes it.
"""

from __future__ import annotations

from typing import Any

Result = tuple[bool, Any]

_LOWER_SPECIAL = {"\u0130": "i"}
"""Simple mappings Python's full case mapping does not give as one character."""


def change_case(text: str, upper: bool) -> Result:
    """`text` upper- or lower-cased as Go's strings.ToUpper/ToLower do."""
    return True, "".join(_upper(c) if upper else _lower(c) for c in text)


def _upper(c: str) -> str:
    mapped = c.upper()
    return mapped if len(mapped) == 1 else c


def _lower(c: str) -> str:
    mapped = _LOWER_SPECIAL.get(c) or c.lower()
    return mapped if len(mapped) == 1 else c
