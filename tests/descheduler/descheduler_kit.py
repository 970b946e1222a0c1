"""Builders for the descheduler tests: a three-cluster fleet with a Deployment divided over it,
reports of its unschedulable pods at given seconds after T0, and placements run through
`pipeline.place` with them."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from builders import (
    DYNAMIC_WEIGHT,
    make_cluster,
    make_deployment,
    make_policy,
    object_set,
    previous_map,
    selector,
)

from gitfleet import failover, interpreter, pipeline
from gitfleet.detector import detection
from gitfleet.model import loaded, replicas, work
from gitfleet.model.template import ResourceKey

T0 = datetime.datetime(2026, 3, 1, 12, 0, 0, tzinfo=datetime.UTC)
"""A multiple of every interval the tests use."""
WEB = ResourceKey("apps/v1", "Deployment", "shop", "web")
WEB_REF = detection.BindingRef("ResourceBinding", "shop", "web-deployment")
SETTINGS = loaded.DeschedulerSettings()
CLUSTERS = ("m1", "m2", "m3")


def at(seconds: float) -> str:
    moment = T0 + datetime.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fleet_docs(
    replicas: int = 6,
    placement: Mapping[str, Any] = DYNAMIC_WEIGHT,
    full: tuple[str, ...] = (),
    kind: str = "Deployment",
) -> list[dict[str, Any]]:
    """Deployment shop/web over m1..m3 (8 CPUs each, none left on the clusters in `full`)."""
    workload = make_deployment("web", replicas=replicas)
    workload["kind"] = kind
    policy = make_policy(
        "web",
        selector(kind=kind, name="web"),
        placement={"clusterAffinity": {"clusterNames": list(CLUSTERS)}, **placement},
    )
    clusters = [make_cluster(n, cpu="0" if n in full else "8") for n in CLUSTERS]
    return [workload, policy, *clusters]


def workload(ready: int | None, *pending: tuple[float, int]) -> replicas.WorkloadReplicas:
    """`ready` replicas, and for each (seconds, n): n pods unschedulable since T0 + seconds."""
    return replicas.WorkloadReplicas(
        ready=ready, unschedulable=tuple(replicas.Pending(at(s), n) for s, n in pending)
    )


def snapshot(
    now: float, found: Mapping[str, replicas.WorkloadReplicas], *, current: bool = True
) -> failover.Observed:
    """Every cluster reported at `now`; those in `found` with the web workload's replicas."""
    return failover.Observed(
        at=at(now),
        reports={
            n: failover.Report(
                heartbeat=at(now),
                current=current,
                replicas={WEB: found[n]} if n in found else {},
            )
            for n in CLUSTERS
        },
    )


def place(
    docs: list[dict[str, Any]],
    previous: pipeline.Placement | None = None,
    observed: failover.Observed | None = None,
    settings: loaded.DeschedulerSettings = SETTINGS,
) -> pipeline.Placement:
    prior = previous_map(previous.bindings if previous else None)
    return pipeline.place(
        object_set(docs),
        interpreter.Interpreter(),
        prior,
        observed=observed,
        deschedule=settings,
        now=observed.at if observed is not None else at(0),
    )


def web(result: pipeline.Placement) -> work.ResourceBinding:
    found = next((b for b in result.bindings if detection.BindingRef.of(b) == WEB_REF), None)
    assert isinstance(found, work.ResourceBinding)
    return found


def placed(binding: work.ResourceBinding | work.ClusterResourceBinding) -> dict[str, int]:
    return {t.name: t.replicas for t in binding.spec.clusters}
