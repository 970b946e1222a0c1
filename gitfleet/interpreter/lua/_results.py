"""What each customization function must return, and its conversion to gitfleet's types.

Karmada: pkg/resourceinterpreter/customized/declarative/luavm/lua.go (one function per
operation) and lua_convert.go. A table result goes through JSON (sandbox.lua), the repair of
empty tables (`_convert.decode`) and Go's lenient decoding into the target type: unknown
fields are ignored, a missing field is its zero value (an expression of a node claim without
`key` has an empty one), a value of the wrong type is an error.
Quantities are stored as Go prints a parsed Quantity: in canonical form (`"1500m"`), or as
written when apimachinery keeps the text (`"2.048"`, `_quantity.printed`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterable, Sequence
from typing import Any

from gitfleet.errors import SchemaError
from gitfleet.interpreter import _quantity
from gitfleet.interpreter.lua import _convert
from gitfleet.interpreter.lua._sandbox import Result
from gitfleet.model import _codec, config, work
from gitfleet.model.origin import UNKNOWN
from gitfleet.model.template import RawObject

_INT32 = 2**31
_NIL = Result("nil", None)


class ResultError(Exception):
    """A script returned something its operation cannot use."""


def _number(text: str) -> int | float:
    """A number's JSON text as sandbox.lua writes it (integral ones without a point), read
    without a JSON parser: a result is read on every call."""
    return int(text) if text.lstrip("-").isdigit() else float(text)


def _nth(results: Sequence[Result], index: int) -> Result:
    return results[index] if index < len(results) else _NIL


def _table(result: Result, references: Iterable[Any] = (), *, struct: bool) -> Any:
    assert result.json is not None
    try:
        return _convert.decode(result.json, references, struct=struct)
    except _convert.ConversionError as e:
        raise ResultError(str(e)) from None


def _expect_table(result: Result) -> None:
    if result.lua_type != "table":
        raise ResultError(f"expect the returned value to be a table but got {result.lua_type}")


def _decode(cls: type, doc: Any, what: str) -> Any:
    if not isinstance(doc, dict):
        raise ResultError(f"{what}: expected an object, got {_kind(doc)}")
    try:
        return _codec.decode(cls, doc, UNKNOWN, lenient=True, zeros=True)
    except SchemaError as e:
        raise ResultError(f"{what}: {e.message}") from None


def _kind(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
        type(value), "number"
    )


def replicas(results: Sequence[Result]) -> tuple[int, work.ReplicaRequirements | None]:
    """GetReplicas: a number (truncated to int32, not negative) and a requirements table or
    nil. Karmada takes a negative count as it is, and the member clusters then refuse the
    workload's manifests; here it is the script's error, so the template's last good binding
    stays in place."""
    first, second = _nth(results, 0), _nth(results, 1)
    if first.lua_type != "number" or first.json is None:
        raise ResultError(f"the returned replica type is {first.lua_type}, not number")
    count = _replica_count(_number(first.json), "replica")
    if second.lua_type == "nil":
        return count, None
    if second.lua_type != "table":
        raise ResultError(f"expect the returned requires type is table but got {second.lua_type}")
    assert second.json is not None
    return count, _requirements(second.json)


@functools.lru_cache(maxsize=256)
def _requirements(text: str) -> work.ReplicaRequirements:
    """Requirements by their JSON text: workloads are asked about again and again, and the
    (frozen) result is only read."""
    doc = _table(Result("table", text), struct=True)
    requirements: work.ReplicaRequirements = _printed_requests(
        _decode(work.ReplicaRequirements, doc, "requires")
    )
    return requirements


def _replica_count(value: float, what: str) -> int:
    count = math.trunc(value)
    if not -_INT32 <= count < _INT32:
        raise ResultError(f"{what} {value} is out of the int32 range")
    if count < 0:
        raise ResultError(f"{what} {count} is negative")
    return count


def components(results: Sequence[Result]) -> list[work.Component]:
    """GetComponents: a list of {name, replicas, replicaRequirements}, or nil for none; no
    component's replicas may be negative (see `replicas`)."""
    first = _nth(results, 0)
    if first.lua_type == "nil":
        return []
    _expect_table(first)
    doc = _table(first, struct=False)
    if not isinstance(doc, list):
        raise ResultError("components: expected an array, got object")
    out = []
    for i, item in enumerate(doc):
        component = _decode(work.Component, item, f"components[{i}]")
        _replica_count(component.replicas, f"components[{i}].replicas")
        out.append(_printed_requests(component, nested=True))
    return out


def unstructured(results: Sequence[Result], references: Sequence[Any]) -> RawObject:
    """Retain, ReviseReplica, AggregateStatus: an object that names its kind."""
    first = _nth(results, 0)
    _expect_table(first)
    doc = _table(first, references, struct=True)
    if not isinstance(doc, dict):
        raise ResultError("expected an object, got array")
    if not isinstance(doc.get("kind"), str) or not doc["kind"]:
        raise ResultError(f"Object 'Kind' is missing in '{first.json}'")
    result: RawObject = doc  # type: ignore[assignment]
    return result


def status(results: Sequence[Result]) -> Any:
    """ReflectStatus: a table (the reported status)."""
    first = _nth(results, 0)
    _expect_table(first)
    return _table(first, struct=True)


def health(results: Sequence[Result]) -> bool:
    """InterpretHealth: a boolean, nothing else."""
    first = _nth(results, 0)
    if first.lua_type != "boolean" or first.json is None:
        raise ResultError(f"the returned health type is {first.lua_type}, not boolean")
    return first.json == "true"


def dependencies(results: Sequence[Result]) -> list[config.DependentObjectReference]:
    """GetDependencies: a list of {apiVersion, kind, namespace, name, labelSelector}."""
    first = _nth(results, 0)
    _expect_table(first)
    doc = _table(first, struct=False)
    if not isinstance(doc, list):
        raise ResultError("dependencies: expected an array, got object")
    out = []
    for i, item in enumerate(doc):
        out.append(_decode(config.DependentObjectReference, item, f"dependencies[{i}]"))
    return out


def _printed_requests(value: Any, *, nested: bool = False) -> Any:
    """`value` with its resource requests as Go prints them (`_quantity.printed`); no requests or
    node selector at all when they are empty, as Go leaves an empty map out (omitempty)."""
    holder = value.replica_requirements if nested else value
    if holder is None:
        return value
    claim = holder.node_claim
    if claim is not None and claim.node_selector == {}:
        holder = dataclasses.replace(
            holder, node_claim=dataclasses.replace(claim, node_selector=None)
        )
    if holder.resource_request is not None:
        requests: dict[str, str] = {}
        for name, raw in sorted(holder.resource_request.items()):
            text = raw if isinstance(raw, str) else _convert.go_number_text(raw)
            try:
                requests[name] = _quantity.printed(text)
            except _quantity.QuantityError as e:
                raise ResultError(f"resourceRequest.{name}: {e}") from None
        holder = dataclasses.replace(holder, resource_request=requests or None)
    return dataclasses.replace(value, replica_requirements=holder) if nested else holder
