"""What a preview found: the two sides compared, the head's validation errors, and the diff."""

from __future__ import annotations

import dataclasses

from gitfleet.model import diagnostic
from gitfleet.preview import diff


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    """One revision of the comparison: as asked, the commit it names, and how its render was
    obtained (`rendered-branch`: read from the rendered branch; `render`: rendered here)."""

    rev: str
    commit: str
    obtained: str
    rendered: int = 0
    """Bindings rendered for this side (0 when read from the rendered branch)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Preview:
    base: Side
    head: Side
    errors: tuple[diagnostic.Diagnostic, ...]
    """The head's validation errors; when there are any, the head is not rendered."""
    changes: diff.TreeDiff | None
    """None when the head could not be rendered."""
    base_errors: tuple[diagnostic.Diagnostic, ...] = ()
    """The base's errors, when the base itself does not render (compared as empty)."""

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def summary(self) -> str:
        if self.errors:
            count = len(self.errors)
            return f"{count} validation error{'s' if count != 1 else ''}: nothing would be rendered"
        assert self.changes is not None
        return diff.summary(self.changes)
