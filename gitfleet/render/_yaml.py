"""Deterministic YAML for rendered files: the same value always gives the same bytes, and every
reader sees the same value: kubectl (go-yaml v2, YAML 1.1), PyYAML (YAML 1.1) and YAML 1.2
readers alike.

Layout follows `kubectl get -o yaml`: keys sorted by code point (the order Go's JSON encoder
writes map keys in), two-space indentation, sequences not indented below their key, no line
folding, one trailing newline. `{}`, `[]` and `null` are written as such.

Strings are plain only when that is safe for every reader: printable, no leading or trailing
space, no indicator that would start other syntax, and not a value any of the three resolvers
would read as something else (`no`, `on`, `y`, `~`, `null`, `1e3`, `0x1F`, `012`, `1_000`,
`.inf`, `1:20`, `2026-01-01`, `=`, `<<`, ...). go-yaml's rules come from the model's
`yamlscalars` (shared with the loader); PyYAML's and YAML 1.2's from those libraries'
resolvers. Anything else is double-quoted with escapes for every character YAML would not
keep as is. A multi-line string is a literal block (`|`, with the chomping indicator that keeps
its trailing newlines exact) when its lines allow it, else double-quoted.

Numbers are written as given (the render normalises them as Karmada's JSON round trip does
before they get here); a float always keeps a `.` in its digits, so that YAML 1.1 readers read
it back as a float.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from ruamel.yaml import nodes as ruamel_nodes
from ruamel.yaml import resolver as ruamel_resolver

from gitfleet.model import yamlscalars

_STR = yamlscalars.STR
_MAYBE_TYPED = frozenset("yYnNtTfFoO~.+-0123456789<=")
"""First characters of every plain scalar some resolver reads as other than a string."""
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_UNSAFE_INSIDE = (": ", " #", "\t")
_MAX_SIMPLE_KEY = 1000
"""Longer keys are written as explicit keys (`? key`): implicit ones are limited to 1024."""

_PYYAML = yaml.resolver.Resolver()
_YAML12 = ruamel_resolver.VersionedResolver(version=(1, 2))


def _escapes() -> dict[int, str]:
    table = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]}
    table.update({0x5C: "\\\\", 0x22: '\\"', 0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r", 0x00: "\\0"})
    for code in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF, *range(0xD800, 0xE000)):
        table[code] = f"\\u{code:04x}"
    return table


_ESCAPES = _escapes()
_NEEDS_ESCAPE = frozenset(chr(c) for c in _ESCAPES) - {"\\", '"'}


@functools.lru_cache(maxsize=4096)
def _typed(text: str) -> bool:
    """Whether some reader resolves `text`, written plain, to something other than a string."""
    implicit = (True, False)
    return (
        yamlscalars.implicit_tag(text) != _STR
        or _PYYAML.resolve(yaml.ScalarNode, text, implicit) != _STR  # type: ignore[no-untyped-call]
        or _YAML12.resolve(ruamel_nodes.ScalarNode, text, implicit) != _STR
    )


def _plain_ok(text: str) -> bool:
    if not text or text[0] == " " or text[-1] in " :":
        return False
    first = text[0]
    if first in _INDICATORS and not (first == "-" and len(text) > 1 and text[1] != " "):
        return False
    if text.startswith(("---", "...")) or any(bad in text for bad in _UNSAFE_INSIDE):
        return False
    if text.isascii():
        if not text.isprintable():
            return False
    elif not all(c.isprintable() and c not in _NEEDS_ESCAPE for c in text):
        return False
    return not (first in _MAYBE_TYPED and _typed(text))


def quoted(text: str) -> str:
    return '"' + text.translate(_ESCAPES) + '"'


_TEXTS: dict[str, str] = {}
_TEXTS_LIMIT = 200_000
_MEMO_LENGTH = 256
"""The longest text the memos below keep: short keys and values are what repeat, and a
long-running reconciler must not hold a full memo of long strings (a last-applied annotation
is kilobytes)."""


def scalar_text(text: str) -> str:
    """A one-line string's scalar text: plain when safe, else double-quoted (memoised: keys
    and most values repeat across manifests)."""
    found = _TEXTS.get(text)
    if found is None:
        found = text if _plain_ok(text) else quoted(text)
        if len(text) > _MEMO_LENGTH:
            return found
        if len(_TEXTS) >= _TEXTS_LIMIT:
            _TEXTS.clear()
        _TEXTS[text] = found
    return found


def _literal(text: str, indent: int) -> list[str] | None:
    """The lines of `text` as a literal block at `indent`, None when one cannot hold it."""
    if any(c in _NEEDS_ESCAPE and c != "\n" for c in text):
        return None
    stripped = text.rstrip("\n")
    body = stripped.split("\n")
    if not stripped.strip("\n") or any(line[-1:] in (" ", "\t") for line in body):
        return None
    trailing = len(text) - len(stripped)
    chomp = "-" if trailing == 0 else ("" if trailing == 1 else "+")
    first = next(line for line in body if line)
    header = "|" + ("2" if first[0] == " " else "") + chomp
    pad = " " * indent
    out = [f" {header}\n"]
    out += [f"{pad}{line}\n" if line else "\n" for line in body]
    out += ["\n"] * (trailing - 1 if trailing > 1 else 0)
    return out


def format_float(value: float) -> str:
    """A float's shortest digits, with a `.` in the mantissa (`1.5`, `1.0e-07`, `1.0e+21`)."""
    if not math.isfinite(value):
        raise ValueError(f"cannot write {value!r}: JSON holds only finite numbers")
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if not e:
        return mantissa
    power = int(exponent)
    return f"{mantissa}e{'-' if power < 0 else '+'}{abs(power):02d}"


