"""The cycle collector around a render.

Aspects covered:
- `paused` turns the collector off for its block and back on after it, also when the block
  raises;
- it leaves a collector that was already off as it was, and nested blocks restore the
  outer block's state only when the outer block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gitfleet import collector


@pytest.fixture(autouse=True)
def _restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def test_paused_for_the_block_and_on_again_after() -> None:
    gc.enable()
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_on_again_after_a_block_that_raises() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector.paused():
        raise RuntimeError("render failed")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    with collector.paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_nested_blocks_restore_when_the_outer_one_ends() -> None:
    gc.enable()
    with collector.paused():
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
