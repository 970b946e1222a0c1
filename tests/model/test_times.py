"""Times as every stage reads them and counts from them (gitfleet.model.times).

Aspects: RFC 3339 with a zone, without one (UTC), unreadable (None), and one whose UTC
moment falls outside the years a datetime holds (None, not an overflow later on); seconds
added past the last year or taken back before the first one stop at the last or first moment
there is, whatever the number (a toleration of int64 seconds, a hostile `1e23`).
"""

from __future__ import annotations

import datetime

import pytest

from gitfleet.model import times

UTC = datetime.UTC
LATEST = datetime.datetime.max.replace(tzinfo=UTC)
EARLIEST = datetime.datetime.min.replace(tzinfo=UTC)
NOON = datetime.datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("2026-03-01T12:00:00Z", NOON, id="utc"),
        pytest.param("2026-03-01T13:00:00+01:00", NOON, id="offset"),
        pytest.param("2026-03-01T12:00:00", NOON, id="no zone is utc"),
        pytest.param("yesterday", None, id="unreadable"),
        pytest.param("0001-01-01T00:00:00+01:00", None, id="before the first utc moment"),
        pytest.param("9999-12-31T23:59:59-01:00", None, id="after the last utc moment"),
    ],
)
def test_parse(text: str, expected: datetime.datetime | None) -> None:
    assert times.parse(text) == expected


@pytest.mark.parametrize(
    ("moment", "seconds", "expected"),
    [
        pytest.param(NOON, 60, datetime.datetime(2026, 3, 1, 12, 1, tzinfo=UTC), id="a minute"),
        pytest.param(NOON, 2**63 - 1, LATEST, id="int64 seconds"),
        pytest.param(NOON, 1e23, LATEST, id="1e23 seconds"),
        pytest.param(LATEST, 1, LATEST, id="past the last moment"),
        pytest.param(NOON, -(2**63), EARLIEST, id="before the first moment"),
    ],
)
def test_later_stops_at_the_ends_of_time(
    moment: datetime.datetime, seconds: float, expected: datetime.datetime
) -> None:
    assert times.later(moment, seconds) == expected
    assert times.text(times.later(moment, seconds))
