"""fieldOverrider: patch a JSON or YAML document held in a string field, such as a ConfigMap
key (Karmada: pkg/util/overridemanager/overridemanager.go applyFieldOverriders).

The value at `fieldPath` (a JSON pointer, read as go-openapi/jsonpointer reads it) must be a
string; one the template leaves to the API server's defaults is filled in first (`_defaults`).
With `yaml` operations it is read as YAML, patched, and written back as Karmada's YAML
(`_goyaml`); else with `json` operations it is patched as JSON and written back compact,
keeping its key order, the text of untouched numbers and strings, and the keys of objects no
operation's path went through (`_gojson`); an overrider with neither empties the field, as
Karmada does. The result replaces the string in place.

json-patch v5 patches only containers: the document (the YAML read as JSON) must be an object,
an array or null, and a JSON array must start at the text's first character (v5 reads anything
else as an object). An operation on the whole document (`subPath: ""`) must bring an object or
an array, or null for `add`; a null document takes no other operation, and cannot be written.
A `replace` of the whole document with null (or no value) is another matter: json-patch v5
then holds a nil array, which takes no operation but another on the whole document, and is
written `null`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gitfleet.model import policy, yamllimits
from gitfleet.overrides import _defaults, _gojson, _goyaml, _patch

NIL_ARRAY = object()
"""The document after a `replace` of the whole of it with null: json-patch v5's nil array."""


def _patched(document: Any, operations: Sequence[policy.PatchOperation], kind: str) -> Any:
    for index, o in enumerate(operations):
        op = _patch.Op(str(o.operator), o.sub_path, _gojson.as_stored(_patch.plain(o.value)))
        if op.path == "" and op.op == "replace" and op.value is None:
            document = NIL_ARRAY
            continue
        if document is NIL_ARRAY:
            if op.path != "":
                nil = f'cannot {op.op} "{op.path}": the document is a nil array'
                raise _patch.Failure((kind, index, "subPath"), nil)
            document = {}
        problem = _whole_document_problem(document, op)
        if problem:
            raise _patch.Failure((kind, index, "subPath"), problem)
        _reach(document, op.path)
        try:
            document = _patch.apply(document, [op])
        except _patch.Failure as failure:
            raise _patch.Failure((kind, index, "subPath"), failure.message) from failure
    if document is None:
        raise _patch.Failure((kind,), "json-patch cannot write a null document")
    return document


def _reach(document: Any, path: str) -> None:
    """Mark the objects json-patch reads on its way to `path`'s target (the document and
    every container above the target): their keys are written anew."""
    node = document
    for token in [*path.split("/")[1:-1], None]:
        if isinstance(node, _gojson.ParsedObject):
            node.rewritten = True
        if isinstance(node, dict) and token is not None:
            node = node.get(_patch.unescape(token))
        elif isinstance(node, list) and token is not None:
            index = _patch.go_atoi(token)
            if index is None or not -len(node) <= index < len(node):
                return
            node = node[index]
        else:
            return


def _whole_document_problem(document: Any, op: _patch.Op) -> str | None:
    if op.path == "":
        if isinstance(op.value, (dict, list)) or (op.op == "add" and op.value is None):
            return None
        return f"cannot {op.op} the whole document with {_kind(op.value)}"
    if document is None:
        return f'cannot {op.op} "{op.path}": the document is null'
    return None


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__}"


def _check_container(document: Any, text: str) -> None:
    """What json-patch v5 can hold: an object or null, or an array written from the start."""
    array = text.startswith("[")
    if (array and isinstance(document, list)) or (
        not array and (document is None or isinstance(document, dict))
    ):
        return
    raise _patch.Failure(
        ("fieldPath",), "the field holds neither an object nor an array for json-patch"
    )


def _parse(text: str, parse: Callable[[str], Any], kind: str) -> Any:
    too_deep = yamllimits.too_deep(text.encode())
    try:
        if too_deep is not None:
            raise ValueError(too_deep.message)
        return parse(text)
    except ValueError as error:
        raise _patch.Failure(("fieldPath",), f"the field does not hold {kind}: {error}") from error


def _rewrite(text: str, overrider: policy.FieldOverrider) -> str:
    if overrider.yaml:
        document = _parse(text, _goyaml.load, "YAML")
        _check_container(document, "[" if isinstance(document, list) else "")
        return _written(_patched(document, overrider.yaml, "yaml"), _goyaml.dump)
    if overrider.json:
        if text == "":  # json-patch returns an empty document untouched
            return text
        document = _parse(text, _gojson.loads_preserving, "JSON")
        _check_container(document, text)
        patched = _patched(document, overrider.json, "json")
        return _written(patched, lambda doc: _gojson.dumps(doc, sort_keys=False))
    return ""


def _written(document: Any, write: Callable[[Any], str]) -> str:
    try:
        return write(None if document is NIL_ARRAY else document)
    except ValueError as error:
        raise _patch.Failure(("fieldPath",), f"cannot write the patched field: {error}") from error


def ops(manifest: dict[str, Any], overrider: policy.FieldOverrider) -> list[_patch.Op]:
    """The patch one fieldOverrider makes: a `replace` of the string at `fieldPath`."""
    path = overrider.field_path
    try:
        text = _patch.resolve(manifest, path)
    except _patch.Failure as failure:
        if not _defaults.fill(manifest, "replace", path):
            raise _patch.Failure(("fieldPath",), failure.message) from failure
        text = _patch.resolve(manifest, path)
    if not isinstance(text, str):
        raise _patch.Failure(("fieldPath",), f'the value at "{path}" is not a string')
    pointer = _patch.canonical_pointer(manifest, path)
    return [_patch.Op("replace", pointer, _rewrite(text, overrider))]
