"""Properties of scheduling over generated fleets and bindings (hypothesis).

Aspects covered:
- a Divided workload that schedules gets exactly its replicas;
- static weights are divided by Webster: a divisor exists that rounds every weight to its
  replicas (max w/(2r+1) <= min w/(2r-1)), so a larger weight never gets fewer replicas;
- nothing goes to a cluster the filters rejected (affinity, or a taint on a cluster that did
  not run the resource before);
- the same inputs give the same outcome, whatever the order the clusters come in;
- bindings of different templates scheduled on one shared index (filter verdicts shared
  between placements, whole runs between bindings posing the same problem) get the outcome
  each gets on its own;
- steady scaling only adds (scale-up) or only removes (scale-down) on the clusters kept.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from scheduler_builders import (
    candidate,
    divided,
    dynamic,
    make_binding,
    make_cluster,
    summary,
    targets,
)

from gitfleet.model import cluster, work
from gitfleet.scheduler import ClusterIndex, assignment, schedule

TAINT = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
STRATEGIES = ["duplicated", "static", "dynamic", "aggregated"]


@st.composite
def fleets(draw: st.DrawFn) -> list[cluster.Cluster]:
    size = draw(st.integers(min_value=1, max_value=7))
    return [
        make_cluster(
            f"c{i}",
            labels={"env": draw(st.sampled_from(["a", "b"]))},
            region=draw(st.sampled_from(["r1", "r2"])),
            taints=[TAINT] if draw(st.booleans()) else [],
            resource_summary=summary(cpu=str(draw(st.integers(min_value=0, max_value=12)))),
        )
        for i in range(size)
    ]


def _replica_scheduling(kind: str, names: list[str], weights: list[int]) -> dict[str, Any] | None:
    if kind == "duplicated":
        return None
    if kind == "static":
        rules = [
            {"targetCluster": {"clusterNames": [n]}, "weight": w}
            for n, w in zip(names, weights, strict=False)
        ]
        return divided(staticWeightList=rules)
    if kind == "dynamic":
        return dynamic()
    return divided("Aggregated")


@st.composite
def bindings(draw: st.DrawFn, clusters: list[cluster.Cluster]) -> work.ResourceBinding:
    names = [c.name for c in clusters]
    kind = draw(st.sampled_from(STRATEGIES))
    weights = draw(
        st.lists(st.integers(min_value=1, max_value=5), min_size=len(names), max_size=len(names))
    )
    placement: dict[str, Any] = {}
    rs = _replica_scheduling(kind, names, weights)
    if rs is not None:
        placement["replicaScheduling"] = rs
    if draw(st.booleans()):
        placement["clusterAffinity"] = {"labelSelector": {"matchLabels": {"env": "a"}}}
    previous = draw(
        st.dictionaries(st.sampled_from(names), st.integers(min_value=1, max_value=5), max_size=3)
    )
    return make_binding(
        replicas=draw(st.integers(min_value=1, max_value=30)),
        requests={"cpu": "1"},
        placement=placement,
        clusters=previous,
        uid=draw(st.sampled_from(["", "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"])),
        name=draw(st.sampled_from(["web", "api"])),
        namespace=draw(st.sampled_from(["default", "shop"])),
    )


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[cluster.Cluster], work.ResourceBinding]:
    clusters = draw(fleets())
    return clusters, draw(bindings(clusters))


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_outcome_properties(
    scenario: tuple[list[cluster.Cluster], work.ResourceBinding], rnd: Any
) -> None:
    clusters, binding = scenario
    outcome = schedule(binding, clusters)
    shuffled = list(clusters)
    rnd.shuffle(shuffled)
    assert schedule(binding, shuffled) == outcome, "independent of cluster order"
    assert schedule(binding, clusters) == outcome, "deterministic"
    if outcome.error is not None:
        return
    result = targets(outcome.binding.spec.clusters)
    placement = binding.spec.placement
    assert placement is not None
    if placement.replica_scheduling is not None:
        assert sum(result.values()) == binding.spec.replicas
    previous = {t.name for t in binding.spec.clusters}
    by_name = {c.name: c for c in clusters}
    for name in result:
        c = by_name[name]
        if placement.cluster_affinity is not None:
            assert (c.metadata.labels or {}).get("env") == "a"
        assert not c.spec.taints or name in previous


@st.composite
def shared_fleets(draw: st.DrawFn) -> tuple[list[cluster.Cluster], list[work.ResourceBinding]]:
    clusters = draw(fleets())
    return clusters, draw(st.lists(bindings(clusters), min_size=2, max_size=6))


@settings(max_examples=100, deadline=None)
@given(shared_fleets())
def test_a_shared_index_gives_each_binding_its_own_outcome(
    scenario: tuple[list[cluster.Cluster], list[work.ResourceBinding]],
) -> None:
    clusters, many = scenario
    fleet = ClusterIndex(clusters)
    for binding in many:
        assert schedule(binding, fleet) == schedule(binding, clusters)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=100),
    st.booleans(),
)
def test_static_weights_are_a_webster_rounding(
    weights: list[int], replicas: int, odd_uid: bool
) -> None:
    names = [f"m{i}" for i in range(len(weights))]
    rules = [
        {"targetCluster": {"clusterNames": [n]}, "weight": w}
        for n, w in zip(names, weights, strict=True)
    ]
    uid = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c" if odd_uid else ""
    spec = make_binding(
        replicas=replicas, placement={"replicaScheduling": divided(staticWeightList=rules)}, uid=uid
    ).spec
    result = dict(assignment.divide([candidate(n) for n in names], spec))
    seats = [result[n] for n in names]
    assert sum(seats) == replicas
    if replicas:
        highest_next = max(w / (2 * s + 1) for w, s in zip(weights, seats, strict=True))
        lowest_held = min(w / (2 * s - 1) for w, s in zip(weights, seats, strict=True) if s > 0)
        assert highest_next <= lowest_held
    for (wa, sa), (wb, sb) in zip(
        zip(weights, seats, strict=True), zip(weights[1:], seats[1:], strict=True), strict=False
    ):
        if wa > wb:
            assert sa >= sb


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]), st.integers(min_value=0, max_value=9), min_size=1
    ),
    st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.integers(min_value=1, max_value=9)),
    st.integers(min_value=1, max_value=40),
    st.sampled_from(["DynamicWeight", "Aggregated"]),
)
def test_steady_scaling_is_monotonic(
    allocatable: dict[str, int], previous: dict[str, int], replicas: int, kind: str
) -> None:
    rs = dynamic() if kind == "DynamicWeight" else divided("Aggregated")
    spec = make_binding(
        replicas=replicas, placement={"replicaScheduling": rs}, clusters=previous
    ).spec
    chosen = [
        candidate(n, available=a + previous.get(n, 0), allocatable=a)
        for n, a in allocatable.items()
    ]
    kept = {n: r for n, r in previous.items() if n in allocatable}
    try:
        result = dict(assignment.divide(chosen, spec))
    except assignment.framework.UnschedulableError:
        assert sum(allocatable.values()) < replicas - sum(kept.values())
        return
    assert sum(result.values()) == replicas
    if sum(kept.values()) <= replicas:
        assert all(result.get(n, 0) >= r for n, r in kept.items())
    else:
        assert set(result) <= set(kept) and all(r <= kept[n] for n, r in result.items())


def _as_template(
    binding: work.ResourceBinding, name: str, uid: str, *, placed: bool = True
) -> work.ResourceBinding:
    """`binding` for another template: another name, namespace and UID (and, unless
    `placed`, no previous result)."""
    resource = dataclasses.replace(binding.spec.resource, name=name, namespace=name, uid=uid)
    clusters = binding.spec.clusters if placed else ()
    spec = dataclasses.replace(binding.spec, resource=resource, clusters=clusters)
    metadata = dataclasses.replace(binding.metadata, name=f"{name}-deployment", namespace=name)
    return dataclasses.replace(binding, metadata=metadata, spec=spec)


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_templates_posing_the_same_problem_get_each_its_own_outcome(
    scenario: tuple[list[cluster.Cluster], work.ResourceBinding],
) -> None:
    clusters, binding = scenario
    fleet = ClusterIndex(clusters)
    odd = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
    for other in (
        binding,
        _as_template(binding, "api", binding.spec.resource.uid),
        _as_template(binding, "db", ""),
        _as_template(binding, "cache", odd),
        _as_template(binding, "new", binding.spec.resource.uid, placed=False),
    ):
        assert schedule(other, fleet) == schedule(other, clusters)
