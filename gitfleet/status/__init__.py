"""The fleet's status, from what the agents reported through Git (Karmada's status controllers).

`fleet(...)` is pure: the rendered commit's bindings, the status refs' reports (`reports`), the
templates and interpreter of the source it was rendered from, and the time, give a `FleetView`:

- a row per cluster (`_clusters`): ready, last heartbeat, the rendered commit it applied and
  whether that is the current render of its folder, synced (current, without errors), drift,
  errors;
- a row per binding (`_resources`): the clusters it expects its resource in, replicas desired
  and ready, health, and the resource's status aggregated through the interpreter's
  AggregateStatus (built-in rules and the source's Lua customizations);
- the reconciler's own status (`reconciler_state`), as it wrote it: what it last saw and
  rendered, its last error, each cluster's repository not in line;
- the progressive rollout (`rollout_state`), as the reconciler recorded it: its phase, each
  wave's clusters and what it waits for.

Reading those inputs from a repository is `read`'s business; printing them, `gitfleet status`'s.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet import rollout
from gitfleet.interpreter import Interpreter
from gitfleet.model import times
from gitfleet.model.template import RawObject, ResourceKey
from gitfleet.status import _clusters, _resources, reconciler_state, reports

ClusterRow = _clusters.ClusterRow
Applied = _clusters.Applied
ResourceRow = _resources.ResourceRow
Binding = _resources.Binding
expected_clusters = _resources.expected_clusters


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Rendered:
    """The render the view is of: its branch, commit and source commit."""

    branch: str
    commit: str | None = None
    source_commit: str | None = None


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class FleetView:
    rendered: Rendered
    observed_at: str
    clusters: tuple[ClusterRow, ...] = ()
    resources: tuple[ResourceRow, ...] = ()
    notes: tuple[str, ...] = ()
    """What the view could not take into account, and why."""
    reconciler: reconciler_state.ReconcilerState | None = None
    """None when no reconciler has written its status ref (renders made by `gitfleet render`)."""
    autoscalers: tuple[dict[str, Any], ...] = ()
    """Each FederatedHPA of the source rendered and its last decision
    (`autoscaling.describe`)."""
    rollout: rollout.State | None = None
    """The progressive rollout as the reconciler last recorded it (None: no rollout)."""

    def to_json(self) -> dict[str, Any]:
        """Every key present (null when empty), `rollout` only with a rollout (it is an
        extension of Karmada's model)."""
        found: dict[str, Any] = {
            "branch": self.rendered.branch,
            "renderedCommit": self.rendered.commit,
            "sourceCommit": self.rendered.source_commit,
            "observedAt": self.observed_at,
            "clusters": [c.to_json() for c in self.clusters],
            "resources": [r.to_json() for r in self.resources],
            "notes": list(self.notes),
            "reconciler": (
                reconciler_state.document(self.reconciler) if self.reconciler is not None else None
            ),
            "autoscalers": list(self.autoscalers),
        }
        if self.rollout is not None:
            found["rollout"] = rollout.to_doc(self.rollout)
        return found


def fleet(
    rendered: Rendered,
    *,
    bindings: Sequence[Binding],
    reports_by_cluster: Mapping[str, reports.ClusterReport],
    modes: Mapping[str, str],
    applied: Mapping[str, Applied],
    templates: Mapping[ResourceKey, RawObject],
    interp: Interpreter,
    now: datetime.datetime,
    grace: float,
    notes: Sequence[str] = (),
    reconciler: reconciler_state.ReconcilerState | None = None,
    autoscalers: Sequence[dict[str, Any]] = (),
    rollout_state: rollout.State | None = None,
) -> FleetView:
    """The fleet as of `now`.

    `modes`: every cluster of the fleet (its sync mode, "" when unknown); `applied`: per cluster,
    the rendered commit whose folder it applied and whether that is the current render of it;
    `grace`: seconds after its last heartbeat a cluster's report is no longer trusted."""
    return FleetView(
        rendered=rendered,
        observed_at=times.text(now),
        clusters=_clusters.rows(modes, reports_by_cluster, applied, now=now, grace=grace),
        resources=_resources.rows(bindings, reports_by_cluster, templates, interp),
        notes=tuple(notes),
        reconciler=reconciler,
        autoscalers=tuple(autoscalers),
        rollout=rollout_state,
    )
