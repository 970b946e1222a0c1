"""Dynamic weights and Aggregated division relative to the previous result (Karmada's
assignByDynamicStrategy, dynamicScaleUp/ScaleDown/FreshScale, dynamicDivideReplicas).

Aspects covered:
- scale-down divides the new total by the previous replicas; scale-up divides only the extra
  replicas by allocatable capacity and adds them; unchanged replicas keep the previous result;
- a previous cluster that is no longer a candidate loses its replicas to the others;
- Aggregated keeps the shortest prefix covering the replicas, previously used clusters first;
  clusters outside the prefix keep their replicas; the previous order breaks ties;
- a triggered reschedule (Fresh) divides everything by capacity plus current replicas;
- not enough capacity is Unschedulable, with Karmada's wrapped message
  (cases from Karmada's assignment_test.go and division_algorithm_test.go).
"""

from __future__ import annotations

import pytest
from scheduler_builders import candidate, divided, make_binding, targets

from gitfleet.model import work
from gitfleet.scheduler import assignment, framework

DYN, AGG = "DynamicWeight", "Aggregated"
M1, M2, M3, M4 = "member1", "member2", "member3", "member4"


def _placement(strategy: str) -> dict[str, object]:
    if strategy == AGG:
        return {"replicaScheduling": divided("Aggregated")}
    return {"replicaScheduling": divided(dynamicWeight="AvailableReplicas")}


def _divide(
    strategy: str,
    replicas: int,
    allocatable: dict[str, int],
    previous: dict[str, int],
    *,
    fresh: bool = False,
) -> dict[str, int]:
    spec = make_binding(replicas=replicas, placement=_placement(strategy), clusters=previous).spec
    chosen = [candidate(n, available=a) for n, a in allocatable.items()]
    return {n: r for n, r in assignment.divide(chosen, spec, fresh=fresh) if r}


@pytest.mark.parametrize(
    ("strategy", "replicas", "allocatable", "previous", "expected"),
    [
        pytest.param(
            DYN,
            6,
            {M1: 1, M2: 1, M3: 1},
            {M1: 2, M2: 4, M3: 6},
            {M1: 1, M2: 2, M3: 3},
            id="dyn-scale-down-12-to-6",
        ),
        pytest.param(
            DYN,
            24,
            {M1: 10, M2: 10, M3: 10},
            {M1: 2, M2: 4, M3: 6},
            {M1: 6, M2: 8, M3: 10},
            id="dyn-scale-up-12-to-24",
        ),
        pytest.param(
            AGG, 6, {M1: 1, M2: 1, M3: 1}, {M1: 4, M2: 8}, {M2: 6}, id="agg-scale-down-12-to-6"
        ),
        pytest.param(
            AGG, 8, {M1: 100, M2: 100}, {M1: 4, M2: 8}, {M2: 8}, id="agg-scale-down-12-to-8"
        ),
        pytest.param(
            AGG,
            24,
            {M1: 4, M2: 6, M3: 8},
            {M1: 4, M2: 8},
            {M1: 7, M2: 12, M3: 5},
            id="agg-scale-up-468",
        ),
        pytest.param(
            AGG,
            24,
            {M1: 6, M2: 6, M3: 20},
            {M1: 4, M2: 8},
            {M1: 10, M2: 14},
            id="agg-scale-up-6-6-20",
        ),
        pytest.param(
            AGG,
            24,
            {M1: 4, M3: 8, M4: 12},
            {M1: 4, M2: 8},
            {M1: 7, M3: 7, M4: 10},
            id="agg-scale-up-cluster-replaced",
        ),
        pytest.param(
            DYN, 12, {M1: 6, M2: 8, M3: 10}, {}, {M1: 3, M2: 4, M3: 5}, id="scaleup-dyn-6-8-10"
        ),
        pytest.param(
            DYN, 12, {M1: 8, M2: 8, M3: 10}, {}, {M1: 4, M2: 4, M3: 4}, id="scaleup-dyn-8-8-10"
        ),
        pytest.param(AGG, 12, {M1: 6, M2: 8, M3: 10}, {}, {M2: 5, M3: 7}, id="scaleup-agg-6-8-10"),
        pytest.param(AGG, 12, {M1: 12, M2: 8, M3: 10}, {}, {M1: 12}, id="scaleup-agg-12-8-10"),
        pytest.param(
            DYN,
            12,
            {M1: 3, M2: 3},
            {M1: 6, M3: 6},
            {M1: 9, M2: 3},
            id="scaleup-dyn-cluster-replaced",
        ),
        pytest.param(
            DYN,
            6,
            {M1: 0, M2: 0},
            {M1: 4, M2: 2},
            {M1: 4, M2: 2},
            id="unchanged replicas keep the result",
        ),
        pytest.param(
            AGG,
            6,
            {"a": 10, "b": 1},
            {"a": 2, "b": 2},
            {"a": 4, "b": 2},
            id="clusters outside the prefix keep theirs",
        ),
        pytest.param(
            AGG,
            3,
            {M1: 9, M2: 9},
            {M2: 3, M1: 3},
            {M2: 3},
            id="previous order breaks ties (m2 first)",
        ),
        pytest.param(
            AGG,
            3,
            {M1: 9, M2: 9},
            {M1: 3, M2: 3},
            {M1: 3},
            id="previous order breaks ties (m1 first)",
        ),
    ],
)
def test_steady_division(
    strategy: str,
    replicas: int,
    allocatable: dict[str, int],
    previous: dict[str, int],
    expected: dict[str, int],
) -> None:
    assert _divide(strategy, replicas, allocatable, previous) == expected


