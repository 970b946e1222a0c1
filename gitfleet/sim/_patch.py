"""The three patch formats of `PATCH` (`?` content types in parentheses):

- JSON patch (`application/json-patch+json`, RFC 6902), by the jsonpatch library;
- JSON merge patch (`application/merge-patch+json`, RFC 7386): maps merge, null deletes,
  everything else, lists included, replaces;
- strategic merge patch (`application/strategic-merge-patch+json`): a merge patch whose
  lists merge by key or as sets (see `_lists`), with the `$patch: replace|delete` and
  `$deleteFromPrimitiveList/<field>` directives, and a merged list ordered as apimachinery's
  normalizeElementOrder orders it (the patch's items in its order, those only in the object
  placed among them by their order there: a new container goes first). `$setElementOrder`
  and `$retainKeys` are accepted and ignored. Custom resources refuse it with 415, as a real
  server does.

Server-side apply merges with the same strategic rules (`merge`), then prunes (`_apply`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonpatch

from gitfleet.sim import _errors, _json, _lists

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH)

_DIRECTIVE = "$patch"
_DELETE_FROM = "$deleteFromPrimitiveList/"
_IGNORED_PREFIXES = ("$setElementOrder/", "$retainKeys")


def patched(obj: _json.Obj, content_type: str, document: Any, *, builtin: bool = True) -> Any:
    """A copy of `obj` changed by a decoded JSON, merge or strategic merge patch."""
    if content_type == JSON_PATCH:
        return json_patch(obj, document)
    if not isinstance(document, dict):
        raise _errors.bad_request("a merge patch must be a JSON object")
    strategic = content_type == STRATEGIC_PATCH
    return merge(obj, document, strategic=strategic, builtin=builtin, patch_order=strategic)


def json_patch(obj: _json.Obj, operations: Any) -> _json.Obj:
    """Apply RFC 6902 operations; a malformed or failing patch is 422 Invalid."""
    if not isinstance(operations, list):
        raise _errors.bad_request("json patch must be a list of operations")
    try:
        result = jsonpatch.JsonPatch(operations).apply(obj, in_place=False)
    except (
        jsonpatch.JsonPatchException,
        jsonpatch.JsonPointerException,
        KeyError,
        TypeError,
        IndexError,
        ValueError,
    ) as error:
        raise _rejected() from error
    if not isinstance(result, dict):
        raise _rejected()
    return result


def _rejected() -> _errors.ApiError:
    """A JSON patch that cannot be applied, as the API server answers it: its generic 422,
    which says nothing of why (apimachinery's NewGenericServerResponse drops the reason)."""
    return _errors.ApiError(
        422, "the server rejected our request due to an error in our request", details={}
    )


def merge(
    target: Any,
    patch: Any,
    *,
    strategic: bool,
    builtin: bool = True,
    path: Sequence[str] = (),
    patch_order: bool = False,
) -> Any:
    """`target` merged with `patch` (neither is changed). With `strategic`, lists merge by the
    keys of `_lists` and directives apply, in the order a strategic merge patch leaves them
    with `patch_order` (else the object's, new items last); without, this is exactly RFC
    7386."""
    if not isinstance(patch, dict):
        if strategic and isinstance(patch, list) and isinstance(target, list):
            merged = _merge_list(target, patch, builtin=builtin, path=path, order=patch_order)
            return _in_patch_order(merged, target, patch, path, builtin) if patch_order else merged
        return _json.clone(patch)
    if strategic and patch.get(_DIRECTIVE) == "replace":
        return {k: _json.clone(v) for k, v in patch.items() if k != _DIRECTIVE}
    result: _json.Obj = _json.clone(target) if isinstance(target, dict) else {}
    removals: list[tuple[str, Any]] = []
    for key, value in patch.items():
        if strategic and key.startswith("$"):
            if key.startswith(_DELETE_FROM):
                removals.append((key[len(_DELETE_FROM) :], value))
            elif key != _DIRECTIVE and not key.startswith(_IGNORED_PREFIXES):
                raise _errors.bad_request(f"unknown patch directive {key!r}")
            continue
        if value is None:
            result.pop(key, None)
            continue
        result[key] = merge(
            result.get(key),
            value,
            strategic=strategic,
            builtin=builtin,
            path=(*path, key),
            patch_order=patch_order,
        )
    for field, values in removals:
        if isinstance(result.get(field), list) and isinstance(values, list):
            result[field] = [item for item in result[field] if item not in values]
    return result


def _merge_list(
    target: list[Any], patch: list[Any], *, builtin: bool, path: Sequence[str], order: bool
) -> list[Any]:
    if any(isinstance(i, dict) and i.get(_DIRECTIVE) == "replace" for i in patch):
        return [_json.clone(i) for i in patch if not (isinstance(i, dict) and _DIRECTIVE in i)]
    key = _lists.merge_key(path, [*target, *patch], builtin)
    if key == _lists.SET:
        return [*_json.clone(target), *(_json.clone(i) for i in patch if i not in target)]
    if key == _lists.ATOMIC or not all(isinstance(i, dict) for i in [*target, *patch]):
        return [_json.clone(i) for i in patch]
    result = [_json.clone(i) for i in target]
    for item in patch:
        index = next((n for n, old in enumerate(result) if old.get(key) == item.get(key)), None)
        if item.get(_DIRECTIVE) == "delete":
            if index is not None:
                del result[index]
            continue
        if index is None:
            result.append(
                merge({}, item, strategic=True, builtin=builtin, path=path, patch_order=order)
            )
        else:
            result[index] = merge(
                result[index], item, strategic=True, builtin=builtin, path=path, patch_order=order
            )
    return result


def _in_patch_order(
    merged: list[Any], target: list[Any], patch: list[Any], path: Sequence[str], builtin: bool
) -> list[Any]:
    """`merged` as apimachinery's normalizeElementOrder orders it: the items the patch names,
    in its order, and those only in `target` inserted among them before the first patch item
    `target` has after them (mergeSortedSlice)."""
    key = _lists.merge_key(path, [*target, *patch], builtin)
    if key == _lists.ATOMIC or not merged:
        return merged

    def identity(item: Any) -> Any:
        return (
            _json.clone(item) if key == _lists.SET or not isinstance(item, dict) else item.get(key)
        )

    named = [identity(i) for i in patch if not (isinstance(i, dict) and _DIRECTIVE in i)]
    before = [identity(i) for i in target]
    ours = sorted(
        (i for i in merged if identity(i) in named), key=lambda i: named.index(identity(i))
    )
    theirs = [i for i in merged if identity(i) not in named]
    result: list[Any] = []
    while ours or theirs:
        if not ours or (
            theirs
            and identity(theirs[0]) in before
            and identity(ours[0]) in before
            and before.index(identity(theirs[0])) < before.index(identity(ours[0]))
        ):
            result.append(theirs.pop(0))
        else:
            result.append(ours.pop(0))
    return result
