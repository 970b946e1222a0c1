"""`os.time` and `os.date` (Karmada: lifted/lua/oslib_safe.go) on the clock the caller gives.

Aspects covered:
- `os.time()` is the caller's `now`, whole seconds; `os.time(t)` normalizes out-of-range parts
  as Go's time.Date does, with Karmada's defaults for missing ones;
- `os.date` flags rendered as Karmada renders them (its `%a` quirk included), `!` accepted,
  `*t` tables, an explicit time argument, unknown flags and `%%`, a number for the format
  printed as gopher-lua prints it;
- the rest of `os` is absent, and `math.random` is deterministic within a call.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.interpreter.lua.conftest import Run

NOW = 1_700_000_000.75
"""2023-11-14T22:13:20Z, a Tuesday."""

CASES = [
    pytest.param("return os.time()", 1_700_000_000, id="now"),
    pytest.param("return os.date('!%Y-%m-%dT%H:%M:%SZ')", "2023-11-14T22:13:20Z", id="rfc3339"),
    pytest.param("return os.date('%F %X')", "2023-11-14 22:13:20", id="F and X"),
    pytest.param("return os.date('%A %B %b %d %y')", "Tuesday November Nov 14 23", id="names"),
    pytest.param("return os.date('%a')", "mon", id="Karmada's %a"),
    pytest.param("return os.date('%I %p %P %w')", "10 PM pm 2", id="12-hour clock"),
    pytest.param("return os.date('%z %Z')", "+0000 UTC", id="zone"),
    pytest.param("return os.date('%q %% 100%')", "%q % 100%", id="unknown flag and percent"),
    pytest.param("return os.date('%c')", "14 Nov 23 22:13 UTC", id="default-like %c"),
    pytest.param("return os.date('!%Y', 0)", "1970", id="explicit time"),
    pytest.param("return os.date(2^53)", "9007199254740992", id="number format printed"),
    pytest.param(
        "local t = os.date('*t') return t.year * 10000 + t.month * 100 + t.day + t.wday / 10",
        20231114.3,
        id="*t",
    ),
    pytest.param(
        "return os.time({year = 2024, month = 2, day = 30, hour = 0})",
        1_709_251_200,
        id="normalized",
    ),
    pytest.param("return os.time({year = 1970, month = 1, day = 1})", 43_200, id="default hour 12"),
    pytest.param("return os.clock", None, id="no clock"),
    pytest.param("return os.getenv", None, id="no getenv"),
    pytest.param(
        "local a = math.random(1, 1000) local b = math.random() return a > 0 and b < 1",
        True,
        id="random",
    ),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_os_library(run: Run, body: str, expected: Any) -> None:
    assert run(f"function F() {body} end", now=NOW) == [expected]


def test_random_is_the_same_in_every_call(run: Run) -> None:
    script = "function F() return {math.random(100), math.random(100), math.random(100)} end"
    first = run(script)
    assert first == run(script)
    assert len(set(first[0])) > 1
