"""A YAML document held in a string, read and re-written the way Karmada's fieldOverrider does
(Karmada: pkg/util/overridemanager/overridemanager.go applyRawYAMLPatch, via sigs.k8s.io/yaml
YAMLToJSON/JSONToYAML over go.yaml.in/yaml/v2).

Reading resolves plain scalars with go-yaml v2's YAML 1.1 rules (`y`, `yes`, `on` are true;
`0x1F` and `08` are numbers; timestamps stay strings) and turns non-string keys into strings.
Writing follows the JSON round trip Karmada makes: numbers are re-read from their Go JSON text
(so `1.0` becomes `1`), keys are sorted in go-yaml's natural order (`a2` before `a10`),
strings with a newline use a literal block, strings that would read back as another type are
double-quoted, 2-space indentation, lines folded at 80 columns. PyYAML's emitter is a port of
the same libyaml emitter go-yaml uses, so only the choices above need telling, and the places
where go-yaml's emitter differs from PyYAML's: which keys are simple (an empty one is, and the
limit is 128 bytes, not 127 characters), the end of a single-quoted scalar ending in a line
break (no indent follows), characters beyond U+FFFF (unprintable to go-yaml), double-quoted
scalars (folded at spaces only) and the end of an open-ended document (no `...`). Strings
are those go-yaml reads back from Go's JSON text (a raw U+0085 folds, some characters are
refused).
"""

from __future__ import annotations

import base64
import binascii
import calendar
import dataclasses
import functools
import math
import re
from collections.abc import Hashable, Mapping
from typing import Any, ClassVar, cast

import yaml

from gitfleet.model import gofloat, yamllimits, yamlscalars

