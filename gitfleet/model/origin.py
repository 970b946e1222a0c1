"""Where a value came from: file, line and column, so every stage can point users at their YAML.

An `Origin` names a document; `origin.at(*keys)` narrows it to one field inside that document.
Field positions are computed on demand by the loader's locator (parsing positions for every
field of every document up front would cost more than the whole load), so asking is cheap
until an error actually needs a position. A path prints with its control characters escaped
(`shown`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

PathKey = str | int
Locator = Callable[[tuple[PathKey, ...]], tuple[int, int] | None]
"""Maps a key path inside one document to its (line, col), 1-based; None if absent."""


@dataclasses.dataclass(frozen=True, slots=True)
class Origin:
    """A position in the source: 1-based line and column; line 0 means the whole file."""

    path: str
    line: int = 0
    col: int = 0
    keys: tuple[PathKey, ...] = ()
    locator: Locator | None = dataclasses.field(default=None, compare=False, repr=False)

    def at(self, *keys: PathKey) -> Origin:
        """The origin of a field below this one; the nearest located ancestor if it is absent."""
        full = self.keys + keys
        if self.locator is not None:
            for end in range(len(full), len(self.keys), -1):
                found = self.locator(full[:end])
                if found is not None:
                    return Origin(self.path, found[0], found[1], full, self.locator)
        return Origin(self.path, self.line, self.col, full, self.locator)

    def __str__(self) -> str:
        path = shown(self.path)
        if self.line <= 0:
            return path
        return f"{path}:{self.line}:{self.col}"

    def says(self, text: str) -> str:
        """`text` printed as said here, `path:line:col: text`, one line whatever it holds: a
        message names the user's objects, and a name the source gives may hold a new line
        (its error says so) or a terminal's escape sequence, written escaped as in `shown`."""
        return f"{self}: {shown(text)}"


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def shown(text: str) -> str:
    """`text` (a path, a message) as printed: a file name may hold any character but `/` (a
    pull request can add one holding a new line, or a terminal's escape sequence), so control
    characters and line separators are written as Python escapes (`\\n`, `\\x1b`): one problem
    stays one line, and nothing a name holds acts on a terminal or fakes a line of its own."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda found: found[0].encode("unicode_escape").decode("ascii"), text)


UNKNOWN = Origin("<unknown>")
