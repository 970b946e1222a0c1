"""The clusters one render schedules against, and what scheduling derives from them, computed
once and shared by every binding of the render (Karmada keeps the same in its scheduler cache
snapshot and estimator results).

Build a `ClusterIndex` once and pass it to `schedule` instead of the cluster list when
scheduling many bindings. Its caches are memos of pure functions: a binding gets the same
answer with or without them. Filter verdicts are shared between bindings whose placement,
affinity term, kind, workload-ness and evictions are equal; estimates between bindings whose
per-replica requests are equal; whole scheduling runs between bindings that pose the same
problem (`core.run`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from gitfleet.model import cluster, meta, policy, work
from gitfleet.scheduler import estimator, framework

Verdicts = tuple[tuple[str, framework.Result], ...]
"""Each filter plugin's (name, result) for one cluster, in registry order."""
MAX_TABLES = 4096
"""Filter tables kept at once (a render rarely has more distinct placements)."""
MAX_ATTEMPTS = 4096
"""Scheduling runs kept at once (`ClusterIndex.attempt`)."""
T = TypeVar("T")
_ABSENT = object()


@dataclasses.dataclass(frozen=True, slots=True)
class Column:
    """One filter plugin's verdict on every live cluster for one `verdict_key`, as if no
    cluster were in the binding's result."""

    plugin: str
    results: tuple[framework.Result, ...]
    """In the order of `ClusterIndex.live`."""
    failing: frozenset[str]
    """The clusters it rejects."""


def judge(
    filters: Sequence[framework.FilterPlugin],
    spec: framework.Spec,
    status: framework.Status,
    info: framework.ClusterInfo,
) -> Verdicts:
    """Every filter plugin's verdict on one cluster."""
    return tuple((p.NAME, p.filter(spec, status, info)) for p in filters)


class FilterTable:
    """Every live cluster's verdicts for one filter key, computed as if no cluster were in the
    binding's result, and, on demand, the verdict of a cluster that is in it. Plugins see the
    result only through whether the cluster is in it, so these two cover every binding."""

    __slots__ = (
        "_filters",
        "_spec",
        "_status",
        "_targeted",
        "feasible",
        "targeted_feasible",
        "verdicts",
    )

    def __init__(
        self,
        filters: Sequence[framework.FilterPlugin],
        spec: framework.Spec,
        status: framework.Status,
        columns: Sequence[Column],
        positions: Mapping[str, int],
    ) -> None:
        self._filters = filters
        self._spec = spec
        self._status = status
        self._targeted: dict[str, Verdicts] = {}
        self.targeted_feasible: set[str] = set()
        """Clusters that pass when they are in the result (among those asked about)."""
        self.verdicts: Mapping[str, Verdicts] = _ColumnVerdicts(columns, positions)
        failing = frozenset[str]().union(*(c.failing for c in columns))
        self.feasible = frozenset(n for n in positions if n not in failing)

    def targeted(self, info: framework.ClusterInfo) -> Verdicts:
        """The verdicts for `info` when it is in the binding's result."""
        found = self._targeted.get(info.name)
        if found is None:
            spec = dataclasses.replace(self._spec, clusters=(work.TargetCluster(name=info.name),))
            found = self._targeted[info.name] = judge(self._filters, spec, self._status, info)
            if passed(found):
                self.targeted_feasible.add(info.name)
        return found


def passed(verdicts: Verdicts) -> bool:
    return all(r.success for _, r in verdicts)


class _ColumnVerdicts(Mapping[str, Verdicts]):
    """A table's verdicts by cluster, assembled from its plugins' columns when asked for (a
    binding that fits reads none of them)."""

    __slots__ = ("_columns", "_positions")

    def __init__(self, columns: Sequence[Column], positions: Mapping[str, int]) -> None:
        self._columns = columns
        self._positions = positions

    def __getitem__(self, name: str) -> Verdicts:
        at = self._positions[name]
        return tuple((c.plugin, c.results[at]) for c in self._columns)

    def __contains__(self, name: object) -> bool:
        return name in self._positions

    def __iter__(self) -> Iterator[str]:
        return iter(self._positions)

    def __len__(self) -> int:
        return len(self._positions)


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
        self._positions = {info.name: i for i, info in enumerate(self.live)}
        self._filter_tables: dict[Hashable, FilterTable] = {}
        self._columns: dict[tuple[str, Hashable], Column] = {}
        self._capacities: dict[str, estimator.Capacity] = {}
        self._requests: dict[Hashable, estimator.Request | None] = {}
        self._estimates: dict[tuple[Hashable, str], int] = {}
        self._placements: dict[int, tuple[policy.Placement, dict[str, Any], str]] = {}
        self._attempts: dict[Hashable, Any] = {}

    def __len__(self) -> int:
        return len(self.clusters)

    def filter_table(
        self,
        key: Hashable,
        filters: Sequence[framework.FilterPlugin],
        spec: framework.Spec,
        status: framework.Status,
    ) -> FilterTable:
        """The filter table of every binding with filter key `key`, built from this one's
        spec and status the first time, out of each plugin's column for its `verdict_key`
        (computed once per render: bindings of different placements share the verdicts of
        the plugins that read what they have in common). Past MAX_TABLES keys the memo starts
        over."""
        table = self._filter_tables.get(key)
        if table is None:
            if len(self._filter_tables) >= MAX_TABLES:
                self._filter_tables.clear()
                self._columns.clear()
            untargeted = dataclasses.replace(spec, clusters=())
            columns = [self._column(p, untargeted, status) for p in filters]
            table = FilterTable(filters, untargeted, status, columns, self._positions)
            self._filter_tables[key] = table
        return table

    def _column(
        self, plugin: framework.FilterPlugin, spec: framework.Spec, status: framework.Status
    ) -> Column:
        key = (plugin.NAME, plugin.verdict_key(spec, status))
        found = self._columns.get(key)
        if found is None:
            results = tuple(plugin.filter(spec, status, info) for info in self.live)
            failing = frozenset(
                info.name for info, r in zip(self.live, results, strict=True) if not r.success
            )
            found = self._columns[key] = Column(plugin.NAME, results, failing)
        return found

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

    def attempt(self, key: Hashable, run: Callable[[], T]) -> T:
        """What `run` gives for a scheduling problem with everything it reads in `key`,
        computed once for every binding that poses it. Past MAX_ATTEMPTS keys the memo starts
        over."""
        found = self._attempts.get(key, _ABSENT)
        if found is not _ABSENT:
            known: T = found
            return known
        if len(self._attempts) >= MAX_ATTEMPTS:
            self._attempts.clear()
        made = self._attempts[key] = run()
        return made

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
