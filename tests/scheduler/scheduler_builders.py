"""Builders for scheduler tests: clusters, bindings, placements and candidates written the way
a user writes the YAML, parsed by the model. Importable as `scheduler_builders` from the
tests under tests/scheduler/."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet.model import cluster, policy, work
from gitfleet.scheduler import spread

Doc = dict[str, Any]

DEFAULT_APIS: list[Doc] = [
    {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]},
    {
        "groupVersion": "v1",
        "resources": [
            {"name": "configmaps", "kind": "ConfigMap"},
            {"name": "services", "kind": "Service"},
        ],
    },
]


def summary(
    *,
    pods: int | str = 110,
    cpu: str | None = "8",
    memory: str | None = "32Gi",
    allocated: Mapping[str, Any] | None = None,
    allocating: Mapping[str, Any] | None = None,
    **extra: Any,
) -> Doc:
    """A resourceSummary: what is allocatable, and optionally allocated/allocating."""
    allocatable: Doc = {"pods": pods, **extra}
    if cpu is not None:
        allocatable["cpu"] = cpu
    if memory is not None:
        allocatable["memory"] = memory
    doc: Doc = {"allocatable": allocatable}
    if allocated:
        doc["allocated"] = dict(allocated)
    if allocating:
        doc["allocating"] = dict(allocating)
    return doc


def make_cluster(
    name: str,
    *,
    labels: Mapping[str, str] | None = None,
    region: str = "",
    provider: str = "",
    zones: Iterable[str] = (),
    zone: str = "",
    taints: Iterable[Doc] = (),
    apis: list[Doc] | None = None,
    complete_apis: bool = False,
    resource_summary: Doc | None = None,
    resource_models: list[Doc] | None = None,
    deleting: bool = False,
) -> cluster.Cluster:
    """A Push cluster serving Deployments, ConfigMaps and Services (unless `apis` says
    otherwise), without capacity unless `resource_summary` is given."""
    spec: Doc = {"syncMode": "Push"}
    if region:
        spec["region"] = region
    if provider:
        spec["provider"] = provider
    if zones:
        spec["zones"] = list(zones)
    if zone:
        spec["zone"] = zone
    if taints:
        spec["taints"] = list(taints)
    if resource_models:
        spec["resourceModels"] = resource_models
    status: Doc = {"apiEnablements": DEFAULT_APIS if apis is None else apis}
    if complete_apis:
        status["conditions"] = [{"type": "CompleteAPIEnablements", "status": "True"}]
    if resource_summary is not None:
        status["resourceSummary"] = resource_summary
    metadata: Doc = {"name": name, "labels": dict(labels or {})}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return cluster.Cluster.from_doc(
        {
            "apiVersion": "cluster.karmada.io/v1alpha1",
            "kind": "Cluster",
            "metadata": metadata,
            "spec": spec,
            "status": status,
        }
    )


def divided(preference: str = "Weighted", **weight_preference: Any) -> Doc:
    """A Divided replicaScheduling (as Karmada's defaults leave it)."""
    doc: Doc = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": preference}
    if weight_preference:
        doc["weightPreference"] = weight_preference
    return doc


def dynamic() -> Doc:
    return divided(dynamicWeight="AvailableReplicas")


def static(weights: Mapping[str, int]) -> Doc:
    """Divided by a static weight per cluster name."""
    return divided(
        staticWeightList=[
            {"targetCluster": {"clusterNames": [name]}, "weight": w} for name, w in weights.items()
        ]
    )


def spread_by(field: str, min_groups: int = 1, max_groups: int = 0) -> Doc:
    doc: Doc = {"spreadByField": field, "minGroups": min_groups}
    if max_groups:
        doc["maxGroups"] = max_groups
    return doc


def make_binding(
    *,
    replicas: int = 0,
    placement: Doc | None = None,
    clusters: Mapping[str, int] | None = None,
    kind: str = "Deployment",
    api_version: str = "apps/v1",
    name: str = "web",
    namespace: str = "default",
    uid: str = "",
    requests: Mapping[str, Any] | None = None,
    status: Doc | None = None,
    annotations: Mapping[str, str] | None = None,
    reschedule_at: str | None = None,
    evictions: Iterable[str] = (),
    **spec_extra: Any,
) -> work.ResourceBinding:
    """A ResourceBinding for a Deployment; `clusters` is the previous result."""
    resource: Doc = {"apiVersion": api_version, "kind": kind, "name": name}
    if namespace:
        resource["namespace"] = namespace
    if uid:
        resource["uid"] = uid
    spec: Doc = {"resource": resource, "placement": placement or {}, **spec_extra}
    if replicas:
        spec["replicas"] = replicas
    if requests is not None:
        spec["replicaRequirements"] = {"resourceRequest": dict(requests)}
    if clusters:
        spec["clusters"] = [{"name": n, "replicas": r} for n, r in clusters.items()]
    if reschedule_at:
        spec["rescheduleTriggeredAt"] = reschedule_at
    tasks = [{"fromCluster": c, "reason": "Test", "producer": "test"} for c in evictions]
    if tasks:
        spec["gracefulEvictionTasks"] = tasks
    metadata: Doc = {"name": f"{name}-{kind.lower()}", "namespace": namespace}
    if annotations:
        metadata["annotations"] = dict(annotations)
    doc: Doc = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": metadata,
        "spec": spec,
    }
    if status:
        doc["status"] = status
    return work.ResourceBinding.from_doc(doc)


def make_placement(**doc: Any) -> policy.Placement:
    """A Placement from its YAML fields."""
    placement = make_binding(placement=doc).spec.placement
    assert placement is not None
    return placement


def candidate(
    name: str,
    *,
    score: int = 0,
    available: int = 0,
    allocatable: int | None = None,
    overflow_order: int = 0,
    of: cluster.Cluster | None = None,
) -> spread.Candidate:
    """A feasible cluster as selection and assignment see it."""
    return spread.Candidate(
        name=name,
        score=score,
        overflow_order=overflow_order,
        available=available,
        allocatable=available if allocatable is None else allocatable,
        cluster=of or make_cluster(name),
    )


def targets(result: Iterable[work.TargetCluster]) -> dict[str, int]:
    """A schedule result as {cluster: replicas}."""
    return {t.name: t.replicas for t in result}
