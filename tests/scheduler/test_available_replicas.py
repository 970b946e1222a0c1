"""How many replicas a cluster can still take: Karmada's general estimator.

Aspects covered:
- no summary or no pods left: 0; no requirements: the pods left;
- per requested resource: free = allocatable - allocated - allocating, CPU in millicores,
  others in whole units rounded up (so 100m counts), a missing resource gives 0; a free
  amount apimachinery holds as a decimal (`1.5Gi` minus anything) rounds as Go's Quantity
  does, a large deficit wrapping to a positive amount as it does in Karmada;
- resource models: one virtual node per counted node of each grade with the grade's minimums
  and 110 pods, first-fit packing, at most the pods left; falls back to the summary when the
  models cannot be used; which names count as scalar resources
  (cases from Karmada's general_test.go); the models as Karmada stores them (its default
  grades when none are declared, the first grade from 0, any order).
"""

from __future__ import annotations

from typing import Any

import pytest
from scheduler_builders import make_binding, make_cluster, summary

from gitfleet.scheduler import estimator, framework


def _estimate(
    resource_summary: dict[str, Any] | None, request: dict[str, Any] | None, **cluster: Any
) -> int:
    c = make_cluster("member", resource_summary=resource_summary, **cluster)
    requirements = (
        None if request is None else make_binding(requests=request).spec.replica_requirements
    )
    return estimator.max_available_replicas(c, requirements)


@pytest.mark.parametrize(
    ("resource_summary", "asked", "expected"),
    [
        pytest.param(None, None, 0, id="est-no-summary"),
        pytest.param(
            {"allocatable": {"pods": "10"}, "allocated": {"pods": "10"}},
            None,
            0,
            id="est-no-pods-left",
        ),
        pytest.param({"allocatable": {"pods": "10"}}, None, 10, id="est-no-requirements"),
        pytest.param(
            {
                "allocatable": {"pods": "100", "cpu": "4", "memory": "8Gi"},
                "allocated": {"pods": "20", "cpu": "1", "memory": "2Gi"},
            },
            {"cpu": "500m", "memory": "1Gi"},
            6,
            id="est-basic",
        ),
        pytest.param(
            {
                "allocatable": {"pods": "110", "cpu": "4", "memory": "2Gi"},
                "allocated": {"cpu": "1", "memory": "1.5Gi"},
            },
            {"cpu": "500m", "memory": "1Gi"},
            0,
            id="est-insufficient-memory",
        ),
        pytest.param(
            {
                "allocatable": {"pods": "100"},
                "allocated": {"pods": "40"},
                "allocating": {"pods": "10"},
            },
            None,
            50,
            id="est-pods-formula",
        ),
        pytest.param(
            summary(cpu="2", allocated={"cpu": "500m"}),
            {"cpu": "300m"},
            5,
            id="cpu divided in millicores",
        ),
        pytest.param(summary(cpu="4"), {"cpu": "100m"}, 40, id="a tenth of a core counts"),
        pytest.param(summary(pods=3, cpu="64"), {"cpu": "1"}, 3, id="pods left bound the answer"),
        pytest.param(
            summary(cpu="4", allocating={"cpu": "3", "pods": 100}),
            {"cpu": "1"},
            1,
            id="allocating subtracted",
        ),
        pytest.param(
            summary(cpu="4", allocated={"cpu": "5"}), {"cpu": "1"}, 0, id="overcommitted: 0"
        ),
        pytest.param(summary(), {"nvidia.com/gpu": "1"}, 0, id="resource the cluster lacks: 0"),
        pytest.param(
            summary(**{"nvidia.com/gpu": "4"}),
            {"nvidia.com/gpu": "1", "cpu": "1"},
            4,
            id="extended resource",
        ),
        pytest.param(
            summary(cpu="1"), {"cpu": "0", "memory": "1Gi"}, 32, id="zero request ignored"
        ),
        pytest.param(
            summary(memory="1Ki"), {"memory": "100m"}, 110, id="memory rounded up to whole bytes"
        ),
        pytest.param(
            summary(memory="1.5Gi", allocated={"memory": "79Gi"}),
            {"memory": "1e9"},
            9,
            id="a decimal-backed deficit beyond int64 nanos wraps positive (Karmada gives 9)",
        ),
        pytest.param(
            summary(memory="0.3Ki", allocated={"memory": "308"}),
            {"memory": "1"},
            1,
            id="a decimal-backed deficit under one unit rounds up to 1 (Karmada gives 1)",
        ),
        pytest.param(
            summary(memory="1.5Gi", allocated={"memory": "3Gi"}),
            {"memory": "1"},
            0,
            id="a whole decimal-backed deficit stays a deficit (Karmada gives 0)",
        ),
    ],
)
def test_general_estimator(
    resource_summary: dict[str, Any] | None, asked: dict[str, Any] | None, expected: int
) -> None:
    assert _estimate(resource_summary, asked) == expected


