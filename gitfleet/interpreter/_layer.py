"""The contract of one interpreter in the chain (Karmada: pkg/resourceinterpreter/interpreter.go).

Each layer answers an operation with `(handled, value)`; the chain asks user Lua
customizations first, then built-in Lua rules, then the native (Python) rules, and the first
layer that handles an operation wins. A layer that does not know a kind returns
`(False, <ignored>)`. Objects are raw documents; layers never mutate their arguments.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from gitfleet.model import config, work
from gitfleet.model.template import RawObject

Replicas = tuple[int, work.ReplicaRequirements | None]


class Operation(enum.StrEnum):
    """The interpreter operations, named as in Karmada's webhook and test data
    (pkg/apis/config/v1alpha1/resourceinterpreterwebhook_types.go)."""

    RETAIN = "Retain"
    INTERPRET_REPLICA = "InterpretReplica"
    INTERPRET_COMPONENT = "InterpretComponent"
    REVISE_REPLICA = "ReviseReplica"
    INTERPRET_STATUS = "InterpretStatus"
    AGGREGATE_STATUS = "AggregateStatus"
    INTERPRET_HEALTH = "InterpretHealth"
    INTERPRET_DEPENDENCY = "InterpretDependency"


RULE_FIELDS: Mapping[Operation, str] = {
    Operation.RETAIN: "retention",
    Operation.INTERPRET_REPLICA: "replica_resource",
    Operation.INTERPRET_COMPONENT: "component_resource",
    Operation.REVISE_REPLICA: "replica_revision",
    Operation.INTERPRET_STATUS: "status_reflection",
    Operation.AGGREGATE_STATUS: "status_aggregation",
    Operation.INTERPRET_HEALTH: "health_interpretation",
    Operation.INTERPRET_DEPENDENCY: "dependency_interpretation",
}
"""The `config.CustomizationRules` attribute holding each operation's Lua script."""


class Layer(Protocol):
    def get_replicas(self, obj: RawObject) -> tuple[bool, Replicas]: ...

    def get_components(self, obj: RawObject) -> tuple[bool, list[work.Component]]: ...

    def revise_replica(self, obj: RawObject, replicas: int) -> tuple[bool, RawObject]: ...

    def retain(self, desired: RawObject, observed: RawObject) -> tuple[bool, RawObject]: ...

    def reflect_status(self, observed: RawObject) -> tuple[bool, Any]: ...

    def aggregate_status(
        self, obj: RawObject, items: Sequence[work.AggregatedStatusItem]
    ) -> tuple[bool, RawObject]: ...

    def interpret_health(self, observed: RawObject) -> tuple[bool, bool]: ...

    def get_dependencies(
        self, obj: RawObject
    ) -> tuple[bool, list[config.DependentObjectReference]]: ...
