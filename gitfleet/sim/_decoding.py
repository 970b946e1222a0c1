"""How the API server decodes a built-in object it is sent: into its Go types, against the
schemas the kubernetes package's models give (`_schemas`).

- A value of the wrong JSON type (a string for `spec.replicas`, a number or a boolean in a
  ConfigMap's `data`) is 400 BadRequest: `Deployment in version "v1" cannot be handled as a
  Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas
  of type int32`. Numbers are taken for quantities (`resources.limits`, …), as their Go type
  takes them; IntOrString fields take either. Where a patch made the object, it is 422
  Invalid on the field `patch` instead (`decode_patched`), as the patch handler reports it.
- A quantity is stored as apimachinery prints it (`cpu: 0.5` reads back `500m`, `1000m` as
  `1`, a container's `100u` as `1m`: `_quantity.stored`); one it cannot parse is 400
  (`quantities must match the regular expression ...`).
- A map that is empty or null (`labels: {}` after a patch removed the last label, a
  ConfigMap's `data: {}`) is dropped: every map of the API types is `omitempty`, so the
  server never writes one out empty (kubectl's `label`/`annotate` compare against that).
- A field the kind does not have is dropped: built-in objects keep only what their types
  have. With `fieldValidation=Strict` it is a 400 (`strict decoding error: unknown field
  "spec.bogus"`), with `Warn` (the default from Kubernetes 1.27, as `fieldValidation` is
  unset) a warning per field; before 1.25 fields are dropped without a word.
- A server-side apply configuration must be all known fields of the right types: otherwise
  `failed to create typed patch object`, 400 (500 before 1.25, as the 1.20 server answers).

Custom resources are checked against their CRD's schema as apiextensions-apiserver does: a
value of the wrong type is 422 Invalid (`spec.size in body must be of type integer`), an
unknown field is pruned (and refused or warned about as above). Built-in kinds without a
model, and custom resources without a schema, are taken as they are; apply configurations
of custom resources are not checked.
"""

from __future__ import annotations

import json
from typing import Any

from gitfleet.sim import (
    _apply_keys,
    _errors,
    _gofmt,
    _gojson,
    _json,
    _quantity,
    _resources,
    _schemas,
)

STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"
MODES = (STRICT, WARN, IGNORE)
_QUANTITIES: dict[tuple[str, str], bool] = {
    **{
        (struct, field): True
        for struct, fields in {
            "ResourceRequirements": ("limits", "requests"),
            "VolumeResourceRequirements": ("limits", "requests"),
            "ResourceQuotaSpec": ("hard",),
            "ResourceQuotaStatus": ("hard", "used"),
            "LimitRangeItem": ("default", "defaultRequest", "max", "maxLimitRequestRatio", "min"),
            "PersistentVolumeSpec": ("capacity",),
            "PersistentVolumeClaimStatus": ("allocatedResources", "capacity"),
            "NodeStatus": ("allocatable", "capacity"),
            "PodSpec": ("overhead",),
            "PodStatus": ("allocatedResources",),
            "ContainerStatus": ("allocatedResources",),
        }.items()
        for field in fields
    },
    ("EmptyDirVolumeSource", "sizeLimit"): False,
    ("ResourceFieldSelector", "divisor"): False,
    ("Overhead", "podFixed"): False,
    ("MetricTarget", "value"): False,
    ("MetricTarget", "averageValue"): False,
    ("MetricValueStatus", "value"): False,
    ("MetricValueStatus", "averageValue"): False,
    ("CSIStorageCapacity", "capacity"): False,
    ("CSIStorageCapacity", "maximumVolumeSize"): False,
}
"""The fields (struct, field) whose Go type is a Quantity, or a map of them: a number is taken,
and the value is stored as the server prints it (`_quantity.stored`). True marks the core
API's ResourceLists, whose values the server's defaulting rounds up to thousandths; a
RuntimeClass's overhead is a map of quantities outside it, and keeps nano precision."""

_GO_SCALARS = {"string": "string", "integer": "int32", "number": "float64", "boolean": "bool"}


def mode(query_value: str, kubernetes_version: str) -> str:
    """The field validation a request asks for, or 400 for a value the server does not
    know. Servers before 1.25 have none: they drop unknown fields silently."""
    release = _apply_keys.release(kubernetes_version)
    if release is not None and release < (1, 25):
        return IGNORE
    if not query_value:
        return WARN if release is None or release >= (1, 27) else IGNORE
    if query_value not in MODES:
        raise _errors.bad_request(
            f"fieldValidation parameter unsupported: {query_value}; "
            f"supported values: {', '.join(MODES)}"
        )
    return query_value


