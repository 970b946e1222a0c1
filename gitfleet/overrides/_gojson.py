"""JSON text as Go writes it, so the strings Karmada puts in objects come out byte for byte.

Karmada serialises with Go's `encoding/json` (the applied-overrides record) and with the JSON
code inside evanphx/json-patch v5 (a fieldOverrider's JSON document): compact, `<`, `>`, `&`,
U+2028 and U+2029 escaped, control characters as `\\u00XX` except `\\n`, `\\r`, `\\t`, floats in
Go's shortest form. Python's `json` differs on each of these points, so the encoder is here.
Go map keys are written sorted; a document patched by json-patch keeps its key order, and its
untouched numbers and string values keep their text (`RawNumber`, `RawString`: json-patch
holds them as raw bytes that encoding/json only compacts, so `\\u00e9` or `\\/` stays as
written, and only `<`, `>`, `&`, U+2028 and U+2029 get escaped). So do the keys of an object
no operation reached (`ParsedObject`); the keys of the others are written anew.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from gitfleet.model import gofloat


def _escape_table() -> dict[int, str]:
    table = {code: f"\\u{code:04x}" for code in range(0x20)}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    table.update({ord('"'): '\\"', ord("\\"): "\\\\"})
    for unsafe in "<>&\u2028\u2029":
        table[ord(unsafe)] = f"\\u{ord(unsafe):04x}"
    return table


_ESCAPES = _escape_table()


class RawNumber(str):
    """A number as it was written in a parsed document, re-emitted unchanged."""

    __slots__ = ()


class RawString(str):
    """A string value as it was written in a parsed document, escapes included (`raw`, without
    the quotes); it reads as the string it stands for."""

    raw: str


class ParsedObject(dict[str, Any]):
    """An object read from a document, its keys as written (`RawString` where escaped).
    json-patch holds an object as raw text until an operation's path goes through it, and
    only then reads it and writes its keys anew: the patch marks such an object `rewritten`."""

    __slots__ = ("rewritten",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.rewritten = False


_COMPACT_ESCAPES = {code: f"\\u{code:04x}" for code in map(ord, "<>&\u2028\u2029")}


def quote(text: str) -> str:
    """A JSON string literal as Go's encoder writes it (HTML-safe, UTF-8 kept)."""
    return '"' + text.translate(_ESCAPES) + '"'


def as_stored(value: Any) -> Any:
    """A JSON value as the API server keeps it and Go writes maps: object keys sorted."""
    if isinstance(value, dict):
        return {key: as_stored(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [as_stored(item) for item in value]
    return value


def dumps(value: Any, *, sort_keys: bool) -> str:
    """Compact JSON of a JSON-like value; `sort_keys` as Go writes maps."""
    parts: list[str] = []
    _encode(value, parts, sort_keys)
    return "".join(parts)


def _encode(value: Any, out: list[str], sort_keys: bool) -> None:
    if isinstance(value, RawNumber):
        out.append(str.__str__(value))
    elif isinstance(value, RawString):
        out.append('"' + value.raw.translate(_COMPACT_ESCAPES) + '"')
    elif isinstance(value, str):
        out.append(quote(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(int(value)))
    elif isinstance(value, float):
        out.append(gofloat.format_float(value))
    elif isinstance(value, Mapping):
        items = sorted(value.items()) if sort_keys else value.items()
        as_written = isinstance(value, ParsedObject) and not value.rewritten
        out.append("{")
        for index, (key, item) in enumerate(items):
            if index:
                out.append(",")
            if as_written and isinstance(key, RawString):
                out.append('"' + key.raw.translate(_COMPACT_ESCAPES) + '"')
            else:
                out.append(quote(str(key)))
            out.append(":")
            _encode(item, out, sort_keys)
        out.append("}")
    elif isinstance(value, Sequence):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _encode(item, out, sort_keys)
        out.append("]")
    else:
        raise gofloat.UnsupportedValueError(f"json: unsupported type: {type(value).__name__}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid character {name[0]!r} looking for beginning of value")


_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


def _scan_string(text: str, end: int, strict: bool = True) -> tuple[str, int]:
    value, after = _scanstring(text, end, strict)
    raw = text[end : after - 1]
    if "\\" not in raw:  # written as Go would write it
        return value, after
    kept = RawString(value)
    kept.raw = raw
    return kept, after


_parse_object: types.FunctionType = json.decoder.JSONObject  # type: ignore[attr-defined]
_parse_object_keeping_keys = types.FunctionType(
    _parse_object.__code__,
    {**vars(json.decoder), "scanstring": _scan_string},
    "_parse_object_keeping_keys",
    _parse_object.__defaults__,
)
"""The standard library's object parser, reading keys as `_scan_string` reads values."""


class _Unshared(dict[str, str]):
    """A decoder memo that shares no key: keys equal in value may differ in text."""

    def setdefault(self, key: str, default: str | None = None) -> str:
        return key if default is None else default


def _preserving_decoder(strings: bool) -> json.JSONDecoder:
    decoder = json.JSONDecoder(
        parse_int=RawNumber,
        parse_float=RawNumber,
        parse_constant=_reject_constant,
        object_pairs_hook=ParsedObject if strings else None,
    )
    if strings:
        decoder.parse_string = _scan_string  # type: ignore[attr-defined]
        decoder.parse_object = _parse_object_keeping_keys  # type: ignore[attr-defined]
        decoder.memo = _Unshared()  # type: ignore[attr-defined]
        decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder


_NUMBERS_KEPT = _preserving_decoder(strings=False)
_STRINGS_KEPT = _preserving_decoder(strings=True)


def loads_preserving(text: str) -> Any:
    """Parse JSON keeping key order and the text of every number and of every string with an
    escape in it, object keys included (json-patch's lazy nodes)."""
    return (_STRINGS_KEPT if "\\" in text else _NUMBERS_KEPT).decode(text)
