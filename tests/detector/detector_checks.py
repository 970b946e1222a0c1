"""Reading a detection in tests: one template's decision, who won it, its binding. Importable
as `detector.detector_checks` (tests/ is on the path)."""

from __future__ import annotations

from collections.abc import Callable

from gitfleet.detector import detection

Detect = Callable[..., detection.Detection]
"""The `detect` fixture: `detect(docs, previous=None) -> Detection`."""


def decision_of(result: detection.Detection, name: str = "web") -> detection.Decision:
    matches = [d for d in result.decisions if d.key.name == name]
    assert len(matches) == 1, f"expected one decision for {name}, got {matches}"
    return matches[0]


def winner_of(result: detection.Detection, name: str = "web") -> str:
    """`Kind/name` of the policy that claims the template named `name`, or "" if none."""
    won = decision_of(result, name).winner
    return f"{won.kind}/{won.name}" if won else ""


def binding_of(result: detection.Detection, name: str = "web") -> detection.Binding:
    found = decision_of(result, name).binding
    assert found is not None, f"{name} has no binding"
    return found
