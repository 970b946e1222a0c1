"""The one place Lua runs: a PUC Lua 5.1 runtime (lupa) set up as a sandbox, reused across calls.

Why PUC Lua 5.1: Karmada runs gopher-lua, which has 5.1 semantics (`tostring(2)` is `"2"`), and
LuaJIT's compiled loops would not honour the instruction hook. What a script can reach is built
by sandbox.lua; this module owns the runtime around it:

- limits (`Limits`, listed with their defaults in docs/security.md): a wall-clock time per call,
  enforced by the watchdog (_watchdog.py) between any two VM instructions; an instruction
  budget per call (a count hook, so `while true do end` stops the same way on every machine);
  the runtime's memory cap (lupa's allocator); the longest script; caps on the strings library
  functions take and build; and the most values a result may hold. The hook and the watchdog
  act between instructions only, so no single library call may run long: strings.lua and
  tables.lua bound every C function that works in proportion to its arguments, or replace it
  with Lua the hook reaches (a process per call, which could be killed, would cost far more
  than the calls);
- arguments converted once per call (`_inputs`: a compiled constructor for documents met
  before), or, for scripts that cannot change a table (`_readonly`), tables built once per
  document and given again, whose JSON text sandbox.lua keeps; results returned as JSON text
  (json.lua) that `_convert.decode` reads;
- compiled chunks cached per script text (after the rewrite that tracks key order, _rewrite.py);
  each call runs the chunk in a fresh environment, then its global function, so no state leaks
  from one call or script to the next;
- failures become `ScriptError(message, line)`; after one, garbage is collected, and an error the
  sandbox did not expect rebuilds the runtime, so the next call always finds a working one.

`now` (seconds since the epoch) is the clock `os.time`/`os.date` read: interpretation stays a
pure function of its inputs.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import math
import threading
import time
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

import lupa.lua51 as lupa  # type: ignore[import-untyped]

from gitfleet.interpreter.lua import (
    _convert,
    _goformat,
    _gostrings,
    _inputs,
    _kube,
    _osdate,
    _readonly,
    _rewrite,
    _tonumber,
    _watchdog,
)

CHUNKNAME = "<string>"
"""The chunk name Karmada's VM gives a script (gopher-lua's DoString): error messages a script
catches with pcall start with it."""
HOOK_EVERY = 1000
"""Instructions between two calls of the count hook."""
_MAX_MESSAGE = 1000
"""Bytes of an error message kept (a script can raise a string of any length)."""
LIMIT_MESSAGE = "instruction limit exceeded"
MEMORY_MESSAGE = "memory limit exceeded"
TIME_MESSAGE = "time limit exceeded"
_SOFT_MEMORY = 0.9
_SOFT_MEMORY_FLOOR = 0.75
"""Shares of the memory cap: past the first the hook collects garbage, and stops the call (with
its line) if live data is still past the second."""
_MAX_DEPTH = 200
_CACHE_SIZE = 512
_LIBRARIES = ("guards", "strings", "tables", "json")
"""The Lua files sandbox.lua loads, each compiled under its own name (guards.lua relies on it)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """What one call may use."""

    seconds: float = 1.0
    """Wall-clock time per call (Karmada gives a call one second); Python's reading of the
    results comes after it, kept short by `max_values`. Under load a call near the limit can
    pass on one run and fail on the next; the instruction budget, which does not depend on the
    machine, stops runaway loops first."""
    instructions: int = 50_000_000
    """Lua VM instructions per call."""
    memory: int = 64 * 1024 * 1024
    """Bytes the whole runtime may allocate."""
    max_script: int = 64 * 1024
    """Longest script source, in bytes (Karmada's largest third-party script has 9 KB)."""
    max_string: int = 1_000_000
    """Longest string a library function takes (Karmada caps string library arguments at this
    length) or builds (`string.rep`, `table.concat`, `os.date`)."""
    max_quantities: int = 64 * 1024
    """Total length of the quantity strings of one `kube.resourceAdd` or
    `kube.getResourceQuantity` call (Python parses them a character at a time)."""
    pattern_cost: float = 3e7
    """Worst-case steps above which a pattern runs in the hook-bounded Lua matcher."""
    max_values: int = 50_000
    """Most values (tables, keys, scalars) in one result or `kube` table argument: Python
    decodes them after the call, outside the hook's reach."""


class _Chunk(typing.NamedTuple):
    """A compiled script, and whether it cannot change a table (`_readonly`)."""

    function: Any
    shares_tables: bool


class Result(typing.NamedTuple):
    """One value a script returned: its Lua type, and its JSON text when it has one."""

    lua_type: str
    json: str | None


