"""What the status tests share: status ref files written the way agents write them (through
`agent.report`, from a sync result and a cluster status), written into a repository, and
bindings with a schedule result.
Imported as `status.status_kit` (tests/ is on the path)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gitfleet.agent import apply, identity, report
from gitfleet.gitstore import repository
from gitfleet.gitstore import status as status_refs
from gitfleet.model import capacity, cluster, meta, policy, work
from gitfleet.model.origin import Origin

NOW = "2026-01-01T00:10:00Z"
Doc = dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Applied:
    """One manifest of a sync: applied (or failed with `message`), its health and status."""

    kind: str
    name: str
    namespace: str = "shop"
    api_version: str = "apps/v1"
    health: work.ResourceHealth = work.ResourceHealth.HEALTHY
    status: Any = None
    message: str = ""
    drift: tuple[str, ...] = ()

    def result(self, cluster_name: str) -> apply.ObjectResult:
        group = self.api_version.rpartition("/")[0] or "core"
        path = f"works/{cluster_name}/{self.namespace or '_cluster'}/{self.kind}.{group}"
        return apply.ObjectResult(
            ref=identity.ObjectRef(self.api_version, self.kind, self.namespace, self.name),
            path=f"{path}/{self.name}.yaml",
            action=apply.Action.FAILED if self.message else apply.Action.UNCHANGED,
            message=self.message,
            drift=self.drift,
            health=self.health,
            status=self.status,
        )


def ready_status(status: str = "True", reason: str = "ClusterReady") -> cluster.ClusterStatus:
    return cluster.ClusterStatus(
        kubernetes_version="v1.31.0",
        conditions=(meta.Condition(type="Ready", status=status, reason=reason, message="m"),),
    )


def report_files(
    cluster_name: str,
    manifests: Sequence[Applied] = (),
    *,
    heartbeat: str = NOW,
    rendered_commit: str = "r1",
    status: cluster.ClusterStatus | None = None,
    error: str = "",
) -> dict[str, bytes]:
    """A status ref's files as `agent.report` writes them."""
    result = apply.SyncResult(
        cluster=cluster_name,
        rendered_commit=rendered_commit,
        source_commit="s1",
        objects=tuple(m.result(cluster_name) for m in manifests),
        error=error,
    )
    summary = report.cluster_document(
        cluster_name,
        status or ready_status(),
        heartbeat=heartbeat,
        rendered_commit=rendered_commit,
    )
    return {
        report.CLUSTER_FILE: report.encode(summary),
        report.WORKS_FILE: report.encode(report.works_document(result)),
    }


def capacity_status(
    nodes: tuple[int, int] | None, cpu: str | None = None, *, unavailable: str = ""
) -> cluster.ClusterStatus:
    """A ready cluster as its agent reports its capacity: `nodes` (ready, total) and `cpu`
    allocatable listed now, or, when `unavailable` says why they could not be, the summaries
    kept from an earlier report (`nodes` None: there was none)."""
    summary = None
    if nodes is not None:
        allocatable = {"cpu": cpu, "memory": "64Gi", "pods": "110"} if cpu else None
        summary = cluster.ResourceSummary(allocatable=allocatable)
    reason = capacity.SUMMARY_UNAVAILABLE if unavailable else capacity.SUMMARY_COLLECTED
    collected = meta.Condition(
        type=capacity.SUMMARY_CONDITION,
        status="False" if unavailable else "True",
        reason=reason,
        message=unavailable or "collected nodes and pods from the cluster",
    )
    ready = ready_status()
    return dataclasses.replace(
        ready,
        conditions=(*ready.conditions, collected),
        node_summary=None
        if nodes is None
        else cluster.NodeSummary(ready_num=nodes[0], total_num=nodes[1]),
        resource_summary=summary,
    )


def no_room_status() -> cluster.ClusterStatus:
    """A ready cluster whose capacity is all taken."""
    full = {"cpu": "8", "memory": "64Gi", "pods": "110"}
    return dataclasses.replace(
        ready_status(),
        resource_summary=cluster.ResourceSummary(allocatable=full, allocated=full),
    )


def report_no_room(path: Path, *names: str) -> None:
    """The agents of `names` report, now, ready clusters with no room left."""
    beat = report.timestamp(time.time())
    write_reports(
        path, {n: report_files(n, status=no_room_status(), heartbeat=beat) for n in names}
    )


def write_reports(path: Path, reports: Mapping[str, Mapping[str, bytes]]) -> None:
    """Write each cluster's status ref files into the repository at `path`, as its agent does."""
    repo = repository.open_repository(path)
    assert repo is not None
    try:
        for name, files in reports.items():
            current = status_refs.read_status(repo, name)
            expected = current.commit if current else None
            status_refs.write_status(repo, name, files, expected=expected, rendered_commit="r1")
    finally:
        repo.close()


def binding(
    name: str = "web",
    *,
    kind: str = "Deployment",
    api_version: str = "apps/v1",
    clusters: Mapping[str, int] | None = None,
    replicas: int = 0,
    required_by: Mapping[str, int] | None = None,
    evicted: Mapping[str, str] | None = None,
) -> work.ResourceBinding:
    """A scheduled ResourceBinding for shop/<name> (`evicted`: cluster to purge mode)."""
    resource = {"apiVersion": api_version, "kind": kind, "namespace": "shop", "name": name}
    doc: Doc = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": f"{name}-{kind.lower()}", "namespace": "shop"},
        "spec": {
            "resource": resource,
            "replicas": replicas,
            "clusters": [{"name": c, "replicas": n} for c, n in (clusters or {}).items()],
            "requiredBy": [
                {"namespace": "shop", "name": "app", "clusters": [{"name": c, "replicas": n}]}
                for c, n in (required_by or {}).items()
            ],
            "gracefulEvictionTasks": [
                {
                    "fromCluster": c,
                    "purgeMode": mode,
                    "reason": "TaintUntolerated",
                    "producer": "taint-manager",
                }
                for c, mode in (evicted or {}).items()
            ],
        },
    }
    return work.ResourceBinding.from_doc(doc, Origin("bindings/web.yaml"))


PURGE = policy.PurgeMode
