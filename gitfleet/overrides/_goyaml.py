"""A YAML document held in a string, read and re-written the way Karmada's fieldOverrider does
(Karmada: pkg/util/overridemanager/overridemanager.go applyRawYAMLPatch, via sigs.k8s.io/yaml
YAMLToJSON/JSONToYAML over go.yaml.in/yaml/v2).

Reading resolves plain scalars with go-yaml v2's YAML 1.1 rules (`y`, `yes`, `on` are true;
`0x1F` and `08` are numbers; timestamps stay strings) and turns non-string keys into strings.
Writing follows the JSON round trip Karmada makes: numbers are re-read from their Go JSON text
(so `1.0` becomes `1`), keys are sorted in go-yaml's natural order (`a2` before `a10`),
strings with a newline use a literal block, strings that would read back as another type are
double-quoted, 2-space indentation, lines folded at 80 columns. PyYAML's emitter is a port of
the same libyaml emitter go-yaml uses, so only the choices above need telling.
"""

from __future__ import annotations

import calendar
import functools
import math
import re
from collections.abc import Hashable, Mapping
from typing import Any, cast

import yaml

from gitfleet.model import yamllimits, yamlscalars
from gitfleet.overrides import _gojson

_PREFIX = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (_PREFIX + t for t in ("str", "int", "float", "bool", "null"))
MERGE, TIMESTAMP = _PREFIX + "merge", _PREFIX + "timestamp"

_WORDS: dict[str, tuple[str, Any]] = {
    **{w: (BOOL, True) for w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE")},
    **{w: (BOOL, True) for w in ("on", "On", "ON")},
    **{w: (BOOL, False) for w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE")},
    **{w: (BOOL, False) for w in ("off", "Off", "OFF")},
    **{w: (NULL, None) for w in ("", "~", "null", "Null", "NULL")},
    **{w: (FLOAT, math.nan) for w in (".nan", ".NaN", ".NAN")},
    **{w: (FLOAT, math.inf) for w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF")},
    **{w: (FLOAT, -math.inf) for w in ("-.inf", "-.Inf", "-.INF")},
}
_HINTS = {**dict.fromkeys("+-", "S"), **dict.fromkeys("0123456789", "D")}
_HINTS.update({**dict.fromkeys("yYnNtTfFoO~", "M"), ".": "."})
_DOT_FLOAT = re.compile(r"\.[0-9]+([eE][-+]?[0-9]+)?")
_BASE60_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?")
_TIME = r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?"
_ZONE = r"(?:Z|[+-][0-9]{2}:[0-9]{2})"
_TIMESTAMPS = (
    re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})[Tt]" + _TIME + _ZONE),
    re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}) " + _TIME),
    re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"),
)


class DocumentError(ValueError):
    """The text is not a YAML document Karmada could turn into JSON."""


def _looks_like_timestamp(text: str) -> bool:
    """go-yaml's parseTimestamp: one of four time.Parse layouts, with their range checks."""
    for layout in _TIMESTAMPS:
        match = layout.fullmatch(text)
        if match is None:
            continue
        year, month, day, *clock = (int(part) for part in match.groups())
        if not 1 <= month <= 12 or not 1 <= day <= calendar.monthrange(year, month)[1]:
            return False
        return not clock or (clock[0] < 24 and clock[1] < 60 and clock[2] < 60)
    return False


def resolve(text: str) -> tuple[str, Any]:
    """The tag and value go-yaml v2 gives an unquoted scalar."""
    hint = _HINTS.get(text[:1], "N") if text else "N"
    if hint == "N" and text:
        return STR, text
    if text in _WORDS:
        return _WORDS[text]
    if hint == "." and _DOT_FLOAT.fullmatch(text):
        return FLOAT, float(text)
    if hint in "DS":
        if _looks_like_timestamp(text):
            return TIMESTAMP, text
        number = yamlscalars.go_int(text.replace("_", ""))
        if number is not None:
            return INT, number
        value = yamlscalars.go_float(text)
        if value is not None:
            return FLOAT, value
    return STR, text


def _short(tag: str) -> str:
    return "!!" + tag.removeprefix(_PREFIX)


class _Loader(yaml.SafeLoader):
    """PyYAML's loader with go-yaml v2's scalar resolution."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            if implicit[0] and value == "<<":  # go-yaml spots merge keys by their text
                return MERGE
            return resolve(value)[0] if implicit[0] else STR
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        """Keys become JSON keys as they are read: `1` and `true` stay two keys, as in Go."""
        self.flatten_mapping(node)
        return {
            _key(self.construct_object(key_node, deep=deep)): self.construct_object(
                value_node, deep=deep
            )
            for key_node, value_node in node.value
        }


def _construct_resolved(loader: _Loader, node: yaml.ScalarNode) -> Any:
    tag, value = resolve(loader.construct_scalar(node))
    if tag == node.tag:
        return value
    if node.tag == FLOAT and tag == INT:
        return float(value)
    raise yaml.constructor.ConstructorError(
        None,
        None,
        f"cannot decode {_short(tag)} `{node.value}` as a {_short(node.tag)}",
        node.start_mark,
    )


def _construct_any(loader: _Loader, suffix: str, node: yaml.Node) -> Any:
    """go-yaml ignores tags it does not know: the node is read for its shape."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(cast(yaml.ScalarNode, node))