CPU_GRADES = [
    {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "1"}]},
    {"grade": 1, "ranges": [{"name": "cpu", "min": "1", "max": "2"}]},
    {"grade": 2, "ranges": [{"name": "cpu", "min": "2", "max": "4"}]},
]
ONE_EACH = [{"grade": 0, "count": 1}, {"grade": 1, "count": 1}, {"grade": 2, "count": 1}]


def _models(
    modelings: list[dict[str, Any]],
    request: dict[str, Any],
    models: list[Any] | None = None,
    pods: int = 110,
) -> int:
    resource_summary = summary(pods=pods, cpu="100", memory="100Gi") | {
        "allocatableModelings": modelings
    }
    return _estimate(
        resource_summary, request, resource_models=CPU_GRADES if models is None else models
    )


@pytest.mark.parametrize(
    ("modelings", "asked", "models", "pods", "expected"),
    [
        pytest.param(ONE_EACH, {"cpu": "1.5"}, None, 110, 1, id="est-models-partial"),
        pytest.param(ONE_EACH, {"cpu": "3"}, None, 110, 0, id="est-models-none-fit"),
        pytest.param(
            [{"grade": 0, "count": 0}, {"grade": 1, "count": 3}],
            {"cpu": "500m"},
            CPU_GRADES[:2],
            100,
            6,
            id="est-models-three-nodes",
        ),
        pytest.param(
            [{"grade": 1, "count": 3}], {"cpu": "100m"}, None, 25, 25, id="at most the pods left"
        ),
        pytest.param(
            [{"grade": 2, "count": 2}], {}, None, 1000, 220, id="110 pods per virtual node"
        ),
        pytest.param(
            [{"grade": 2, "count": 2}],
            {"nvidia.com/gpu": "1"},
            None,
            110,
            0,
            id="resource no model has",
        ),
        pytest.param(
            [{"grade": 2, "count": 1}, {"grade": 2, "count": 2}],
            {"cpu": "1"},
            None,
            110,
            6,
            id="counts of a grade add up",
        ),
        pytest.param(
            [{"grade": 7, "count": 5}], {"cpu": "1"}, None, 110, 0, id="counted grade without model"
        ),
        pytest.param(
            [{"grade": 1, "count": -1}],
            {"cpu": "1"},
            None,
            110,
            100,
            id="negative count: summary instead",
        ),
    ],
)
def test_resource_models(
    modelings: Any, asked: dict[str, Any], models: Any, pods: int, expected: int
) -> None:
    assert _models(modelings, asked, models, pods) == expected


def test_counted_nodes_without_models_use_karmadas_default_grades() -> None:
    """A Cluster created without `spec.resourceModels` gets Karmada's nine default grades
    (SetDefaultClusterResourceModels): one node each of grades 0 (no CPU), 1 (1 CPU) and 2
    (2 CPUs) hold 3 one-CPU replicas, whatever the summary says."""
    resource_summary = summary(cpu="10") | {"allocatableModelings": ONE_EACH}
    assert _estimate(resource_summary, {"cpu": "1"}) == 3


def test_models_are_read_as_karmada_stores_them() -> None:
    """The first grade's mins count as 0 and grades in any order (StandardizeClusterResourceModels):
    a first grade written from 1 CPU still holds no one-CPU replica."""
    written = [
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": "8"}]},
        {"grade": 0, "ranges": [{"name": "cpu", "min": "1", "max": "2"}]},
    ]
    assert _models([{"grade": 0, "count": 4}, {"grade": 1, "count": 1}], {"cpu": "1"}, written) == 2


@pytest.mark.parametrize(
    ("name", "scalar"),
    [
        pytest.param("nvidia.com/gpu", True, id="extended"),
        pytest.param("hugepages-2Mi", True, id="hugepages"),
        pytest.param("attachable-volumes-aws-ebs", True, id="attachable volumes"),
        pytest.param("kubernetes.io/batteries", True, id="prefixed native"),
        pytest.param("storage", False, id="storage"),
        pytest.param("cpu", False, id="cpu"),
        pytest.param("requests.example.com/x", False, id="quota prefix"),
        pytest.param("a/b/c", False, id="two slashes"),
        pytest.param("Example.com/x", False, id="upper-case domain"),
    ],
)
def test_scalar_resource_names(name: str, scalar: bool) -> None:
    assert estimator.is_scalar_resource(name) is scalar


def test_unreadable_quantity_names_cluster_and_field() -> None:
    with pytest.raises(
        framework.ScheduleError, match=r"cluster member resourceSummary\.allocatable\.cpu"
    ):
        _estimate(summary(cpu="four"), {"cpu": "1"})
