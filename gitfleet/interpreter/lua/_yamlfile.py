"""YAML files read for customizations kept outside a source repository: Karmada's third-party
folders and the files `gitfleet interpret` is given.

Values are read as Kubernetes reads YAML into JSON (sigs.k8s.io/yaml over YAML 1.1): timestamps
stay strings. Each document keeps an `Origin` whose locator finds a field's line and column, so
a failing script is reported at its `luaScript` field. A source repository's files go through
`gitfleet.source` instead; this reader is for the interpreter's own inputs and stays small.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from yaml import nodes

from gitfleet.errors import SourceError, YamlError
from gitfleet.model import loaded, yamllimits
from gitfleet.model.origin import Locator, Origin, PathKey

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader without the timestamp type (JSON has none)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


STDIN = "-"
"""The file name that reads standard input, as kubectl's and karmadactl's `-f -`."""


def read(path: Path) -> list[tuple[Any, Origin]]:
    """The documents of a YAML file (`documents`; `-`: standard input); `SourceError` when it
    cannot be read or holds more than a source file may (`/dev/zero` would be read until
    memory runs out), a `YamlError` at the first offending character when it is not UTF-8
    text, as a source repository's file would be reported."""
    where = os.fspath(path)
    limit = loaded.DEFAULT_MAX_FILE_SIZE
    try:
        if where == STDIN:
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with path.open("rb") as file:
                data = file.read(limit + 1)
    except OSError as e:
        raise SourceError(Origin(where), f"cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        message = f"more than {limit} bytes, the limit of a source file (maxFileSize)"
        raise SourceError(Origin(where), message)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start].decode("utf-8")
        line, col = yamllimits.position(before, len(before))
        raise YamlError(Origin(where, line, col), "file is not UTF-8 text") from None
    return documents(where, text)


def documents(path: str, text: str) -> list[tuple[Any, Origin]]:
    """The non-empty documents of a YAML text, each with its origin; `YamlError` if it is not
    valid YAML."""
    out = []
    try:
        for node, value in yamllimits.documents(text, _Loader):
            if value is None:
                continue
            mark = node.start_mark
            out.append(
                (value, Origin(path, mark.line + 1, mark.column + 1, locator=_locator(node)))
            )
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = Origin(path, mark.line + 1, mark.column + 1) if mark else Origin(path)
        raise YamlError(where, f"invalid YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise YamlError(Origin(path), f"invalid YAML: {e}") from None
    return out


def _locator(root: nodes.Node) -> Locator:
    def locate(keys: tuple[PathKey, ...]) -> tuple[int, int] | None:
        node = root
        mark = root.start_mark
        for key in keys:
            found = _child(node, key)
            if found is None:
                return None
            mark, node = found
        return mark.line + 1, mark.column + 1

    return locate


def _child(node: nodes.Node, key: PathKey) -> tuple[Any, nodes.Node] | None:
    """A mapping entry is located at its key, a sequence item at the item."""
    if isinstance(node, nodes.MappingNode) and isinstance(key, str):
        for key_node, value_node in node.value:
            if isinstance(key_node, nodes.ScalarNode) and key_node.value == key:
                return key_node.start_mark, value_node
    if isinstance(node, nodes.SequenceNode) and isinstance(key, int):
        items: Sequence[nodes.Node] = node.value
        if 0 <= key < len(items):
            return items[key].start_mark, items[key]
    return None
