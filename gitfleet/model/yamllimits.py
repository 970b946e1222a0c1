"""The limits every YAML reader of gitfleet holds to, whoever wrote the text it reads.

YAML can describe far more than it spells out. Aliases share one node many times over, and a
merge key (`<<`) copies a mapping's entries into another: ten aliases a level, ten levels deep,
make ten billion values from a few hundred bytes; a mapping that merges itself, or a list that
holds itself, never ends. libyaml's composer and PyYAML's constructor also recurse once per
level of nesting. Source files, the status files agents write, the rendered branch and the
documents held inside fields all come from people or programs gitfleet does not control, so
they are checked before any value is built:

- `too_deep`, on the text: nesting deeper than `MAX_DEPTH`. A cheap bound from the bytes (flow
  brackets, block indentation) clears ordinary files; only files that fail it are measured
  exactly from libyaml's event stream, which does not recurse.
- `expansion_problem`, on each composed document (only needed when the text has anchors):
  the document as a reader sees it once every alias and merge key is followed, without
  building it. Each shared node is measured once, so the check costs what the text holds, not
  what it expands to. A collection that contains itself (through an alias or a merge key) is
  refused at the entry that closes the loop; more than `MAX_EXPANDED_VALUES` values, or
  nesting deeper than `MAX_DEPTH` once expanded (merge keys count as one level, as readers
  flatten them recursively), is refused at the collection that goes over.

Values are then built by the reader's own constructors, which PyYAML's safe loader lets fail
with whatever Python raises: `!!int abc`, `!!bool maybe`, `!!timestamp x`, `2026-02-30`, a
decimal of more digits than Python converts. So every loader is read with `_Scalars` mixed in:

- a plain scalar (no tag) that the type its spelling suggests cannot hold stays text, as
  go-yaml, and so kubectl, keeps it: `2026-02-30T00:00:00Z`, a number of 5,000 digits, `0x_`;
- a scalar whose explicit tag cannot hold it is `ScalarError` at the scalar, in the words of
  the source's own reader (`'abc' is not an integer`, `model.yamlscalars.unreadable`).

`load`, `load_all` and `documents` are `yaml.load` and `yaml.load_all` with both checks and
those rules; `composed` gives the checked documents to a reader that builds values its own
way (`overrides._goyaml`, go-yaml's rules). Their errors are `LocatedError`s,
`yaml.MarkedYAMLError`s, so readers that handle YAML errors handle them as well.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator
from typing import Any

import yaml
from yaml import constructor, nodes, resolver

from gitfleet.model import yamlscalars

MAX_DEPTH = 200
"""Deepest nesting of collections a document may have (Kubernetes objects stay far below)."""
MAX_EXPANDED_VALUES = 1_000_000
"""Most values one document may hold once its aliases and merge keys are followed."""
MERGE_TAG = "tag:yaml.org,2002:merge"

_FLOW_BUDGET = 80
_BLOCK_BUDGET = 60
# A block collection starts at a column no smaller than its parent's, and one column holds at
# most two levels (a mapping and the sequence that is one of its values), so lines whose
# structural prefix (indentation, `- `, `? `, `: `) stays under _BLOCK_BUDGET columns nest at
# most 2 * _BLOCK_BUDGET block levels; flow collections add at most one level per bracket.
assert 2 * _BLOCK_BUDGET + _FLOW_BUDGET <= MAX_DEPTH
_DEEP_PREFIX = re.compile(rb"^[ \t?:-]{%d}" % _BLOCK_BUDGET, re.MULTILINE)
_TOO_DEEP = f"nesting deeper than {MAX_DEPTH} levels"
_TOO_DEEP_EXPANDED = f"aliases and merge keys nest deeper than {MAX_DEPTH} levels"
_TOO_MANY = f"aliases and merge keys expand to more than {MAX_EXPANDED_VALUES} values"


@dataclasses.dataclass(frozen=True, slots=True)
class Problem:
    """Something wrong at a place in the text (1-based line and column; 0 = whole text)."""

    line: int
    col: int
    message: str


class LocatedError(yaml.MarkedYAMLError):
    """A problem at a place in the text; `problem_mark` says where. It prints as one line,
    `line L, column C: message`, which readers put in their own one-line problems."""

    def __init__(self, problem: Problem) -> None:
        mark = yaml.Mark("<text>", 0, max(problem.line - 1, 0), max(problem.col - 1, 0), "", 0)
        super().__init__(problem=problem.message, problem_mark=mark)
        self.located = problem

    def __str__(self) -> str:
        return f"line {self.located.line}, column {self.located.col}: {self.located.message}"


class LimitError(LocatedError):
    """A text over one of the limits."""


class ScalarError(LocatedError):
    """A scalar its explicit tag cannot hold (`!!int abc`, `!!timestamp x`)."""


def position(text: str, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of a character offset."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def too_deep(data: bytes) -> Problem | None:
    """Where the text nests deeper than `MAX_DEPTH`, if it does (syntax errors are left to
    the reader, which reports them located)."""
    flow = data.count(b"[") + data.count(b"{")
    if flow <= _FLOW_BUDGET and _DEEP_PREFIX.search(data) is None:
        return None
    flow_depth = 0
    for offset, byte in enumerate(data):
        if byte in b"[{":
            flow_depth += 1
            if flow_depth > MAX_DEPTH:
                return Problem(
                    *position(data[:offset].decode("utf-8", "replace"), offset), _TOO_DEEP
                )
        elif byte in b"]}":
            flow_depth = max(flow_depth - 1, 0)
    depth = 0
    try:
        for event in yaml.parse(data, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    assert mark is not None
                    return Problem(mark.line + 1, mark.column + 1, _TOO_DEEP)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # Newer libyaml builds stop at their own nesting limit before we count that deep.
        if "nesting depth" in str(exc.problem) and exc.problem_mark is not None:
            mark = exc.problem_mark
            return Problem(mark.line + 1, mark.column + 1, _TOO_DEEP)
    except yaml.YAMLError:
        pass
    return None


def _mark(mark: Any) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


def _entries(node: nodes.Node, merging: bool) -> Iterator[tuple[nodes.Node, Any, bool]]:
    """A collection's children as a reader walks them: (child, where its entry is, whether it
    is merged in); the items of a list after `<<` (`merging`) are merged in."""
    if isinstance(node, nodes.SequenceNode):
        for item in node.value:
            yield item, node.start_mark, merging
    elif isinstance(node, nodes.MappingNode):
        for key, value in node.value:
            merged = key.tag == MERGE_TAG
            if not merged:
                yield key, key.start_mark, False
            yield value, key.start_mark, merged


@dataclasses.dataclass(slots=True)
class _Walked:
    """A collection on the path being walked: its entries left, and its expansion so far."""

    node: nodes.Node
    entries: Iterator[tuple[nodes.Node, Any, bool]]
    where: Any
    """The mark of the entry it was reached from."""
    values: int = 1
    depth: int = 1


def _add(parent: _Walked, values: int, depth: int, where: Any) -> Problem | None:
    parent.values += values
    parent.depth = max(parent.depth, depth + 1)
    if parent.values > MAX_EXPANDED_VALUES:
        return Problem(*_mark(where), _TOO_MANY)
    if parent.depth > MAX_DEPTH:
        return Problem(*_mark(where), _TOO_DEEP_EXPANDED)
    return None


def expansion_problem(root: nodes.Node) -> Problem | None:
    """What is wrong with a composed document once aliases and merge keys are followed (see
    the module), or None. Iterative: a document may be deeper than Python's stack."""
    measured: dict[int, tuple[int, int]] = {}
    """Values and depth of each collection's expansion, by node id, once measured."""
    path = [_Walked(root, _entries(root, False), root.start_mark)]
    on_path = {id(root)}
    while path:
        walked = path[-1]
        for child, where, merged in walked.entries:
            if isinstance(child, nodes.ScalarNode):
                walked.values += 1
                continue
            if id(child) in on_path:
                if merged:
                    return Problem(*_mark(where), "'<<' merges a mapping into itself")
                return Problem(*_mark(where), "an alias makes a collection contain itself")
            found = measured.get(id(child))
            if found is None:
                if len(path) >= MAX_DEPTH:
                    return Problem(*_mark(where), _TOO_DEEP_EXPANDED)
                path.append(_Walked(child, _entries(child, merged), where))
                on_path.add(id(child))
                break
            problem = _add(walked, *found, where)
            if problem is not None:
                return problem
        else:
            path.pop()
            on_path.discard(id(walked.node))
            measured[id(walked.node)] = (walked.values, walked.depth)
            if path:
                problem = _add(path[-1], walked.values, walked.depth, walked.where)
                if problem is not None:
                    return problem
    return None


