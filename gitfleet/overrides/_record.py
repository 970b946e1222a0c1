"""The record of applied overrides that Karmada writes on a Work, as annotations
`policy.karmada.io/applied-cluster-overrides` and `policy.karmada.io/applied-overrides`
(Karmada: pkg/util/overridemanager/shadow.go, pkg/controllers/binding/common.go
RecordAppliedOverrides).

Each is a JSON array of `{"policyName", "overriders"}`, stably sorted by policy name, absent
when nothing was applied. `overriders` is Karmada's Overriders struct as Go encodes it: fields
in struct order, empty lists left out, a raw value written `null` when absent,
maps with sorted keys, HTML-safe escaping.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from gitfleet.model import policy
from gitfleet.overrides import _gojson, _patch

APPLIED_OVERRIDES = "policy.karmada.io/applied-overrides"
APPLIED_CLUSTER_OVERRIDES = "policy.karmada.io/applied-cluster-overrides"


@dataclasses.dataclass(frozen=True, slots=True)
class AppliedOverride:
    """The overriders one policy rule applied (Karmada's OverridePolicyShadow)."""

    policy_name: str
    overriders: policy.Overriders


def _raw(value: Any) -> Any:
    return _gojson.as_stored(_patch.plain(value))


def _patch_ops(ops: Sequence[policy.PatchOperation]) -> list[dict[str, Any]]:
    return [
        {"subPath": o.sub_path, "operator": str(o.operator), "value": _raw(o.value)} for o in ops
    ]


def _image(o: policy.ImageOverrider) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if o.predicate is not None:
        doc["predicate"] = {"path": o.predicate.path}
    doc.update(component=str(o.component), operator=str(o.operator))
    if o.value:
        doc["value"] = o.value
    return doc


def _command_args(o: policy.CommandArgsOverrider) -> dict[str, Any]:
    doc: dict[str, Any] = {"containerName": o.container_name, "operator": str(o.operator)}
    if o.value:
        doc["value"] = list(o.value)
    return doc


def _label_annotation(o: policy.LabelAnnotationOverrider) -> dict[str, Any]:
    return {"operator": str(o.operator), "value": _raw(o.value)}


def _field(o: policy.FieldOverrider) -> dict[str, Any]:
    doc: dict[str, Any] = {"fieldPath": o.field_path}
    if o.json:
        doc["json"] = _patch_ops(o.json)
    if o.yaml:
        doc["yaml"] = _patch_ops(o.yaml)
    return doc


def overriders_doc(o: policy.Overriders) -> dict[str, Any]:
    """Karmada's JSON form of one Overriders block."""
    parts: list[tuple[str, list[dict[str, Any]]]] = [
        (
            "plaintext",
            [
                {"path": p.path, "operator": str(p.operator), "value": _raw(p.value)}
                for p in o.plaintext
            ],
        ),
        ("imageOverrider", [_image(i) for i in o.image_overrider]),
        ("commandOverrider", [_command_args(c) for c in o.command_overrider]),
        ("argsOverrider", [_command_args(a) for a in o.args_overrider]),
        ("labelsOverrider", [_label_annotation(la) for la in o.labels_overrider]),
        ("annotationsOverrider", [_label_annotation(a) for a in o.annotations_overrider]),
        ("fieldOverrider", [_field(f) for f in o.field_overrider]),
    ]
    return {name: items for name, items in parts if items}


def encode(applied: Sequence[AppliedOverride]) -> str:
    """The annotation value for a list of applied overrides."""
    ordered = sorted(applied, key=lambda item: item.policy_name)
    items = [
        {"policyName": item.policy_name, "overriders": overriders_doc(item.overriders)}
        for item in ordered
    ]
    return _gojson.dumps(items, sort_keys=False)


def work_annotations(
    cluster_applied: Sequence[AppliedOverride], namespaced_applied: Sequence[AppliedOverride]
) -> dict[str, str]:
    """The Work annotations recording what was applied; keys absent when nothing was."""
    result = {}
    if cluster_applied:
        result[APPLIED_CLUSTER_OVERRIDES] = encode(cluster_applied)
    if namespaced_applied:
        result[APPLIED_OVERRIDES] = encode(namespaced_applied)
    return result
