"""Where each object of a source lives: the namespace the API server would store it in.

Karmada learns a kind's scope from API discovery and its API server fills in what a document
leaves out; a source repository has neither, so this module does it once, for every object a
source loads (templates and Karmada's own kinds alike), and every later stage reads the result.

Scope: Karmada's kinds declare theirs (`ApiObject.NAMESPACED`: PropagationPolicy and
OverridePolicy are namespaced; Cluster, the cluster policies and ResourceInterpreterCustomization
are not). A template's comes from, in order: the CustomResourceDefinitions in the source
(`spec.scope`), a list of Kubernetes' built-in cluster-scoped kinds, and otherwise namespaced.
Then, as `kubectl apply` and the API server would:

- a namespaced object without `metadata.namespace` lands in the source's default namespace
  (`defaultNamespace` in gitfleet.yaml, else `default`: kubectl's namespace when its context
  names none);
- a cluster-scoped object with `metadata.namespace` has it cleared (the API server ignores it),
  with a warning;
- a template of a kind that is neither built in nor defined by a CRD in the source is assumed
  namespaced, with a warning when that assumption puts it in the default namespace;
- a Namespace is labelled `kubernetes.io/metadata.name` with its own name (Kubernetes'
  NamespaceDefaultLabelName, on since 1.21 and locked on since 1.22), so that a policy or an
  override selecting a Namespace by that label finds it, and its manifest carries it as
  Karmada's Work does;
- a custom resource whose CRD is in the source gets the defaults the CRD's schema declares
  (`crddefaults`), which interpreters, overrides and its manifests then see, as in Karmada;
- a built-in kind written in an older version of its group is read in the version Karmada's
  detector watches, the preferred one (`preferred`: an `autoscaling/v1`
  HorizontalPodAutoscaler is read as `autoscaling/v2`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet.model import crddefaults, diagnostic, meta, preferred
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawMeta, RawObject, ResourceTemplate

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
DEFAULT_NAMESPACE = "default"
"""kubectl's namespace when its context names none; `defaultNamespace`'s default."""
CRD_GROUP = crddefaults.CRD_GROUP

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
        ("multicluster.x-k8s.io", "ServiceExport"),
        ("multicluster.x-k8s.io", "ServiceImport"),
    }
)
"""Built-in namespaced kinds, and those whose CRDs Karmada's control plane installs itself
(multi-cluster services' ServiceExport and ServiceImport): a missing namespace on them is
ordinary, not worth a warning."""


def crd_scopes(templates: Iterable[ResourceTemplate]) -> dict[tuple[str, str], bool]:
    """(group, kind) -> namespaced, from the CustomResourceDefinitions among the templates."""
    scopes: dict[tuple[str, str], bool] = {}
    for spec in crddefaults.crd_specs(templates):
        names = spec.get("names")
        group, scope = spec.get("group"), spec.get("scope")
        if not isinstance(names, dict) or not isinstance(group, str):
            continue
        kind = names.get("kind")
        if isinstance(kind, str) and scope in ("Namespaced", "Cluster"):
            scopes[(group, kind)] = scope == "Namespaced"
    return scopes


Obj = meta.ApiObject | ResourceTemplate


def effective(
    items: Iterable[Obj], default_namespace: str = DEFAULT_NAMESPACE
) -> tuple[list[Obj], list[diagnostic.Diagnostic]]:
    """Every object as the API server would store it (see the module docstring), in the same
    order, and the warnings that raised; objects that need no change are returned as they are."""
    objects = list(items)
    crds = crd_scopes(o for o in objects if isinstance(o, ResourceTemplate))
    defaults = crddefaults.schemas(o for o in objects if isinstance(o, ResourceTemplate))
    warnings: list[diagnostic.Diagnostic] = []
    out: list[Obj] = []
    for obj in objects:
        if isinstance(obj, ResourceTemplate):
            placed = crddefaults.defaulted(
                _template(preferred.preferred(obj), crds, default_namespace, warnings), defaults
            )
            labelled = namespace_labelled(placed.body)
            out.append(
                placed if labelled is placed.body else ResourceTemplate(labelled, placed.origin)
            )
        else:
            out.append(_karmada(obj, default_namespace, warnings))
    return out, warnings


def _ignored(kind: str, name: str, origin: Origin) -> diagnostic.Diagnostic:
    return diagnostic.warning(
        origin.at("metadata", "namespace"),
        f"{kind} {name}: metadata.namespace is ignored, {kind} is cluster-scoped",
    )


def _karmada(
    obj: meta.ApiObject, default_namespace: str, warnings: list[diagnostic.Diagnostic]
) -> meta.ApiObject:
    if obj.NAMESPACED:
        namespace = obj.namespace or default_namespace
    else:
        if obj.namespace:
            warnings.append(_ignored(obj.KIND, obj.name, obj.origin))
        namespace = ""
    if namespace == obj.namespace:
        return obj
    changed: Any = obj  # every ApiObject is a frozen dataclass with `metadata`
    metadata = dataclasses.replace(changed.metadata, namespace=namespace)
    result: meta.ApiObject = dataclasses.replace(changed, metadata=metadata)
    return result


def _with_namespace(template: ResourceTemplate, namespace: str) -> ResourceTemplate:
    """A copy of the template whose metadata.namespace is `namespace` (absent when empty)."""
    metadata: RawMeta = {**template.metadata}
    if namespace:
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    body: RawObject = {**template.body, "metadata": metadata}
    return dataclasses.replace(template, body=body)


def _template(
    template: ResourceTemplate,
    crds: Mapping[tuple[str, str], bool],
    default_namespace: str,
    warnings: list[diagnostic.Diagnostic],
) -> ResourceTemplate:
    scope_key = (template.key.group, template.kind)
    namespaced = crds.get(scope_key)
    if namespaced is None:
        namespaced = scope_key not in CLUSTER_SCOPED
    if not namespaced:
        if template.namespace:
            warnings.append(_ignored(template.kind, template.name, template.origin))
            return _with_namespace(template, "")
        return template
    if template.namespace:
        return template
    if scope_key not in NAMESPACED and scope_key not in crds:
        warnings.append(
            diagnostic.warning(
                template.origin.at("metadata", "namespace"),
                f"{template.kind} {template.name}: no CustomResourceDefinition in the source "
                f"says whether {template.kind} is namespaced; assuming namespace "
                f"{default_namespace!r} (set metadata.namespace, or add the CRD)",
            )
        )
    return _with_namespace(template, default_namespace)


def namespace_labelled(body: RawObject) -> RawObject:
    """`body` with the label the API server gives a Namespace, when it is one (a copy; `body`
    itself when nothing changes, or when its labels are no map: validation reports that)."""
    metadata = body.get("metadata")
    if body.get("apiVersion") != "v1" or body.get("kind") != "Namespace":
        return body
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return body
    labels = metadata.get("labels")
    if labels is not None and not isinstance(labels, dict):
        return body
    name = metadata["name"]
    if (labels or {}).get(NAMESPACE_NAME_LABEL) == name:
        return body
    labelled: RawMeta = {**metadata, "labels": {**(labels or {}), NAMESPACE_NAME_LABEL: name}}
    return {**body, "metadata": labelled}
