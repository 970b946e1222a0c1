"""fieldOverrider: patch a JSON or YAML document held in a string field, such as a ConfigMap
key (Karmada: pkg/util/overridemanager/overridemanager.go applyFieldOverriders).

The value at `fieldPath` (a JSON pointer, read as go-openapi/jsonpointer reads it) must be a
string. With `yaml` operations it is read as YAML, patched, and written back as Karmada's
YAML (`_goyaml`); else with `json` operations it is patched as JSON and written back compact,
keeping its key order and the text of untouched numbers (`_gojson`); an overrider with neither
empties the field, as Karmada does. The result replaces the string in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gitfleet.model import policy, yamllimits
from gitfleet.overrides import _gojson, _goyaml, _patch


def _patched(document: Any, operations: Sequence[policy.PatchOperation], kind: str) -> Any:
    ops = [
        _patch.Op(str(o.operator), o.sub_path, _gojson.as_stored(_patch.plain(o.value)))
        for o in operations
    ]
    try:
        return _patch.apply(document, ops)
    except _patch.Failure as failure:
        raise _patch.Failure((kind, failure.keys[0], "subPath"), failure.message) from failure


def _parse(text: str, parse: Callable[[str], Any], kind: str) -> Any:
    too_deep = yamllimits.too_deep(text.encode())
    try:
        if too_deep is not None:
            raise ValueError(too_deep.message)
        return parse(text)
    except ValueError as error:
        raise _patch.Failure(("fieldPath",), f"the field does not hold {kind}: {error}") from error


def _rewrite(text: str, overrider: policy.FieldOverrider) -> str:
    if overrider.yaml:
        document = _parse(text, _goyaml.load, "YAML")
        return _written(_patched(document, overrider.yaml, "yaml"), _goyaml.dump)
    if overrider.json:
        if text == "":  # json-patch returns an empty document untouched
            return text
        document = _parse(text, _gojson.loads_preserving, "JSON")
        patched = _patched(document, overrider.json, "json")
        return _written(patched, lambda doc: _gojson.dumps(doc, sort_keys=False))
    return ""


def _written(document: Any, write: Callable[[Any], str]) -> str:
    try:
        return write(document)
    except ValueError as error:
        raise _patch.Failure(("fieldPath",), f"cannot write the patched field: {error}") from error


def ops(manifest: dict[str, Any], overrider: policy.FieldOverrider) -> list[_patch.Op]:
    """The patch one fieldOverrider makes: a `replace` of the string at `fieldPath`."""
    path = overrider.field_path
    try:
        text = _patch.resolve(manifest, path)
    except _patch.Failure as failure:
        raise _patch.Failure(("fieldPath",), failure.message) from failure
    if not isinstance(text, str):
        raise _patch.Failure(("fieldPath",), f'the value at "{path}" is not a string')
    pointer = _patch.canonical_pointer(manifest, path)
    return [_patch.Op("replace", pointer, _rewrite(text, overrider))]
