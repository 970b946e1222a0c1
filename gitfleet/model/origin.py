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


_INVISIBLE = "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
"""Characters that print as nothing yet change what is shown: zero-width ones, and the
bidirectional controls that display a text in another order than it is read ("Trojan
Source": `"\\u202erenim/live"` displays as `"evil/miner"`)."""
_HIDDEN = re.compile(f"[{_INVISIBLE}]")
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_INVISIBLE}]")


def _escaped(found: re.Match[str]) -> str:
    return found[0].encode("unicode_escape").decode("ascii")


def shown(text: str) -> str:
    """`text` (a path, a message) as printed: a file name may hold any character but `/` (a
    pull request can add one holding a new line, or a terminal's escape sequence), so control
    characters, line separators and the invisible characters of `visible` are written as
    Python escapes (`\\n`, `\\x1b`, `\\u202e`): one problem stays one line, and nothing a name
    holds acts on a terminal, fakes a line of its own or shows as something it is not."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(_escaped, text)


def visible(text: str) -> str:
    """`text` (lines of a manifest, say) with its zero-width characters and bidirectional
    controls written as escapes (`\\u202e`), and nothing else changed: shown to a reviewer, it
    reads in the order and with the characters it holds."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(_escaped, text)


UNKNOWN = Origin("<unknown>")
