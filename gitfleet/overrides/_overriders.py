"""One `Overriders` block applied to a manifest, in Karmada's fixed order: image, command,
args, labels, annotations, field, plaintext (Karmada: pkg/util/overridemanager/
overridemanager.go applyPolicyOverriders).

Each entry of a list is turned into operations against the manifest as it is at that moment
and applied before the next entry is read; the plaintext entries form one patch. A failure is
re-raised with `keys` locating the entry inside the block (`("plaintext", 2, "path")`). An
entry that changes what the object is (`template.identity_change`: an image predicate or a
field document reaching its name, a plaintext path to its kind...) is such a failure too, at
that entry (for the plaintext patch, the first entry whose path reaches an identity field).
An operation that needs a field the template leaves to the API server's defaults gets that
default first (`_defaults`), as it would find it in the object Karmada's API server stored.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from gitfleet.model import policy, template
from gitfleet.overrides import _commandargs, _defaults, _field, _image, _metadata, _patch

Build = Callable[[dict[str, Any], Any], list[_patch.Op]]

STEPS: tuple[tuple[str, str, Build], ...] = (
    ("imageOverrider", "image_overrider", _image.ops),
    ("commandOverrider", "command_overrider", partial(_commandargs.ops, target="command")),
    ("argsOverrider", "args_overrider", partial(_commandargs.ops, target="args")),
    ("labelsOverrider", "labels_overrider", partial(_metadata.ops, field="labels")),
    ("annotationsOverrider", "annotations_overrider", partial(_metadata.ops, field="annotations")),
    ("fieldOverrider", "field_overrider", _field.ops),
)
"""(API name, model attribute, operation builder) of each overrider kind, in Karmada's order;
plaintext comes last."""


def plaintext_ops(overriders: policy.Overriders) -> list[_patch.Op]:
    return [_patch.Op(str(p.operator), p.path, p.value) for p in overriders.plaintext]


def apply(manifest: dict[str, Any], overriders: policy.Overriders) -> dict[str, Any]:
    """Apply the block to `manifest` (modified in place) and return the result."""
    identity = template.identity_of(manifest)
    doc: Any = manifest
    for name, attribute, build in STEPS:
        for index, entry in enumerate(getattr(overriders, attribute)):
            try:
                ops = build(doc, entry)
            except _patch.Failure as failure:
                raise _patch.Failure((name, index, *failure.keys), failure.message) from failure
            try:
                doc = _patch.apply(doc, ops, _defaults.fill)
            except _patch.Failure as failure:
                raise _patch.Failure((name, index), failure.message) from failure
            _same_object(identity, doc, (name, index))
    try:
        doc = _patch.apply(doc, plaintext_ops(overriders), _defaults.fill)
    except _patch.Failure as failure:
        raise _patch.Failure(("plaintext", failure.keys[0], "path"), failure.message) from failure
    if not isinstance(doc, dict):
        raise _patch.Failure(("plaintext",), "the patched manifest is not an object")
    _same_object(identity, doc, _plaintext_touching_identity(overriders))
    return doc


def _same_object(identity: dict[str, Any], doc: Any, keys: tuple[str | int, ...]) -> None:
    """Karmada's overriders customise an object; they must not make it another one."""
    change = template.identity_change(identity, doc)
    if change is not None:
        raise _patch.Failure(keys, f"{change}: overriders must not change what an object is")


def _plaintext_touching_identity(overriders: policy.Overriders) -> tuple[str | int, ...]:
    """Where the plaintext entry that changed an identity field is (the first one whose path
    reaches one)."""
    for index, entry in enumerate(overriders.plaintext):
        if template.identity_fields_at(entry.path):
            return ("plaintext", index, "path")
    return ("plaintext",)
