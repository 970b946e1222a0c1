"""The contract of one interpreter in the chain (Karmada: pkg/resourceinterpreter/interpreter.go).

Each layer answers an operation with `(handled, value)`; the chain asks user Lua
customizations first, then built-in Lua rules, then the native (Python) rules, and the first
layer that handles an operation wins. A layer that does not know a kind returns
`(False, <ignored>)`. Objects are raw documents; layers never mutate their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from gitfleet.model import config, work
from gitfleet.model.template import RawObject

Replicas = tuple[int, work.ReplicaRequirements | None]


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
