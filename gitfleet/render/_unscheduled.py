"""The resources the scheduler could not place: their binding's Scheduled condition is False
(Karmada: the scheduler's patchBindingStatusCondition, reasons NoClusterFit, Unschedulable,
SchedulerError). render.yaml lists them under `unscheduled`, so a placement that fails is said
where the render is recorded, not only in the binding.

Such a binding keeps the clusters it had: Karmada keeps the previous result on Unschedulable
and SchedulerError, and gitfleet keeps it on NoClusterFit as well (docs/karmada-compatibility.md).
A binding never scheduled therefore runs nowhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from gitfleet.model import loaded, work
from gitfleet.model.origin import Origin
from gitfleet.model.template import ResourceKey, ResourceTemplate
from gitfleet.render import _work

SCHEDULED = "Scheduled"


@dataclasses.dataclass(frozen=True, slots=True)
class Unscheduled:
    """A resource not placed, at its template's file and line, why, and the clusters it stays
    on (the previous result)."""

    origin: Origin
    resource: str
    reason: str
    message: str
    clusters: tuple[str, ...] = ()
    synced: bool = False
    """A Namespace the namespace controller sends to every cluster all the same."""

    def to_json(self) -> dict[str, Any]:
        found = {
            **_work.located(self.origin),
            "resource": self.resource,
            "reason": self.reason,
            "message": self.message,
            "clusters": list(self.clusters),
        }
        if self.synced:
            found["syncedEverywhere"] = True
        return found

    @classmethod
    def from_json(cls, item: Any) -> Unscheduled | None:
        """An entry of render.yaml's `unscheduled` (None: not one)."""
        if not isinstance(item, dict):
            return None

        def text(key: str) -> str:
            value = item.get(key)
            return value if isinstance(value, str) else ""

        def number(key: str) -> int:
            value = item.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        clusters = item.get("clusters")
        return cls(
            Origin(text("path"), number("line"), number("col")),
            text("resource"),
            text("reason"),
            text("message"),
            tuple(str(c) for c in clusters) if isinstance(clusters, list) else (),
            item.get("syncedEverywhere") is True,
        )

    def __str__(self) -> str:
        if self.synced:
            stays = "the namespace controller sends it to every cluster all the same"
        elif self.clusters:
            stays = f"it stays on {', '.join(self.clusters)} (the previous result)"
        else:
            stays = "it runs on no cluster"
        return self.origin.says(
            f"warning: {self.resource} is not scheduled ({self.reason}): "
            f"{self.message.rstrip('.')}; {stays}"
        )


def unscheduled(
    bindings: Iterable[work.ResourceBinding | work.ClusterResourceBinding],
    templates: Mapping[ResourceKey, ResourceTemplate],
    synced: Collection[ResourceKey] = (),
) -> tuple[Unscheduled, ...]:
    """The bindings whose Scheduled condition is False, located at their templates (at the
    binding when its template is not at hand), sorted by file and line; `synced` are the
    Namespaces the namespace controller sends everywhere whatever their schedule."""
    found = []
    for binding in bindings:
        condition = next((c for c in binding.status.conditions if c.type == SCHEDULED), None)
        if condition is None or condition.status != "False":
            continue
        r = binding.spec.resource
        key = ResourceKey(r.api_version, r.kind, r.namespace, r.name)
        template = templates.get(key)
        found.append(
            Unscheduled(
                template.origin if template is not None else binding.origin,
                loaded.describe(r.kind, r.namespace, r.name),
                condition.reason,
                condition.message,
                tuple(t.name for t in binding.spec.clusters),
                key in synced,
            )
        )
    return tuple(sorted(found, key=lambda u: (u.origin.path, u.origin.line, u.resource)))
