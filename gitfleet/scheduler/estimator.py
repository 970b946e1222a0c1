"""How many more replicas a cluster can take: Karmada's general estimator, the only one it runs
by default (Karmada: pkg/estimator/client/general.go, pkg/estimator/
scheduling_simulator_components.go, pkg/util/resource.go Resource, pkg/scheduler/core/util.go
calAvailableReplicas).

The answer comes from the cluster's `status.resourceSummary`:
1. no summary: 0;
2. pods left = allocatable - allocated - allocating pods (each rounded up); none left: 0;
3. no per-replica requirements: the pods left;
4. when the summary counts nodes per resource-model grade (`allocatableModelings`) and the
   cluster declares `spec.resourceModels`, each counted node becomes a virtual node with the
   grade's minimum of each resource and 110 pods, and replicas are packed first-fit; the
   answer is the number packed, at most the pods left. Virtual nodes have no labels or taints,
   so the node claim never excludes one;
5. otherwise, per requested resource (rounded up to a whole unit, so 100m CPU counts): free =
   allocatable - allocated - allocating; missing or nothing free: 0; CPU is divided in
   millicores, every other resource in whole units (rounded up); the smallest quotient, at
   most the pods left. When one of the three quantities is one apimachinery holds as a decimal
   (`1.5Gi`), free is a decimal too and rounds as Go's does (`_quantity.decimal_scaled`): a
   deficit beyond about 9.2e9 units wraps to a positive amount, which Karmada then counts.
A `Capacity` parses one cluster's summary once; `Request` parses one set of requirements once.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from gitfleet.interpreter import _quantity as quantity
from gitfleet.model import cluster, meta, work
from gitfleet.scheduler import framework

MAX_INT32 = 2**31 - 1
MAX_INT64 = 2**63 - 1
_NANOS_PER_UNIT, _NANOS_PER_MILLI = 10**9, 10**6
PODS_PER_VIRTUAL_NODE = 110
"""Kubernetes' default pod limit per node, which Karmada gives every virtual node."""

CPU, MEMORY, PODS, EPHEMERAL_STORAGE = "cpu", "memory", "pods", "ephemeral-storage"
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _int32(value: int) -> int:
    """Go's int32(int64) conversion."""
    return (value + 2**31) % 2**32 - 2**31


def is_scalar_resource(name: str) -> bool:
    """Extended (`vendor/name`), hugepages-*, attachable-volumes-* or `kubernetes.io/` resources:
    those Karmada's Resource type tracks besides cpu, memory, ephemeral-storage and pods
    (Kubernetes helper IsScalarResourceName)."""
    if name.startswith(("hugepages-", "attachable-volumes-")) or "kubernetes.io/" in name:
        return True
    if "/" not in name or name.startswith("requests."):
        return False
    prefix, _, rest = f"requests.{name}".partition("/")
    return (
        "/" not in rest
        and len(prefix) <= 253
        and _DNS_SUBDOMAIN.fullmatch(prefix) is not None
        and len(rest) <= 63
        and _QUALIFIED_NAME.fullmatch(rest) is not None
    )


def _units(nanos: int) -> int:
    """Whole units, rounded up away from zero (Quantity.Value)."""
    return quantity.Quantity(nanos).value()


def _millis(nanos: int) -> int:
    """Whole milliunits, rounded up away from zero (Quantity.MilliValue)."""
    return quantity.Quantity(nanos).milli_value()


def _nanos(raw: meta.Quantity, where: str) -> int:
    try:
        return quantity.parse(raw).nanos
    except ValueError as e:
        raise framework.ScheduleError(f"{where}: {e}") from e


@dataclasses.dataclass(frozen=True, slots=True)
class _Resources:
    """Karmada's util.Resource: cpu in millicores, others in whole units (rounded up)."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    pods: int = 0
    scalars: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, nanos: Mapping[str, int]) -> _Resources:
        scalars = tuple(sorted((k, _units(v)) for k, v in nanos.items() if is_scalar_resource(k)))
        return cls(
            milli_cpu=_millis(nanos.get(CPU, 0)),
            memory=_units(nanos.get(MEMORY, 0)),
            ephemeral_storage=_units(nanos.get(EPHEMERAL_STORAGE, 0)),
            pods=_units(nanos.get(PODS, 0)),
            scalars=scalars,
        )

    def max_divided(self, per_replica: _Resources) -> int:
        """How many `per_replica` fit in these resources (Resource.MaxDivided)."""
        fits = MAX_INT64
        for have, need in (
            (self.milli_cpu, per_replica.milli_cpu),
            (self.memory, per_replica.memory),
            (self.ephemeral_storage, per_replica.ephemeral_storage),
        ):
            if need > 0:
                fits = min(fits, _go_div(have, need))
        own = dict(self.scalars)
        for name, need in per_replica.scalars:
            if need > 0:
                fits = min(fits, _go_div(own.get(name, 0), need))
        return min(fits, self.pods)


def _go_div(a: int, b: int) -> int:
    """Go's integer division, truncating toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclasses.dataclass(frozen=True, slots=True)
class Request:
    """One replica's requested resources, parsed once."""

    nanos: tuple[tuple[str, int], ...]
    per_replica: _Resources

    @classmethod
    def of(cls, requirements: work.ReplicaRequirements) -> Request:
        raw = requirements.resource_request or {}
        nanos = {name: _nanos(q, f"resource request {name}") for name, q in raw.items()}
        per_replica = dataclasses.replace(_Resources.of(nanos), pods=1)
        return cls(nanos=tuple(sorted(nanos.items())), per_replica=per_replica)


