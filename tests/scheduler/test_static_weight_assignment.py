"""Static weights and duplication (Karmada's assignByStaticWeightStrategy,
assignByDuplicatedStrategy and AssignReplicas).

Aspects covered:
- Webster over static weights; the largest matching rule wins; unmatched clusters are left out;
  all clusters weigh 1 when nothing matches, when the weights' int64 total wraps to 0, or when
  there is no weightPreference;
- rules match by name, label or field selector (ClusterAffinity semantics);
- the previous result plays no part; zero-replica clusters are dropped from the final result;
- Duplicated gives every cluster all replicas; resources without replicas go everywhere
  (cases from Karmada's assignment_test.go and generic_scheduler_test.go).
"""

from __future__ import annotations

from typing import Any

import pytest
from scheduler_builders import candidate, divided, make_binding, make_cluster, static, targets

from gitfleet.model import work
from gitfleet.scheduler import assignment

M1, M2, M3, M4 = "member1", "member2", "member3", "member4"


def _rules(*rules: tuple[list[str], int]) -> list[dict[str, Any]]:
    return [{"targetCluster": {"clusterNames": names}, "weight": w} for names, w in rules]


@pytest.mark.parametrize(
    ("replicas", "rules", "expected"),
    [
        pytest.param(
            12, _rules(([M1], 3), ([M2], 2), ([M3], 1)), {M1: 6, M2: 4, M3: 2}, id="static-12-321"
        ),
        pytest.param(12, None, {M1: 4, M2: 4, M3: 4}, id="static-12-default-weight"),
        pytest.param(
            13, _rules(([M1], 3), ([M2], 2), ([M3], 1)), {M1: 7, M2: 4, M3: 2}, id="static-13-321"
        ),
        pytest.param(
            14, _rules(([M1], 3), ([M2], 2), ([M3], 1)), {M1: 7, M2: 5, M3: 2}, id="static-14-321"
        ),
        pytest.param(
            0,
            _rules(([M1], 1), ([M2], 1), ([M3], 1)),
            {M1: 0, M2: 0, M3: 0},
            id="static-0-replicas",
        ),
        pytest.param(2, _rules(([M1], 1)), {M1: 2}, id="static-unweighted-ignored"),
        pytest.param(
            3,
            _rules(([M1], 1), ([M2], 1), ([M1], 2)),
            {M1: 2, M2: 1},
            id="static-multiple-rules-max",
        ),
        pytest.param(
            4,
            _rules(([M1, M2], 1), ([M3], 2)),
            {M1: 1, M2: 1, M3: 2},
            id="one rule weighs several clusters",
        ),
        pytest.param(
            3, _rules((["elsewhere"], 5)), {M1: 1, M2: 1, M3: 1}, id="no rule matches: all weigh 1"
        ),
    ],
)
def test_static_weights_raw(
    replicas: int, rules: list[Any] | None, expected: dict[str, int]
) -> None:
    rs = divided() if rules is None else divided(staticWeightList=rules)
    spec = make_binding(replicas=replicas, placement={"replicaScheduling": rs}).spec
    raw = dict(assignment.divide([candidate(M1), candidate(M2), candidate(M3)], spec))
    assert raw == expected