class ScriptError(Exception):
    """A script failed to compile or to run; `line` is the script's line when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message if line is None else f"line {line}: {message}")
        self.message = message
        self.line = line


def _deny_attributes(obj: object, name: str, is_setting: bool) -> str:
    """Scripts never hold Python objects; should one leak, none of its attributes is reachable."""
    raise AttributeError(name)


def _guarded(
    name: str, function: Callable[..., tuple[bool, Any]]
) -> Callable[..., tuple[bool, Any]]:
    """A Python helper as Lua calls it: an unexpected exception becomes an error message rather
    than a Python exception crossing the Lua stack."""

    def call(*args: Any) -> tuple[bool, Any]:
        try:
            return function(*args)
        except Exception as e:  # a helper bug must not take the runtime down
            return False, f"internal error in {name}: {type(e).__name__}: {e}"

    return call


@functools.cache
def _lua_source(name: str) -> str:
    """A Lua file of this package: sandbox.lua and the libraries it loads."""
    return (importlib.resources.files(__package__) / name).read_text(encoding="utf-8")


class Sandbox:
    """A Lua runtime for customization scripts. Thread-safe: calls are serialized."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self._lock = threading.RLock()
        self._budget = math.ceil(limits.instructions / HOOK_EVERY)
        self._watch = _watchdog.watch(limits.seconds)
        self._start()

    def _start(self) -> None:
        self._watch.target(None)  # the old runtime's worker goes with it
        runtime = lupa.LuaRuntime(
            register_eval=False,
            register_builtins=False,
            unpack_returned_tuples=True,
            max_memory=self.limits.memory,
            attribute_filter=_deny_attributes,
        )
        self._inputs = _inputs.Inputs(runtime, self._constructor)
        helpers: dict[str, Callable[..., tuple[bool, Any]]] = {
            "os_time": _osdate.os_time,
            "date_parts": _osdate.date_parts,
            "resource_add": _kube.resource_add,
            "resource_quantity": _kube.resource_quantity,
            "pod_requirements": _kube.pod_requirements,
            "pod_dependencies": _kube.pod_dependencies,
            "to_number": _tonumber.to_number,
            "parse_number": _tonumber.parse_number,
            "change_case": _gostrings.change_case,
            "format_values": _goformat.format_values,
        }
        python = runtime.table_from({name: _guarded(name, f) for name, f in helpers.items()})
        config = runtime.table_from(
            {
                "chunkname": CHUNKNAME,
                "limit_message": LIMIT_MESSAGE,
                "memory_message": MEMORY_MESSAGE,
                "time_message": TIME_MESSAGE,
                "soft_memory_kb": self.limits.memory * _SOFT_MEMORY / 1024,
                "soft_memory_floor_kb": self.limits.memory * _SOFT_MEMORY_FLOOR / 1024,
                "max_string": self.limits.max_string,
                "max_quantities": self.limits.max_quantities,
                "max_values": self.limits.max_values,
                "max_message": _MAX_MESSAGE,
                "pattern_cost": self.limits.pattern_cost,
                "hook_every": HOOK_EVERY,
                "monotonic": time.monotonic,
                "max_depth": _MAX_DEPTH,
                "track": _rewrite.TRACK,
                "track_dynamic": _rewrite.TRACK_DYNAMIC,
                "frame": _rewrite.FRAME,
                "key": _rewrite.KEY,
                "text": _rewrite.TEXT,
                "length": _rewrite.LENGTH,
                "arithmetic": runtime.table_from(_rewrite.ARITHMETIC),
                "negate": _rewrite.NEGATE,
                "negative_zero": _goformat.NEGATIVE_ZERO,
                "python": python,
                **{
                    name: runtime.compile(_lua_source(f"{name}.lua"), name=f"={name}")
                    for name in _LIBRARIES
                },
            }
        )
        api = runtime.compile(_lua_source("sandbox.lua"), name="=sandbox")(config)
        # Entry points taken out of their Lua table once: each lookup would be a call into Lua.
        self._api = types.SimpleNamespace(**dict(api.items()))
        runtime.execute("local g = _G for name in pairs(g) do g[name] = nil end")
        self._runtime = runtime
        self._chunks: dict[str, _Chunk | ScriptError] = {}
        self._watch.target(int(str(self._api.worker()).partition(": ")[2], 16))

    def _constructor(self, source: str) -> Any:
        """A compiled document constructor, or None if Lua cannot compile it (_inputs.py)."""
        result = self._api.constructor(source)
        return None if isinstance(result, tuple) else result

    def compile(self, source: str) -> None:
        """Raise `ScriptError` if `source` does not compile."""
        with self._lock:
            self._chunk(source)

    def _chunk(self, source: str) -> _Chunk:
        cached = self._chunks.get(source)
        if cached is None:
            if len(self._chunks) >= _CACHE_SIZE:  # scripts change rarely: start the cache over
                self._chunks.clear()
            cached = self._chunks[source] = self._compile(source)
        if isinstance(cached, ScriptError):
            raise cached
        return cached

    def _compile(self, source: str) -> _Chunk | ScriptError:
        if source.startswith("\x1b"):
            return ScriptError("binary chunks are not accepted")
        size = len(source.encode())
        if size > self.limits.max_script:
            return ScriptError(
                f"script of {size} bytes exceeds the limit of {self.limits.max_script}"
            )
        chunk, message = self._loadstring(_rewrite.rewrite(source))
        if chunk is None:
            chunk, message = self._loadstring(source)
            if chunk is None:
                return _located(message)
            # the rewrite broke a valid script: it runs unordered
        return _Chunk(chunk, _readonly.cannot_change_tables(source))

    def _loadstring(self, source: str) -> tuple[Any, str]:
        result = self._api.compile(source)
        if isinstance(result, tuple):
            return None, str(result[1])
        return result, ""

    def call(
        self,
        source: str,
        function: str,
        args: Sequence[Any],
        *,
        now: float = 0.0,
        results: int | None = None,
    ) -> list[Result]:
        """Run `source`, then its global `function` with `args` (JSON values, or `ABSENT` for a
        Lua nil). Each result is its Lua type and, for strings, numbers, booleans and tables,
        its JSON text (`_convert.decode` reads it), else None. `results` keeps the first so
        many (nil padded), as Karmada's `RunScript` does; the others are not even encoded."""
        with self._lock:
            chunk = self._chunk(source)
            to_lua = self._inputs.shared if chunk.shares_tables else self._inputs.to_lua
            try:
                lua_args = [None if a is ABSENT else to_lua(a) for a in args]
                result = self._watched(
                    self._api.invoke,
                    chunk.function,
                    function,
                    self._budget,
                    math.floor(now),
                    results,
                    chunk.shares_tables,
                    len(lua_args),
                    *lua_args,
                )
            except lupa.LuaMemoryError:
                self._recover()
                raise ScriptError("not enough memory") from None
            except _convert.ConversionError as e:
                raise ScriptError(str(e)) from None
            except Exception as e:  # the runtime itself misbehaved: start afresh
                self._start()
                raise ScriptError(f"the Lua runtime failed and was restarted: {e}") from None
            result = self._succeeded(result)
            count = int(result[1])
            return [Result(str(result[2 + 2 * i]), result[3 + 2 * i] or None) for i in range(count)]

    def defines(self, source: str, function: str) -> str:
        """Run `source` (not the function) and return the Lua type of its global `function`."""
        with self._lock:
            chunk = self._chunk(source)
            result = self._watched(self._api.probe, chunk.function, function, self._budget)
            return str(self._succeeded(result)[1])

    def _watched(self, entry: Any, chunk: Any, function: str, budget: int, *args: Any) -> Any:
        """An entry point of sandbox.lua run under the watchdog (it takes the call's deadline
        after its budget); what it returned, cleaned when Python cannot read it (sandbox.lua
        `cleaned`)."""
        deadline = self._watch.start()
        try:
            return entry(chunk, function, budget, deadline, *args)
        except UnicodeDecodeError:
            return self._api.cleaned()
        finally:
            self._watch.stop()

    def _succeeded(self, result: Any) -> tuple[Any, ...]:
        """What sandbox.lua's entry points return: (true, ...), or (false, message, line)."""
        found: tuple[Any, ...] = result if isinstance(result, tuple) else (result,)
        if found[0] is not True:
            self._recover()
            message = found[1] if len(found) > 1 else "unknown error"
            line = found[2] if len(found) > 2 else None
            raise ScriptError(str(message), int(line) if line is not None else None)
        return found

    def _recover(self) -> None:
        """Free what a failed call left behind (a memory bomb's garbage, mostly)."""
        try:
            self._api.collect()
        except lupa.LuaError:
            self._start()

    def memory_in_use(self) -> int:
        """Bytes the runtime holds after a full collection (for tests and diagnostics)."""
        with self._lock:
            return int(self._api.collect() * 1024)


class _Absent:
    """An argument that arrives in Lua as nil (Karmada passes a nil slice of status items so)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT = _Absent()


def _located(message: str) -> ScriptError:
    head = CHUNKNAME + ":"
    if message.startswith(head):
        line, _, rest = message[len(head) :].partition(": ")
        if line.isdigit():
            return ScriptError(rest, int(line))
    return ScriptError(message)


_shared: Sandbox | None = None
_shared_lock = threading.Lock()


def shared() -> Sandbox:
    """The process-wide sandbox with default limits, built on first use."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Sandbox()
        return _shared
