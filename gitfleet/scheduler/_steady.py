"""A schedule that changed nothing keeps the time of the last one that did.

Karmada's scheduler schedules Duplicated and replica-less bindings again on every event,
stamping `lastScheduledTime` each time; in Git that would rewrite every such binding on every
commit. So when a binding differs from its previous render only by that time, it keeps the
previous time, unless a reschedule was requested after it, whose handling the new time records.
"""

from __future__ import annotations

import dataclasses
from typing import TypeVar

from gitfleet.model import times, work

Binding = work.ResourceBinding | work.ClusterResourceBinding
B = TypeVar("B", work.ResourceBinding, work.ClusterResourceBinding, Binding)


def steady(binding: B, previous: Binding | None) -> B:
    """`binding`, with `previous`'s `lastScheduledTime` when nothing else differs."""
    if previous is None:
        return binding
    old, new = previous.status.last_scheduled_time, binding.status.last_scheduled_time
    if old is None or old == new or _requested_after(binding.spec.reschedule_triggered_at, old):
        return binding
    kept = dataclasses.replace(
        binding, status=dataclasses.replace(binding.status, last_scheduled_time=old)
    )
    return kept if kept == previous else binding


def _requested_after(trigger: str | None, last: str) -> bool:
    """A reschedule was requested after `last` (an unreadable time counts as after)."""
    if trigger is None:
        return False
    when, before = times.parse(trigger), times.parse(last)
    return when is None or before is None or when > before
