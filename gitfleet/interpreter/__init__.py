"""The resource interpreter: what a kind's replicas, status, health and dependencies are.

`Interpreter` chains three layers and asks them in order: the user's
ResourceInterpreterCustomizations (Lua), then third-party customizations (Karmada's built-in
Lua rules, loaded from a folder), then `native` (Kubernetes' own kinds). For each operation the
first layer that handles the object's kind wins; a Lua layer is asked only for the kinds and
operations its customizations script, and is built (loading Lua) on first use. Karmada:
pkg/resourceinterpreter/interpreter.go (Karmada's webhook layer has no counterpart here).

When no layer handles an operation the chain answers as Karmada's callers do once
`HookEnabled` says no: no replicas and no requirements (detector.go BuildResourceBinding),
no components, the object unchanged for revise (binding/common.go ensureWork), retain
(objectwatcher.go) and aggregate (status/common.go), healthy (work_status_controller.go
interpretHealth), and no dependencies (dependencies_distributor.go). Status reflection is
always handled: by default the whole `.status`.

Dependencies from every layer are checked as Karmada checks them (apiVersion, kind, and a
name or a valid label selector); a bad one raises `errors.InterpretError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gitfleet import errors
from gitfleet.interpreter import _dependencies, _fields, _layer, native
from gitfleet.model import config, work
from gitfleet.model.template import RawObject

Operation = _layer.Operation
T = TypeVar("T")


class _LuaTier:
    """One set of customizations: the hooks its scripts define, and its Lua layer, built on
    first use so a chain that never runs Lua never loads it."""

    def __init__(
        self, customizations: Sequence[config.ResourceInterpreterCustomization], now: float
    ) -> None:
        self._customizations = tuple(customizations)
        self._now = now
        self._hooks = frozenset(
            (c.spec.target.api_version, c.spec.target.kind, operation)
            for c in self._customizations
            for operation, field in _layer.RULE_FIELDS.items()
            if _script(c.spec.customizations, field)
        )
        self._layer: _layer.Layer | None = None

    def handles(self, api_version: str, kind: str, operation: Operation) -> bool:
        return (api_version, kind, operation) in self._hooks

    @property
    def layer(self) -> _layer.Layer:
        if self._layer is None:
            from gitfleet.interpreter import lua

            self._layer = lua.LuaLayer(self._customizations, now=self._now)
        return self._layer


def _script(rules: config.CustomizationRules, field: str) -> str:
    script: config.LuaScript | None = getattr(rules, field)
    return "" if script is None else script.lua_script


class Interpreter:
    """The interpreter chain: user Lua, third-party Lua, native; first handler wins.

    `now` (seconds since the epoch) is the time Lua scripts read from `os.time()`: stages have
    no clock, so the caller passes the render's time in."""

    def __init__(
        self,
        customizations: Sequence[config.ResourceInterpreterCustomization] = (),
        thirdparty: Sequence[config.ResourceInterpreterCustomization] = (),
        *,
        now: float = 0.0,
    ) -> None:
        self._tiers = tuple(_LuaTier(c, now) for c in (customizations, thirdparty) if c)
        self._native = native.NativeLayer()

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        """Whether any layer handles this kind and operation (Karmada `HookEnabled`)."""
        return self._native.hook_enabled(api_version, kind, operation) or self.scripted(
            api_version, kind, operation
        )

    def scripted(self, api_version: str, kind: str, operation: Operation) -> bool:
        """Whether a Lua customization, the user's or a third-party one, answers this kind and
        operation rather than the native rules (Karmada's configurable interpreters gather a
        script's answer in a set, so even an empty one is a list; the native rules give Go's
        nil slice when they find nothing)."""
        return any(tier.handles(api_version, kind, operation) for tier in self._tiers)

    def _ask(
        self, obj: RawObject, operation: Operation, call: Callable[[_layer.Layer], tuple[bool, T]]
    ) -> tuple[bool, T]:
        """The first layer's answer that handles `obj`'s kind for `operation`."""
        if self._tiers:
            api_version, kind = native.gvk(obj)
            for tier in self._tiers:
                if tier.handles(api_version, kind, operation):
                    handled, value = call(tier.layer)
                    if handled:
                        return True, value
        return call(self._native)

    def get_replicas(self, obj: RawObject) -> tuple[int, work.ReplicaRequirements | None]:
        """Desired replicas and what each needs; (0, None) for kinds nobody interprets."""
        handled, value = self._ask(
            obj, Operation.INTERPRET_REPLICA, lambda layer: layer.get_replicas(obj)
        )
        return value if handled else (0, None)

    def get_components(self, obj: RawObject) -> list[work.Component]:
        """The pod templates of a multi-template workload; empty when nobody interprets them."""
        handled, value = self._ask(
            obj, Operation.INTERPRET_COMPONENT, lambda layer: layer.get_components(obj)
        )
        return value if handled else []

    def revise_replica(self, obj: RawObject, replicas: int) -> RawObject:
        """A new object with one cluster's share of the replicas; `obj` is unchanged."""
        handled, value = self._ask(
            obj, Operation.REVISE_REPLICA, lambda layer: layer.revise_replica(obj, replicas)
        )
        return value if handled else _fields.copy_tree(obj)

    def retain(self, desired: RawObject, observed: RawObject) -> RawObject:
        """The desired object with the fields the member cluster owns kept from `observed`."""
        handled, value = self._ask(
            desired, Operation.RETAIN, lambda layer: layer.retain(desired, observed)
        )
        return value if handled else _fields.copy_tree(desired)

    def reflect_status(self, observed: RawObject) -> Any:
        """The part of a member object's status reported back (None: nothing to report)."""
        return self._ask(
            observed, Operation.INTERPRET_STATUS, lambda layer: layer.reflect_status(observed)
        )[1]

    def aggregate_status(
        self, obj: RawObject, items: Sequence[work.AggregatedStatusItem]
    ) -> RawObject:
        """The template with its status computed from every member's reported status."""
        handled, value = self._ask(
            obj, Operation.AGGREGATE_STATUS, lambda layer: layer.aggregate_status(obj, items)
        )
        return value if handled else _fields.copy_tree(obj)

    def interpret_health(self, observed: RawObject) -> bool:
        """Whether a member object is healthy; kinds nobody interprets count as healthy."""
        handled, value = self._ask(
            observed, Operation.INTERPRET_HEALTH, lambda layer: layer.interpret_health(observed)
        )
        return value if handled else True

    def get_dependencies(self, obj: RawObject) -> list[config.DependentObjectReference]:
        """Objects `obj` needs in the same cluster; empty when nobody interprets its kind."""
        handled, value = self._ask(
            obj, Operation.INTERPRET_DEPENDENCY, lambda layer: layer.get_dependencies(obj)
        )
        if not handled:
            return []
        problems = _dependencies.problems(value)
        if problems:
            raise errors.InterpretError(f"{native.describe(obj)}: " + "; ".join(problems))
        return value
