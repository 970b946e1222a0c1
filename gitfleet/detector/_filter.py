"""Which templates the detector never propagates, and which Namespaces go everywhere anyway.

Karmada's detector watches every deletable API resource except a configured set
(pkg/util/apigroup.go `NewSkippedResourceConfig`: Karmada's own API groups, events, Leases) and
ignores objects in reserved namespaces or in namespaces matching `--skipped-propagating-namespaces`
(default `kube-.*`, anchored), plus kube-system's `extension-apiserver-authentication` ConfigMap
(pkg/detector/detector.go `EventFilter`). A template labelled
`resourcetemplate.karmada.io/claimed-by` belongs to another controller (e.g. MultiClusterService)
and is left alone (`Reconcile`).

Namespaces are also propagated without any policy by the namespace controller
(pkg/controllers/namespace/namespace_sync_controller.go): every namespace except reserved ones,
`default` and skipped ones, to every cluster, unless labelled
`namespace.karmada.io/skip-auto-propagation: "true"`.
"""

from __future__ import annotations

import re

from gitfleet.model import scope
from gitfleet.model.template import ResourceTemplate

KARMADA_GROUPS = frozenset(
    {
        "cluster.karmada.io",
        "policy.karmada.io",
        "work.karmada.io",
        "config.karmada.io",
        "networking.karmada.io",
        "autoscaling.karmada.io",
        "remedy.karmada.io",
        "apps.karmada.io",
    }
)
SKIPPED_GROUPS = KARMADA_GROUPS | {"events.k8s.io"}
SKIPPED_GROUP_VERSIONS = frozenset({"coordination.k8s.io/v1"})
SKIPPED_KINDS = frozenset({("v1", "Event")})

NOT_DELETABLE = frozenset(
    {
        ("", "Binding"),
        ("", "ComponentStatus"),
        ("authentication.k8s.io", "TokenReview"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
        ("authorization.k8s.io", "LocalSubjectAccessReview"),
    }
)
"""Built-in kinds that cannot be deleted, so the detector never watches them."""

SKIPPED_NAMESPACES = (re.compile(r"^kube-.*$"),)
"""Karmada's default `--skipped-propagating-namespaces`."""

RESERVED_NAMESPACES = frozenset({"karmada-system", "karmada-cluster"})
EXECUTION_SPACE_PREFIX = "karmada-es-"
CLAIMED_BY_LABEL = "resourcetemplate.karmada.io/claimed-by"
SKIP_AUTO_PROPAGATION_LABEL = "namespace.karmada.io/skip-auto-propagation"


def is_reserved_namespace(namespace: str) -> bool:
    return namespace in RESERVED_NAMESPACES or namespace.startswith(EXECUTION_SPACE_PREFIX)


def is_skipped_namespace(namespace: str) -> bool:
    return any(pattern.match(namespace) for pattern in SKIPPED_NAMESPACES)


def skip_reason(template: ResourceTemplate) -> str | None:
    """Why the detector ignores this (effective) template, or None if it considers it."""
    group = template.key.group
    if group in SKIPPED_GROUPS:
        return f"resources of API group {group} are never propagated"
    if template.api_version in SKIPPED_GROUP_VERSIONS:
        return f"resources of {template.api_version} are never propagated"
    if (template.api_version, template.kind) in SKIPPED_KINDS:
        return f"{template.api_version} {template.kind} objects are never propagated"
    if (group, template.kind) in NOT_DELETABLE:
        return f"{template.kind} is not a deletable resource, so Karmada never watches it"
    namespace = template.namespace
    if namespace and is_reserved_namespace(namespace):
        return f"namespace {namespace} is reserved for Karmada"
    if namespace and is_skipped_namespace(namespace):
        return f"namespace {namespace} matches the skipped namespaces (kube-.*)"
    if (
        namespace == "kube-system"
        and template.kind == "ConfigMap"
        and template.name == "extension-apiserver-authentication"
    ):
        return "this ConfigMap is managed by each cluster's API server"
    claimed_by = template.labels.get(CLAIMED_BY_LABEL, "")
    if claimed_by:
        return f"label {CLAIMED_BY_LABEL}={claimed_by}: another controller owns it"
    return None


def _synced_namespace(template: ResourceTemplate) -> bool:
    """Whether the namespace controller looks at this template: a Namespace, not reserved,
    not `default`, not among the skipped namespaces."""
    if template.api_version != "v1" or template.kind != "Namespace":
        return False
    name = template.name
    if is_reserved_namespace(name) or name == scope.DEFAULT_NAMESPACE:
        return False
    return not is_skipped_namespace(name)


def _labelled_to_skip(template: ResourceTemplate) -> bool:
    return template.labels.get(SKIP_AUTO_PROPAGATION_LABEL, "").lower() == "true"


def auto_propagated_namespace(template: ResourceTemplate) -> bool:
    """Whether the namespace controller sends this template (a Namespace) to every cluster."""
    return _synced_namespace(template) and not _labelled_to_skip(template)


def held_namespace(template: ResourceTemplate) -> bool:
    """Whether this template is a Namespace the controller would sync but for its
    skip-auto-propagation label: Karmada's controller then returns before touching its Works,
    so what it sent before stays on the clusters, as it was."""
    return _synced_namespace(template) and _labelled_to_skip(template)
