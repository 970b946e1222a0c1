"""What a FederatedHPA needs measured of its target in this cluster: the workload's pods, their
readiness and resource requests, and their usage from the resource metrics API
(metrics.k8s.io/v1beta1 PodMetrics, served by a metrics-server), as Karmada's controller reads
them through its pod informers and the metrics adapter (pkg/controllers/federatedhpa,
pkg/metricsadapter).

Only workloads whose manifest carries the annotation the render puts on FederatedHPA targets
(`autoscaling.TARGET_ANNOTATION`) are measured, so the reports of every other workload stay as
they were and a status commit is not made for every change of load. Two requests per measured
workload: its pods and their metrics, both by the workload's selector. At most `MAX_PODS` pods
are listed; beyond that, and when the cluster serves no metrics API, the report says why
(`problem`) and the autoscaler leaves the replicas as they are.

Quantities are in thousandths (millicores, millibytes), as the autoscaler sums them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from gitfleet import autoscaling, errors
from gitfleet.agent import kube
from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import labelquery

log = logging.getLogger(__name__)

MAX_PODS = 200
SCALED_KINDS = frozenset({"Deployment", "StatefulSet", "ReplicaSet"})
_WINDOW = re.compile(r"([0-9.]+)(ms|s|m)?")
_RESOURCES = autoscaling.RESOURCES


def _selector(obj: Mapping[str, Any]) -> str | None:
    """The workload's pod selector in the API's query syntax; None without one."""
    selector = (obj.get("spec") or {}).get("selector")
    return (labelquery.text(selector) or None) if isinstance(selector, dict) else None


def _milli(text: Any) -> int | None:
    try:
        return quantity.parse(text).milli_value()
    except ValueError:
        return None


def _requests(spec: Mapping[str, Any]) -> dict[str, int | None]:
    """Per resource, the sum of the containers' requests (limits stand in for a missing
    request, as the API server defaults it); None when a container has neither."""
    found: dict[str, int | None] = {}
    for name in _RESOURCES:
        total: int | None = 0
        for container in spec.get("containers") or []:
            resources = container.get("resources") or {}
            value = (resources.get("requests") or {}).get(name)
            value = value if value is not None else (resources.get("limits") or {}).get(name)
            amount = _milli(value) if value is not None else None
            total = None if amount is None or total is None else total + amount
        found[name] = total
    return found


def _window(text: Any) -> float:
    match = _WINDOW.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return 0.0
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}[match[2]]
    return float(match[1]) * scale


def _pod(pod: Mapping[str, Any], sample: Mapping[str, Any] | None) -> dict[str, Any]:
    metadata, status = pod.get("metadata") or {}, pod.get("status") or {}
    entry: dict[str, Any] = {
        "name": metadata.get("name", ""),
        "phase": status.get("phase", ""),
        "requests": _requests(pod.get("spec") or {}),
    }
    if metadata.get("deletionTimestamp"):
        entry["deleting"] = True
    ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    if ready is not None:
        entry["ready"] = ready.get("status") == "True"
        if ready.get("lastTransitionTime"):
            entry["readyChanged"] = ready["lastTransitionTime"]
    if status.get("startTime"):
        entry["started"] = status["startTime"]
    if sample is not None:
        usage: dict[str, int] = {}
        for container in sample.get("containers") or []:
            for name, value in (container.get("usage") or {}).items():
                amount = _milli(value)
                if name in _RESOURCES and amount is not None:
                    usage[name] = usage.get(name, 0) + amount
        entry["usage"] = usage
        entry["measured"] = sample.get("timestamp", "")
        entry["window"] = _window(sample.get("window"))
    return entry


def measure(client: kube.KubeClient, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The `metrics` of a report's manifest for a live workload; None when it is no
    FederatedHPA target."""
    metadata = obj.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    if autoscaling.TARGET_ANNOTATION not in annotations or obj.get("kind") not in SCALED_KINDS:
        return None
    namespace, selector = metadata.get("namespace", ""), _selector(obj)
    if selector is None:
        return {"pods": [], "problem": "the workload has no pod selector"}
    query = {"labelSelector": selector, "limit": str(MAX_PODS + 1)}
    try:
        _, listed = client.request(
            "GET", f"/api/v1/namespaces/{namespace}/pods", "listing pods", query=query
        )
        pods = listed.get("items") or []
        if len(pods) > MAX_PODS:
            return {"pods": [], "problem": f"more than {MAX_PODS} pods"}
        client.resource_type("metrics.k8s.io/v1beta1", "PodMetrics")
        _, found = client.request(
            "GET",
            f"/apis/metrics.k8s.io/v1beta1/namespaces/{namespace}/pods",
            "reading pod metrics",
            query={"labelSelector": selector},
        )
    except kube.NotServedError:
        return {"pods": [], "problem": "the cluster serves no resource metrics API"}
    except errors.ClusterAPIError as error:
        log.warning("measuring %s/%s: %s", namespace, metadata.get("name"), error)
        return {"pods": [], "problem": f"measuring failed: {error}"}
    samples = {(s.get("metadata") or {}).get("name"): s for s in found.get("items") or []}
    entries = [_pod(p, samples.get((p.get("metadata") or {}).get("name"))) for p in pods]
    return {"pods": sorted(entries, key=lambda e: str(e["name"]))}
