"""The wall-clock limit of Lua calls: a thread that stops a call still running at its deadline.

PUC Lua runs its hooks between VM instructions only, and the count hook the sandbox keeps (an
instruction budget) cannot see time: one instruction or library call can take milliseconds (a
concatenation of large strings, a string interned into a long hash chain), thousands of them
take seconds. `lua_sethook` is the one Lua API function made to be called while the state runs
(lua.c calls it from its SIGINT handler): this module's thread calls it, through ctypes on
lupa's own Lua library, on the Lua thread that runs scripts (sandbox.lua's worker coroutine),
adding line events to the hook's mask. The next new line, backward jump or function entry
runs the hook with a "line" event, which the sandbox never asks for otherwise: sandbox.lua's
hook stops the call with the time limit's message, at the script's line.

The thread sleeps until the earliest deadline of the calls running when it last looked, or, with
none running, until a call starts. A call wakes it only when it would otherwise sleep past that
call's deadline: when it sleeps for want of calls, or when a sandbox with a shorter limit starts
one. Calls that follow one another (one limit, each deadline later than the last) never wake
it: it wakes at the first call's deadline, long after that call ended, looks at the call then
running and sleeps until its deadline. So a call costs reading the clock and two attributes, the
thread wakes about once per time limit while calls come, and a late call ends at its deadline
(plus the thread's wake-up) plus the longest single instruction or library call; the sandbox
keeps those short (strings.lua, tables.lua, argument caps). lupa releases the GIL while Lua
runs, so the thread gets to run; but a script calling Python helpers in a loop takes the GIL
back at once, again and again, and the thread can wait seconds for it: sandbox.lua's helper
calls also look at the clock (every few calls) for that case.

A `Watch` is one sandbox's view: the address of its worker, the hook function to set, and the
deadline of its running call, if any. Its lock orders a firing against a runtime restart, so the
thread never touches a Lua thread that is gone. A firing can land just after its call ended,
in the next call: the hook then compares the clock with that call's deadline and goes on.
"""

from __future__ import annotations

import ctypes
import math
import threading
import time
import weakref

import lupa.lua51 as lupa  # type: ignore[import-untyped]

_MASK_LATE = (1 << 2) | (1 << 3)
"""LUA_MASKLINE | LUA_MASKCOUNT (lua.h): the count hook the sandbox set, and line events."""
_AGAIN = 0.02
"""Seconds between two firings at a call still running past its deadline."""


def _lua_library() -> ctypes.CDLL:
    library = ctypes.PyDLL(lupa.__file__)  # keeps the GIL: no wait to take it back
    library.lua_sethook.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    library.lua_sethook.restype = ctypes.c_int
    library.lua_gethook.argtypes = [ctypes.c_void_p]
    library.lua_gethook.restype = ctypes.c_void_p
    library.lua_gethookcount.argtypes = [ctypes.c_void_p]
    library.lua_gethookcount.restype = ctypes.c_int
    return library


_LUA = _lua_library()


class Watch:
    """One sandbox's calls as the watchdog sees them."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.lock = threading.Lock()
        self.deadline: float | None = None
        self._state: int | None = None
        self._hook: int | None = None
        self._count = 0

    def target(self, address: int | None) -> None:
        """The Lua thread (a `lua_State *`) that runs this sandbox's scripts, once its count
        hook is set; None while the runtime is being replaced."""
        with self.lock:
            self._state = address
            if address is not None:
                self._hook = _LUA.lua_gethook(address)
                self._count = _LUA.lua_gethookcount(address)

    def start(self) -> float:
        """A call begins; its deadline (`time.monotonic`)."""
        deadline = self.deadline = time.monotonic() + self.seconds
        if deadline < _WATCHDOG.wakes_at:
            _WATCHDOG.wake()
        return deadline

    def stop(self) -> None:
        """The call ended."""
        self.deadline = None

    def fire_if_late(self, now: float) -> float | None:
        """Make a late call's next instruction run the hook; when to look at the running call
        again, if any: at its deadline, or soon if it is late (the hook lets a call its error
        handler is finishing go on)."""
        deadline = self.deadline
        if deadline is None or now < deadline:
            return deadline
        with self.lock:
            if self._state is not None and self._hook:
                _LUA.lua_sethook(self._state, self._hook, _MASK_LATE, self._count)
        return now + _AGAIN


class _Watchdog:
    """The thread that looks at every sandbox's running call, each time the earliest deadline it
    knows of comes. It lives as long as the process, so its name is not of the `gitfleet-`
    threads, those a command starts and stops before it ends."""

    def __init__(self) -> None:
        self._watches: weakref.WeakSet[Watch] = weakref.WeakSet()
        self.wakes_at = math.inf
        """When the thread will look next (`time.monotonic`); a call due earlier wakes it."""
        self._woken = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, watch: Watch) -> None:
        with self._lock:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="lua-watchdog", daemon=True)
                self._thread.start()

    def wake(self) -> None:
        self._woken.set()

    def _run(self) -> None:
        while True:
            # Cleared, and due to sleep for good, before looking: a call that starts after the
            # look wakes the thread, or finds it woken already.
            self._woken.clear()
            self.wakes_at = math.inf
            now = time.monotonic()
            with self._lock:
                watches = list(self._watches)
            due = [d for d in (w.fire_if_late(now) for w in watches) if d is not None]
            self.wakes_at = min(due, default=math.inf)
            self._woken.wait(None if not due else self.wakes_at - now)


_WATCHDOG = _Watchdog()


def watch(seconds: float) -> Watch:
    """A new sandbox's watch, followed by the watchdog thread from now on."""
    found = Watch(seconds)
    _WATCHDOG.add(found)
    return found
