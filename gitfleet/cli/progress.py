"""Progress of long work on a terminal: one line on stderr saying what is being done and for
how long, redrawn while it lasts and erased when it ends.

A first render of a large fleet or a preview of a large change takes seconds to minutes in
which a command would otherwise print nothing. The line goes to stderr only when stderr is a
terminal, so what scripts read (stdout, `-o json`, a log file) never holds it; it is erased
before the command prints its result, and `NO_PROGRESS` (any value) turns it off. Whatever
else the command writes to the terminal meanwhile (log records, `erase` before other output)
starts on a clean line; the next redraw puts the line back below it.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

Step = Callable[[str], None]
"""Says what a command does now (`Progress.step`); work run without a line takes `quiet`."""
REDRAW_SECONDS = 0.25
"""How often the line is redrawn (the elapsed seconds move)."""
DISABLE = "NO_PROGRESS"


def quiet(_: str) -> None:
    """A `Step` that shows nothing."""


def _on_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty() and not os.environ.get(DISABLE)
    except (OSError, ValueError):
        return False


class Progress:
    """The line of one command, for the `with` block of its work (see the module)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._shown = _on_terminal(self._stream)
        self._text = ""
        self._started = time.monotonic()
        self._width = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def step(self, text: str) -> None:
        """Say that the command now does `text` (its control characters escaped: it may name a
        branch a pull request chose)."""
        shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
        with self._lock:
            self._text = shown
        self._draw()

    def erase(self) -> None:
        """Take the line off the terminal, for other output to start on a clean line."""
        with self._lock:
            if self._shown and self._width:
                self._write(f"\r{' ' * self._width}\r")
            self._width = 0

    def _erase_before(self, record: logging.LogRecord) -> bool:
        """A logging filter: every record is logged, on a clean line."""
        self.erase()
        return True

    def __enter__(self) -> Progress:
        if self._shown:
            self._thread = threading.Thread(target=self._redraw, name="progress", daemon=True)
            self._thread.start()
            for handler in logging.getLogger().handlers:
                handler.addFilter(self._erase_before)
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self._erase_before)
        self.erase()

    def _redraw(self) -> None:
        while not self._done.wait(REDRAW_SECONDS):
            self._draw()

    def _draw(self) -> None:
        with self._lock:
            if not self._shown or not self._text or self._done.is_set():
                return
            line = f"{self._text} ({time.monotonic() - self._started:.0f}s)"
            self._write(f"\r{line.ljust(self._width)}")
            self._width = len(line)

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            self._shown = False
