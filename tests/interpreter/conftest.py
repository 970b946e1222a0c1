"""Interpreter fixtures: the chain with no customizations, and the native layer on its own."""

from __future__ import annotations

import pytest

from gitfleet import interpreter
from gitfleet.interpreter import native


@pytest.fixture(name="chain", scope="session")
def chain_fixture() -> interpreter.Interpreter:
    """The interpreter chain with native rules only."""
    return interpreter.Interpreter()


@pytest.fixture(name="layer", scope="session")
def layer_fixture() -> native.NativeLayer:
    """The native layer alone, to see what it handles."""
    return native.NativeLayer()
