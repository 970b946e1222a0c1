"""Diagnostics: the problems and notes stages report instead of raising, so a user sees all of
them at once (stopping at the first hides the rest)."""

from __future__ import annotations

import dataclasses
import enum

from gitfleet.model.origin import Origin


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclasses.dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at one place; sorts by file, line, column, then message."""

    origin: Origin
    severity: Severity
    message: str

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        o = self.origin
        return (o.path, o.line, o.col, self.severity, self.message)

    def __str__(self) -> str:
        return self.origin.says(f"{self.severity}: {self.message}")

    def to_json(self) -> dict[str, object]:
        o = self.origin
        return {
            "path": o.path,
            "line": o.line,
            "col": o.col,
            "severity": str(self.severity),
            "message": self.message,
        }


def error(origin: Origin, message: str) -> Diagnostic:
    return Diagnostic(origin, Severity.ERROR, message)


def warning(origin: Origin, message: str) -> Diagnostic:
    return Diagnostic(origin, Severity.WARNING, message)


def sorted_diagnostics(items: list[Diagnostic]) -> list[Diagnostic]:
    return sorted(items, key=lambda d: d.sort_key)
