"""Fields a member cluster sets for itself, removed from a manifest before it is written
(Karmada: pkg/resourceinterpreter/default/native/prune/prune.go RemoveIrrelevantFields with
RemoveJobTTLSeconds, as pkg/controllers/ctrlutil/work.go CreateOrUpdateWork calls it).

Every kind: the server-populated metadata (creationTimestamp, deletionTimestamp,
deletionGracePeriodSeconds, generation, managedFields, resourceVersion, selfLink, uid),
ownerReferences, finalizers and `status`. Then by kind name alone, as Karmada matches it:
Deployment revision annotations; Job `ttlSecondsAfterFinished` and, unless `manualSelector`,
the selector and pod labels the Job controller generates; Service `clusterIP`/`clusterIPs`
unless headless; ServiceAccount token secrets `<name>-token-*`; service-account-token Secrets'
`data` (set to null) and uid annotation; PVC `volume.kubernetes.io/selected-node`.

Karmada's ServiceAccount loop removes an element and then moves past the next one, so of two
adjacent token secrets the second stays; this port keeps that, so member clusters receive the
same list. An element the loop reads that is not an object with a string name (a reference by
namespace alone, which the API server takes) makes Karmada's controller panic, so that no
Work is made: `prune` raises then, which refuses the manifest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitfleet import errors

_METADATA = (
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
    "ownerReferences",
    "finalizers",
)
_JOB_SELECTOR_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
_JOB_POD_LABELS = (*_JOB_SELECTOR_LABELS, "job-name", "batch.kubernetes.io/job-name")
_DEPLOYMENT_ANNOTATIONS = (
    "deployment.kubernetes.io/revision",
    "deployment.kubernetes.io/revision-history",
)
_SA_TOKEN_TYPE = "kubernetes.io/service-account-token"
_SA_UID_ANNOTATION = "kubernetes.io/service-account.uid"
_SELECTED_NODE = "volume.kubernetes.io/selected-node"

Doc = dict[str, Any]


def _dig(doc: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def _drop(doc: Any, keys: tuple[str, ...], names: tuple[str, ...]) -> None:
    found = _dig(doc, *keys)
    if isinstance(found, dict):
        for name in names:
            found.pop(name, None)


def _deployment(doc: Doc) -> None:
    _drop(doc, ("metadata", "annotations"), _DEPLOYMENT_ANNOTATIONS)


def _job(doc: Doc) -> None:
    _drop(doc, ("spec",), ("ttlSecondsAfterFinished",))
    if _dig(doc, "spec", "manualSelector") is True:
        return
    _drop(doc, ("spec", "selector", "matchLabels"), _JOB_SELECTOR_LABELS)
    _drop(doc, ("spec", "template", "metadata", "labels"), _JOB_POD_LABELS)


def _secret(doc: Doc) -> None:
    if doc.get("type") == _SA_TOKEN_TYPE:
        _drop(doc, ("metadata", "annotations"), (_SA_UID_ANNOTATION,))
        doc["data"] = None


def _service_account(doc: Doc) -> None:
    secrets = doc.get("secrets")
    if not isinstance(secrets, list) or not secrets:
        return
    prefix = f"{_dig(doc, 'metadata', 'name') or ''}-token-"
    index = removed = 0
    while index < len(secrets):
        name = _dig(secrets[index], "name")
        if not isinstance(name, str):
            raise errors.InterpretError(
                "a secret the ServiceAccount lists must be an object with a name: Karmada's"
                " pruning of its token secrets fails on it and makes no Work",
                ("secrets", index + removed),
            )
        if name.startswith(prefix):
            del secrets[index]
            removed += 1
        index += 1


def _service(doc: Doc) -> None:
    ip = _dig(doc, "spec", "clusterIP")
    if isinstance(ip, str) and ip != "None":
        _drop(doc, ("spec",), ("clusterIP", "clusterIPs"))


def _claim(doc: Doc) -> None:
    node = _dig(doc, "metadata", "annotations", _SELECTED_NODE)
    if isinstance(node, str) and node:
        _drop(doc, ("metadata", "annotations"), (_SELECTED_NODE,))


_BY_KIND: dict[str, Callable[[Doc], None]] = {
    "Deployment": _deployment,
    "Job": _job,
    "Secret": _secret,
    "ServiceAccount": _service_account,
    "Service": _service,
    "PersistentVolumeClaim": _claim,
}


def prune(doc: Doc) -> None:
    """Remove, in place, what the member cluster owns; raises `errors.InterpretError` where
    Karmada's pruning fails."""
    _drop(doc, ("metadata",), _METADATA)
    doc.pop("status", None)
    by_kind = _BY_KIND.get(str(doc.get("kind", "")))
    if by_kind is not None:
        by_kind(doc)
