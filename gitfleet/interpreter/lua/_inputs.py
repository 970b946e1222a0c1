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

A script that cannot change a table (`_readonly`) is given shared tables instead (`shared`):
built once per document and kept, within a smaller budget, since they stay in the runtime's
memory.

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
_SHARED_BYTES = 2 * 1024 * 1024
"""Total size of the keys of the documents whose shared tables are kept."""

_ESCAPES = {ord("\\"): "\\\\", ord('"'): '\\"', **{c: f"\\{c:03d}" for c in range(32)}}
_COMPILE_FAILED = False


class _Kept:
    """Values by document key, all forgotten at once when the keys' total size passes `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self.values: dict[str | bytes, Any] = {}

    def put(self, key: str | bytes, value: Any) -> None:
        self.size += len(key)
        if self.size > self.limit:
            self.values.clear()
            self.size = len(key)
        self.values[key] = value


_SEEN_ONCE = object()


class Inputs:
    """Lua tables for documents, built by compiled constructors once a document repeats."""

    def __init__(self, runtime: lupa.LuaRuntime, compile: Callable[[str], Any]) -> None:
        self._runtime = runtime
        self._compile = compile
        self._constructors = _Kept(_CACHE_BYTES)
        self._shared = _Kept(_SHARED_BYTES)

    def to_lua(self, value: Any) -> Any:
        """`value` as a Lua value (what `_convert.to_lua` gives), in tables of its own."""
        return self._through(value, self._built)

    def shared(self, value: Any) -> Any:
        """`value` as a Lua value that may have been given before: for scripts that cannot
        change a table."""
        return self._through(value, self._kept)

    def _through(self, value: Any, convert: Callable[[str | bytes, Any], Any]) -> Any:
        if not isinstance(value, dict | list):
            return value
        key = _key(value)
        if key is None:
            return _convert.to_lua(self._runtime, value)
        return convert(key, value)

    def _built(self, key: str | bytes, value: Any) -> Any:
        make = self._constructors.values.get(key)
        if make is None:
            self._constructors.put(key, _SEEN_ONCE)
            return _convert.to_lua(self._runtime, value)
        if make is _SEEN_ONCE:
            make = self._constructor(value)
            self._constructors.put(key, make)
        if make is _COMPILE_FAILED:
            return _convert.to_lua(self._runtime, value)
        return make()

    def _kept(self, key: str | bytes, value: Any) -> Any:
        found = self._shared.values.get(key)
        if found is None:
            found = _convert.to_lua(self._runtime, value)
            self._shared.put(key, found)
        return found

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
