"""Stopping long-running commands cleanly on SIGINT or SIGTERM."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


@contextlib.contextmanager
def stop_on_signal() -> Iterator[threading.Event]:
    """An event set by SIGINT or SIGTERM while the block runs (installed before anything is
    printed, so a caller that signals as soon as it reads the output is heard)."""
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
