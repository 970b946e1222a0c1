"""How the demo shows itself: lines that tell what happens, and a status table.

On a terminal the table stays under the last line told and is redrawn in place whenever the
fleet changes (each line cut to the terminal's width, so that redrawing can count them). In a
file or a pipe nothing is redrawn: the lines are written as they come and the table is written
whole at the end of each step (`settle`).
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from typing import TextIO

from gitfleet.demo import _state
from gitfleet.model.template import ResourceKey

UP_AND_CLEAR = "\x1b[{n}F\x1b[J"
"""Move to the start of the line `n` lines up, and clear everything below."""


class Display:
    def __init__(self, stream: TextIO, live: bool) -> None:
        self.stream = stream
        self.live = live
        self.shown: list[str] = []
        """The table as last written (live) or last built (plain)."""
        self.drawn = 0
        """How many lines of the table are on the screen below the told lines."""
        self.lock = threading.Lock()
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        self.done = "✓" if encoding == "utf8" else "*"
        """The mark of a step done (plain where the stream cannot write it)."""

    def _erase(self) -> None:
        if self.drawn:
            self.stream.write(UP_AND_CLEAR.format(n=self.drawn))
            self.drawn = 0

    def _draw(self) -> None:
        width = shutil.get_terminal_size().columns - 1
        for line in self.shown:
            self.stream.write(line[:width] + "\n")
        self.drawn = len(self.shown)

    def say(self, text: str) -> None:
        """Tell what happens: one line, kept above the table."""
        with self.lock:
            if self.live:
                self._erase()
            self.stream.write(text + "\n")
            if self.live:
                self._draw()
            self.stream.flush()

    def table(self, lines: Sequence[str]) -> None:
        """The table as it is now (redrawn on a terminal when it changed)."""
        with self.lock:
            if list(lines) == self.shown:
                return
            self.shown = list(lines)
            if self.live:
                self._erase()
                self._draw()
                self.stream.flush()

    def settle(self) -> None:
        """The end of a step: outside a terminal, write the table once."""
        with self.lock:
            if not self.live and self.shown:
                self.stream.write("".join(f"  {line}\n" for line in self.shown))
                self.stream.flush()

    def close(self) -> None:
        """Leave the table on the screen as it is, and write below it from now on, without
        drawing it again under every line told."""
        with self.lock:
            self.drawn = 0
            self.shown = []


def _cells(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def table(state: _state.State, key: ResourceKey) -> list[str]:
    """The status table: the rendered tip, then a row per cluster with its mode, readiness,
    whether it applied the current render, how much of it, and the replicas of `key` it
    runs."""
    replicas = state.ready_replicas(key)
    evicting = state.evicting(key)
    name = f"{key.namespace}/{key.name}" if key.namespace else key.name
    rows = [["CLUSTER", "MODE", "READY", "SYNCED", "APPLIED", name]]
    for row in state.view.clusters:
        counts = replicas.get(row.name)
        cell = f"{counts[0]}/{counts[1]}" if counts else "-"
        if row.name in evicting:
            cell += " (old copy, until the move is done)"
        applied = f"{row.applied}/{row.manifests}" if row.reported else "-"
        rows.append([row.name, row.mode or "-", row.ready, _yes_no(row.synced), applied, cell])
    tip = (state.tip or "")[:12] or "nothing yet"
    head = f"rendered {tip}: {state.subject}" if state.subject else f"rendered: {tip}"
    return [head, *_cells(rows)]