for _tag in (INT, FLOAT, BOOL, NULL, TIMESTAMP):
    _Loader.add_constructor(_tag, _construct_resolved)
_Loader.add_multi_constructor("", _construct_any)


def _key(key: Any) -> str:
    """sigs.k8s.io/yaml's conversion of a map key to a JSON object key."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if isinstance(key, float):
        return _gojson.format_float32(key)
    raise DocumentError(f"unsupported map key {key!r}")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, (set, frozenset)):
        return dict.fromkeys(sorted(value))
    if isinstance(value, (list, tuple)):
        return [_jsonable(item) for item in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        raise DocumentError(f"json: unsupported value: {_gojson.format_float(value, 'g')}")
    return value


def load(text: str) -> Any:
    """The first document of `text` as the JSON value Karmada patches."""
    loader = _Loader(text)
    try:
        node = next(yamllimits.composed(loader, text), None)
        value = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as error:
        raise DocumentError(str(error).replace("\n", " ")) from error
    finally:
        loader.dispose()
    return _jsonable(value)


def _natural_less(a: str, b: str) -> bool:
    """go-yaml v2's keyList.Less for two string keys: letters after other characters, runs of
    digits compared by value."""
    for i in range(min(len(a), len(b))):
        if a[i] == b[i]:
            continue
        a_letter, b_letter = a[i].isalpha(), b[i].isalpha()
        if a_letter and b_letter:
            return a[i] < b[i]
        if a_letter or b_letter:
            return b_letter
        a_num = b_num = 0
        if a[i] == "0" or b[i] == "0":
            for j in range(i - 1, -1, -1):
                if not a[j].isdecimal():
                    break
                if a[j] != "0":
                    a_num = b_num = 1
                    break
        a_end = i
        while a_end < len(a) and a[a_end].isdecimal():
            a_num = a_num * 10 + ord(a[a_end]) - 48
            a_end += 1
        b_end = i
        while b_end < len(b) and b[b_end].isdecimal():
            b_num = b_num * 10 + ord(b[b_end]) - 48
            b_end += 1
        if a_num != b_num:
            return a_num < b_num
        if a_end != b_end:
            return a_end < b_end
        return a[i] < b[i]
    return len(a) < len(b)


def _natural_cmp(a: str, b: str) -> int:
    return -1 if _natural_less(a, b) else (1 if _natural_less(b, a) else 0)


_NATURAL = functools.cmp_to_key(_natural_cmp)


def _number_after_json(value: int | float) -> Any:
    """What go-yaml reads back from the Go JSON text of a number."""
    text = str(value) if isinstance(value, int) else _gojson.format_float(value)
    return resolve(text)[1]


class _Dumper(yaml.SafeDumper):
    """PyYAML's emitter driven with go-yaml v2's choices of order, style and number text."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            return resolve(value)[0] if implicit[0] else STR
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: _Dumper, text: str) -> yaml.ScalarNode:
    if "\n" in text:
        style: str | None = "|"
    elif resolve(text)[0] == STR and not (
        ":" in text and text[:1] in "+-0123456789" and _BASE60_FLOAT.fullmatch(text)
    ):
        style = None
    else:
        style = '"'
    return dumper.represent_scalar(STR, text, style=style)


def _represent_number(dumper: _Dumper, number: int | float) -> yaml.ScalarNode:
    value = _number_after_json(number)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DocumentError(f"cannot write number {number!r}")
    if isinstance(value, int):
        return dumper.represent_scalar(INT, str(value))
    return dumper.represent_scalar(FLOAT, _gojson.format_float(value, "g"))


def _represent_dict(dumper: _Dumper, mapping: dict[str, Any]) -> yaml.MappingNode:
    items = sorted(mapping.items(), key=lambda item: _NATURAL(item[0]))
    return dumper.represent_mapping("tag:yaml.org,2002:map", items, flow_style=False)


def _represent_list(dumper: _Dumper, items: list[Any]) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=False)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(int, _represent_number)
_Dumper.add_representer(float, _represent_number)
_Dumper.add_representer(dict, _represent_dict)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(
    bool, lambda dumper, value: dumper.represent_scalar(BOOL, "true" if value else "false")
)
_Dumper.add_representer(type(None), lambda dumper, _: dumper.represent_scalar(NULL, "null"))


def dump(value: Any) -> str:
    """`value` as sigs.k8s.io/yaml's JSONToYAML writes it."""
    text = yaml.dump(
        value,
        Dumper=_Dumper,
        default_flow_style=False,
        allow_unicode=True,
        width=80,
        indent=2,
        sort_keys=False,
    )
    # PyYAML marks the end of a document whose root is a plain scalar; go-yaml does not
    return text.removesuffix("...\n") if not isinstance(value, (dict, list)) else text
