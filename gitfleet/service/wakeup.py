"""Where the triggers meet the engine: pokes collapse, stops are heard at once.

Triggers (the polling timer, the ref watcher, the webhook server) only say "look again"; they
never say what to render. The engine then reads the source branch itself and renders its
newest commit, so any burst of pushes that arrives while a render runs becomes one more render,
of the last commit, not one render per push.
"""

from __future__ import annotations

import threading


class Wakeup:
    """Pending reasons to look at the source again, and the stop flag."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._reasons: list[str] = []
        self.stop_event = threading.Event()
        """Set once the service must stop; also handed to the watcher, which polls it."""

    def poke(self, reason: str) -> None:
        """Ask for a look at the source (from any thread)."""
        with self._cond:
            self._reasons.append(reason)
            self._cond.notify_all()

    def stop(self) -> None:
        """Ask the service to stop (from any thread; not from a signal handler, as it takes the
        lock that the interrupted thread may hold)."""
        self.stop_event.set()
        with self._cond:
            self._cond.notify_all()

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()

    def wait(self, timeout: float | None) -> tuple[str, ...]:
        """Block until a poke, a stop, or `timeout` seconds; returns (and clears) every reason
        gathered so far, in order, without duplicates; empty on a timeout or a stop."""
        with self._cond:
            if not self._reasons and not self.stopped:
                self._cond.wait(timeout)
            reasons = tuple(dict.fromkeys(self._reasons))
            self._reasons.clear()
            return () if self.stopped else reasons

    def sleep(self, seconds: float) -> bool:
        """Wait `seconds` whatever is poked (pokes stay pending); False when stopped meanwhile.

        Used between retries, so that a burst of webhook calls cannot shorten a backoff into
        a busy loop."""
        return not self.stop_event.wait(seconds)
