"""One row per binding: where its resource went, how many replicas are wanted and ready, whether
it is healthy, and its status aggregated as Karmada's status controllers aggregate it.

- The items (pkg/util/helper/workstatus.go assembleWorkStatus): one per cluster the binding
  expects a Work in (ObtainBindingSpecExistingClusters: the schedule result, the clusters of
  the bindings that require it, and the clusters graceful eviction keeps unless their purge
  mode is Directly), sorted by name. An applied manifest gives `applied: true` with the status
  the agent reflected and its health; otherwise `applied: false`, the agent's message, and
  health Unknown. A cluster whose agent has not reported the manifest yet gives `applied:
  false` with no message, as a Work whose status was not collected does.
- FullyApplied (generateFullyAppliedCondition): the binding has clusters and every item is
  applied.
- The template's status (pkg/controllers/status/common.go updateResourceStatus): when the
  interpreter has an AggregateStatus hook for the kind (built-in, or the source's Lua), the
  template with its status aggregated from the items.

A binding the scheduler could not place says so by its Scheduled condition (status False, the
scheduler's reason and message), shown with the row.

A cluster whose dispatching the binding's suspension stops keeps the manifest it was last
sent (the Work is left as it was); the row names those clusters.

Replicas: desired is what the schedule gave the clusters (for Duplicated, each cluster's full
count); ready is the aggregated `readyReplicas`, else the sum the clusters reported. Health is
gitfleet's summary, not Karmada's: Unhealthy when any cluster says so, Healthy when every
expected cluster applied the manifest and says it is healthy, Unknown otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from gitfleet import errors, interpreter
from gitfleet.interpreter import Interpreter
from gitfleet.model import meta, policy, work
from gitfleet.model.template import RawMeta, RawObject, ResourceKey
from gitfleet.status import reports

Binding = work.ResourceBinding | work.ClusterResourceBinding
READY_FIELDS = ("readyReplicas", "numberReady")


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class ResourceRow:
    key: ResourceKey
    clusters: tuple[str, ...]
    """The clusters the binding expects its resource in."""
    desired: int | None = None
    ready: int | None = None
    health: work.ResourceHealth = work.ResourceHealth.UNKNOWN
    fully_applied: bool = False
    items: tuple[work.AggregatedStatusItem, ...] = ()
    status: Any = None
    """The template's status aggregated from the items (None: the kind has no hook)."""
    error: str = ""
    """Why the status could not be aggregated."""
    scheduled: meta.Condition | None = None
    """The binding's Scheduled condition: False says why the scheduler could not place it (it
    keeps the clusters it had)."""
    suspended: tuple[str, ...] = ()
    """The clusters whose dispatching the policy suspends: they keep the manifest they were
    last sent, whatever `desired` counts for them."""

    def to_json(self) -> dict[str, Any]:
        return {
            "apiVersion": self.key.api_version,
            "kind": self.key.kind,
            "namespace": self.key.namespace,
            "name": self.key.name,
            "clusters": list(self.clusters),
            "replicas": {"desired": self.desired, "ready": self.ready},
            "health": str(self.health),
            "fullyApplied": self.fully_applied,
            "aggregatedStatus": [meta.to_doc(i) for i in self.items],
            "status": self.status,
            "error": self.error,
            "scheduled": (
                {k: getattr(self.scheduled, k) for k in ("status", "reason", "message")}
                if self.scheduled is not None
                else None
            ),
            "dispatchingSuspended": list(self.suspended),
        }


def expected_clusters(spec: work.ResourceBindingSpec) -> tuple[str, ...]:
    """The clusters a binding expects a Work in (Karmada ObtainBindingSpecExistingClusters)."""
    names = {t.name for t in spec.clusters}
    names |= {t.name for snapshot in spec.required_by for t in snapshot.clusters}
    names |= {
        task.from_cluster
        for task in spec.graceful_eviction_tasks
        if task.purge_mode is not policy.PurgeMode.DIRECTLY
    }
    return tuple(sorted(names))


