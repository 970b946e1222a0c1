"""Builders of the Kubernetes documents the interpreter tests feed in: workloads around a pod
spec, member objects with a status, and status items as a binding holds them.

Importable as `interpreter.kube_docs` (tests/ is on the path).
"""

from __future__ import annotations

from typing import Any

from gitfleet.model import work

Doc = dict[str, Any]

API_VERSIONS = {
    "Deployment": "apps/v1",
    "ReplicaSet": "apps/v1",
    "StatefulSet": "apps/v1",
    "DaemonSet": "apps/v1",
    "Job": "batch/v1",
    "CronJob": "batch/v1",
    "Ingress": "networking.k8s.io/v1",
    "PodDisruptionBudget": "policy/v1",
    "HorizontalPodAutoscaler": "autoscaling/v2",
    "ServiceImport": "multicluster.x-k8s.io/v1alpha1",
}


def obj(kind: str, name: str = "app", namespace: str = "store", **fields: Any) -> Doc:
    """A document of `kind` (apiVersion from the table, else v1) with top-level `fields`."""
    metadata: Doc = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata.update(fields.pop("metadata", {}))
    return {
        "apiVersion": API_VERSIONS.get(kind, "v1"),
        "kind": kind,
        "metadata": metadata,
        **fields,
    }


def container(
    name: str = "main", requests: Doc | None = None, limits: Doc | None = None, **extra: Any
) -> Doc:
    """A container with the given resource requests and limits."""
    resources: Doc = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    out: Doc = {"name": name, "image": f"registry.example/{name}:1"}
    if resources:
        out["resources"] = resources
    return {**out, **extra}


def pod_spec(*containers: Doc, **extra: Any) -> Doc:
    """A pod spec with these containers (one plain container if none)."""
    return {"containers": list(containers) or [container()], **extra}


def workload(
    kind: str, spec: Doc | None = None, *, replicas: int | None = None, **fields: Any
) -> Doc:
    """A Deployment-like object whose pod template has `spec`."""
    body: Doc = {"selector": {"matchLabels": {"app": "app"}}}
    if replicas is not None:
        body["replicas"] = replicas
    body["template"] = {"metadata": {"labels": {"app": "app"}}, "spec": spec or pod_spec()}
    body.update(fields.pop("spec_extra", {}))
    return obj(kind, spec=body, **fields)


def item(cluster: str, status: Any = None) -> work.AggregatedStatusItem:
    """A status item as a binding holds it for one cluster."""
    return work.AggregatedStatusItem(cluster_name=cluster, status=status, applied=True)
