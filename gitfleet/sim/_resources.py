"""The resource types the simulated server knows: the built-in ones a member cluster always
has, plus one per established CustomResourceDefinition, and the discovery documents that
describe them (`/api`, `/apis`, `/apis/<group>/<version>`).

Clients such as the kubernetes DynamicClient learn everything from discovery (plural, kind,
scope, verbs, subresources), so these tables are what makes a kind usable at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from gitfleet.sim import _json, _tokens

ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
SUBRESOURCE_VERBS = ("get", "patch", "update")
CORE_GROUP = ""

Path = tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class ScalePaths:
    """Where a scalable kind keeps what its `scale` subresource shows: the wanted and the
    current replicas, and the pod selector (a LabelSelector object for built-in kinds, a
    string for custom resources, as their CRD's `labelSelectorPath` requires)."""

    spec_replicas: Path
    status_replicas: Path
    selector: Path | None


WORKLOAD_SCALE = ScalePaths(("spec", "replicas"), ("status", "replicas"), ("spec", "selector"))


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ResourceType:
    """One resource as discovery lists it. `versions` are the served versions, preferred
    first; objects are stored once per (group, plural) whatever version wrote them."""

    group: str
    versions: tuple[str, ...]
    plural: str
    kind: str
    namespaced: bool
    short_names: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ALL_VERBS
    status: bool = False
    builtin: bool = True
    categories: tuple[str, ...] = ()
    scale: ScalePaths | None = None
    schemas: tuple[tuple[str, _json.Obj], ...] = dataclasses.field(default=(), compare=False)
    """Custom resources: the OpenAPI schema of each served version that has one."""
    printer_columns: tuple[tuple[str, tuple[_json.Obj, ...]], ...] = dataclasses.field(
        default=(), compare=False
    )
    """Custom resources: the additionalPrinterColumns of each served version."""

    @property
    def singular(self) -> str:
        return self.kind.lower()

    @property
    def counts_generation(self) -> bool:
        """Whether the server keeps `metadata.generation`: custom resources always do, built-in
        ones unless their registry never sets it."""
        return not self.builtin or (self.group, self.plural) not in WITHOUT_GENERATION

    def api_version(self, version: str | None = None) -> str:
        version = version or self.versions[0]
        return f"{self.group}/{version}" if self.group else version


def _types(
    group: str,
    version: str,
    namespaced: Iterable[tuple[str, str, str]],
    cluster: Iterable[tuple[str, str, str]] = (),
    *,
    status: frozenset[str] = frozenset(),
    scale: frozenset[str] = frozenset(),
    also: tuple[str, ...] = (),
) -> list[ResourceType]:
    """Rows of (plural, kind, short names separated by commas) for one group version (and
    `also` served in these versions, converted by `_conversion`)."""
    rows = [(row, True) for row in namespaced] + [(row, False) for row in cluster]
    return [
        ResourceType(
            group=group,
            versions=(version, *also),
            plural=plural,
            kind=kind,
            namespaced=is_namespaced,
            short_names=tuple(name for name in shorts.split(",") if name),
            status=plural in status,
            categories=("all",) if plural in _IN_CATEGORY_ALL else (),
            scale=WORKLOAD_SCALE if plural in scale else None,
        )
        for (plural, kind, shorts), is_namespaced in rows
    ]


WITHOUT_GENERATION = frozenset(
    {
        *(
            (CORE_GROUP, plural)
            for plural in (
                "configmaps",
                "endpoints",
                "events",
                "limitranges",
                "namespaces",
                "nodes",
                "persistentvolumeclaims",
                "persistentvolumes",
                "pods",
                "podtemplates",
                "resourcequotas",
                "secrets",
                "serviceaccounts",
                "services",
            )
        ),
        *(
            ("rbac.authorization.k8s.io", plural)
            for plural in ("clusterrolebindings", "clusterroles", "rolebindings", "roles")
        ),
        ("coordination.k8s.io", "leases"),
        *(
            ("storage.k8s.io", plural)
            for plural in (
                "csidrivers",
                "csinodes",
                "csistoragecapacities",
                "storageclasses",
                "volumeattachments",
            )
        ),
        ("node.k8s.io", "runtimeclasses"),
        ("scheduling.k8s.io", "priorityclasses"),
    }
)
"""The built-in resources a Kubernetes 1.30 API server writes without `metadata.generation`:
their registry strategies never set it (pkg/registry/<group>/<resource>/strategy.go), so
`kubectl get configmap -o yaml` shows none. The kinds whose desired state a controller
observes (workloads, Jobs, PDBs, Ingresses, NetworkPolicies, CRDs, webhook configurations)
count their changes."""

RETURN_DELETED_OBJECT = frozenset(
    {
        (CORE_GROUP, "pods"),
        (CORE_GROUP, "namespaces"),
        (CORE_GROUP, "serviceaccounts"),
        (CORE_GROUP, "persistentvolumeclaims"),
        (CORE_GROUP, "persistentvolumes"),
        (CORE_GROUP, "resourcequotas"),
        (CORE_GROUP, "podtemplates"),
        ("batch", "jobs"),
        *(
            ("storage.k8s.io", plural)
            for plural in ("csidrivers", "csinodes", "storageclasses", "volumeattachments")
        ),
        ("apiextensions.k8s.io", "customresourcedefinitions"),
    }
)
"""The kinds whose deletion answers with the deleted object (their registry's
`ReturnDeletedObject`, as kube-apiserver 1.20 answers); the others, custom resources too,
answer a `Status` Success naming it."""


def returns_deleted_object(resource: ResourceType) -> bool:
    return resource.builtin and (resource.group, resource.plural) in RETURN_DELETED_OBJECT


_IN_CATEGORY_ALL = frozenset(
    {
        "pods",
        "services",
        "deployments",
        "statefulsets",
        "replicasets",
        "daemonsets",
        "jobs",
        "cronjobs",
        "horizontalpodautoscalers",
    }
)

BUILTIN: tuple[ResourceType, ...] = (
    *_types(
        CORE_GROUP,
        "v1",
        [
            ("configmaps", "ConfigMap", "cm"),
            ("endpoints", "Endpoints", "ep"),
            ("events", "Event", "ev"),
            ("limitranges", "LimitRange", "limits"),
            ("persistentvolumeclaims", "PersistentVolumeClaim", "pvc"),
            ("pods", "Pod", "po"),
            ("podtemplates", "PodTemplate", ""),
            ("resourcequotas", "ResourceQuota", "quota"),
            ("secrets", "Secret", ""),
            ("serviceaccounts", "ServiceAccount", "sa"),
            ("services", "Service", "svc"),
        ],
        [
            ("namespaces", "Namespace", "ns"),
            ("nodes", "Node", "no"),
            ("persistentvolumes", "PersistentVolume", "pv"),
        ],
        status=frozenset(
            {
                "namespaces",
                "nodes",
                "persistentvolumes",
                "persistentvolumeclaims",
                "pods",
                "resourcequotas",
                "services",
            }
        ),
    ),
    ResourceType(
        group=CORE_GROUP,
        versions=("v1",),
        plural="componentstatuses",
        kind="ComponentStatus",
        namespaced=False,
        short_names=("cs",),
        verbs=("get", "list"),
    ),
    *_types(
        "apps",
        "v1",
        [
            ("controllerrevisions", "ControllerRevision", ""),
            ("daemonsets", "DaemonSet", "ds"),
            ("deployments", "Deployment", "deploy"),
            ("replicasets", "ReplicaSet", "rs"),
            ("statefulsets", "StatefulSet", "sts"),
        ],
        status=frozenset({"daemonsets", "deployments", "replicasets", "statefulsets"}),
        scale=frozenset({"deployments", "replicasets", "statefulsets"}),
    ),
    *_types(
        "batch",
        "v1",
        [("cronjobs", "CronJob", "cj"), ("jobs", "Job", "")],
        status=frozenset({"cronjobs", "jobs"}),
    ),
    *_types(
        "autoscaling",
        "v2",
        [("horizontalpodautoscalers", "HorizontalPodAutoscaler", "hpa")],
        status=frozenset({"horizontalpodautoscalers"}),
        also=("v1",),
    ),
    *_types(
        "policy",
        "v1",
        [("poddisruptionbudgets", "PodDisruptionBudget", "pdb")],
        status=frozenset({"poddisruptionbudgets"}),
    ),
    *_types(
        "networking.k8s.io",
        "v1",
        [("ingresses", "Ingress", "ing"), ("networkpolicies", "NetworkPolicy", "netpol")],
        [("ingressclasses", "IngressClass", "")],
        status=frozenset({"ingresses"}),
    ),
    *_types(
        "rbac.authorization.k8s.io",
        "v1",
        [("rolebindings", "RoleBinding", ""), ("roles", "Role", "")],
        [("clusterrolebindings", "ClusterRoleBinding", ""), ("clusterroles", "ClusterRole", "")],
    ),
    *_types("coordination.k8s.io", "v1", [("leases", "Lease", "")]),
    *_types(
        "storage.k8s.io",
        "v1",
        [("csistoragecapacities", "CSIStorageCapacity", "")],
        [
            ("csidrivers", "CSIDriver", ""),
            ("csinodes", "CSINode", ""),
            ("storageclasses", "StorageClass", "sc"),
            ("volumeattachments", "VolumeAttachment", ""),
        ],
        status=frozenset({"volumeattachments"}),
    ),
    *_types("node.k8s.io", "v1", [], [("runtimeclasses", "RuntimeClass", "")]),
    *_types("discovery.k8s.io", "v1", [("endpointslices", "EndpointSlice", "")]),
    *_types("scheduling.k8s.io", "v1", [], [("priorityclasses", "PriorityClass", "pc")]),
    *_types(
        "apiextensions.k8s.io",
        "v1",
        [],
        [("customresourcedefinitions", "CustomResourceDefinition", "crd,crds")],
        status=frozenset({"customresourcedefinitions"}),
    ),
    *_types(
        "apiregistration.k8s.io",
        "v1",
        [],
        [("apiservices", "APIService", "")],
        status=frozenset({"apiservices"}),
    ),
    *(
        ResourceType(
            group="metrics.k8s.io",
            versions=("v1beta1",),
            plural=plural,
            kind=kind,
            namespaced=namespaced,
            verbs=("get", "list"),
        )
        for plural, kind, namespaced in (
            ("pods", "PodMetrics", True),
            ("nodes", "NodeMetrics", False),
        )
    ),
    *(
        ResourceType(
            group=group,
            versions=("v1",),
            plural=plural,
            kind=kind,
            namespaced=namespaced,
            verbs=("create",),
        )
        for group, plural, kind, namespaced in (
            ("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", False),
            ("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", True),
            ("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", False),
            ("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", False),
            ("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", False),
        )
    ),
    *_types(
        "admissionregistration.k8s.io",
        "v1",
        [],
        [
            ("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", ""),
            ("validatingwebhookconfigurations", "ValidatingWebhookConfiguration", ""),
        ],
    ),
)

_VERSION = re.compile(r"^v([0-9]+)(?:(alpha|beta)([0-9]+))?$")


def version_priority(version: str) -> tuple[int, int, int, str]:
    """Sort key putting versions in Kubernetes' preference order: GA before beta before
    alpha, higher numbers first, anything else last by name (apimachinery's
    `CompareKubeAwareVersionStrings`)."""
    match = _VERSION.match(version)
    if match is None:
        return (3, 0, 0, version)
    major, stage, minor = match.groups()
    rank = {None: 0, "beta": 1, "alpha": 2}[stage]
    return (rank, -int(major), -int(minor or 0), version)


def from_crd(crd: _json.Obj) -> ResourceType | None:
    """The resource a CustomResourceDefinition serves, or None if it serves no version."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    served = [v for v in spec.get("versions") or [] if v.get("served", True)]
    if not served:
        return None
    scales: list[_json.Obj] = [
        scale
        for v in served
        if isinstance(scale := (v.get("subresources") or {}).get("scale"), dict)
    ]
    return ResourceType(
        group=spec["group"],
        versions=tuple(sorted((v["name"] for v in served), key=version_priority)),
        plural=names["plural"],
        kind=names["kind"],
        namespaced=spec.get("scope") == "Namespaced",
        short_names=tuple(names.get("shortNames") or ()),
        status=any("status" in (v.get("subresources") or {}) for v in served),
        builtin=False,
        categories=tuple(names.get("categories") or ()),
        scale=_crd_scale(scales[0]) if scales else None,
        schemas=tuple(
            (v["name"], v["schema"]["openAPIV3Schema"])
            for v in served
            if isinstance((v.get("schema") or {}).get("openAPIV3Schema"), dict)
        ),
        printer_columns=tuple(
            (v["name"], tuple(v.get("additionalPrinterColumns") or ())) for v in served
        ),
    )


def _crd_scale(scale: _json.Obj) -> ScalePaths:
    """A CRD's `subresources.scale` (paths such as `.spec.replicas`)."""

    def path(text: Any) -> Path:
        return tuple(part for part in str(text or "").split(".") if part)

    selector = scale.get("labelSelectorPath")
    return ScalePaths(
        path(scale.get("specReplicasPath")),
        path(scale.get("statusReplicasPath")),
        path(selector) if selector else None,
    )


class Catalog:
    """Every resource type the server serves, looked up by URL parts or by kind."""

    def __init__(self, types: Iterable[ResourceType]) -> None:
        self.types = tuple(types)
        self._by_plural = {(t.group, t.plural): t for t in self.types}
        self._by_kind = {(t.group, t.kind): t for t in self.types}

    def find(self, group: str, version: str, plural: str) -> ResourceType | None:
        found = self._by_plural.get((group, plural))
        return found if found is not None and version in found.versions else None

    def by_plural(self, group: str, plural: str) -> ResourceType | None:
        return self._by_plural.get((group, plural))

    def by_kind(self, api_version: str, kind: str) -> ResourceType | None:
        group, _, version = api_version.rpartition("/")
        found = self._by_kind.get((group, kind))
        return found if found is not None and version in found.versions else None

    def groups(self) -> dict[str, list[str]]:
        """Served versions per named group, preferred first."""
        versions: dict[str, set[str]] = {}
        for resource_type in self.types:
            if resource_type.group:
                versions.setdefault(resource_type.group, set()).update(resource_type.versions)
        return {
            group: sorted(found, key=version_priority) for group, found in sorted(versions.items())
        }

    def api_group_list(self) -> _json.Obj:
        return {
            "kind": "APIGroupList",
            "apiVersion": "v1",
            "groups": [_api_group(group, versions) for group, versions in self.groups().items()],
        }

    def api_group(self, group: str) -> _json.Obj | None:
        versions = self.groups().get(group)
        if versions is None:
            return None
        return {"kind": "APIGroup", "apiVersion": "v1", **_api_group(group, versions)}

    def resource_list(self, group: str, version: str) -> _json.Obj | None:
        """The APIResourceList of one group version, or None if nothing is served there."""
        resources: list[_json.Obj] = []
        for t in sorted(self.types, key=lambda t: t.plural):
            if t.group != group or version not in t.versions:
                continue
            entry: _json.Obj = {
                "name": t.plural,
                "singularName": t.singular,
                "namespaced": t.namespaced,
                "kind": t.kind,
                "verbs": list(t.verbs),
            }
            if t.short_names:
                entry["shortNames"] = list(t.short_names)
            if t.categories:
                entry["categories"] = list(t.categories)
            resources.append(entry)
            if t.status:
                resources.append(
                    {
                        "name": f"{t.plural}/status",
                        "singularName": "",
                        "namespaced": t.namespaced,
                        "kind": t.kind,
                        "verbs": list(SUBRESOURCE_VERBS),
                    }
                )
            if (t.group, t.plural) == (CORE_GROUP, "serviceaccounts"):
                resources.append(dict(_tokens.RESOURCE))
            if (t.group, t.plural) == (CORE_GROUP, "pods"):
                resources.append(
                    {
                        "name": "pods/log",
                        "singularName": "",
                        "namespaced": True,
                        "kind": "Pod",
                        "verbs": ["get"],
                    }
                )
            if t.scale is not None:
                resources.append(
                    {
                        "name": f"{t.plural}/scale",
                        "singularName": "",
                        "namespaced": t.namespaced,
                        "group": "autoscaling",
                        "version": "v1",
                        "kind": "Scale",
                        "verbs": list(SUBRESOURCE_VERBS),
                    }
                )
        if not resources:
            return None
        return {
            "kind": "APIResourceList",
            "apiVersion": "v1",
            "groupVersion": f"{group}/{version}" if group else version,
            "resources": resources,
        }


def catalog(custom: Iterable[ResourceType] = ()) -> Catalog:
    """The built-in types plus `custom` ones (from CRDs)."""
    return Catalog([*BUILTIN, *custom])


def _api_group(group: str, versions: list[str]) -> _json.Obj:
    entries = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
    return {"name": group, "versions": entries, "preferredVersion": entries[0]}
