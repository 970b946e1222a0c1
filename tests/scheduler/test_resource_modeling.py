"""Counting nodes per resource model grade, as Karmada's cluster status controller fills
`allocatableModelings` in (pkg/modeling/modeling_test.go, cluster_status_controller_test.go
TestGetAllocatableModelings; the cases keep their numbers).

Aspects covered:
- a node's grade is per resource the last model whose min is at most what it has, then the
  lowest over the resources; a min is inclusive, a max never read;
- resources the models do not name do not matter, one they name that a node lacks is zero;
- an overcommitted node (below the first min) is in no grade;
- no models: Karmada's nine default grades; models out of order are sorted by grade, and
  every grade is listed, zero counts included;
- models Karmada's InitSummary refuses (resources named twice, or a different number of them)
  give no modelings.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitfleet.model import cluster
from gitfleet.scheduler import modeling


def _model(grade: int, **ranges: tuple[str, str]) -> cluster.ResourceModel:
    return cluster.ResourceModel(
        grade=grade,
        ranges=tuple(
            cluster.ResourceModelRange(name=name, min=low, max=high)
            for name, (low, high) in ranges.items()
        ),
    )


TWO_GRADES = (
    _model(0, cpu=("0", "1"), memory=("0", "1024")),
    _model(1, cpu=("1m", "2"), memory=("1024", "2048")),
)
"""The models of Karmada's modeling tests."""


def _nodes(*groups: tuple[int, dict[str, str]]) -> tuple[cluster.NodeAvailable, ...]:
    return tuple(cluster.NodeAvailable(count=n, resources=r or None) for n, r in groups)


def _counts(found: tuple[cluster.AllocatableModeling, ...]) -> dict[int, int]:
    return {m.grade: m.count for m in found}


@pytest.mark.parametrize(
    ("nodes", "expected"),
    [
        pytest.param(_nodes((1, {"cpu": "1m", "memory": "1024"})), {0: 0, 1: 1}, id="at both mins"),
        pytest.param(
            _nodes((1, {"cpu": "20m", "memory": "102400"})), {0: 0, 1: 1}, id="above the last max"
        ),
        pytest.param(
            _nodes(
                (3, {"cpu": "8m", "memory": "3072"}),
                (1, {"cpu": "1m", "memory": "6144"}),
                (2, {"cpu": "1m", "memory": "6144"}),
                (2, {"memory": "19"}),
            ),
            {0: 2, 1: 6},
            id="groups add up",
        ),
        pytest.param(
            _nodes((2, {"test": "0"})), {0: 2, 1: 0}, id="only resources the models do not name"
        ),
        pytest.param(
            _nodes((1, {"cpu": "2", "memory": "1023"})), {0: 1, 1: 0}, id="the lowest grade wins"
        ),
        pytest.param(
            _nodes((1, {"cpu": "999999n", "memory": "2048"})), {0: 1, 1: 0}, id="just below a min"
        ),
        pytest.param(
            _nodes((4, {"cpu": "-500m", "memory": "4096"}), (1, {"cpu": "1", "memory": "4096"})),
            {0: 0, 1: 1},
            id="an overcommitted node is in no grade",
        ),
        pytest.param(_nodes(), {0: 0, 1: 0}, id="no nodes"),
    ],
)
def test_grades(nodes: tuple[cluster.NodeAvailable, ...], expected: dict[int, int]) -> None:
    assert _counts(modeling.allocatable_modelings(TWO_GRADES, nodes)) == expected


def test_no_models_grade_by_karmadas_defaults() -> None:
    """Three nodes of 4 CPUs and 16Gi: CPU says grade 3, memory grade 2."""
    found = modeling.allocatable_modelings((), _nodes((3, {"cpu": "4", "memory": "16Gi"})))
    assert [(m.grade, m.count) for m in found] == [(g, 3 if g == 2 else 0) for g in range(9)]


def test_models_are_taken_in_grade_order() -> None:
    models = (
        _model(7, cpu=("2", "4")),
        _model(3, cpu=("5", "2")),
        _model(5, cpu=("1", "2")),
    )
    found = modeling.allocatable_modelings(models, _nodes((1, {"cpu": "1500m"}), (2, {"cpu": "9"})))
    assert [(m.grade, m.count) for m in found] == [(3, 0), (5, 1), (7, 2)]


REFUSED: list[Any] = [
    pytest.param(
        (_model(0, cpu=("0", "1"), memory=("0", "1024")), _model(1, cpu=("1", "2"))),
        id="a model with fewer resources",
    ),
    pytest.param(
        (_model(0, cpu=("0", "1")), _model(1, cpu=("1", "2"), memory=("1", "2"))),
        id="a model with more resources",
    ),
    pytest.param(
        (
            cluster.ResourceModel(
                grade=0,
                ranges=(
                    cluster.ResourceModelRange(name="cpu", min="0", max="1"),
                    cluster.ResourceModelRange(name="cpu", min="1", max="2"),
                ),
            ),
        ),
        id="a resource named twice",
    ),
    pytest.param((cluster.ResourceModel(grade=0, ranges=()),), id="no resources"),
]


@pytest.mark.parametrize("models", REFUSED)
def test_models_karmada_cannot_build_on_give_none(
    models: tuple[cluster.ResourceModel, ...],
) -> None:
    nodes = _nodes((2, {"cpu": "1", "memory": "1024"}))
    assert modeling.allocatable_modelings(models, nodes) == ()
