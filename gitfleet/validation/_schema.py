"""Every schema error of a Karmada document, each located at its field.

The loader decodes a document with the model and stops at the first bad field; here the
document is checked against its kind's JSON Schema (`schemas.build()`, one validator per kind,
compiled once) so the user sees all of them. A document the model decoded is valid against its
schema by construction (both come from the same declarations, field rules included), so only
documents the loader rejected are checked again. Null values are dropped first, as the API
server prunes them. A broken field rule reads as the decoder words it (`rules.Rule`), and so
does an integer past an int64.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import jsonschema  # type: ignore[import-untyped]

from gitfleet.model import _codec, diagnostic, loaded, rules
from gitfleet.model.origin import PathKey
from gitfleet.validation import _report, schemas

_RULE_KEYWORDS = frozenset({"enum", "minimum", "minItems", "maxLength", "pattern"})
_JSON_TYPES = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
    type(None): "null",
}


@functools.cache
def _validators() -> dict[tuple[str, str], jsonschema.Draft202012Validator]:
    return {
        (kind.API_VERSION, kind.KIND): jsonschema.Draft202012Validator(schemas.schema(kind))
        for kind in schemas.KINDS
    }


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _type_name(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _expected(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_expected(member) for member in schema["anyOf"])
    return str(schema.get("type", "value"))


def _problems(error: jsonschema.ValidationError) -> Iterator[tuple[tuple[PathKey, ...], str]]:
    """(field path, message) for one validation error; some errors name several fields."""
    path: tuple[PathKey, ...] = tuple(error.absolute_path)
    instance, rule = error.instance, error.validator
    if rule == "additionalProperties":
        known = error.schema.get("properties", {})
        for key in instance:
            if key not in known:
                yield (*path, key), f"unknown field {key!r}"
    elif rule == "required":
        for key in error.validator_value:
            if key not in instance:
                yield (*path, key), "required field is missing"
    elif rule in ("type", "anyOf"):
        yield path, f"expected {_expected(error.schema)}, got {_type_name(instance)}"
    elif rule in ("minimum", "maximum") and (wide := _codec.beyond_int64(instance)):
        yield path, wide  # the bounds of every integer, before any rule's own minimum
    elif rule in _RULE_KEYWORDS:
        yield path, rules.Rule.from_schema(error.schema).problem(instance) or error.message
    else:
        yield path, error.message


def check(document: loaded.Document, subject: str | None = None) -> list[diagnostic.Diagnostic]:
    """All schema errors of a Karmada document (none for other documents), naming its object
    `subject` (default: as the document is written)."""
    validator = _validators().get((document.api_version, document.kind))
    if validator is None:
        return []
    report = _report.Report(document.origin, subject or document.subject)
    seen: set[tuple[tuple[PathKey, ...], str]] = set()
    for error in validator.iter_errors(_without_nulls(document.body)):
        for keys, message in _problems(error):
            if (keys, message) not in seen:  # a pattern and a length may both say it
                seen.add((keys, message))
                report.error(keys, message)
    return report.diagnostics
