"""ResourceInterpreterCustomizations as an interpreter layer: which script answers what, and
running it with Karmada's arguments.

Karmada: pkg/resourceinterpreter/customized/declarative/configurable.go and configmanager/.
A customization applies to the exact apiVersion and kind of its target. Several for one kind
are taken in name order: for each operation the first non-empty script wins, except dependency
scripts, which all run and whose results are merged (sorted by apiVersion, kind, namespace,
name), each checked as Karmada checks them before merging. Merging drops repeated references by
name only: Karmada's set holds a label selector by pointer, so references with one are all
kept, equal or not.

A script that fails, or returns what its operation cannot use, raises `errors.LuaError` located
at the script's `luaScript` field, naming the operation, the object and the Lua line.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from gitfleet.errors import LuaError
from gitfleet.interpreter import _dependencies, _layer, native
from gitfleet.interpreter._layer import Operation, Replicas
from gitfleet.interpreter.lua import _results, _sandbox
from gitfleet.model import _codec, config, template, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import RawObject

T = TypeVar("T")

FUNCTIONS: dict[Operation, str] = {
    Operation.RETAIN: "Retain",
    Operation.INTERPRET_REPLICA: "GetReplicas",
    Operation.INTERPRET_COMPONENT: "GetComponents",
    Operation.REVISE_REPLICA: "ReviseReplica",
    Operation.INTERPRET_STATUS: "ReflectStatus",
    Operation.AGGREGATE_STATUS: "AggregateStatus",
    Operation.INTERPRET_HEALTH: "InterpretHealth",
    Operation.INTERPRET_DEPENDENCY: "GetDependencies",
}
"""The global function each operation's script defines (luavm/lua.go)."""

_RESULTS = {Operation.INTERPRET_REPLICA: 2}
"""How many of a function's results its operation reads, when not one (luavm/lua.go `nRets`):
the rest are ignored, as Karmada ignores them."""

_JSON_NAMES = {f.attr: f.json for f in _codec.fields_of(config.CustomizationRules)}


@dataclasses.dataclass(frozen=True, slots=True)
class Rule:
    """One operation's script in one customization."""

    customization: config.ResourceInterpreterCustomization
    operation: Operation

    @property
    def field(self) -> str:
        """The rule's field name in the document (`healthInterpretation`)."""
        return _JSON_NAMES[_layer.RULE_FIELDS[self.operation]]

    @property
    def script(self) -> str:
        found: config.LuaScript | None = getattr(
            self.customization.spec.customizations, _layer.RULE_FIELDS[self.operation]
        )
        return "" if found is None else found.lua_script

    @property
    def function(self) -> str:
        return FUNCTIONS[self.operation]

    @property
    def origin(self) -> Origin:
        return self.customization.origin.at("spec", "customizations", self.field, "luaScript")


def rules(customization: config.ResourceInterpreterCustomization) -> Iterator[Rule]:
    """The rules a customization defines (non-empty scripts), in operation order."""
    for operation in Operation:
        rule = Rule(customization, operation)
        if rule.script:
            yield rule


Target = tuple[str, str]


def _index(
    customizations: Sequence[config.ResourceInterpreterCustomization],
) -> dict[Target, dict[Operation, list[Rule]]]:
    index: dict[Target, dict[Operation, list[Rule]]] = {}
    for customization in sorted(customizations, key=lambda c: c.metadata.name):
        target = (customization.spec.target.api_version, customization.spec.target.kind)
        for rule in rules(customization):
            found = index.setdefault(target, {}).setdefault(rule.operation, [])
            if not found or rule.operation is Operation.INTERPRET_DEPENDENCY:
                found.append(rule)
    return index