_PREFIX = "tag:yaml.org,2002:"
STR, INT, FLOAT, BOOL, NULL = (_PREFIX + t for t in ("str", "int", "float", "bool", "null"))
MERGE, TIMESTAMP, BINARY = (_PREFIX + t for t in ("merge", "timestamp", "binary"))
MAP, SEQ = _PREFIX + "map", _PREFIX + "seq"

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

    # go-yaml's double-quoted escapes: `\'` is one, `\/` is none
    ESCAPE_REPLACEMENTS: ClassVar[dict[str, str]] = {  # type: ignore[misc]
        **{k: v for k, v in yaml.scanner.Scanner.ESCAPE_REPLACEMENTS.items() if k != "/"},
        "'": "'",
    }

    def scan_to_next_token(self) -> None:
        """PyYAML's, but a tab is skipped where go-yaml's scanner (libyaml's) skips one: inside
        a flow collection, and where no simple key may start (`a:<TAB>b`); PyYAML skips none."""
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (
                self.peek() == "\t" and (self.flow_level or not self.allow_simple_key)
            ):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if not self.scan_line_break():  # type: ignore[no-untyped-call]
                return
            if not self.flow_level:
                self.allow_simple_key = True

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> list[str] | None:
        """PyYAML's, but a tab is a blank as in go-yaml's (libyaml's) plain scalars: kept
        between words, skipped before a continued line's text unless it stands left of the
        indentation (an error there); PyYAML ends the scalar at a tab."""
        length = 0
        while self.peek(length) in " \t":
            length += 1
        whitespaces = self.prefix(length)
        self.forward(length)
        if self.peek() not in _LINE_ENDS:
            return [whitespaces] if whitespaces else []
        line_break = self.scan_line_break()  # type: ignore[no-untyped-call]
        self.allow_simple_key = True
        breaks = []
        while self.column or not self._at_document_marker():  # a marker starts a line
            ch = self.peek()
            if ch in _LINE_ENDS:
                breaks.append(self.scan_line_break())  # type: ignore[no-untyped-call]
            elif ch == " " or (ch == "\t" and self.column >= indent):
                self.forward()
            elif ch == "\t":
                raise yaml.scanner.ScannerError(
                    "while scanning a plain scalar",
                    start_mark,
                    "found a tab character that violates indentation",
                    self.get_mark(),
                )
            else:
                chunks = [line_break] if line_break != "\n" else [] if breaks else [" "]
                return chunks + breaks
        return None

    def scan_block_scalar_indentation(self) -> tuple[list[str], int, Any]:
        """PyYAML's, but a tab where a block scalar's indentation is still being found is an
        error, as in go-yaml (PyYAML makes it the text's first character)."""
        found: tuple[list[str], int, Any] = super().scan_block_scalar_indentation()
        self._no_tab_in_indentation()
        return found

    def scan_block_scalar_breaks(self, indent: int) -> tuple[list[str], Any]:
        """PyYAML's, but a tab left of a block scalar's indentation is an error, as in go-yaml."""
        found: tuple[list[str], Any] = super().scan_block_scalar_breaks(indent)
        if self.column < indent:
            self._no_tab_in_indentation()
        return found

    def _no_tab_in_indentation(self) -> None:
        if self.peek() == "\t":
            raise yaml.scanner.ScannerError(
                "while scanning a block scalar",
                None,
                "found a tab character where an indentation space is expected",
                self.get_mark(),
            )

    def scan_tag(self) -> yaml.TagToken:
        """PyYAML's, but a tag may end at a tab too, as in go-yaml (libyaml's IS_BLANKZ)."""
        start_mark = self.get_mark()
        if self.peek(1) == "<":
            handle = None
            self.forward(2)
            suffix = self.scan_tag_uri("tag", start_mark)
            if self.peek() != ">":
                raise yaml.scanner.ScannerError(
                    "while parsing a tag", start_mark, "expected '>'", self.get_mark()
                )
            self.forward()
        elif self.peek(1) in _BLANKZ:
            handle, suffix = None, "!"
            self.forward()
        else:
            length = 1
            while self.peek(length) not in _BLANKZ and self.peek(length) != "!":
                length += 1
            handle = "!"
            if self.peek(length) == "!":
                handle = self.scan_tag_handle("tag", start_mark)  # type: ignore[no-untyped-call]
            else:
                self.forward()
            suffix = self.scan_tag_uri("tag", start_mark)
        if self.peek() not in _BLANKZ:
            raise yaml.scanner.ScannerError(
                "while scanning a tag",
                start_mark,
                "did not find expected whitespace or line break",
                self.get_mark(),
            )
        return yaml.TagToken((handle, suffix), start_mark, self.get_mark())

    def _at_document_marker(self) -> bool:
        return self.prefix(3) in ("---", "...") and self.peek(3) in "\0 \t\r\n\x85\u2028\u2029"

    def compose_node(self, parent: Any, index: Any) -> yaml.Node | None:
        """An anchor given again names its new node from there on, as in go-yaml; PyYAML
        refuses it."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if not isinstance(event, yaml.AliasEvent) and event.anchor is not None:
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            if implicit[0] and value == "<<":  # go-yaml spots merge keys by their text
                return MERGE
            return resolve(value)[0] if implicit[0] else STR
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    def scan_directive(self) -> Any:
        """Only `%YAML` and `%TAG` directives, as go-yaml (PyYAML skips others)."""
        token = super().scan_directive()
        if token.name not in ("YAML", "TAG"):
            raise yaml.scanner.ScannerError(None, None, "found unknown directive name")
        return token

    def process_directives(self) -> Any:
        """A `%YAML` directive must name 1.1, the only version go-yaml v2 reads (PyYAML takes
        any 1.x)."""
        found = super().process_directives()  # type: ignore[no-untyped-call]
        if self.yaml_version not in (None, (1, 1)):
            raise yaml.parser.ParserError(None, None, "found incompatible YAML document")
        return found

    def compose_scalar_node(self, anchor: Any) -> yaml.ScalarNode:
        """A scalar tagged `!` is text to go-yaml (a tag it does not resolve); PyYAML resolves
        it as a plain scalar."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if event.tag == "!":
            event.tag = STR
        node: yaml.ScalarNode = super().compose_scalar_node(anchor)
        return node

    def compose_mapping_node(self, anchor: Any) -> yaml.MappingNode:
        """A map whatever its tag (`!!set`, `!!str`, `!custom`): go-yaml decodes a collection
        by its kind and reads a tag only on a scalar."""
        node: yaml.MappingNode = super().compose_mapping_node(anchor)
        node.tag = MAP
        return node

    def compose_sequence_node(self, anchor: Any) -> yaml.SequenceNode:
        """A list whatever its tag (`!!omap`, `!!int`): see `compose_mapping_node`."""
        node: yaml.SequenceNode = super().compose_sequence_node(anchor)
        node.tag = SEQ
        return node

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        """A `<<` map is merged where it stands, as go-yaml v2 sets its keys then (decoder.merge):
        a key given before it is overridden, one given after it stands; of a list of maps, the
        earlier maps win. PyYAML moves every merged key before the map's own, so that those
        always stand."""
        pairs: list[tuple[yaml.Node, yaml.Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag != MERGE or key_node.value != "<<":  # `!!merge 1` is a key
                pairs.append((key_node, value_node))
                continue
            merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for sub in reversed(merged):
                if not isinstance(sub, yaml.MappingNode):
                    raise yaml.constructor.ConstructorError(
                        None, None, "map merge requires map or sequence of maps as the value"
                    )
                self.flatten_mapping(sub)
                pairs.extend(sub.value)
        node.value = pairs

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        """Keys as go-yaml holds them (`_RawKey`): a key given again replaces the value before
        any key becomes a JSON key, so a key no JSON key can be made of counts only where its
        map is kept (sigs.k8s.io/yaml converts the map go-yaml decoded)."""
        self.flatten_mapping(node)
        found: dict[Hashable, Any] = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):
                raise DocumentError(f"invalid map key {key!r}")
            found[_RawKey(type(key), key)] = self.construct_object(value_node, deep=deep)
        return found


@dataclasses.dataclass(frozen=True, slots=True)
class _RawKey:
    """A map key as a Go interface value: of its type, so that `1`, `1.0` and `true` stay
    three keys (Python holds them equal) until each becomes a JSON key (`_key`, once read)."""

    kind: type
    value: Hashable


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


def _construct_binary(loader: _Loader, node: yaml.ScalarNode) -> str:
    """go-yaml's `!!binary` scalar: standard base64 with its padding, line breaks skipped (Go's
    StdEncoding; Python's own decoder skips any character it does not know), the bytes a string
    key or value like any other."""
    text = loader.construct_scalar(node).replace("\r", "").replace("\n", "")
    try:
        return _go_string(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError) as error:
        raise DocumentError("!!binary value contains invalid base64 data") from error


def _go_string(data: bytes) -> str:
    """Bytes as encoding/json writes a Go string: each byte of an invalid UTF-8 sequence is
    a U+FFFD of its own (utf8.DecodeRune reads one byte), where Python's "replace" makes one
    U+FFFD of a truncated sequence."""
    found = []
    while True:
        try:
            found.append(data.decode("utf-8"))
            return "".join(found)
        except UnicodeDecodeError as error:
            found.append(data[: error.start].decode("utf-8"))
            found.append("\ufffd" * (error.end - error.start))
            data = data[error.end :]


def _construct_any(loader: _Loader, suffix: str, node: yaml.Node) -> Any:
    """go-yaml ignores tags it does not resolve (`!!map`, `!!seq`, `!!set` on a scalar too): the
    node is read for its shape, a scalar as its text."""
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_scalar(cast(yaml.ScalarNode, node))


def _construct_shape(loader: _Loader, node: yaml.Node) -> Any:
    return _construct_any(loader, "", node)


for _tag in (INT, FLOAT, BOOL, NULL, TIMESTAMP):
    _Loader.add_constructor(_tag, _construct_resolved)
_Loader.add_constructor(BINARY, _construct_binary)
for _tag in (MAP, SEQ, *(_PREFIX + t for t in ("set", "omap", "pairs"))):
    _Loader.add_constructor(_tag, _construct_shape)
_Loader.add_multi_constructor("", _construct_any)


def _key(key: Any) -> str:
    """sigs.k8s.io/yaml's conversion of a map key to a JSON object key. An integer past int64
    is a uint64 to go-yaml, a key type it has no conversion for."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int) and key < 2**63:
        return str(key)
    if isinstance(key, float):
        return gofloat.format_float32(key)
    raise DocumentError(f"unsupported map key {key!r}")


# only an escape (`\\ud83d`) can make one; go-yaml refuses such escapes
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(text: str) -> str:
    if _SURROGATE.search(text):
        raise DocumentError("yaml: found invalid Unicode character escape code")
    return text


def _jsonable(value: Any) -> Any:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, Mapping):
        return {_text(_key(key.value)): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_jsonable(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise DocumentError(f"json: unsupported value: {gofloat.format_float(value, 'g')}")
    return value


def load(text: str) -> Any:
    """The first document of `text` as the JSON value Karmada patches."""
    try:
        loader = _Loader(text)  # its reader refuses what go-yaml's does (DEL, C1 controls)
    except yaml.YAMLError as error:
        raise DocumentError(str(error).replace("\n", " ")) from error
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
    text = str(value) if isinstance(value, int) else gofloat.format_float(value)
    return resolve(text)[1]


_BREAKS = "\n\x85\u2028\u2029"
_LINE_ENDS = "\r" + _BREAKS
_BLANKZ = "\0 \t" + _LINE_ENDS
# go-yaml's is_printable without its line breaks and byte-order mark, which it escapes too
_GO_PRINTABLE = re.compile("[\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_GO_ESCAPES = {
    "\x00": "0", "\x07": "a", "\x08": "b", "\t": "t", "\n": "n", "\x0b": "v", "\x0c": "f",
    "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N", "\xa0": "_", "\u2028": "L",
    "\u2029": "P",
}  # fmt: skip


def _go_escape(ch: str) -> str:
    if ch in _GO_ESCAPES:
        return _GO_ESCAPES[ch]
    code = ord(ch)
    if code <= 0xFF:
        return f"x{code:02X}"
    return f"u{code:04X}" if code <= 0xFFFF else f"U{code:08X}"


class _Dumper(yaml.SafeDumper):
    """PyYAML's emitter driven with go-yaml v2's choices of order, style and number text."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode:
            return resolve(value)[0] if implicit[0] else STR
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def analyze_scalar(self, scalar: str) -> Any:
        """go-yaml counts characters beyond U+FFFF as unprintable, so a string holding one is
        double-quoted, the character escaped."""
        analysis = super().analyze_scalar(scalar)
        if any(ch > "\uffff" for ch in scalar):
            analysis.allow_flow_plain = analysis.allow_block_plain = False
            analysis.allow_single_quoted = analysis.allow_block = False
        return analysis

    def check_simple_key(self) -> bool:
        """go-yaml's rule for a scalar key (yaml_emitter_check_simple_key): any one-line
        scalar of at most 128 bytes, the empty one included, is written as `key:`. A carriage
        return breaks a line for go-yaml (is_break), not for PyYAML's analysis."""
        if not isinstance(self.event, yaml.ScalarEvent):
            return bool(super().check_simple_key())
        if self.analysis is None:
            self.analysis = self.analyze_scalar(self.event.value)
        one_line = not self.analysis.multiline and "\r" not in self.event.value
        return one_line and len(self.event.value.encode()) <= 128

    def write_single_quoted(self, text: str, split: bool = True) -> None:
        """go-yaml's single-quoted scalar (yaml_emitter_write_single_quoted_scalar): as
        PyYAML's, but a line break ends the line only, the next line's indent being written
        before the next character, so none follows breaks that end the text."""
        self.write_indicator("'", True)
        spaces = breaks = False
        for i, ch in enumerate(text):
            if ch == " ":
                if (
                    split
                    and not spaces
                    and self.column > self.best_width
                    and 0 < i < len(text) - 1
                    and text[i + 1] != " "
                ):
                    self.write_indent()
                else:
                    self._put(ch)
                spaces = True
            elif ch in _BREAKS:
                if not breaks and ch == "\n":
                    self.write_line_break()
                self.write_line_break(None if ch == "\n" else ch)
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self._put("''" if ch == "'" else ch)
                self.indention = spaces = breaks = False
        self.write_indicator("'", False)

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        """go-yaml's double-quoted scalar (yaml_emitter_write_double_quoted_scalar): what it
        cannot print escaped (`\\U` beyond U+FFFF, hex in capitals), line and paragraph
        separators too (`\\L`, `\\P`), and a long line folded only at a space, which the fold
        stands for. go-yaml's byte order mark test reads the scalar's first bytes whatever the
        position (is_bom), so after a leading U+FEFF every character is escaped."""
        self.write_indicator('"', True)
        spaces = False
        escape_all = text.startswith("\ufeff")
        for i, ch in enumerate(text):
            if escape_all or ch in '"\\\u2028\u2029' or not _GO_PRINTABLE.fullmatch(ch):
                self._put("\\" + _go_escape(ch))
                spaces = False
            elif ch == " ":
                if split and not spaces and self.column > self.best_width and 0 < i < len(text) - 1:
                    self.write_indent()
                    if text[i + 1] == " ":
                        self._put("\\")
                else:
                    self._put(ch)
                spaces = True
            else:
                self._put(ch)
                spaces = False
        self.write_indicator('"', False)

    def _put(self, data: str) -> None:
        self.column += len(data)
        self.stream.write(data.encode(self.encoding) if self.encoding else data)


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
    return dumper.represent_scalar(FLOAT, gofloat.format_float(value, "g"))


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


# what Go's JSON encoder leaves raw and go-yaml's reader refuses
_YAML_CONTROL = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")
_NEL_RUN = re.compile(" *\x85[ \x85]*")


def _fold_nel(run: re.Match[str]) -> str:
    breaks = run.group().count("\x85") - 1
    return "\n" * breaks if breaks else " "


def _text_read_back(text: str, key: bool) -> str:
    """A string as go-yaml reads it back from the JSON text Go writes of it: JSON leaves a
    next-line character (U+0085) raw, which in a double-quoted scalar is a line break, folded
    with the spaces around it (one space, or a newline for each further one), and which ends
    a key that must fit on one line; characters YAML does not allow stop the reading."""
    if _YAML_CONTROL.search(text):
        raise DocumentError("yaml: control characters are not allowed")
    if "\x85" not in text:
        return text
    if key:
        raise DocumentError(f"yaml: a line break in the key {text!r}")
    return _NEL_RUN.sub(_fold_nel, text)


def _read_back(value: Any) -> Any:
    if isinstance(value, str):
        return _text_read_back(value, key=False)
    if isinstance(value, dict):
        return {_text_read_back(k, key=True): _read_back(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_read_back(item) for item in value]
    return value


def dump(value: Any) -> str:
    """`value` as sigs.k8s.io/yaml's JSONToYAML writes it: as go-yaml reads its Go JSON text
    (numbers in `_represent_number`, strings in `_read_back`), then written by go-yaml."""
    text = yaml.dump(
        _read_back(value),
        Dumper=_Dumper,
        default_flow_style=False,
        allow_unicode=True,
        width=80,
        indent=2,
        sort_keys=False,
    )
    # PyYAML marks the end of an open-ended document (a plain scalar root, a literal block
    # keeping its final line breaks, U+2028 among them); go-yaml ends it without a marker
    if text.endswith("...\n") and text[-5:-4] in ("", *_BREAKS):
        return text[:-4]
    return text
