"""The replica calculator against Karmada's and Kubernetes' rules.

Aspects covered:
- utilization over requests: scale up, at target, within the tolerance, a raw average value;
- the calibration of a duplicated workload (members' replicas over the template's);
- unready pods counted as idle on a scale-up, missing pods as at their request on a
  scale-down and idle on a scale-up, a change of direction cancelling the change;
- ignored pods (deleting, failed), pending pods, the cpu initialization period;
- errors: no pods, no metrics for ready pods, a container without a request.
"""

from __future__ import annotations

import datetime

import pytest

from gitfleet.autoscaling import _calculator, _samples
from gitfleet.model import loaded

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)
SETTINGS = loaded.AutoscalingSettings()
CPU50 = _calculator.Target("cpu", 50)


def pod(
    name: str,
    used: int | None = None,
    request: int | None = 100,
    *,
    phase: str = "Running",
    ready: bool | None = True,
    started: str = "2026-01-01T11:00:00Z",
    ready_changed: str = "2026-01-01T11:00:10Z",
    deleting: bool = False,
) -> tuple[str, _samples.Pod]:
    return name, _samples.Pod(
        name=name,
        phase=phase,
        ready=ready,
        started=started,
        ready_changed=ready_changed,
        deleting=deleting,
        requests={"cpu": request},
        usage={} if used is None else {"cpu": used},
        measured="2026-01-01T11:59:50Z",
        window=30,
    )


CASES = [
    pytest.param([pod("a", 150), pod("b", 150)], CPU50, 2, 1.0, 6, 150, id="scale up"),
    pytest.param([pod(n, 50) for n in "abcd"], CPU50, 4, 1.0, 4, 50, id="at the target"),
    pytest.param([pod("a", 52), pod("b", 48)], CPU50, 2, 1.0, 2, 50, id="within the tolerance"),
    pytest.param([pod("a", 54), pod("b", 54)], CPU50, 2, 1.0, 2, 54, id="a ratio of 1.08"),
    pytest.param([pod("a", 60), pod("b", 60)], CPU50, 2, 1.0, 3, 60, id="a ratio of 1.2"),
    pytest.param([pod("a", 10), pod("b", 10)], CPU50, 4, 1.0, 1, 10, id="scale down"),
    pytest.param(
        [pod("a", 150), pod("b", 150)], CPU50, 2, 0.5, 12, 150, id="calibration below one"
    ),
    pytest.param(
        [pod("a", 150), pod("b", 150), pod("c", 150), pod("d", 150)],
        CPU50,
        2,
        2.0,
        6,
        150,
        id="duplicated on two clusters",
    ),
    pytest.param(
        [pod("a", 150), pod("b", 150), pod("c", phase="Pending")],
        CPU50,
        3,
        1.0,
        6,
        150,
        id="a pending pod is idle on a scale-up",
    ),
    pytest.param(
        [pod("a", 150), pod("b", 150), pod("c", 150, ready=False)],
        CPU50,
        3,
        1.0,
        6,
        150,
        id="an unready pod is idle on a scale-up",
    ),
    pytest.param(
        [pod("a", 10), pod("b", 10), pod("c")],
        CPU50,
        3,
        1.0,
        3,
        10,
        id="a missing pod at its request turns a scale-down around",
    ),
    pytest.param(
        [pod("a", 10), pod("b", 10), pod("c", 10), pod("d", 10), pod("e")],
        CPU50,
        5,
        1.0,
        3,
        10,
        id="a missing pod at its request on a scale-down",
    ),
    pytest.param(
        [pod("a", 150), pod("b", 150), pod("c")],
        CPU50,
        3,
        1.0,
        6,
        150,
        id="a missing pod is idle on a scale-up",
    ),
    pytest.param(
        [pod("a", 150), pod("b", 150), pod("c", 900, deleting=True), pod("d", 900, phase="Failed")],
        CPU50,
        2,
        1.0,
        6,
        150,
        id="deleting and failed pods are ignored",
    ),
    pytest.param(
        [pod("a", 300), pod("b", 100)],
        _calculator.Target("cpu", None, 100),
        2,
        1.0,
        4,
        None,
        id="average value",
    ),
]


@pytest.mark.parametrize(("pods", "target", "current", "calibration", "replicas", "used"), CASES)
def test_proposals(
    pods: list[tuple[str, _samples.Pod]],
    target: _calculator.Target,
    current: int,
    calibration: float,
    replicas: int,
    used: int | None,
) -> None:
    found = _calculator.propose(dict(pods), target, current, calibration, NOW, SETTINGS)
    assert found.replicas == replicas
    assert found.utilization == used


def test_a_cpu_sample_taken_before_a_young_pod_turned_ready_is_not_counted() -> None:
    young = dict(
        started="2026-01-01T11:58:00Z", ready_changed="2026-01-01T11:59:40Z"
    )  # sample at 11:59:50, window 30 s: taken before readiness settled
    pods = dict([pod("a", 150), pod("b", 150, **young)])  # type: ignore[arg-type]
    found = _calculator.propose(pods, CPU50, 2, 1.0, NOW, SETTINGS)
    assert found.replicas == 3, "b is unready: counted as idle on the scale-up"
    memory = _calculator.Target("memory", 50)
    both = {n: _with_memory(p) for n, p in pods.items()}
    assert _calculator.propose(both, memory, 2, 1.0, NOW, SETTINGS).replicas == 6


def _with_memory(found: _samples.Pod) -> _samples.Pod:
    return _samples.Pod(
        name=found.name, phase=found.phase, ready=found.ready, started=found.started,
        ready_changed=found.ready_changed, requests={"memory": 100},
        usage={"memory": found.usage["cpu"]}, measured=found.measured, window=found.window,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("pods", "message"),
    [
        pytest.param([], "no pods returned by selector", id="no pods"),
        pytest.param(
            [pod("a"), pod("b")], "did not receive metrics for any ready pods", id="no metrics"
        ),
        pytest.param(
            [pod("a", 50), pod("b", 50, request=None)],
            "missing request for cpu in a container of pod b",
            id="a container without a request",
        ),
    ],
)
def test_errors(pods: list[tuple[str, _samples.Pod]], message: str) -> None:
    with pytest.raises(_calculator.CalculationError, match=message):
        _calculator.propose(dict(pods), CPU50, 2, 1.0, NOW, SETTINGS)
