"""Where the containers of a workload are, for the overriders that edit containers
(Karmada: pkg/util/overridemanager/{imageoverride,commandargsoverride}.go).

Karmada decides by `kind` alone (any apiVersion): a Pod's containers are at
`/spec/containers`; those of a ReplicaSet, Deployment, DaemonSet, StatefulSet and Job at
`/spec/template/spec/containers`. Other kinds (CronJob included) have none it edits, and
initContainers are never touched.
"""

from __future__ import annotations

from typing import Any

from gitfleet.overrides import _patch

_TEMPLATE = ("spec", "template", "spec")
POD_SPEC: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "ReplicaSet": _TEMPLATE,
    "Deployment": _TEMPLATE,
    "DaemonSet": _TEMPLATE,
    "StatefulSet": _TEMPLATE,
    "Job": _TEMPLATE,
}


def containers(manifest: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The JSON pointer of the containers list and its entries; an empty list when the kind
    has none or the manifest sets none. Raises `_patch.Failure` on a malformed pod spec."""
    path = POD_SPEC.get(manifest.get("kind", ""))
    if path is None:
        return "", []
    keys = (*path, "containers")
    node: Any = manifest
    for depth, key in enumerate(keys):
        if node is None:
            break
        if not isinstance(node, dict):
            raise _patch.Failure((), f"/{'/'.join(keys[:depth])} is not an object")
        node = node.get(key)
    pointer = "/" + "/".join(keys)
    if node is None:
        return pointer, []
    if not isinstance(node, list) or not all(isinstance(item, dict) for item in node):
        raise _patch.Failure((), f"{pointer} is not a list of containers")
    return pointer, node


def check_metadata_types(manifest: dict[str, Any]) -> None:
    """Raises `_patch.Failure` when the metadata of a workload of a known kind (or of its pod
    template) is not an object, or its labels or annotations are not a map of strings, or its
    finalizers not a list of strings (null values aside).

    Karmada's imageOverrider without a predicate reads the workload into its typed Go form
    first, which refuses such values, e.g. an annotation an earlier plaintext overrider set to
    a number; it edits the object only if that succeeds. Other mistyped fields make it fail
    too; these are the ones an override is likely to get wrong."""
    path = POD_SPEC.get(manifest.get("kind", ""))
    if path is None:
        return
    places = [("metadata",)] if path == ("spec",) else [("metadata",), (*path[:-1], "metadata")]
    for where in places:
        node: Any = manifest
        for key in where:
            node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            continue
        if not isinstance(node, dict):
            raise _patch.Failure((), f"/{'/'.join(where)} is not an object")
        for field, kind in (("labels", dict), ("annotations", dict), ("finalizers", list)):
            entries = node.get(field)
            pointer = "/" + "/".join((*where, field))
            if entries is None:
                continue
            if not isinstance(entries, kind):
                raise _patch.Failure((), f"{pointer} is not a {kind.__name__}")
            values = entries.values() if isinstance(entries, dict) else entries
            if any(value is not None and not isinstance(value, str) for value in values):
                raise _patch.Failure((), f"{pointer} holds a value that is not a string")
