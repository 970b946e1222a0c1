"""Taking over objects that `kubectl apply` (client-side) created before gitfleet managed them.

A client-side apply leaves two things behind: the `kubectl.kubernetes.io/last-applied-
configuration` annotation, and an Update entry of manager `kubectl-client-side-apply` in
`managedFields` owning every field it set. After gitfleet's first server-side apply those fields
are shared: when a field is later removed from Git, gitfleet gives it up but kubectl still owns
it, so it stays. The known migration (kubectl's `csaupgrade`, run by `kubectl apply
--server-side`) moves the client-side manager's fields into the server-side manager's Apply
entry. gitfleet does the same, in one JSON patch guarded by the object's resourceVersion, and
adds the last-applied annotation to its own fields; its next apply then drops every field it no
longer applies, the annotation included.
"""

from __future__ import annotations

import copy
from typing import Any

from gitfleet.agent import drift, stamp

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
CLIENT_SIDE_MANAGERS = frozenset({"kubectl-client-side-apply", "before-first-apply"})


def _client_side(entry: dict[str, Any]) -> bool:
    return entry.get("manager") in CLIENT_SIDE_MANAGERS and entry.get("operation") == "Update"


def needed(live: dict[str, Any]) -> bool:
    """Whether a live object still carries client-side apply's annotation or field owner."""
    entries = (live.get("metadata") or {}).get("managedFields") or []
    return LAST_APPLIED in stamp.annotations_of(live) or any(_client_side(e) for e in entries)


def upgrade_patch(live: dict[str, Any], manager: str = stamp.FIELD_MANAGER) -> list[Any]:
    """The JSON patch giving `manager`'s Apply entry every field the client-side managers own
    (and the last-applied annotation), valid only at the live object's resourceVersion."""
    metadata = live.get("metadata") or {}
    entries = [copy.deepcopy(e) for e in metadata.get("managedFields") or []]
    taken: drift.Fields = {}
    if LAST_APPLIED in stamp.annotations_of(live):
        taken = {"f:metadata": {"f:annotations": {"f:" + LAST_APPLIED: {}}}}
    for entry in entries:
        if _client_side(entry):
            taken = drift.merge_fields(taken, entry.get("fieldsV1") or {})
    kept = [e for e in entries if not _client_side(e)]
    own = next(
        (
            e
            for e in kept
            if e.get("manager") == manager
            and e.get("operation") == "Apply"
            and not e.get("subresource")
        ),
        None,
    )
    if own is None:
        own = {
            "manager": manager,
            "operation": "Apply",
            "apiVersion": live.get("apiVersion", ""),
            "fieldsType": "FieldsV1",
            "fieldsV1": {},
        }
        kept.append(own)
    own["fieldsV1"] = drift.merge_fields(own.get("fieldsV1") or {}, taken)
    return [
        {
            "op": "test",
            "path": "/metadata/resourceVersion",
            "value": metadata.get("resourceVersion"),
        },
        {"op": "add", "path": "/metadata/managedFields", "value": kept},
    ]
