"""Watch a local repository's source branch ref, so a push is picked up at once.

A push (or commit) moves `refs/heads/<branch>` by writing `<branch>.lock` and renaming it over
the ref file, and `git pack-refs` deletes the loose file; either shows up as a change of that
path, which wakes the reconciler. Only that path counts: the reconciler's own writes to the
rendered branch and status refs must not wake it again. Changes that never touch a loose ref
file are left to polling.

The watch runs on a daemon thread and ends when the wakeup's stop event is set. `start` returns
once the watch is in place (watchfiles reports its first idle timeout), and the thread then
pokes once, so a push made while the watch was being set up is not missed either.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import watchfiles

from gitfleet.service import wakeup

DEBOUNCE_MS = 200
STEP_MS = 20
"""Yield once the refs folder has been quiet this long: a push is reported within tens of
milliseconds."""
IDLE_MS = 250
"""How often the watch thread wakes when nothing changes (to see the stop event)."""
START_TIMEOUT = 10.0


class RefWatcher:
    """Pokes `wake` (reason `watch`) whenever the file of `ref` changes in `git_dir`."""

    def __init__(self, git_dir: Path, ref: str, wake: wakeup.Wakeup) -> None:
        self._refs = Path(os.path.realpath(git_dir)) / "refs"
        self._target = os.path.realpath(Path(git_dir) / ref)
        self._wake = wake
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gitfleet-watch", daemon=True)

    def start(self) -> None:
        """Start watching; returns when the watch is in place (or after START_TIMEOUT)."""
        self._thread.start()
        self._ready.wait(START_TIMEOUT)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _wanted(self, change: watchfiles.Change, path: str) -> bool:
        return os.path.realpath(path) == self._target

    def _run(self) -> None:
        for changes in watchfiles.watch(
            self._refs,
            watch_filter=self._wanted,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self._wake.stop_event,
            rust_timeout=IDLE_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if changes or not self._ready.is_set():
                self._wake.poke("watch")
            self._ready.set()
