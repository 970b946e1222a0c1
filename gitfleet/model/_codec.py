"""Conversion between Kubernetes-style JSON documents and the model's frozen dataclasses.

Every API kind is declared once, as dataclasses; this module derives from those declarations
the decoder (with errors that name the field and point at its line), the encoder (Go's
`omitempty`: absent and empty values are left out, so a document round-trips to what the user
wrote) and the JSON Schema. A field's `rules.Rule` (allowed values, bounds, name syntax) is
both enforced by the decoder and carried by the schema. Field names are the Go JSON names:
snake_case turned to camelCase unless a field sets `json=` explicitly.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any

from gitfleet.errors import SchemaError
from gitfleet.model.origin import Origin, PathKey
from gitfleet.model.rules import Rule

JSON = Any
"""Any JSON value: kept as loaded (but for numbers Karmada's API server would store as floats,
`_stored_json`), never mutated."""

_JSON_NAME = "json"
_DOC = "doc"
_RULE = "rule"
_SKIP = "skip"
_INT64 = 1 << 63
"""Every integer field of Karmada and Kubernetes is at most an int64: Go's decoder refuses a
larger number (a weight of 10^23 never reaches Karmada), so the model refuses it too, and the
JSON Schema of every integer field carries those bounds (`minimum`, `maximum`)."""


def beyond_int64(value: int | float) -> str | None:
    """Why a whole number cannot be an integer field's value (None: it fits), in the words
    both the decoder and the schema check (`gitfleet.validation`) use."""
    if -_INT64 <= value < _INT64:
        return None
    return f"{value} does not fit in a 64-bit integer"


def field(
    default: Any = dataclasses.MISSING,
    *,
    json: str | None = None,
    doc: str = "",
    rule: Rule | None = None,
) -> Any:
    """Declare a model field; without a default it is required. `rule` constrains its value
    beyond its type (the decoder enforces it, the JSON Schema carries it)."""
    metadata = {_JSON_NAME: json, _DOC: doc, _RULE: rule}
    if isinstance(default, (list, dict)):
        raise TypeError("mutable defaults are not allowed; use () or None")
    return dataclasses.field(default=default, metadata=metadata)


def internal(default: Any, *, compare: bool = False) -> Any:
    """A field that is not part of the document (e.g. the origin); `compare`: whether two
    objects that differ in it differ (an origin does not make a different object)."""
    return dataclasses.field(default=default, compare=compare, repr=False, metadata={_SKIP: True})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    attr: str
    json: str
    hint: Any
    required: bool
    default: Any
    doc: str
    rule: Rule | None


@functools.cache
def fields_of(cls: type) -> tuple[_Field, ...]:
    """The document fields of a model class, in declaration order."""
    hints = typing.get_type_hints(cls)
    result = []
    for f in dataclasses.fields(cls):
        if f.metadata.get(_SKIP):
            continue
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        result.append(
            _Field(
                attr=f.name,
                json=f.metadata.get(_JSON_NAME) or _camel(f.name),
                hint=hints[f.name],
                required=required,
                default=None if required else f.default,
                doc=f.metadata.get(_DOC, ""),
                rule=f.metadata.get(_RULE),
            )
        )
    return tuple(result)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _describe(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if hint is str:
        return "string"
    if hint is bool:
        return "boolean"
    if hint is int:
        return "integer"
    if hint is float:
        return "number"
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return "one of " + ", ".join(repr(m.value) for m in hint)
    if origin is tuple:
        return "array"
    if origin is dict or dataclasses.is_dataclass(hint):
        return "object"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(hint) if a is not type(None))
    return "value"


class _Shape(enum.Enum):
    ANY = enum.auto()
    UNION = enum.auto()
    OBJECT = enum.auto()
    TUPLE = enum.auto()
    DICT = enum.auto()
    ENUM = enum.auto()
    SCALAR = enum.auto()


@functools.cache
def _shape(hint: Any) -> tuple[_Shape, tuple[Any, ...]]:
    """How values of a type hint decode, and the hints inside it; worked out once per hint
    (decoding asks for every value of every document)."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return _Shape.ANY, ()
    if origin in (typing.Union, types.UnionType):
        return _Shape.UNION, tuple(a for a in typing.get_args(hint) if a is not type(None))
    if dataclasses.is_dataclass(hint):
        return _Shape.OBJECT, ()
    if origin is tuple:
        return _Shape.TUPLE, typing.get_args(hint)[:1]
    if origin is dict:
        return _Shape.DICT, typing.get_args(hint)[1:]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _Shape.ENUM, ()
    return _Shape.SCALAR, ()


