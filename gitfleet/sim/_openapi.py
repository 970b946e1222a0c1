"""The OpenAPI documents a cluster publishes, as kubectl reads them: `/openapi/v3` (an index
of one document per group version, each at `/openapi/v3/apis/<group>/<version>?hash=…`) and
`/openapi/v2` (one Swagger 2.0 document, in JSON, and in protocol buffers: `_openapi_pb`).

kubectl (from 1.27) reads the v3 document of a kind's group version to learn that PATCH takes
`fieldValidation`, and then leaves validation to the server; for a group version the v3 index
does not list (a custom resource applied with its definition), it reads the v2 document in
protocol buffers instead. `kubectl explain` reads the kind's schema in v3 (in v2 with `--output
plaintext-openapiv2`). The paths carry each operation's `x-kubernetes-group-version-kind`, the
schemas theirs, as a real server's do.

Custom resources are described by their CRD's `openAPIV3Schema`. Built-in kinds are
described down to every field by the kubernetes package's models (`_schemas`); a kind the
package has no model for (the metrics API's) only to its top-level fields (`spec`, `status`,
`data`, …). Hashes are of the document's content, so a client's cache keyed by them follows
CRD changes; documents are built once per catalog.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterator
from typing import Any

from gitfleet.sim import _json, _resources, _schemas

V3_REF = "#/components/schemas/"
V2_REF = "#/definitions/"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
SCALE = "io.k8s.api.autoscaling.v1.Scale"
_V2_UNSUPPORTED = frozenset({"nullable", "anyOf", "oneOf", "not"})

_STRING = {"type": "string"}
_BOOLEAN = {"type": "boolean"}
_INTEGER = {"type": "integer", "format": "int64"}
_OBJECT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
_OBJECTS = {"type": "array", "items": _OBJECT}
_STRINGS = {"type": "array", "items": _STRING}
_STRING_MAP = {"type": "object", "additionalProperties": _STRING}

_OBJECT_META_FIELDS: dict[str, tuple[_json.Obj, str]] = {
    "name": (_STRING, "The name of the object, unique within its namespace and kind."),
    "generateName": (_STRING, "A prefix the server completes into a unique name on create."),
    "namespace": (_STRING, "The namespace the object lives in; empty for cluster-wide kinds."),
    "labels": (_STRING_MAP, "Keys and values that selectors match on."),
    "annotations": (_STRING_MAP, "Keys and values for tools; never used to select."),
    "uid": (_STRING, "Set by the server: unique over the whole life of the cluster."),
    "resourceVersion": (_STRING, "Set by the server: changes on every write of the object."),
    "generation": (_INTEGER, "Set by the server: counts the changes of the desired state."),
    "creationTimestamp": (
        {"type": "string", "format": "date-time"},
        "Set by the server: when the object was created.",
    ),
    "deletionTimestamp": (
        {"type": "string", "format": "date-time"},
        "Set by the server: when the deletion of the object was asked for.",
    ),
    "deletionGracePeriodSeconds": (_INTEGER, "Seconds allowed for a graceful deletion."),
    "finalizers": (_STRINGS, "What must happen before the object may be removed."),
    "ownerReferences": (_OBJECTS, "The objects this object depends on (garbage collection)."),
    "managedFields": (_OBJECTS, "Set by the server: which manager owns which fields."),
}

_DESCRIPTIONS = {
    "spec": "The desired state of the {kind}.",
    "status": "The state of the {kind} the cluster last observed; written by the cluster.",
    "data": "The {kind}'s data, by key.",
    "binaryData": "The {kind}'s binary data, by key (base64).",
    "stringData": "Data given as plain strings, stored base64-encoded in data on write.",
    "immutable": "If true, the data cannot change once set.",
    "type": "The type of the {kind}.",
}
_LIST_FIELDS = frozenset(
    {
        "subsets",
        "rules",
        "subjects",
        "webhooks",
        "secrets",
        "imagePullSecrets",
        "conditions",
        "mountOptions",
        "allowedTopologies",
        "related",
    }
)
_FIELD_TYPES: dict[str, _json.Obj] = {
    "data": _STRING_MAP,
    "stringData": _STRING_MAP,
    "parameters": _STRING_MAP,
    "binaryData": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
    "immutable": _BOOLEAN,
    "automountServiceAccountToken": _BOOLEAN,
    "globalDefault": _BOOLEAN,
    "allowVolumeExpansion": _BOOLEAN,
    "value": _INTEGER,
    "revision": _INTEGER,
    "count": _INTEGER,
}
_STRING_FIELDS = frozenset(
    {
        "type",
        "provisioner",
        "reclaimPolicy",
        "volumeBindingMode",
        "description",
        "preemptionPolicy",
        "reason",
        "message",
        "action",
        "reportingComponent",
        "reportingInstance",
        "firstTimestamp",
        "lastTimestamp",
        "eventTime",
    }
)
_TOP_FIELDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "configmaps"): ("data", "binaryData", "immutable"),
    ("", "secrets"): ("data", "stringData", "type", "immutable"),
    ("", "serviceaccounts"): ("secrets", "imagePullSecrets", "automountServiceAccountToken"),
    ("", "endpoints"): ("subsets",),
    ("", "events"): (
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "count",
        "type",
        "eventTime",
        "series",
        "action",
        "related",
        "reportingComponent",
        "reportingInstance",
    ),
    ("", "componentstatuses"): ("conditions",),
    ("apps", "controllerrevisions"): ("data", "revision"),
    ("rbac.authorization.k8s.io", "roles"): ("rules",),
    ("rbac.authorization.k8s.io", "clusterroles"): ("rules", "aggregationRule"),
    ("rbac.authorization.k8s.io", "rolebindings"): ("subjects", "roleRef"),
    ("rbac.authorization.k8s.io", "clusterrolebindings"): ("subjects", "roleRef"),
    ("storage.k8s.io", "storageclasses"): (
        "provisioner",
        "parameters",
        "reclaimPolicy",
        "mountOptions",
        "allowVolumeExpansion",
        "volumeBindingMode",
        "allowedTopologies",
    ),
    ("scheduling.k8s.io", "priorityclasses"): (
        "value",
        "globalDefault",
        "description",
        "preemptionPolicy",
    ),
    ("admissionregistration.k8s.io", "mutatingwebhookconfigurations"): ("webhooks",),
    ("admissionregistration.k8s.io", "validatingwebhookconfigurations"): ("webhooks",),
}
_WRITE_PARAMETERS = ("dryRun", "fieldManager", "fieldValidation")
_LIST_PARAMETERS = (
    "labelSelector",
    "fieldSelector",
    "limit",
    "continue",
    "resourceVersion",
    "watch",
    "timeoutSeconds",
    "allowWatchBookmarks",
)


def _gvk(group: str, version: str, kind: str) -> _json.Obj:
    return {"group": group, "version": version, "kind": kind}


def schema_name(resource: _resources.ResourceType, version: str) -> str:
    """A kind's schema name as a real server gives it (`io.k8s.api.apps.v1.Deployment`;
    reversed group for custom resources: `com.example.v1.Widget`)."""
    if not resource.builtin:
        return ".".join([*reversed(resource.group.split(".")), version, resource.kind])
    return f"{_schemas.package(resource.group)}.{version}.{resource.kind}"


def _field(kind: str, name: str) -> _json.Obj:
    if name in _FIELD_TYPES:
        shape = _FIELD_TYPES[name]
    elif name in _LIST_FIELDS:
        shape = _OBJECTS
    elif name in _STRING_FIELDS:
        shape = _STRING
    else:
        shape = _OBJECT
    description = _DESCRIPTIONS.get(name, "The {kind}'s " + name + ".").format(kind=kind)
    return {**shape, "description": description}


def _kind_schema(resource: _resources.ResourceType, version: str) -> _json.Obj:
    """The schema of a kind in one version, with references to ObjectMeta."""
    kind = resource.kind
    if resource.builtin:
        fields = _TOP_FIELDS.get((resource.group, resource.plural)) or (
            ("spec", "status") if resource.status else ("spec",)
        )
        schema: _json.Obj = {
            "type": "object",
            "description": f"{kind} ({resource.api_version(version)}), as the simulated cluster "
            "serves it: fields below the top level are not described.",
            "properties": {name: _field(kind, name) for name in fields},
        }
    else:
        schema = _json.clone(dict(resource.schemas).get(version) or _OBJECT)
        schema.setdefault("description", f"{kind} ({resource.api_version(version)}).")
    properties = schema.setdefault("properties", {})
    properties.update(
        apiVersion={**_STRING, "description": "The version of the schema of this object."},
        kind={**_STRING, "description": "The kind of this object."},
        metadata={
            "description": "Standard object metadata.",
            "allOf": [{"$ref": V3_REF + OBJECT_META}],
        },
    )
    schema["x-kubernetes-group-version-kind"] = [_gvk(resource.group, version, kind)]
    return schema


def _common_schemas() -> dict[str, _json.Obj]:
    return {
        OBJECT_META: {
            "type": "object",
            "description": "What every object has: its name, namespace, labels and the fields "
            "the server keeps.",
            "properties": {
                name: {**shape, "description": text}
                for name, (shape, text) in _OBJECT_META_FIELDS.items()
            },
        },
        SCALE: {
            "type": "object",
            "description": "The replicas of a scalable object (its scale subresource).",
            "properties": {
                "apiVersion": _STRING,
                "kind": _STRING,
                "metadata": {"allOf": [{"$ref": V3_REF + OBJECT_META}]},
                "spec": {
                    "type": "object",
                    "properties": {"replicas": {**_INTEGER, "description": "Wanted replicas."}},
                },
                "status": {
                    "type": "object",
                    "properties": {
                        "replicas": {**_INTEGER, "description": "Observed replicas."},
                        "selector": {**_STRING, "description": "The pods' label selector."},
                    },
                },
            },
            "x-kubernetes-group-version-kind": [_gvk("autoscaling", "v1", "Scale")],
        },
    }


# ---- paths -------------------------------------------------------------------------------


def _operations(
    resource: _resources.ResourceType, version: str
) -> Iterator[tuple[str, str, str, str, tuple[str, ...]]]:
    """(path, method, action, schema, query parameters) of every operation on a kind."""
    prefix = f"/apis/{resource.group}/{version}" if resource.group else f"/api/{version}"
    scope = f"{prefix}/namespaces/{{namespace}}" if resource.namespaced else prefix
    collection, item = f"{scope}/{resource.plural}", f"{scope}/{resource.plural}/{{name}}"
    name = schema_name(resource, version)
    verbs = set(resource.verbs)
    for verb, method, action, path, parameters in (
        ("list", "get", "list", collection, _LIST_PARAMETERS),
        ("create", "post", "post", collection, _WRITE_PARAMETERS),
        ("deletecollection", "delete", "deletecollection", collection, ("dryRun",)),
        ("get", "get", "get", item, ()),
        ("update", "put", "put", item, _WRITE_PARAMETERS),
        ("patch", "patch", "patch", item, (*_WRITE_PARAMETERS, "force")),
        ("delete", "delete", "delete", item, ("dryRun",)),
    ):
        if verb in verbs:
            yield path, method, action, name, parameters
    if resource.namespaced and "list" in verbs:
        yield f"{prefix}/{resource.plural}", "get", "list", name, _LIST_PARAMETERS
    for subresource, schema in (("status", name if resource.status else ""), ("scale", SCALE)):
        if not schema or (subresource == "scale" and resource.scale is None):
            continue
        for method, action, parameters in (
            ("get", "get", ()),
            ("put", "put", _WRITE_PARAMETERS),
            ("patch", "patch", (*_WRITE_PARAMETERS, "force")),
        ):
            yield f"{item}/{subresource}", method, action, schema, parameters


def _paths(
    types: list[tuple[_resources.ResourceType, str]], ref: str, v3: bool
) -> dict[str, _json.Obj]:
    paths: dict[str, _json.Obj] = {}
    for resource, version in types:
        for path, method, action, schema, parameters in _operations(resource, version):
            gvk = (
                _gvk("autoscaling", "v1", "Scale")
                if schema == SCALE
                else _gvk(resource.group, version, resource.kind)
            )
            body = {"$ref": ref + schema}
            response = (
                {"content": {"application/json": {"schema": body}}} if v3 else {"schema": body}
            )
            entry = paths.setdefault(path, {})
            entry[method] = {
                "operationId": f"{action}{resource.kind}{path.count('/')}{method}",
                "parameters": [
                    {"name": name, "in": "query", **({"schema": _STRING} if v3 else _STRING)}
                    for name in parameters
                ],
                "responses": {"200": {"description": "OK", **response}},
                "x-kubernetes-action": action,
                "x-kubernetes-group-version-kind": gvk,
            }
            entry["parameters"] = [
                {
                    "name": name,
                    "in": "path",
                    "required": True,
                    **({"schema": _STRING} if v3 else _STRING),
                }
                for name in ("namespace", "name")
                if "{" + name + "}" in path
            ]
    return paths


# ---- documents ---------------------------------------------------------------------------


def _served(
    catalog: _resources.Catalog, group: str | None = None, version: str | None = None
) -> list[tuple[_resources.ResourceType, str]]:
    return sorted(
        (
            (resource, served)
            for resource in catalog.types
            for served in resource.versions
            if (group is None or resource.group == group) and (version in (None, served))
        ),
        key=lambda pair: (pair[0].group, pair[1], pair[0].plural),
    )


@functools.lru_cache(maxsize=256)
def group_version(
    catalog: _resources.Catalog, group: str, version: str, kubernetes_version: str
) -> _json.Obj | None:
    """The OpenAPI v3 document of one group version, or None if nothing is served there.
    Documents are kept per catalog (a new one comes with every CRD change); read-only."""
    types = _served(catalog, group, version)
    if not types:
        return None
    return {
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": kubernetes_version},
        "paths": _paths(types, V3_REF, v3=True),
        "components": {"schemas": _component_schemas(types)},
    }


def _component_schemas(types: list[tuple[_resources.ResourceType, str]]) -> dict[str, _json.Obj]:
    """The schemas of `types` and of all they refer to: built-in kinds as the kubernetes
    package's models describe them (`_schemas`), the others from their CRD."""
    schemas = _common_schemas()
    roots, known = _schemas.builtin(_schemas.builtin_kinds())
    wanted: list[tuple[str | None, _json.Obj | None]] = [(roots.get("autoscaling/v1/Scale"), None)]
    for resource, version in types:
        root = roots.get(f"{resource.group}/{version}/{resource.kind}")
        if resource.builtin and root is not None:
            wanted.append((root, _gvk(resource.group, version, resource.kind)))
        else:
            schemas[schema_name(resource, version)] = _kind_schema(resource, version)
    for root, gvk in wanted:
        if root is None:
            continue
        for name in _schemas.reachable(root, known):
            schemas[name] = known[name]
        if gvk is not None:
            schemas[root] = {**known[root], "x-kubernetes-group-version-kind": [gvk]}
    if SCALE in schemas:
        schemas[SCALE] = {
            **schemas[SCALE],
            "x-kubernetes-group-version-kind": [_gvk("autoscaling", "v1", "Scale")],
        }
    return schemas


