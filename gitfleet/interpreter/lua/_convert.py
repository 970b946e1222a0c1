"""Values between Python (JSON documents) and Lua, with the quirks of Karmada's Lua runtime.

Into Lua (luavm/lua.go `decodeValue`): objects become tables, arrays become 1-based tables, nulls
disappear (a null array element is skipped, so later elements move up), numbers become Lua
numbers (an integer beyond int64 the nearest float, as Go's JSON decoder reads it).

Out of Lua (luavm/lua_convert.go `ConvertLuaResultInto`, with layeh.com/gopher-json's encoder):
sandbox.lua encodes values to JSON text as gopher-json does (a table with string keys is an
object, one with keys 1..n an array, an empty table `[]`; holes, mixed keys, functions, a table
reached twice and NaN are errors), and Python parses the text. Lua cannot tell an empty
object from an empty array, so Karmada repairs every `[]` by looking at reference objects (the
script's inputs): a path that held `{}` there becomes `{}`, a path that held `[]` stays, and any
other `[]` is deleted. Array indices are not part of a path. Numbers come back as integers when
integral and within int64, as Go's JSON decoder for unstructured objects gives them: the integer
Go's shortest printing of the float spells.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Iterable
from typing import Any

import lupa.lua51 as lupa  # type: ignore[import-untyped]

from gitfleet.model import gofloat

Path = tuple[str, ...]

_INT64 = 2**63
_MAX_INPUT_DEPTH = 512


class ConversionError(Exception):
    """A Lua value has no JSON form."""


def to_lua(runtime: lupa.LuaRuntime, value: Any) -> Any:
    """A Python JSON value as a Lua value owned by `runtime`."""
    if isinstance(value, dict | list | tuple):
        try:
            if _plain(value, 0, set()):
                return runtime.table_from(value, recursive=True)
        except OverflowError:  # an integer beyond int64, which lupa cannot push
            pass
        return _build(runtime, value, 0)
    return value


def _plain(value: Any, depth: int, seen: set[int]) -> bool:
    """Whether lupa's own recursive conversion gives exactly Karmada's tables: string keys, no
    null array elements (those must be skipped, not left as holes), and no object met twice (a
    YAML alias): Karmada builds a table for each place, and lupa's conversion does not."""
    if depth > _MAX_INPUT_DEPTH:
        raise ConversionError(f"value nested deeper than {_MAX_INPUT_DEPTH} levels")
    if id(value) in seen:
        return False
    seen.add(id(value))
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            if (type(item) is dict or type(item) is list) and not _plain(item, depth + 1, seen):
                return False
        return True
    if type(value) is list:
        for item in value:
            if item is None:
                return False
            if (type(item) is dict or type(item) is list) and not _plain(item, depth + 1, seen):
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
    if type(value) is int and not -_INT64 <= value < _INT64:
        return _float(value)
    return value


def _float(value: int) -> float:
    """An integer beyond int64 as Go's JSON decoder reads it into an unstructured object: the
    nearest float64, and an error past the largest one."""
    try:
        return float(value)
    except OverflowError:
        message = f"json: cannot unmarshal number {value} into Go value of type float64"
        raise ConversionError(message) from None


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
    """A Lua number as Go's JSON round trip gives it: integral values within int64 as ints.
    Go prints a float64 with its shortest digits, then reads the integer those digits spell:
    2^62 comes back as 4611686018427388000, not 4611686018427387904."""
    if not value.is_integer():
        return value
    if -(2**53) <= value <= 2**53:
        return int(value)
    spelled = int(decimal.Decimal(repr(value)))
    return spelled if -_INT64 <= spelled < _INT64 else value


def go_number_text(value: int | float) -> str:
    """How Go's encoding/json prints a float64: shortest digits, positional from 1e-6 to 1e21,
    otherwise with an exponent (`1e+21`, `1.5e-7`)."""
    f = float(value)
    if not math.isfinite(f):
        raise ConversionError(f"json: unsupported value: {f}")
    return gofloat.format_float(f)


def repair(result: Any, references: Iterable[Any], *, struct: bool) -> Any:
    """Karmada's repair of empty tables (`convertEmptySliceToEmptyStructPartly`), in place (the
    result is freshly decoded). `struct`: the target is an object type, so a bare `[]` result
    becomes `{}`. Python does this after the call, outside the sandbox's time limit, so it
    walks the result once, a trie of the references' empty paths in hand, without building
    paths or copies."""
    if result == []:
        return {} if struct else []
    empties = _Empties()
    for reference in references:
        empties.record(reference)
    created: list[tuple[str | int, ...]] = []
    _fix(result, empties, _ROOT, (), created)
    for trail in created:
        _create(result, trail)
    return result


