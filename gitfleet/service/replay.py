"""Which webhook deliveries were already accepted lately, so that a replay is refused.

A delivery is known by the id its host gave the event and by the digest of its body. The body
counts because the signatures cover the body only: whoever captured a signed request can send
it again under a new id, but not with another body. Only deliveries that proved genuine are
remembered, so nobody without the secret can take an id or a body away from the host.
"""

from __future__ import annotations

import collections
import hashlib


def keys_of(provider: str, delivery: str | None, body: bytes) -> tuple[str, ...]:
    """What identifies one delivery: its body, and the id its host gave it (when given)."""
    found = [f"body:{hashlib.sha256(body).hexdigest()}"]
    if delivery is not None:
        found.append(f"delivery:{provider}:{delivery}")
    return tuple(found)


class Window:
    """The keys of deliveries accepted in the last `seconds`, at most `capacity` of them (the
    oldest are forgotten first)."""

    def __init__(self, seconds: float, capacity: int) -> None:
        self.seconds = seconds
        self.capacity = capacity
        self._seen: collections.OrderedDict[str, float] = collections.OrderedDict()

    def admit(self, keys: tuple[str, ...], now: float) -> bool:
        """True, and the keys are remembered, unless one of them was admitted within the
        window before `now`."""
        while self._seen and next(iter(self._seen.values())) <= now - self.seconds:
            self._seen.popitem(last=False)
        if any(key in self._seen for key in keys):
            return False
        for key in keys:
            self._seen[key] = now
        while len(self._seen) > self.capacity:
            self._seen.popitem(last=False)
        return True
