"""Values between Python (JSON documents) and Lua, with the quirks of Karmada's Lua runtime.

Into Lua (luavm/lua.go `decodeValue`): objects become tables, arrays become 1-based tables, nulls
disappear (a null array element is skipped, so later elements move up), numbers become Lua
numbers.

Out of Lua (luavm/lua_convert.go `ConvertLuaResultInto`, with layeh.com/gopher-json's encoder):
sandbox.lua encodes values to JSON text as gopher-json does (a table with string keys is an
object, one with keys 1..n an array, an empty table `[]`; holes, mixed keys, functions, a table
reached twice and NaN are errors), and Python parses the text. Lua cannot tell an empty
object from an empty array, so Karmada repairs every `[]` by looking at reference objects (the
script's inputs): a path that held `{}` there becomes `{}`, a path that held `[]` stays, and any
other `[]` is deleted. Array indices are not part of a path. Numbers come back as integers when
integral and within int64, as Go's JSON decoder for unstructured objects gives them.
"""

from __future__ import annotations

import decimal
import json
import math
from collections.abc import Iterable
from typing import Any

import lupa.lua51 as lupa  # type: ignore[import-untyped]

Path = tuple[str, ...]

_INT64 = 2**63
_MAX_INPUT_DEPTH = 512


class ConversionError(Exception):
    """A Lua value has no JSON form."""


def to_lua(runtime: lupa.LuaRuntime, value: Any) -> Any:
    """A Python JSON value as a Lua value owned by `runtime`."""
    if isinstance(value, dict | list | tuple):
        if _plain(value, 0):
            return runtime.table_from(value, recursive=True)
        return _build(runtime, value, 0)
    return value


def _plain(value: Any, depth: int) -> bool:
    """Whether lupa's own recursive conversion gives exactly Karmada's tables: string keys, no
    null array elements (those must be skipped, not left as holes)."""
    if depth > _MAX_INPUT_DEPTH:
        raise ConversionError(f"value nested deeper than {_MAX_INPUT_DEPTH} levels")
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            if (type(item) is dict or type(item) is list) and not _plain(item, depth + 1):
                return False
        return True
    if type(value) is list:
        for item in value:
            if item is None:
                return False
            if (type(item) is dict or type(item) is list) and not _plain(item, depth + 1):
                return False
        return True
    return False


def _build(runtime: lupa.LuaRuntime, value: Any, depth: int) -> Any:
    if depth > _MAX_INPUT_DEPTH:
        raise ConversionError(f"value nested deeper than {_MAX_INPUT_DEPTH} levels")
    if isinstance(value, dict):
        return runtime.table_from(
            {str(k): _build(runtime, v, depth + 1) for k, v in value.items() if v is not None}
        )
    if isinstance(value, list | tuple):
        return runtime.table_from([_build(runtime, v, depth + 1) for v in value if v is not None])
    return value


def decode(text: str, references: Iterable[Any] = (), *, struct: bool = False) -> Any:
    """A value Lua encoded as JSON (sandbox.lua `encode`), with Karmada's repair of empty tables
    (`repair`); no repair is needed when the text holds no `[]`."""
    value = json.loads(text, parse_float=_parse_float, strict=False)
    if "[]" not in text:
        return value
    return repair(value, references, struct=struct)


def _parse_float(text: str) -> int | float:
    return number(float(text))


def number(value: float) -> int | float:
    """A Lua number as Go's JSON round trip gives it: integral values within int64 as ints."""
    if value.is_integer() and -_INT64 <= value < _INT64:
        return int(value)
    return value


def go_number_text(value: int | float) -> str:
    """How Go's encoding/json prints a float64: shortest digits, positional from 1e-6 to 1e21,
    otherwise with an exponent (`1e+21`, `1.5e-7`)."""
    f = float(value)
    if not math.isfinite(f):
        raise ConversionError(f"json: unsupported value: {f}")
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    if abs(f) < 1e-6 or abs(f) >= 1e21:
        mantissa, _, exponent = repr(f).partition("e")
        return f"{mantissa}e{exponent[0]}{exponent[1:].lstrip('0') or '0'}"
    return format(decimal.Decimal(repr(f)), "f")


def repair(result: Any, references: Iterable[Any], *, struct: bool) -> Any:
    """Karmada's repair of empty tables (`convertEmptySliceToEmptyStructPartly`). `struct`: the
    target is an object type, so a bare `[]` result becomes `{}`."""
    if result == []:
        return {} if struct else []
    slices: set[Path] = set()
    structs: set[Path] = set()
    for reference in references:
        _empty_paths(reference, (), slices, structs)
    return _fix(result, (), slices, structs)


def _empty_paths(value: Any, path: Path, slices: set[Path], structs: set[Path]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _record(item, (*path, str(key)), slices, structs)
    elif isinstance(value, list):
        for item in value:
            _record(item, path, slices, structs)


def _record(item: Any, path: Path, slices: set[Path], structs: set[Path]) -> None:
    if isinstance(item, list) and not item:
        slices.add(path)
    elif isinstance(item, dict) and not item:
        structs.add(path)
    else:
        _empty_paths(item, path, slices, structs)


_DELETE = object()


def _fix(value: Any, path: Path, slices: set[Path], structs: set[Path]) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            fixed = _fix_item(item, (*path, key), slices, structs)
            if fixed is not _DELETE:
                out[key] = fixed
        return out
    if isinstance(value, list):
        fixed_items = (_fix_item(item, path, slices, structs) for item in value)
        return [item for item in fixed_items if item is not _DELETE]
    return value


def _fix_item(item: Any, path: Path, slices: set[Path], structs: set[Path]) -> Any:
    if isinstance(item, list) and not item:
        if path in structs:
            return {}
        return item if path in slices else _DELETE
    return _fix(item, path, slices, structs)
