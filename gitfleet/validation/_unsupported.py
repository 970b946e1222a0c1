"""Fields gitfleet reads but does not act on yet: reported as warnings, never silently ignored.

`UNSUPPORTED` is the one table to shrink as gitfleet learns a feature. A field is reported when
it is set to something other than its empty value (`association: false` says nothing).
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import cluster, diagnostic, loaded, policy
from gitfleet.validation import _report

_PROPAGATION = (policy.PropagationPolicy.KIND, policy.ClusterPropagationPolicy.KIND)

UNSUPPORTED: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (_PROPAGATION, ("spec", "placement", "workloadAffinity")),
    (_PROPAGATION, ("spec", "association")),
    ((cluster.Cluster.KIND,), ("spec", "impersonatorSecretRef")),
)
"""(kinds, field path): fields of Karmada kinds that gitfleet does not support yet."""


def _value(body: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


def check(document: loaded.Document, subject: str | None = None) -> list[diagnostic.Diagnostic]:
    """Warnings for the unsupported fields a Karmada document sets, naming its object `subject`
    (default: as the document is written)."""
    report = _report.Report(document.origin, subject or document.subject)
    for kinds, keys in UNSUPPORTED:
        if document.kind in kinds and _value(document.body, keys) not in (None, False, "", [], {}):
            report.warning(keys, "not supported by gitfleet yet; it has no effect")
    return report.diagnostics
