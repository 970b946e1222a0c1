"""Parse one YAML file into documents, fast, strictly, and safely.

Speed comes from PyYAML's C parser (libyaml) with a constructor that does less work than
PyYAML's own safe one (scalars skip its bookkeeping); positions are captured only for each
document's root (the locator in `_locate` recomputes field positions when an error needs them).

Strictness: scalars resolve as Kubernetes resolves them (`model.yamlscalars`); duplicate keys,
keys that cannot be JSON object keys, values JSON cannot hold (.inf, .nan) and tags other than
the core ones (`!!python/...`, `!foo`, `!!binary`, ...) are errors located at the offending
node. An error inside one document does not hide the documents after it; a syntax error ends
the file.

Safety: bytes that are not UTF-8 text (NUL, invalid sequences) are refused before parsing;
nesting, aliases and merge keys are held to `model.yamllimits`, checked on the text before
composing and on each composed document before any value is built (merge keys are flattened
here, so only a document within those limits reaches `_merged`). A merge key takes effect
where it stands, as in kubectl's reader (`assignments`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Generator, Hashable, Iterator
from typing import Any, ClassVar

import yaml
from yaml import nodes
from yaml._yaml import CParser

from gitfleet.model import yamllimits as _limits
from gitfleet.model import yamlscalars as _scalars

MAX_DEPTH = _limits.MAX_DEPTH
MAX_EXPANDED_VALUES = _limits.MAX_EXPANDED_VALUES
MERGE_TAG = _scalars.MERGE
_STR = _scalars.STR
_plain_tag = functools.lru_cache(maxsize=1 << 16)(_scalars.implicit_tag)
"""Tags of plain scalars, remembered: manifests repeat the same keys and values endlessly."""
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


@dataclasses.dataclass(frozen=True, slots=True)
class Parsed:
    """One document of a file: its position among the file's documents and its root's place."""

    index: int
    value: Any
    line: int
    col: int


Problem = _limits.Problem
"""Something wrong at a place in the file (1-based line and column; 0 = whole file)."""


class _Refused(Exception):
    """A node the constructor will not build; carries where and why."""

    def __init__(self, node: nodes.Node, message: str) -> None:
        super().__init__(message)
        self.problem = Problem(node.start_mark.line + 1, node.start_mark.column + 1, message)


def _refuse_tag(loader: _Loader, node: nodes.Node) -> Any:
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    raise _Refused(node, f"unsupported tag {tag!r}")


class _Loader(CParser, yaml.constructor.SafeConstructor):
    """libyaml's parser with go-yaml v2 scalar rules and strict, JSON-shaped construction."""

    yaml_constructors: ClassVar[dict[Any, Any]] = {}
    yaml_multi_constructors: ClassVar[dict[Any, Any]] = {}

    def __init__(self, data: bytes) -> None:
        CParser.__init__(self, data)
        yaml.constructor.SafeConstructor.__init__(self)
        self.root = (0, 0)

    def descend_resolver(self, parent: nodes.Node | None, index: object) -> None:
        """No path-dependent tags: libyaml calls this for every node, so it does nothing."""

    def ascend_resolver(self) -> None:
        """See `descend_resolver`."""

    def resolve(self, kind: type[nodes.Node], value: str, implicit: tuple[bool, bool]) -> str:
        if kind is nodes.ScalarNode:
            return _plain_tag(value) if implicit[0] else _STR
        return _SEQ if kind is nodes.SequenceNode else _MAP

    def construct_document(self, node: nodes.Node) -> Any:
        self.root = (node.start_mark.line + 1, node.start_mark.column + 1)
        try:
            return super().construct_document(node)
        finally:  # a refused node leaves the constructor mid-document; start the next one clean
            self.state_generators = []
            self.constructed_objects = {}
            self.recursive_objects = {}
            self.deep_construct = False

    def construct_mapping(self, node: nodes.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        _expect(node, nodes.MappingNode)
        mapping: dict[Hashable, Any] = {}
        own: set[Hashable] | None = None
        """The mapping's own keys, once a merge has set others (before, all of them are)."""
        for key_node, value_node in node.value:
            if key_node.tag == MERGE_TAG:
                own = set(mapping) if own is None else own
                for merged_key, merged_value in _merged(value_node):
                    mapping[self._key(merged_key, deep)] = self.construct_value(merged_value, deep)
                continue
            # plain text keys, the usual case, skip the constructor's bookkeeping
            if key_node.tag == _STR and type(key_node) is nodes.ScalarNode:
                key = key_node.value
            else:
                if _is_placeholder(node, key_node):
                    raise _Refused(node, _PLACEHOLDER)
                key = self._key(key_node, deep)
            if key in (mapping if own is None else own):
                raise _Refused(key_node, f"duplicate key {key!r}")
            if own is not None:
                own.add(key)
            mapping[key] = self.construct_value(value_node, deep)
        return mapping

    def construct_value(self, node: nodes.Node, deep: bool = False) -> Any:
        """`construct_object`, without its bookkeeping for scalars (they are never shared
        mutable values, so aliases of them need no identity)."""
        if type(node) is nodes.ScalarNode:
            if node.tag == _STR:
                return node.value
            build = _SCALARS.get(node.tag)
            if build is not None:
                return build(self, node)
        return self.construct_object(node, deep=deep)

    def _key(self, key_node: nodes.Node, deep: bool) -> str:
        if not isinstance(key_node, nodes.ScalarNode):
            raise _Refused(key_node, f"a {_shape(key_node)} cannot be a mapping key")
        text = _scalars.key_text(self.construct_value(key_node, deep))
        if text is None:
            raise _Refused(key_node, "null cannot be a mapping key")
        return text


_PLACEHOLDER = (
    "`{{ ... }}` is a template placeholder (Helm, Go templates), not YAML: fill the value "
    "in, or quote it"
)


def _is_placeholder(node: nodes.MappingNode, key_node: nodes.Node) -> bool:
    """Whether `node` is written `{{...}}`: a flow mapping whose key is a flow mapping opening
    right after it, as a template's placeholder reads to a YAML parser."""
    return (
        bool(node.flow_style)
        and isinstance(key_node, nodes.MappingNode)
        and bool(key_node.flow_style)
        and key_node.start_mark.index == node.start_mark.index + 1
    )


def _shape(node: nodes.Node) -> str:
    if isinstance(node, nodes.ScalarNode):
        return "scalar"
    return "sequence" if isinstance(node, nodes.SequenceNode) else "mapping"


def _expect(node: nodes.Node, kind: type[nodes.Node]) -> None:
    if not isinstance(node, kind):
        raise _Refused(node, f"tag {node.tag!r} does not apply to a {_shape(node)}")


def _construct_str(loader: _Loader, node: nodes.Node) -> str:
    _expect(node, nodes.ScalarNode)
    value: str = node.value
    return value


def _construct_int(loader: _Loader, node: nodes.Node) -> int:
    _expect(node, nodes.ScalarNode)
    value = _scalars.go_int(node.value.replace("_", ""))
    if value is None:
        raise _Refused(node, _scalars.unreadable(_scalars.INT, node.value))
    return value


def _construct_float(loader: _Loader, node: nodes.Node) -> float:
    _expect(node, nodes.ScalarNode)
    value = _scalars.go_float(node.value)
    if value is None:
        as_int = _scalars.go_int(node.value.replace("_", ""))
        if as_int is None:
            raise _Refused(node, _scalars.unreadable(_scalars.FLOAT, node.value))
        value = float(as_int)
    if not math.isfinite(value):
        raise _Refused(node, f"{node.value} cannot be represented in JSON")
    return value


def _construct_bool(loader: _Loader, node: nodes.Node) -> bool:
    _expect(node, nodes.ScalarNode)
    if node.value not in _scalars.BOOLEANS:
        raise _Refused(node, _scalars.unreadable(_scalars.BOOL, node.value))
    return _scalars.BOOLEANS[node.value]


def _construct_null(loader: _Loader, node: nodes.Node) -> None:
    _expect(node, nodes.ScalarNode)
    if node.value not in _scalars.NULLS:
        raise _Refused(node, _scalars.unreadable(_scalars.NULL, node.value))


def _construct_seq(loader: _Loader, node: nodes.Node) -> Iterator[list[Any]]:
    _expect(node, nodes.SequenceNode)
    data: list[Any] = []
    yield data
    data.extend(loader.construct_value(child) for child in node.value)


def _construct_map(loader: _Loader, node: nodes.Node) -> Iterator[dict[Hashable, Any]]:
    data: dict[Hashable, Any] = {}
    yield data
    data.update(loader.construct_mapping(node))  # type: ignore[arg-type]


_SCALARS: dict[str | None, Callable[..., Any]] = {
    _scalars.STR: _construct_str,
    _scalars.INT: _construct_int,
    _scalars.FLOAT: _construct_float,
    _scalars.BOOL: _construct_bool,
    _scalars.NULL: _construct_null,
}
_CONSTRUCTORS: dict[str | None, Callable[..., Any]] = {
    **_SCALARS,
    MERGE_TAG: _construct_str,  # `<<` anywhere but in key position is just text
    _SEQ: _construct_seq,
    _MAP: _construct_map,
    None: _refuse_tag,
}
for _tag, _build in _CONSTRUCTORS.items():
    _Loader.add_constructor(_tag, _build)


def key_of(node: nodes.Node) -> str | None:
    """A key node's text as the loader makes it; None for keys the loader refuses."""
    build = _SCALARS.get(node.tag) if isinstance(node, nodes.ScalarNode) else None
    if build is None:
        return None
    try:
        return _scalars.key_text(build(None, node))
    except _Refused:
        return None


def assignments(node: nodes.MappingNode) -> Iterator[tuple[nodes.Node, nodes.Node, bool]]:
    """The (key, value, own) pairs that set a mapping's keys, in the order kubectl's YAML
    reader (go-yaml v2, through sigs.k8s.io/yaml) sets them, a later one of a key replacing an
    earlier one: the mapping's own pairs and each `<<` merge's pairs where they stand, so a
    merge replaces the keys written before it and the keys written after it replace the
    merged ones. `own`: a pair of the mapping itself (two of those with one key are a
    duplicate; a merged key the mapping sets too is not)."""
    for key_node, value_node in node.value:
        if key_node.tag == MERGE_TAG:
            for merged_key, merged_value in _merged(value_node):
                yield merged_key, merged_value, False
        else:
            yield key_node, value_node, True


def _merged(value: nodes.Node) -> Iterator[tuple[nodes.Node, nodes.Node]]:
    """The pairs a `<<` value sets, in go-yaml v2's order: a list's sources from the last to
    the first (so that an earlier source wins), each source's pairs as `assignments` gives
    them (its own merges where they stand)."""
    sources = value.value[::-1] if isinstance(value, nodes.SequenceNode) else [value]
    for source in sources:
        if not isinstance(source, nodes.MappingNode):
            raise _Refused(source, "only mappings can be merged with '<<'")
        for key_node, value_node, _ in assignments(source):
            yield key_node, value_node


_MARKS = (
    (b"\xff\xfe\0\0", "UTF-32"),
    (b"\0\0\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
"""Byte order marks of the encodings editors and shells write besides UTF-8 (PowerShell's
`>` writes UTF-16), longest first: UTF-32's little-endian mark starts as UTF-16's."""
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
"""How a Git LFS pointer starts: what a commit holds for a file tracked by LFS."""


def _decode(data: bytes) -> tuple[str | None, Problem | None]:
    encoding = next((name for mark, name in _MARKS if data.startswith(mark)), None)
    if encoding is not None:
        return None, Problem(1, 1, f"file is {encoding} text, not UTF-8: save it as UTF-8")
    if data.startswith(_LFS_POINTER):
        return None, Problem(
            1,
            1,
            "file is a Git LFS pointer, not YAML: gitfleet reads what the commit holds and"
            " never fetches LFS content; keep YAML files out of LFS (.gitattributes)",
        )
    nul = data.find(b"\0")
    if nul >= 0:
        line, col = _limits.position(data[:nul].decode("utf-8", "replace"), nul)
        return None, Problem(line, col, "binary file (NUL byte) is not YAML")
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line, col = _limits.position(data[: exc.start].decode("utf-8", "replace"), exc.start)
        return None, Problem(line, col, "file is not UTF-8 text")


def _is_tab(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index] == "\t"


def _syntax_problem(exc: yaml.YAMLError, text: str) -> Problem:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "reason", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is not None:
        if _is_tab(text, mark.index) and "cannot start any token" in str(problem):
            message = (
                "invalid YAML: a tab, which YAML never takes as indentation: indent with spaces"
            )
        return Problem(mark.line + 1, mark.column + 1, message)
    position = getattr(exc, "position", None)
    if isinstance(position, int):
        return Problem(*_limits.position(text, position), message)
    return Problem(0, 0, message)


def _documents(loader: _Loader, has_anchors: bool) -> Iterator[Parsed | Problem]:
    index = 0
    while loader.check_node():
        node = loader.get_node()
        assert node is not None  # check_node() said there is one
        problem = _limits.expansion_problem(node) if has_anchors else None
        if problem is not None:
            yield problem
        else:
            try:
                value = loader.construct_document(node)
            except _Refused as refused:
                yield refused.problem
            else:
                yield Parsed(index, value, *loader.root)
        index += 1


def parse(data: bytes) -> Generator[Parsed | Problem]:
    """The documents of a file (empty ones included, as None) and its problems, in file order,
    each document built only when it is asked for: a reader that stops early (at its error cap)
    never builds the rest of a file. Close the iterator when stopping early."""
    text, problem = _decode(data)
    if problem is None:
        problem = _limits.too_deep(data)
    if problem is not None:
        yield problem
        return
    assert text is not None  # `_decode` gives the text or a problem
    loader = _Loader(data)
    try:
        yield from _documents(loader, b"&" in data)
    except yaml.YAMLError as exc:
        yield _syntax_problem(exc, text)
    finally:
        loader.dispose()


def compose(data: bytes) -> list[nodes.Node]:
    """The node tree of every document (no values built); stops at a syntax error."""
    roots: list[nodes.Node] = []
    loader = _Loader(data)
    try:
        while loader.check_node():
            node = loader.get_node()
            assert node is not None
            roots.append(node)
    except yaml.YAMLError:
        pass  # `parse` has reported it; positions before it are still useful
    finally:
        loader.dispose()
    return roots
