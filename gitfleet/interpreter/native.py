"""The built-in interpreter for Kubernetes' own kinds: the last layer of the chain.

One table per operation maps an (apiVersion, kind) to its rule, the apiVersion read as Go
reads it (`/v1` is `v1`); a kind missing from a table is not handled (`(False, ...)`), except
status reflection, which handles every kind by reporting the whole `.status`. Component
interpretation has no native rule. The rules live in one private module per operation.
Karmada: pkg/resourceinterpreter/default/native/default.go and the files it registers.

A field of the wrong type raises `errors.InterpretError` naming the object and the field, as
Karmada's conversion to the Go type fails.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from gitfleet import errors
from gitfleet.interpreter import (
    _aggregate,
    _dependencies,
    _fields,
    _health,
    _jobstatus,
    _reflect,
    _replicas,
    _retain,
)
from gitfleet.interpreter._layer import Operation, Replicas
from gitfleet.model import config, work
from gitfleet.model.template import RawObject

GVK = tuple[str, str]
T = TypeVar("T")

DEPLOYMENT: GVK = ("apps/v1", "Deployment")
REPLICA_SET: GVK = ("apps/v1", "ReplicaSet")
STATEFUL_SET: GVK = ("apps/v1", "StatefulSet")
DAEMON_SET: GVK = ("apps/v1", "DaemonSet")
JOB: GVK = ("batch/v1", "Job")
CRON_JOB: GVK = ("batch/v1", "CronJob")
POD: GVK = ("v1", "Pod")
SERVICE: GVK = ("v1", "Service")
SERVICE_ACCOUNT: GVK = ("v1", "ServiceAccount")
SECRET: GVK = ("v1", "Secret")
PERSISTENT_VOLUME: GVK = ("v1", "PersistentVolume")
PERSISTENT_VOLUME_CLAIM: GVK = ("v1", "PersistentVolumeClaim")
INGRESS: GVK = ("networking.k8s.io/v1", "Ingress")
POD_DISRUPTION_BUDGET: GVK = ("policy/v1", "PodDisruptionBudget")
HORIZONTAL_POD_AUTOSCALER: GVK = ("autoscaling/v2", "HorizontalPodAutoscaler")
SERVICE_IMPORT: GVK = ("multicluster.x-k8s.io/v1alpha1", "ServiceImport")

_REPLICAS: Mapping[GVK, Callable[[RawObject], Replicas]] = {
    DEPLOYMENT: _replicas.workload_replicas,
    REPLICA_SET: _replicas.workload_replicas,
    STATEFUL_SET: _replicas.workload_replicas,
    JOB: _replicas.job_replicas,
    POD: _replicas.pod_replicas,
}
_REVISED_FIELD: Mapping[GVK, str] = {
    DEPLOYMENT: "replicas",
    REPLICA_SET: "replicas",
    STATEFUL_SET: "replicas",
    JOB: "parallelism",
}
_RETAIN: Mapping[GVK, Callable[[Any, Any], None]] = {
    DEPLOYMENT: _retain.workload_replicas,
    POD: _retain.pod_fields,
    SERVICE: _retain.service_fields,
    SERVICE_ACCOUNT: _retain.service_account_fields,
    PERSISTENT_VOLUME_CLAIM: _retain.persistent_volume_claim_fields,
    PERSISTENT_VOLUME: _retain.persistent_volume_fields,
    JOB: _retain.job_selector_fields,
    SECRET: _retain.secret_service_account_token,
}
_REFLECT: Mapping[GVK, Callable[[RawObject], _reflect.Status]] = {
    DEPLOYMENT: _reflect.deployment,
    REPLICA_SET: _reflect.replica_set,
    SERVICE: _reflect.service,
    INGRESS: _reflect.whole,
    JOB: _reflect.job,
    DAEMON_SET: _reflect.daemon_set,
    STATEFUL_SET: _reflect.stateful_set,
    POD_DISRUPTION_BUDGET: _reflect.pod_disruption_budget,
    HORIZONTAL_POD_AUTOSCALER: _reflect.horizontal_pod_autoscaler,
}
_AGGREGATE: Mapping[GVK, Callable[[RawObject, _aggregate.Items], RawObject]] = {
    DEPLOYMENT: functools.partial(_aggregate.workload, kind=_aggregate.DEPLOYMENT),
    REPLICA_SET: functools.partial(_aggregate.workload, kind=_aggregate.REPLICA_SET),
    SERVICE: _aggregate.service,
    INGRESS: _aggregate.ingress,
    JOB: _jobstatus.aggregate,
    CRON_JOB: _aggregate.cron_job,
    DAEMON_SET: functools.partial(_aggregate.workload, kind=_aggregate.DAEMON_SET),
    STATEFUL_SET: functools.partial(_aggregate.workload, kind=_aggregate.STATEFUL_SET),
    POD: _aggregate.pod,
    PERSISTENT_VOLUME: _aggregate.persistent_volume,
    PERSISTENT_VOLUME_CLAIM: _aggregate.persistent_volume_claim,
    POD_DISRUPTION_BUDGET: _aggregate.pod_disruption_budget,
    HORIZONTAL_POD_AUTOSCALER: _aggregate.horizontal_pod_autoscaler,
}
_HEALTH: Mapping[GVK, Callable[[RawObject], bool]] = {
    DEPLOYMENT: _health.rolled_out,
    STATEFUL_SET: _health.rolled_out,
    REPLICA_SET: _health.replica_set,
    DAEMON_SET: _health.daemon_set,
    SERVICE: _health.service,
    INGRESS: _health.ingress,
    PERSISTENT_VOLUME_CLAIM: _health.persistent_volume_claim,
    POD: _health.pod,
    POD_DISRUPTION_BUDGET: _health.pod_disruption_budget,
}
_DEPENDENCIES: Mapping[GVK, Callable[[RawObject], _dependencies.Dependencies]] = {
    DEPLOYMENT: _dependencies.workload,
    REPLICA_SET: _dependencies.workload,
    JOB: _dependencies.workload,
    CRON_JOB: _dependencies.cron_job,
    POD: _dependencies.pod,
    DAEMON_SET: _dependencies.workload,
    STATEFUL_SET: _dependencies.stateful_set,
    INGRESS: _dependencies.ingress,
    SERVICE_IMPORT: _dependencies.service_import,
}
_TABLES: Mapping[Operation, Mapping[GVK, Any]] = {
    Operation.INTERPRET_REPLICA: _REPLICAS,
    Operation.REVISE_REPLICA: _REVISED_FIELD,
    Operation.RETAIN: _RETAIN,
    Operation.AGGREGATE_STATUS: _AGGREGATE,
    Operation.INTERPRET_HEALTH: _HEALTH,
    Operation.INTERPRET_DEPENDENCY: _DEPENDENCIES,
}


def gvk(obj: RawObject) -> GVK:
    """The object's apiVersion and kind; one that is not a string reads as empty, as
    unstructured's getters read it (an object given to `interpret` is not validated)."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    return (
        api_version if isinstance(api_version, str) else "",
        kind if isinstance(kind, str) else "",
    )


