"""How a real API server prints the difference between two Go values in a refusal: go-cmp's
report, as apimachinery's `diff.ObjectDiff(new, old)` makes it (a PersistentVolumeClaim's
changed spec, say). The message then spans many lines, which is what clients must cope with.

Values are described in Go's terms (a `Composite` struct, slice or map, a `Ptr`, a `Scalar`,
and a `Leaf` for a type compared by its Equal method, a Quantity); `report(new, old)` prints
the report: `-` lines hold the new value, `+` lines the old one. go-cmp's rules are followed:
identical fields are shown for two records around a difference and the rest counted (`... // 2
identical fields`); a difference that is a single chain of values prints both sides whole,
others are descended into; identical values print without types and three levels deep (`{i:
{...}, s: "1Gi"}`), differing ones with their types; a list prints on one line unless it holds
a difference, a multi-line value, or (a removed or inserted one) exceeds 80 bytes; keys of
consecutive one-line records are aligned. go-cmp picks at random, per process, between spaces
and no-break spaces after the diff markers; this prints spaces.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Sequence

_CONTEXT = 2
"""Identical records go-cmp shows on each side of a difference."""
_MAX_COLUMN = 80
_VERBOSITY = 3


@dataclasses.dataclass(frozen=True, slots=True)
class Scalar:
    """A string, number, bool or nil, as Go's `%v` in go-cmp prints it (`"x"`, `s"x"` for a
    Stringer, `5`, `nil`)."""

    text: str
    zero: bool = False


class Kind(enum.Enum):
    STRUCT = "field"
    SLICE = "element"
    MAP = "entry"


@dataclasses.dataclass(frozen=True, slots=True)
class Composite:
    """A struct (its fields by name, zero ones too), a slice (no keys) or a map (keys as
    printed, in go-cmp's order); `kind.value` names what its ellipsis counts."""

    kind: Kind
    type: str
    items: tuple[tuple[str, Value], ...]


@dataclasses.dataclass(frozen=True, slots=True)
class Ptr:
    elem: Value


@dataclasses.dataclass(frozen=True, slots=True)
class Leaf:
    """A value go-cmp compares with its Equal method (`key`) and does not descend into."""

    value: Value
    key: object

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Leaf) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


Value = Scalar | Composite | Ptr | Leaf
NIL = Scalar("nil", zero=True)


def string(text: str, *, stringer: bool = False) -> Scalar:
    quoted = json.dumps(text, ensure_ascii=False)
    return Scalar(f"s{quoted}" if stringer else quoted, zero=not text)


def integer(value: int) -> Scalar:
    return Scalar(str(value), zero=value == 0)


def struct(type_name: str, fields: Sequence[tuple[str, Value]]) -> Composite:
    return Composite(Kind.STRUCT, type_name, tuple(fields))


def _zero(value: Value) -> bool:
    if isinstance(value, Scalar):
        return value.zero
    if isinstance(value, Composite) and value.kind is Kind.STRUCT:
        return all(_zero(item) for _, item in value.items)
    if isinstance(value, Leaf):
        return _zero(value.value)
    return False


class _Mode(enum.Enum):
    SAME = "  "
    REMOVED = "- "
    INSERTED = "+ "


# ---- the text go-cmp builds, then prints compact or expanded --------------------------


@dataclasses.dataclass
class _Record:
    key: str
    value: _Text | None
    mode: _Mode = _Mode.SAME
    comment: str = ""
    elide_comma: bool = False


@dataclasses.dataclass
class _Wrap:
    prefix: str
    items: list[_Record]
    suffix: str = "}"


_Text = str | _Wrap
_ELLIPSIS = "..."


def _compact(text: _Text, mode: _Mode) -> _Text:
    """go-cmp's formatCompactTo: `text` as one line where it may be, else with its parts so."""
    if isinstance(text, str):
        return text
    multi = False
    parts = []
    for record in text.items:
        multi |= record.mode is not _Mode.SAME or bool(record.comment)
        inner = _compact(record.value or "", record.mode if record.mode is not _Mode.SAME else mode)
        record.value = inner
        multi |= not isinstance(inner, str)
        parts.append(f"{record.key}: {inner}" if record.key else str(inner))
    line = ", ".join(parts)
    if mode is not _Mode.SAME and len(line.encode()) > _MAX_COLUMN:
        multi = True
    return text if multi else f"{text.prefix}{line}{text.suffix}"


