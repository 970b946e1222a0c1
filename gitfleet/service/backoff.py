"""Exponential backoff for failures that time may fix (a remote that cannot be reached).

The delay doubles from `base` up to `cap` and resets after a success. No jitter: reconcilers
that retry together do no harm, since every ref update is a compare-and-swap, and fixed delays
keep the log readable ("retry in 4s").
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(slots=True)
class Backoff:
    base: float = 1.0
    cap: float = 60.0
    failures: int = 0

    def next_delay(self) -> float:
        """Record one more failure; the seconds to wait before the next attempt."""
        delay = min(self.cap, self.base * 2.0 ** min(self.failures, 32))
        self.failures += 1
        return delay

    def reset(self) -> None:
        self.failures = 0
