"""RFC 3339 times as Kubernetes writes them (`2026-01-01T00:00:00Z`), read and written in one
place so that every stage compares times the same way: an unreadable time is None, a time
without a zone is UTC, and written times are UTC to the second."""

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
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=datetime.UTC)


def text(moment: datetime.datetime) -> str:
    """`moment` in UTC to the second, as Kubernetes' metav1.Time marshals it."""
    utc = moment.astimezone(datetime.UTC).replace(microsecond=0)
    return utc.strftime("%Y-%m-%dT%H:%M:%SZ")


def later(moment: datetime.datetime, seconds: float) -> datetime.datetime:
    return moment + datetime.timedelta(seconds=seconds)
