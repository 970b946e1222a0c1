"""Whether a member object is healthy, per kind.

Workload controllers are healthy only once they have observed the latest spec
(`status.observedGeneration == metadata.generation`) and rolled it out. Karmada:
pkg/resourceinterpreter/default/native/healthy.go.
"""

from __future__ import annotations

from typing import Any

from gitfleet.interpreter import _fields
from gitfleet.model.template import RawObject

_STATUS = ("status",)


def _observed_latest(obj: RawObject, status: dict[str, Any]) -> bool:
    generation = _fields.integer(
        _fields.at(obj, ("metadata", "generation")), ("metadata", "generation")
    )
    observed = _fields.integer(status.get("observedGeneration"), ("status", "observedGeneration"))
    return observed == generation


def _counter(status: dict[str, Any], key: str) -> int:
    return _fields.integer(status.get(key), ("status", key))


def _desired_replicas(obj: RawObject) -> int | None:
    return _fields.optional_integer(_fields.at(obj, ("spec", "replicas")), ("spec", "replicas"))


def rolled_out(obj: RawObject) -> bool:
    """Deployment, StatefulSet: the latest spec observed, every desired replica updated
    (when `spec.replicas` is set), and every updated replica available."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    if not _observed_latest(obj, status):
        return False
    updated = _counter(status, "updatedReplicas")
    desired = _desired_replicas(obj)
    if desired is not None and updated < desired:
        return False
    return _counter(status, "availableReplicas") >= updated


def replica_set(obj: RawObject) -> bool:
    """ReplicaSet: the latest spec observed and every desired replica available."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    if not _observed_latest(obj, status):
        return False
    desired = _desired_replicas(obj)
    return desired is None or _counter(status, "availableReplicas") >= desired


def daemon_set(obj: RawObject) -> bool:
    """DaemonSet: the latest spec observed, scheduled everywhere, and available there."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    if not _observed_latest(obj, status):
        return False
    updated = _counter(status, "updatedNumberScheduled")
    if updated < _counter(status, "desiredNumberScheduled"):
        return False
    return _counter(status, "numberAvailable") >= updated


def _has_address(obj: RawObject) -> bool:
    """Some load balancer ingress entry has an IP or a hostname."""
    key = ("status", "loadBalancer", "ingress")
    for i, entry in enumerate(_fields.array(_fields.at(obj, key), key)):
        entry = _fields.mapping(entry, (*key, i))
        ip = _fields.string(entry.get("ip"), (*key, i, "ip"))
        if ip or _fields.string(entry.get("hostname"), (*key, i, "hostname")):
            return True
    return False


def service(obj: RawObject) -> bool:
    """Service: always healthy unless of type LoadBalancer, which needs an address."""
    kind = _fields.string(_fields.at(obj, ("spec", "type")), ("spec", "type"))
    return kind != "LoadBalancer" or _has_address(obj)


def ingress(obj: RawObject) -> bool:
    """Ingress: needs a load balancer address."""
    return _has_address(obj)


def persistent_volume_claim(obj: RawObject) -> bool:
    """PersistentVolumeClaim: bound."""
    return _fields.string(_fields.at(obj, ("status", "phase")), ("status", "phase")) == "Bound"


def pod(obj: RawObject) -> bool:
    """Pod: succeeded, or running with its Ready condition true."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    phase = _fields.string(status.get("phase"), ("status", "phase"))
    if phase == "Succeeded":
        return True
    if phase != "Running":
        return False
    key = ("status", "conditions")
    for i, condition in enumerate(_fields.array(status.get("conditions"), key)):
        condition = _fields.mapping(condition, (*key, i))
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return False


def pod_disruption_budget(obj: RawObject) -> bool:
    """PodDisruptionBudget: at least as many healthy pods as it wants."""
    status = _fields.mapping(obj.get("status"), _STATUS)
    return _counter(status, "currentHealthy") >= _counter(status, "desiredHealthy")