def composed(reader: Any, data: bytes | str) -> Iterator[nodes.Node]:
    """The documents a PyYAML loader `reader` composes from `data`, each checked against the
    limits before it is handed out; `LimitError` at the first that is not."""
    raw = data.encode() if isinstance(data, str) else data
    problem = too_deep(raw)
    if problem is not None:
        raise LimitError(problem)
    anchored = b"&" in raw
    while reader.check_node():
        node = reader.get_node()
        problem = expansion_problem(node) if anchored else None
        if problem is not None:
            raise LimitError(problem)
        yield node


_FAILING = (ArithmeticError, AttributeError, LookupError, TypeError, ValueError)
"""What PyYAML's constructors raise on a scalar they cannot build: `int("abc")`, the digit
limit of `int`, a missing key of the booleans, a timestamp the pattern does not match (None
has no `groupdict`), a day past the month's end, an offset of 99 hours."""
_FALLIBLE = frozenset((yamlscalars.INT, yamlscalars.FLOAT, yamlscalars.TIMESTAMP))
"""The types a plain scalar is resolved to by a pattern that admits what they cannot hold
(PyYAML's booleans and nulls are looked up whole)."""


class _Scalars(constructor.BaseConstructor, resolver.BaseResolver):
    """Mixed into a loader: a plain scalar its resolved type cannot hold stays text, and a
    tagged one is a `ScalarError` at the node (see the module)."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        if kind is nodes.ScalarNode and tag in _FALLIBLE:
            try:
                self.yaml_constructors[tag](self, nodes.ScalarNode(tag, value))
            except _FAILING:
                return yamlscalars.STR
        return tag

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except _FAILING as exc:
            message = yamlscalars.unreadable(node.tag, node.value)
            raise ScalarError(Problem(*_mark(node.start_mark), message)) from exc


_READERS: dict[type[Any], type[Any]] = {}
"""Each loader a reader named, with `_Scalars` mixed in."""


def _reader(loader: type[Any]) -> type[Any]:
    found = _READERS.get(loader)
    if found is None:
        found = _READERS[loader] = type(loader.__name__, (_Scalars, loader), {})
    return found


def documents(
    data: bytes | str, loader: type[Any] = yaml.CSafeLoader
) -> Iterator[tuple[nodes.Node, Any]]:
    """Each document of `data` with its root node, read with `loader` (see the module)."""
    reader = _reader(loader)(data)
    try:
        for node in composed(reader, data):
            yield node, reader.construct_document(node)
    finally:
        reader.dispose()


def load_all(data: bytes | str, loader: type[Any] = yaml.CSafeLoader) -> list[Any]:
    """Every document of `data`, as `yaml.load_all` reads them with `loader`, once the limits
    hold; a `LocatedError` (a `yaml.YAMLError`) when they do not, or a value cannot be built."""
    return [value for _, value in documents(data, loader)]


def load(data: bytes | str, loader: type[Any] = yaml.CSafeLoader) -> Any:
    """The single document of `data` (None when there is none), as `yaml.load` reads it with
    `loader`, once the limits hold; a `yaml.YAMLError` when they do not, a value cannot be
    built or there are more."""
    reader = _reader(loader)(data)
    try:
        found = list(itertools.islice(composed(reader, data), 2))
        if len(found) > 1:
            mark = found[1].start_mark
            raise yaml.composer.ComposerError(
                None, None, "expected a single document in the stream", mark
            )
        return reader.construct_document(found[0]) if found else None
    finally:
        reader.dispose()
