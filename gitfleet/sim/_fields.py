"""Field sets: which fields of an object a manager owns, in the `fieldsV1` format of
`metadata.managedFields` (structured-merge-diff's `fieldpath.Set` serialisation).

A path is a tuple of elements: `f:<field>` for a map field, `k:{"name":"web"}` for the item
of a keyed list, `v:"x"` for the member of a set list. A set holds the leaves a manager set
(scalars, atomic lists, empty maps) and the list items it added (with their key fields); maps
on the way are implied. `to_fields_v1` writes `.` for a path that is a member and has children.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from gitfleet.sim import _json, _lists

Path = tuple[str, ...]
FieldSet = frozenset[Path]

# Fields the server sets, never owned by anybody (structured-merge-diff strips these too).
_SERVER_METADATA = (
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def ownable(obj: _json.Obj, *, status: str) -> _json.Obj:
    """The part of `obj` whose fields can be owned. `status` says where the write went:
    "main" without a status subresource keeps everything, "spec" (main endpoint of a kind
    with a status subresource) drops `status`, "status" keeps only `status`."""
    if status == "status":
        return {"status": _json.clone(obj["status"])} if "status" in obj else {}
    result = {
        key: _json.clone(value)
        for key, value in obj.items()
        if key not in ("apiVersion", "kind") and not (status == "spec" and key == "status")
    }
    metadata = {
        k: v for k, v in (result.get("metadata") or {}).items() if k not in _SERVER_METADATA
    }
    if metadata:
        result["metadata"] = metadata
    else:
        result.pop("metadata", None)
    return result


def of(obj: _json.Obj, *, builtin: bool) -> FieldSet:
    """The field set that describes `obj` (already reduced by `ownable`)."""
    found: set[Path] = set()
    _walk(obj, (), (), builtin, found)
    return frozenset(found)


def _walk(value: Any, path: Path, names: Path, builtin: bool, found: set[Path]) -> None:
    if isinstance(value, dict):
        if not value and path:
            found.add(path)
        for key, child in value.items():
            if child is not None:  # a null is no field anybody owns
                _walk(child, (*path, f"f:{key}"), (*names, key), builtin, found)
        return
    if isinstance(value, list):
        key = _lists.merge_key(names, value, builtin)
        if key == _lists.SET:
            found.update((*path, f"v:{_compact(item)}") for item in value)
            return
        if key == _lists.ATOMIC or not all(isinstance(i, dict) and key in i for i in value):
            found.add(path)
            return
        for item in value:
            item_path = (*path, f"k:{_compact({key: item[key]})}")
            found.add(item_path)
            _walk(item, item_path, names, builtin, found)
        return
    found.add(path)


def _step(value: Any, element: str) -> tuple[bool, Any]:
    """Follow one path element from `value`: (found, child)."""
    kind, _, text = element.partition(":")
    if kind == "f" and isinstance(value, dict):
        return (text in value, value.get(text))
    if kind in ("k", "v") and isinstance(value, list):
        wanted = json.loads(text)
        for item in value:
            if kind == "v" and item == wanted:
                return (True, item)
            if (
                kind == "k"
                and isinstance(item, dict)
                and all(item.get(k) == v for k, v in wanted.items())
            ):
                return (True, item)
    return (False, None)


def get(obj: Any, path: Path) -> tuple[bool, Any]:
    """The value at `path` in `obj`: (found, value)."""
    value = obj
    for element in path:
        found, value = _step(value, element)
        if not found:
            return (False, None)
    return (True, value)


def remove(obj: _json.Obj, path: Path) -> None:
    """Delete the field or list item at `path` from `obj` in place, if present."""
    found, parent = get(obj, path[:-1])
    if not found:
        return
    kind, _, text = path[-1].partition(":")
    if kind == "f" and isinstance(parent, dict):
        parent.pop(text, None)
    elif isinstance(parent, list):
        for index, item in enumerate(parent):
            if _step([item], path[-1])[0]:
                del parent[index]
                return


def is_item(path: Path) -> bool:
    """Whether `path` names a keyed list item (whose own value is the sum of its fields)."""
    return bool(path) and path[-1].startswith("k:")


def is_key_field(path: Path) -> bool:
    """Whether `path` is a key field of a list item (it goes only with the item itself)."""
    if len(path) < 2 or not is_item(path[:-1]) or not path[-1].startswith("f:"):
        return False
    return path[-1][2:] in json.loads(path[-2][2:])


def prefixes(paths: Iterable[Path]) -> set[Path]:
    """Every path in `paths` and every path on the way to one."""
    found: set[Path] = set()
    for path in paths:
        found.update(path[:n] for n in range(1, len(path) + 1))
    return found


def to_fields_v1(paths: Iterable[Path]) -> _json.Obj:
    """The `fieldsV1` object for a set of paths."""
    members = set(paths)
    tree: _json.Obj = {}
    for path in sorted(members):
        node = tree
        for element in path:
            node = node.setdefault(element, {})
    _mark_members(tree, (), members)
    return tree


def _mark_members(node: _json.Obj, path: Path, members: set[Path]) -> None:
    for element, child in node.items():
        if element == ".":
            continue
        child_path = (*path, element)
        if child and child_path in members:
            items = dict(child)
            child.clear()
            child.update({".": {}, **items})
        _mark_members(child, child_path, members)


def from_fields_v1(tree: Any, path: Path = ()) -> set[Path]:
    """The set of paths a `fieldsV1` object describes (inverse of `to_fields_v1`)."""
    found: set[Path] = set()
    if not isinstance(tree, dict):
        return found
    for element, child in tree.items():
        if element == ".":
            found.add(path)
            continue
        child_path = (*path, element)
        if not child:
            found.add(child_path)
        else:
            found.update(from_fields_v1(child, child_path))
    return found


def describe(path: Sequence[str]) -> str:
    """A path as conflict messages print it: `.spec.containers[name="web"].image`."""
    text = ""
    for element in path:
        kind, _, body = element.partition(":")
        if kind == "f":
            text += f".{body}"
        elif kind == "k":
            keys = json.loads(body)
            text += "[" + ",".join(f"{k}={json.dumps(v)}" for k, v in keys.items()) + "]"
        else:
            text += f"[={body}]"
    return text
