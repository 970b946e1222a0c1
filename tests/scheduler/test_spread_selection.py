"""Choosing clusters by spread constraints (Karmada's spreadconstraint package).

Aspects covered:
- candidates are ordered by overflow tier, score desc, available desc, name;
- cluster spread: the first maxGroups, swapping slots for roomier clusters when the replicas
  do not fit (Divided), capacity ignored for Duplicated; minGroups and maxGroups 0 as Karmada;
- static weights ignore spread constraints; spreading by label only is an error;
- region spread: region scores (Karmada's calcGroupScore examples), the region search and its
  ranking (select_groups_test.go), the best cluster per region then the fill
  (cases from Karmada's select_clusters_test.go, select_clusters_by_region_test.go);
- a region minGroups of 0: the score's int64 product wraps to 0 as Go's does, so paths of
  more regions weigh more (a case Karmada's scheduler answered, bench/karmada_oracle.go).
"""

from __future__ import annotations

from typing import Any

import pytest
from scheduler_builders import (
    candidate,
    divided,
    dynamic,
    make_binding,
    make_cluster,
    make_placement,
    spread_by,
    summary,
    targets,
)

from gitfleet.scheduler import _groups, framework, schedule, spread

FOUR = [("member4", 60, 50), ("member2", 40, 60), ("member3", 30, 80), ("member1", 20, 40)]


def _groups_of(rows: list[tuple[str, int, int]]) -> spread.Groups:
    return spread.Groups(clusters=tuple(candidate(n, score=s, available=a) for n, s, a in rows))


def _select(
    replica_scheduling: dict[str, Any] | None,
    constraint: dict[str, Any],
    need: int,
    rows: list[tuple[str, int, int]],
) -> list[str]:
    extra = {"replicaScheduling": replica_scheduling} if replica_scheduling else {}
    placement = make_placement(spreadConstraints=[constraint], **extra)
    return [c.name for c in spread.select_best_clusters(placement, _groups_of(rows), need).clusters]


RAW_DIVIDED = {"replicaSchedulingType": "Divided"}
"""As Karmada's tests write it: no division preference."""
STATIC = divided(staticWeightList=[{"targetCluster": {"clusterNames": ["member1"]}, "weight": 2}])


@pytest.mark.parametrize(
    ("replica_scheduling", "constraint", "need", "rows", "expected"),
    [
        pytest.param(
            None,
            spread_by("cluster", 1, 2),
            100,
            FOUR,
            ["member4", "member2"],
            id="spread-cluster-ignore-resources",
        ),
        pytest.param(
            STATIC,
            spread_by("cluster", 1, 2),
            120,
            FOUR,
            ["member4", "member2", "member3", "member1"],
            id="spread-cluster-static-weight-ignores-spread",
        ),
        pytest.param(
            RAW_DIVIDED,
            spread_by("cluster", 1, 2),
            120,
            FOUR,
            ["member4", "member3"],
            id="spread-cluster-swap-for-resources",
        ),
        pytest.param(
            None,
            spread_by("cluster", 0, 1),
            0,
            [("cluster2", 20, 0), ("cluster3", 15, 0), ("cluster1", 10, 0)],
            ["cluster2"],
            id="spread-top1-by-score",
        ),
        pytest.param(
            divided(dynamicWeight="AvailableReplicas"),
            spread_by("cluster", 1, 3),
            120,
            FOUR,
            ["member4", "member2", "member3"],
            id="enough without swapping",
        ),
        pytest.param(
            divided(dynamicWeight="AvailableReplicas"),
            spread_by("cluster", 1, 2),
            135,
            FOUR,
            ["member2", "member3"],
            id="swaps from the last slot to the first",
        ),
        pytest.param(
            divided(dynamicWeight="AvailableReplicas"),
            spread_by("cluster", 1, 9),
            0,
            FOUR,
            ["member4", "member2", "member3", "member1"],
            id="maxGroups above the count: all",
        ),
        pytest.param(
            None,
            {"spreadByField": "cluster", "minGroups": 1},
            0,
            FOUR,
            [],
            id="maxGroups 0 selects nothing (Karmada)",
        ),
    ],
)
def test_select_by_cluster(
    replica_scheduling: Any, constraint: dict[str, Any], need: int, rows: Any, expected: list[str]
) -> None:
    assert _select(replica_scheduling, constraint, need, rows) == expected


