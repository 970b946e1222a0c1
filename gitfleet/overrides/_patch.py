"""JSON patch operations, applied with the `jsonpatch` library the way Karmada's
evanphx/json-patch v5 applies them (its default options).

Every overrider kind is turned into RFC 6902 operations and applied here. v5 reads array
indices as Go's `strconv.Atoi` does and accepts negative ones counted from the end
(`SupportNegativeIndices`); such indices are rewritten to the canonical form the library
expects before it sees them. v5 also looks an empty key up its own way, as the object itself:
a `replace` whose last key is empty always finds it on an object (and sets key `""`), and an
empty key inside a path leads nowhere, so the operation fails even where the object has a key
`""`; at the top of the path (`//x`) it leads to a copy of the document, which the operation
patches and v5 drops, so the operation changes nothing, failing only where it would fail on
that copy. Everything else is RFC 6902 in both: `add` needs the parent and
replaces an existing key, `replace` and `remove` need the target. A failed operation raises
`Failure` naming the operation's index, with a message that says which part of the path is
missing; the caller decides where in the policy that index points.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jsonpatch
import jsonpointer

_GO_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_INT64_DIGITS = 19
_NON_CANONICAL_INDEX = re.compile(r"/(?:[+-][0-9]|0[0-9])", re.ASCII)


class Failure(Exception):
    """An overrider cannot be applied; `keys` locate it inside its Overriders block."""

    def __init__(self, keys: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.keys = keys
        self.message = message


@dataclasses.dataclass(frozen=True, slots=True)
class Op:
    """One RFC 6902 operation: add, remove or replace."""

    op: str
    path: str
    value: Any = None

    def to_doc(self) -> dict[str, Any]:
        return {"op": self.op, "path": self.path, "value": self.value}


def plain(value: Any) -> Any:
    """A fresh copy of a JSON-like value made of plain dicts and lists (policy values may come
    from a YAML loader's own mapping types; the manifest must never share them)."""
    kind = type(value)
    if kind is dict:
        return {key: plain(item) for key, item in value.items()}
    if kind is list:
        return [plain(item) for item in value]
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [plain(item) for item in value]
    return value


def escape(token: str) -> str:
    """An object key as a JSON-pointer token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def go_atoi(token: str) -> int | None:
    """`strconv.Atoi`: an optional sign and decimal digits, leading zeros allowed; None past
    int64, as Atoi's range error (known from the digits alone: Python refuses to convert
    more than 4300 of them)."""
    if not _GO_INT.fullmatch(token):
        return None
    digits = token.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _INT64_DIGITS:
        return None
    value = -int(digits) if token.startswith("-") else int(digits)
    return value if -(2**63) <= value < 2**63 else None


def _canonical(doc: Any, op: str, path: str) -> str:
    """Rewrite array indices as v5 resolves them (`+1`, `01`, `-1` from the end)."""
    if not path.startswith("/"):
        return path
    tokens = path[1:].split("/")
    node = doc
    for position, token in enumerate(tokens):
        last = position == len(tokens) - 1
        if isinstance(node, list):
            index = go_atoi(token)
            if index is None:
                break
            size = len(node) + (1 if last and op == "add" else 0)
            if -size <= index < 0:
                index += size
            tokens[position] = str(index)
            if last or not 0 <= index < len(node):
                break
            node = node[index]
        elif isinstance(node, dict) and not last and unescape(token) in node:
            node = node[unescape(token)]
        else:
            break
    return "/" + "/".join(tokens)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "null" if value is None else type(value).__name__


def explain(doc: Any, op: str, path: str) -> str:
    """Why `op` at `path` does not apply to `doc`, in the user's terms."""
    if not path.startswith("/"):
        return f'cannot {op} "{path}": a path must start with "/"'
    node = doc
    walked = ""
    tokens = path[1:].split("/")
    for position, raw in enumerate(tokens):
        last = position == len(tokens) - 1
        token = unescape(raw)
        where = walked or "the document root"
        if isinstance(node, dict):
            if token not in node:
                if last and op == "add":
                    break
                return f'cannot {op} "{path}": {where} has no field "{token}"'
            node = node[token]
        elif isinstance(node, list):
            index = go_atoi(raw)
            limit = len(node) + (1 if last and op == "add" else 0)
            if index is None or not -limit <= index < limit:
                return (
                    f'cannot {op} "{path}": {where} has {len(node)} items, '
                    f'"{raw}" is not an index in it'
                )
            if last:
                break
            node = node[index]
        else:
            return f'cannot {op} "{path}": {where} is {_kind(node)}, not an object or array'
        walked += "/" + raw
    return f'cannot {op} "{path}"'


Fill = Callable[[Any, str, str], bool]
"""Fills in, in a document, what an operation (`op`, canonical `path`) that failed needs;
True when it did, so the operation is worth trying again."""


def apply(doc: Any, ops: Sequence[Op], fill: Fill | None = None) -> Any:
    """Apply `ops` in order to `doc` (modified in place) and return the resulting document.
    Values are copied in, never shared. An operation that fails is tried once more after
    `fill` fills something in (only then: a patch that applies costs nothing more). Raises
    `Failure((index,), message)`, explaining the failure in `doc` as it was before `fill`."""
    for index, op in enumerate(ops):
        path = op.path
        kind = op.op
        if path.startswith("//") and not path.startswith("///"):
            try:
                apply(copy.deepcopy(doc), [dataclasses.replace(op, path=path[1:])], fill)
            except Failure as failure:
                raise Failure((index,), failure.message) from None
            continue
        if "//" in path:
            raise Failure((index,), f'cannot {kind} "{path}": an empty key inside a path')
        if _NON_CANONICAL_INDEX.search(path):
            path = _canonical(doc, kind, path)
        if kind == "replace" and path.endswith("/") and _is_object_at(doc, path[:-1]):
            kind = "add"
        operation = {"op": kind, "path": path, "value": plain(op.value)}
        try:
            doc = jsonpatch.JsonPatch.operations[kind](operation).apply(doc)
        except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException) as error:
            message = explain(doc, op.op, op.path)
            if fill is None or not fill(doc, kind, path):
                raise Failure((index,), message) from error
            try:
                doc = jsonpatch.JsonPatch.operations[kind](operation).apply(doc)
            except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException):
                raise Failure((index,), message) from error
    return doc


def _is_object_at(doc: Any, pointer: str) -> bool:
    try:
        return isinstance(resolve(doc, pointer), dict)
    except Failure:
        return False


def resolve(doc: Any, pointer: str) -> Any:
    """The value at `pointer`, as go-openapi/jsonpointer's Get reads it (no negative indices,
    no `-`); raises `Failure((), message)`."""
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        raise Failure((), f'"{pointer}" is not a JSON pointer: it must start with "/"')
    node = doc
    walked = ""
    for raw in pointer[1:].split("/"):
        token = unescape(raw)
        where = walked or "the document root"
        if isinstance(node, dict):
            if token not in node:
                raise Failure((), f'{where} has no field "{token}"')
            node = node[token]
        elif isinstance(node, list):
            index = go_atoi(raw)
            if index is None or not 0 <= index < len(node):
                raise Failure((), f'{where} has {len(node)} items, "{raw}" is not an index in it')
            node = node[index]
        else:
            raise Failure((), f"{where} is {_kind(node)}, not an object or array")
        walked += "/" + raw
    return node


def canonical_pointer(doc: Any, pointer: str) -> str:
    """`pointer` with array indices in canonical form, for writing back where `resolve` read."""
    return _canonical(doc, "replace", pointer) if _NON_CANONICAL_INDEX.search(pointer) else pointer
