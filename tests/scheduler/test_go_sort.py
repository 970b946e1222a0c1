"""Go's sort.Sort as Karmada's TargetClustersList sort uses it (larger weight first).

Aspects covered:
- the result is ordered and a permutation of the input;
- up to 12 elements it is an insertion sort, so equal weights keep their order;
- above 12, already ordered input (all equal, or descending) is left as it is, and the same
  input always gives the same output.
"""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from gitfleet.scheduler import _gosort

Item = tuple[str, int]


def _by_weight_desc(items: list[Item]) -> list[Item]:
    out = list(items)
    _gosort.go_sort(out, lambda a, b: a[1] > b[1])
    return out


weights = st.lists(st.integers(min_value=0, max_value=6), max_size=80)


@given(weights)
def test_ordered_permutation(ws: list[int]) -> None:
    items = [(f"c{i:03d}", w) for i, w in enumerate(ws)]
    out = _by_weight_desc(items)
    assert sorted(out) == sorted(items)
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(out))


@given(st.lists(st.integers(min_value=0, max_value=3), max_size=12))
def test_stable_up_to_twelve(ws: list[int]) -> None:
    items = [(f"c{i:02d}", w) for i, w in enumerate(ws)]
    assert _by_weight_desc(items) == sorted(items, key=lambda x: -x[1])


@given(st.integers(min_value=13, max_value=200), st.integers(min_value=0, max_value=5))
def test_ordered_input_left_alone(n: int, w: int) -> None:
    equal = [(f"c{i:03d}", w) for i in range(n)]
    assert _by_weight_desc(equal) == equal
    descending = [(f"d{i:03d}", n - i) for i in range(n)]
    assert _by_weight_desc(descending) == descending


@given(weights)
def test_deterministic(ws: list[int]) -> None:
    items = [(f"c{i:03d}", w) for i, w in enumerate(ws)]
    assert _by_weight_desc(items) == _by_weight_desc(items)