@pytest.mark.parametrize(
    ("replica_scheduling", "constraint", "need", "message"),
    [
        pytest.param(
            RAW_DIVIDED,
            spread_by("cluster", 1, 2),
            200,
            "no enough resource when selecting 2 clusters",
            id="spread-cluster-insufficient",
        ),
        pytest.param(
            None,
            spread_by("cluster", 7, 7),
            30,
            "the number of feasible clusters is less than spreadConstraint.MinGroups",
            id="spread-cluster-min-groups",
        ),
        pytest.param(
            RAW_DIVIDED,
            {"spreadByField": "cluster", "minGroups": 1},
            1,
            "no enough resource when selecting 0 clusters",
            id="maxGroups 0 with replicas to place",
        ),
        pytest.param(
            None,
            {"spreadByLabel": "team", "minGroups": 1},
            1,
            "just support cluster and region spread constraint",
            id="spread by label only",
        ),
    ],
)
def test_selection_errors(
    replica_scheduling: Any, constraint: dict[str, Any], need: int, message: str
) -> None:
    with pytest.raises(spread.SelectionError) as caught:
        _select(replica_scheduling, constraint, need, FOUR)
    assert str(caught.value) == message
    assert isinstance(caught.value, framework.ScheduleError)


def _regions(spec: dict[str, tuple[int, list[tuple[str, int, int]]]]) -> dict[str, spread.Region]:
    return {
        name: spread.Region(
            name, score, tuple(candidate(n, score=s, available=a) for n, s, a in rows)
        )
        for name, (score, rows) in spec.items()
    }


TWO_REGIONS = {
    "R1": (100, [("member1", 100, 40), ("member2", 80, 40)]),
    "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
}
FOUR_REGIONS = {
    "R1": (90, [("member1", 90, 40)]),
    "R2": (70, [("member2", 70, 40), ("member3", 60, 40), ("member4", 30, 40)]),
    "R3": (80, [("member5", 80, 40), ("member6", 50, 60)]),
    "R4": (
        50,
        [("member7", 50, 50), ("member8", 40, 50), ("member9", 10, 50), ("member10", 0, 50)],
    ),
}
FIVE_REGIONS = {
    "R1": (70, [("member1", 70, 40)]),
    "R2": (40, [("member2", 40, 40), ("member3", 40, 40), ("member4", 40, 40)]),
    "R3": (60, [("member5", 60, 40), ("member6", 50, 60)]),
    "R4": (70, [("member7", 70, 100)]),
    "R5": (50, [("member8", 50, 50)]),
}


@pytest.mark.parametrize(
    ("regions", "region", "cluster", "expected"),
    [
        pytest.param(
            TWO_REGIONS, (1, 1), (2, 2), ["member1", "member2"], id="spread-region-best-score"
        ),
        pytest.param(
            TWO_REGIONS,
            (1, 1),
            (3, 3),
            ["member3", "member4", "member5"],
            id="spread-region-enough-clusters",
        ),
        pytest.param(
            FOUR_REGIONS,
            (2, 2),
            (4, 5),
            ["member1", "member2", "member3", "member4"],
            id="spread-region-two-regions",
        ),
        pytest.param(
            FIVE_REGIONS,
            (1, 3),
            (6, 8),
            ["member1", "member5", "member2", "member6", "member3", "member4"],
            id="spread-region-more-than-min",
        ),
        pytest.param(
            TWO_REGIONS,
            (2, 2),
            (1, 1),
            ["member1", "member3"],
            id="cluster maxGroups below regions: one per region",
        ),
    ],
)
def test_select_by_region(
    regions: Any, region: tuple[int, int], cluster: tuple[int, int], expected: list[str]
) -> None:
    chosen = spread.select_by_region(
        _regions(regions),
        make_placement(spreadConstraints=[spread_by("region", *region)]).spread_constraints[0],
        make_placement(spreadConstraints=[spread_by("cluster", *cluster)]).spread_constraints[0],
    )
    assert [c.name for c in chosen.clusters] == expected


