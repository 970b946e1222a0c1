"""Reading the log of a long-running command started as a process, one JSON event a line."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

import pytest

BOUND = 20.0


def read_until(process: subprocess.Popen[str], event: str, lines: list[str]) -> dict[str, Any]:
    """Read log lines into `lines` up to the first `event`; the process is killed (and the
    test fails) if it does not come within BOUND seconds."""
    assert process.stdout is not None
    watchdog = threading.Timer(BOUND, process.kill)
    watchdog.start()
    try:
        while line := process.stdout.readline():
            lines.append(line)
            if (found := json.loads(line))["event"] == event:
                return found  # type: ignore[no-any-return]
    finally:
        watchdog.cancel()
    pytest.fail(f"the process ended before logging {event}")
