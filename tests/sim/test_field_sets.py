"""Field sets and quantities, the two value types the simulator computes with.

Covers: an object's field set (leaves, keyed list items with their keys, set members,
atomic lists); fieldsV1 encoding marks members that have children with "." and decodes
back to the same set (property); conflict paths print as Kubernetes prints them;
quantities parse with every suffix and split over nodes to exactly the total.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitfleet.sim import _fields, _quantity


def test_field_set_of_an_object() -> None:
    obj = {
        "metadata": {"labels": {"app": "web"}, "finalizers": ["a"]},
        "spec": {"containers": [{"name": "web", "image": "nginx"}], "args": ["x", "y"]},
    }
    assert _fields.of(obj, builtin=True) == {
        ("f:metadata", "f:labels", "f:app"),
        ("f:metadata", "f:finalizers", 'v:"a"'),
        ("f:spec", "f:containers", 'k:{"name":"web"}'),
        ("f:spec", "f:containers", 'k:{"name":"web"}', "f:name"),
        ("f:spec", "f:containers", 'k:{"name":"web"}', "f:image"),
        ("f:spec", "f:args"),
    }


def test_custom_resources_have_atomic_lists() -> None:
    obj = {"spec": {"containers": [{"name": "web"}]}}
    assert _fields.of(obj, builtin=False) == {("f:spec", "f:containers")}


def test_fields_v1_marks_members_with_children() -> None:
    item = ("f:spec", 'k:{"name":"a"}')
    encoded = _fields.to_fields_v1({item, (*item, "f:name")})
    assert encoded == {"f:spec": {'k:{"name":"a"}': {".": {}, "f:name": {}}}}


_ELEMENT = st.sampled_from(
    ["f:a", "f:b", "f:spec", 'k:{"name":"x"}', 'k:{"name":"y"}', 'v:"p"', 'v:"q"']
)


@given(st.sets(st.lists(_ELEMENT, min_size=1, max_size=4).map(tuple), max_size=12))
def test_fields_v1_round_trip(paths: set[tuple[str, ...]]) -> None:
    assert _fields.from_fields_v1(_fields.to_fields_v1(paths)) == paths


@pytest.mark.parametrize(
    ("path", "text"),
    [
        pytest.param(("f:spec", "f:replicas"), ".spec.replicas", id="fields"),
        pytest.param(
            ("f:spec", "f:containers", 'k:{"name":"web"}', "f:image"),
            '.spec.containers[name="web"].image',
            id="keyed item",
        ),
        pytest.param(
            ("f:metadata", "f:finalizers", 'v:"a"'), '.metadata.finalizers[="a"]', id="set member"
        ),
    ],
)
def test_paths_print_like_kubernetes(path: tuple[str, ...], text: str) -> None:
    assert _fields.describe(path) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("500m", Fraction(1, 2), id="milli"),
        pytest.param("2", Fraction(2), id="plain"),
        pytest.param("1.5", Fraction(3, 2), id="decimal"),
        pytest.param("16Gi", Fraction(16 * 2**30), id="binary"),
        pytest.param("1k", Fraction(1000), id="decimal suffix"),
        pytest.param("1e3", Fraction(1000), id="exponent"),
    ],
)
def test_quantities_parse(text: str, value: Fraction) -> None:
    assert _quantity.parse(text) == value


def test_bad_quantity_is_refused() -> None:
    with pytest.raises(ValueError, match="quantities"):
        _quantity.parse("12 cores")


@given(st.integers(1, 10_000), st.integers(1, 12))
def test_split_adds_up_to_the_total(millicores: int, parts: int) -> None:
    shares = _quantity.split({"cpu": f"{millicores}m"}, parts)
    assert sum(_quantity.parse(share["cpu"]) for share in shares) == Fraction(millicores, 1000)
