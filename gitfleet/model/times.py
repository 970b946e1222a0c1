"""RFC 3339 times as Kubernetes writes them (`2026-01-01T00:00:00Z`), read and written in one
place so that every stage compares times the same way: an unreadable time is None (one that
UTC cannot hold too), a time without a zone is UTC, and written times are UTC to the second.
Arithmetic past the years a datetime holds stops at its first or last moment (`later`)."""

from __future__ import annotations

import datetime


def parse(text: str | None) -> datetime.datetime | None:
    """An RFC 3339 time; None when absent or unreadable."""
    if not text:
        return None
    try:
        parsed = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if not parsed.tzinfo:
        return parsed.replace(tzinfo=datetime.UTC)
    try:
        parsed.astimezone(datetime.UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00: before the first moment UTC holds
        return None
    return parsed


def text(moment: datetime.datetime) -> str:
    """`moment` in UTC to the second, as Kubernetes' metav1.Time marshals it."""
    utc = moment.astimezone(datetime.UTC).replace(microsecond=0)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


_LATEST = datetime.datetime.max.replace(tzinfo=datetime.UTC)
_EARLIEST = datetime.datetime.min.replace(tzinfo=datetime.UTC)


def later(moment: datetime.datetime, seconds: float) -> datetime.datetime:
    """`seconds` after `moment` (before it when negative). A time past what a datetime holds
    (a toleration of 10**20 seconds, a grace period counted from the year 9999) is the last
    (or first) moment there is: never reached, rather than an overflow."""
    try:
        return moment + datetime.timedelta(seconds=seconds)
    except OverflowError:
        return _LATEST if seconds > 0 else _EARLIEST


def human_duration(seconds: float) -> str:
    """A duration as kubectl prints an AGE (apimachinery's `duration.HumanDuration`). The
    simulated cluster prints its own tables with its own copy: it imports nothing of gitfleet."""
    whole = int(seconds)
    if whole < -1:
        return "<invalid>"
    if whole < 0:
        return "0s"
    if whole < 120:
        return f"{whole}s"
    minutes, hours, days = whole // 60, whole // 3600, whole // 86400
    if minutes < 10:
        return f"{minutes}m{whole % 60}s" if whole % 60 else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    if hours < 8:
        return f"{hours}h{minutes % 60}m" if minutes % 60 else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{days}d{hours % 24}h" if hours % 24 else f"{days}d"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years, rest = days // 365, days % 365
    if hours < 24 * 365 * 8:
        return f"{years}y{rest}d" if rest else f"{years}y"
    return f"{years}y"