@pytest.mark.parametrize(
    ("region", "cluster", "message"),
    [
        pytest.param(
            (3, 3),
            (1, 1),
            "the number of feasible region is less than spreadConstraint.MinGroups",
            id="too few regions",
        ),
        pytest.param(
            (1, 1),
            (9, 9),
            "the number of clusters is less than the cluster spreadConstraint.MinGroups",
            id="too few clusters",
        ),
    ],
)
def test_region_selection_errors(
    region: tuple[int, int], cluster: tuple[int, int], message: str
) -> None:
    with pytest.raises(spread.SelectionError) as caught:
        spread.select_by_region(
            _regions(TWO_REGIONS),
            make_placement(spreadConstraints=[spread_by("region", *region)]).spread_constraints[0],
            make_placement(spreadConstraints=[spread_by("cluster", *cluster)]).spread_constraints[
                0
            ],
        )
    assert str(caught.value) == message


G = _groups.Group


@pytest.mark.parametrize(
    ("groups", "minimum", "maximum", "target", "expected"),
    [
        pytest.param([], 2, 3, 1, [], id="empty groups"),
        pytest.param([G("R1", 1, 80)], 2, 3, 1, [], id="no enough groups"),
        pytest.param([G("R1", 1, 80), G("R2", 2, 30)], 2, 3, 4, [], id="no enough value"),
        pytest.param([G("R1", 1, 80)], 1, 3, 1, ["R1"], id="select one group"),
        pytest.param(
            [
                G("R1", 1, 80),
                G("R3", 1, 80),
                G("R2", 1, 60),
                G("R5", 2, 60),
                G("R4", 5, 50),
                G("R6", 3, 50),
            ],
            1,
            3,
            10,
            ["R5", "R4", "R6"],
            id="prioritize one path",
        ),
        pytest.param(
            [
                G("R1", 1, 80),
                G("R2", 4, 40),
                G("R3", 1, 30),
                G("R4", 3, 30),
                G("R5", 3, 20),
                G("R6", 5, 10),
            ],
            2,
            6,
            5,
            ["R1", "R2"],
            id="select groups with less total number",
        ),
        pytest.param(
            [
                G("R1", 1, 60),
                G("R2", 1, 50),
                G("R3", 1, 40),
                G("R4", 3, 30),
                G("R5", 3, 20),
                G("R6", 3, 10),
            ],
            1,
            3,
            6,
            ["R1", "R4", "R5"],
            id="select groups with the highest score",
        ),
        pytest.param(
            [G("R1", 1, 60), G("R2", 2, 50), G("R3", 3, 40), G("R4", 4, 30)],
            1,
            2,
            5,
            ["R1", "R4"],
            id="select groups that are chosen earlier",
        ),
        pytest.param(
            [G("R4", 1, 60), G("R3", 3, 50), G("R1", 3, 40), G("R2", 4, 30)],
            1,
            2,
            5,
            ["R3", "R1"],
            id="select groups with greater value",
        ),
        pytest.param(
            [G("R1", 2, 10), G("R2", 2, 90)],
            2,
            2,
            1,
            ["R2", "R1"],
            id="exactly min groups: one branch",
        ),
    ],
)
def test_select_groups(
    groups: list[_groups.Group], minimum: int, maximum: int, target: int, expected: list[str]
) -> None:
    assert [g.name for g in _groups.select_groups(groups, minimum, maximum, target)] == expected


