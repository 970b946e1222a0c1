"""An object's metadata as the API server checks it (k8s.io/apimachinery ValidateObjectMeta,
and the name rule of each built-in kind in pkg/apis/*/validation), plus the rule every name
must meet to be a segment of a rendered path (`model.names`, the render stage's own).

apiVersion: `version` or `group/version`, as apimachinery's ParseGroupVersion reads it, the
group a DNS-1123 subdomain and the version a DNS-1035 label, as a CustomResourceDefinition's
must be: no part empty (`/v1`, `example.io/`), no other `/`, no space.

Names: kind, namespace and name are checked against `model.names`; the name of a
built-in kind also against its kind's rule (a DNS-1123 subdomain for most, a DNS-1123 label
for a Namespace, a DNS-1035 label for a Service, 52 characters at most for a CronJob, whose
Jobs add a suffix; admission webhook configurations are subdomains too, where RBAC objects
may have a ':'). Names of other kinds (custom resources, RBAC objects) need only the path
rule, as the API server checks them by their own schema.

Labels and annotations: maps of strings; label keys qualified names, annotation keys too once
lower-cased, label values at most 63 characters of the label alphabet, annotations 256 KiB in
all. The same holds for the metadata of a pod template.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from gitfleet.model import labelsyntax, names
from gitfleet.validation import _fieldtypes, _syntax
from gitfleet.validation._fieldtypes import Keys, Problems

_SUBDOMAIN_KINDS = {
    "": ("ConfigMap", "Secret", "ServiceAccount", "Pod", "ReplicationController",
         "PersistentVolume", "PersistentVolumeClaim", "Endpoints", "LimitRange", "ResourceQuota"),
    "apps": ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"),
    "batch": ("Job",),
    "networking.k8s.io": ("Ingress", "IngressClass", "NetworkPolicy"),
    "policy": ("PodDisruptionBudget",),
    "autoscaling": ("HorizontalPodAutoscaler",),
    "storage.k8s.io": ("StorageClass",),
    "scheduling.k8s.io": ("PriorityClass",),
    "admissionregistration.k8s.io": ("ValidatingWebhookConfiguration",
                                     "MutatingWebhookConfiguration"),
}  # fmt: skip
_CRONJOB_NAME_LENGTH = 52
_VERSION = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_VERSION_LENGTH = 63


def _cronjob_name(name: str) -> str | None:
    if len(name) > _CRONJOB_NAME_LENGTH:
        return f"{name!r} must be no more than {_CRONJOB_NAME_LENGTH} characters"
    return labelsyntax.dns1123_subdomain(name)


NAME_RULES: dict[tuple[str, str], Callable[[str], str | None]] = {
    **{(group, kind): labelsyntax.dns1123_subdomain for group, kinds in _SUBDOMAIN_KINDS.items()
       for kind in kinds},
    ("", "Namespace"): _syntax.dns1123_label,
    ("", "Service"): _syntax.dns1035_label,
    ("batch", "CronJob"): _cronjob_name,
}  # fmt: skip
"""The name rule of each built-in kind, by (group, kind)."""


def api_version_problem(api_version: str) -> str | None:
    """What an API server refuses in an apiVersion (None: nothing)."""
    if api_version.count("/") > 1:
        return (
            f"unexpected GroupVersion string: {api_version!r} (an apiVersion is group/version, or"
            " the version alone for the core group)"
        )
    group, slash, version = api_version.rpartition("/")
    if slash and not group:
        return (
            f"{api_version!r} has an empty group: the core group's apiVersion is its version"
            " alone, such as 'v1'"
        )
    problem = labelsyntax.dns1123_subdomain(group) if slash else None
    if problem is not None:
        return f"group {problem}"
    if not version:
        return f"{api_version!r} has no version after its group"
    if len(version) > _VERSION_LENGTH or _VERSION.fullmatch(version) is None:
        return (
            f"version {version!r} must consist of at most {_VERSION_LENGTH} lower case"
            " alphanumeric characters or '-', start with a letter and end with an alphanumeric"
            " character (a DNS-1035 label)"
        )
    return None


def identity(body: Mapping[str, Any], found: Problems) -> None:
    """apiVersion, kind, metadata.namespace and metadata.name (strings: the loader saw to it)."""
    api_version, kind = body["apiVersion"], body["kind"]
    metadata = body["metadata"]
    namespace, name = metadata.get("namespace") or "", metadata["name"]
    malformed = api_version_problem(api_version)
    if malformed is not None:
        found.append((("apiVersion",), malformed))
    # the group is the apiVersion's: as part of a folder name only when that is well formed
    problem = names.kind_problem(api_version if malformed is None else "", kind)
    if problem is not None:
        found.append((("kind",), problem))
    problem = names.namespace_problem(namespace)
    if problem is not None:
        found.append((("metadata", "namespace"), problem))
    rule = NAME_RULES.get((names.group_of(api_version), kind))
    problem = names.name_problem(name) or (rule(name) if rule is not None else None)
    if problem is not None:
        found.append((("metadata", "name"), problem))


def labels_and_annotations(keys: Keys, metadata: Any, found: Problems) -> None:
    """The labels and annotations of the metadata at `keys` (an object's or a pod template's)."""
    meta = _fieldtypes.mapping(keys, metadata, found)
    labels = (*keys, "labels")
    _fieldtypes.string_map(
        labels, meta.get("labels"), found, labelsyntax.qualified_name, labelsyntax.label_value
    )
    where = (*keys, "annotations")
    annotations = _fieldtypes.string_map(
        where, meta.get("annotations"), found, _syntax.annotation_key
    )
    problem = _syntax.annotations_size(annotations)
    if problem is not None:
        found.append((where, problem))
