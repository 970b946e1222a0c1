"""labelsOverrider and annotationsOverrider (Karmada:
pkg/util/overridemanager/labelannotationoverrider.go).

One operation per key, with the overrider's operator: `remove` and `replace` skip keys the
manifest does not have; `add` sets the key, creating the map first when the manifest has none.
The value is ignored for `remove`.
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import policy
from gitfleet.overrides import _patch


def ops(
    manifest: dict[str, Any], overrider: policy.LabelAnnotationOverrider, field: str
) -> list[_patch.Op]:
    """The patch one labels (`field="labels"`) or annotations overrider makes."""
    values = overrider.value or {}
    metadata = manifest.get("metadata")
    existing = metadata.get(field) if isinstance(metadata, dict) else None
    present = existing if isinstance(existing, dict) else {}
    result = []
    if overrider.operator is policy.OverriderOperator.ADD:
        if values and not isinstance(existing, dict):
            if isinstance(metadata, dict):
                result.append(_patch.Op("add", f"/metadata/{field}", {}))
            else:
                result.append(_patch.Op("add", "/metadata", {field: {}}))
    else:
        values = {key: value for key, value in values.items() if key in present}
    operator = str(overrider.operator)
    for key in sorted(values):
        result.append(_patch.Op(operator, f"/metadata/{field}/{_patch.escape(key)}", values[key]))
    return result
