"""The OpenAPI schemas of the built-in kinds, read from the model classes of the `kubernetes`
Python package (a dependency of gitfleet): each model names its fields' JSON names and
types (`attribute_map`, `openapi_types`) and carries their descriptions, generated from the
same OpenAPI document a real API server publishes. So `kubectl explain deployment.spec.replicas`
reads the real description, and validation knows every field's type, without the simulator
carrying a copy of Kubernetes' schemas.

The models are those of the installed package's Kubernetes release, whatever version the
simulated cluster claims, read through `gitfleet.kubemodels` (which imports nothing of
gitfleet; never the package's API client). Where a model is missing (or the package is
absent), a kind has no schema here and `_openapi` falls back to describing its top-level
fields.

Two generations of the package are read: pydantic models (descriptions in `model_fields`,
with which fields are required) and the older classes (descriptions in the docstrings of
their properties; no required fields known).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gitfleet import kubemodels
from gitfleet.sim import _json, _resources

REF = "#/components/schemas/"
_META = "io.k8s.apimachinery.pkg.apis.meta"
_META_TYPES = frozenset(
    {
        "ObjectMeta",
        "ListMeta",
        "LabelSelector",
        "LabelSelectorRequirement",
        "ManagedFieldsEntry",
        "OwnerReference",
        "Condition",
        "Status",
        "StatusDetails",
        "StatusCause",
        "DeleteOptions",
        "Preconditions",
    }
)
_PACKAGES = {
    "": "io.k8s.api.core",
    "apiextensions.k8s.io": "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
    "apiregistration.k8s.io": "io.k8s.kube-aggregator.pkg.apis.apiregistration",
}
_PRIMITIVES: dict[str, _json.Obj] = {
    "str": {"type": "string"},
    "int": {"type": "integer", "format": "int64"},
    "float": {"type": "number", "format": "double"},
    "bool": {"type": "boolean"},
    "datetime": {"type": "string", "format": "date-time"},
    "date": {"type": "string", "format": "date"},
    "bytes": {"type": "string", "format": "byte"},
    "object": {"x-kubernetes-preserve-unknown-fields": True},
}
_NOQA = re.compile(r"\s*# noqa: E501")


def package(group: str) -> str:
    """The schema-name prefix of a group's kinds: `io.k8s.api.apps`, `io.k8s.api.core`."""
    return _PACKAGES.get(group) or f"io.k8s.api.{group.removesuffix('.k8s.io').split('.')[0]}"


def _split(class_name: str) -> tuple[str, str, str]:
    """(group prefix or "", version, type name) of a model class's name."""
    match = re.match(r"^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z].*)$", class_name)
    if match is None:
        return "", "", class_name
    prefix, version, name = match.groups()
    return (prefix or "").lower(), version.lower(), name


def _description(cls: type, attribute: str) -> str:
    fields = getattr(cls, "model_fields", None)
    if isinstance(fields, dict) and attribute in fields:
        return str(getattr(fields[attribute], "description", None) or "")
    text = getattr(getattr(cls, attribute, None), "__doc__", None) or ""
    lines = [_NOQA.sub("", line).strip() for line in text.splitlines()[1:]]
    body = "\n".join(line for line in lines if not line.startswith(":")).strip()
    return body


def _class_description(cls: type) -> str:
    text = cls.__doc__ or ""
    if text.lstrip().startswith("NOTE: This class is auto generated"):
        return ""
    first = text.split("Attributes:")[0]
    return " ".join(line.strip() for line in first.splitlines() if line.strip())


def _required(cls: type, attribute: str) -> bool:
    fields = getattr(cls, "model_fields", None)
    if not isinstance(fields, dict) or attribute not in fields:
        return False
    is_required = getattr(fields[attribute], "is_required", None)
    return bool(is_required()) if callable(is_required) else False


