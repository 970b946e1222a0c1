"""Stabilization and rate limits against Kubernetes' HPA rules, as Karmada's FederatedHPA
controller applies them.

Aspects covered:
- defaults: no behaviour (bounds, scale-up to at most max(2 x current, 4), the downscale
  window); a behaviour's missing directions, window and policies filled as Kubernetes does;
- stabilization: the highest recommendation of the down window holds a scale-down, the lowest
  of the up window holds a scale-up; runs of one recommendation and when they stop counting;
- policies: Pods and Percent, selectPolicy Max, Min and Disabled, the replicas at the start of
  the period (scale events of the period), limits capped by min/maxReplicas;
- scale events kept only for the longest policy period.
"""

from __future__ import annotations

import datetime

import pytest

from gitfleet.autoscaling import _behavior
from gitfleet.model import autoscaling, loaded, times

NOW = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)
SETTINGS = loaded.AutoscalingSettings()


def ago(seconds: int) -> str:
    return times.text(times.later(NOW, -seconds))


def policy(kind: str, value: int, period: int = 15) -> autoscaling.ScalingPolicy:
    return autoscaling.ScalingPolicy(type=kind, value=value, period_seconds=period)


def rules(
    up: autoscaling.ScalingRules | None = None, down: autoscaling.ScalingRules | None = None
) -> _behavior.Behavior:
    found = _behavior.behavior(autoscaling.Behavior(scale_up=up, scale_down=down), SETTINGS)
    assert found is not None
    return found


def test_defaults_of_a_behavior() -> None:
    found = rules()
    assert (found.up.window, found.up.select) == (0, "Max")
    assert [(p.type, p.value, p.period_seconds) for p in found.up.policies] == [
        ("Pods", 4, 15),
        ("Percent", 100, 15),
    ]
    assert (found.down.window, found.down.select) == (300, "Max")
    assert [(p.type, p.value) for p in found.down.policies] == [("Percent", 100)]
    assert _behavior.behavior(None, SETTINGS) is None
    custom = rules(down=autoscaling.ScalingRules(stabilization_window_seconds=60))
    assert custom.down.window == 60 and custom.down.policies == found.down.policies


@pytest.mark.parametrize(
    ("current", "desired", "bounds", "expected", "reason"),
    [
        pytest.param(2, 10, (1, 20), 4, "ScaleUpLimit", id="at most doubled"),
        pytest.param(1, 10, (1, 20), 4, "ScaleUpLimit", id="at least four"),
        pytest.param(4, 10, (1, 6), 6, "TooManyReplicas", id="maxReplicas"),
        pytest.param(4, 1, (2, 6), 2, "TooFewReplicas", id="minReplicas"),
        pytest.param(4, 3, (1, 6), 3, "DesiredWithinRange", id="within"),
    ],
)
def test_limits_without_behavior(
    current: int, desired: int, bounds: tuple[int, int], expected: int, reason: str
) -> None:
    found = _behavior.limit_plain(current, desired, bounds)
    assert (found.replicas, found.reason) == (expected, reason)


def test_plain_stabilization_keeps_the_highest_recent_recommendation() -> None:
    runs = (_behavior.Recommendation(8, ago(200)), _behavior.Recommendation(6, ago(100)))
    stable, kept = _behavior.stabilize_plain(runs, 2, NOW, 300)
    assert stable == 8
    assert [r.replicas for r in kept] == [8, 6, 2]
    stable, kept = _behavior.stabilize_plain(runs, 2, times.later(NOW, 250), 300)
    assert stable == 6, "the run of 8 ended when 6 began, 350 s ago"
    assert [r.replicas for r in kept] == [6, 2]


def test_a_run_of_equal_recommendations_is_recorded_once() -> None:
    runs = (_behavior.Recommendation(4, ago(60)),)
    _, kept = _behavior.stabilize_plain(runs, 4, NOW, 300)
    assert kept == runs


@pytest.mark.parametrize(
    ("runs", "proposal", "current", "expected"),
    [
        pytest.param([(8, 100)], 2, 4, 4, id="down window holds the current replicas"),
        pytest.param([(3, 100)], 2, 4, 3, id="down window lets part of a scale-down through"),
        pytest.param([(8, 400), (2, 350)], 2, 4, 2, id="a run that ended before the window"),
        pytest.param([(2, 100)], 9, 4, 9, id="no up window: scale up at once"),
    ],
)
def test_stabilization_with_behavior(
    runs: list[tuple[int, int]], proposal: int, current: int, expected: int
) -> None:
    past = tuple(_behavior.Recommendation(v, ago(s)) for v, s in runs)
    found, _ = _behavior.stabilize(past + _latest(proposal), proposal, current, rules(), NOW)
    assert found == expected


