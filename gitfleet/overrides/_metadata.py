"""labelsOverrider and annotationsOverrider (Karmada:
pkg/util/overridemanager/labelannotationoverrider.go).

One operation per key, with the overrider's operator. Karmada reads the manifest's map as a
map of strings (apimachinery's `NestedStringMap`), which a map holding any other value (a
number, a `null` written by a plaintext overrider) is not: `remove` and `replace` then skip
every key, as they skip keys the map does not have; `add` first sets the map to an empty one
(dropping what it held) whenever it is not a map of strings, absent included, and adds nothing
when `metadata` itself is not an object. The value is ignored for `remove`.

Karmada escapes only a key's `/` (as `~1`) into the operation's path, not its `~`, as neither
a label nor an annotation key may hold one. Its webhook refuses such keys in overrideRules but
does not check the deprecated spec-level overriders, where a key holding `~0` or `~1` therefore
reaches its json-patch as written, which reads it as `~` or `/`: `example.com~1tier` adds the
label `example.com/tier` (`labelsyntax.overrider_key`). The path generated here names that
same key, as a pointer that escapes it fully.
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import labelsyntax, policy
from gitfleet.overrides import _patch


def _string_map(value: Any) -> dict[str, str] | None:
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return value
    return None


def ops(
    manifest: dict[str, Any], overrider: policy.LabelAnnotationOverrider, field: str
) -> list[_patch.Op]:
    """The patch one labels (`field="labels"`) or annotations overrider makes."""
    values = overrider.value
    metadata = manifest.get("metadata")
    existing = _string_map(metadata.get(field)) if isinstance(metadata, dict) else None
    result = []
    if overrider.operator is policy.OverriderOperator.ADD:
        if values and existing is None:
            if "metadata" not in manifest:
                result.append(_patch.Op("add", "/metadata", {field: {}}))
            elif isinstance(metadata, dict):
                result.append(_patch.Op("add", f"/metadata/{field}", {}))
            else:
                return []
    else:
        values = {key: value for key, value in values.items() if key in (existing or {})}
    operator = str(overrider.operator)
    for key in sorted(values):
        token = _patch.escape(labelsyntax.overrider_key(key))
        result.append(_patch.Op(operator, f"/metadata/{field}/{token}", values[key]))
    return result
