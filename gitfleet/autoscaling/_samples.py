"""What the agents measured of a FederatedHPA's target, as the autoscaler reads it: the pods of
the workload in each member cluster, with their readiness, their resource requests and their
usage from the metrics API (metrics.k8s.io PodMetrics), and the member's own replica counts.

`agent.podmetrics` writes this under a manifest's `metrics` in works.yaml; `from_report` reads it
back, leniently: a report of an older agent has none, and a damaged entry is left out.
Quantities are in thousandths (Kubernetes' MilliValue: millicores, millibytes), as Karmada's
metrics client sums them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

RESOURCES = ("cpu", "memory")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Pod:
    """One pod of the workload in one cluster."""

    name: str
    phase: str = ""
    deleting: bool = False
    ready: bool | None = None
    """The Ready condition (None: the pod has none)."""
    ready_changed: str | None = None
    """When the Ready condition last changed (RFC 3339)."""
    started: str | None = None
    """The pod's start time (RFC 3339), None before it started."""
    requests: Mapping[str, int | None] = dataclasses.field(default_factory=dict)
    """Per resource, the sum of the containers' requests; None when a container has none."""
    usage: Mapping[str, int] = dataclasses.field(default_factory=dict)
    """Per resource, the usage the metrics API reported (absent: no metrics for the pod)."""
    measured: str | None = None
    """When the metrics API sampled the usage (RFC 3339)."""
    window: float = 0.0
    """The sampling window of the usage, in seconds."""


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Workload:
    """The target workload in one member cluster."""

    cluster: str
    spec_replicas: int = 0
    """The member's own spec.replicas (a Duplicated workload's are the template's)."""
    pods: tuple[Pod, ...] = ()
    complete: bool = True
    """False when the agent could not list every pod or their metrics (the report says why)."""
    problem: str = ""


def _text(doc: Mapping[str, Any], key: str) -> str | None:
    value = doc.get(key)
    return value if isinstance(value, str) else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _amounts(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    return {k: v for k in RESOURCES if (v := _whole(value.get(k))) is not None}


def _pod(doc: Any) -> Pod | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str):
        return None
    requests = doc.get("requests")
    requests = requests if isinstance(requests, dict) else {}
    ready = doc.get("ready")
    window = doc.get("window")
    return Pod(
        name=doc["name"],
        phase=_text(doc, "phase") or "",
        deleting=doc.get("deleting") is True,
        ready=ready if isinstance(ready, bool) else None,
        ready_changed=_text(doc, "readyChanged"),
        started=_text(doc, "started"),
        requests={k: _whole(requests.get(k)) for k in RESOURCES if k in requests},
        usage=_amounts(doc.get("usage")),
        measured=_text(doc, "measured"),
        window=float(window) if isinstance(window, int | float) else 0.0,
    )


def from_report(cluster: str, metrics: Any, observed: Any) -> Workload | None:
    """The workload of one manifest's report: its `metrics` (None when the agent measured
    nothing) and the `observed` fields (the member's spec.replicas)."""
    if not isinstance(metrics, dict):
        return None
    spec = observed.get("spec") if isinstance(observed, dict) else None
    spec_replicas = _whole(spec.get("replicas")) if isinstance(spec, dict) else None
    pods = metrics.get("pods")
    found = [_pod(p) for p in pods] if isinstance(pods, list) else []
    problem = _text(metrics, "problem") or ""
    return Workload(
        cluster=cluster,
        spec_replicas=spec_replicas if spec_replicas is not None else 1,
        pods=tuple(p for p in found if p is not None),
        complete=not problem,
        problem=problem,
    )
