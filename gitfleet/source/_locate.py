"""Field positions on demand: re-compose a file when an error first asks, then walk keys.

Loading records only each document's own position. When a stage reports a problem at
`origin.at("spec", "placement", 0)`, the locator composes the file once (libyaml, no values
built), keeps the node trees, and walks the key path; keys are compared as the loader made
them (so `yes:` is found as "true"). A mapping entry is located at its key, a list item at
the item; a key set more than once (by `<<` merges) is found where it is set last, the
value the loader kept (`_yaml.assignments`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from yaml import nodes

from gitfleet.model.origin import Locator, PathKey
from gitfleet.source import _yaml


class FileLocator:
    """Positions inside one file's documents, composed on first use."""

    __slots__ = ("_data", "_lock", "_roots")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._roots: list[nodes.Node] | None = None
        self._lock = threading.Lock()

    def document(self, index: int) -> Locator:
        """The locator of the file's `index`-th document."""

        def locate(keys: tuple[PathKey, ...]) -> tuple[int, int] | None:
            return self.locate(index, keys)

        return locate

    def locate(self, index: int, keys: Sequence[PathKey]) -> tuple[int, int] | None:
        with self._lock:
            if self._roots is None:
                self._roots = _yaml.compose(self._data)
        if index >= len(self._roots):
            return None
        node = self._roots[index]
        mark = node.start_mark
        for key in keys:
            found = _child(node, key)
            if found is None:
                return None
            mark, node = found
        return mark.line + 1, mark.column + 1


def _child(node: nodes.Node, key: PathKey) -> tuple[object, nodes.Node] | None:
    """(mark to report, child node) for one step of a key path."""
    if isinstance(node, nodes.SequenceNode):
        if isinstance(key, int) and 0 <= key < len(node.value):
            child: nodes.Node = node.value[key]
            return child.start_mark, child
        return None
    if not isinstance(node, nodes.MappingNode):
        return None
    wanted = str(key)
    found = None
    for key_node, value_node, _ in _yaml.assignments(node):  # a loaded document's: they load
        if _yaml.key_of(key_node) == wanted:
            found = key_node.start_mark, value_node
    return found
