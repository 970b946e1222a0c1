"""Reading a detection in tests: the previous render's bindings as a map, one template's
decision, and who won it. Importable as `detector_checks` from the detector and pipeline
tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gitfleet.detector import detection
from gitfleet.model.template import ResourceKey

Previous = detection.Detection | Iterable[detection.Binding] | None
Detect = Callable[..., detection.Detection]
"""The `detect` fixture: `detect(docs, previous=None) -> Detection`."""


def previous_map(previous: Previous) -> dict[ResourceKey, detection.Binding]:
    """Bindings keyed by the template they are for, as a render reads them back."""
    if isinstance(previous, detection.Detection):
        previous = previous.bindings
    result = {}
    for b in previous or ():
        r = b.spec.resource
        result[ResourceKey(r.api_version, r.kind, r.namespace, r.name)] = b
    return result


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
