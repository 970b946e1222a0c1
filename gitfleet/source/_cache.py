"""Reuse what a file gave in an earlier load when the same file comes back.

A long-running reconciler, or a benchmark calling the render command again and again, loads
revision after revision of one repository, and most files are the same in each. A Git blob id
names a file's content, so a path and its blob id decide everything parsing and classifying the
file produces: documents, objects and diagnostics all depend on the bytes and on the path their
origins carry, and on nothing else (settings decide which files are read, not what a file
gives). Reusing those makes a reload cost what changed, and hands the very same objects back,
so later stages can tell unchanged objects by identity. A plain folder's files have no such id
before they are read, and are parsed every time.
"""

from __future__ import annotations

import collections
import dataclasses
import threading

from gitfleet.source import _classify

Key = tuple[str, str]
"""(path, blob id)."""

KEPT_LOADS = 2
"""How many loads' files are kept. Bounding by loads rather than by files keeps memory near one
source's objects (which the last load's caller holds anyway) whatever the source's size, where
a bound on files smaller than a source would evict everything on every load and reuse nothing.
Two, not one, because a preview loads its base and head revisions in turn."""


@dataclasses.dataclass(frozen=True, slots=True)
class Cached:
    """One file as an earlier load left it; its size spares asking git for it again."""

    size: int
    file: _classify.File


class Cache:
    """The files of the last few loads; safe to use from several threads."""

    def __init__(self, loads: int) -> None:
        self._loads: collections.deque[dict[Key, Cached]] = collections.deque(maxlen=loads)
        self._lock = threading.Lock()

    def get(self, key: Key) -> Cached | None:
        with self._lock:
            for files in reversed(self._loads):
                found = files.get(key)
                if found is not None:
                    return found
        return None

    def size(self, path: str, blob: str) -> int | None:
        found = self.get((path, blob))
        return found.size if found is not None else None

    def keep(self, files: dict[Key, Cached]) -> None:
        """Remember one load's files, forgetting those only the oldest kept load had."""
        with self._lock:
            self._loads.append(files)

    def clear(self) -> None:
        with self._lock:
            self._loads.clear()


FILES = Cache(KEPT_LOADS)
"""The process's cache; every load of a commit reads and feeds it."""
