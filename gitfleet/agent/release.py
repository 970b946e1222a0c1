"""Letting go of an object instead of deleting it: `preserveResourcesOnDeletion`.

Karmada keeps a member cluster's object when its Work goes (its template deleted, or the
cluster no longer a target) if the Work says to preserve it (pkg/controllers/execution
handleWorkDelete): the object stays, with the marks of whoever managed it removed, so that
nothing takes it for a managed object any more (cleanupPolicyClaimMetadata: the policy's claim,
the labels of `util.ManagedResourceLabels` and the annotations of
`util.ManagedResourceAnnotations`). An agent learns it from the live object, which carries the
render's `gitfleet.io/preserve-on-deletion` since it was applied; it removes gitfleet's labels
and annotations along with Karmada's, and forgets the object. If its template comes back, the
object is someone else's, taken over only where the manifest allows it (`conflict`).
"""

from __future__ import annotations

from typing import Any

import jsonpatch

from gitfleet.agent import stamp

Obj = dict[str, Any]

_KARMADA_LABELS = (
    "resourcebinding.karmada.io/permanent-id",
    "work.karmada.io/permanent-id",
    "karmada.io/managed",
)
_KARMADA_ANNOTATIONS = (
    "resourcetemplate.karmada.io/managed-annotations",
    "resourcetemplate.karmada.io/managed-labels",
    "resourcebinding.karmada.io/namespace",
    "resourcebinding.karmada.io/name",
    "resourcetemplate.karmada.io/uid",
    "resourcetemplate.karmada.io/generation",
    "work.karmada.io/name",
    "work.karmada.io/namespace",
)
_CLAIM_LABELS = {
    True: ("propagationpolicy.karmada.io/permanent-id",),
    False: ("clusterpropagationpolicy.karmada.io/permanent-id",),
}
_CLAIM_ANNOTATIONS = {
    True: ("propagationpolicy.karmada.io/namespace", "propagationpolicy.karmada.io/name"),
    False: ("clusterpropagationpolicy.karmada.io/name",),
}
"""The policy's claim, by whether the object is namespaced: Karmada takes a namespaced object's
claim for a PropagationPolicy's (a ClusterPropagationPolicy's claim on it stays)."""
_GITFLEET_LABELS = (stamp.MANAGED_BY_LABEL, stamp.CLUSTER_LABEL)
_GITFLEET_ANNOTATIONS = (
    stamp.SOURCE_PATH,
    stamp.SOURCE_COMMIT,
    stamp.CONTENT_HASH,
    stamp.PRESERVE_ON_DELETION,
)


def wanted(live: Obj) -> bool:
    """Whether a live object is to be kept when its manifest goes."""
    return stamp.annotations_of(live).get(stamp.PRESERVE_ON_DELETION) == "true"


def patch(live: Obj) -> list[Obj]:
    """The JSON patch removing every mark of a managed object that `live` carries, valid only
    at its resourceVersion."""
    metadata = live.get("metadata") or {}
    namespaced = bool(metadata.get("namespace"))
    removed = {
        "labels": (*_GITFLEET_LABELS, *_KARMADA_LABELS, *_CLAIM_LABELS[namespaced]),
        "annotations": (
            *_GITFLEET_ANNOTATIONS,
            *_KARMADA_ANNOTATIONS,
            *_CLAIM_ANNOTATIONS[namespaced],
        ),
    }
    present = {"labels": stamp.labels_of(live), "annotations": stamp.annotations_of(live)}
    operations: list[Obj] = [
        {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": metadata.get("resourceVersion"),
        }
    ]
    for field, keys in removed.items():
        operations += [
            {
                "op": "remove",
                "path": jsonpatch.JsonPointer.from_parts(["metadata", field, key]).path,
            }
            for key in keys
            if key in present[field]
        ]
    return operations
