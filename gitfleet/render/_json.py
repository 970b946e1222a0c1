"""Manifests as JSON values, the form in which Karmada stores and ships them.

Karmada keeps templates in its API server and ships Works as JSON, and reads them back as
Kubernetes' unstructured objects: a number whose JSON text is an integer becomes an int64.
Go writes a float64 that holds an integer without a fraction (`1.0` is written `1`), so after
one round trip every integral float in int64 range is an integer on the member cluster, while
`1.5` stays a float. The render writes numbers in that form, so a manifest in the rendered
branch is what Karmada would have put on the member cluster (`replicas: 1.0` in a template
arrives as `replicas: 1`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from gitfleet.model.template import RawObject

_INT64 = 1 << 63


def _number(value: float) -> int | float:
    if value.is_integer() and -_INT64 <= value < _INT64:
        return int(value)
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return _number(value)
    return value


def normalized(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of `doc` with numbers as a JSON round trip through Go leaves them."""
    result: dict[str, Any] = _plain(doc)
    return result


def with_field(doc: RawObject, keys: Sequence[str], value: Any) -> RawObject:
    """A copy of `doc` with the field at `keys` set (the mappings on the way are copied, the
    rest is shared)."""
    top: dict[str, Any] = dict(doc)
    node = top
    for key in keys[:-1]:
        child = node.get(key)
        node[key] = dict(child) if isinstance(child, dict) else {}
        node = node[key]
    node[keys[-1]] = value
    return cast(RawObject, top)
