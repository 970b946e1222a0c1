"""Detector fixtures: the real interpreter, and `detect` run on plain documents with an optional
previous render (its bindings, as the next render reads them back)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from builders import Doc, object_set, previous_map
from detector.detector_checks import Detect

from gitfleet import detector, interpreter
from gitfleet.detector import detection


@pytest.fixture(name="interp", scope="session")
def interp_fixture() -> interpreter.Interpreter:
    return interpreter.Interpreter()


@pytest.fixture(name="detect")
def detect_fixture(interp: interpreter.Interpreter) -> Detect:
    """`detect(docs, previous=None, seen=())`: the detector on these documents, after a
    previous render (a detection: its bindings and what it saw; or bindings, with `seen`)."""

    def run(
        docs: Iterable[Doc],
        previous: detection.Detection | Iterable[detection.Binding] | None = None,
        seen: Iterable[detection.Seen] = (),
    ) -> detection.Detection:
        if isinstance(previous, detection.Detection):
            previous, seen = previous.bindings, previous.seen
        return detector.detect(object_set(docs), interp, previous_map(previous), seen=seen)

    return run
