"""The scheduling framework: plugin interfaces, their results, the registry and the errors a
schedule ends with (Karmada: pkg/scheduler/framework/{interface.go,types.go},
framework/runtime/{framework.go,registry.go}).

A filter plugin says whether one cluster may run the resource; a score plugin ranks the
clusters that passed. Plugins are small stateless objects built once from a registry. This
module knows nothing about particular plugins (those live in `plugins/`) nor about the steps
that use them (`core.py`).

One deliberate difference: Karmada runs filter plugins in the iteration order of a Go map, so
when a cluster fails several filters the reason it reports varies between scheduler restarts.
gitfleet runs every plugin, keeps every verdict for `explain`, and reports the first failing
plugin in registry order, which makes the FitError text stable.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol, Self, runtime_checkable

from gitfleet import errors
from gitfleet.model import cluster, policy, work

Spec = work.ResourceBindingSpec
Status = work.ResourceBindingStatus

MIN_CLUSTER_SCORE = 0
MAX_CLUSTER_SCORE = 100
COMPLETE_API_ENABLEMENTS = "CompleteAPIEnablements"
"""Cluster condition: True when `status.apiEnablements` lists every API the cluster serves."""
BLOCKING_EFFECTS = frozenset({"NoSchedule", "NoExecute"})
"""Taint effects that keep new resources away; PreferNoSchedule does not."""


class Code(enum.StrEnum):
    """What a plugin concluded (Karmada framework.Code)."""

    SUCCESS = "Success"
    UNSCHEDULABLE = "Unschedulable"
    ERROR = "Error"


@dataclasses.dataclass(frozen=True, slots=True)
class Result:
    """A plugin's verdict: a code and, unless it succeeded, the reasons why not."""

    code: Code
    reasons: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return self.code is Code.SUCCESS


SUCCESS = Result(Code.SUCCESS)


def unschedulable(*reasons: str) -> Result:
    return Result(Code.UNSCHEDULABLE, reasons)


class ClusterInfo:
    """A cluster as the plugins see it: the object plus views computed once per cluster
    (Karmada framework.ClusterInfo), so a filter costs a lookup, not a walk of the status."""

    __slots__ = ("blocking_taints", "cluster", "complete_api_enablements", "enabled_apis", "name")

    def __init__(self, c: cluster.Cluster) -> None:
        self.cluster = c
        self.name = c.name
        self.enabled_apis = frozenset(
            (e.group_version, r.kind) for e in c.status.api_enablements for r in e.resources
        )
        self.complete_api_enablements = any(
            cond.type == COMPLETE_API_ENABLEMENTS and cond.status == "True"
            for cond in c.status.conditions
        )
        self.blocking_taints = tuple(t for t in c.spec.taints if t.effect in BLOCKING_EFFECTS)


def is_workload(spec: work.ResourceBindingSpec) -> bool:
    """Karmada ResourceBindingSpec.IsWorkload: replicas, replica requirements or components."""
    return spec.replicas > 0 or spec.replica_requirements is not None or bool(spec.components)


def scheduling_type(placement: policy.Placement | None) -> policy.ReplicaSchedulingType | None:
    """Karmada's Placement.ReplicaSchedulingType(): Duplicated without replicaScheduling, else
    the type as written (pkg/apis/policy/v1alpha1/propagation_helper.go)."""
    if placement is None or placement.replica_scheduling is None:
        return policy.ReplicaSchedulingType.DUPLICATED
    return placement.replica_scheduling.replica_scheduling_type


_last_targets: tuple[tuple[work.TargetCluster, ...], frozenset[str]] = ((), frozenset())


def target_names(spec: work.ResourceBindingSpec) -> frozenset[str]:
    """The names of the binding's result (`spec.clusters`).

    Plugins ask this for every cluster of one binding in a row, so the set of the last result
    asked about is kept (checked by identity) and a filter or score stays O(1) per cluster.
    """
    global _last_targets
    clusters, names = _last_targets
    if spec.clusters is not clusters:
        names = frozenset(t.name for t in spec.clusters)
        _last_targets = (spec.clusters, names)
    return names


