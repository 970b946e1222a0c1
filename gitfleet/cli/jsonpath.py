"""kubectl's JSONPath templates (`-o jsonpath=...`, the cells of `-o custom-columns=...`), read
and run as kubectl's engine (k8s.io/client-go/util/jsonpath) reads and runs them, so that a
script written against `kubectl get` works against `gitfleet get` unchanged.

A template is text with actions in braces: `{.items[*].metadata.name}`, `{range .items[*]}`
... `{end}`, quoted text (`{"\\n"}`), filters (`[?(@.status=="True")]`), slices, unions
(`[0,2]`, `['a','b']`), wildcards and recursive descent (`..name`). The results of one action
are printed separated by spaces; maps and lists as compact JSON, strings as they are, null as
`<nil>`, a float as Go prints it.

kubectl's own readings are kept where a user could meet them: `$` and `@` both mean the value
at hand (inside a range, the item); a quoted key is read as a field path (`['a.b']` is `a`,
then `b`: a dot in a key is escaped, `a\\.b`); a wildcard or `..` over a string yields its
bytes as numbers. One difference: a map's values come in key order, where Go's come in the
random order of its maps.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from typing import Any

from gitfleet.cli import output as out
from gitfleet.model import gofloat


class TemplateError(ValueError):
    """A template that does not parse, or that fails on the data (kubectl's words)."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Wildcard:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class _Recursive:
    pass


@dataclasses.dataclass(frozen=True, slots=True)
class _Literal:
    """Quoted text, a number or a boolean: it replaces what it is applied to."""

    value: str | int | float | bool
    per_input: bool
    """Numbers and booleans give one value per input (kubectl's IntNode); text gives one."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Slice:
    start: int | None
    end: int | None
    step: int | None
    derived_end: bool
    """`[i]`: the end is `i + 1`, counted from the end when `i` is -1."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Union:
    parts: tuple[tuple[Any, ...], ...]


@dataclasses.dataclass(frozen=True, slots=True)
class _Filter:
    left: tuple[Any, ...]
    operator: str
    right: tuple[Any, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class _Identifier:
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class _Action:
    steps: tuple[Any, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class _Range:
    steps: tuple[Any, ...]
    body: tuple[Any, ...]
    closed: bool
    """With no `{end}` after it (one closing an inner range counts), kubectl runs the body once
    more after the items, on the value the range was taken from."""


@dataclasses.dataclass(frozen=True, slots=True)
class Template:
    """A parsed template: text, actions and ranges."""

    nodes: tuple[Any, ...]


_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
_SLICE = re.compile(r"^(-?\d*)(:-?\d*)?(:-?\d*)?$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.DOTALL)
_DICT_KEY = re.compile(r"^'([^']*)'$")
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ESCAPED = re.compile(r"\\(?:([abfnrtv\\'\"])|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|"
                      r"U([0-9a-fA-F]{8})|([0-7]{3}))|\\")  # fmt: skip


def parse(text: str) -> Template:
    """`text` read as kubectl reads a jsonpath template."""
    flat = _Reader(text).template()
    nodes, rest = _nest(flat, 0)
    if rest < len(flat):
        raise TemplateError("not in range, nothing to end")
    return Template(tuple(nodes))


def _nest(flat: Sequence[Any], at: int) -> tuple[list[Any], int]:
    """The nodes from `at` to the `{end}` that closes them (or the end), ranges nested."""
    nodes: list[Any] = []
    while at < len(flat):
        node = flat[at]
        if _is(node, "end"):
            return nodes, at
        if _is(node, "range"):
            ends = any(_is(later, "end") for later in flat[at + 1 :])
            body, at = _nest(flat, at + 1)
            nodes.append(_Range(node.steps[1:], tuple(body), closed=ends))
            at += 1
            continue
        nodes.append(node)
        at += 1
    return nodes, at


def _is(node: Any, keyword: str) -> bool:
    return isinstance(node, _Action) and node.steps[:1] == (_Identifier(keyword),)


class _Reader:
    """The template's characters, read as client-go's parser reads them."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def template(self) -> list[Any]:
        nodes: list[Any] = []
        while self.pos < len(self.text):
            brace = self.text.find("{", self.pos)
            if brace < 0:
                nodes.append(self.text[self.pos :])
                break
            if brace > self.pos:
                nodes.append(self.text[self.pos : brace])
            self.pos = brace + 1
            nodes.append(_Action(tuple(self.action())))
        return nodes

    def action(self) -> list[Any]:
        """The steps up to the closing brace."""
        steps: list[Any] = []
        while True:
            rest = self.text[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                return steps
            if rest.startswith("[?("):
                steps.append(self.filter())
                continue
            if rest.startswith(".."):
                if steps and isinstance(steps[-1], _Recursive):
                    raise TemplateError("invalid multiple recursive descent")
                self.pos += 2
                steps.append(_Recursive())
                if self.pos < len(self.text) and _alphanumeric(self.text[self.pos]):
                    steps.append(self.field())
                continue
            if not rest or rest[0] in "\r\n":
                raise TemplateError("unclosed action")
            char = rest[0]
            if char in " @$":
                self.pos += 1
            elif char == "[":
                steps.extend(self.array())
            elif char in "\"'":
                steps.append(_Literal(self.quoted(char), per_input=False))
            elif char == ".":
                self.pos += 1
                steps.append(self.field())
            elif char in "+-" or char.isdigit():
                steps.append(self.number())
            elif _alphanumeric(char):
                steps.append(self.identifier())
            else:
                raise TemplateError(f"unrecognized character in action: U+{ord(char):04X} {char!r}")

    def field(self) -> Any:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 2 if self.text[self.pos] == "\\" else 1
        value = self.text[start : self.pos]
        return _Wildcard() if value == "*" else _Field(value.replace("\\", ""))

    def identifier(self) -> Any:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 1
        value = self.text[start : self.pos]
        if value in ("true", "false"):
            return _Literal(value == "true", per_input=True)
        return _Identifier(value)

    def number(self) -> _Literal:
        start = self.pos
        if self.text[self.pos] in "+-":
            self.pos += 1
        while self.pos < len(self.text) and (
            self.text[self.pos] in "." or self.text[self.pos].isdigit()
        ):
            self.pos += 1
        value = self.text[start : self.pos]
        if re.fullmatch(r"[+-]?\d+", value):
            return _Literal(int(value), per_input=True)
        try:
            return _Literal(float(value), per_input=True)
        except ValueError:
            raise TemplateError(f"cannot parse number {value}") from None

    def quoted(self, quote: str) -> str:
        start = self.pos
        self.pos += 1
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] == "\n":
                raise TemplateError("unterminated quoted string")
            char = self.text[self.pos]
            self.pos += 1
            if char == quote and self.text[self.pos - 2] != "\\":
                break
        return _unquote(self.text[start : self.pos])

    def array(self) -> list[Any]:
        end = self.pos
        while True:
            end += 1
            if end >= len(self.text) or self.text[end] == "\n":
                raise TemplateError("unterminated array")
            if self.text[end] == "]":
                break
        inside = self.text[self.pos + 1 : end]
        self.pos = end + 1
        if inside == "*":
            inside = ":"
        if "," in inside:
            parts = (_sub_action(f"[{part.strip(' ')}]") for part in inside.split(","))
            return [_Union(tuple(parts))]
        key = _DICT_KEY.match(inside)
        if key:
            return list(_sub_action(f".{key[1]}"))
        return [_slice(inside)]

    def filter(self) -> _Filter:
        self.pos += 3
        start, opened, closed, pair = self.pos, False, False, ""
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] == "\n":
                raise TemplateError("unterminated filter")
            char = self.text[self.pos]
            self.pos += 1
            if char in "\"'":
                if not opened:
                    opened, pair = True, char
                elif self.text[self.pos - 2] != "\\" and char == pair:
                    closed = True
            elif char == ")" and opened == closed:
                break
        if self.pos >= len(self.text) or self.text[self.pos] != "]":
            raise TemplateError("unclosed array expect ]")
        inside = self.text[start : self.pos - 1]
        self.pos += 1
        compared = _FILTER.match(inside)
        if compared is None:
            return _Filter(_sub_action(inside), "exists", ())
        return _Filter(_sub_action(compared[1]), compared[2], _sub_action(compared[3]))


def _alphanumeric(char: str) -> bool:
    return char == "_" or char.isalpha() or char.isdigit()


def _sub_action(text: str) -> tuple[Any, ...]:
    """The steps of `text` read as one action (a union's part, a filter's side)."""
    reader = _Reader("{" + text + "}")
    reader.pos = 1
    return tuple(reader.action())


def _slice(inside: str) -> _Slice:
    found = _SLICE.match(inside)
    if found is None:
        raise TemplateError(f"invalid array index {inside}")
    first, second, third = (found[1] or ""), found[2], found[3]

    def number(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise TemplateError(f"array index {text} is not a number") from None

    start = number(first) if first else None
    if second is None:
        return _Slice(start, (start or 0) + 1, None, derived_end=True)
    end = number(second[1:]) if second[1:] else None
    step = number(third[1:]) if third is not None and third[1:] else None
    return _Slice(start, end, step, derived_end=False)


def _unquote(quoted: str) -> str:
    """Go's strconv.Unquote, single quotes taken too (client-go's UnquoteExtend)."""
    body = quoted[1:-1]

    def one(found: re.Match[str]) -> str:
        simple, hex2, hex4, hex8, octal = found.groups()
        if simple:
            return _ESCAPES.get(simple, simple)
        if hex2 or octal:
            return chr(int(hex2, 16) if hex2 else int(octal, 8))
        if hex4 or hex8:
            return chr(int(hex4 or hex8, 16))
        raise TemplateError(f"unquote string {quoted} error invalid syntax")

    return _ESCAPED.sub(one, body)


def run(template: Template, data: Any, *, allow_missing: bool = True) -> list[list[Any]]:
    """The results of each action (text outside actions counts as one), in order."""
    return list(_Runner(allow_missing).nodes(template.nodes, data))


def render(
    template: Template, data: Any, *, allow_missing: bool = True, as_json: bool = False
) -> str:
    """What kubectl prints for `template` on `data` (`-o jsonpath`, `-o jsonpath-as-json`)."""
    printed = []
    for results in run(template, data, allow_missing=allow_missing):
        if as_json:
            printed.append(out.go_json(results, indent=4) + "\n")
        else:
            printed.append(" ".join(_text(value) for value in results))
    return "".join(printed)


class _Runner:
    def __init__(self, allow_missing: bool) -> None:
        self.allow_missing = allow_missing

    def nodes(self, nodes: Sequence[Any], data: Any) -> Iterator[list[Any]]:
        for node in nodes:
            if isinstance(node, str):
                yield [node]
            elif isinstance(node, _Range):
                for item in self.steps(node.steps, [data]):
                    yield from self.nodes(node.body, item)
                if not node.closed:
                    yield from self.nodes(node.body, data)
            else:
                yield self.steps(node.steps, [data])

    def steps(self, steps: Sequence[Any], values: list[Any]) -> list[Any]:
        for step in steps:
            values = self.step(step, values)
        return values

    def step(self, step: Any, values: list[Any]) -> list[Any]:
        if isinstance(step, _Field):
            return self.field(step.name, values)
        if isinstance(step, _Slice):
            return [item for value in values if value is not None for item in _sliced(step, value)]
        if isinstance(step, _Union):
            return [item for part in step.parts for item in self.steps(part, values)]
        if isinstance(step, _Wildcard):
            return [item for value in values for item in _children(value)]
        if isinstance(step, _Recursive):
            return list(_descend(values))
        if isinstance(step, _Filter):
            return self.filter(step, values)
        if isinstance(step, _Literal):
            return [step.value] * len(values) if step.per_input else [step.value]
        if step.name == "end":
            raise TemplateError("not in range, nothing to end")
        raise TemplateError(f"unrecognized identifier {step.name}")

    def field(self, name: str, values: list[Any]) -> list[Any]:
        found = [value[name] for value in values if isinstance(value, dict) and name in value]
        if values and not found and not self.allow_missing:
            raise TemplateError(f"{name} is not found")
        return found

    def filter(self, step: _Filter, values: list[Any]) -> list[Any]:
        passed = []
        for value in values:
            if not isinstance(value, list):
                raise TemplateError(
                    f"{_go_sprint(value)} is not array or slice and cannot be filtered"
                )
            for item in value:
                if step.operator == "exists":
                    try:
                        lefts = self.steps(step.left, [item])
                    except TemplateError:
                        lefts = []
                    if lefts:
                        passed.append(item)
                    continue
                left = self.one(step.left, item)
                if left is None:
                    continue
                right = self.one(step.right, item)
                if right is not None and _compare(step.operator, left[0], right[0]):
                    passed.append(item)
        return passed

    def one(self, steps: Sequence[Any], item: Any) -> list[Any] | None:
        """The single value `steps` find in `item` (None: none)."""
        found = self.steps(steps, [item])
        if len(found) > 1:
            raise TemplateError("can only compare one element at a time")
        return found or None


def _sliced(step: _Slice, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TemplateError(f"{_go_type(value)} is not array or slice")
    length = len(value)
    start = step.start if step.start is not None else 0
    if start < 0:
        start += length
    end = step.end if step.end is not None else length
    if end < 0 or (end == 0 and step.derived_end):
        end += length
    if end == start:
        return []
    if start >= length or start < 0:
        raise TemplateError(f"array index out of bounds: index {start}, length {length}")
    if end > length or end < 0:
        raise TemplateError(f"array index out of bounds: index {end - 1}, length {length}")
    if start > end:
        raise TemplateError(f"starting index {start} is greater than ending index {end}")
    if step.step is not None and step.step <= 0:
        raise TemplateError("step must be > 0")
    return value[start : end : step.step or 1]


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value[key] for key in sorted(value)]
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode())
    return []


def _descend(values: Sequence[Any]) -> Iterator[Any]:
    """`..`: every value holding something, and what it holds, depth first."""
    for value in values:
        children = _children(value)
        if children:
            yield value
            yield from _descend(children)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return "other"


def _compare(operator: str, left: Any, right: Any) -> bool:
    """Go's text/template comparisons: values of one basic kind, else an error."""
    kinds = _kind(left), _kind(right)
    if operator not in ("==", "!=", "<", ">", "<=", ">="):
        raise TemplateError(f"unrecognized filter operator {operator}")
    if "other" in kinds or (operator not in ("==", "!=") and "bool" in kinds):
        raise TemplateError("invalid type for comparison")
    if kinds[0] != kinds[1]:
        raise TemplateError("incompatible types for comparison")
    return bool(
        {
            "==": left == right,
            "!=": left != right,
            "<": left < right,
            ">": left > right,
            "<=": left <= right,
            ">=": left >= right,
        }[operator]
    )


def _go_type(value: Any) -> str:
    kind = _kind(value)
    if isinstance(value, dict):
        return "map[string]interface {}"
    return {"int": "int64", "float": "float64", "other": "<nil>"}.get(kind, kind)


def _text(value: Any) -> str:
    """One result as kubectl prints it: maps, lists and null as compact JSON, the rest as
    Go's `fmt.Print` does."""
    if isinstance(value, dict | list) or value is None:
        return out.go_json(value)
    return _go_sprint(value)


def _go_sprint(value: Any) -> str:
    """Go's `fmt.Sprint` of a JSON value (custom-columns' cells): maps as `map[k:v ...]` in key
    order, lists as `[a b]`, null as `<nil>`."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return gofloat.format_float(value, "g")
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{_go_sprint(value[k])}" for k in sorted(value)) + "]"
    if isinstance(value, list):
        return "[" + " ".join(_go_sprint(item) for item in value) + "]"
    return str(value)


def cell(template: Template, data: Any) -> str:
    """A custom-columns cell: every value found, as `fmt.Sprint` writes it, comma-separated;
    `<none>` when nothing is."""
    found = [value for results in run(template, data) for value in results]
    return ",".join(_go_sprint(value) for value in found) if found else "<none>"