@pytest.mark.parametrize(
    ("strategy", "replicas", "allocatable", "previous", "steady", "fresh"),
    [
        pytest.param(
            DYN,
            6,
            {M1: 0, M2: 4, M3: 2},
            {M1: 4, M2: 2},
            {M1: 4, M2: 2},
            {M1: 2, M2: 3, M3: 1},
            id="dynamic weight",
        ),
        pytest.param(
            AGG,
            5,
            {M1: 0, M2: 10},
            {M1: 5},
            {M1: 5},
            {M2: 5},
            id="aggregated moves to the roomiest",
        ),
    ],
)
def test_fresh_mode_divides_everything_again(
    strategy: str,
    replicas: int,
    allocatable: dict[str, int],
    previous: dict[str, int],
    steady: dict[str, int],
    fresh: dict[str, int],
) -> None:
    assert _divide(strategy, replicas, allocatable, previous) == steady
    assert _divide(strategy, replicas, allocatable, previous, fresh=True) == fresh


@pytest.mark.parametrize(
    ("strategy", "target", "weights", "expected"),
    [
        pytest.param(
            DYN, 12, [(M1, 18), (M2, 12), (M3, 6)], {M1: 6, M2: 4, M3: 2}, id="divide-dyn-18-12-6"
        ),
        pytest.param(
            DYN, 12, [(M1, 20), (M2, 12), (M3, 6)], {M1: 6, M2: 4, M3: 2}, id="divide-dyn-20-12-6"
        ),
        pytest.param(
            DYN, 12, [(M1, 6), (M2, 12), (M3, 6)], {M1: 3, M2: 6, M3: 3}, id="divide-dyn-6-12-6"
        ),
        pytest.param(AGG, 12, [(M2, 12), (M1, 6), (M3, 6)], {M2: 12}, id="divide-agg-12-6-6"),
        pytest.param(AGG, 12, [(M1, 6), (M2, 6), (M3, 6)], {M1: 6, M2: 6}, id="divide-agg-6-6-6"),
    ],
)
def test_divide_available_list(
    strategy: str, target: int, weights: list[tuple[str, int]], expected: dict[str, int]
) -> None:
    kind = assignment.Strategy.AGGREGATED if strategy == AGG else assignment.Strategy.DYNAMIC_WEIGHT
    result = assignment.divide_dynamic(kind, target, weights)
    assert {n: r for n, r in result if r} == expected


def test_aggregated_above_twelve_equal_clusters_keeps_candidate_order() -> None:
    """Go's sort.Sort leaves an already ordered list as it is, so with equal capacity the
    first candidates in scheduling order are used."""
    names = [f"c{i:02d}" for i in range(14)]
    result = _divide(AGG, 5, dict.fromkeys(reversed(names), 2), {})
    assert result == {"c11": 2, "c12": 2, "c13": 1}, "the last three candidates, by name"


@pytest.mark.parametrize(
    ("strategy", "replicas", "allocatable", "previous", "available"),
    [
        pytest.param(
            DYN, 24, {M1: 1, M2: 1, M3: 1}, {M1: 2, M2: 4, M3: 6}, 3, id="dyn-scale-up-insufficient"
        ),
        pytest.param(
            AGG, 24, {M1: 1, M2: 1, M3: 1}, {M1: 4, M2: 8}, 3, id="agg-scale-up-insufficient"
        ),
        pytest.param(DYN, 12, {M1: 3, M2: 3, M3: 3}, {}, 9, id="scaleup-dyn-3-3-3-fail"),
    ],
)
def test_not_enough_capacity_is_unschedulable(
    strategy: str,
    replicas: int,
    allocatable: dict[str, int],
    previous: dict[str, int],
    available: int,
) -> None:
    spec = make_binding(replicas=replicas, placement=_placement(strategy), clusters=previous).spec
    chosen = [candidate(n, available=a) for n, a in allocatable.items()]
    with pytest.raises(framework.UnschedulableError) as caught:
        assignment.assign_replicas(
            chosen, spec, work.ResourceBindingStatus(), fresh=False, trace=[]
        )
    assert str(caught.value) == (
        f"failed to scale up: Clusters available replicas {available} are not enough to schedule."
    )


def test_trace_records_the_arithmetic() -> None:
    spec = make_binding(replicas=5, placement=_placement(DYN), clusters={M1: 2}).spec
    steps: list[str] = []
    result = assignment.assign_replicas(
        [candidate(M1, available=4), candidate(M2, available=4)],
        spec,
        work.ResourceBindingStatus(),
        fresh=False,
        trace=steps,
    )
    assert targets(result) == {M1: 4, M2: 1}
    assert steps == [
        "strategy DynamicWeight, 5 replicas, Steady mode",
        "previous result on candidates: member1=2 (sum 2)",
        "scale up by 3: weights are the allocatable replicas",
        "Webster(3) over member1=4, member2=4 -> member1=2, member2=1",
        "added to previous result: member1=4, member2=1",
    ]