def group_version_path(group: str, version: str) -> str:
    return f"apis/{group}/{version}" if group else f"api/{version}"


@functools.lru_cache(maxsize=64)
def v3_index(catalog: _resources.Catalog, kubernetes_version: str) -> _json.Obj:
    """`/openapi/v3`: where each group version's document is, with its content hash."""
    paths: dict[str, _json.Obj] = {}
    for group, version in sorted({(r.group, v) for r, v in _served(catalog)}):
        document = group_version(catalog, group, version, kubernetes_version)
        path = group_version_path(group, version)
        paths[path] = {"serverRelativeURL": f"/openapi/v3/{path}?hash={content_hash(document)}"}
    return {"paths": paths}


def content_hash(document: Any) -> str:
    encoded = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha512(encoded).hexdigest().upper()


def _for_v2(value: Any) -> Any:
    """A v3 schema as Swagger 2.0 takes it: `#/definitions/` references, and none of the
    keywords 2.0 lacks (`nullable`, `oneOf`, `anyOf`, `not`). A reference that v3 wraps in
    `allOf` to give it a description is the `$ref` itself beside that description, as a real
    server's v2 document writes it (kubectl's v2 reader follows no `allOf`)."""
    if isinstance(value, dict):
        wrapped = value.get("allOf")
        if isinstance(wrapped, list) and len(wrapped) == 1 and set(wrapped[0]) == {"$ref"}:
            value = {**{k: v for k, v in value.items() if k != "allOf"}, **wrapped[0]}
        return {
            key: (
                V2_REF + item.removeprefix(V3_REF)
                if key == "$ref" and isinstance(item, str)
                else _for_v2(item)
            )
            for key, item in value.items()
            if key not in _V2_UNSUPPORTED
        }
    if isinstance(value, list):
        return [_for_v2(item) for item in value]
    return value


@functools.lru_cache(maxsize=16)
def swagger(catalog: _resources.Catalog, kubernetes_version: str) -> _json.Obj:
    """`/openapi/v2`: every served kind in one Swagger 2.0 document."""
    types = _served(catalog)
    return {
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": kubernetes_version},
        "paths": _paths(types, V2_REF, v3=False),
        "definitions": _for_v2(_component_schemas(types)),
    }
