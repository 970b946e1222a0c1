"""Whether a member object is healthy, per kind.

Workload controllers are healthy only once they have observed the latest spec
(`status.observedGeneration == metadata.generation`) and rolled it out. Karmada:
pkg/resourceinterpreter/default/native/healthy.go.
"""

from __future__ import annotations

from typing import Any

from gitfleet.interpreter import _fields, _times
from gitfleet.model.template import RawObject

_STATUS = ("status",)


def _observed_latest(obj: RawObject, status: dict[str, Any]) -> bool:
    generation = _fields.integer(
        _fields.at(obj, ("metadata", "generation")), ("metadata", "generation")
    )
    observed = _fields.integer(status.get("observedGeneration"), ("status", "observedGeneration"))
    return observed == generation


def _counters(status: dict[str, Any], *keys: str) -> list[int]:
    return [_fields.integer(status.get(key), ("status", key)) for key in keys]


def _desired_replicas(obj: RawObject) -> int | None:
    return _fields.optional_integer(_fields.at(obj, ("spec", "replicas")), ("spec", "replicas"))


def rolled_out(obj: RawObject) -> bool:
    """Deployment, StatefulSet: the latest spec observed, every desired replica updated
    (when `spec.replicas` is set), and every updated replica available. Every field is read
    before deciding, so a malformed one is an error whatever the others say, as it is when
    Karmada converts the object to its Go type."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    latest = _observed_latest(obj, status)
    desired = _desired_replicas(obj)
    updated, available = _counters(status, "updatedReplicas", "availableReplicas")
    return latest and (desired is None or updated >= desired) and available >= updated


def replica_set(obj: RawObject) -> bool:
    """ReplicaSet: the latest spec observed and every desired replica available."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    latest = _observed_latest(obj, status)
    desired = _desired_replicas(obj)
    (available,) = _counters(status, "availableReplicas")
    return latest and (desired is None or available >= desired)


def daemon_set(obj: RawObject) -> bool:
    """DaemonSet: the latest spec observed, scheduled everywhere, and available there."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    latest = _observed_latest(obj, status)
    updated, desired, available = _counters(
        status, "updatedNumberScheduled", "desiredNumberScheduled", "numberAvailable"
    )
    return latest and updated >= desired and available >= updated


def _has_address(obj: RawObject) -> bool:
    """Some load balancer ingress entry has an IP or a hostname (every entry is read)."""
    key = ("status", "loadBalancer", "ingress")
    found = False
    for i, entry in enumerate(_fields.array(_fields.at(obj, key), key)):
        entry = _fields.mapping(entry, (*key, i))
        ip = _fields.string(entry.get("ip"), (*key, i, "ip"))
        hostname = _fields.string(entry.get("hostname"), (*key, i, "hostname"))
        found = found or bool(ip or hostname)
    return found


def service(obj: RawObject) -> bool:
    """Service: always healthy unless of type LoadBalancer, which needs an address (the
    addresses are read whatever the type)."""
    kind = _fields.string(_fields.at(obj, ("spec", "type")), ("spec", "type"))
    has_address = _has_address(obj)
    return kind != "LoadBalancer" or has_address


def ingress(obj: RawObject) -> bool:
    """Ingress: needs a load balancer address."""
    return _has_address(obj)


def persistent_volume_claim(obj: RawObject) -> bool:
    """PersistentVolumeClaim: bound."""
    return _fields.string(_fields.at(obj, ("status", "phase")), ("status", "phase")) == "Bound"


def pod(obj: RawObject) -> bool:
    """Pod: succeeded, or running with its (first) Ready condition true. Every condition is
    read, its times too, whatever the phase."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    phase = _fields.string(status.get("phase"), ("status", "phase"))
    ready: str | None = None
    key = ("status", "conditions")
    for i, condition in enumerate(_fields.array(status.get("conditions"), key)):
        at = (*key, i)
        condition = _fields.mapping(condition, at)
        kind, state = (_fields.string(condition.get(k), (*at, k)) for k in ("type", "status"))
        for when in ("lastProbeTime", "lastTransitionTime"):
            _times.parse(condition.get(when), (*at, when))
        if kind == "Ready" and ready is None:
            ready = state
    return phase == "Succeeded" or (phase == "Running" and ready == "True")


def pod_disruption_budget(obj: RawObject) -> bool:
    """PodDisruptionBudget: at least as many healthy pods as it wants."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    current, desired = _counters(status, "currentHealthy", "desiredHealthy")
    return current >= desired
