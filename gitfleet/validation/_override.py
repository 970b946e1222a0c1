"""What Karmada's webhook refuses in an (Cluster)OverridePolicy, and pointers that cannot apply.

Ported from pkg/util/validation/validation.go (ValidateOverrideSpec, ValidateOverrideRules,
validateJSONPatchSubPaths, validateOverrideOperator, emptyOverrides): deprecated
targetCluster/overriders next to overrideRules, labels and annotations syntax, image predicate
paths, fieldOverrider json XOR yaml, JSON pointers, values for add/replace and none for remove,
selectors in the policy's own namespace. The CRD's operators of command/args overriders (add or
remove) are a field rule of the model (`policy.CommandArgsOverrider`). And gitfleet's own rules:
plaintext paths must be JSON pointers (Karmada's json-patch applies any text, a path without
its leading `/` to the field named by all but its first segment, `~2` as a key of its own,
which is never what was meant), and overriders that can be seen to change what an object is
are refused (`_identity`). The deprecated spec-level overriders are checked like a rule, but
Karmada's webhook checks only the overrideRules: there its checks are warnings saying what then
happens (`_Checks`), and gitfleet's own rules stay errors. Next to overrideRules they are not
checked at all: Karmada ignores them then (the fieldOverrider its webhook lets through gets a
warning saying so).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitfleet.model import labelsyntax, policy, template
from gitfleet.validation import _affinity, _propagation, _report, _syntax

Override = policy.OverridePolicy | policy.ClusterOverridePolicy
Keys = tuple[str | int, ...]

_ADD, _REMOVE, _REPLACE = (
    policy.OverriderOperator.ADD,
    policy.OverriderOperator.REMOVE,
    policy.OverriderOperator.REPLACE,
)


def check(obj: Override, report: _report.Report) -> None:
    spec = obj.spec
    _propagation.check_selectors_namespace(spec.resource_selectors, obj.namespace, report)
    if spec.target_cluster is not None and spec.override_rules:
        report.error(("spec", "targetCluster"), "cannot be used together with overrideRules")
    if _has_deprecated_overriders(spec.overriders) and spec.override_rules:
        report.error(("spec", "overriders"), "cannot be used together with overrideRules")
    for keys, affinity in _affinity.override_affinities(spec):
        _affinity.cluster_affinity(report, keys, affinity)
    if not spec.override_rules:
        _overriders(spec.overriders, ("spec", "overriders"), _Checks(report, deprecated=True))
    elif spec.overriders.field_overrider:
        report.warning(
            ("spec", "overriders", "fieldOverrider"),
            "ignored, as overrideRules are set (as Karmada ignores the deprecated overriders)",
        )
    for index, rule in enumerate(spec.override_rules):
        keys = ("spec", "overrideRules", index, "overriders")
        _overriders(rule.overriders, keys, _Checks(report))


class _Checks:
    """The checks of Karmada's webhook on one set of overriders: a problem is an error. The
    deprecated spec-level overriders it does not check: there a problem is a warning saying
    what then happens, as Karmada (and the overrides stage) apply them like a rule."""

    def __init__(self, report: _report.Report, *, deprecated: bool = False) -> None:
        self.report = report
        self.deprecated = deprecated

    def problem(self, keys: Keys, message: str, outcome: str) -> None:
        if not self.deprecated:
            self.report.error(keys, message)
            return
        self.report.warning(
            keys, f"{message} (Karmada does not check the deprecated overriders): {outcome}"
        )

    def written_key(self, keys: Keys, key: str) -> str:
        """The label or annotation key to check for `key`: the webhook checks it as written;
        unchecked, a key holding `~1` or `~0` reaches another key, which a warning names."""
        written = labelsyntax.overrider_key(key)
        if not self.deprecated or written == key:
            return key
        self.report.warning(
            keys,
            "Karmada's overriders escape only / into the JSON-patch path, which reads ~1 and ~0"
            f" back: this sets {written!r}",
        )
        return written


def _has_deprecated_overriders(overriders: policy.Overriders) -> bool:
    """Karmada's emptyOverrides, negated: fieldOverrider does not count."""
    return bool(
        overriders.plaintext
        or overriders.image_overrider
        or overriders.command_overrider
        or overriders.args_overrider
        or overriders.labels_overrider
        or overriders.annotations_overrider
    )


_REFUSED = "the member's API server refuses the manifest, and so does the render"


