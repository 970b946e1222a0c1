"""Interpreter test data in Karmada's format, read and checked as Karmada's thirdparty_test.go
does (pkg/resourceinterpreter/default/thirdparty/thirdparty_test.go, README).

A folder holds `<group>/<version>/<Kind>/customizations.yaml` and `testdata/*-test.yaml`, each a
stream of cases: `name`, `desiredObj`/`observedObj`, `statusItems`, `inputReplicas`,
`operation`, `output`. Every output key must be produced and equal: requirements and components
with quantities compared by value, dependencies and components in sorted order, objects after
dropping the paths whose expected value is `{{EXCLUDE}}`, anything else as sorted-key JSON.
Quantities cannot be compared as text: Karmada's test compares them with `Quantity.Equal`, and
its expected text is often not what Go prints (the Flink components expect `2048m` where
Karmada's own luavm gives `2.048`; other cases write `1000m` for `1`, or `1433.600000Mi`).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from gitfleet.interpreter import _quantity, lua
from gitfleet.interpreter.lua import _yamlfile
from gitfleet.interpreter.lua._thirdparty import CUSTOMIZATIONS_FILE, TESTDATA
from gitfleet.model import _codec, config, work
from gitfleet.model.origin import Origin

EXCLUDE = "{{EXCLUDE}}"


@dataclasses.dataclass(frozen=True)
class Case:
    """One test document and the customizations of its folder."""

    name: str
    origin: Origin
    doc: dict[str, Any]
    customizations: tuple[config.ResourceInterpreterCustomization, ...]

    @property
    def id(self) -> str:
        kind_dir = Path(self.origin.path).parent.parent
        return f"{kind_dir.parent.parent.name}/{kind_dir.parent.name}/{kind_dir.name}:{self.name}"


def cases(folder: Path) -> list[Case]:
    """Every case under `folder`, with the customizations next to its testdata."""
    out = []
    for path in sorted(folder.rglob(CUSTOMIZATIONS_FILE)):
        if TESTDATA in path.relative_to(folder).parts:
            continue
        customizations = tuple(lua.read_customizations(path))
        for data in sorted((path.parent / TESTDATA).glob("*.yaml")):
            for doc, origin in _yamlfile.documents(str(data), data.read_text()):
                out.append(Case(str(doc.get("name", "")), origin, doc, customizations))
    return out


def run(case: Case, sandbox: lua.Sandbox | None = None) -> dict[str, Any]:
    doc = case.doc
    items = doc.get("statusItems")
    status_items = None
    if items is not None:
        status_items = [
            lua.status_item(item, case.origin.at("statusItems", i)) for i, item in enumerate(items)
        ]
    return lua.interpret(
        case.customizations,
        lua.operation_named(doc["operation"]),
        desired=doc.get("desiredObj"),
        observed=doc.get("observedObj"),
        status_items=status_items,
        replicas=int(doc.get("inputReplicas") or 0),
        sandbox=sandbox,
    )


def mismatches(case: Case, produced: dict[str, Any]) -> list[str]:
    """Why `produced` does not match the case's expected output (empty: it matches)."""
    problems = []
    for key, expected in (case.doc.get("output") or {}).items():
        if key not in produced:
            problems.append(f"output key {key!r} is not produced")
        elif not _equal(key, expected, produced[key]):
            problems.append(
                f"{key}: expected {json.dumps(expected, sort_keys=True)}, "
                f"got {json.dumps(produced[key], sort_keys=True)}"
            )
    return problems


def _equal(key: str, expected: Any, actual: Any) -> bool:
    if key == "requires":
        return _requirements(expected) == _requirements(actual)
    if key == "dependencies":
        return _sorted(expected, _dependency_key) == _sorted(actual, _dependency_key)
    if key == "components":
        return _sorted([_by_value(c) for c in expected or []], _name) == _sorted(
            [_by_value(c) for c in actual or []], _name
        )
    if key in ("retained", "revised", "aggregatedStatus"):
        excluded: set[tuple[str, ...]] = set()
        want = _drop(expected, (), excluded, collect=True)
        return bool(want == _drop(actual, (), excluded, collect=False))
    return _json(expected) == _json(actual)


def _requirements(value: Any) -> Any:
    if value is None:
        return None
    decoded = _codec.decode(work.ReplicaRequirements, value, Origin("expected"), lenient=True)
    return _by_value(_codec.encode(decoded))


def _by_value(value: Any) -> Any:
    """Quantities under `resourceRequest` as exact nano counts (Quantity.Equal)."""
    if isinstance(value, dict):
        return {
            k: (
                {n: _quantity.parse(q).nanos for n, q in v.items()}
                if k == "resourceRequest" and isinstance(v, dict)
                else _by_value(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_by_value(v) for v in value]
    return value


def _dependency_key(dep: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(dep.get(k, "")) for k in ("apiVersion", "kind", "namespace", "name"))


def _name(component: dict[str, Any]) -> str:
    return str(component.get("name", ""))


def _sorted(items: Any, key: Any) -> list[Any]:
    return sorted(items or [], key=key)


def _drop(
    value: Any, path: tuple[str, ...], excluded: set[tuple[str, ...]], *, collect: bool
) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            at = (*path, k)
            if collect and v == EXCLUDE:
                excluded.add(at)
                continue
            if not collect and at in excluded:
                continue
            out[k] = _drop(v, at, excluded, collect=collect)
        return out
    if isinstance(value, list):
        return [_drop(v, (*path, str(i)), excluded, collect=collect) for i, v in enumerate(value)]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _json(value: Any) -> str:
    return json.dumps(_drop(value, (), set(), collect=False), sort_keys=True, separators=(",", ":"))
