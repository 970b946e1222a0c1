"""Reading the log of a long-running command started as a process, one JSON object a line."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable
from typing import IO, Any

import pytest

BOUND = 20.0


def read_until(process: subprocess.Popen[str], event: str, lines: list[str]) -> dict[str, Any]:
    """Read the reconciler's event lines (stdout) into `lines` up to the first `event`."""
    assert process.stdout is not None
    return first(process, process.stdout, lambda found: found["event"] == event, lines, event)


def first(
    process: subprocess.Popen[str],
    stream: IO[str],
    wanted: Callable[[dict[str, Any]], bool],
    lines: list[str],
    what: str,
) -> dict[str, Any]:
    """Read JSON lines of `stream` into `lines` up to the first `wanted` one; the process is
    killed (and the test fails) if it does not come within BOUND seconds."""
    watchdog = threading.Timer(BOUND, process.kill)
    watchdog.start()
    try:
        while line := stream.readline():
            lines.append(line)
            if wanted(found := json.loads(line)):
                return found  # type: ignore[no-any-return]
    finally:
        watchdog.cancel()
    pytest.fail(f"the process ended before logging {what}")
