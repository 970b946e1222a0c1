"""Karmada's scheduling failure texts (framework/types.go FitError.Error, the %w wrapping of
generic_scheduler.go and assignment.go).

Aspects covered:
- `0/N clusters are available: <count> <reason>, ...` with entries sorted as strings
  ("10 ..." before "2 ..."), every reason of a result counted;
- no cluster at all, or none judged (all being deleted): "no cluster exists";
- wrapped errors keep their kind.
"""

from __future__ import annotations

import pytest

from gitfleet.scheduler import framework

U = framework.unschedulable


@pytest.mark.parametrize(
    ("total", "failures", "expected"),
    [
        pytest.param(0, {}, "0/0 clusters are available: no cluster exists.", id="no clusters"),
        pytest.param(2, {}, "0/2 clusters are available: no cluster exists.", id="none judged"),
        pytest.param(1, {"a": U("r")}, "0/1 clusters are available: 1 r.", id="one reason"),
        pytest.param(
            3,
            {"a": U("x"), "b": U("x"), "c": U("y")},
            "0/3 clusters are available: 1 y, 2 x.",
            id="counts sorted as text",
        ),
        pytest.param(
            12,
            {f"c{i}": U("b") for i in range(10)} | {"x": U("a"), "y": U("a")},
            "0/12 clusters are available: 10 b, 2 a.",
            id="10 sorts before 2",
        ),
        pytest.param(
            1,
            {"a": U("p", "q")},
            "0/1 clusters are available: 1 p, 1 q.",
            id="every reason counted",
        ),
    ],
)
def test_fit_error_message(
    total: int, failures: dict[str, framework.Result], expected: str
) -> None:
    assert framework.fit_error_message(total, failures) == expected


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        pytest.param(framework.UnschedulableError("short"), "Unschedulable", id="unschedulable"),
        pytest.param(framework.ScheduleError("broken"), "SchedulerError", id="scheduler error"),
    ],
)
def test_wrapping_keeps_the_kind(error: framework.ScheduleError, reason: str) -> None:
    wrapped = error.wrapped("failed to assign replicas").wrapped("outer")
    assert type(wrapped) is type(error)
    assert reason == wrapped.REASON
    assert str(wrapped) == f"outer: failed to assign replicas: {error}"