@runtime_checkable
class FilterPlugin(Protocol):
    """Decides whether a cluster fits (Karmada framework.FilterPlugin).

    A verdict may depend on the binding's target list (`spec.clusters`) only through whether
    this cluster is in it, and on the rest of the binding only through `verdict_key`; the
    scheduler relies on both to compute each plugin's verdicts on the fleet once per render
    and share them between bindings.
    """

    NAME: str

    def filter(self, spec: Spec, status: Status, info: ClusterInfo) -> Result: ...

    def verdict_key(self, spec: Spec, status: Status) -> Hashable:
        """What of the binding `filter` reads (whether the cluster is in the result aside):
        bindings with equal keys get equal verdicts on every cluster not in their result."""
        ...


@runtime_checkable
class ScorePlugin(Protocol):
    """Ranks a feasible cluster from MIN_CLUSTER_SCORE to MAX_CLUSTER_SCORE
    (Karmada framework.ScorePlugin)."""

    NAME: str

    def score(self, spec: Spec, info: ClusterInfo) -> int: ...


@runtime_checkable
class ScoreNormalizer(Protocol):
    """A score plugin's optional second pass over all its scores (Karmada ScoreExtensions)."""

    def normalize(self, scores: Sequence[int]) -> list[int]: ...


Plugin = FilterPlugin | ScorePlugin
PluginFactory = Callable[[], Plugin]


class Registry(Mapping[str, PluginFactory]):
    """Plugin name to factory, in registration order; a name registers once
    (Karmada runtime.Registry)."""

    def __init__(self, entries: Iterable[tuple[str, PluginFactory]] = ()) -> None:
        self._factories: dict[str, PluginFactory] = {}
        for name, factory in entries:
            self.register(name, factory)

    def register(self, name: str, factory: PluginFactory) -> None:
        if name in self._factories:
            raise ValueError(f"a plugin named {name} already exists")
        self._factories[name] = factory

    def __getitem__(self, name: str) -> PluginFactory:
        return self._factories[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._factories)

    def __len__(self) -> int:
        return len(self._factories)


@dataclasses.dataclass(frozen=True, slots=True)
class Framework:
    """The plugins of one registry, built once, split by the interfaces they satisfy."""

    filters: tuple[FilterPlugin, ...]
    scorers: tuple[tuple[ScorePlugin, ScoreNormalizer | None], ...]
    """Each score plugin with itself again when it normalizes its scores."""

    @classmethod
    def from_registry(cls, registry: Mapping[str, PluginFactory]) -> Self:
        plugins = [factory() for factory in registry.values()]
        return cls(
            filters=tuple(p for p in plugins if isinstance(p, FilterPlugin)),
            scorers=tuple(
                (p, p if isinstance(p, ScoreNormalizer) else None)
                for p in plugins
                if isinstance(p, ScorePlugin)
            ),
        )


class ScheduleError(errors.GitfleetError):
    """Scheduling failed for a reason other than "no cluster fits"; the previous result stays
    (Karmada: condition reason SchedulerError, retried)."""

    REASON = "SchedulerError"

    def wrapped(self, context: str) -> Self:
        """The same kind of error with Karmada's `context: cause` message."""
        return type(self)(f"{context}: {self}")


class UnschedulableError(ScheduleError):
    """The clusters cannot hold the replicas (Karmada framework.UnschedulableError)."""

    REASON = "Unschedulable"


NO_CLUSTER_FIT = "NoClusterFit"
"""The condition reason when no cluster passes the filters (Karmada's FitError)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Failure:
    """How a schedule failed, as values: Karmada's condition reason and the error text."""

    reason: str
    message: str

    @property
    def no_cluster_fits(self) -> bool:
        return self.reason == NO_CLUSTER_FIT

    @classmethod
    def of(cls, error: ScheduleError) -> Self:
        return cls(error.REASON, str(error))


def fit_error_message(num_all_clusters: int, failures: Mapping[str, Result]) -> str:
    """Karmada's FitError text: `0/N clusters are available: <count> <reason>, ...`, the
    entries sorted as strings (framework/types.go FitError.Error)."""
    if num_all_clusters == 0 or not failures:
        return f"0/{num_all_clusters} clusters are available: no cluster exists."
    counts: dict[str, int] = {}
    for result in failures.values():
        for reason in result.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
    return f"0/{num_all_clusters} clusters are available: {', '.join(histogram)}."
