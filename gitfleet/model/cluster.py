"""cluster.karmada.io/v1alpha1 Cluster (Karmada: pkg/apis/cluster/v1alpha1/types.go).

A Cluster in the source repository declares a member cluster. Its optional `status` is the
declared capacity and API list; status reported by the cluster's agent supersedes it.
"""

from __future__ import annotations

import dataclasses
import enum

from gitfleet.model import meta, rules
from gitfleet.model._codec import field, internal
from gitfleet.model.origin import Origin

API_VERSION = "cluster.karmada.io/v1alpha1"
NAME_MAX = 48
"""Karmada keeps 15 characters of a label for the execution namespace's prefix
(pkg/apis/cluster/validation ValidateClusterName)."""


class SyncMode(enum.StrEnum):
    PUSH = "Push"
    PULL = "Pull"


@meta.frozen
class LocalSecretReference:
    """A Secret in the control plane. Its namespace and name are names, as Kubernetes has
    them, never paths: `gitfleet agent push` reads the kubeconfig
    `<kubeconfig-dir>/<namespace>/<name>.yaml`, which must stay inside that folder."""

    namespace: str = field(doc="Namespace of the Secret.", rule=rules.dns1123_label())
    name: str = field(doc="Name of the Secret.", rule=rules.dns1123_subdomain())


@meta.frozen
class ResourceModelRange:
    """The interval [min, max) of one resource for a grade."""

    name: str = field(doc="cpu, memory, storage or ephemeral-storage.")
    min: meta.Quantity = field(doc="Lower bound of the interval (included).")
    max: meta.Quantity = field(doc="Upper bound of the interval (excluded).")


@meta.frozen
class ResourceModel:
    """One grade of node sizes, for the estimator."""

    grade: int = field(
        doc="Grade of this model; grades ascend with node size.", rule=rules.Rule(minimum=0)
    )
    ranges: tuple[ResourceModelRange, ...] = field(doc="One interval per resource.")


@meta.frozen
class ClusterSpec:
    """How to reach a member cluster and what it offers the scheduler."""

    id: str = field("", doc="Unique identifier of the cluster.")
    sync_mode: SyncMode = field(doc="Push (the control plane applies) or Pull (an agent inside).")
    api_endpoint: str = field("", doc="URL of the member cluster's API server.")
    secret_ref: LocalSecretReference | None = field(
        None, doc="Secret holding the token and CA bundle to reach the cluster."
    )
    impersonator_secret_ref: LocalSecretReference | None = field(
        None, doc="Secret holding the token for impersonation (not supported by gitfleet yet)."
    )
    insecure_skip_tls_verification: bool = field(
        False,
        json="insecureSkipTLSVerification",
        doc="Skip TLS verification of the API server's certificate.",
    )
    proxy_url: str = field(
        "", json="proxyURL", doc="Proxy to reach the API server through (http, https or socks5)."
    )
    proxy_header: dict[str, str] | None = field(None, doc="Headers to send to the proxy.")
    provider: str = field("", doc="Cloud provider; field selectors and spread constraints use it.")
    region: str = field("", doc="Region; field selectors and spread constraints use it.")
    zone: str = field("", doc="Deprecated: use zones.")
    zones: tuple[str, ...] = field(
        (), doc="Zones the cluster spans; field selectors and spread constraints use them."
    )
    taints: tuple[meta.Taint, ...] = field(
        (), doc="Taints; only clusters whose taints a policy tolerates are chosen."
    )
    resource_models: tuple[ResourceModel, ...] = field(
        (),
        doc="Node size grades, for estimating how many replicas fit; Karmada's nine default "
        "grades when empty.",
    )


@meta.frozen
class APIResource:
    """A resource a cluster serves."""

    name: str = field(doc="Plural resource name.")
    kind: str = field(doc="Kind served under that name.")


@meta.frozen
class APIEnablement:
    """The resources a cluster serves in one group/version."""

    group_version: str = field(doc="API group and version, such as apps/v1.")
    resources: tuple[APIResource, ...] = field(
        (), doc="Resources served in that group and version."
    )


@meta.frozen
class NodeSummary:
    """Node counts."""

    total_num: int = field(0, doc="Number of nodes.")
    ready_num: int = field(0, doc="Number of ready nodes.")


@meta.frozen
class AllocatableModeling:
    """How many nodes of a grade a cluster has."""

    grade: int = field(doc="Grade of a resource model.", rule=rules.Rule(minimum=0))
    count: int = field(doc="Number of nodes of that grade.")


@meta.frozen
class NodeAvailable:
    """Nodes that have the same resources available: their allocatable less the requests of
    the pods bound to them (Karmada: pkg/controllers/status getNodeAvailable). Not part of
    Karmada's ClusterStatus: an agent reports these beside it (`nodeAvailable` in its
    cluster.yaml), and the render grades them against the Cluster's resource models
    (`scheduler.modeling`), as Karmada's cluster status controller grades each node."""

    count: int = field(doc="Number of such nodes.", rule=rules.Rule(minimum=1))
    resources: dict[str, meta.Quantity] | None = field(
        None, doc="What each of them has available, by resource; an absent one is zero."
    )