def _expanded(text: _Text, mode: _Mode, depth: int, out: list[str]) -> None:
    """go-cmp's formatExpandedTo, appending to the last line of `out`."""
    if isinstance(text, str):
        out[-1] += text
        return
    out[-1] += text.prefix
    widths = _key_widths(text.items)
    if text.items and all(
        r.mode is _Mode.SAME and not r.key and isinstance(r.value, str) and not r.comment
        for r in text.items
    ):
        _batched([str(r.value) for r in text.items], mode, depth + 1, out)
    else:
        for record, width in zip(text.items, widths, strict=True):
            marker = record.mode if record.mode is not _Mode.SAME else mode
            out.append(marker.value + "\t" * (depth + 1))
            if record.key:
                out[-1] += f"{record.key}: " + " " * (width - len(record.key))
            _expanded(record.value or "", marker, depth + 1, out)
            out[-1] += "" if record.elide_comma else ","
            out[-1] += f" // {record.comment}" if record.comment else ""
    out.append(mode.value + "\t" * depth + text.suffix)


def _batched(lines: list[str], mode: _Mode, depth: int, out: list[str]) -> None:
    batch = ""
    for line in lines:
        if batch and len(batch) + len(line) + 2 > _MAX_COLUMN:
            out.append(mode.value + "\t" * depth + batch.rstrip(" "))
            batch = ""
        batch += line + ", "
    if batch:
        out.append(mode.value + "\t" * depth + batch.rstrip(" "))


def _key_widths(records: Sequence[_Record]) -> list[int]:
    """The key width of each record: the longest key of its run of consecutive one-line
    records with keys (an ellipsis or a multi-line value ends a run)."""
    widths = [0] * len(records)
    start = 0
    for end in range(len(records) + 1):
        if end == len(records) or not records[end].key or not isinstance(records[end].value, str):
            run = range(start, end)
            longest = max((len(records[i].key) for i in run), default=0)
            for i in run:
                widths[i] = longest
            start = end + 1
    return widths


# ---- formatting values ----------------------------------------------------------------


def _value(value: Value, mode: _Mode, verbosity: int, typed: bool) -> _Text:
    """go-cmp's FormatValue: `value` with at most so many records a level (fewer each level
    down), its type shown where `typed` and the value differs."""
    if isinstance(value, Scalar):
        return value.text
    if isinstance(value, Leaf):
        return _value(value.value, mode, verbosity, typed)
    if isinstance(value, Ptr):
        inner = _value(value.elem, mode, verbosity, typed)
        return f"&{inner}" if isinstance(inner, str) else _Wrap("&" + inner.prefix, inner.items)
    limit = ((1 << max(verbosity, 0)) >> 1) << 2
    records: list[_Record] = []
    fields = value.kind is Kind.STRUCT
    for key, item in value.items:
        if fields and _zero(item):
            continue
        if len(records) == limit:
            records.append(_Record("", _ELLIPSIS, elide_comma=True))
            break
        records.append(_Record(key, _value(item, mode, verbosity - 1, fields)))
    shown = value.type if typed and mode is not _Mode.SAME else ""
    return _Wrap(f"{shown}{{", records)


# ---- comparing and reporting ----------------------------------------------------------


@dataclasses.dataclass
class _Node:
    """go-cmp's valueNode: what was compared (either side None where it has no element),
    the records below it, how many leaves differ, how many nodes lie below and how deep."""

    x: Value | None
    y: Value | None
    records: list[tuple[str, _Node]] = dataclasses.field(default_factory=list)
    diffs: int = 0
    children: int = 0
    depth: int = 0


def _compare(x: Value | None, y: Value | None) -> _Node:
    records: list[tuple[str, _Node]] = []
    if isinstance(x, Ptr) and isinstance(y, Ptr):
        records = [("", _compare(x.elem, y.elem))]
    elif not isinstance(x, Composite) or not isinstance(y, Composite) or x.type != y.type:
        return _Node(x, y, diffs=int(x != y))
    elif x.kind is Kind.STRUCT:
        records = [
            (name, _compare(a, b)) for (name, a), (_, b) in zip(x.items, y.items, strict=True)
        ]
    elif x.kind is Kind.SLICE:
        pairs = _aligned([a for _, a in x.items], [b for _, b in y.items])
        records = [("", _compare(a, b)) for a, b in pairs]
    else:
        left, right = dict(x.items), dict(y.items)
        keys = [k for k, _ in x.items] + [k for k, _ in y.items if k not in left]
        records = [(k, _compare(left.get(k), right.get(k))) for k in sorted(keys)]
    node = _Node(x, y, records)
    node.diffs = sum(child.diffs for _, child in records)
    node.children = sum(1 + child.children for _, child in records)
    node.depth = 1 + max((child.depth for _, child in records), default=0)
    return node


