"""Diagnostics about one object, each located at a field and naming the object and the field:
`p.yaml:12:7: error: PropagationPolicy shop/web: spec.placement.spreadConstraints.0: ...`."""

from __future__ import annotations

from collections.abc import Sequence

from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin, PathKey

Keys = Sequence[PathKey]


def dotted(keys: Keys) -> str:
    """A field path as messages print it (the model decoder's style: `spec.items.0.name`)."""
    return ".".join(str(k) for k in keys)


class Report:
    """Collects the diagnostics of one object."""

    def __init__(self, origin: Origin, subject: str) -> None:
        self.origin = origin
        self.subject = subject
        self.diagnostics: list[diagnostic.Diagnostic] = []

    def _prefix(self, keys: Keys) -> str:
        return f"{self.subject}: {dotted(keys)}: " if keys else f"{self.subject}: "

    def error(self, keys: Keys, *message: diagnostic.Part) -> None:
        """An error at the field `keys`; the message may name other places (`diagnostic.said`)."""
        found = diagnostic.error(self.origin.at(*keys), self._prefix(keys), *message)
        self.diagnostics.append(found)

    def warning(self, keys: Keys, *message: diagnostic.Part) -> None:
        found = diagnostic.warning(self.origin.at(*keys), self._prefix(keys), *message)
        self.diagnostics.append(found)
