"""Drift: fields gitfleet applied that someone changed or removed in the cluster since.

Server-side apply records which manager owns which field (`metadata.managedFields`, FieldsV1).
Any other write that changes a field takes it away from gitfleet, and a removed field is no
longer owned by anyone. So a field of the applied configuration is in sync when gitfleet's
apply entry still owns it; when it does not, it has drifted unless the live value happens to
equal the desired one (someone wrote the same value back). Comparing values only where the
ownership changed keeps a real API server's normalisation (quantities, defaults) from looking
like drift, and needs no request: the live object from the sync's list is enough.

One field is compared by value even while gitfleet owns it: `spec.replicas`, which a write
through the scale subresource (`kubectl scale`, an autoscaler) changes without taking it from
gitfleet's entry on Kubernetes before 1.21 (kubernetes/kubernetes#82046), so ownership alone
would never see it. It is an integer the server does not normalise.

A live object without any gitfleet entry (a server that dropped managedFields) is compared by
value alone. List items are matched by the keys the server recorded for them (`k:{...}`,
`v:...`), else by `name`, else by position.
"""

from __future__ import annotations

import json
from typing import Any

from gitfleet.agent import stamp

Fields = dict[str, Any]
_ITEM_PREFIXES = ("k:", "v:", "i:")
_SCALED = ("spec", "replicas")
"""The field the scale subresource writes, compared by value always."""


def owned_fields(live: dict[str, Any], manager: str = stamp.FIELD_MANAGER) -> Fields | None:
    """The union of the field sets `manager` applied on the main resource (None: no entry)."""
    found: Fields | None = None
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if (
            entry.get("manager") == manager
            and entry.get("operation") == "Apply"
            and not entry.get("subresource")
        ):
            found = merge_fields(found or {}, entry.get("fieldsV1") or {})
    return found


def merge_fields(a: Fields, b: Fields) -> Fields:
    """The union of two FieldsV1 trees."""
    out = dict(a)
    for key, value in b.items():
        out[key] = merge_fields(out.get(key) or {}, value or {}) if key in out else value
    return out


def changes(config: dict[str, Any], live: dict[str, Any]) -> list[str]:
    """The paths (`spec.replicas`, `spec.template.spec.containers[web].image`) of `config`
    whose live value drifted; empty when the live object is as gitfleet left it."""
    found: list[str] = []
    owned = owned_fields(live)
    for key, value in config.items():
        if key in ("apiVersion", "kind"):
            continue
        child = _child(owned, key)
        _walk(value, live.get(key, _MISSING), child, key, found)
    scaled, wanted = ".".join(_SCALED), _at(config, _SCALED)
    if wanted is not None and scaled not in found and wanted != _at(live, _SCALED):
        found.append(scaled)
    return found


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


class _Missing:
    pass


_MISSING: Any = _Missing()


def _child(owned: Fields | None, key: str) -> Fields | None:
    if owned is None:
        return None
    found = owned.get("f:" + key)
    return found if isinstance(found, dict) else None


def _empty(value: Any) -> bool:
    return value is None or value == {} or value == []


def _walk(want: Any, have: Any, owned: Fields | None, path: str, out: list[str]) -> None:
    if have is _MISSING:
        if not _empty(want):
            out.append(path)
        return
    if isinstance(want, dict):
        if not isinstance(have, dict):
            out.append(path)
            return
        for key, value in want.items():
            _walk(value, have.get(key, _MISSING), _child(owned, key), f"{path}.{key}", out)
        return
    if isinstance(want, list):
        _walk_list(want, have, owned, path, out)
        return
    if owned is not None:
        return  # still gitfleet's: nobody wrote it since
    if want != have:
        out.append(path)


def _walk_list(want: list[Any], have: Any, owned: Fields | None, path: str, out: list[str]) -> None:
    items = {k: v for k, v in (owned or {}).items() if k.startswith(_ITEM_PREFIXES)}
    if owned is not None and not items:
        return  # an atomic list gitfleet still owns as a whole
    if want == have:
        return
    if not items or not isinstance(have, list):
        out.append(path)  # a list gitfleet owns none of: compared whole
        return
    for index, item in enumerate(want):
        key, item_owned = _item_key(item, items)
        match = _match(item, index, key, have)
        label = f"{path}[{_label(item, index)}]"
        if match is _MISSING:
            out.append(label)
        elif isinstance(item, (dict, list)):
            _walk(item, match, item_owned, label, out)
        elif item_owned is None and item != match:
            out.append(label)


def _item_key(item: Any, items: Fields) -> tuple[Any, Fields | None]:
    """The recorded key of a list item (a dict of key fields, or the value), and what gitfleet
    owns below it."""
    for raw, below in items.items():
        if raw.startswith("v:"):
            if _loads(raw[2:]) == item:
                return item, below if isinstance(below, dict) else {}
        elif raw.startswith("k:") and isinstance(item, dict):
            keys = _loads(raw[2:])
            if isinstance(keys, dict) and keys and all(item.get(k) == v for k, v in keys.items()):
                return keys, below if isinstance(below, dict) else {}
    return None, None


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _MISSING


def _match(item: Any, index: int, key: Any, have: list[Any]) -> Any:
    """The live list item `item` corresponds to."""
    if isinstance(key, dict):
        for candidate in have:
            if isinstance(candidate, dict) and all(candidate.get(k) == v for k, v in key.items()):
                return candidate
        return _MISSING
    if isinstance(item, dict) and "name" in item:
        for candidate in have:
            if isinstance(candidate, dict) and candidate.get("name") == item["name"]:
                return candidate
        return _MISSING
    if not isinstance(item, (dict, list)):
        return item if item in have else _MISSING
    return have[index] if index < len(have) else _MISSING


def _label(item: Any, index: int) -> str:
    if isinstance(item, dict) and isinstance(item.get("name"), str):
        return str(item["name"])
    return str(index)
