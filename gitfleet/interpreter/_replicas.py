"""How many replicas a workload asks for, and writing a cluster's share back into a copy.

Karmada: pkg/resourceinterpreter/default/native/replica.go and revisereplica.go,
pkg/util/helper/unstructured.go (ApplyReplica).
"""

from __future__ import annotations

from gitfleet.interpreter import _fields, _requirements
from gitfleet.interpreter._layer import Replicas
from gitfleet.model.template import RawObject

_SPEC = ("spec",)
_TEMPLATE = ("spec", "template")
_MAX_INT32 = 2**31 - 1


def _count(value: object, field: str) -> int:
    """A replica count field: absent reads as 0; the typed object Karmada reads holds an int32,
    which the API server never lets go negative, so no other number reaches the scheduler."""
    path = ("spec", field)
    count = _fields.integer(value, path)
    if not 0 <= count <= _MAX_INT32:
        raise _fields.FieldError(path, f"expected an int32 of 0 or more, got {count}")
    return count


def workload_replicas(obj: RawObject) -> Replicas:
    """Deployment, ReplicaSet, StatefulSet: `spec.replicas` (absent is 0) and the pod
    template's requirements."""
    spec = _fields.mapping(obj.get("spec"), _SPEC)
    replicas = _count(spec.get("replicas"), "replicas")
    return replicas, _requirements.from_pod_template(spec.get("template"), _TEMPLATE)


def job_replicas(obj: RawObject) -> Replicas:
    """Job: `parallelism` (absent is 0), but never more than `completions` when that is set,
    since no more pods than remaining completions run at once."""
    spec = _fields.mapping(obj.get("spec"), _SPEC)
    replicas = _count(spec.get("parallelism"), "parallelism")
    if spec.get("completions") is not None:
        replicas = min(replicas, _count(spec["completions"], "completions"))
    return replicas, _requirements.from_pod_template(spec.get("template"), _TEMPLATE)


def pod_replicas(obj: RawObject) -> Replicas:
    """Pod: always one replica."""
    return 1, _requirements.from_pod_spec(obj.get("spec"), _SPEC)


def revise(obj: RawObject, replicas: int, field: str) -> RawObject:
    """A copy with `spec.<field>` set to `replicas`, only if the field is already there
    (a template that leaves replicas to an autoscaler keeps leaving them)."""
    spec = _fields.mapping(obj.get("spec"), _SPEC)
    revised = _fields.copy_tree(obj)
    if field in spec:
        current = spec[field]
        if not isinstance(current, int) or isinstance(current, bool):
            raise _fields.FieldError(("spec", field), "expected an integer")
        revised["spec"][field] = replicas
    return revised
