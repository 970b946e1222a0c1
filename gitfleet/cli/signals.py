"""Stopping long-running commands cleanly on SIGINT or SIGTERM.

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
