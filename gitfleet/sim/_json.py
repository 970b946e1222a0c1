"""JSON values as the simulated API server keeps them: plain dicts, lists and scalars.

Every object crosses the store boundary as a private copy, so a caller mutating what it got
back can never change what another request or the controller sees. `dig` and `ensure` are the
defaults table's walks (`gitfleet.kubedefaults`), which the server's defaulting runs too.
"""

from __future__ import annotations

from typing import Any

from gitfleet.kubedefaults import dig as dig
from gitfleet.kubedefaults import ensure as ensure

Obj = dict[str, Any]
"""A Kubernetes object (or any JSON object) as decoded from the wire."""


def clone(value: Any) -> Any:
    """A deep copy of a JSON value (several times faster than `copy.deepcopy` for this shape)."""
    if isinstance(value, dict):
        return {key: clone(item) for key, item in value.items()}
    if isinstance(value, list):
        return [clone(item) for item in value]
    return value