def _create(result: Any, trail: tuple[str | int, ...]) -> None:
    """An empty object where sjson puts one for a path it read with its escapes undone (a
    backslash escapes the next character), with the objects and arrays (null padded) it makes
    on the way."""
    at = result
    for i, step in enumerate(trail):
        last = i == len(trail) - 1
        made: Any = {} if last or isinstance(trail[i + 1], str) else []
        if isinstance(at, dict):
            key = re.sub(r"\\(.?)", r"\1", str(step))
            if last or not isinstance(at.get(key), dict | list):
                at[key] = made
            at = at[key]
        elif isinstance(at, list) and isinstance(step, int):
            at.extend([None] * (step + 1 - len(at)))
            if last or not isinstance(at[step], dict | list):
                at[step] = made
            at = at[step]
        else:
            return


class _Empties:
    """The references' empty values below one path: `struct` if one held `{}` there, `slice` if
    one held `[]`; `keys` leads to longer paths."""

    __slots__ = ("keys", "slice", "struct")

    def __init__(self) -> None:
        self.keys: dict[str, _Empties] = {}
        self.slice = False
        self.struct = False

    def record(self, value: Any) -> None:
        """The empty values inside a reference's `value` at this path."""
        if isinstance(value, dict):
            for key, item in value.items():
                child = self.keys.get(str(key))
                if child is None:
                    child = self.keys[str(key)] = _Empties()
                child._note(item)
        elif isinstance(value, list):
            for item in value:
                self._note(item)

    def _note(self, item: Any) -> None:
        if isinstance(item, list) and not item:
            self.slice = True
        elif isinstance(item, dict) and not item:
            self.struct = True
        else:
            self.record(item)


_NOTHING = _Empties()

_ROOT, _COMPLEX, _ESCAPED = 1, 2, 4
"""How Karmada's path to a value reads (sjson): at the root its path is the key alone; a key
with `|#@*?` makes the path one sjson cannot delete at (an error); a key with a backslash makes
one that finds nothing (the empty table stays as it is)."""
_COMPLEX_CHARS = re.compile(r"[|#@*?]")


def _below(flags: int, key: str) -> int:
    found = flags & (_COMPLEX | _ESCAPED)
    if _COMPLEX_CHARS.search(key):
        found |= _COMPLEX
    if "\\" in key:
        found |= _ESCAPED
    return found


def _fix(
    value: Any,
    empties: _Empties,
    flags: int,
    trail: tuple[str | int, ...],
    created: list[tuple[str | int, ...]],
) -> None:
    """Repair `value` at `trail`; `created` gathers the paths where sjson, given an escaped
    path, makes a new object rather than changing the empty table."""
    if type(value) is dict:
        keys = empties.keys
        doomed = []
        for key, item in value.items():
            kind = type(item)
            if kind is list or kind is dict:
                below = keys.get(key, _NOTHING)
                if kind is list and not item:
                    if below.struct:
                        if _settable(flags, key):
                            value[key] = {}
                        else:
                            created.append((*trail, key))
                    elif not below.slice and _deletable(flags, key):
                        doomed.append(key)
                else:
                    _fix(item, below, _below(flags, key), (*trail, key), created)
        for key in doomed:
            del value[key]
    elif type(value) is list:
        empty_items = False
        for i, item in enumerate(value):
            kind = type(item)
            if kind is list and not item:
                empty_items = True
            elif kind is list or kind is dict:
                _fix(item, empties, flags & ~_ROOT, (*trail, i), created)
        if not empty_items:
            return
        if flags & _ESCAPED:
            if empties.struct:
                created.extend((*trail, i) for i, item in enumerate(value) if _is_empty_list(item))
            return
        if empties.struct:
            value[:] = [{} if _is_empty_list(item) else item for item in value]
        elif not empties.slice:
            if flags & _COMPLEX:
                raise ConversionError("cannot delete value from a complex path")
            value[:] = [item for item in value if not _is_empty_list(item)]


def _settable(flags: int, key: str) -> bool:
    """Whether Karmada's sjson turns the `[]` at `key` back into `{}`."""
    if flags & _ROOT and key == "":
        raise ConversionError("path cannot be empty")
    return not _below(flags, key) & _ESCAPED


def _deletable(flags: int, key: str) -> bool:
    """Whether Karmada's sjson deletes the `[]` at `key` (False: it stays)."""
    if flags & _ROOT and key == "":
        raise ConversionError("path cannot be empty")
    below = _below(flags, key)
    if below & _ESCAPED:
        return False
    if below & _COMPLEX:
        raise ConversionError("cannot delete value from a complex path")
    return True


def _is_empty_list(item: Any) -> bool:
    return type(item) is list and not item
