"""From a proposal to the replicas set: stabilization over past recommendations, then the
bounds and the rate limits (Karmada: federatedhpa_controller.go normalizeDesiredReplicas and
normalizeDesiredReplicasWithBehaviors, the same rules as Kubernetes' HPA; the defaults of
pkg/util/lifted/federatedhpa.go).

Without `behavior`: the recommendation is the highest of the proposal and every
recommendation of the downscale stabilization window; it is then kept within minReplicas and
maxReplicas, and a scale-up to at most max(2 x current, 4).

With `behavior` (each direction defaulted as Kubernetes does: up, no window, the larger of +4
pods and +100% per 15 s; down, the controller's window, -100% per 15 s; selectPolicy Max):
the recommendation is the current replicas held between the lowest recommendation of the
scale-up window and the highest of the scale-down window (the proposal included). Each policy
then limits the change from the replicas at the start of its period (the current replicas
minus the scale-ups plus the scale-downs of the period); selectPolicy Max takes the policy
allowing the biggest change, Min the smallest, Disabled none.

Recommendations are kept as runs of one value since a time, which is what the windows need:
a run counts until the next one starts (the latest run until now). Karmada keeps one sample
per evaluation, so a run here may count up to one sync period longer than its last sample;
the runs change only when the recommendation does, which keeps the state in Git still while
the load is.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Sequence

from gitfleet.model import autoscaling, loaded, times

MAX_INT32 = 2**31 - 1
SCALE_UP_LIMIT_FACTOR = 2
SCALE_UP_LIMIT_MINIMUM = 4


@dataclasses.dataclass(frozen=True, slots=True)
class Recommendation:
    replicas: int
    since: str


@dataclasses.dataclass(frozen=True, slots=True)
class ScaleEvent:
    change: int
    time: str


@dataclasses.dataclass(frozen=True, slots=True)
class Rules:
    """One direction's scaling rules, defaulted."""

    window: int
    select: str
    policies: tuple[autoscaling.ScalingPolicy, ...]

    @property
    def longest_period(self) -> int:
        return max((p.period_seconds for p in self.policies), default=0)


@dataclasses.dataclass(frozen=True, slots=True)
class Behavior:
    up: Rules
    down: Rules


@dataclasses.dataclass(frozen=True, slots=True)
class Limited:
    """The replicas after the bounds and rate limits, and which limit decided."""

    replicas: int
    reason: str
    message: str


_UP = Rules(
    0,
    "Max",
    (
        autoscaling.ScalingPolicy(type="Pods", value=4, period_seconds=15),
        autoscaling.ScalingPolicy(type="Percent", value=100, period_seconds=15),
    ),
)
_DOWN_POLICIES = (autoscaling.ScalingPolicy(type="Percent", value=100, period_seconds=15),)


def _rules(given: autoscaling.ScalingRules | None, default: Rules) -> Rules:
    if given is None:
        return default
    window = given.stabilization_window_seconds
    return Rules(
        default.window if window is None else window,
        given.select_policy or default.select,
        given.policies or default.policies,
    )


def behavior(
    spec: autoscaling.Behavior | None, settings: loaded.AutoscalingSettings
) -> Behavior | None:
    """The behaviour with Kubernetes' defaults filled in; None when the spec sets none."""
    if spec is None:
        return None
    down = Rules(settings.downscale_stabilization_seconds, "Max", _DOWN_POLICIES)
    return Behavior(_rules(spec.scale_up, _UP), _rules(spec.scale_down, down))


def _ends(
    runs: Sequence[Recommendation], now: datetime.datetime
) -> list[tuple[int, datetime.datetime]]:
    """Each run's value and the time it counts until."""
    starts = [times.parse(r.since) or now for r in runs]
    return [(r.replicas, end) for r, end in zip(runs, [*starts[1:], now], strict=True)]


def _record(
    runs: Sequence[Recommendation], proposal: int, now: datetime.datetime, keep: int
) -> tuple[Recommendation, ...]:
    """The runs with `proposal` recorded now, forgetting runs that ended over `keep` seconds
    ago."""
    cutoff = times.later(now, -keep)
    kept = [r for r, (_, end) in zip(runs, _ends(runs, now), strict=True) if end >= cutoff]
    if not kept or kept[-1].replicas != proposal:
        kept.append(Recommendation(proposal, times.text(now)))
    return tuple(kept)


def stabilize_plain(
    runs: Sequence[Recommendation], proposal: int, now: datetime.datetime, window: int
) -> tuple[int, tuple[Recommendation, ...]]:
    """Without behaviour: the highest recommendation of the window, the proposal included."""
    cutoff = times.later(now, -window)
    highest = max([proposal, *(v for v, end in _ends(runs, now) if end >= cutoff)])
    return highest, _record(runs, proposal, now, window)


