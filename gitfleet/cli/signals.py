"""Stopping long-running commands cleanly on SIGINT or SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType


@contextlib.contextmanager
def on_stop_signal(handler: Callable[[], None]) -> Iterator[None]:
    """Call `handler` on SIGINT or SIGTERM while the block runs; the previous handlers come
    back afterwards."""

    def handle(signum: int, frame: FrameType | None) -> None:
        handler()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def stop_on_signal() -> Iterator[threading.Event]:
    """An event set by SIGINT or SIGTERM while the block runs (installed before anything is
    printed, so a caller that signals as soon as it reads the output is heard)."""
    stop = threading.Event()
    with on_stop_signal(stop.set):
        yield stop