def request_key(
    requirements: work.ReplicaRequirements | None,
) -> tuple[tuple[str, str], ...] | None:
    """A hashable key equal for requirements the estimator answers alike."""
    if requirements is None:
        return None
    return tuple(sorted((k, str(v)) for k, v in (requirements.resource_request or {}).items()))


class Capacity:
    """One cluster's resource summary, parsed once (GeneralEstimator.maxAvailableReplicas)."""

    __slots__ = ("allowed_pods", "decimal", "free", "has_summary", "model_nodes")

    def __init__(self, c: cluster.Cluster) -> None:
        summary = c.status.resource_summary
        self.has_summary = summary is not None
        self.allowed_pods = 0
        self.free: dict[str, int] = {}
        self.decimal: frozenset[str] = frozenset()
        self.model_nodes: list[tuple[_Resources, int]] | None = None
        if summary is None:
            return
        allocatable = self._parse(c, summary.allocatable, "allocatable")
        allocated = self._parse(c, summary.allocated, "allocated")
        allocating = self._parse(c, summary.allocating, "allocating")
        self.allowed_pods = max(
            _units(allocatable.get(PODS, 0))
            - _units(allocated.get(PODS, 0))
            - _units(allocating.get(PODS, 0)),
            0,
        )
        self.free = {
            name: value - allocated.get(name, 0) - allocating.get(name, 0)
            for name, value in allocatable.items()
        }
        parts = (summary.allocatable or {}, summary.allocated or {}, summary.allocating or {})
        self.decimal = frozenset(
            name
            for name in allocatable
            if any(name in part and quantity.decimal_backed(part[name]) for part in parts)
        )
        if summary.allocatable_modelings:
            self.model_nodes = _model_nodes(c)

    @staticmethod
    def _parse(
        c: cluster.Cluster, quantities: Mapping[str, meta.Quantity] | None, field: str
    ) -> dict[str, int]:
        return {
            name: _nanos(q, f"cluster {c.name} resourceSummary.{field}.{name}")
            for name, q in (quantities or {}).items()
        }

    def max_replicas(self, request: Request | None) -> int:
        """The estimator's answer for one replica of `request` (None: no requirements)."""
        if not self.has_summary or self.allowed_pods <= 0:
            return 0
        if request is None:
            return _int32(self.allowed_pods)
        placed = self.by_models(request)
        if placed is None:
            placed = self._by_summary(request)
        return _int32(min(self.allowed_pods, placed))

    def by_models(self, request: Request) -> int | None:
        """Replicas packed first-fit on the virtual nodes of the resource models
        (getMaximumReplicasBasedOnResourceModels); None when models do not apply."""
        if self.model_nodes is None:
            return None
        placed = sum(
            max(node.max_divided(request.per_replica), 0) * count
            for node, count in self.model_nodes
        )
        return min(placed, MAX_INT32)

    def _by_summary(self, request: Request) -> int:
        fits = MAX_INT64
        for name, asked in request.nanos:
            if _units(asked) <= 0:
                continue
            if name not in self.free:
                return 0
            if self._free(name, _NANOS_PER_UNIT) <= 0:
                return 0
            if name == CPU:
                fits = min(fits, _go_div(self._free(name, _NANOS_PER_MILLI), _millis(asked)))
            else:
                fits = min(fits, _go_div(self._free(name, _NANOS_PER_UNIT), _units(asked)))
        return fits

    def _free(self, name: str, unit_nanos: int) -> int:
        """What is free of `name` in units of `unit_nanos` nanos, rounded as the Go Quantity
        that `allocatable - allocated - allocating` leaves would round."""
        free = self.free[name]
        if name in self.decimal:
            return quantity.decimal_scaled(free, unit_nanos)
        return _units(free) if unit_nanos == _NANOS_PER_UNIT else _millis(free)


def _model_nodes(c: cluster.Cluster) -> list[tuple[_Resources, int]] | None:
    """Virtual nodes and how many of each, grades ascending (buildModelNodes); None when
    Karmada's would fail and fall back to the summary. First-fit packing of identical
    replicas fills every node to its own limit, so the count multiplies."""
    summary = c.status.resource_summary
    if summary is None:
        return None
    templates: dict[int, _Resources] = {}
    for model in cluster.standard_resource_models(c.spec.resource_models):
        mins = {
            r.name: _nanos(r.min, f"cluster {c.name} resourceModels {r.name}") for r in model.ranges
        }
        templates[model.grade] = dataclasses.replace(
            _Resources.of(mins), pods=PODS_PER_VIRTUAL_NODE
        )
    counts: dict[int, int] = {}
    for modeling in summary.allocatable_modelings:
        if modeling.count < 0:
            return None
        counts[modeling.grade] = counts.get(modeling.grade, 0) + modeling.count
    return [(templates[g], counts[g]) for g in sorted(templates) if counts.get(g, 0)]


def by_resource_models(c: cluster.Cluster, requirements: work.ReplicaRequirements | None) -> bool:
    """Whether the general estimator answers for `c` by packing replicas onto the virtual nodes
    of its resource models (else by its summary, or by its pods left alone), for `explain`
    to say so."""
    found = Capacity(c)
    return requirements is not None and found.allowed_pods > 0 and found.model_nodes is not None


def max_available_replicas(
    c: cluster.Cluster, requirements: work.ReplicaRequirements | None
) -> int:
    """The general estimator's answer for one cluster."""
    return Capacity(c).max_replicas(None if requirements is None else Request.of(requirements))
