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
    if not text or text[0] in " " or text[-1] in " :":
        return False
    first = text[0]
    if first in _INDICATORS and not (first == "-" and len(text) > 1 and text[1] != " "):
        return False
    if text.startswith(("---", "...")) or any(bad in text for bad in _UNSAFE_INSIDE):
        return False
    if not text.isascii() and not all(c.isprintable() and c not in _NEEDS_ESCAPE for c in text):
        return False
    if text.isascii() and not text.isprintable():
        return False
    return not (first in _MAYBE_TYPED and _typed(text))


def quoted(text: str) -> str:
    return '"' + text.translate(_ESCAPES) + '"'


def _scalar_text(text: str) -> str:
    return text if _plain_ok(text) else quoted(text)


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


def _inline(value: Any) -> str | None:
    """The text of a scalar or empty collection on the current line, None for blocks."""
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
    if isinstance(value, str):
        return None if "\n" in value else _scalar_text(value)
    if isinstance(value, Mapping):
        return None if value else "{}"
    if isinstance(value, Sequence):
        return None if value else "[]"
    raise TypeError(f"cannot write a {type(value).__name__} as YAML")


def _value(value: Any, indent: int, out: list[str]) -> None:
    """Write `value` after a `key:` or `-` already on the line."""
    text = _inline(value)
    if text is not None:
        out.append(f" {text}\n")
    elif isinstance(value, str):
        out.extend(_literal(value, indent + 2) or [f" {quoted(value)}\n"])
    elif isinstance(value, Mapping):
        out.append("\n")
        _mapping(value, indent + 2, out)
    else:
        out.append("\n")
        _sequence(value, indent, out)


def _key(key: str, pad: str) -> str:
    text = _scalar_text(key) if "\n" not in key else quoted(key)
    if len(text) > _MAX_SIMPLE_KEY:
        return f"{pad}? {text}\n{pad}:"
    return f"{pad}{text}:"


def _mapping(mapping: Mapping[str, Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for key in sorted(mapping):
        if not isinstance(key, str):
            raise TypeError(f"cannot write key {key!r}: JSON object keys are strings")
        out.append(_key(key, pad))
        _value(mapping[key], indent, out)


def _sequence(items: Sequence[Any], indent: int, out: list[str]) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, (Mapping, list, tuple)) and item:
            nested: list[str] = []
            if isinstance(item, Mapping):
                _mapping(item, indent + 2, nested)
            else:
                _sequence(item, indent + 2, nested)
            out.append(f"{pad}- {nested[0][indent + 2 :]}")
            out.extend(nested[1:])
        else:
            out.append(f"{pad}-")
            _value(item, indent, out)


def dump(value: Mapping[str, Any]) -> bytes:
    """One YAML document holding the mapping `value`."""
    out: list[str] = []
    if value:
        _mapping(value, 0, out)
    else:
        out.append("{}\n")
    return "".join(out).encode()
