"""One operation of a set of customizations on given objects, as `karmadactl interpret` runs it.

Karmada: pkg/util/interpreter/rule.go (the rules, their arguments and result names) and
pkg/karmadactl/interpret. Retain takes the desired and the observed object; InterpretHealth
and InterpretStatus the observed one (their functions read a member cluster's object, and a
desired object would give a plausible but meaningless answer, where karmadactl takes either);
every other operation exactly one of them. The result is keyed as the `output` of Karmada's
interpreter test data: `retained`, `replica` and `requires`, `components`, `revised`,
`status`, `aggregatedStatus`, `healthy`, `dependencies`; values are JSON (Go's omitempty for
typed ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gitfleet.errors import LuaError, SchemaError, UsageError
from gitfleet.interpreter import native
from gitfleet.interpreter._layer import Operation
from gitfleet.interpreter.lua import _customizations, _sandbox
from gitfleet.model import _codec, config, work
from gitfleet.model.origin import UNKNOWN, Origin
from gitfleet.model.template import RawObject

_OBSERVED = frozenset({Operation.INTERPRET_HEALTH, Operation.INTERPRET_STATUS})
"""Operations whose function takes the object as a member cluster runs it."""


def operation_named(name: str) -> Operation:
    """An operation by its Karmada name, in any case (rule.go GetByOperation)."""
    for operation in Operation:
        if operation.value.lower() == name.lower():
            return operation
    names = ", ".join(o.value for o in Operation)
    raise UsageError(f"operation {name!r} is not supported; use one of: {names}")


StatusItem = dict[str, Any]
"""An aggregated status item as Go's encoding/json writes Karmada's type (the form a script
receives it in): `clusterName`, then `status`, `applied`, `appliedMessage` and `health` where
set."""


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", dict: "object", list: "array"}


def status_item(value: Any, origin: Origin) -> StatusItem:
    """One aggregated status item as Go's encoding/json reads it into Karmada's type: unknown
    fields ignored, a missing `clusterName` empty (the test data of Karmada's third-party
    customizations has such items, and expects an answer), and `health` any string, as its Go
    type (`ResourceHealth`, a string) takes one; only the API server's schema of a binding
    holds it to Healthy, Unhealthy or Unknown, and karmadactl reads items without it. An empty
    `health` is Go's zero value, which its JSON leaves out when handing the item to a script."""
    if not isinstance(value, dict):
        raise SchemaError(origin, "a status item must be an object")
    health = value.get("health")
    if health is not None and not isinstance(health, str):
        kind = _JSON_TYPES.get(type(health), type(health).__name__)
        raise SchemaError(origin.at("health"), f"health: expected string, got {kind}")
    rest = {k: v for k, v in value.items() if k != "health"}
    item: work.AggregatedStatusItem = _codec.decode(
        work.AggregatedStatusItem, rest, origin, lenient=True, zeros=True
    )
    doc: StatusItem = _codec.encode(item)
    if health:
        doc["health"] = health
    return doc


def interpret(
    customizations: Sequence[config.ResourceInterpreterCustomization],
    operation: Operation,
    *,
    desired: RawObject | None = None,
    observed: RawObject | None = None,
    status_items: Sequence[StatusItem] | None = None,
    replicas: int = 0,
    sandbox: _sandbox.Sandbox | None = None,
    now: float = 0.0,
) -> dict[str, Any]:
    """Run `operation`; `UsageError` for missing or conflicting objects, `LuaError` when no
    customization handles the object's kind or its script fails."""
    layer = _customizations.LuaLayer(customizations, sandbox=sandbox, now=now)
    if operation is Operation.RETAIN:
        if desired is None:
            raise UsageError("Retain needs the desired object (--desired-file)")
        if observed is None:
            raise UsageError("Retain needs the observed object (--observed-file)")
        obj = desired
    elif operation in _OBSERVED and (observed is None or desired is not None):
        raise UsageError(
            f"{operation} needs the observed object, as a member cluster runs it "
            "(--observed-file), and no desired object"
        )
    else:
        if desired is not None and observed is not None:
            raise UsageError(f"{operation} takes the desired or the observed object, not both")
        found = desired if desired is not None else observed
        if found is None:
            raise UsageError(f"{operation} needs the desired or the observed object")
        obj = found
    api_version, kind = native.gvk(obj)
    if not layer.hook_enabled(api_version, kind, operation):
        raise _not_enabled(customizations, operation, api_version, kind)
    return _run(layer, operation, obj, observed, status_items, replicas)


def _not_enabled(
    customizations: Sequence[config.ResourceInterpreterCustomization],
    operation: Operation,
    api_version: str,
    kind: str,
) -> LuaError:
    """Karmada's "rule is not enabled", located at the customization that would have had it."""
    function = _customizations.FUNCTIONS[operation]
    for c in sorted(customizations, key=lambda c: c.metadata.name):
        if (c.spec.target.api_version, c.spec.target.kind) == (api_version, kind):
            return LuaError(
                c.origin.at("spec", "customizations"),
                f"{operation}: customization {c.metadata.name} has no script defining {function}",
            )
    origin = customizations[0].origin.at("spec", "target") if customizations else UNKNOWN
    return LuaError(origin, f"{operation}: no customization targets {api_version} {kind}")


def _run(
    layer: _customizations.LuaLayer,
    operation: Operation,
    obj: RawObject,
    observed: RawObject | None,
    status_items: Sequence[StatusItem] | None,
    replicas: int,
) -> dict[str, Any]:
    if operation is Operation.RETAIN:
        assert observed is not None
        return {"retained": layer.retain(obj, observed)[1]}
    if operation is Operation.INTERPRET_REPLICA:
        count, requires = layer.get_replicas(obj)[1]
        return {"replica": count, "requires": None if requires is None else _codec.encode(requires)}
    if operation is Operation.INTERPRET_COMPONENT:
        return {"components": [_codec.encode(c) for c in layer.get_components(obj)[1]]}
    if operation is Operation.REVISE_REPLICA:
        return {"revised": layer.revise_replica(obj, replicas)[1]}
    if operation is Operation.INTERPRET_STATUS:
        return {"status": layer.reflect_status(obj)[1]}
    if operation is Operation.AGGREGATE_STATUS:
        return {"aggregatedStatus": layer.aggregate_status_items(obj, status_items)[1]}
    if operation is Operation.INTERPRET_HEALTH:
        return {"healthy": layer.interpret_health(obj)[1]}
    return {"dependencies": [_codec.encode(d) for d in layer.get_dependencies(obj)[1]]}
