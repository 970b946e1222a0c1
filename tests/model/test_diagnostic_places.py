"""The places a diagnostic's message names besides its own (`diagnostic.said`, `moved`).

Aspects covered: a message naming another place prints as one line, that place written as
`path:line:col`; moving a diagnostic (to print its files from the current folder) moves its
origin and every place its message names, wherever they stand in it, a place whose path holds
a control character included (printed escaped), and leaves the text around them as it was,
even when that text spells the same path; a diagnostic naming no other place moves its origin
alone.
"""

from __future__ import annotations

import dataclasses

from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin


def _from_here(origin: Origin) -> Origin:
    return dataclasses.replace(origin, path=f"../fleet/{origin.path}")


def test_places_are_moved_with_the_origin() -> None:
    problem = diagnostic.error(
        Origin("b.yaml", 3, 1),
        "duplicate a.yaml:1:1 (named so): first defined at ",
        Origin("a.yaml", 1, 1),
        ", then at ",
        Origin("new\nline.yaml", 9, 2),
    )
    assert str(problem) == (
        "b.yaml:3:1: error: duplicate a.yaml:1:1 (named so): first defined at a.yaml:1:1,"
        " then at new\\nline.yaml:9:2"
    )
    moved = problem.moved(_from_here)
    assert str(moved) == (
        "../fleet/b.yaml:3:1: error: duplicate a.yaml:1:1 (named so): first defined at"
        " ../fleet/a.yaml:1:1, then at ../fleet/new\\nline.yaml:9:2"
    )
    again = moved.moved(_from_here)
    assert again.message.endswith(
        "at ../fleet/../fleet/a.yaml:1:1, then at ../fleet/../fleet/new\\nline.yaml:9:2"
    )


def test_a_message_naming_no_place_moves_its_origin_alone() -> None:
    problem = diagnostic.warning(Origin("a.yaml", 2, 5), "first defined at a.yaml:1:1")
    assert problem.moved(_from_here) == diagnostic.warning(
        Origin("../fleet/a.yaml", 2, 5), "first defined at a.yaml:1:1"
    )