def _root(resource: _resources.ResourceType, version: str) -> tuple[str, dict[str, _json.Obj]]:
    roots, schemas = _schemas.builtin(_schemas.builtin_kinds())
    return roots.get(f"{resource.group}/{version}/{resource.kind}", ""), schemas


class _TypeError(Exception):
    def __init__(self, value: Any, struct: str, path: str, go_type: str, expected: str):
        super().__init__(path)
        self.value, self.json_type = value, _json_type(value)
        self.struct, self.path = struct, path
        self.go_type, self.expected = go_type, expected

    def decoding(self) -> str:
        """What Go's JSON decoder says about the value."""
        return (
            f"json: cannot unmarshal {self.json_type} into Go struct field "
            f"{self.struct}.{self.path} of type {self.go_type}"
        )

    def converting(self) -> str:
        """What apimachinery's FromUnstructured says converting the value, as a strategic
        merge patch's result is converted: JSON numbers are int64 or float64 there, and
        strings convert to no number or bool."""
        source = _GO_KINDS.get(type(self.value), "map")
        if self.go_type.startswith("[]"):
            return f"cannot restore slice from {source}"
        if self.go_type.startswith("map["):
            return f"cannot restore map from {source}"
        if self.go_type not in _GO_SCALARS.values():
            return f"cannot restore struct from: {source}"
        if (source, self.go_type) == ("int64", "string"):
            return "cannot convert int64 to string"
        return f"unrecognized type: {self.go_type}"


_GO_KINDS = {str: "string", bool: "bool", int: "int64", float: "float64", list: "slice"}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _short(name: str) -> str:
    """`io.k8s.api.apps.v1.DeploymentSpec` as Go names the type: `v1.DeploymentSpec`."""
    parts = name.split(".")
    return ".".join(parts[-2:])


class _QuantityError(Exception):
    """A quantity the server cannot parse; the message is apimachinery's."""


class _Walker:
    def __init__(self, schemas: dict[str, _json.Obj], *, canonical: bool = True) -> None:
        self.schemas = schemas
        self.canonical = canonical
        self.unknown: list[str] = []

    def resolve(self, schema: _json.Obj) -> tuple[_json.Obj, str]:
        name = ""
        while True:
            if "$ref" in schema:
                name = str(schema["$ref"]).removeprefix(_schemas.REF)
                schema = self.schemas.get(name, {})
            elif len(schema.get("allOf") or ()) == 1 and "properties" not in schema:
                schema = schema["allOf"][0]
            else:
                return schema, name

    def go_type(self, schema: _json.Obj) -> str:
        schema, name = self.resolve(schema)
        if name:
            return _short(name)
        kind = schema.get("type")
        if kind == "array":
            return "[]" + self.go_type(schema.get("items") or {})
        if kind == "object" and "additionalProperties" in schema:
            return "map[string]" + self.go_type(schema["additionalProperties"])
        return _GO_SCALARS.get(str(kind), "interface {}")

    def is_map(self, schema: _json.Obj) -> bool:
        resolved, _ = self.resolve(schema)
        return resolved.get("type") == "object" and "additionalProperties" in resolved

    def walk(self, value: Any, schema: _json.Obj, path: str, struct: str, field: str) -> Any:
        """`value` without unknown fields (recorded in `unknown`), or _TypeError."""
        resolved, name = self.resolve(schema)
        if value is None or resolved.get("x-kubernetes-preserve-unknown-fields"):
            return value
        kind = resolved.get("type")

        def wrong() -> _TypeError:
            """Made only when raised: naming the Go type costs a schema walk of its own."""
            return _TypeError(value, struct, path, self.go_type(schema), str(kind))

        if kind == "object" and "additionalProperties" in resolved:
            if not isinstance(value, dict):
                raise wrong()
            element = resolved["additionalProperties"]
            return {
                key: self.walk(item, element, path, struct, field) for key, item in value.items()
            }
        if kind == "object":
            if not isinstance(value, dict):
                raise wrong()
            properties = resolved.get("properties") or {}
            here = name.rsplit(".", 1)[-1] if name else struct
            kept: _json.Obj = {}
            for key, item in value.items():
                inner = f"{path}.{key}" if path else key
                if key not in properties:
                    self.unknown.append(inner)
                    continue
                walked = self.walk(item, properties[key], inner, here, key)
                if walked or not self.is_map(properties[key]):
                    kept[key] = walked
            return kept
        if kind == "array":
            if not isinstance(value, list):
                raise wrong()
            items = resolved.get("items") or {}
            return [
                self.walk(item, items, f"{path}[{index}]", struct, field)
                for index, item in enumerate(value)
            ]
        if kind == "string":
            milli = _QUANTITIES.get((struct, field))
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not isinstance(value, str) and not (number and milli is not None):
                raise wrong()
            if milli is None or not self.canonical:
                return value
            try:
                return _quantity.stored(value, milli=milli)
            except ValueError as e:
                raise _QuantityError(str(e)) from None
        if kind == "integer":
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, float) and value.is_integer():
                return value
            raise wrong()
        if kind == "number":
            if isinstance(value, int | float) and not isinstance(value, bool):
                return value
            raise wrong()
        if kind == "boolean" and not isinstance(value, bool):
            raise wrong()
        return value