def _latest(proposal: int) -> tuple[_behavior.Recommendation, ...]:
    """A run of the proposal starting now: earlier runs end now."""
    return (_behavior.Recommendation(proposal, times.text(NOW)),)


def test_an_up_window_holds_a_scale_up() -> None:
    up = autoscaling.ScalingRules(stabilization_window_seconds=60)
    past = (_behavior.Recommendation(5, ago(30)), _behavior.Recommendation(9, ago(10)))
    found, _ = _behavior.stabilize(past, 9, 4, rules(up=up), NOW)
    assert found == 5, "the lowest recommendation of the last minute"


DOUBLE = policy("Percent", 100)
HALF = policy("Percent", 50)
EVENTS: tuple[tuple[_behavior.ScaleEvent, ...], tuple[_behavior.ScaleEvent, ...]] = ((), ())


@pytest.mark.parametrize(
    ("up", "current", "events", "limit"),
    [
        pytest.param(None, 2, EVENTS, 6, id="default: +4 pods beats +100%"),
        pytest.param(None, 10, EVENTS, 20, id="default: +100% beats +4 pods"),
        pytest.param(
            autoscaling.ScalingRules(select_policy="Min", policies=(policy("Pods", 4), DOUBLE)),
            10, EVENTS, 14, id="Min picks the smaller change",
        ),
        pytest.param(
            autoscaling.ScalingRules(select_policy="Disabled"), 10, EVENTS, 10, id="Disabled",
        ),
        pytest.param(
            autoscaling.ScalingRules(policies=(policy("Pods", 2, 60),)),
            6, ((_behavior.ScaleEvent(2, ago(30)),), ()), 6,
            id="a scale-up in the period counts",
        ),
        pytest.param(
            autoscaling.ScalingRules(policies=(policy("Pods", 2, 60),)),
            6, ((_behavior.ScaleEvent(2, ago(90)),), ()), 8,
            id="a scale-up before the period does not",
        ),
        pytest.param(
            autoscaling.ScalingRules(policies=(policy("Percent", 50, 60),)),
            3, ((), (_behavior.ScaleEvent(1, ago(30)),)), 6,
            id="a scale-down in the period raises the start",
        ),
    ],
)  # fmt: skip
def test_scale_up_limits(
    up: autoscaling.ScalingRules | None,
    current: int,
    events: tuple[tuple[_behavior.ScaleEvent, ...], tuple[_behavior.ScaleEvent, ...]],
    limit: int,
) -> None:
    assert _behavior.scale_up_limit(current, events, rules(up=up).up, NOW) == limit


@pytest.mark.parametrize(
    ("down", "current", "limit"),
    [
        pytest.param(None, 10, 0, id="default: -100%"),
        pytest.param(
            autoscaling.ScalingRules(policies=(policy("Percent", 10),)), 15, 13, id="rounded down"
        ),
        pytest.param(
            autoscaling.ScalingRules(policies=(policy("Pods", 1), policy("Percent", 50))),
            10, 5, id="Max picks the bigger change",
        ),
        pytest.param(
            autoscaling.ScalingRules(select_policy="Min", policies=(policy("Pods", 1), HALF)),
            10, 9, id="Min picks the smaller change",
        ),
    ],
)  # fmt: skip
def test_scale_down_limits(down: autoscaling.ScalingRules | None, current: int, limit: int) -> None:
    assert _behavior.scale_down_limit(current, EVENTS, rules(down=down).down, NOW) == limit


@pytest.mark.parametrize(
    ("current", "desired", "bounds", "expected", "reason"),
    [
        pytest.param(2, 20, (1, 10), 6, "ScaleUpLimit", id="rate"),
        pytest.param(8, 20, (1, 10), 10, "TooManyReplicas", id="maxReplicas"),
        pytest.param(8, 1, (3, 10), 3, "TooFewReplicas", id="minReplicas"),
        pytest.param(8, 5, (1, 10), 5, "DesiredWithinRange", id="within"),
    ],
)
def test_limits_with_behavior(
    current: int, desired: int, bounds: tuple[int, int], expected: int, reason: str
) -> None:
    found = _behavior.limit_with_behavior(current, desired, bounds, rules(), EVENTS, NOW)
    assert (found.replicas, found.reason) == (expected, reason)


def test_scale_events_are_kept_for_the_longest_period_only() -> None:
    old = ((_behavior.ScaleEvent(1, ago(20)), _behavior.ScaleEvent(2, ago(5))), ())
    ups, downs = _behavior.store_event(old, rules(), 4, 7, NOW)
    assert [(e.change, e.time) for e in ups] == [(2, ago(5)), (3, ago(0))]
    assert downs == ()
    ups, downs = _behavior.store_event(old, rules(), 7, 4, NOW)
    assert ups == old[0] and [e.change for e in downs] == [3]
