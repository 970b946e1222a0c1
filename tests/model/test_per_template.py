"""What `PerTemplate` remembers: one value per template object while that object lives.

Aspects covered: a template object's value is made once; an equal template read again is a new
object and gets its own value; a template's value is let go with the template, so a
long-running reconciler holds values only for the templates its last loads kept.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

from gitfleet.model.origin import Origin
from gitfleet.model.template import PerTemplate, ResourceTemplate


class Value:
    """A value a weak reference can follow."""

    def __init__(self, name: str) -> None:
        self.name = name


def template(name: str) -> ResourceTemplate:
    body: Any = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    return ResourceTemplate(body, Origin("source.yaml", 1, 1))


def counting() -> tuple[PerTemplate[Value], list[str]]:
    made: list[str] = []

    def make(t: ResourceTemplate) -> Value:
        made.append(t.name)
        return Value(t.name)

    return PerTemplate(make), made


def test_a_template_objects_value_is_made_once() -> None:
    memo, made = counting()
    kept = template("a")
    first = memo(kept)
    assert memo(kept) is first
    assert made == ["a"]


def test_an_equal_template_read_again_gets_its_own_value() -> None:
    memo, made = counting()
    first, again = template("a"), template("a")
    assert memo(first) is not memo(again)
    assert made == ["a", "a"]


def test_a_value_is_let_go_with_its_template() -> None:
    memo, made = counting()
    kept = template("kept")
    values = [weakref.ref(memo(template(f"gone-{i}"))) for i in range(100)]
    held = memo(kept)
    gc.collect()
    assert all(value() is None for value in values)
    assert memo(kept) is held
    assert made == [*(f"gone-{i}" for i in range(100)), "kept"]
