"""Choosing regions for a region spread constraint: a depth-first search over groups, then a
ranking of the paths found (Karmada: pkg/scheduler/core/spreadconstraint/select_groups.go).

The search is Karmada's, quirks included, because they decide which regions are chosen:
- groups are ordered by (value asc, weight desc, name asc) and a path only grows with groups
  after its last one in that order;
- a path is recorded, and not extended further, as soon as its value sum reaches the target
  while its length is within [min, max], so a superset of a recorded path is never a candidate;
- when there are exactly `min` groups the search follows a single branch.
Recorded paths are numbered in discovery order and each one's groups re-ordered by weight
desc, name asc. The best path has the largest weight sum, then value sum, then the smallest
number; a recorded path that is a strict prefix of the choice then replaces it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence


@dataclasses.dataclass(frozen=True, slots=True)
class Group:
    """A region as the search sees it: value = its cluster count, weight = its score."""

    name: str
    value: int
    weight: int


@dataclasses.dataclass(frozen=True, slots=True)
class _Path:
    number: int
    groups: tuple[Group, ...]
    weight: int
    value: int

    def has_prefix(self, shorter: _Path) -> bool:
        if len(shorter.groups) >= len(self.groups):
            return False
        return all(a.name == b.name for a, b in zip(self.groups, shorter.groups, strict=False))


def select_groups(groups: Sequence[Group], minimum: int, maximum: int, target: int) -> list[Group]:
    """The best groups, in weight desc / name asc order; empty when no path is feasible."""
    paths = _feasible_paths(groups, minimum, maximum, target)
    if not paths:
        return []
    return list(_prioritize(paths).groups)


def _feasible_paths(
    groups: Sequence[Group], minimum: int, maximum: int, target: int
) -> list[_Path]:
    ordered = sorted(groups, key=lambda g: (g.value, -g.weight, g.name))
    paths: list[_Path] = []
    current: list[Group] = []

    def record() -> None:
        members = sorted(current, key=lambda g: (-g.weight, g.name))
        paths.append(
            _Path(
                number=len(paths) + 1,
                groups=tuple(members),
                weight=sum(g.weight for g in members),
                value=sum(g.value for g in members),
            )
        )

    def search(total: int, begin: int) -> None:
        if total >= target and minimum <= len(current) <= maximum:
            record()
            return
        if len(current) >= maximum:
            return
        for i in range(begin, len(ordered)):
            total += ordered[i].value
            current.append(ordered[i])
            search(total, i + 1)
            if len(ordered) == minimum:
                break
            total -= ordered[i].value
            current.pop()

    search(0, 0)
    return paths


def _prioritize(paths: list[_Path]) -> _Path:
    if len(paths) == 1:
        return paths[0]
    ranked = sorted(paths, key=lambda p: (-p.weight, -p.value, p.number))
    best = ranked[0]
    for path in ranked[1:]:
        if best.has_prefix(path):
            best = path
    return best
