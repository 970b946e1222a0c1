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

import dataclasses
import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any

from gitfleet.model import cluster, meta, policy, work
from gitfleet.scheduler import estimator, framework

Verdicts = tuple[tuple[str, framework.Result], ...]
"""Each filter plugin's (name, result) for one cluster, in registry order."""
MAX_TABLES = 4096
"""Filter tables kept at once (a render rarely has more distinct placements)."""


Judge = Callable[[framework.Spec, framework.Status, framework.ClusterInfo], Verdicts]
"""Runs every filter plugin on one cluster."""


class FilterTable:
    """Every live cluster's verdicts for one filter key, computed as if no cluster were in the
    binding's result, and, on demand, the verdict of a cluster that is in it. Plugins see the
    result only through whether the cluster is in it, so these two cover every binding."""

    __slots__ = (
        "_judge",
        "_spec",
        "_status",
        "_targeted",
        "feasible",
        "targeted_feasible",
        "verdicts",
    )

    def __init__(
        self,
        judge: Judge,
        spec: framework.Spec,
        status: framework.Status,
        live: Iterable[framework.ClusterInfo],
    ) -> None:
        self._judge = judge
        self._spec = dataclasses.replace(spec, clusters=())
        self._status = status
        self._targeted: dict[str, Verdicts] = {}
        self.targeted_feasible: set[str] = set()
        """Clusters that pass when they are in the result (among those asked about)."""
        self.verdicts = {info.name: judge(self._spec, status, info) for info in live}
        self.feasible = frozenset(n for n, vs in self.verdicts.items() if passed(vs))

    def targeted(self, info: framework.ClusterInfo) -> Verdicts:
        """The verdicts for `info` when it is in the binding's result."""
        found = self._targeted.get(info.name)
        if found is None:
            spec = dataclasses.replace(self._spec, clusters=(work.TargetCluster(name=info.name),))
            found = self._targeted[info.name] = self._judge(spec, self._status, info)
            if passed(found):
                self.targeted_feasible.add(info.name)
        return found


def passed(verdicts: Verdicts) -> bool:
    return all(r.success for _, r in verdicts)


class VerdictView(Mapping[str, Verdicts]):
    """One binding's verdicts: the shared table, with those of its result's clusters."""

    __slots__ = ("_base", "_own")

    def __init__(self, base: Mapping[str, Verdicts], own: Mapping[str, Verdicts]) -> None:
        self._base = base
        self._own = own

    def __getitem__(self, name: str) -> Verdicts:
        found = self._own.get(name)
        return self._base[name] if found is None else found

    def __iter__(self) -> Iterator[str]:
        return iter(self._base)

    def __len__(self) -> int:
        return len(self._base)


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
        self._filter_tables: dict[Hashable, FilterTable] = {}
        self._verdicts: dict[Verdicts, Verdicts] = {}
        self._capacities: dict[str, estimator.Capacity] = {}
        self._requests: dict[Hashable, estimator.Request | None] = {}
        self._estimates: dict[tuple[Hashable, str], int] = {}
        self._placements: dict[int, tuple[policy.Placement, dict[str, Any], str]] = {}

    def __len__(self) -> int:
        return len(self.clusters)

    def filter_table(
        self,
        key: Hashable,
        judge: Judge,
        spec: framework.Spec,
        status: framework.Status,
    ) -> FilterTable:
        """The filter table of every binding with filter key `key`, built from this one's
        spec and status the first time. Equal verdicts are stored once, so a table costs
        little more than its keys; past MAX_TABLES keys the memo starts over."""
        table = self._filter_tables.get(key)
        if table is None:
            if len(self._filter_tables) >= MAX_TABLES:
                self._filter_tables.clear()
            table = FilterTable(self._interning(judge), spec, status, self.live)
            self._filter_tables[key] = table
        return table

    def _interning(self, judge: Judge) -> Judge:
        def judge_once(
            spec: framework.Spec,
            status: framework.Status,
            info: framework.ClusterInfo,
        ) -> Verdicts:
            verdicts = judge(spec, status, info)
            return self._verdicts.setdefault(verdicts, verdicts)

        return judge_once

    def estimates(
        self, requirements: work.ReplicaRequirements | None, names: Iterable[str]
    ) -> list[int]:
        """The general estimator's answer for each named cluster, memoized per request."""
        key = estimator.request_key(requirements)
        if key not in self._requests:
            self._requests[key] = (
                None if requirements is None else estimator.Request.of(requirements)
            )
        request = self._requests[key]
        known = self._estimates
        answers = []
        for name in names:
            found = known.get((key, name))
            if found is None:
                capacity = self._capacities.get(name)
                if capacity is None:
                    capacity = estimator.Capacity(self.infos[name].cluster)
                    self._capacities[name] = capacity
                found = known[(key, name)] = capacity.max_replicas(request)
            answers.append(found)
        return answers

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
