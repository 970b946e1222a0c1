"""Decide what each document is and build its object: a typed Karmada object or a template.

Karmada kinds gitfleet reads are parsed with their model class (`Kind.from_doc`); a document
that does not parse is reported at its first bad field and left out of the objects. Other kinds
of Karmada's own API groups are never propagated by Karmada (its detector skips those groups),
so gitfleet ignores them with a warning. Everything else is a resource template, kept raw.

Every object needs apiVersion, kind and metadata.name; names and namespaces must be usable as
one path segment (Kubernetes' rule for object names in API paths), because later stages write
files named after them.

A list document (`kind: List`, or any `*List` kind, with `items`) stands for its items, as
kubectl applies it (apimachinery's unstructured list decoding): each item is read as a
document of its own, located at its place in the list; an item naming neither apiVersion nor
kind takes the list's apiVersion and its kind without the `List` suffix.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from gitfleet.errors import SchemaError
from gitfleet.model import (
    autoscaling,
    cluster,
    config,
    diagnostic,
    kinds,
    loaded,
    meta,
    objects,
    policy,
    template,
)
from gitfleet.model.origin import Origin

KARMADA_KINDS: dict[tuple[str, str], type[meta.ApiObject]] = {
    (cls.API_VERSION, cls.KIND): cls for cls in kinds.SOURCE_KINDS
}
"""The Karmada kinds a source may hold, by (apiVersion, kind)."""

KARMADA_GROUPS = frozenset(
    f"{name}.karmada.io"
    for name in (
        "cluster",
        "policy",
        "work",
        "config",
        "networking",
        "autoscaling",
        "remedy",
        "apps",
    )
)
"""API groups whose objects Karmada never propagates (pkg/detector: skipped groups)."""

_KIND_NAMES = {kind: api_version for api_version, kind in KARMADA_KINDS}


def _segment_problem(value: str) -> str | None:
    """Kubernetes' IsValidPathSegmentName."""
    if value in (".", ".."):
        return f"{value!r} may not be used"
    for char in "/%":
        if char in value:
            return f"{value!r} may not contain {char!r}"
    return None


@dataclasses.dataclass(frozen=True, slots=True)
class File:
    """What one file's documents became. Immutable: loads of later revisions share it."""

    documents: tuple[loaded.Document, ...]
    objects: tuple[meta.ApiObject | template.ResourceTemplate, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]


@dataclasses.dataclass(slots=True)
class Classified:
    """The documents of a source and the objects built from them."""

    documents: list[loaded.Document] = dataclasses.field(default_factory=list)
    objects: list[meta.ApiObject | template.ResourceTemplate] = dataclasses.field(
        default_factory=list
    )
    diagnostics: list[diagnostic.Diagnostic] = dataclasses.field(default_factory=list)

    def file(self) -> File:
        return File(tuple(self.documents), tuple(self.objects), tuple(self.diagnostics))

    def extend(self, file: File) -> None:
        self.documents += file.documents
        self.objects += file.objects
        self.diagnostics += file.diagnostics

    def reject(
        self, body: dict[str, Any], origin: Origin, role: loaded.Role, where: Origin, message: str
    ) -> None:
        """Keep the document (at `origin`) with the error (at `where`) that left it out."""
        problem = diagnostic.error(where, message)
        self.documents.append(loaded.Document(body, origin, role, problem))
        self.diagnostics.append(problem)

    def add(self, value: Any, origin: Origin) -> None:
        if not isinstance(value, dict):
            shape = "a list" if isinstance(value, list) else "a scalar"
            self.diagnostics.append(
                diagnostic.error(origin, f"document is {shape}, not a Kubernetes object")
            )
            return
        if _is_list(value):
            self._items(value, origin)
            return
        problem = _identity_problem(value, origin)
        if problem is not None:
            where, message = problem
            self.reject(value, origin, loaded.Role.INVALID, where, message)
            return
        api_version, kind = value["apiVersion"], value["kind"]
        model = KARMADA_KINDS.get((api_version, kind))
        if model is not None:
            self._karmada(model, value, origin)
        elif api_version.partition("/")[0] in KARMADA_GROUPS:
            self._other_karmada(value, origin)
        else:
            self.documents.append(loaded.Document(value, origin, loaded.Role.TEMPLATE))
            self.objects.append(template.ResourceTemplate(value, origin))  # type: ignore[arg-type]

    def _items(self, body: dict[str, Any], origin: Origin) -> None:
        items = body.get("items") or []
        if not isinstance(items, list):
            self.diagnostics.append(
                diagnostic.error(origin.at("items"), f"{body['kind']}: items must be a list")
            )
            return
        api_version, kind = body.get("apiVersion"), body["kind"].removesuffix("List")
        for index, item in enumerate(items):
            if isinstance(item, dict) and "apiVersion" not in item and "kind" not in item:
                item = {"apiVersion": api_version, "kind": kind, **item}
            self.add(item, origin.at("items", index))

    def _karmada(self, model: type[meta.ApiObject], body: dict[str, Any], origin: Origin) -> None:
        meta_body = body["metadata"]
        who = loaded.describe(model.KIND, meta_body.get("namespace", ""), meta_body["name"])
        try:
            obj = model.from_doc(body, origin)
        except SchemaError as exc:
            self.reject(body, origin, loaded.Role.KARMADA, exc.origin, f"{who}: {exc.message}")
            return
        self.documents.append(loaded.Document(body, origin, loaded.Role.KARMADA))
        self.objects.append(obj)

    def _other_karmada(self, body: dict[str, Any], origin: Origin) -> None:
        kind, api_version = body["kind"], body["apiVersion"]
        if kind in _KIND_NAMES:
            message = f"{kind} must have apiVersion {_KIND_NAMES[kind]}, got {api_version}"
            self.reject(body, origin, loaded.Role.INVALID, origin.at("apiVersion"), message)
            return
        warning = diagnostic.warning(
            origin, f"{api_version} {kind} is not read by gitfleet (Karmada never propagates it)"
        )
        self.documents.append(loaded.Document(body, origin, loaded.Role.IGNORED))
        self.diagnostics.append(warning)


