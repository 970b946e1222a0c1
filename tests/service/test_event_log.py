"""The service's log: one line per event, text or JSON, with the source commit in each.

Aspects covered:
- text lines: UTC time, event name, `source=`, then fields; values with spaces or quotes are
  JSON-quoted, booleans lowercase, floats with three decimals, None as "";
- JSON lines parse back to the event with stable keys;
- lines written from many threads never interleave.
"""

from __future__ import annotations

import io
import json
import threading

import pytest

from gitfleet.service import events

EVENT = events.Event(
    "rendered",
    "c" * 40,
    1_790_000_000.5,
    {"commit": "d" * 40, "seconds": 0.25, "created": True, "error": None, "message": 'a "b" c'},
)


def test_text_line() -> None:
    assert events.text_line(EVENT) == (
        f"2026-09-21T14:13:20.500Z rendered source={'c' * 40} commit={'d' * 40} "
        'seconds=0.250 created=true error="" message="a \\"b\\" c"'
    )


def test_json_line_round_trips() -> None:
    parsed = json.loads(events.json_line(EVENT))
    assert list(parsed)[:3] == ["time", "event", "source"]
    assert parsed == {
        "time": "2026-09-21T14:13:20.500Z",
        "event": "rendered",
        "source": "c" * 40,
        "commit": "d" * 40,
        "seconds": 0.25,
        "created": True,
        "error": None,
        "message": 'a "b" c',
    }


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_lines_from_threads_never_interleave(fmt: str) -> None:
    stream = io.StringIO()
    log = events.LineLog(stream, fmt)

    def write(n: int) -> None:
        for i in range(200):
            log(events.Event("tick", str(n), 0.0, {"i": i, "pad": "x" * 200}))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 800
    parse = json.loads if fmt == "json" else (lambda line: line.split(" ")[3])
    assert all(parse(line) for line in lines)
    assert all(line.count("tick") == 1 for line in lines)
