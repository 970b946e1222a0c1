"""Diagnostics: the problems and notes stages report instead of raising, so a user sees all of
them at once (stopping at the first hides the rest)."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable

from gitfleet.model.origin import Origin


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


Part = str | Origin
"""A piece of a message: text, or a place in the source the message names (`said`)."""
Place = tuple[int, Origin]
"""A place a message names, and where its text starts in the message."""


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at one place; sorts by file, line, column, then message."""

    origin: Origin
    severity: Severity
    message: str
    places: tuple[Place, ...] = dataclasses.field(default=(), compare=False)
    """The other places of the source `message` names ("first defined at a.yaml:3:1"), so
    that a command prints them as it prints `origin` (`moved`)."""

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        o = self.origin
        return (o.path, o.line, o.col, self.severity, self.message)

    def __str__(self) -> str:
        return self.origin.says(f"{self.severity}: {self.message}")

    def moved(self, move: Callable[[Origin], Origin]) -> Diagnostic:
        """This diagnostic with `move` applied to its origin and to every place its message
        names (each file as seen from the current folder, say)."""
        parts: list[Part] = []
        at = 0
        for start, place in self.places:
            parts += [self.message[at:start], move(place)]
            at = start + len(str(place))
        parts.append(self.message[at:])
        return Diagnostic(move(self.origin), self.severity, *said(*parts))

    def to_json(self) -> dict[str, object]:
        o = self.origin
        return {
            "path": o.path,
            "line": o.line,
            "col": o.col,
            "severity": str(self.severity),
            "message": self.message,
        }


def said(*parts: Part) -> tuple[str, tuple[Place, ...]]:
    """The message the parts make, each place written as `path:line:col`, and where each is."""
    text = ""
    places: list[Place] = []
    for part in parts:
        if isinstance(part, Origin):
            places.append((len(text), part))
        text += str(part)
    return text, tuple(places)


def error(origin: Origin, *message: Part) -> Diagnostic:
    """An error at `origin`; the message may name other places of the source (`said`)."""
    return Diagnostic(origin, Severity.ERROR, *said(*message))


def warning(origin: Origin, *message: Part) -> Diagnostic:
    return Diagnostic(origin, Severity.WARNING, *said(*message))


def sorted_diagnostics(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(items, key=lambda d: d.sort_key)