class LuaLayer:
    """Lua customizations as a chain layer (satisfies `_layer.Layer`).

    `now` (seconds since the epoch) is what `os.time()` returns to scripts."""

    def __init__(
        self,
        customizations: Sequence[config.ResourceInterpreterCustomization],
        *,
        sandbox: _sandbox.Sandbox | None = None,
        now: float = 0.0,
    ) -> None:
        self._index = _index(customizations)
        self._sandbox = sandbox
        self._now = now

    @property
    def sandbox(self) -> _sandbox.Sandbox:
        if self._sandbox is None:
            self._sandbox = _sandbox.shared()
        return self._sandbox

    def hook_enabled(self, api_version: str, kind: str, operation: Operation) -> bool:
        return operation in self._index.get((api_version, kind), {})

    def _rules(self, obj: RawObject, operation: Operation) -> list[Rule]:
        return self._index.get(native.gvk(obj), {}).get(operation, [])

    def _run(
        self,
        rule: Rule,
        obj: RawObject,
        args: Sequence[Any],
        convert: Callable[[list[_sandbox.Result]], T],
    ) -> T:
        try:
            results = self.sandbox.call(
                rule.script,
                rule.function,
                args,
                now=self._now,
                results=_RESULTS.get(rule.operation, 1),
            )
            return convert(results)
        except _sandbox.ScriptError as e:
            raise _error(rule, obj, e.message, e.line) from None
        except _results.ResultError as e:
            raise _error(rule, obj, str(e), None) from None

    def _single(
        self,
        obj: RawObject,
        operation: Operation,
        args: Sequence[Any],
        convert: Callable[[list[_sandbox.Result]], T],
        default: T,
    ) -> tuple[bool, T]:
        found = self._rules(obj, operation)
        if not found:
            return False, default
        return True, self._run(found[0], obj, args, convert)

    def get_replicas(self, obj: RawObject) -> tuple[bool, Replicas]:
        return self._single(obj, Operation.INTERPRET_REPLICA, [obj], _results.replicas, (0, None))

    def get_components(self, obj: RawObject) -> tuple[bool, list[work.Component]]:
        return self._single(obj, Operation.INTERPRET_COMPONENT, [obj], _results.components, [])

    def revise_replica(self, obj: RawObject, replicas: int) -> tuple[bool, RawObject]:
        def convert(results: list[_sandbox.Result]) -> RawObject:
            return _same_object(obj, _results.unstructured(results, [obj]))

        return self._single(obj, Operation.REVISE_REPLICA, [obj, replicas], convert, obj)

    def retain(self, desired: RawObject, observed: RawObject) -> tuple[bool, RawObject]:
        def convert(results: list[_sandbox.Result]) -> RawObject:
            return _same_object(desired, _results.unstructured(results, [desired, observed]))

        return self._single(desired, Operation.RETAIN, [desired, observed], convert, desired)

    def reflect_status(self, observed: RawObject) -> tuple[bool, Any]:
        return self._single(observed, Operation.INTERPRET_STATUS, [observed], _results.status, None)

    def aggregate_status(
        self, obj: RawObject, items: Sequence[work.AggregatedStatusItem]
    ) -> tuple[bool, RawObject]:
        """Items as a binding holds them: none at all reach the script as nil (a binding's
        empty `aggregatedStatus` reads back from the API server as a nil slice)."""
        return self.aggregate_status_items(obj, [_codec.encode(i) for i in items] or None)

    def aggregate_status_items(
        self, obj: RawObject, items: Sequence[Mapping[str, Any]] | None
    ) -> tuple[bool, RawObject]:
        """`aggregate_status` with the items as Go's JSON writes them (`lua.status_item`, whose
        `health` may be any string, as Karmada's Go type's may), telling nil (None) from an
        empty list, as Karmada's tests do."""
        arg: Any = _sandbox.ABSENT if items is None else list(items)

        def convert(results: list[_sandbox.Result]) -> RawObject:
            return _results.unstructured(results, [])

        return self._single(obj, Operation.AGGREGATE_STATUS, [obj, arg], convert, obj)

    def interpret_health(self, observed: RawObject) -> tuple[bool, bool]:
        return self._single(
            observed, Operation.INTERPRET_HEALTH, [observed], _results.health, False
        )

    def get_dependencies(
        self, obj: RawObject
    ) -> tuple[bool, list[config.DependentObjectReference]]:
        found = self._rules(obj, Operation.INTERPRET_DEPENDENCY)
        if not found:
            return False, []
        merged: dict[str, config.DependentObjectReference] = {}
        selected: list[config.DependentObjectReference] = []
        for rule in found:
            for dep in self._run(rule, obj, [obj], _verified_dependencies):
                if dep.label_selector is not None:
                    selected.append(dep)
                else:
                    merged.setdefault(json.dumps(_codec.encode(dep), sort_keys=True), dep)
        return True, sorted([*merged.values(), *selected], key=_dependency_order)


def _same_object(given: RawObject, returned: RawObject) -> RawObject:
    """ReviseReplica and Retain change an object, never which object it is."""
    change = template.identity_change(given, returned)
    if change is not None:
        raise _results.ResultError(f"the returned object is another object: {change}")
    return returned


def _dependency_order(dep: config.DependentObjectReference) -> tuple[str, str, str, str]:
    return (dep.api_version, dep.kind, dep.namespace, dep.name)


def _error(rule: Rule, obj: RawObject, message: str, line: int | None) -> LuaError:
    where = f"lua line {line}: " if line is not None else ""
    return LuaError(rule.origin, f"{rule.operation}: {native.describe(obj)}: {where}{message}")


def _verified_dependencies(results: list[_sandbox.Result]) -> list[config.DependentObjectReference]:
    """One script's dependencies, checked as Karmada's VerifyDependencies does."""
    found = _results.dependencies(results)
    problems = _dependencies.problems(found)
    if problems:
        raise _results.ResultError("; ".join(problems))
    return found
