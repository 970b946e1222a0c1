"""The pipeline: the stages run in order over one source revision, as pure functions.

`place` is the placement half: detect (which policy claims each template, and its binding),
schedule each binding against the clusters, then distribute dependencies to where their
workloads went (Karmada: pkg/detector, pkg/scheduler, pkg/dependenciesdistributor). It does no
I/O: the caller brings the loaded objects, the interpreter, the previous render's bindings and
the clusters' reported status.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from gitfleet import detector, interpreter, scheduler
from gitfleet.detector import detection
from gitfleet.model import cluster, diagnostic, objects, work
from gitfleet.model.template import ResourceKey

Binding = detection.Binding
BindingRef = detection.BindingRef
Dependencies = detection.Dependencies
Detection = detection.Detection


@dataclasses.dataclass(frozen=True, slots=True)
class Scheduled:
    """One binding's trip through the scheduler."""

    binding: BindingRef
    outcome: scheduler.Outcome[Any]


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """Where everything goes: the final bindings (sorted by kind, namespace, name), how each
    was scheduled, what the detector decided and which dependencies followed which workload.

    `clusters` are the clusters scheduled against (declared status superseded by reported);
    the Namespaces in `detection.auto_namespaces` go to all of them.
    """

    bindings: tuple[Binding, ...]
    schedules: tuple[Scheduled, ...]
    detection: Detection
    dependencies: tuple[Dependencies, ...]
    clusters: tuple[cluster.Cluster, ...]
    diagnostics: tuple[diagnostic.Diagnostic, ...]

    def binding(self, ref: BindingRef) -> Binding | None:
        return next((b for b in self.bindings if BindingRef.of(b) == ref), None)

    def outcome(self, ref: BindingRef) -> scheduler.Outcome[Any] | None:
        return next((s.outcome for s in self.schedules if s.binding == ref), None)


def merge_status(
    declared: cluster.ClusterStatus, reported: cluster.ClusterStatus | None
) -> cluster.ClusterStatus:
    """A cluster's status: each field reported by the cluster's agent supersedes the one
    declared in the source; fields the agent did not report keep their declared value."""
    if reported is None:
        return declared
    changes = {}
    for f in dataclasses.fields(cluster.ClusterStatus):
        value = getattr(reported, f.name)
        if value != f.default:
            changes[f.name] = value
    return dataclasses.replace(declared, **changes)


def effective_clusters(
    clusters: Iterable[cluster.Cluster],
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
) -> tuple[cluster.Cluster, ...]:
    """The clusters with their reported status merged in, sorted by name."""
    reported = cluster_status or {}
    return tuple(
        dataclasses.replace(c, status=merge_status(c.status, reported.get(c.name)))
        for c in sorted(clusters, key=lambda c: c.name)
    )


def _ref_map(bindings: Iterable[Binding]) -> dict[BindingRef, Binding]:
    return {BindingRef.of(b): b for b in bindings}


def _settled(binding: Binding, previous: Binding | None, scheduled_ok: bool) -> Binding:
    """The final generation (one more than before when the spec changed) and, for a binding the
    scheduler is content with, the observed generation Karmada's scheduler converges to."""
    final = detector.with_generation(binding, previous)
    if not scheduled_ok:
        return final
    status = dataclasses.replace(
        final.status, scheduler_observed_generation=final.metadata.generation
    )
    return dataclasses.replace(final, status=status)


def _schedule(
    binding: Binding,
    fleet: scheduler.ClusterIndex,
    previous: Binding | None,
    now: str | None,
) -> scheduler.Outcome[Any]:
    if isinstance(binding, work.ResourceBinding):
        return scheduler.schedule(binding, fleet, previous, now=now)
    return scheduler.schedule(binding, fleet, previous, now=now)


def place(
    objs: objects.ObjectSet,
    interp: interpreter.Interpreter,
    previous: Mapping[ResourceKey, Binding] | None = None,
    *,
    cluster_status: Mapping[str, cluster.ClusterStatus] | None = None,
    now: str | None = None,
) -> Placement:
    """Detect, schedule and distribute dependencies for one source revision.

    `previous` holds the previous render's bindings (claims and schedule results carry over);
    `cluster_status` the status each cluster reported, by cluster name; `now` (RFC 3339) stamps
    schedules. A binding that cannot be scheduled keeps what the scheduler leaves it (Karmada
    keeps the previous result except when no cluster fits at all), and the others go on.
    """
    clusters = effective_clusters(objs.clusters, cluster_status)
    found = detector.detect(objs, interp, previous)
    prior = _ref_map((previous or {}).values())
    fleet = scheduler.ClusterIndex(clusters)
    schedules: list[Scheduled] = []
    placed: list[Binding] = []
    for b in found.bindings:
        if b.spec.placement is None:
            placed.append(b)
            continue
        ref = BindingRef.of(b)
        outcome = _schedule(b, fleet, prior.get(ref), now)
        schedules.append(Scheduled(ref, outcome))
        placed.append(outcome.binding)
    distribution = detector.distribute_dependencies(placed, found.templates, interp, previous)
    ok = {s.binding for s in schedules if s.outcome.error is None}
    final = tuple(
        _settled(b, prior.get(BindingRef.of(b)), BindingRef.of(b) in ok)
        for b in distribution.bindings
    )
    return Placement(
        bindings=final,
        schedules=tuple(schedules),
        detection=found,
        dependencies=distribution.dependencies,
        clusters=clusters,
        diagnostics=tuple(
            diagnostic.sorted_diagnostics([*found.diagnostics, *distribution.diagnostics])
        ),
    )
