"""Statuses as Karmada's Go types hold them, to tell whether two are equal as Karmada does.

Karmada leaves a template alone when the status it computed equals the template's own as Go
values (`reflect.DeepEqual`; `equality.Semantic.DeepEqual` for a DaemonSet). It reads the
template through its Go type first, so unknown fields do not count, an absent or null field is
its zero value, `2.0` is the integer 2 and a time is an instant to the nanosecond, however
spelled. But a list or map that is there, even empty, is not nil (except in a semantic
comparison), nor is a pointer to a zero value (a HorizontalPodAutoscaler's
`observedGeneration: 0`).

Each status type below lists the fields of its Go struct. A field that Karmada's new status
never sets is read as written (`RAW`): only its being there matters, any value differing from
nil. Karmada: k8s.io/api (the types), k8s.io/apimachinery/pkg/runtime/converter.go (reading the
template), pkg/resourceinterpreter/default/native/aggregatestatus.go (the comparisons).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from gitfleet.interpreter import _fields, _times


class Basic(enum.Enum):
    """A Go type read from one JSON value."""

    INT = enum.auto()
    STRING = enum.auto()
    BOOL = enum.auto()
    TIME = enum.auto()
    """A metav1.Time: the instant in nanoseconds, None for the zero time."""
    RAW = enum.auto()


@dataclasses.dataclass(frozen=True, slots=True)
class Pointer:
    """Nil when null or absent, unlike the zero value it may point to."""

    to: GoType


@dataclasses.dataclass(frozen=True, slots=True)
class Slice:
    """Nil when null or absent, unlike an empty list (but in a semantic comparison)."""

    of: GoType


@dataclasses.dataclass(frozen=True, slots=True)
class Map:
    """Nil when null or absent, unlike an empty map (but in a semantic comparison)."""

    of: GoType


@dataclasses.dataclass(frozen=True, slots=True)
class Struct:
    """Its fields by JSON name; other keys are not read."""

    fields: Mapping[str, GoType]


GoType = Basic | Pointer | Slice | Map | Struct

INT, STRING, BOOL, TIME, RAW = Basic.INT, Basic.STRING, Basic.BOOL, Basic.TIME, Basic.RAW


def equal(go_type: GoType, old: Any, new: Any, path: _fields.Path, *, semantic: bool) -> bool:
    """Whether `old` (the template's, at `path`) and `new` are equal values of `go_type`;
    `semantic`: a nil list or map equals an empty one. A field of `old` that `go_type` cannot
    hold is an error, as Karmada's conversion of the template fails on it."""
    return bool(value(go_type, old, path, semantic) == value(go_type, new, path, semantic))


def value(go_type: GoType, raw: Any, path: _fields.Path, semantic: bool) -> Any:
    """`raw` as a comparable Python value of `go_type` (nil is None)."""
    if isinstance(go_type, Struct):
        found = _fields.mapping(raw, path)
        return {
            name: value(field, found.get(name), (*path, name), semantic)
            for name, field in go_type.fields.items()
        }
    if isinstance(go_type, Pointer):
        return None if raw is None else value(go_type.to, raw, path, semantic)
    if isinstance(go_type, Slice):
        if raw is None:
            return [] if semantic else None
        items = _fields.array(raw, path)
        return [value(go_type.of, item, (*path, i), semantic) for i, item in enumerate(items)]
    if isinstance(go_type, Map):
        if raw is None:
            return {} if semantic else None
        entries = _fields.mapping(raw, path)
        return {
            key: value(go_type.of, item, (*path, key), semantic) for key, item in entries.items()
        }
    return _basic(go_type, raw, path)


def _basic(go_type: Basic, raw: Any, path: _fields.Path) -> Any:
    if go_type is INT:
        return _fields.integer(raw, path)
    if go_type is STRING:
        return _fields.string(raw, path)
    if go_type is BOOL:
        return _fields.boolean(raw, path)
    if go_type is TIME:
        return _times.nanoseconds(raw, path)
    return raw


def _raw_fields(*names: str, of: type[Pointer] | type[Slice] | type[Map]) -> dict[str, GoType]:
    return {name: of(RAW) for name in names}


_OBJECT_REFERENCE = Struct(
    dict.fromkeys(
        ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"), STRING
    )
)
CRON_JOB = Struct(
    {
        "active": Slice(_OBJECT_REFERENCE),
        "lastScheduleTime": Pointer(TIME),
        "lastSuccessfulTime": Pointer(TIME),
    }
)
JOB = Struct(
    {
        "conditions": Slice(RAW),
        "startTime": Pointer(TIME),
        "completionTime": Pointer(TIME),
        **dict.fromkeys(("active", "succeeded", "failed"), INT),
        "completedIndexes": STRING,
        "failedIndexes": Pointer(STRING),
        "uncountedTerminatedPods": Pointer(RAW),
        **dict.fromkeys(("terminating", "ready"), Pointer(INT)),
    }
)

_PORT_STATUS = Struct({"port": INT, "protocol": STRING, "error": Pointer(STRING)})
_ADDRESS = {"ip": STRING, "hostname": STRING}
SERVICE = Struct(
    {
        "loadBalancer": Struct(
            {
                "ingress": Slice(
                    Struct({**_ADDRESS, "ipMode": Pointer(STRING), "ports": Slice(_PORT_STATUS)})
                )
            }
        ),
        "conditions": Slice(RAW),
    }
)
INGRESS = Struct(
    {"loadBalancer": Struct({"ingress": Slice(Struct({**_ADDRESS, "ports": Slice(_PORT_STATUS)}))})}
)

_CONTAINER_STATE = Struct(
    {
        "waiting": Pointer(Struct({"reason": STRING, "message": STRING})),
        "running": Pointer(Struct({"startedAt": TIME})),
        "terminated": Pointer(
            Struct(
                {
                    "exitCode": INT,
                    "signal": INT,
                    "reason": STRING,
                    "message": STRING,
                    "startedAt": TIME,
                    "finishedAt": TIME,
                    "containerID": STRING,
                }
            )
        ),
    }
)
_CONTAINER_STATUS = Struct(
    {
        **dict.fromkeys(("name", "image", "imageID", "containerID"), STRING),
        "state": _CONTAINER_STATE,
        "lastState": _CONTAINER_STATE,
        "ready": BOOL,
        "restartCount": INT,
        **_raw_fields("started", "resources", "user", "stopSignal", of=Pointer),
        **_raw_fields("volumeMounts", "allocatedResourcesStatus", of=Slice),
        **_raw_fields("allocatedResources", of=Map),
    }
)
POD = Struct(
    {
        "observedGeneration": INT,
        **dict.fromkeys(
            (
                "phase",
                "message",
                "reason",
                "nominatedNodeName",
                "hostIP",
                "podIP",
                "qosClass",
                "resize",
            ),
            STRING,
        ),
        "startTime": Pointer(TIME),
        "initContainerStatuses": Slice(_CONTAINER_STATUS),
        "containerStatuses": Slice(_CONTAINER_STATUS),
        **_raw_fields(
            "conditions",
            "hostIPs",
            "podIPs",
            "ephemeralContainerStatuses",
            "resourceClaimStatuses",
            "nodeAllocatableResourceClaimStatuses",
            of=Slice,
        ),
        **_raw_fields("extendedResourceClaimStatus", "resources", of=Pointer),
        **_raw_fields("allocatedResources", of=Map),
    }
)

PERSISTENT_VOLUME = Struct(
    {
        **dict.fromkeys(("phase", "message", "reason"), STRING),
        "lastPhaseTransitionTime": Pointer(TIME),
    }
)
PERSISTENT_VOLUME_CLAIM = Struct(
    {
        "phase": STRING,
        **_raw_fields("accessModes", "conditions", of=Slice),
        **_raw_fields("capacity", "allocatedResources", "allocatedResourceStatuses", of=Map),
        **_raw_fields("currentVolumeAttributesClassName", "modifyVolumeStatus", of=Pointer),
    }
)
POD_DISRUPTION_BUDGET = Struct(
    {
        **dict.fromkeys(
            (
                "observedGeneration",
                "disruptionsAllowed",
                "currentHealthy",
                "desiredHealthy",
                "expectedPods",
            ),
            INT,
        ),
        "disruptedPods": Map(TIME),
        "conditions": Slice(RAW),
    }
)
HORIZONTAL_POD_AUTOSCALER = Struct(
    {
        "observedGeneration": Pointer(INT),
        "lastScaleTime": Pointer(TIME),
        "currentReplicas": INT,
        "desiredReplicas": INT,
        **_raw_fields("currentMetrics", "conditions", of=Slice),
    }
)


def daemon_set(counters: tuple[str, ...]) -> Struct:
    """A DaemonSet's status: its counters, its observed generation, a collision count and
    conditions (which Karmada's new status leaves nil)."""
    return Struct(
        {
            **dict.fromkeys((*counters, "observedGeneration"), INT),
            "collisionCount": Pointer(INT),
            "conditions": Slice(RAW),
        }
    )
