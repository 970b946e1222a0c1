"""Request bodies in Kubernetes' protocol buffer encoding (`application/vnd.kubernetes.protobuf`),
as client-go's typed clients send built-in objects: kubectl 1.30's `create rolebinding`, and
from 1.32 on every `kubectl create ...` and `kubectl autoscale`. A body is the magic
`k8s\\x00` and a runtime.Unknown holding the apiVersion, kind and the object's own message,
which is decoded here to the JSON object a client would have sent.

Field numbers, names and types come from `protobuf_fields.json` (written by
`tests/protobuf_fields.py` from the generated.proto files of Kubernetes 1.20, whose numbers
later releases keep). A scalar that is not a pointer in Go is always on the wire, zero or
not, and a zero there means the field was left out, so it is dropped; a pointer's zero is
kept. A message Go embeds inline (a volume's source, a probe's handler) gives its fields to
the object holding it, as in JSON. Fields the table does not know (newer than 1.20) are
skipped. Kinds whose version is newer than 1.20 (batch/v1 CronJob, policy/v1, autoscaling/v2)
are read with the message of the version they were promoted from, whose field numbers they
kept.
"""

from __future__ import annotations

import base64
import datetime
import functools
import json
import struct
from importlib import resources
from typing import Any

from gitfleet.sim import _errors, _json

CONTENT_TYPE = "application/vnd.kubernetes.protobuf"
_MAGIC = b"k8s\x00"
_META = "k8s.io.apimachinery.pkg.apis.meta.v1"
_TIMES = (f"{_META}.Time", f"{_META}.MicroTime")
_PREVIOUS_VERSIONS = {"v1": ("v1beta1",), "v2": ("v2beta2",)}
"""Where a kind's message is missing from the 1.20 table, the versions it was promoted from."""

Fields = dict[str, list[str]]


