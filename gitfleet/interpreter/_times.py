"""Kubernetes timestamps (metav1.Time) read and written as Karmada's Go types do.

Karmada reads a timestamp with Go's `time.Parse(time.RFC3339, ...)`: a `T` and a `Z` in
capitals, seconds with an optional fraction (after `.` or `,`), a `Z` or a `+hh:mm` offset;
an empty string is not a time, a JSON null is the zero time; an offset may reach 24 hours and
60 minutes, as Go allows. It holds and compares the instant to the nanosecond (the fraction's
first nine digits). It writes a timestamp in UTC to the second (`2024-03-05T10:20:30Z`), the
fraction dropped, and the zero time as null. So a status Karmada read and wrote back holds its
times in that form; the native rules write theirs the same way. Karmada:
k8s.io/apimachinery/pkg/apis/meta/v1/time.go. Reading is stricter than `model.times` (which
reads gitfleet's own files leniently); writing is the same.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from gitfleet.interpreter import _fields
from gitfleet.model import times

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))"
)


def parse(value: Any, path: _fields.Path) -> datetime.datetime | None:
    """The instant a timestamp field names, to the microsecond; None for null or absent (Go's
    zero time)."""
    found = _instant(value, path)
    if found is None:
        return None
    second, nanos = found
    return second.replace(microsecond=nanos // 1000)


def nanoseconds(value: Any, path: _fields.Path) -> int | None:
    """The instant a timestamp field names, in nanoseconds since 1970 (the precision Go keeps
    and compares: the fraction's first nine digits); None for null or absent."""
    found = _instant(value, path)
    if found is None:
        return None
    second, nanos = found
    return (second - _EPOCH) // datetime.timedelta(seconds=1) * 10**9 + nanos


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def _instant(value: Any, path: _fields.Path) -> tuple[datetime.datetime, int] | None:
    """The second a timestamp names (in UTC) and the nanoseconds past it."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fields.FieldError(path, f"expected a time, got {type(value).__name__}")
    found = _RFC3339.fullmatch(value)
    if found is None:
        raise _fields.FieldError(path, f"not an RFC 3339 time: {value!r}")
    year, month, day, hour, minute, second = (int(g) for g in found.group(1, 2, 3, 4, 5, 6))
    fraction = found.group(7) or ""
    sign, off_hours, off_minutes = found.group(9, 10, 11)
    offset = datetime.timedelta()
    if sign is not None:
        if int(off_hours) > 24 or int(off_minutes) > 60:  # Go's own bounds
            raise _fields.FieldError(path, f"not a valid time zone offset: {value!r}")
        offset = datetime.timedelta(hours=int(off_hours), minutes=int(off_minutes))
        offset = -offset if sign == "-" else offset
    try:
        local = datetime.datetime(year, month, day, hour, minute, second)
        # offsets up to 24:60 are Go's, beyond what datetime.timezone takes
        utc = (local - offset).replace(tzinfo=datetime.UTC)
    except (ValueError, OverflowError):
        raise _fields.FieldError(path, f"not a valid time: {value!r}") from None
    return utc, int((fraction + "000000000")[:9])


def checked(value: Any, path: _fields.Path) -> Any:
    """A timestamp field as it is spelled, once known to be one (null or absent: None)."""
    _instant(value, path)
    return value


def written(value: Any, path: _fields.Path) -> str | None:
    """A timestamp field as Karmada writes it back: UTC to the second; None for null."""
    instant = parse(value, path)
    return None if instant is None else times.text(instant)


def written_map(value: Any, path: _fields.Path) -> dict[str, str | None]:
    """A map of timestamps (a PodDisruptionBudget's `disruptedPods`) as Karmada writes it
    back; absent is empty, a null entry stays null (Go's zero time)."""
    found = _fields.mapping(value, path)
    return {key: written(when, (*path, key)) for key, when in found.items()}