def decode(
    resource: _resources.ResourceType,
    version: str,
    obj: _json.Obj,
    *,
    validation: str,
) -> tuple[_json.Obj, list[str]]:
    """`obj` as the server keeps it, and the warnings to send (see the module's text)."""
    try:
        return _decode(resource, version, obj, validation=validation)
    except _TypeError as wrong:
        problem = wrong.decoding()
    except _QuantityError as e:
        problem = str(e)
    kind = resource.kind
    raise _errors.bad_request(
        f'{kind} in version "{version}" cannot be handled as a {kind}: {problem}'
    )


def decode_patched(
    resource: _resources.ResourceType,
    version: str,
    obj: _json.Obj,
    *,
    patch: Any,
    strategic: bool,
    validation: str,
) -> tuple[_json.Obj, list[str]]:
    """`decode` of the object `patch` made: a value of the wrong type is a 422 Invalid of
    the field `patch`, not a 400, as the patch handler reports an object it cannot decode.
    Its value is the patched object as JSON, and the decoder's words; for a strategic merge
    patch (merged as maps, then converted) the patch as Go prints a map, and the converter's
    words (`unrecognized type: int32`)."""
    try:
        return _decode(resource, version, obj, validation=validation)
    except _TypeError as wrong:
        problem = wrong.converting() if strategic else wrong.decoding()
    except _QuantityError as e:
        problem = str(e)
    shown = _go_value(patch) if strategic else _gojson.dumps(obj)
    invalid = f"Invalid value: {json.dumps(shown, ensure_ascii=False)}: {problem}"
    raise _errors.invalid("", "", "", [("patch", invalid)])


def _go_value(value: Any) -> str:
    """`value` (a decoded JSON document) as Go's `%v` prints it: `map[a:1 b:[x y]]`."""
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_value(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_value(item) for item in value) + "]"
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _gofmt.float64(value)
    return str(value)


def _decode(
    resource: _resources.ResourceType,
    version: str,
    obj: _json.Obj,
    *,
    validation: str,
) -> tuple[_json.Obj, list[str]]:
    """`decode`, raising _TypeError or _QuantityError for a value a built-in kind's Go types
    do not take."""
    if not resource.builtin:
        return _decode_custom(resource, version, obj, validation=validation)
    root, schemas = _root(resource, version)
    if not root:
        return obj, []
    walker = _Walker(schemas)
    kept = walker.walk(obj, {"$ref": _schemas.REF + root}, "", resource.kind, "")
    return kept, _unknown_fields(resource.kind, version, walker.unknown, validation)


def _decode_custom(
    resource: _resources.ResourceType,
    version: str,
    obj: _json.Obj,
    *,
    validation: str,
) -> tuple[_json.Obj, list[str]]:
    """A custom resource against its CRD's schema for `version`: values of the wrong type
    are 422 Invalid, one cause each; unknown fields are pruned (and refused or warned
    about as for built-in kinds). Without a schema, the object is taken as it is."""
    schema = dict(resource.schemas).get(version)
    if not isinstance(schema, dict):
        return obj, []
    checker = _CustomSchema()
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    checked = checker.walk(body, schema, "")
    kept = {k: v for k, v in obj.items() if k in ("apiVersion", "kind", "metadata")}
    kept.update(checked if isinstance(checked, dict) else {})
    kind, name = resource.kind, str((obj.get("metadata") or {}).get("name", ""))
    if checker.causes:
        raise _errors.invalid(resource.group, kind, name, checker.causes)
    return kept, _unknown_fields(kind, version, checker.unknown, validation)