@meta.frozen
class ResourceSummary:
    """Capacity: allocatable, allocated and allocating resources."""

    allocatable: dict[str, meta.Quantity] | None = field(
        None, doc="Resources the cluster's nodes offer."
    )
    allocating: dict[str, meta.Quantity] | None = field(
        None, doc="Resources requested by pods not yet scheduled."
    )
    allocated: dict[str, meta.Quantity] | None = field(
        None, doc="Resources requested by scheduled pods."
    )
    allocatable_modelings: tuple[AllocatableModeling, ...] = field(
        (), doc="Nodes per resource model grade."
    )
    node_available: tuple[NodeAvailable, ...] | None = internal(None, compare=True)
    """The nodes' available resources an agent reported with this summary (None: it reported
    none, as an agent before them did); the render grades them into `allocatable_modelings`.
    Never part of a Cluster's document: a source cannot declare them."""


@meta.frozen
class ClusterStatus:
    """Observed (or declared) state of a member cluster."""

    kubernetes_version: str = field("", doc="Version of the member cluster's Kubernetes.")
    api_enablements: tuple[APIEnablement, ...] = field(
        (), doc="API resources the cluster serves; a kind it does not serve is never placed there."
    )
    conditions: tuple[meta.Condition, ...] = field(
        (), doc="Conditions such as Ready and CompleteAPIEnablements."
    )
    node_summary: NodeSummary | None = field(None)
    resource_summary: ResourceSummary | None = field(None)
    remedy_actions: tuple[str, ...] = field((), doc="Remedies in effect.")


@meta.frozen
class ClusterMeta(meta.ObjectMeta):
    """Object metadata of a Cluster, whose name is also a label value and part of a namespace."""

    name: str = field("", doc="Name of the member cluster.", rule=rules.dns1123_label(NAME_MAX))


@meta.frozen
class Cluster(meta.ApiObject):
    """A member cluster."""

    API_VERSION = API_VERSION
    KIND = "Cluster"
    metadata: ClusterMeta = field()
    spec: ClusterSpec = field()
    status: ClusterStatus = field(ClusterStatus())
    origin: Origin = meta.origin_field()


MAX_INT64 = 2**63 - 1
_GIB = 1024**3


def _grade(grade: int, cpu: tuple[int, int], memory: tuple[int, int]) -> ResourceModel:
    return ResourceModel(
        grade=grade,
        ranges=(
            ResourceModelRange(name="cpu", min=str(cpu[0]), max=str(cpu[1])),
            ResourceModelRange(name="memory", min=str(memory[0]), max=str(memory[1])),
        ),
    )


DEFAULT_RESOURCE_MODELS = (
    _grade(0, (0, 1), (0, 4 * _GIB)),
    _grade(1, (1, 2), (4 * _GIB, 16 * _GIB)),
    _grade(2, (2, 4), (16 * _GIB, 32 * _GIB)),
    _grade(3, (4, 8), (32 * _GIB, 64 * _GIB)),
    _grade(4, (8, 16), (64 * _GIB, 128 * _GIB)),
    _grade(5, (16, 32), (128 * _GIB, 256 * _GIB)),
    _grade(6, (32, 64), (256 * _GIB, 512 * _GIB)),
    _grade(7, (64, 128), (512 * _GIB, 1024 * _GIB)),
    _grade(8, (128, MAX_INT64), (1024 * _GIB, MAX_INT64)),
)
"""The models Karmada gives a Cluster created without any (SetDefaultClusterResourceModels)."""


def stored_zones(spec: ClusterSpec) -> tuple[str, ...]:
    """The zones Karmada stores for a Cluster, which its scheduler and override manager read:
    `zones`, or, when only the deprecated `zone` is written, that zone, which the API server
    moves into `zones` on every create and update (pkg/registry/cluster/strategy.go
    Canonicalize, pkg/apis/cluster/mutation migrateZoneToZones)."""
    if spec.zone and not spec.zones:
        return (spec.zone,)
    return spec.zones


def standard_resource_models(models: tuple[ResourceModel, ...]) -> tuple[ResourceModel, ...]:
    """The resource models Karmada stores for a Cluster declaring `models`, which its webhook
    validates and its estimator reads (pkg/registry/cluster/strategy.go PrepareForCreate,
    pkg/apis/cluster/mutation: SetDefaultClusterResourceModels and
    StandardizeClusterResourceModels, with CustomizedClusterResourceModeling on by default).

    None declared: Karmada's nine default grades. Otherwise sorted by grade, with every min of
    the first grade set to 0 and every max of the last grade to the largest int64, whatever
    was written there.
    """
    if not models:
        return DEFAULT_RESOURCE_MODELS
    ordered = sorted(models, key=lambda m: m.grade)
    ordered[0] = dataclasses.replace(
        ordered[0], ranges=tuple(dataclasses.replace(r, min="0") for r in ordered[0].ranges)
    )
    ordered[-1] = dataclasses.replace(
        ordered[-1],
        ranges=tuple(dataclasses.replace(r, max=str(MAX_INT64)) for r in ordered[-1].ranges),
    )
    return tuple(ordered)