def stabilize(
    runs: Sequence[Recommendation],
    proposal: int,
    current: int,
    rules: Behavior,
    now: datetime.datetime,
) -> tuple[int, tuple[Recommendation, ...]]:
    """With behaviour: the current replicas held between the lowest recommendation of the
    scale-up window and the highest of the scale-down window."""
    up_cutoff = times.later(now, -rules.up.window)
    down_cutoff = times.later(now, -rules.down.window)
    ends = _ends(runs, now)
    up = min([proposal, *(v for v, end in ends if end > up_cutoff)])
    down = max([proposal, *(v for v, end in ends if end > down_cutoff)])
    kept = _record(runs, proposal, now, max(rules.up.window, rules.down.window))
    return min(max(current, up), down), kept


def _changed(events: Sequence[ScaleEvent], period: int, now: datetime.datetime) -> int:
    cutoff = times.later(now, -period)
    return sum(e.change for e in events if (times.parse(e.time) or now) > cutoff)


def _period_start(
    current: int, policy: autoscaling.ScalingPolicy, events: tuple[Sequence[ScaleEvent], ...],
    now: datetime.datetime,
) -> int:  # fmt: skip
    ups, downs = events
    return (
        current
        - _changed(ups, policy.period_seconds, now)
        + _changed(downs, policy.period_seconds, now)
    )


def scale_up_limit(
    current: int,
    events: tuple[Sequence[ScaleEvent], Sequence[ScaleEvent]],
    rules: Rules,
    now: datetime.datetime,
) -> int:
    if rules.select == "Disabled":
        return current
    pick, result = (min, MAX_INT32) if rules.select == "Min" else (max, -MAX_INT32 - 1)
    for policy in rules.policies:
        start = _period_start(current, policy, events, now)
        if policy.type == "Pods":
            proposed = start + policy.value
        else:
            proposed = math.ceil(start * (1 + policy.value / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit(
    current: int,
    events: tuple[Sequence[ScaleEvent], Sequence[ScaleEvent]],
    rules: Rules,
    now: datetime.datetime,
) -> int:
    if rules.select == "Disabled":
        return current
    pick, result = (max, -MAX_INT32 - 1) if rules.select == "Min" else (min, MAX_INT32)
    for policy in rules.policies:
        start = _period_start(current, policy, events, now)
        if policy.type == "Pods":
            proposed = start - policy.value
        else:
            proposed = int(start * (1 - policy.value / 100))
        result = pick(result, proposed)
    return result


_WITHIN = Limited(0, "DesiredWithinRange", "the desired count is within the acceptable range")
_UP_RATE = (
    "ScaleUpLimit",
    "the desired replica count is increasing faster than the maximum scale rate",
)
_DOWN_RATE = (
    "ScaleDownLimit",
    "the desired replica count is decreasing faster than the maximum scale rate",
)
_TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
_TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")


def _ceiling(rate: int, high: int) -> Limited:
    """The most replicas allowed: the rate's limit, or maxReplicas when that is lower."""
    return Limited(rate, *_UP_RATE) if high > rate else Limited(high, *_TOO_MANY)


def limit_with_behavior(
    current: int,
    desired: int,
    bounds: tuple[int, int],
    rules: Behavior,
    events: tuple[Sequence[ScaleEvent], Sequence[ScaleEvent]],
    now: datetime.datetime,
) -> Limited:
    """`desired` within the bounds and the policies' rates."""
    low, high = bounds
    if desired > current:
        ceiling = _ceiling(max(scale_up_limit(current, events, rules.up, now), current), high)
        if desired > ceiling.replicas:
            return ceiling
    elif desired < current:
        down = min(scale_down_limit(current, events, rules.down, now), current)
        floor = Limited(down, *_DOWN_RATE) if low < down else Limited(low, *_TOO_FEW)
        if desired < floor.replicas:
            return floor
    return dataclasses.replace(_WITHIN, replicas=desired)


def limit_plain(current: int, desired: int, bounds: tuple[int, int]) -> Limited:
    """`desired` within the bounds, a scale-up to at most max(2 x current, 4)."""
    low, high = bounds
    ceiling = _ceiling(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM), high)
    if desired < low:
        return Limited(low, *_TOO_FEW)
    if desired > ceiling.replicas:
        return ceiling
    return dataclasses.replace(_WITHIN, replicas=desired)


def store_event(
    events: tuple[Sequence[ScaleEvent], Sequence[ScaleEvent]],
    rules: Behavior,
    before: int,
    after: int,
    now: datetime.datetime,
) -> tuple[tuple[ScaleEvent, ...], tuple[ScaleEvent, ...]]:
    """The scale events with the change from `before` to `after` recorded now; events older
    than the direction's longest policy period are forgotten (Karmada reuses their slots)."""
    ups, downs = tuple(events[0]), tuple(events[1])
    up = after > before
    period = (rules.up if up else rules.down).longest_period
    cutoff = times.later(now, -period)
    kept = [e for e in (ups if up else downs) if (times.parse(e.time) or now) >= cutoff]
    kept.append(ScaleEvent(abs(after - before), times.text(now)))
    return (tuple(kept), downs) if up else (ups, tuple(kept))