@functools.cache
def _plain(hint: Any) -> type | None:
    """The scalar type whose values a field of `hint` (or of its one member besides null)
    takes as they are: str, int or bool, None for other hints. Most values of a document
    are such scalars; they are taken without working through their hint."""
    shape, args = _shape(hint)
    if shape is _Shape.UNION and len(args) == 1:
        return _plain(args[0])
    return hint if shape is _Shape.SCALAR and hint in (str, int, bool) else None


@functools.cache
def _json_names(cls: type) -> frozenset[str]:
    return frozenset(f.json for f in fields_of(cls))


Shared = dict[tuple[int, Any], tuple[Any, Any]]
"""Decoded values of documents decoded together, by (id of the JSON object or array, type
hint); each entry holds its JSON value, so that the id stays its own."""


def _stored_json(value: Any) -> Any:
    """`value` as Karmada's API server stores a free-form JSON field of its objects (an
    overrider's value, a status): its JSON decoding keeps a whole number that fits an
    int64 and makes any other number a float64, so 18446744073709551615 is stored as
    18446744073709551616. The value itself when nothing changes, else a changed copy."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value if -_INT64 <= value < _INT64 else float(value)
    if isinstance(value, dict):
        items = {k: _stored_json(v) for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if isinstance(value, list):
        listed = [_stored_json(v) for v in value]
        return value if all(a is b for a, b in zip(listed, value, strict=True)) else listed
    return value


class _Decoder:
    def __init__(
        self,
        origin: Origin,
        lenient: bool = False,
        shared: Shared | None = None,
        zeros: bool = False,
    ) -> None:
        self.origin = origin
        self.lenient = lenient
        self.shared = shared
        self.zeros = zeros

    def fail(self, path: tuple[PathKey, ...], message: str) -> SchemaError:
        where = ".".join(str(p) for p in path) or "document"
        return SchemaError(self.origin.at(*path), f"{where}: {message}")

    def value(self, hint: Any, value: Any, path: tuple[PathKey, ...]) -> Any:
        if type(value) is _plain(hint) and (type(value) is not int or -_INT64 <= value < _INT64):
            return value
        if self.shared is None or not isinstance(value, (dict, list)):
            return self.fresh(hint, value, path)
        key = (id(value), hint)
        found = self.shared.get(key)
        if found is not None and found[0] is value:
            return found[1]
        decoded = self.fresh(hint, value, path)
        self.shared[key] = (value, decoded)
        return decoded

    def fresh(self, hint: Any, value: Any, path: tuple[PathKey, ...]) -> Any:
        shape, args = _shape(hint)
        if shape is _Shape.ANY:
            return _stored_json(value)
        if shape is _Shape.UNION:
            return self.union(hint, args, value, path)
        if shape is _Shape.OBJECT:
            return self.object(typing.cast(type, hint), value, path)
        if shape is _Shape.TUPLE:
            if not isinstance(value, list):
                raise self.fail(path, f"expected an array, got {_type_name(value)}")
            (item,) = args
            return tuple(self.value(item, v, (*path, i)) for i, v in enumerate(value))
        if shape is _Shape.DICT:
            if not isinstance(value, dict):
                raise self.fail(path, f"expected an object, got {_type_name(value)}")
            (item,) = args
            return {str(k): self.value(item, v, (*path, str(k))) for k, v in value.items()}
        if shape is _Shape.ENUM:
            try:
                return hint(value)
            except ValueError:
                raise self.fail(
                    path, f"unsupported value {value!r}: expected {_describe(hint)}"
                ) from None
        return self.scalar(hint, value, path)

    def scalar(self, hint: type, value: Any, path: tuple[PathKey, ...]) -> Any:
        if hint is bool:
            ok = isinstance(value, bool)
        elif hint is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
            whole = ok or (isinstance(value, float) and value.is_integer())
            problem = beyond_int64(value) if whole else None
            if problem is not None:
                raise self.fail(path, problem)
            if whole and not ok:
                return int(value)
        elif hint is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        else:
            ok = isinstance(value, hint)
        if not ok:
            raise self.fail(path, f"expected {_describe(hint)}, got {_type_name(value)}")
        return value

    def zero(self, hint: Any, path: tuple[PathKey, ...]) -> Any:
        """Go's zero value of a missing field, where `zeros` asks for encoding/json's reading
        (a nested object is itself all zero values); otherwise the field is an error."""
        shape = _shape(hint)[0]
        if not self.zeros or shape in (_Shape.ANY, _Shape.UNION, _Shape.ENUM):
            raise self.fail(path, "required field is missing")
        if shape is _Shape.OBJECT:
            return self.object(typing.cast(type, hint), {}, path)
        if shape is _Shape.TUPLE:
            return ()
        if shape is _Shape.DICT:
            return {}
        return hint()

    def union(
        self, hint: Any, members: tuple[Any, ...], value: Any, path: tuple[PathKey, ...]
    ) -> Any:
        if len(members) == 1:
            return self.value(members[0], value, path)
        for member in members:
            try:
                return self.value(member, value, path)
            except SchemaError:
                continue
        raise self.fail(path, f"expected {_describe(hint)}, got {_type_name(value)}")

    def object(self, cls: type, value: Any, path: tuple[PathKey, ...]) -> Any:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_type_name(value)}")
        known = fields_of(cls)
        names = _json_names(cls)
        for key in value:
            if key not in names and not self.lenient:
                raise self.fail((*path, key), f"unknown field {key!r} in {cls.__name__}")
        kwargs: dict[str, Any] = {}
        for f in known:
            raw = value.get(f.json)
            if raw is None:
                if f.required:
                    kwargs[f.attr] = self.zero(f.hint, (*path, f.json))
                continue
            kwargs[f.attr] = self.value(f.hint, raw, (*path, f.json))
            problem = f.rule.problem(raw) if f.rule is not None else None
            if problem:
                raise self.fail((*path, f.json), problem)
        return cls(**kwargs)


def decode(
    cls: type,
    doc: Mapping[str, Any],
    origin: Origin,
    *,
    ignore: frozenset[str] = frozenset(),
    lenient: bool = False,
    shared: Shared | None = None,
    zeros: bool = False,
) -> Any:
    """Build `cls` from a document; raises `SchemaError` at the first problem, located.
    `lenient` skips unknown fields, as Go's encoding/json does (for values scripts compute);
    `zeros` gives a missing required field Go's zero value, as encoding/json does, where
    otherwise it is an error. `shared` is a memo of documents decoded together: a JSON object
    or array that is the very same object in several of them (a reader that reads equal text
    once) is decoded once."""
    body = {k: v for k, v in doc.items() if k not in ignore}
    return _Decoder(origin, lenient, shared, zeros).object(cls, body, ())


_PLAIN = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _encoded_fields(cls: type) -> tuple[_Field, ...] | None:
    """The fields `encode` writes for values of `cls`, None when it is not a model class."""
    return fields_of(cls) if dataclasses.is_dataclass(cls) else None


def encode(value: Any) -> JSON:
    """The document for a model value: Go's omitempty, enums as their values, tuples as lists.
    Plain values come first and a class's fields are looked up once: a binding to hundreds of
    clusters is hundreds of small values to encode."""
    kind: type = type(value)
    if kind in _PLAIN:
        return value
    if kind is tuple:
        return [encode(v) for v in value]
    known = _encoded_fields(kind)
    if known is not None:
        out: dict[str, Any] = {}
        for f in known:
            item = getattr(value, f.attr)
            if not f.required and (item is None or item == f.default):
                continue
            out[f.json] = encode(item)
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    return value


def json_schema(hint: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a model type; nested dataclasses go to `definitions` once each."""
    origin = typing.get_origin(hint)
    if hint is Any:
        return {}
    if hint is str:
        return {"type": "string"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer", "minimum": -_INT64, "maximum": _INT64 - 1}
    if hint is float:
        return {"type": "number"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return {"type": "string", "enum": [m.value for m in hint]}
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) == 1:
            return json_schema(members[0], definitions)
        return {"anyOf": [json_schema(m, definitions) for m in members]}
    if origin is tuple:
        return {"type": "array", "items": json_schema(typing.get_args(hint)[0], definitions)}
    if origin is dict:
        return {
            "type": "object",
            "additionalProperties": json_schema(typing.get_args(hint)[1], definitions),
        }
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        name = hint.__name__
        if name not in definitions:
            definitions[name] = {}
            properties = {}
            for f in fields_of(typing.cast(type, hint)):
                prop = json_schema(f.hint, definitions)
                if f.rule is not None:
                    prop = {**prop, **f.rule.schema()}
                if f.doc:
                    prop = {**prop, "description": f.doc}
                properties[f.json] = prop
            schema: dict[str, Any] = {
                "type": "object",
                "properties": properties,
                "additionalProperties": False,
            }
            required = [f.json for f in fields_of(typing.cast(type, hint)) if f.required]
            if required:
                schema["required"] = required
            if hint.__doc__:
                schema["description"] = " ".join(hint.__doc__.split())
            definitions[name] = schema
        return {"$ref": f"#/$defs/{name}"}
    raise TypeError(f"no JSON Schema for {hint!r}")
