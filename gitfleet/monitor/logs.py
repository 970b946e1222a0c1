"""Log lines for machines: `--log-format json` writes each record as one JSON object on one
line, with the same `time` as the reconciler's events (RFC 3339, milliseconds, UTC), then
`level`, `logger` and `message`; a traceback goes into `error`, escaped, so it stays on the line.
"""

from __future__ import annotations

import datetime
import json
import logging
import sys

FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def stamp(when: float) -> str:
    """`when` (seconds since the epoch) as RFC 3339 in UTC, to the millisecond."""
    moment = datetime.datetime.fromtimestamp(when, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(logging.Formatter):
    """One JSON object per record, keys in a stable order."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, str] = {
            "time": stamp(record.created),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def configure(fmt: str, level: int) -> None:
    """Send log records to stderr in `fmt` (one of `FORMATS`), unless logging is already set
    up (by a test, or an application embedding gitfleet)."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
