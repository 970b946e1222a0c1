"""Messages as status files record them: one line, of bounded size.

API servers answer some refusals with many lines (a PersistentVolumeClaim's changed spec comes
with a Go diff of the two specs, a patch it cannot decode with the whole patched object), and
errors from elsewhere may carry newlines too. Kept whole, such a message spreads over a
status file and breaks the one-line-per-problem form `gitfleet status` prints. So a recorded
message is its first line, with how many lines were left out (`... (+17 more lines)`), its
other control characters escaped (`origin.shown`: a NUL, a terminal's escape sequence), cut
to `MAX_BYTES` of UTF-8; the whole text stays in the agent's log. Whoever reads a message
from a status file (written by a cluster's credential, so by anyone holding it) reads it
through `one_line` again before printing it.
"""

from __future__ import annotations

from gitfleet.model.origin import shown

MAX_BYTES = 1024
"""The most a recorded message takes, in UTF-8 bytes."""
_CUT = "…"


def one_line(text: str, max_bytes: int = MAX_BYTES, *, keep_end: int = 0) -> str:
    """`text` as one line of at most `max_bytes` bytes: its first line that is not blank,
    with its control characters escaped, then how many lines follow it, when some do; a line
    cut to fit ends with `…`, or, with `keep_end`, keeps its last `keep_end` bytes (at most
    half of what fits) after the `…` (an API server says its verdict last: `spec.template:
    Invalid value: core.PodTemplateSpec{...}: field is immutable`). Every line break Python
    knows (`\\r`, `\\u2028`, ...) counts, so the result never holds one."""
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    if not lines:
        return ""
    left = len(lines) - 1
    tail = f" (+{left} more line{'s' if left > 1 else ''})" if left else ""
    first = shown(lines[0])
    room = max_bytes - len(tail.encode())
    if len(first.encode()) > room:
        data, free = first.encode(), max(room - len(_CUT.encode()), 0)
        end = data[len(data) - min(keep_end, free // 2) :] if keep_end else b""
        head = data[: free - len(end)]
        first = head.decode(errors="ignore") + _CUT + end.decode(errors="ignore")
    return first + tail