def _rule_key(api_version: str, kind: str) -> GVK:
    """The table key of an apiVersion and kind, the apiVersion read as Go's
    `schema.ParseGroupVersion` reads it: `/v1` is the core group's `v1`."""
    if api_version.count("/") == 1:
        group, version = api_version.split("/")
        if not group:
            return version, kind
    return api_version, kind


def _key(obj: RawObject) -> GVK:
    return _rule_key(*gvk(obj))


def _run(obj: RawObject, rule: Callable[..., T], *args: Any) -> T:
    """Run a rule; a field error becomes an `InterpretError` naming the object."""
    try:
        return rule(*args)
    except _fields.FieldError as e:
        raise errors.InterpretError(f"{describe(obj)}: {e}", e.path) from None


def _typed(*objects: RawObject) -> None:
    """Refuse an object whose metadata, spec or status is not an object (null is an empty
    one), for the rules Karmada runs on the object converted to its Go type, which fails on
    it whatever the rule reads."""
    for obj in objects:
        for key in ("metadata", "spec", "status"):
            _run(obj, _fields.mapping, obj.get(key), (key,))


def describe(obj: RawObject) -> str:
    """`Kind namespace/name` for messages; a `metadata` that is not an object (the error being
    reported may be about it) reads as empty."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict):
        metadata = {}
    name = (
        f"{metadata.get('namespace')}/{metadata.get('name')}"
        if metadata.get("namespace")
        else metadata.get("name")
    )
    return f"{obj.get('kind', 'object')} {name or '(unnamed)'}"


class NativeLayer:
    """Karmada's native interpreter as a chain layer (satisfies `_layer.Layer`)."""

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        if operation is Operation.INTERPRET_STATUS:
            return True
        table = _TABLES.get(operation)
        return table is not None and _rule_key(api_version, kind) in table

    def get_replicas(self, obj: RawObject) -> tuple[bool, Replicas]:
        rule = _REPLICAS.get(_key(obj))
        if rule is None:
            return False, (0, None)
        _typed(obj)
        return True, _run(obj, rule, obj)

    def get_components(self, obj: RawObject) -> tuple[bool, list[work.Component]]:
        return False, []

    def revise_replica(self, obj: RawObject, replicas: int) -> tuple[bool, RawObject]:
        field = _REVISED_FIELD.get(_key(obj))
        if field is None:
            return False, obj
        return True, _run(obj, _replicas.revise, obj, replicas, field)

    def retain(self, desired: RawObject, observed: RawObject) -> tuple[bool, RawObject]:
        rule = _RETAIN.get(_key(desired))
        if rule is None:
            return False, desired
        if rule is _retain.pod_fields:  # the one retain rule Karmada runs on Go types
            _typed(desired, observed)
        retained = _fields.copy_tree(desired)
        _run(desired, rule, retained, observed)
        return True, retained

    def reflect_status(self, observed: RawObject) -> tuple[bool, Any]:
        rule = _REFLECT.get(_key(observed), _reflect.whole)
        return True, _run(observed, rule, observed)

    def aggregate_status(
        self, obj: RawObject, items: Sequence[work.AggregatedStatusItem]
    ) -> tuple[bool, RawObject]:
        rule = _AGGREGATE.get(_key(obj))
        if rule is None:
            return False, obj
        _typed(obj)
        return True, _run(obj, rule, obj, items)

    def interpret_health(self, observed: RawObject) -> tuple[bool, bool]:
        rule = _HEALTH.get(_key(observed))
        if rule is None:
            return False, False
        _typed(observed)
        return True, _run(observed, rule, observed)

    def get_dependencies(
        self, obj: RawObject
    ) -> tuple[bool, list[config.DependentObjectReference]]:
        rule = _DEPENDENCIES.get(_key(obj))
        if rule is None:
            return False, []
        _typed(obj)
        return True, _run(obj, rule, obj)
