"""Liveness and readiness of a long-running command, as its probes answer them.

Alive: every loop that runs (the reconciler's, the agents' and each cluster worker's, the
lease's) has come round when it said it would. Each pass of a loop calls `beat(loop,
within)` with the time until its next pass (its wait, then the work, whose allowance is
`allowance(interval)`); a loop stuck in a request or a render misses that deadline, and
`/healthz` fails, so Kubernetes restarts the process. A loop that ends on purpose calls `end`.

Ready: the loops have started (`STARTING` is done: a process whose loops have not yet said
what they wait for is not ready) and nothing is `pending` any more. The reconciler is pending
until its first look is done; an agent until each of its clusters' first sync is; a standby
reconciler until the API server answered its lease loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

LIVENESS_INTERVALS = 3
"""Intervals a loop's work may take before it is deemed stuck."""
LIVENESS_FLOOR = 60.0
"""The least time a loop's work may take before it is deemed stuck, in seconds."""
STARTING = "starting"
"""Pending from the start; done by a loop once it has said what else it waits for."""


def allowance(interval: float) -> float:
    """Seconds one pass's work may take, for a loop that runs every `interval` seconds."""
    return max(LIVENESS_INTERVALS * interval, LIVENESS_FLOOR)


class Health:
    """Deadlines of the loops and reasons not to be ready yet; used from any thread."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._deadlines: dict[str, float] = {}
        self._pending: dict[str, str] = {STARTING: "the loops have not started yet"}

    def beat(self, loop: str, within: float) -> None:
        """`loop` is alive and will come round again within `within` seconds."""
        with self._lock:
            self._deadlines[loop] = self.clock() + within

    def end(self, loop: str) -> None:
        """`loop` stopped on purpose: it is no longer waited for, nor readiness on it."""
        with self._lock:
            self._deadlines.pop(loop, None)
            self._pending.pop(loop, None)

    def pending(self, what: str, reason: str) -> None:
        """Not ready until `done(what)`; `reason` says why (the readiness probe's answer)."""
        with self._lock:
            self._pending[what] = reason

    def done(self, what: str) -> None:
        with self._lock:
            self._pending.pop(what, None)

    def liveness(self) -> str:
        """Why the process is not alive ("" when it is): the loops past their deadline."""
        now = self.clock()
        with self._lock:
            overdue = sorted((name, now - at) for name, at in self._deadlines.items() if now > at)
        return "; ".join(f"{name}: {seconds:.0f}s overdue" for name, seconds in overdue)

    def readiness(self) -> str:
        """Why the process is not ready ("" when it is)."""
        with self._lock:
            return "; ".join(f"{what}: {why}" for what, why in sorted(self._pending.items()))
