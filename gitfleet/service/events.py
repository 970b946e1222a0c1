"""The reconciler's log: one line per event, as `key=value` text or as one JSON object.

Every event names the source commit it concerns (empty when none is known yet, e.g. before the
first fetch), so `grep <sha>` over a log shows a commit's whole story: seen, rendered, pushed,
or refused and why. Lines are written whole under a lock, so threads (webhook server, watcher,
engine) never interleave within a line.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Mapping
from typing import IO

from gitfleet.monitor import logs

Value = str | int | float | bool | None


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """Something the service did or saw. `time` is seconds since the epoch."""

    name: str
    source: str
    time: float
    fields: Mapping[str, Value] = dataclasses.field(default_factory=dict)

    def as_dict(self) -> dict[str, Value]:
        return {
            "time": logs.stamp(self.time),
            "event": self.name,
            "source": self.source,
            **self.fields,
        }


Sink = Callable[[Event], None]
"""Where events go: a log stream, or a list in tests."""


def _text_value(value: Value) -> str:
    if value is None:
        return '""'
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.3f}"
    text = str(value)
    plain = text and not any(c.isspace() or c in '"=\\' for c in text)
    return text if plain else json.dumps(text, ensure_ascii=False)


def text_line(event: Event) -> str:
    """`<time> <event> source=<sha> key=value ...` (values with spaces are JSON-quoted)."""
    parts = [logs.stamp(event.time), event.name, f"source={_text_value(event.source)}"]
    parts += [f"{key}={_text_value(value)}" for key, value in event.fields.items()]
    return " ".join(parts)


def json_line(event: Event) -> str:
    """The event as one JSON object with stable keys (`time`, `event`, `source`, then fields)."""
    return json.dumps(event.as_dict(), ensure_ascii=False, separators=(",", ":"))


FORMATS: Mapping[str, Callable[[Event], str]] = {"text": text_line, "json": json_line}


class LineLog:
    """A sink writing each event as one flushed line to `stream`."""

    def __init__(self, stream: IO[str], fmt: str = "text") -> None:
        self._stream = stream
        self._format = FORMATS[fmt]
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = self._format(event) + "\n"
        with self._lock:
            self._stream.write(line)
            self._stream.flush()