def _item(
    name: str, key: ResourceKey, report: reports.ClusterReport | None
) -> work.AggregatedStatusItem:
    found = report.manifest(key) if report is not None else None
    if found is None or not found.applied:
        return work.AggregatedStatusItem(
            cluster_name=name,
            applied=False,
            applied_message=found.message if found is not None else "",
            health=work.ResourceHealth.UNKNOWN,
        )
    return work.AggregatedStatusItem(
        cluster_name=name, status=found.status, applied=True, health=found.health
    )


def _health(items: Sequence[work.AggregatedStatusItem]) -> work.ResourceHealth:
    if any(i.health is work.ResourceHealth.UNHEALTHY for i in items):
        return work.ResourceHealth.UNHEALTHY
    if items and all(i.applied and i.health is work.ResourceHealth.HEALTHY for i in items):
        return work.ResourceHealth.HEALTHY
    return work.ResourceHealth.UNKNOWN


def _count(status: Any) -> int | None:
    if isinstance(status, dict):
        for field in READY_FIELDS:
            value = status.get(field)
            if isinstance(value, int):
                return value
    return None


def _ready(status: Any, items: Sequence[work.AggregatedStatusItem]) -> int | None:
    """The aggregated count, else the sum of what the clusters reported."""
    own = _count(status)
    if own is not None:
        return own
    counts = [c for c in (_count(i.status) for i in items) if c is not None]
    return sum(counts) if counts else None


def _stub(key: ResourceKey) -> RawObject:
    """A template known only by its identity (the source is not at hand)."""
    metadata: RawMeta = {"name": key.name}
    if key.namespace:
        metadata["namespace"] = key.namespace
    return {"apiVersion": key.api_version, "kind": key.kind, "metadata": metadata}


def _aggregate(
    interp: Interpreter, template: RawObject, items: Sequence[work.AggregatedStatusItem]
) -> tuple[Any, str]:
    kind = (str(template.get("apiVersion", "")), str(template.get("kind", "")))
    if not interp.hook_enabled(*kind, interpreter.Operation.AGGREGATE_STATUS):
        return None, ""
    try:
        return interp.aggregate_status(template, items).get("status"), ""
    except (errors.GitfleetError, ValueError, TypeError) as exc:
        return None, f"cannot aggregate the status: {exc}"


def row(
    binding: Binding,
    found: Mapping[str, reports.ClusterReport],
    template: RawObject | None,
    interp: Interpreter,
) -> ResourceRow:
    spec = binding.spec
    ref = spec.resource
    key = ResourceKey(ref.api_version, ref.kind, ref.namespace, ref.name)
    clusters = expected_clusters(spec)
    items = tuple(_item(name, key, found.get(name)) for name in clusters)
    status, problem = _aggregate(interp, template or _stub(key), items)
    desired = sum(t.replicas for t in spec.clusters) if spec.replicas > 0 else None
    return ResourceRow(
        key=key,
        clusters=clusters,
        desired=desired,
        ready=_ready(status, items) if desired is not None else None,
        health=_health(items),
        fully_applied=bool(items) and all(i.applied for i in items),
        items=items,
        status=status,
        error=problem,
        scheduled=next((c for c in binding.status.conditions if c.type == "Scheduled"), None),
        suspended=spec.dispatching_suspended(clusters),
    )


def rows(
    bindings: Sequence[Binding],
    found: Mapping[str, reports.ClusterReport],
    templates: Mapping[ResourceKey, RawObject],
    interp: Interpreter,
) -> tuple[ResourceRow, ...]:
    """A row per binding, sorted by the resource's identity."""
    made = []
    for binding in bindings:
        r = binding.spec.resource
        key = ResourceKey(r.api_version, r.kind, r.namespace, r.name)
        made.append(row(binding, found, templates.get(key), interp))
    return tuple(sorted(made, key=lambda each: each.key))
