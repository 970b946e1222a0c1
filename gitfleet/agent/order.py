"""In which order a sync writes: what others depend on first, what intercepts writes last.

Namespaces and CustomResourceDefinitions come first (objects live in the former; custom
resources need the latter Established), then other cluster-scoped objects (ClusterRoles,
StorageClasses, ...), then namespaced objects, and admission configurations (webhooks and
admission policies) last, so that a webhook whose service is not running yet cannot refuse
the rest of the sync. Deletions run in the reverse order. Objects within one phase do not
depend on each other and are written in parallel.
"""

from __future__ import annotations

import enum

from gitfleet.agent import identity

_FOUNDATION = frozenset({("", "Namespace"), ("apiextensions.k8s.io", "CustomResourceDefinition")})
_ADMISSION = frozenset(
    ("admissionregistration.k8s.io", kind)
    for kind in (
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
    )
)
CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")


class Phase(enum.IntEnum):
    FOUNDATION = 0
    CLUSTER = 1
    NAMESPACED = 2
    ADMISSION = 3


APPLY_ORDER = tuple(Phase)
DELETE_ORDER = tuple(reversed(APPLY_ORDER))


def phase_of(ref: identity.ObjectRef | identity.ObjectId) -> Phase:
    key = (ref.group, ref.kind)
    if key in _FOUNDATION:
        return Phase.FOUNDATION
    if key in _ADMISSION:
        return Phase.ADMISSION
    return Phase.NAMESPACED if ref.namespace else Phase.CLUSTER


def is_crd(ref: identity.ObjectRef | identity.ObjectId) -> bool:
    return (ref.group, ref.kind) == CRD
