"""What a member cluster's API server would refuse in a manifest for its names, metadata,
fields and field types, found as `kubectl apply` would find it, but before anything is written.

`problems(body)` lists every such problem of one object as (field path, message): its names
(`_objectmeta.identity`), its labels and annotations, the typed fields of the common
built-in kinds (`_kinds`), and the fields a built-in kind does not declare and values of the
wrong JSON type, as strict field validation finds them (`_strict`). `validate` reports them
for every template (`check`), and the render stage asks the same of every manifest it
builds, after overrides (the pipeline hands `problems` to it), so no rendered manifest holds
what validate would refuse.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet.model import diagnostic, loaded, template
from gitfleet.validation import _kinds, _objectmeta, _report, _strict
from gitfleet.validation._fieldtypes import Problems


def problems(body: Mapping[str, Any]) -> Problems:
    """Every problem of one object (apiVersion, kind and metadata.name are strings)."""
    found: Problems = []
    _objectmeta.identity(body, found)
    _objectmeta.labels_and_annotations(("metadata",), body["metadata"], found)
    _kinds.check(body, found)
    _strict.check(body, found)
    return found


def check(templates: Iterable[template.ResourceTemplate]) -> list[diagnostic.Diagnostic]:
    """Every problem of every template, located at its field (each template checked once)."""
    found: list[diagnostic.Diagnostic] = []
    for each in templates:
        found += _checked(each)
    return found


def _located(each: template.ResourceTemplate) -> tuple[diagnostic.Diagnostic, ...]:
    report = _report.Report(each.origin, loaded.subject(each))
    for keys, message in problems(each.body):
        report.error(keys, message)
    return tuple(report.diagnostics)


_checked = template.PerTemplate(_located)
