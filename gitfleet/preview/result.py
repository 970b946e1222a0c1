"""What a preview found: the two sides compared, the head's errors, what the head's render
refuses, and the diff."""

from __future__ import annotations

import dataclasses

from gitfleet import render as rendering
from gitfleet.model import diagnostic
from gitfleet.preview import diff, inputs


@dataclasses.dataclass(frozen=True, slots=True)
class Side:
    """One revision of the comparison: as asked, the commit it names, and how its render was
    obtained (`rendered-branch`: read from the rendered branch; `render`: rendered here;
    `none`: not rendered, as the head's tree could not be read)."""

    rev: str
    commit: str
    obtained: str
    rendered: int = 0
    """Bindings rendered for this side (0 when read from the rendered branch)."""


def _same(refusal: rendering.Refusal) -> tuple[str, str, str]:
    """What makes two refusals the same one, wherever its line moved."""
    return (refusal.resource, refusal.cluster, refusal.message)


@dataclasses.dataclass(frozen=True, slots=True)
class Wave:
    """One wave of the head's rollout: its clusters, and those whose folder the change
    touches (released to them in this wave's turn)."""

    name: str
    clusters: tuple[str, ...]
    changed: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Preview:
    base: Side
    head: Side
    errors: tuple[diagnostic.Diagnostic, ...]
    """The head's errors; when there are any, the head is not rendered."""
    changes: diff.TreeDiff | None
    """None when the head could not be rendered."""
    base_errors: tuple[diagnostic.Diagnostic, ...] = ()
    """The base's errors, when the base itself does not render (compared as empty)."""
    refusals: tuple[rendering.Refusal, ...] = ()
    """The manifests the head's render refuses (each cluster keeps what it had)."""
    base_refusals: tuple[rendering.Refusal, ...] = ()
    """The manifests the base's render refuses."""
    waves: tuple[Wave, ...] = ()
    """The head's rollout plan (empty without a `rollout` section)."""
    beyond: tuple[inputs.InputChange, ...] = ()
    """What the head changes that no rendered file holds (Clusters, interpreter scripts,
    ClusterTaintPolicies, FederatedHPAs, gitfleet.yaml's settings), and its commits whose
    message lifts the prune guard or skips the rollout."""

    @property
    def ok(self) -> bool:
        """Whether merging the head renders everything it asks for."""
        return not self.errors and not self.refusals

    def refused(self) -> list[tuple[rendering.Refusal, bool]]:
        """Each refusal of the head, and whether the base refuses it too (then the change did
        not bring it, but merging leaves it)."""
        known = {_same(r) for r in self.base_refusals}
        return [(r, _same(r) in known) for r in self.refusals]

    @property
    def summary(self) -> str:
        if self.errors:
            count = len(self.errors)
            return f"{count} validation error{'s' if count != 1 else ''}: nothing would be rendered"
        assert self.changes is not None
        changes = diff.summary(self.changes)
        if self.beyond:
            count = len(self.beyond)
            beyond = f"{count} change{'s' if count != 1 else ''} beyond the manifests"
            changes = (
                f"no manifest change, {beyond}" if self.changes.empty else (f"{changes}, {beyond}")
            )
        if not self.refusals:
            return changes
        count = len(self.refusals)
        return f"{count} manifest{'s' if count != 1 else ''} refused, {changes}"
