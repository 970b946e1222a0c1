"""Arguments into Lua, fast for documents met before.

Converting a document value by value (lupa's `table_from`, `_convert.to_lua`) is most of the cost
of a short call: every key and string crosses from Python to Lua on its own. But interpretation
meets the same documents again and again (every render asks about the same templates; a
template is asked for its replicas, then revised for each cluster). So the sandbox keeps, for a
document seen a second time, a compiled Lua function whose body is one table constructor for it,
keyed by the document's serialized form: building the tables again is then one run of compiled
code. The key is `marshal`'s version 2 form, a faithful encoding of the value with its key
order and its types (`1`, `1.0` and `True` differ) and, unlike later versions, independent of
which strings are shared; it is about four times cheaper to make than JSON text, which serves
the values marshal refuses (subclasses of dict).

The constructor builds what `_convert.to_lua` builds (nulls dropped, also inside arrays); a
document Lua cannot compile as one expression (nested too deeply, too many constants) keeps
going through `to_lua`. Cached constructors are bounded by the total size of their documents.

The values Python helpers return to a running script (`kube` results, `os.date`'s parts) come as
such a constructor's source (`constructor_source`), which sandbox.lua compiles and keeps: the
helpers run while the script's coroutine runs, when Python must not call into Lua, and their
results repeat as much as the documents they are computed from.
"""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Callable
from typing import Any

import lupa.lua51 as lupa  # type: ignore[import-untyped]

from gitfleet.interpreter.lua import _convert

_CACHE_BYTES = 8 * 1024 * 1024
"""Total size of the keys of the documents whose constructors are kept."""

_ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', **{c: f"\\{c:03d}" for c in range(32)}}
_COMPILE_FAILED = False


class Inputs:
    """Lua tables for documents, built by compiled constructors once a document repeats."""

    def __init__(self, runtime: lupa.LuaRuntime, compile: Callable[[str], Any]) -> None:
        self._runtime = runtime
        self._compile = compile
        self._constructors: dict[str | bytes, Any] = {}
        self._seen: set[str | bytes] = set()
        self._size = 0

    def to_lua(self, value: Any) -> Any:
        """`value` as a Lua value (what `_convert.to_lua` gives)."""
        if not isinstance(value, dict | list):
            return value
        key = _key(value)
        if key is None:
            return _convert.to_lua(self._runtime, value)
        make = self._constructors.get(key)
        if make is None:
            if key not in self._seen:
                self._remember(self._seen, key)
                return _convert.to_lua(self._runtime, value)
            make = self._constructor(value)
            self._remember(self._constructors, key, make)
        if make is _COMPILE_FAILED:
            return _convert.to_lua(self._runtime, value)
        return make()

    def _remember(self, store: Any, key: str | bytes, make: Any = None) -> None:
        self._size += len(key)
        if self._size > _CACHE_BYTES:
            self._seen.clear()
            self._constructors.clear()
            self._size = len(key)
        if isinstance(store, set):
            store.add(key)
        else:
            store[key] = make

    def _constructor(self, value: Any) -> Any:
        try:
            return self._compile(constructor_source(value)) or _COMPILE_FAILED
        except (lupa.LuaError, UnicodeEncodeError, ValueError):
            return _COMPILE_FAILED


def _key(value: dict[str, Any] | list[Any]) -> str | bytes | None:
    """The cache key of a document, None for a value JSON cannot hold."""
    try:
        return marshal.dumps(value, 2)
    except ValueError:
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


def constructor_source(value: Any) -> str:
    """A Lua chunk returning `value` as `_convert.to_lua` converts it."""
    parts = ["return "]
    _literal(value, parts)
    return "".join(parts)


def _literal(value: Any, out: list[str]) -> None:
    """Lua source for a JSON value, as `_convert.to_lua` converts it."""
    if isinstance(value, dict):
        out.append("{")
        for key, item in value.items():
            if item is not None:
                out.append("[")
                _string(str(key), out)
                out.append("]=")
                _literal(item, out)
                out.append(",")
        out.append("}")
    elif isinstance(value, list):
        out.append("{")
        for item in value:
            if item is not None:
                _literal(item, out)
                out.append(",")
        out.append("}")
    elif isinstance(value, str):
        _string(value, out)
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value))
    elif math.isfinite(value):
        out.append(repr(float(value)))
    else:
        raise ValueError(f"{value} is no JSON number")


def _string(text: str, out: list[str]) -> None:
    out.append('"')
    out.append(text.translate(_ESCAPES))
    out.append('"')
