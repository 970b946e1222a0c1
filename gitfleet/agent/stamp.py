"""What every object gitfleet applies carries, and the content hash that lets a sync skip it.

The labels say who manages the object and for which cluster (the agent lists its objects by
them); the annotations name the source file and commit. The content hash covers the manifest
as it will be applied, labels and annotations included, except the volatile annotations: the
source commit changes with every render even when the manifest does not, and must not cause a
write. A live object whose hash annotation equals the desired hash needs no write unless it
drifted (`drift`).

Fields the API server owns (`status`, `resourceVersion`, `uid`, `managedFields`, ...) are
removed from the manifest before it is applied: a `resourceVersion` in an apply would be a
precondition, and the others are ignored or refused.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

Obj = dict[str, Any]

FIELD_MANAGER = "gitfleet"
MANAGED_BY_LABEL = "gitfleet.io/managed-by"
MANAGED_BY = "gitfleet"
CLUSTER_LABEL = "gitfleet.io/cluster"
SOURCE_PATH = "gitfleet.io/source-path"
SOURCE_COMMIT = "gitfleet.io/source-commit"
CONTENT_HASH = "gitfleet.io/content-hash"
RECREATE_ON_IMMUTABLE = "gitfleet.io/recreate-on-immutable"
"""Annotation opting a manifest in to delete-and-create when an immutable field changes."""
GENERATED_NAMESPACE = "gitfleet.io/generated-namespace"
"""Annotation the render sets ("true") on a namespace it generated: it has no source file."""
PRESERVE_ON_DELETION = "gitfleet.io/preserve-on-deletion"
"""Annotation the render sets ("true") on the manifests of a binding with
`preserveResourcesOnDeletion`: once the manifest goes, the object stays (`release`)."""

VOLATILE = frozenset({SOURCE_COMMIT, CONTENT_HASH})
_SERVER_FIELDS = (
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
    "selfLink",
)


def selector(cluster: str) -> str:
    """The label selector of the objects gitfleet applied to `cluster`."""
    return f"{MANAGED_BY_LABEL}={MANAGED_BY},{CLUSTER_LABEL}={cluster}"


def annotations_of(obj: Obj) -> dict[str, str]:
    found = (obj.get("metadata") or {}).get("annotations")
    return found if isinstance(found, dict) else {}


def labels_of(obj: Obj) -> dict[str, str]:
    found = (obj.get("metadata") or {}).get("labels")
    return found if isinstance(found, dict) else {}


def is_managed(obj: Obj, cluster: str) -> bool:
    """Whether a live object carries gitfleet's labels for `cluster`."""
    found = labels_of(obj)
    return found.get(MANAGED_BY_LABEL) == MANAGED_BY and found.get(CLUSTER_LABEL) == cluster


def content_hash(obj: Obj) -> str:
    """The hash of a manifest without its volatile annotations (canonical JSON, SHA-256)."""
    metadata = dict(obj.get("metadata") or {})
    kept = {k: v for k, v in annotations_of(obj).items() if k not in VOLATILE}
    if kept:
        metadata["annotations"] = kept
    else:
        metadata.pop("annotations", None)
    canonical = json.dumps(
        {**obj, "metadata": metadata}, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def stamp(manifest: Obj, *, cluster: str, source_path: str, source_commit: str) -> Obj:
    """The object to apply: a copy of `manifest` without server-owned fields, with gitfleet's
    labels, the source annotations (a `source-path` the render wrote is kept; a generated
    namespace gets none, having no source file) and the hash."""
    obj: Obj = copy.deepcopy(manifest)
    obj.pop("status", None)
    metadata = obj.setdefault("metadata", {})
    for field in _SERVER_FIELDS:
        metadata.pop(field, None)
    metadata["labels"] = {
        **(metadata.get("labels") or {}),
        MANAGED_BY_LABEL: MANAGED_BY,
        CLUSTER_LABEL: cluster,
    }
    notes = dict(metadata.get("annotations") or {})
    if notes.get(GENERATED_NAMESPACE) != "true":
        notes.setdefault(SOURCE_PATH, source_path)
    if source_commit:
        notes[SOURCE_COMMIT] = source_commit
    notes.pop(CONTENT_HASH, None)
    metadata["annotations"] = notes
    notes[CONTENT_HASH] = content_hash(obj)
    return obj