def _overriders(overriders: policy.Overriders, base: Keys, checks: _Checks) -> None:
    report = checks.report
    _identity(overriders, base, report)
    for index, plain in enumerate(overriders.plaintext):
        _pointer(report, (*base, "plaintext", index, "path"), plain.path)
    for index, image in enumerate(overriders.image_overrider):
        if image.predicate is not None:
            where = (*base, "imageOverrider", index, "predicate", "path")
            _pointer(report, where, image.predicate.path)
    for index, labels in enumerate(overriders.labels_overrider):
        for key, value in labels.value.items():
            where = (*base, "labelsOverrider", index, "value", key)
            written = checks.written_key(where, key)
            problem = labelsyntax.qualified_name(written) or labelsyntax.label_value(value)
            if problem:
                checks.problem(where, problem, _REFUSED)
    for index, annotation in enumerate(overriders.annotations_overrider):
        where = (*base, "annotationsOverrider", index, "value")
        for key in annotation.value:
            problem = _syntax.annotation_key(checks.written_key((*where, key), key))
            if problem:
                checks.problem((*where, key), problem, _REFUSED)
        problem = _syntax.annotations_size(annotation.value)
        if problem:
            checks.problem(where, problem, _REFUSED)
    for index, field in enumerate(overriders.field_overrider):
        _field(field, (*base, "fieldOverrider", index), checks)


def _identity(overriders: policy.Overriders, base: Keys, report: _report.Report) -> None:
    """Overriders that change what an object is (its apiVersion, kind, namespace, name or
    generateName), as far as the policy alone shows it: a path to one of those fields, or the
    removal or a replacement without a name of the whole object or its metadata. The render
    refuses every other such change, for the cluster it happens on."""
    pointers: list[tuple[Keys, str, policy.OverriderOperator | None, Any]] = [
        ((*base, "plaintext", i, "path"), p.path, p.operator, p.value)
        for i, p in enumerate(overriders.plaintext)
    ]
    pointers += [
        ((*base, "imageOverrider", i, "predicate", "path"), o.predicate.path, None, None)
        for i, o in enumerate(overriders.image_overrider)
        if o.predicate is not None
    ]
    pointers += [
        ((*base, "fieldOverrider", i, "fieldPath"), f.field_path, None, None)
        for i, f in enumerate(overriders.field_overrider)
    ]
    for keys, pointer, operator, value in pointers:
        fields = template.identity_fields_at(pointer)
        if len(fields) == 1:
            changed = fields[0]
        elif fields and (operator is _REMOVE or _loses_identity(pointer, value)):
            changed = ", ".join(fields)
        else:
            continue
        report.error(
            keys, f"{pointer!r} changes {changed}: overriders must not change what an object is"
        )


def _loses_identity(pointer: str, value: Any) -> bool:
    """Whether a value put at the root or at /metadata leaves out what every object has."""
    required = ("name",) if pointer == "/metadata" else ("apiVersion", "kind", "metadata")
    return not isinstance(value, Mapping) or any(not value.get(key) for key in required)


def _field(field: policy.FieldOverrider, keys: Keys, checks: _Checks) -> None:
    if field.json and field.yaml:
        checks.problem(keys, "set json or yaml, not both", "the yaml operations apply, not json")
    if not field.json and not field.yaml:
        checks.problem(keys, "set json or yaml", "the field is emptied")
    _pointer(checks.report, (*keys, "fieldPath"), field.field_path)
    for name, operations in (("json", field.json), ("yaml", field.yaml)):
        for index, operation in enumerate(operations):
            where = (*keys, name, index)
            _pointer(checks.report, (*where, "subPath"), operation.sub_path)
            _value(checks, where, operation.operator, operation.value)


def _pointer(report: _report.Report, keys: Keys, pointer: str) -> None:
    problem = _syntax.json_pointer(pointer)
    if problem:
        report.error(keys, problem)


def _value(checks: _Checks, keys: Keys, operator: policy.OverriderOperator, value: Any) -> None:
    """validateOverrideOperator: add/replace need a value, remove takes none."""
    if operator in (_ADD, _REPLACE) and value is None:
        message = f"a value is required for {operator}"
        checks.problem((*keys, "value"), message, "null is written there")
    elif operator is _REMOVE and value is not None:
        checks.problem((*keys, "value"), "remove takes no value", "the value is ignored")
