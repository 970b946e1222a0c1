"""What the agent does with an object the cluster already has and gitfleet does not manage
(Karmada's conflict resolution: the execution controller's `allowUpdate`).

An object is gitfleet's when it carries the label `gitfleet.io/managed-by: gitfleet`; the
agent lists its objects by that label, so one it does not find there may still exist, made by
someone else (`kubectl`, another tool, the cluster's own set-up). Such an object is written
only when the manifest says `work.karmada.io/conflict-resolution: overwrite` (the policy's
`conflictResolution: Overwrite`, or the template's own annotation): it is then taken over, and
pruned with the rest once it leaves the Work directory. Otherwise, as Karmada's default Abort,
it is left as it is and the manifest fails, saying how to take it over: gitfleet never claims,
and so never later deletes, what it did not make.

A namespace gitfleet generated (the source does not define it; a manifest placed there needs
it) asks for nothing but that the namespace exists: one already there is used as it is, and the
manifest counts as applied, with no message (it is no problem to report).
"""

from __future__ import annotations

import enum
from typing import Any

from gitfleet.agent import stamp
from gitfleet.model.template import ResourceKey

CONFLICT_RESOLUTION = "work.karmada.io/conflict-resolution"
OVERWRITE = "overwrite"


class Verdict(enum.Enum):
    WRITE = "write"
    """Nothing is in the way, or what is there is gitfleet's, or may be taken over."""
    USE = "use"
    """A generated namespace that exists already: used as it is, never written."""
    ABORT = "abort"
    """Someone else's object: left as it is, the manifest fails."""


def _managed(obj: dict[str, Any]) -> bool:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return isinstance(labels, dict) and labels.get(stamp.MANAGED_BY_LABEL) == stamp.MANAGED_BY


def verdict(config: dict[str, Any], existing: dict[str, Any] | None) -> Verdict:
    """What to do with manifest `config` where the cluster holds `existing` (None: nothing)."""
    if existing is None or _managed(existing):
        return Verdict.WRITE
    annotations = stamp.annotations_of(config)
    if annotations.get(CONFLICT_RESOLUTION) == OVERWRITE:
        return Verdict.WRITE
    if config.get("kind") == "Namespace" and annotations.get(stamp.GENERATED_NAMESPACE) == "true":
        return Verdict.USE
    return Verdict.ABORT


def aborted(ref: ResourceKey) -> str:
    """Why a manifest was not applied over someone else's object."""
    return (
        f"{ref} already exists in the cluster and is not managed by gitfleet"
        f" ({CONFLICT_RESOLUTION}: abort): left as it is; to take it over, set"
        f" conflictResolution: Overwrite in its policy, or annotate the template"
        f" {CONFLICT_RESOLUTION}: {OVERWRITE}"
    )