@pytest.mark.parametrize(
    ("replicas", "weights", "expected"),
    [
        pytest.param(3, {M1: 1, M2: 1}, {M1: 2, M2: 1}, id="assign-static-3-11"),
        pytest.param(5, {M1: 1, M2: 1, M3: 1}, {M1: 2, M2: 2, M3: 1}, id="assign-static-5-111"),
        pytest.param(
            7, {M1: 2, M2: 1, M3: 1, M4: 1}, {M1: 3, M2: 2, M3: 1, M4: 1}, id="assign-static-7-2111"
        ),
        pytest.param(
            8, {M1: 2, M2: 1, M3: 1, M4: 1}, {M1: 3, M2: 2, M3: 2, M4: 1}, id="assign-static-8-2111"
        ),
        pytest.param(
            9, {M1: 2, M2: 1, M3: 1, M4: 1}, {M1: 3, M2: 2, M3: 2, M4: 2}, id="assign-static-9-2111"
        ),
        pytest.param(
            6, {M1: 1, M2: 1, M3: 1, M4: 1}, {M1: 2, M2: 2, M3: 1, M4: 1}, id="assign-static-6-1111"
        ),
        pytest.param(
            6, {M1: 2, M2: 1, M3: 1, M4: 1}, {M1: 3, M2: 1, M3: 1, M4: 1}, id="assign-static-6-2111"
        ),
        pytest.param(
            5, {M1: 1, M2: 1, M3: 1, M4: 1}, {M1: 2, M2: 1, M3: 1, M4: 1}, id="assign-static-5-1111"
        ),
        pytest.param(6, {M1: 1, M2: 1, M3: 1}, {M1: 2, M2: 2, M3: 2}, id="assign-static-6-111"),
        pytest.param(1, {M1: 1, M2: 1, M3: 1}, {M1: 1}, id="zero-replica clusters dropped"),
        pytest.param(
            10,
            {M1: 2**63 - 1, M2: 2**63 - 1, M3: 2},
            {M1: 4, M2: 3, M3: 3},
            id="weights whose int64 total wraps to 0: all weigh 1",
        ),
    ],
)
def test_static_weights_final(
    replicas: int, weights: dict[str, int], expected: dict[str, int]
) -> None:
    spec = make_binding(replicas=replicas, placement={"replicaScheduling": static(weights)}).spec
    chosen = [candidate(n) for n in weights]
    result = assignment.assign_replicas(
        chosen, spec, work.ResourceBindingStatus(), fresh=False, trace=[]
    )
    assert targets(result) == expected


def test_static_weights_ignore_the_previous_result() -> None:
    """Karmada: "static weighted 1:1:1, change replicas from 3 to 5" gives a fresh 5's split."""
    placement = {"replicaScheduling": static({M1: 1, M2: 1, M3: 1})}
    before = make_binding(replicas=5, placement=placement).spec
    after = make_binding(replicas=5, placement=placement, clusters={M1: 1, M2: 1, M3: 3}).spec
    chosen = [candidate(M1), candidate(M2), candidate(M3)]
    assert assignment.divide(chosen, before) == assignment.divide(chosen, after)


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        pytest.param(
            {"labelSelector": {"matchLabels": {"env": "prod"}}}, {"a": 3, "b": 1}, id="by label"
        ),
        pytest.param(
            {
                "fieldSelector": {
                    "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]
                }
            },
            {"a": 3, "b": 1},
            id="by region field",
        ),
        pytest.param(
            {"clusterNames": ["a", "b"], "exclude": ["b"]}, {"a": 3, "b": 1}, id="exclude wins"
        ),
    ],
)
def test_static_weight_rules_match_as_cluster_affinity(
    target: dict[str, Any], expected: dict[str, int]
) -> None:
    a = make_cluster("a", labels={"env": "prod"}, region="eu")
    b = make_cluster("b", labels={"env": "dev"}, region="us")
    rules = [
        {"targetCluster": target, "weight": 3},
        {"targetCluster": {"clusterNames": ["b"]}, "weight": 1},
    ]
    spec = make_binding(
        replicas=4, placement={"replicaScheduling": divided(staticWeightList=rules)}
    ).spec
    assert dict(assignment.divide([candidate("a", of=a), candidate("b", of=b)], spec)) == expected


@pytest.mark.parametrize(
    ("replicas", "requests", "expected"),
    [
        pytest.param(2, None, {M1: 2, M2: 2}, id="duplicated-2"),
        pytest.param(0, None, {M1: 0, M2: 0}, id="no replicas: every cluster, none dropped"),
        pytest.param(0, {"cpu": "1"}, {}, id="0 replicas with requests: empty placement"),
    ],
)
def test_duplicated(
    replicas: int, requests: dict[str, str] | None, expected: dict[str, int]
) -> None:
    spec = make_binding(replicas=replicas, requests=requests).spec
    result = assignment.assign_replicas(
        [candidate(M1), candidate(M2)], spec, work.ResourceBindingStatus(), fresh=False, trace=[]
    )
    assert targets(result) == expected
