"""A table given to the kube library, checked as Karmada's decoding of it into a Go type would.

Karmada turns a `kube.accuratePodRequirements` or `kube.getPodDependencies` argument into a
corev1.PodTemplateSpec with encoding/json, and any field of the wrong JSON type anywhere in it
fails the call (`containerPort = "80"`, `labels = {a = 1}`, a container's `name = 5`), whether
or not the helper reads that field. The types are those of Karmada's vendored k8s.io/api,
written to podtemplatespec.json by bench/karmada_types.py. encoding/json's rules: null is any
field's zero value; a string, a boolean, an integer of the field's size, a number, an array, an
object where the field's kind asks for one; unknown keys are ignored, and a key names a field
in any case (`Containers` is `containers`); Quantity takes a string or a number that parses,
IntOrString a string or an int32, Time an RFC 3339 string.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from typing import Any

from gitfleet.interpreter import _fields, _quantity, _times
from gitfleet.interpreter.lua import _convert

_INTEGERS = {
    f"{sign}int{bits}": (
        (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if sign == "" else (0, 2**bits - 1)
    )
    for sign in ("", "u")
    for bits in (8, 16, 32, 64)
}
_INTEGERS["int"], _INTEGERS["uint"] = _INTEGERS["int64"], _INTEGERS["uint64"]
_FLOAT32_MAX = 3.4028234663852886e38


@functools.cache
def _types() -> dict[str, Any]:
    text = (importlib.resources.files(__package__) / "podtemplatespec.json").read_text("utf-8")
    found: dict[str, Any] = json.loads(text)
    return found


def pod_template(value: Any) -> Any:
    """`value` (a decoded Lua table) as it decodes into a corev1.PodTemplateSpec: each key
    named as its field is (`Containers` is `containers`), unknown keys left out;
    `_fields.FieldError` where a field has the wrong type."""
    types = _types()
    return _decoded(value, types["root"], (), types["structs"])


def _decoded(value: Any, kind: str, path: _fields.Path, structs: dict[str, Any]) -> Any:
    if value is None or kind in ("any", "FieldsV1"):
        return value
    if kind.startswith("[]"):
        items = _expect(value, list, "an array", path)
        return [_decoded(item, kind[2:], (*path, i), structs) for i, item in enumerate(items)]
    if kind.startswith("map[string]"):
        entries = _expect(value, dict, "an object", path)
        inner = kind[len("map[string]") :]
        return {key: _decoded(item, inner, (*path, key), structs) for key, item in entries.items()}
    if kind in structs:
        return _struct(_expect(value, dict, "an object", path), structs[kind], path, structs)
    _check_scalar(value, kind, path)
    return value


def _struct(
    value: dict[str, Any], fields: dict[str, str], path: _fields.Path, structs: dict[str, Any]
) -> dict[str, Any]:
    """The fields of an object, as encoding/json matches keys: exactly, else in any case; a
    later key for the same field wins, as it does in Go."""
    folded = {name.lower(): name for name in fields}
    out = {}
    for key, item in value.items():
        name = key if key in fields else folded.get(key.lower())
        if name is not None:
            out[name] = _decoded(item, fields[name], (*path, key), structs)
    return out


def _check_scalar(value: Any, kind: str, path: _fields.Path) -> None:
    if kind in ("string", "bytes"):
        _expect(value, str, "a string", path)
    elif kind == "bool":
        _expect(value, bool, "a boolean", path)
    elif kind in _INTEGERS:
        _integer(value, kind, path)
    elif kind in ("float32", "float64"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fields.wrong(path, "a number", value)
        if kind == "float32" and abs(value) > _FLOAT32_MAX:
            raise _fields.FieldError(path, f"{value} is out of the float32 range")
    elif kind == "Quantity":
        _quantity_of(value, path)
    elif kind == "IntOrString":
        if not isinstance(value, str):
            _integer(value, "int32", path)
    elif kind == "Time":
        _times.parse(value, path)
    else:
        raise _fields.FieldError(path, f"no rule for Go type {kind}")


def _integer(value: Any, kind: str, path: _fields.Path) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fields.wrong(path, "an integer", value)
    low, high = _INTEGERS[kind]
    if not low <= value <= high:
        raise _fields.FieldError(path, f"{value} is out of the {kind} range")


def _quantity_of(value: Any, path: _fields.Path) -> None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _fields.wrong(path, "a quantity (a string or a number)", value)
    text = value if isinstance(value, str) else _convert.go_number_text(value)
    try:
        _quantity.parse(text)
    except _quantity.QuantityError as e:
        raise _fields.FieldError(path, str(e)) from None


def _expect(value: Any, kind: type, expected: str, path: _fields.Path) -> Any:
    if not isinstance(value, kind):
        raise _fields.wrong(path, expected, value)
    return value
