"""How gitfleet runs CPython's cycle collector.

A render allocates millions of short-lived objects (paths, documents, bindings, one small
object per manifest) and makes almost no reference cycles: reference counting frees what it
drops. The cycle collector would still walk those objects again and again while they are
alive (a tenth of a large render's time, for no memory back), so a process runs with fewer
young collections, and a render runs with the collector paused.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_COLLECTION_THRESHOLD = 50_000
"""Allocations between two collections of the youngest generation (CPython's default: 700).
At the default, the collector scans a render's short-lived objects over and over, and now
and then a full collection walks every cached object of a long-running reconciler in the
middle of a render; fewer young collections leave that work undone, for no more memory than
the objects alive between two of them."""


def tune() -> None:
    """The collector's settings for gitfleet's commands (see the threshold)."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, old)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No cycle collection while the block runs (a render and its commit): whatever cycles it
    leaves are collected by the first collection after it. Leaves the collector as it found
    it, so that blocks may nest or overlap in threads."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
