"""`os.time` and `os.date` as Karmada's safe os library has them, on a clock the caller passes in.

Karmada: pkg/util/lifted/lua/oslib_safe.go (gopher-lua's os.date/os.time formatting each `%x`
flag through a Go time layout). Python computes a time's parts (`date_parts`); sandbox.lua
applies the format. Two deliberate differences keep interpretation a pure function:
"now" is the time the caller gives the sandbox (not the machine's clock), and every time is in
UTC (the machine's time zone is not an input). Karmada's own quirks are kept: `%a` prints the
literal `mon` (its layout string is lowercase), unknown flags print as written, and `*t` has
`yday` 0 and `isdst` false.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from gitfleet.interpreter.lua import _inputs

Result = tuple[bool, Any]

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


def _flags(t: datetime.datetime) -> dict[str, str]:
    """What each `%c` flag prints (oslib_safe.go cDateFlagToGo, rendered as Go's layout would);
    `%%` prints `%`."""
    month = _MONTHS[t.month - 1]
    hour12 = t.hour % 12 or 12
    return {
        "%": "%",
        "a": "mon",
        "A": _DAYS[t.weekday()],
        "b": month[:3],
        "B": month,
        "c": f"{t.day:02d} {month[:3]} {t.year % 100:02d} {t.hour:02d}:{t.minute:02d} UTC",
        "d": f"{t.day:02d}",
        "F": f"{t.year:04d}-{t.month:02d}-{t.day:02d}",
        "H": f"{t.hour:02d}",
        "I": f"{hour12:02d}",
        "m": f"{t.month:02d}",
        "M": f"{t.minute:02d}",
        "p": "PM" if t.hour >= 12 else "AM",
        "P": "pm" if t.hour >= 12 else "am",
        "S": f"{t.second:02d}",
        "x": f"{t.hour:02d}/{t.minute:02d}/{t.second:02d}",
        "X": f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}",
        "y": f"{t.year % 100:02d}",
        "Y": f"{t.year:04d}",
        "z": "+0000",
        "Z": "UTC",
        "w": str((t.weekday() + 1) % 7),
    }


def date_parts(seconds: float) -> Result:
    """A time's `*t` fields and flag texts (as a constructor's source, `_inputs`). The format
    is applied in Lua (sandbox.lua, with string.gsub), where its length costs C speed under the
    sandbox's time limit, not Python's."""
    try:
        t = datetime.datetime.fromtimestamp(int(seconds), datetime.UTC)
    except (OverflowError, OSError, ValueError):
        return False, f"time {seconds} is out of range"
    fields = {
        "year": t.year, "month": t.month, "day": t.day, "hour": t.hour, "min": t.minute,
        "sec": t.second, "wday": (t.weekday() + 1) % 7 + 1, "yday": 0, "isdst": False,
    }  # fmt: skip
    return True, _inputs.constructor_source({"fields": fields, "flags": _flags(t)})


_FIELDS = (("year", -1), ("month", -1), ("day", -1), ("hour", 12), ("min", 0), ("sec", 0))
_INT64 = 2**63


def os_time(*fields: Any) -> Result:
    """Seconds since the epoch of a date table; out-of-range parts carry over as Go's time.Date
    normalizes them. Missing parts: day, month and year -1, hour 12, min and sec 0. A part or a
    result beyond Go's int64 is an error (Go would wrap it silently)."""
    parts = []
    for value, (name, default) in zip(fields, _FIELDS, strict=True):
        if not isinstance(value, int | float) or isinstance(value, bool):
            parts.append(default)
        elif math.isfinite(value) and -_INT64 <= value < _INT64:
            parts.append(int(value))
        else:
            return False, f"field '{name}' {value} is out of range"
    year, month, day, hour, minute, second = parts
    y, m = divmod(year * 12 + (month - 1), 12)
    days = _days_from_civil(y, m + 1) + day - 1
    seconds = days * 86400 + hour * 3600 + minute * 60 + second
    if not -_INT64 <= seconds < _INT64:
        return False, "the date is out of range"
    return True, seconds


def _days_from_civil(year: int, month: int) -> int:
    """Days from 1970-01-01 to the first of a month (proleptic Gregorian, any year)."""
    y = year - (1 if month <= 2 else 0)
    era = y // 400
    yoe = y - era * 400
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468
