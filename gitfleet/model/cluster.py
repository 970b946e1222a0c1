"""cluster.karmada.io/v1alpha1 Cluster (Karmada: pkg/apis/cluster/v1alpha1/types.go).

A Cluster in the source repository declares a member cluster. Its optional `status` is the
declared capacity and API list; status reported by the cluster's agent supersedes it.
"""

from __future__ import annotations

import enum

from gitfleet.model import meta
from gitfleet.model._codec import field
from gitfleet.model.origin import Origin

API_VERSION = "cluster.karmada.io/v1alpha1"


class SyncMode(enum.StrEnum):
    PUSH = "Push"
    PULL = "Pull"


@meta.frozen
class LocalSecretReference:
    """A Secret in the control plane."""

    namespace: str = field()
    name: str = field()


@meta.frozen
class ResourceModelRange:
    """The interval [min, max) of one resource for a grade."""

    name: str = field(doc="cpu, memory, storage or ephemeral-storage.")
    min: meta.Quantity = field()
    max: meta.Quantity = field()


@meta.frozen
class ResourceModel:
    """One grade of node sizes, for the estimator."""

    grade: int = field()
    ranges: tuple[ResourceModelRange, ...] = field()


@meta.frozen
class ClusterSpec:
    """How to reach a member cluster and what it offers the scheduler."""

    id: str = field("")
    sync_mode: SyncMode = field(doc="Push (the control plane applies) or Pull (an agent inside).")
    api_endpoint: str = field("")
    secret_ref: LocalSecretReference | None = field(None)
    impersonator_secret_ref: LocalSecretReference | None = field(None)
    insecure_skip_tls_verification: bool = field(False, json="insecureSkipTLSVerification")
    proxy_url: str = field("", json="proxyURL")
    proxy_header: dict[str, str] | None = field(None)
    provider: str = field("")
    region: str = field("")
    zone: str = field("")
    zones: tuple[str, ...] = field(())
    taints: tuple[meta.Taint, ...] = field(())
    resource_models: tuple[ResourceModel, ...] = field(())


@meta.frozen
class APIResource:
    """A resource a cluster serves."""

    name: str = field()
    kind: str = field()


@meta.frozen
class APIEnablement:
    """The resources a cluster serves in one group/version."""

    group_version: str = field()
    resources: tuple[APIResource, ...] = field(())


@meta.frozen
class NodeSummary:
    """Node counts."""

    total_num: int = field(0)
    ready_num: int = field(0)


@meta.frozen
class AllocatableModeling:
    """How many nodes of a grade a cluster has."""

    grade: int = field()
    count: int = field()


@meta.frozen
class ResourceSummary:
    """Capacity: allocatable, allocated and allocating resources."""

    allocatable: dict[str, meta.Quantity] | None = field(None)
    allocating: dict[str, meta.Quantity] | None = field(None)
    allocated: dict[str, meta.Quantity] | None = field(None)
    allocatable_modelings: tuple[AllocatableModeling, ...] = field(())


@meta.frozen
class ClusterStatus:
    """Observed (or declared) state of a member cluster."""

    kubernetes_version: str = field("")
    api_enablements: tuple[APIEnablement, ...] = field(())
    conditions: tuple[meta.Condition, ...] = field(())
    node_summary: NodeSummary | None = field(None)
    resource_summary: ResourceSummary | None = field(None)
    remedy_actions: tuple[str, ...] = field(())


@meta.frozen
class Cluster(meta.ApiObject):
    """A member cluster."""

    API_VERSION = API_VERSION
    KIND = "Cluster"
    metadata: meta.ObjectMeta = field()
    spec: ClusterSpec = field()
    status: ClusterStatus = field(ClusterStatus())
    origin: Origin = meta.origin_field()
