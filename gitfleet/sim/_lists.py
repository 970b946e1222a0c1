"""How a list field merges: by a key (containers by name), as a set (finalizers), or as one
atomic value. Strategic merge patch and server-side apply both follow this table.

Kubernetes declares it per Go field (`patchMergeKey`, `listType=map`, `listMapKey`); without
the schemas, the field's name says it for the built-in kinds (the same field names carry the
same keys wherever they appear). Custom resources only get it for their metadata; their own
lists are atomic, like a CRD without `x-kubernetes-list-type`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ATOMIC = "atomic"
SET = "set"

_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "hostAliases": "ip",
    "ownerReferences": "uid",
    "conditions": "type",
    "topologySpreadConstraints": "topologyKey",
    "resourceClaims": "name",
}
_METADATA_LISTS = {("metadata", "ownerReferences"): "uid", ("metadata", "finalizers"): SET}


def merge_key(path: Sequence[str], items: Sequence[Any], builtin: bool) -> str:
    """The key a list at field `path` (names from the object root) merges on, or ATOMIC/SET.
    `items` are the list's elements (from both sides of a merge): `ports` is keyed by
    `containerPort` in a container and by `port` in a Service."""
    path = tuple(path)
    if path in _METADATA_LISTS:
        return _METADATA_LISTS[path]
    if not builtin or not path:
        return ATOMIC
    field = path[-1]
    if field == "finalizers":
        return SET
    if field == "ports":
        is_container = any(isinstance(i, dict) and "containerPort" in i for i in items)
        return "containerPort" if is_container else "port"
    return _KEYS.get(field, ATOMIC)