class _Builder:
    """Turns model classes into named schemas, following references."""

    def __init__(self) -> None:
        self.schemas: dict[str, _json.Obj] = {}
        self.names: dict[str, str] = {}

    def name(self, class_name: str, group: str) -> str:
        """The schema name of a model, as a real server names it where this can tell."""
        if class_name not in self.names:
            prefix, version, name = _split(class_name)
            if name in _META_TYPES and not prefix:
                full = f"{_META}.{version}.{name}"
            else:
                full = f"{package('' if prefix == 'core' else prefix if prefix else group)}"
                full = f"{full}.{version}.{name}" if version else f"{full}.{name}"
            self.names[class_name] = full
            self.schemas[full] = {}  # reserved: references may loop back
            self.schemas[full] = self._object(class_name, group)
        return self.names[class_name]

    def _object(self, class_name: str, group: str) -> _json.Obj:
        cls = kubemodels.model(class_name)
        assert cls is not None
        properties: dict[str, _json.Obj] = {}
        required: list[str] = []
        for attribute, field, type_text in kubemodels.fields(cls):
            shape = self.shape(type_text, group)
            description = _description(cls, attribute)
            if "$ref" in shape:
                # The package drops the descriptions of fields that refer to a type: give
                # the type's own, so that a list of fields describes each.
                referred = kubemodels.model(type_text.strip())
                description = description or (_class_description(referred) if referred else "")
                shape = {"allOf": [shape]}
            properties[field] = {**({"description": description} if description else {}), **shape}
            if _required(cls, attribute):
                required.append(field)
        schema: _json.Obj = {"type": "object"}
        description = _class_description(cls)
        if description:
            schema["description"] = description
        schema["properties"] = properties
        if required:
            schema["required"] = sorted(required)
        return schema

    def shape(self, type_text: str, group: str) -> _json.Obj:
        type_text = type_text.strip()
        if type_text in _PRIMITIVES:
            return dict(_PRIMITIVES[type_text])
        item = kubemodels.listed(type_text)
        if item is not None:
            return {"type": "array", "items": self.shape(item, group)}
        value = kubemodels.mapped(type_text)
        if value is not None:
            return {"type": "object", "additionalProperties": self.shape(value, group)}
        if kubemodels.model(type_text) is not None:
            return {"$ref": REF + self.name(type_text, group)}
        return dict(_PRIMITIVES["object"])


@functools.cache
def _built(kinds: tuple[tuple[str, str, str], ...]) -> tuple[dict[str, str], dict[str, _json.Obj]]:
    builder = _Builder()
    roots: dict[str, str] = {}
    for group, version, kind in kinds:
        class_name = kubemodels.kind_model(group, version, kind)
        if class_name is not None:
            roots[f"{group}/{version}/{kind}"] = builder.name(class_name, group)
    return roots, builder.schemas


def builtin_kinds() -> tuple[tuple[str, str, str], ...]:
    """Every built-in kind, core first, and the Scale of the scale subresource."""
    kinds = sorted(
        ((r.group, v, r.kind) for r in _resources.BUILTIN for v in r.versions),
        key=lambda kind: (kind[0] != "", kind),
    )
    return (*kinds, ("autoscaling", "v1", "Scale"))


def builtin(
    kinds: tuple[tuple[str, str, str], ...],
) -> tuple[dict[str, str], dict[str, _json.Obj]]:
    """For (group, version, kind) triples (core kinds first, so the types they share are
    named after the core group): the schema name of each kind the package has a model for,
    by "group/version/kind", and every schema they reach, by name. Computed once per set of
    kinds; treat the result as read-only."""
    return _built(kinds)


def reachable(name: str, schemas: dict[str, _json.Obj]) -> set[str]:
    """The names of the schemas `name` refers to, itself included."""
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen or current not in schemas:
            continue
        seen.add(current)
        pending.extend(_references(schemas[current]))
    return seen


def _references(value: Any) -> list[str]:
    if isinstance(value, dict):
        found = [
            item.removeprefix(REF)
            for key, item in value.items()
            if key == "$ref" and isinstance(item, str)
        ]
        for item in value.values():
            found.extend(_references(item))
        return found
    if isinstance(value, list):
        return [name for item in value for name in _references(item)]
    return []
