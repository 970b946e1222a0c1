"""When a binding must leave a cluster with NoExecute taints (Karmada:
pkg/controllers/cluster/taint_manager.go needEvictionWithCurrentTime, getPurgeMode;
pkg/util/helper/taint.go GetMatchingTolerations, GetMinTolerationTimeWithCurrentTime,
AddTolerations; the default not-ready and unreachable tolerations Karmada's webhook added to
every policy until v1.14, pkg/util/helper/taint.go NewNotReadyToleration).

Every NoExecute taint must be tolerated, else the binding leaves at once. When all are, each
taint's first tolerating toleration counts: the binding leaves at the earliest `timeAdded +
tolerationSeconds` over the pairs that have both; with none, it stays for good.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from gitfleet.failover import _health
from gitfleet.model import loaded, meta, policy, selectors, times, work

FOREVER: None = None


def default_tolerations(settings: loaded.FailoverSettings) -> tuple[meta.Toleration, ...]:
    seconds = settings.default_toleration_seconds
    if seconds is None:
        return ()
    return tuple(
        meta.Toleration(
            key=key, operator="Exists", effect=_health.NO_EXECUTE, toleration_seconds=seconds
        )
        for key in (_health.NOT_READY, _health.UNREACHABLE)
    )


def _same(a: meta.Toleration, b: meta.Toleration) -> bool:
    """corev1 Toleration.MatchToleration: the same key, operator, value and effect."""
    return (a.key, a.operator, a.value, a.effect) == (b.key, b.operator, b.value, b.effect)


def tolerations(
    placement: policy.Placement | None, settings: loaded.FailoverSettings
) -> tuple[meta.Toleration, ...]:
    """The placement's tolerations, then each default one it does not already have."""
    own = placement.cluster_tolerations if placement is not None else ()
    extra = [d for d in default_tolerations(settings) if not any(_same(d, t) for t in own)]
    return (*own, *extra)


def eviction_time(
    taints: Sequence[meta.Taint], tolerations: Sequence[meta.Toleration], now: datetime.datetime
) -> datetime.datetime | None:
    """When a binding with these tolerations must leave a cluster with these taints: `now` or
    earlier means at once, None means never."""
    no_execute = [t for t in taints if t.effect == _health.NO_EXECUTE]
    if not no_execute:
        return FOREVER
    used = []
    for taint in no_execute:
        match = next((t for t in tolerations if selectors.tolerates(t, taint)), None)
        if match is None:
            return now
        used.append(match)
    triggers = [
        times.later(added, toleration.toleration_seconds)
        for toleration in used
        if toleration.toleration_seconds is not None
        for taint in no_execute
        if (added := times.parse(taint.time_added)) is not None
        and selectors.tolerates(toleration, taint)
    ]
    return min(triggers) if triggers else FOREVER


def purge_mode(
    spec: work.ResourceBindingSpec, settings: loaded.FailoverSettings
) -> policy.PurgeMode:
    """The policy's `failover.cluster.purgeMode` (Gracefully when unset), else the setting."""
    behavior = spec.failover.cluster if spec.failover is not None else None
    if behavior is not None:
        return behavior.purge_mode or policy.PurgeMode.GRACEFULLY
    return settings.purge_mode
