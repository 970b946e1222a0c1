"""fieldOverrider on a field holding a hostile JSON or YAML document (a ConfigMap value is the
template author's text): refused at the overrider's `fieldPath`, within seconds, naming the
limit, never a RecursionError or an expansion without end.

Aspects covered: each YAML text of `hostile_yaml.CASES` (merging itself, merge-key and alias
billion laughs, a list holding itself, ...), and 100,000 levels of JSON brackets.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from hostile_yaml import CASES, TOO_DEEP

from gitfleet.errors import OverrideError


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        *(pytest.param("yaml", c.values[0], c.values[2], id=c.id) for c in CASES),
        pytest.param("json", "[" * 100_000 + "]" * 100_000, TOO_DEEP, id="deep json"),
    ],
)
def test_hostile_document_in_the_field_is_refused(
    kind: str, text: str, message: str, apply_block: Any
) -> None:
    manifest = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"},
        "data": {"f": text},
    }
    overriders = {
        "fieldOverrider": [
            {"fieldPath": "/data/f", kind: [{"subPath": "/a", "operator": "remove"}]}
        ]
    }
    started = time.monotonic()
    with pytest.raises(OverrideError) as caught:
        apply_block(manifest, overriders)
    assert time.monotonic() - started < 5
    assert caught.value.origin.keys[-3:] == ("fieldOverrider", 0, "fieldPath")
    assert f"the field does not hold {kind.upper()}" in caught.value.message
    assert message in caught.value.message