def _is_list(body: dict[str, Any]) -> bool:
    kind = body.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and "items" in body


def _identity_problem(body: dict[str, Any], origin: Origin) -> tuple[Origin, str] | None:
    """Where and why a document lacks a usable apiVersion, kind, name or namespace."""
    for key in ("apiVersion", "kind"):
        value = body.get(key)
        if value is None:
            return origin, f"document has no {key}"
        if not isinstance(value, str) or not value:
            return origin.at(key), f"{key} must be a non-empty string"
    who = body["kind"]
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        where = origin.at("metadata") if "metadata" in body else origin
        return where, f"{who} has no metadata.name"
    for key in ("name", "namespace"):
        value = metadata.get(key, "")
        if not isinstance(value, str):
            return origin.at("metadata", key), f"{who}: metadata.{key} must be a string"
        problem = _segment_problem(value)
        if problem:
            return origin.at("metadata", key), f"{who}: metadata.{key} {problem}"
    if not metadata.get("name"):
        return origin.at("metadata"), f"{who} has no metadata.name"
    return None


def _sort_key(obj: meta.ApiObject | template.ResourceTemplate) -> tuple[Any, ...]:
    place = (obj.origin.path, obj.origin.line, obj.origin.col)
    if isinstance(obj, template.ResourceTemplate):
        return (obj.api_version, obj.kind, obj.namespace, obj.name, *place)
    return (obj.namespace, obj.name, *place)


_FIELDS: dict[type[Any], str] = {
    template.ResourceTemplate: "templates",
    policy.PropagationPolicy: "propagation_policies",
    policy.ClusterPropagationPolicy: "cluster_propagation_policies",
    policy.OverridePolicy: "override_policies",
    policy.ClusterOverridePolicy: "cluster_override_policies",
    policy.ClusterTaintPolicy: "cluster_taint_policies",
    cluster.Cluster: "clusters",
    config.ResourceInterpreterCustomization: "customizations",
    autoscaling.FederatedHPA: "federated_hpas",
}


def object_set(items: Iterable[meta.ApiObject | template.ResourceTemplate]) -> objects.ObjectSet:
    """Objects grouped by kind, each group sorted (templates by apiVersion and kind first)."""
    groups: dict[str, list[Any]] = {name: [] for name in _FIELDS.values()}
    for item in items:
        groups[_FIELDS[type(item)]].append(item)
    return objects.ObjectSet(**{k: tuple(sorted(v, key=_sort_key)) for k, v in groups.items()})
