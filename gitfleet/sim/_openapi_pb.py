"""The Swagger 2.0 document in protocol buffers (gnostic's `openapi.v2.Document`), the only
form of `/openapi/v2` that kubectl reads: it asks for
`application/com.github.proto-openapi.spec.v2@v1.0+protobuf` and takes nothing else, for
`kubectl explain --output plaintext-openapiv2`, and for validating the kinds whose group version
`/openapi/v3` does not list (a custom resource applied in the same `kubectl apply` as its
definition), where a server that answers 406 fails the whole apply instead of leaving the kind
unvalidated.

Each message is written field by field in field-number order, as Go's encoder writes it, with
proto3's rule that a scalar at its zero value is left out. Values that are any JSON (`default`,
`enum`, `example`, and the `x-` extensions) are `Any` messages holding the value as YAML text,
as gnostic writes them; JSON is YAML, so the JSON text of the value is written.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterable
from typing import Any

MEDIA_TYPE = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
"""The Content-Type of the answer, as Kubernetes servers send it (clients parse it as a media
type, which the `@` of what they ask for is not)."""
MEDIA_TYPES = ("application/com.github.proto-openapi.spec.v2@v1.0+protobuf", MEDIA_TYPE)
"""What kubectl and client-go send in Accept for it, and the spelling of the answer."""

Obj = dict[str, Any]
Encode = Callable[[int, Any], bytes]

_VARINT, _FIXED64, _LENGTH = 0, 1, 2
_UINT64 = (1 << 64) - 1


def _varint(value: int) -> bytes:
    value &= _UINT64  # a negative int64 is written as its two's complement, ten bytes
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _message(field: int, data: bytes) -> bytes:
    return _key(field, _LENGTH) + _varint(len(data)) + data


def _string(field: int, value: Any) -> bytes:
    return _message(field, str(value).encode()) if value not in (None, "") else b""


def _strings(field: int, value: Any) -> bytes:
    return b"".join(_string(field, item) for item in _listed(value))


def _bool(field: int, value: Any) -> bytes:
    return _key(field, _VARINT) + b"\x01" if value is True else b""


def _int(field: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value:
        return b""
    return _key(field, _VARINT) + _varint(int(value))


def _double(field: int, value: Any) -> bytes:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value:
        return b""
    return _key(field, _FIXED64) + struct.pack("<d", float(value))


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def _any(field: int, value: Any) -> bytes:
    """An `Any`: the value as YAML text (field 2)."""
    if value is None:
        return b""
    return _message(field, _string(2, json.dumps(value, sort_keys=True)))


def _anys(field: int, value: Any) -> bytes:
    return b"".join(_message(field, _string(2, json.dumps(item))) for item in _listed(value))


def _extensions(field: int, obj: Obj) -> bytes:
    """The `x-` keys, each a `NamedAny`."""
    return b"".join(
        _message(field, _string(1, key) + _any(2, value))
        for key, value in obj.items()
        if key.startswith("x-")
    )


def _fields(obj: Obj, table: Iterable[tuple[int, str, Encode]], extensions: int) -> bytes:
    if not isinstance(obj, dict):
        return b""
    out = b"".join(encode(field, obj.get(key)) for field, key, encode in table)
    return out + (_extensions(extensions, obj) if extensions else b"")


def _named(field: int, value: Any, encode: Callable[[Any], bytes]) -> bytes:
    """A map as its ordered (name, value) messages, each at `field`."""
    if not isinstance(value, dict):
        return b""
    return b"".join(
        _message(field, _string(1, name) + _message(2, encode(item)))
        for name, item in value.items()
    )


def _nested(encode: Callable[[Any], bytes]) -> Encode:
    """A field holding one message, present when the value is."""
    return lambda field, value: _message(field, encode(value)) if value is not None else b""


def _repeated(encode: Callable[[Any], bytes]) -> Encode:
    return lambda field, value: b"".join(_message(field, encode(item)) for item in _listed(value))


# ---- schemas ---------------------------------------------------------------------------------


def _external_docs(obj: Obj) -> bytes:
    return _fields(obj, ((1, "description", _string), (2, "url", _string)), 3)


def _additional_properties(field: int, value: Any) -> bytes:
    if isinstance(value, bool):  # a oneof: false is written too
        return _message(field, _key(2, _VARINT) + (b"\x01" if value else b"\x00"))
    return _message(field, _message(1, schema(value))) if isinstance(value, dict) else b""


def _type(field: int, value: Any) -> bytes:
    return _message(field, _strings(1, value)) if value else b""


def _items(field: int, value: Any) -> bytes:
    if not value:
        return b""
    return _message(field, b"".join(_message(1, schema(item)) for item in _listed(value)))


def _properties(field: int, value: Any) -> bytes:
    return _message(field, _named(1, value, schema)) if isinstance(value, dict) else b""


_SCHEMA: tuple[tuple[int, str, Encode], ...] = (
    (1, "$ref", _string),
    (2, "format", _string),
    (3, "title", _string),
    (4, "description", _string),
    (5, "default", _any),
    (6, "multipleOf", _double),
    (7, "maximum", _double),
    (8, "exclusiveMaximum", _bool),
    (9, "minimum", _double),
    (10, "exclusiveMinimum", _bool),
    (11, "maxLength", _int),
    (12, "minLength", _int),
    (13, "pattern", _string),
    (14, "maxItems", _int),
    (15, "minItems", _int),
    (16, "uniqueItems", _bool),
    (17, "maxProperties", _int),
    (18, "minProperties", _int),
    (19, "required", _strings),
    (20, "enum", _anys),
    (21, "additionalProperties", _additional_properties),
    (22, "type", _type),
    (23, "items", _items),
    (24, "allOf", lambda field, value: _repeated(schema)(field, value)),
    (25, "properties", _properties),
    (26, "discriminator", _string),
    (27, "readOnly", _bool),
    (29, "externalDocs", _nested(_external_docs)),
    (30, "example", _any),
)


def schema(obj: Obj) -> bytes:
    """A `Schema` message."""
    return _fields(obj, _SCHEMA, 31)


# ---- paths -----------------------------------------------------------------------------------

_PRIMITIVE_KEYS = (
    "type", "format", "items", "collectionFormat", "default", "maximum", "exclusiveMaximum",
    "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "enum", "multipleOf",
)  # fmt: skip
"""The fields a non-body parameter and `PrimitivesItems` share, in their field order."""
_PRIMITIVE_ENCODERS: tuple[Encode, ...] = (
    _string, _string, lambda f, v: _nested(_primitives_items)(f, v), _string, _any, _double,
    _bool, _double, _bool, _int, _int, _string, _int, _int, _bool, _anys, _double,
)  # fmt: skip


def _primitives(first: int) -> tuple[tuple[int, str, Encode], ...]:
    """The shared fields, numbered from `first`."""
    return tuple(
        (first + index, key, encode)
        for index, (key, encode) in enumerate(
            zip(_PRIMITIVE_KEYS, _PRIMITIVE_ENCODERS, strict=True)
        )
    )


def _primitives_items(obj: Obj) -> bytes:
    return _fields(obj, _primitives(1), 18)


_HEAD = (
    (1, "required", _bool),
    (2, "in", _string),
    (3, "description", _string),
    (4, "name", _string),
)
_NON_BODY = {
    # `in`: (the NonBodyParameter field, the sub-schema's fields, its extensions' field)
    "header": (1, (*_HEAD, *_primitives(5)), 22),
    "formData": (2, (*_HEAD, (5, "allowEmptyValue", _bool), *_primitives(6)), 23),
    "query": (3, (*_HEAD, (5, "allowEmptyValue", _bool), *_primitives(6)), 23),
    "path": (4, (*_HEAD, *_primitives(5)), 22),
}


def _parameter(obj: Obj) -> bytes:
    """A `ParametersItem`: a reference, a body parameter or a non-body one."""
    if "$ref" in obj:
        return _message(2, _fields(obj, ((1, "$ref", _string), (2, "description", _string)), 0))
    where = obj.get("in")
    if where == "body":
        body = (
            (1, "description", _string), (2, "name", _string), (3, "in", _string),
            (4, "required", _bool), (5, "schema", _nested(schema)),
        )  # fmt: skip
        return _message(1, _message(1, _fields(obj, body, 6)))
    if where not in _NON_BODY:
        return b""
    field, table, extensions = _NON_BODY[where]
    return _message(1, _message(2, _message(field, _fields(obj, table, extensions))))


def _response(obj: Obj) -> bytes:
    """A `ResponseValue`: a reference or a response."""
    if "$ref" in obj:
        return _message(2, _fields(obj, ((1, "$ref", _string), (2, "description", _string)), 0))
    table = (
        (1, "description", _string),
        (2, "schema", lambda f, v: _message(f, _message(1, schema(v))) if v else b""),
    )
    return _message(1, _fields(obj, table, 5))


def _responses(obj: Obj) -> bytes:
    codes = {k: v for k, v in obj.items() if not k.startswith("x-")}
    return _named(1, codes, _response) + _extensions(2, obj)


_OPERATION: tuple[tuple[int, str, Encode], ...] = (
    (1, "tags", _strings),
    (2, "summary", _string),
    (3, "description", _string),
    (4, "externalDocs", _nested(_external_docs)),
    (5, "operationId", _string),
    (6, "produces", _strings),
    (7, "consumes", _strings),
    (8, "parameters", _repeated(_parameter)),
    (9, "responses", _nested(_responses)),
    (10, "schemes", _strings),
    (11, "deprecated", _bool),
)


def _operation(obj: Obj) -> bytes:
    return _fields(obj, _OPERATION, 13)


_METHODS = ("get", "put", "post", "delete", "options", "head", "patch")


def _path_item(obj: Obj) -> bytes:
    table = (
        (1, "$ref", _string),
        *((2 + index, method, _nested(_operation)) for index, method in enumerate(_METHODS)),
        (9, "parameters", _repeated(_parameter)),
    )
    return _fields(obj, table, 10)


def _paths(obj: Obj) -> bytes:
    items = {k: v for k, v in obj.items() if not k.startswith("x-")}
    return _extensions(1, obj) + _named(2, items, _path_item)


# ---- the document ----------------------------------------------------------------------------


def _info(obj: Obj) -> bytes:
    table = (
        (1, "title", _string), (2, "version", _string), (3, "description", _string),
        (4, "termsOfService", _string),
    )  # fmt: skip
    return _fields(obj, table, 7)


_DOCUMENT: tuple[tuple[int, str, Encode], ...] = (
    (1, "swagger", _string),
    (2, "info", _nested(_info)),
    (3, "host", _string),
    (4, "basePath", _string),
    (5, "schemes", _strings),
    (6, "consumes", _strings),
    (7, "produces", _strings),
    (8, "paths", _nested(_paths)),
    (9, "definitions", lambda f, v: _message(f, _named(1, v, schema)) if v else b""),
    (15, "externalDocs", _nested(_external_docs)),
)


def document(swagger: Obj) -> bytes:
    """A Swagger 2.0 document (as JSON reads it) as an `openapi.v2.Document` message."""
    return _fields(swagger, _DOCUMENT, 16)