def _region_score(replicas: int, rows: list[tuple[int, int]], placement: dict[str, Any]) -> int:
    spec = make_binding(replicas=replicas, placement=placement).spec
    assert spec.placement is not None
    cands = [
        candidate(f"m{i}", score=s, available=a, of=make_cluster(f"m{i}", region="R"))
        for i, (s, a) in enumerate(rows)
    ]
    return spread.group_candidates(cands, spec.placement, spec).regions["R"].score


DUPLICATED = {"spreadConstraints": [spread_by("region", 1, 1), spread_by("cluster", 1, 5)]}
DIVIDED = {
    "spreadConstraints": [spread_by("region", 2, 2), spread_by("cluster", 1, 5)],
    "replicaScheduling": divided(dynamicWeight="AvailableReplicas"),
}


@pytest.mark.parametrize(
    ("replicas", "rows", "placement", "expected"),
    [
        pytest.param(
            50,
            [(100, 60), (100, 70), (100, 40), (100, 30), (100, 10)],
            DUPLICATED,
            2100,
            id="duplicated: 2 fit, avg 100",
        ),
        pytest.param(
            50,
            [(0, 60), (0, 60), (0, 60), (0, 60)],
            DUPLICATED,
            4000,
            id="duplicated: 4 fit, avg 0",
        ),
        pytest.param(50, [(0, 10)], DUPLICATED, 0, id="duplicated: none fits"),
        pytest.param(
            100,
            [(100, 10), (100, 10), (100, 10), (100, 10), (100, 5)],
            DIVIDED,
            45100,
            id="divided: short of target",
        ),
        pytest.param(
            100, [(0, 40), (0, 30), (0, 10), (0, 10)], DIVIDED, 50000, id="divided: target reached"
        ),
        pytest.param(
            100,
            [(100, 40), (100, 40), (100, 10), (100, 10), (100, 5)],
            DIVIDED,
            50100,
            id="divided: balance breaks the tie",
        ),
        pytest.param(
            100,
            [(100, 40), (0, 30), (0, 10)],
            {
                "spreadConstraints": [spread_by("region", 0, 2), spread_by("cluster", 2, 5)],
                "replicaScheduling": divided(dynamicWeight="AvailableReplicas"),
            },
            50,
            id="divided, region minGroups 0: int64 minimum times 1000 wraps to 0",
        ),
    ],
)
def test_region_score(
    replicas: int, rows: list[tuple[int, int]], placement: dict[str, Any], expected: int
) -> None:
    assert _region_score(replicas, rows, placement) == expected


def test_candidates_order_by_tier_score_available_name() -> None:
    cands = [
        candidate("b", score=0, available=5),
        candidate("a", score=0, available=5),
        candidate("c", score=100, available=1),
        candidate("d", score=0, available=9),
        candidate("e", score=100, available=1, overflow_order=1),
    ]
    placement = make_placement()
    ordered = spread.group_candidates(cands, placement, make_binding().spec).clusters
    assert [c.name for c in ordered] == ["c", "d", "a", "b", "e"]


def test_region_min_groups_zero_prefers_the_path_of_more_regions() -> None:
    """Karmada's scheduler placed this (bench/karmada_oracle.go at f8fdd02, from a fresh seed
    of the extras profile, made small): with region minGroups 0 every region scores its
    clusters' average alone, so the path r2 (100, b1 ran there) + r1 (0) outweighs r1 alone,
    and b1 keeps a share."""
    clusters = [
        make_cluster(name, region=region, resource_summary=summary(cpu="8"))
        for name, region in (("a1", "r1"), ("a2", "r1"), ("b1", "r2"))
    ]
    placement = {
        "spreadConstraints": [spread_by("region", 0, 3), spread_by("cluster", 2, 3)],
        "replicaScheduling": dynamic(),
    }
    binding = make_binding(
        replicas=6, requests={"cpu": "1"}, placement=placement, clusters={"b1": 2}
    )
    outcome = schedule(binding, clusters)
    assert outcome.error is None
    assert targets(outcome.binding.spec.clusters) == {"a1": 2, "a2": 1, "b1": 3}