def _scalar(value: Any) -> str:
    """The text of a non-string scalar."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def _value(value: Any, head: str, pad: str, out: list[str]) -> None:
    """Write `value` after `head` (a line start ending in `key:` or `-`); `pad` is the
    indentation of that key or dash."""
    kind = type(value)
    if kind is int:
        out.append(f"{head} {value}\n")
    elif kind is str:
        if "\n" not in value:
            out.append(f"{head} {scalar_text(value)}\n")
        else:
            block = _literal(value, len(pad) + 2)
            out.append(head)
            out.extend(block or [f" {quoted(value)}\n"])
    elif kind is dict:
        if value:
            out.append(head + "\n")
            _mapping(value, pad + "  ", out)
        else:
            out.append(head + " {}\n")
    elif kind is list or kind is tuple:
        if value:
            out.append(head + "\n")
            _sequence(value, pad, out)
        else:
            out.append(head + " []\n")
    elif isinstance(value, Mapping):
        _value(dict(value), head, pad, out)
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        _value(list(value), head, pad, out)
    else:
        out.append(f"{head} {_scalar(value)}\n")


_HEADS: dict[tuple[str, str], str] = {}
"""Line starts by key and indentation (memoised: the same keys start most lines of a render)."""


def _head(key: Any, pad: str) -> str:
    if type(key) is not str:
        raise TypeError(f"cannot write key {key!r}: JSON object keys are strings")
    found = _HEADS.get((key, pad))
    if found is not None:
        return found
    text = scalar_text(key) if "\n" not in key else quoted(key)
    found = f"{pad}? {text}\n{pad}:" if len(text) > _MAX_SIMPLE_KEY else f"{pad}{text}:"
    if len(key) > _MEMO_LENGTH:
        return found
    if len(_HEADS) >= _TEXTS_LIMIT:
        _HEADS.clear()
    _HEADS[key, pad] = found
    return found


def _mapping(mapping: Mapping[str, Any], pad: str, out: list[str], lead: str = "") -> None:
    """Block mapping at `pad`; `lead` (as long as `pad`) starts its first line instead, for a
    mapping that is a sequence item (`- key: ...`)."""
    for key in sorted(mapping):
        head = _head(key, pad)
        if lead:
            head, lead = lead + head[len(pad) :], ""
        _value(mapping[key], head, pad, out)


_ITEMS: dict[tuple[str, str, tuple[tuple[str, Any], ...]], str] = {}
"""The text of sequence items that are small mappings of strings and integers, by where they
start and what they hold (memoised: a binding lists hundreds of clusters, each `name` and
`replicas`, and bindings list the same clusters)."""
_FLAT_ITEM_KEYS = 4


def _flat_item(item: dict[str, Any], inner: str, lead: str) -> str | None:
    """`item`'s text as a sequence item, when it is a small mapping of strings and integers."""
    if len(item) > _FLAT_ITEM_KEYS:
        return None
    pairs = tuple(item.items())
    for _, value in pairs:
        kind = type(value)
        if kind is not int and (kind is not str or len(value) > _MEMO_LENGTH):
            return None
    key = (inner, lead, pairs)
    found = _ITEMS.get(key)
    if found is None:
        lines: list[str] = []
        _mapping(item, inner, lines, lead)
        found = "".join(lines)
        if len(_ITEMS) >= _TEXTS_LIMIT:
            _ITEMS.clear()
        _ITEMS[key] = found
    return found


def _sequence(items: Sequence[Any], pad: str, out: list[str], lead: str = "") -> None:
    """Block sequence at `pad`, not indented below its key (kubectl's style)."""
    inner = pad + "  "
    for item in items:
        start, lead = (lead or pad), ""
        kind = type(item)
        if kind is dict and item:
            flat = _flat_item(item, inner, start + "- ")
            if flat is not None:
                out.append(flat)
            else:
                _mapping(item, inner, out, start + "- ")
        elif (kind is list or kind is tuple) and item:
            _sequence(item, inner, out, start + "- ")
        else:
            _value(item, start + "-", pad, out)


def dump(value: Mapping[str, Any]) -> bytes:
    """One YAML document holding the mapping `value`."""
    out: list[str] = []
    if value:
        _mapping(value, "", out)
    else:
        out.append("{}\n")
    return "".join(out).encode()
