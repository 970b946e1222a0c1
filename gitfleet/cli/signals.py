"""Stopping long-running commands cleanly on SIGINT or SIGTERM.

Commands without a stop handler of their own end on Ctrl-C through KeyboardInterrupt, as by
default, but the signal is also remembered (`interrupts_remembered`): Python drops a
KeyboardInterrupt raised inside a finalizer (GitPython closes its git processes in `__del__`),
and a library's broad `except` may catch one, after which the command would go on, publish and
exit 0. A command checks (`checkpoint`) before a step that cannot be undone, and ends with exit
130 when a signal came at all.

The stop handler does not run inside the signal handler but on a thread of its own, woken
through `signal.set_wakeup_fd`, because a signal handler runs only in the main thread, between
two bytecodes:
- when the kernel hands the signal to another thread (any thread starting a subprocess may
  take it), a main thread blocked in `Event.wait()` never runs the handler, and the command
  never stops; the wakeup descriptor is written by whichever thread took the signal;
- a handler taking a lock (`Event.set` does) deadlocks when the signal interrupts the main
  thread while it holds that lock (inside `Event.wait`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
RELAY_SECONDS = 5.0
"""The longest wait, on leaving the block, for a stop handler still running."""
HEARD_SECONDS = 1.0
"""The longest wait, after a failure, for a stop signal that came with it to be relayed."""
STOPPED = 130
"""The exit code of a command stopped before its end, as a shell reports a command ended by
Ctrl-C."""


class _Interrupts:
    """Whether SIGINT came in the current `interrupts_remembered` block. A plain attribute, not
    an `Event`: setting one takes a lock, which the signal handler could find held."""

    heard = False


def _interrupt(signum: int, frame: FrameType | None) -> None:
    _Interrupts.heard = True
    raise KeyboardInterrupt


@contextlib.contextmanager
def interrupts_remembered() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt and is remembered while the block runs (see the module);
    the previous handler comes back afterwards. Signals reach only the main thread's handler, so
    elsewhere the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Interrupts.heard = False
    previous = signal.signal(signal.SIGINT, _interrupt)
    report = sys.unraisablehook

    def dropped(unraisable: sys.UnraisableHookArgs) -> None:
        """A lost KeyboardInterrupt is heard all the same: its traceback is noise."""
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            report(unraisable)

    sys.unraisablehook = dropped
    try:
        yield
    finally:
        sys.unraisablehook = report
        signal.signal(signal.SIGINT, previous)


def interrupted() -> bool:
    """Whether SIGINT came in the current `interrupts_remembered` block, even one whose
    KeyboardInterrupt was lost."""
    return _Interrupts.heard


def checkpoint() -> None:
    """Raise KeyboardInterrupt when SIGINT came, before a step that cannot be undone."""
    if _Interrupts.heard:
        raise KeyboardInterrupt


def _heard(signum: int, frame: FrameType | None) -> None:
    """Replaces the default handlers (KeyboardInterrupt, termination): the relay does the work."""


def _relay(pipe: int, handler: Callable[[], None]) -> None:
    """Call `handler` for every stop signal written to `pipe`, until its writing end closes."""
    wanted = {int(sig) for sig in STOP_SIGNALS}
    with open(pipe, "rb", buffering=0) as reader:
        while chunk := reader.read(64):
            for signum in chunk:
                if signum in wanted:
                    handler()


@contextlib.contextmanager
def on_stop_signal(handler: Callable[[], None]) -> Iterator[None]:
    """Call `handler` (from another thread) on SIGINT or SIGTERM while the block runs, as
    often as they come; the previous handlers come back afterwards."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    relay = threading.Thread(
        target=_relay, args=(read, handler), name="gitfleet-signals", daemon=True
    )
    relay.start()
    previous_fd = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    previous = {sig: signal.signal(sig, _heard) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
        signal.set_wakeup_fd(previous_fd)
        os.close(write)
        relay.join(RELAY_SECONDS)


@contextlib.contextmanager
def stop_on_signal() -> Iterator[threading.Event]:
    """An event set by SIGINT or SIGTERM while the block runs (installed before anything is
    printed, so a caller that signals as soon as it reads the output is heard)."""
    stop = threading.Event()
    with on_stop_signal(stop.set):
        yield stop


def heard(stop: threading.Event) -> bool:
    """Whether a stop signal came, waiting a moment for its relay. Ctrl-C on a terminal reaches
    the whole process group, so a git process can die of it, and its caller fail, before the
    relay thread has set `stop`: what failed is then the stop."""
    return stop.wait(HEARD_SECONDS)
