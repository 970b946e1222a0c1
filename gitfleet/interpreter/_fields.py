"""Typed reads from raw Kubernetes documents, and copies of them.

Karmada converts an object to its Go type before interpreting it, so a field of the wrong type
is an error and an absent (or null) field reads as the type's zero value. These readers give the
native rules the same behaviour without converting whole objects: each checks one field and
names it (`spec.template.spec.containers[0].resources: expected an object, got string`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from gitfleet.model import _codec

Path = tuple[str | int, ...]
T = TypeVar("T")


class FieldError(Exception):
    """A field has the wrong type; `path` is where it is inside the object that was read."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{dotted(path)}: {message}" if path else message)
        self.path = path
        self.message = message

    def under(self, *prefix: str | int) -> FieldError:
        """The same error for a field read from below `prefix` (hot paths read with short
        relative paths and say where they were only when something is wrong)."""
        return FieldError((*prefix, *self.path), self.message)


def dotted(path: Path) -> str:
    """`("spec", "containers", 0, "name")` -> `spec.containers[0].name`."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def wrong(path: Path, expected: str, value: Any) -> FieldError:
    """`value` at `path` is not `expected` (`an object`)."""
    return FieldError(path, f"expected {expected}, got {_codec._type_name(value)}")


def mapping(value: Any, path: Path) -> dict[str, Any]:
    """An object field; absent reads as empty."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise wrong(path, "an object", value)
    return value


def optional_mapping(value: Any, path: Path) -> dict[str, Any] | None:
    """An object field whose absence matters (a Go pointer or map)."""
    return None if value is None else mapping(value, path)


def nested_mapping(doc: Mapping[str, Any], key: str, path: Path) -> dict[str, Any] | None:
    """An object field read as `unstructured.NestedMap` reads it: None when absent, and an
    error when present but not an object, null included."""
    if key not in doc:
        return None
    value = doc[key]
    if not isinstance(value, dict):
        raise wrong(path, "an object", value)
    return value


def nested_field(doc: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[Any, bool]:
    """The value at `keys` and whether it is there, found as `unstructured.NestedFieldNoCopy`
    finds it: a null or absent step on the way means not there, a step that is neither null
    nor an object is an error, and a null value at the end is there (and null)."""
    value: Any = doc
    for depth, key in enumerate(keys):
        if value is None:
            return None, False
        if not isinstance(value, dict):
            raise wrong(keys[:depth], "an object", value)
        if key not in value:
            return None, False
        value = value[key]
    return value, True


def nested_string_map(doc: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, str] | None:
    """A map of strings found as `unstructured.NestedStringMap` finds it (None: not there); a
    null map, or a value in it that is not a string, is an error."""
    value, found = nested_field(doc, keys)
    if not found:
        return None
    return string_map(asserted_mapping(value, keys), keys)


def nested_string(doc: Mapping[str, Any], keys: tuple[str, ...]) -> str | None:
    """A string found as `unstructured.NestedString` finds it (None: not there); a null or
    anything but a string is an error."""
    value, found = nested_field(doc, keys)
    return asserted_string(value, keys) if found else None


def nested_int64(doc: Mapping[str, Any], keys: tuple[str, ...]) -> int | None:
    """An integer found as `unstructured.NestedInt64` finds it (None: not there); a null, a
    float (even 2.0) or anything but an integer is an error."""
    value, found = nested_field(doc, keys)
    if not found:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise wrong(keys, "an integer", value)
    return value


def set_nested(doc: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    """Set the field at `keys`, creating absent objects on the way, as
    `unstructured.SetNestedField` does: a step that is there but not an object, null
    included, is an error."""
    for depth, key in enumerate(keys[:-1]):
        if key not in doc:
            doc[key] = {}
        elif not isinstance(doc[key], dict):
            raise wrong(keys[: depth + 1], "an object to set a field in", doc[key])
        doc = doc[key]
    doc[keys[-1]] = value


def nested_array(doc: Mapping[str, Any], key: str, path: Path) -> list[Any]:
    """An array field read as `unstructured.NestedSlice` reads it: empty when absent, and an
    error when present but not an array, null included."""
    if key not in doc:
        return []
    value = doc[key]
    if not isinstance(value, list):
        raise wrong(path, "an array", value)
    return value


def asserted_mapping(value: Any, path: Path) -> dict[str, Any]:
    """An object read by a Go type assertion: anything else, null included, is an error."""
    if not isinstance(value, dict):
        raise wrong(path, "an object", value)
    return value


def asserted_string(value: Any, path: Path) -> str:
    """A string read by a Go type assertion: anything else, null included, is an error."""
    if not isinstance(value, str):
        raise wrong(path, "a string", value)
    return value


def array(value: Any, path: Path) -> list[Any]:
    """An array field; absent reads as empty."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong(path, "an array", value)
    return value


def optional_integer(value: Any, path: Path) -> int | None:
    """An integer field whose absence matters (a Go pointer)."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise wrong(path, "an integer", value)


def integer(value: Any, path: Path) -> int:
    """An integer field; absent reads as 0."""
    found = optional_integer(value, path)
    return 0 if found is None else found


def json_integer(value: Any, path: Path) -> int:
    """An integer field of JSON text read into a Go integer by `encoding/json` (a member's
    reported status): absent reads as 0, and a number with a fraction, even `2.0`, is an
    error (the unstructured conversion of an object, `integer`, takes `2.0`)."""
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise wrong(path, "an integer", value)


def string(value: Any, path: Path) -> str:
    """A string field; absent reads as empty."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise wrong(path, "a string", value)
    return value


def boolean(value: Any, path: Path) -> bool:
    """A boolean field; absent reads as false."""
    if value is None:
        return False
    if not isinstance(value, bool):
        raise wrong(path, "a boolean", value)
    return value


def string_map(value: Any, path: Path) -> dict[str, str] | None:
    """A map of strings (labels, annotations, data), read as unstructured.NestedStringMap reads
    it: a value that is not a string, null included, is an error. None when absent."""
    found = optional_mapping(value, path)
    if found is None:
        return None
    for key, item in found.items():
        if not isinstance(item, str):
            raise wrong((*path, key), "a string", item)
    return found


def typed_string_map(value: Any, path: Path) -> dict[str, str] | None:
    """A map of strings that Karmada reads through its Go type (a pod's nodeSelector) or with
    `Unstructured.GetAnnotations`: a null value reads as the empty string. None when absent."""
    found = optional_mapping(value, path)
    if found is None:
        return None
    return {key: string(item, (*path, key)) for key, item in found.items()}


def at(doc: Mapping[str, Any], keys: tuple[str, ...], base: Path = ()) -> Any:
    """The value below `doc` at a path of object keys; None when any step is absent.
    `base` is where `doc` itself sits, for error messages."""
    value: Any = doc
    for depth, key in enumerate(keys):
        value = mapping(value, (*base, *keys[:depth])).get(key)
        if value is None:
            return None
    return value


def copy_tree(value: T) -> T:
    """A deep copy of a JSON-like value (several times faster than `copy.deepcopy`)."""
    return cast(T, _copy(value))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def compact(value: dict[str, Any]) -> dict[str, Any]:
    """Drop Go's `omitempty` values (zero, false, empty string, empty or absent collections)."""
    return {k: v for k, v in value.items() if v not in (None, 0, "", [], {})}