def _unknown_fields(kind: str, version: str, paths: list[str], validation: str) -> list[str]:
    """The warnings about fields dropped from an object, or 400 under Strict."""
    unknown = [f'unknown field "{path}"' for path in paths]
    if unknown and validation == STRICT:
        raise _errors.bad_request(
            f'{kind} in version "{version}" cannot be handled as a {kind}: strict decoding '
            f"error: {', '.join(unknown)}"
        )
    return unknown if validation == WARN else []


_OPENAPI_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def _openapi_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return _OPENAPI_TYPES.get(type(value), "object")


class _CustomSchema:
    """Walks a value along a CRD's structural schema (apiextensions-apiserver's schema
    validation and pruning)."""

    def __init__(self) -> None:
        self.causes: list[tuple[str, str]] = []
        self.unknown: list[str] = []

    def wrong(self, path: str, value: Any, expected: str) -> None:
        got = _openapi_type(value)
        self.causes.append(
            (path, f'Invalid value: "{got}": {path} in body must be of type {expected}: "{got}"')
        )

    def walk(self, value: Any, schema: _json.Obj, path: str) -> Any:
        if value is None or not isinstance(schema, dict):
            return value
        if schema.get("x-kubernetes-int-or-string"):
            if not isinstance(value, int | str) or isinstance(value, bool):
                self.wrong(path, value, "integer,string")
            return value
        kind = schema.get("type") or (
            "object" if "properties" in schema or "additionalProperties" in schema else ""
        )
        if kind == "object":
            return self.walk_object(value, schema, path)
        if kind == "array":
            if not isinstance(value, list):
                self.wrong(path, value, "array")
                return value
            items = schema.get("items") or {}
            return [self.walk(item, items, f"{path}[{n}]") for n, item in enumerate(value)]
        matches = {
            "string": isinstance(value, str),
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "number": isinstance(value, int | float) and not isinstance(value, bool),
            "boolean": isinstance(value, bool),
        }.get(str(kind), True)
        if not matches:
            self.wrong(path, value, str(kind))
        return value

    def walk_object(self, value: Any, schema: _json.Obj, path: str) -> Any:
        if not isinstance(value, dict):
            self.wrong(path, value, "object")
            return value
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        keep_unknown = schema.get("x-kubernetes-preserve-unknown-fields") or extra is True
        kept: _json.Obj = {}
        for key, item in value.items():
            inner = f"{path}.{key}" if path else key
            if key in properties:
                kept[key] = self.walk(item, properties[key], inner)
            elif isinstance(extra, dict):
                kept[key] = self.walk(item, extra, inner)
            elif keep_unknown:
                kept[key] = item
            else:
                self.unknown.append(inner)
        return kept


def check_apply(
    resource: _resources.ResourceType,
    version: str,
    config: _json.Obj,
    kubernetes_version: str,
) -> None:
    """Refuse an apply configuration with a field the kind does not have or a value of the
    wrong type, as structured-merge-diff's typed conversion does."""
    root, schemas = _root(resource, version) if resource.builtin else ("", {})
    if not root:
        return
    walker = _Walker(schemas, canonical=False)
    problem = ""
    try:
        walker.walk(config, {"$ref": _schemas.REF + root}, "", resource.kind, "")
    except _TypeError as wrong:
        expected = (
            "numeric (int or float)"
            if wrong.expected in ("integer", "number")
            else (wrong.expected or "a value")
        )
        problem = f".{wrong.path}: expected {expected}, got {wrong.json_type}"
    if not problem and walker.unknown:
        problem = f".{walker.unknown[0]}: field not declared in schema"
    if not problem:
        return
    release = _apply_keys.release(kubernetes_version)
    if release is not None and release < (1, 25):
        raise _errors.ApiError(500, f"failed to create typed patch object: {problem}", reason="")
    metadata = config.get("metadata") or {}
    where = "/".join(p for p in (metadata.get("namespace", ""), metadata.get("name", "")) if p)
    gvk = f"{resource.api_version(version)}, Kind={resource.kind}"
    raise _errors.bad_request(f"failed to create typed patch object ({where}; {gvk}): {problem}")
