"""The clusters one render schedules against, and what scheduling derives from them, computed
once and shared by every binding of the render (Karmada keeps the same in its scheduler cache
snapshot and estimator results).

Build a `ClusterIndex` once and pass it to `schedule` instead of the cluster list when
scheduling many bindings. Its caches are memos of pure functions: a binding gets the same
answer with or without them. Filter verdicts are shared between bindings whose placement,
affinity term, kind, workload-ness and evictions are equal; estimates between bindings whose
per-replica requests are equal.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable
from typing import Any

from gitfleet.model import cluster, meta, policy, work
from gitfleet.scheduler import estimator, framework

Verdicts = tuple[tuple[str, framework.Result], ...]
"""Each filter plugin's (name, result) for one cluster, in registry order."""


class FilterTable:
    """Every live cluster's verdicts for one filter key, and the names of those that passed."""

    __slots__ = ("feasible", "verdicts")

    def __init__(self, verdicts: dict[str, Verdicts]) -> None:
        self.verdicts = verdicts
        self.feasible = frozenset(
            name for name, vs in verdicts.items() if all(r.success for _, r in vs)
        )


class ClusterIndex:
    """Clusters sorted by name, their plugin views and scheduling caches."""

    def __init__(self, clusters: Iterable[cluster.Cluster]) -> None:
        by_name = {c.name: c for c in clusters}
        self.clusters = tuple(by_name[name] for name in sorted(by_name))
        self.infos = {c.name: framework.ClusterInfo(c) for c in self.clusters}
        self.live = tuple(
            self.infos[c.name] for c in self.clusters if c.metadata.deletion_timestamp is None
        )
        """Clusters not being deleted: the only ones a binding can go to."""
        self.filter_tables: dict[Hashable, FilterTable] = {}
        self._capacities: dict[str, estimator.Capacity] = {}
        self._requests: dict[Hashable, estimator.Request | None] = {}
        self._estimates: dict[tuple[Hashable, str], int] = {}
        self._placements: dict[int, tuple[policy.Placement, dict[str, Any], str]] = {}

    def __len__(self) -> int:
        return len(self.clusters)

    def estimate(self, name: str, requirements: work.ReplicaRequirements | None) -> int:
        """The general estimator's answer for cluster `name`, memoized per request."""
        key = estimator.request_key(requirements)
        found = self._estimates.get((key, name))
        if found is not None:
            return found
        if key not in self._requests:
            self._requests[key] = (
                None if requirements is None else estimator.Request.of(requirements)
            )
        capacity = self._capacities.get(name)
        if capacity is None:
            capacity = self._capacities[name] = estimator.Capacity(self.infos[name].cluster)
        answer = self._estimates[(key, name)] = capacity.max_replicas(self._requests[key])
        return answer

    def placement_document(self, placement: policy.Placement) -> tuple[dict[str, Any], str]:
        """The placement as a JSON document and as compact JSON text (the applied-placement
        annotation), memoized per placement object."""
        found = self._placements.get(id(placement))
        if found is not None and found[0] is placement:
            return found[1], found[2]
        doc = meta.to_doc(placement)
        text = json.dumps(doc, separators=(",", ":"))
        self._placements[id(placement)] = (placement, doc, text)
        return doc, text
