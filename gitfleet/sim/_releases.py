"""Fields of built-in kinds that a server of an earlier release than the one they came with
does not keep: the field did not exist yet, or its feature gate was off by default (its
strategy then drops it), so neither a writer nor the server's own defaults set it. A cluster
claiming such a release (`kubernetes_version`) serves its objects without them, as a real
one does; the defaults table (`gitfleet.kubedefaults`) is the newest release's.

Checked against a real 1.20.2 server; the release each came with is Kubernetes' own record
(the release its feature went beta, on by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitfleet.sim import _json

Release = tuple[int, int]

LATER_FIELDS: dict[tuple[str, str], tuple[tuple[tuple[str, ...], Release], ...]] = {
    ("", "services"): (
        (("spec", "ipFamilies"), (1, 21)),
        (("spec", "ipFamilyPolicy"), (1, 21)),
        (("spec", "internalTrafficPolicy"), (1, 22)),
    ),
    ("batch", "jobs"): (
        (("spec", "completionMode"), (1, 22)),
        (("spec", "suspend"), (1, 22)),
        (("spec", "podReplacementPolicy"), (1, 29)),
    ),
    ("apps", "statefulsets"): ((("spec", "persistentVolumeClaimRetentionPolicy"), (1, 27)),),
}
"""Per resource: (path of the field, the first release that keeps it)."""

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
NAMESPACE_NAME_LABELLED: Release = (1, 21)
"""From this release every namespace carries its name in a label; before, only as written."""


def forget_later_fields(
    key: tuple[str, str], obj: _json.Obj, release: Release | None, sent_labels: Mapping[str, Any]
) -> None:
    """Drop from `obj` what a server of `release` (None: the newest) does not keep; the
    labels as the writer sent them stand for a namespace's from before it was labelled."""
    if release is None:
        return
    for path, first in LATER_FIELDS.get(key, ()):
        parent = _json.dig(obj, *path[:-1])
        if release < first and isinstance(parent, dict):
            parent.pop(path[-1], None)
    if key == ("", "namespaces") and release < NAMESPACE_NAME_LABELLED:
        labels = _json.dig(obj, "metadata", "labels")
        if not isinstance(labels, dict):
            return
        if NAMESPACE_NAME_LABEL in sent_labels:
            labels[NAMESPACE_NAME_LABEL] = sent_labels[NAMESPACE_NAME_LABEL]
            return
        labels.pop(NAMESPACE_NAME_LABEL, None)
        if not labels:
            del obj["metadata"]["labels"]
