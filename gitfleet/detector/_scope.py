"""Whether a template is namespaced, and its effective namespace.

Karmada learns a kind's scope from API discovery; a source repository has no API server, so
gitfleet decides from, in order: the CustomResourceDefinitions in the source (`spec.scope`), a
list of Kubernetes' built-in cluster-scoped kinds, and otherwise namespaced. Then it does what
`kubectl apply` and the API server would do with the document:

- a namespaced kind without `metadata.namespace` lands in `default` (kubectl's namespace when
  none is configured);
- a cluster-scoped kind with `metadata.namespace` has it cleared (the API server ignores it for
  cluster-scoped objects), with a warning;
- a kind that is neither built in nor defined by a CRD in the source is assumed namespaced,
  with a warning when that assumption puts it in `default`.

Every later stage reads the templates this module returns, so a binding, its Work and the
applied object agree on the namespace.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from gitfleet.model import diagnostic
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawMeta, RawObject, ResourceTemplate

DEFAULT_NAMESPACE = "default"
CRD_GROUP = "apiextensions.k8s.io"

CLUSTER_SCOPED: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        ("rbac.authorization.k8s.io", "ClusterRole"),
        ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("storage.k8s.io", "VolumeAttributesClass"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("node.k8s.io", "RuntimeClass"),
        ("networking.k8s.io", "IngressClass"),
        ("networking.k8s.io", "IPAddress"),
        ("networking.k8s.io", "ServiceCIDR"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("certificates.k8s.io", "ClusterTrustBundle"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
        ("resource.k8s.io", "DeviceClass"),
        ("resource.k8s.io", "ResourceSlice"),
        ("policy", "PodSecurityPolicy"),
        ("storagemigration.k8s.io", "StorageVersionMigration"),
        ("internal.apiserver.k8s.io", "StorageVersion"),
        ("authentication.k8s.io", "TokenReview"),
        ("authentication.k8s.io", "SelfSubjectReview"),
        ("authorization.k8s.io", "SubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectAccessReview"),
        ("authorization.k8s.io", "SelfSubjectRulesReview"),
    }
)
"""Built-in kinds served without a namespace, by (group, kind)."""

NAMESPACED: frozenset[tuple[str, str]] = frozenset(
    {
        ("", "Pod"),
        ("", "Service"),
        ("", "ConfigMap"),
        ("", "Secret"),
        ("", "ServiceAccount"),
        ("", "PersistentVolumeClaim"),
        ("", "Endpoints"),
        ("", "LimitRange"),
        ("", "ResourceQuota"),
        ("", "ReplicationController"),
        ("", "PodTemplate"),
        ("", "Event"),
        ("", "Binding"),
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("apps", "ControllerRevision"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("autoscaling", "HorizontalPodAutoscaler"),
        ("networking.k8s.io", "Ingress"),
        ("networking.k8s.io", "NetworkPolicy"),
        ("policy", "PodDisruptionBudget"),
        ("rbac.authorization.k8s.io", "Role"),
        ("rbac.authorization.k8s.io", "RoleBinding"),
        ("discovery.k8s.io", "EndpointSlice"),
        ("coordination.k8s.io", "Lease"),
        ("events.k8s.io", "Event"),
        ("storage.k8s.io", "CSIStorageCapacity"),
        ("resource.k8s.io", "ResourceClaim"),
        ("resource.k8s.io", "ResourceClaimTemplate"),
        ("authorization.k8s.io", "LocalSubjectAccessReview"),
    }
)
"""Built-in namespaced kinds: a missing namespace on them is ordinary, not worth a warning."""


def crd_scopes(templates: Iterable[ResourceTemplate]) -> dict[tuple[str, str], bool]:
    """(group, kind) -> namespaced, from the CustomResourceDefinitions among the templates."""
    scopes: dict[tuple[str, str], bool] = {}
    for t in templates:
        if t.kind != "CustomResourceDefinition" or t.key.group != CRD_GROUP:
            continue
        spec = t.body.get("spec")
        if not isinstance(spec, dict):
            continue
        names = spec.get("names")
        group, scope = spec.get("group"), spec.get("scope")
        if not isinstance(names, dict) or not isinstance(group, str):
            continue
        kind = names.get("kind")
        if isinstance(kind, str) and scope in ("Namespaced", "Cluster"):
            scopes[(group, kind)] = scope == "Namespaced"
    return scopes


def _with_namespace(template: ResourceTemplate, namespace: str) -> ResourceTemplate:
    """A copy of the template whose metadata.namespace is `namespace` (absent when empty)."""
    meta: RawMeta = {**template.metadata}
    if namespace:
        meta["namespace"] = namespace
    else:
        meta.pop("namespace", None)
    body: RawObject = {**template.body, "metadata": meta}
    return dataclasses.replace(template, body=body)


def _namespace_origin(template: ResourceTemplate) -> Origin:
    """Where the namespace is (or would be) written; located only when a warning needs it,
    since locating a field parses the file again."""
    return template.origin.at("metadata", "namespace")


def effective(
    template: ResourceTemplate,
    crds: Mapping[tuple[str, str], bool],
    diagnostics: list[diagnostic.Diagnostic],
) -> ResourceTemplate:
    """The template as the API server would store it (see the module docstring)."""
    scope_key = (template.key.group, template.kind)
    namespaced = crds.get(scope_key)
    if namespaced is None:
        namespaced = scope_key not in CLUSTER_SCOPED
    if not namespaced:
        if template.namespace:
            diagnostics.append(
                diagnostic.warning(
                    _namespace_origin(template),
                    f"{template.kind} {template.name}: metadata.namespace is ignored, "
                    f"{template.kind} is cluster-scoped",
                )
            )
            return _with_namespace(template, "")
        return template
    if template.namespace:
        return template
    if scope_key not in NAMESPACED and scope_key not in crds:
        diagnostics.append(
            diagnostic.warning(
                _namespace_origin(template),
                f"{template.kind} {template.name}: no CustomResourceDefinition in the source "
                f"says whether {template.kind} is namespaced; assuming namespace "
                f"{DEFAULT_NAMESPACE!r} (set metadata.namespace, or add the CRD)",
            )
        )
    return _with_namespace(template, DEFAULT_NAMESPACE)