@functools.cache
def _table() -> dict[str, Fields]:
    text = resources.files("gitfleet.sim").joinpath("protobuf_fields.json").read_text()
    loaded: dict[str, Fields] = json.loads(text)
    return loaded


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("truncated varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if not byte & 0x80:
            return value, at
        shift += 7


def _entries(data: bytes) -> list[tuple[int, int, Any]]:
    """(field number, wire type, raw value) of each field of a message, in order."""
    found: list[tuple[int, int, Any]] = []
    at = 0
    while at < len(data):
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        if at > len(data):
            raise ValueError("truncated field")
        found.append((number, wire, value))
    return found


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _scalars(kind: str, wire: int, raw: Any) -> list[Any]:
    """The values of one scalar field on the wire (several if a repeated number is packed)."""
    if kind == "string":
        return [bytes(raw).decode("utf-8")]
    if kind == "bytes":
        return [base64.b64encode(bytes(raw)).decode()]
    if wire == 2:  # packed numbers
        values, at = [], 0
        while at < len(raw):
            value, at = _varint(raw, at)
            values.append(value)
        return [_number(kind, 0, v) for v in values]
    return [_number(kind, wire, raw)]


def _number(kind: str, wire: int, raw: Any) -> Any:
    if kind == "bool":
        return bool(raw)
    if kind == "double" and wire == 1:
        return struct.unpack("<d", raw)[0]
    if kind == "float" and wire == 5:
        return struct.unpack("<f", raw)[0]
    return _signed(raw) if isinstance(raw, int) else raw


def _special(kind: str, data: bytes) -> Any:
    """The JSON form of the apimachinery types that are not objects in JSON."""
    fields = {number: (wire, raw) for number, wire, raw in _entries(data)}
    if kind in _TIMES:
        seconds = _signed(fields.get(1, (0, 0))[1])
        nanos = fields.get(2, (0, 0))[1]
        if not seconds and not nanos:
            return None
        moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
        if kind == _TIMES[1]:
            return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{nanos // 1000:06d}Z"
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if kind == "k8s.io.apimachinery.pkg.api.resource.Quantity":
        return bytes(fields.get(1, (2, b""))[1]).decode()
    if kind == "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
        if fields.get(1, (0, 0))[1] == 1:
            return bytes(fields.get(3, (2, b""))[1]).decode()
        return _signed(fields.get(2, (0, 0))[1])
    raw = bytes(fields.get(1, (2, b""))[1])  # RawExtension, FieldsV1: JSON inside
    return json.loads(raw) if raw else None


_SPECIAL = frozenset(
    {
        *_TIMES,
        "k8s.io.apimachinery.pkg.api.resource.Quantity",
        "k8s.io.apimachinery.pkg.util.intstr.IntOrString",
        "k8s.io.apimachinery.pkg.runtime.RawExtension",
        f"{_META}.FieldsV1",
    }
)


def _value(kind: str, wire: int, raw: Any) -> list[Any]:
    if kind in _SPECIAL:
        return [_special(kind, bytes(raw))]
    if kind in _table():
        return [_message(kind, bytes(raw))]
    return _scalars(kind, wire, raw)


def _message(name: str, data: bytes) -> _json.Obj:
    fields = _table()[name]
    obj: _json.Obj = {}
    for number, wire, raw in _entries(data):
        known = fields.get(str(number))
        if known is None:
            continue
        field, kind, flags = known
        if kind.startswith("map:"):
            _, key_kind, value_kind = kind.split(":")
            entry = {n: (w, r) for n, w, r in _entries(bytes(raw))}
            key = _value(key_kind, *entry.get(1, (2, b"")))[0]
            value = _value(value_kind, *entry.get(2, (2, b"")))[0]
            obj.setdefault(field, {})[key] = value
        elif "r" in flags:
            obj.setdefault(field, []).extend(_value(kind, wire, raw))
        else:
            (value,) = _value(kind, wire, raw)
            if "i" in flags and isinstance(value, dict):
                obj.update(value)  # embedded inline in Go: its fields are this object's
                continue
            zero = not isinstance(value, dict) and value in ("", 0, False)
            if value is None or (zero and "p" not in flags):
                obj.pop(field, None)
            else:
                obj[field] = value
    return obj


def _message_name(api_version: str, kind: str) -> str | None:
    group, _, version = api_version.rpartition("/")
    if group == "meta.k8s.io" or (not group and kind.endswith("Options")):
        package = _META
        versions: tuple[str, ...] = (version,)
    else:
        package = f"k8s.io.api.{group.split('.')[0] or 'core'}"
        versions = (version, *_PREVIOUS_VERSIONS.get(version, ()))
    return next(
        (f"{package}.{v}.{kind}" for v in versions if f"{package}.{v}.{kind}" in _table()), None
    )


def decode(body: bytes) -> _json.Obj:
    """A protocol buffer request body as the JSON object it encodes; 400 if it is not one,
    415 for a kind the table has no message for."""
    if not body.startswith(_MAGIC):
        raise _errors.bad_request("the protobuf body does not start with the k8s magic number")
    try:
        unknown = {number: raw for number, _, raw in _entries(body[len(_MAGIC) :])}
        type_meta = {number: raw for number, _, raw in _entries(bytes(unknown.get(1, b"")))}
        api_version = bytes(type_meta.get(1, b"")).decode()
        kind = bytes(type_meta.get(2, b"")).decode()
        name = _message_name(api_version, kind)
        if name is None:
            raise _errors.ApiError(
                415,
                f"the body of the request was in an unknown format - accepted media types "
                f"include: application/json, application/yaml (no protobuf message for "
                f"{api_version} {kind})",
            )
        return {
            "apiVersion": api_version,
            "kind": kind,
            **_message(name, bytes(unknown.get(2, b""))),
        }
    except (ValueError, UnicodeDecodeError, struct.error) as error:
        raise _errors.bad_request(f"the protobuf body does not decode: {error}") from error
