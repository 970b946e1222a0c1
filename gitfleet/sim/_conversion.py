"""Built-in kinds served in versions of different shapes: one is stored, and every read and
write in another is converted, as the API server converts through its internal version.

The one such kind here is the HorizontalPodAutoscaler, stored as autoscaling/v2 and served as
autoscaling/v1 too (what `kubectl autoscale` writes, and what older manifests use): v1's
`targetCPUUtilizationPercentage` is v2's CPU Utilization metric, its
`currentCPUUtilizationPercentage` that metric's current value. What v1 cannot express (other
metrics, `behavior`, status conditions) a real server keeps in annotations of the v1 object;
here the v1 object leaves them out, and a v1 write keeps them from the stored object, so they
survive a v1 client's update as they do on a real server.
"""

from __future__ import annotations

from gitfleet.sim import _json, _resources

HPA = ("autoscaling", "horizontalpodautoscalers")
STORED_VERSION = "v2"


def _converts(resource: _resources.ResourceType, version: str) -> bool:
    return (resource.group, resource.plural) == HPA and version != STORED_VERSION


def _is_cpu_utilization(metric: object) -> bool:
    return (
        isinstance(metric, dict)
        and metric.get("type") == "Resource"
        and _json.dig(metric, "resource", "name") == "cpu"
        and _json.dig(metric, "resource", "target", "type") == "Utilization"
    )


def _is_cpu_current(metric: object) -> bool:
    return (
        isinstance(metric, dict)
        and metric.get("type") == "Resource"
        and _json.dig(metric, "resource", "name") == "cpu"
    )


def _copy(source: _json.Obj, target: _json.Obj, *keys: str) -> None:
    for key in keys:
        if source.get(key) is not None:
            target[key] = _json.clone(source[key])


def shown(resource: _resources.ResourceType, version: str, obj: _json.Obj) -> _json.Obj:
    """A stored object as `version` shows it (a copy, or `obj` itself if nothing differs)."""
    if not _converts(resource, version):
        return obj
    result: _json.Obj = {k: _json.clone(v) for k, v in obj.items() if k not in ("spec", "status")}
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    v1_spec: _json.Obj = {}
    _copy(spec, v1_spec, "scaleTargetRef", "minReplicas", "maxReplicas")
    for metric in spec.get("metrics") or []:
        if _is_cpu_utilization(metric):
            target = metric["resource"]["target"]
            if target.get("averageUtilization") is not None:
                v1_spec["targetCPUUtilizationPercentage"] = target["averageUtilization"]
    result["spec"] = v1_spec
    # v1's replica counts are not omitempty: a real server always writes them out.
    v1_status: _json.Obj = {"currentReplicas": 0, "desiredReplicas": 0}
    _copy(
        status,
        v1_status,
        "observedGeneration",
        "lastScaleTime",
        "currentReplicas",
        "desiredReplicas",
    )
    for metric in status.get("currentMetrics") or []:
        utilization = _json.dig(metric, "resource", "current", "averageUtilization")
        if _is_cpu_current(metric) and utilization is not None:
            v1_status["currentCPUUtilizationPercentage"] = utilization
    result["status"] = v1_status
    return result


def stored(
    resource: _resources.ResourceType,
    version: str,
    obj: _json.Obj,
    live: _json.Obj | None,
) -> _json.Obj:
    """An object written in `version` as it is stored; what `version` cannot express is
    taken from `live`, the stored object it replaces (None on create)."""
    if not _converts(resource, version):
        return obj
    live = live or {}
    live_spec, live_status = live.get("spec") or {}, live.get("status") or {}
    result: _json.Obj = {k: v for k, v in obj.items() if k not in ("spec", "status")}
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    v2_spec: _json.Obj = {}
    _copy(spec, v2_spec, "scaleTargetRef", "minReplicas", "maxReplicas")
    metrics = [m for m in live_spec.get("metrics") or [] if not _is_cpu_utilization(m)]
    if spec.get("targetCPUUtilizationPercentage") is not None:
        target = {
            "type": "Utilization",
            "averageUtilization": spec["targetCPUUtilizationPercentage"],
        }
        metrics.insert(0, {"type": "Resource", "resource": {"name": "cpu", "target": target}})
    if metrics:
        v2_spec["metrics"] = metrics
    _copy(live_spec, v2_spec, "behavior")
    result["spec"] = v2_spec
    if "status" in obj:
        v2_status: _json.Obj = {}
        _copy(
            status,
            v2_status,
            "observedGeneration",
            "lastScaleTime",
            "currentReplicas",
            "desiredReplicas",
        )
        current = [m for m in live_status.get("currentMetrics") or [] if not _is_cpu_current(m)]
        if status.get("currentCPUUtilizationPercentage") is not None:
            utilization = {"averageUtilization": status["currentCPUUtilizationPercentage"]}
            current.insert(
                0, {"type": "Resource", "resource": {"name": "cpu", "current": utilization}}
            )
        if current:
            v2_status["currentMetrics"] = current
        _copy(live_status, v2_status, "conditions")
        result["status"] = v2_status
    return result