def _aligned(xs: Sequence[Value], ys: Sequence[Value]) -> list[tuple[Value | None, Value | None]]:
    """Elements paired as an edit script pairs them: equal ones by a longest common
    subsequence, a removed one followed by an inserted one as one modified element."""
    table = [[0] * (len(ys) + 1) for _ in range(len(xs) + 1)]
    for i in range(len(xs) - 1, -1, -1):
        for j in range(len(ys) - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if xs[i] == ys[j] else max(table[i + 1][j], table[i][j + 1])
            )
    pairs: list[tuple[Value | None, Value | None]] = []
    i = j = 0
    while i < len(xs) or j < len(ys):
        if i < len(xs) and j < len(ys) and xs[i] == ys[j]:
            pairs.append((xs[i], ys[j]))
            i, j = i + 1, j + 1
        elif j == len(ys) or (i < len(xs) and table[i + 1][j] >= table[i][j + 1]):
            pairs.append((xs[i], None))
            i += 1
        else:
            pairs.append((None, ys[j]))
            j += 1
    merged: list[tuple[Value | None, Value | None]] = []
    for pair in pairs:
        if merged and pair[0] is None and merged[-1][1] is None and merged[-1][0] is not None:
            merged[-1] = (merged[-1][0], pair[1])
        else:
            merged.append(pair)
    return merged


def _diff(node: _Node, name: str, verbosity: int) -> _Wrap:
    """go-cmp's formatDiffList: the records of a node that differs. Identical records print
    at `verbosity` (one less each level down), differing ones afresh at three."""
    out: list[_Record] = []
    records = node.records
    groups: list[list[tuple[str, _Node]]] = []
    for record in records:
        if groups and (groups[-1][0][1].diffs == 0) == (record[1].diffs == 0):
            groups[-1].append(record)
        else:
            groups.append([record])
    for index, group in enumerate(groups):
        if group[0][1].diffs == 0:
            edges = {"first": index == 0, "last": index == len(groups) - 1}
            out += _context(group, name, verbosity, **edges)
            continue
        for key, child in group:
            if child.depth == 0 or child.children == child.depth:
                for side, mode in ((child.x, _Mode.REMOVED), (child.y, _Mode.INSERTED)):
                    if side is not None:
                        typed = name == Kind.STRUCT.value
                        text = _value(side, mode, _VERBOSITY, typed)
                        out.append(_Record(key, text, mode))
            else:
                out.append(_Record(key, _nested(child, verbosity - 1)))
    return _Wrap("{", out)


def _context(
    group: list[tuple[str, _Node]], name: str, verbosity: int, *, first: bool, last: bool
) -> list[_Record]:
    """Identical records: two on each side of a difference, the others counted."""
    low = 0 if first else min(_CONTEXT, len(group))
    high = 0 if last else min(_CONTEXT, len(group) - low)
    if len(group) - (low + high) == 1:
        high += 1
    shown = [
        _Record(key, _value(child.y or NIL, _Mode.SAME, verbosity, False)) for key, child in group
    ]
    hidden = len(group) - low - high
    if hidden <= 0:
        return shown
    plural = name + "s" if hidden > 1 else name
    plural = plural.replace("ys", "ies")
    ellipsis = _Record("", _ELLIPSIS, comment=f"{hidden} identical {plural}", elide_comma=True)
    return [*shown[:low], ellipsis, *shown[len(group) - high :]]


def _nested(node: _Node, verbosity: int) -> _Wrap:
    value = node.y
    if isinstance(value, Ptr):
        inner = _nested(node.records[0][1], verbosity)
        return _Wrap("&" + inner.prefix, inner.items)
    assert isinstance(value, Composite)  # only these and pointers have records
    return _Wrap(value.type + "{", _diff(node, value.kind.value, verbosity).items)


def report(new: Value, old: Value) -> str:
    """go-cmp's `Diff(new, old)`: empty when equal."""
    node = _compare(new, old)
    if node.diffs == 0:
        return ""
    text = _compact(_nested(node, _VERBOSITY), _Mode.SAME)
    out = [_Mode.SAME.value]
    _expanded(text, _Mode.SAME, 0, out)
    return "\n".join(out) + "\n"
