"""`string.format` as Karmada's safe string library runs it: Go's `fmt.Sprintf` on gopher-lua
values (pkg/util/lifted/lua/string_safe.go strFormat; gopher-lua value.go `Format` methods).

What this gives a script, where PUC Lua's C `sprintf` differs:
- only as many arguments as the format has `%` signs not in `%%` are passed on, and a verb
  without an argument prints `%!d(MISSING)`, one argument too many `%!(EXTRA lua.LNumber=2)`;
- a number prints as an int64 for `%d %i %b %c %o %x %X %U`, as a float64 for `%e %f %g`, and
  as tostring prints it for `%s %q`; `%g` without a precision uses the shortest digits; a
  string for `%d` prints as it is if it reads as a number, else as 0; booleans and nil print
  for `%s %v %q` (booleans also for `%t`), anything else for a verb is `%!u(int64=8)`;
- `%q` quotes as Go does (`"a\\n\\x00"`), `%c` writes a Unicode character, `%x` of a string its
  bytes in hex, `%5%` a `%`; `*` widths are `%!(BADWIDTH)` (Lua numbers are no Go ints), and
  widths or precisions above 1e6 `%!(BADWIDTH)`/`%!(BADPREC)`.
sandbox.lua passes each argument as its Lua type and value and caps the result's size.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from gitfleet.interpreter.lua import _tonumber
from gitfleet.model import gofloat

Result = tuple[bool, Any]
Arg = tuple[str, Any]
NEGATIVE_ZERO = "negative zero"

_INT64 = 2**63
_MAX_NUM = 10**6
"""Go's fmt refuses widths and precisions above this."""
_GO_TYPES = {
    "number": "lua.LNumber",
    "string": "lua.LString",
    "boolean": "lua.LBool",
    "nil": "*lua.LNilType",
    "table": "*lua.LTable",
    "function": "*lua.LFunction",
}
_STRINGER_VERBS = frozenset("vsxXq")
_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


class FormatLimitError(Exception):
    """The result would exceed the string size limit."""


@dataclasses.dataclass(slots=True)
class _Spec:
    """One verb's flags, width and precision."""

    flags: str = ""
    width: int | None = None
    precision: int | None = None

    def has(self, flag: str) -> bool:
        return flag in self.flags


def format_values(template: str, limit: int, count: int, *pairs: Any) -> Result:
    """`string.format(template, ...)`; `pairs` holds each argument's Lua type and value."""
    args: list[Arg] = [_arg(str(pairs[2 * i]), pairs[2 * i + 1]) for i in range(count)]
    wanted = template.count("%") - template.count("%%")
    try:
        return True, _sprintf(template, args[: max(0, min(wanted, len(args)))], limit)
    except FormatLimitError:
        return False, f"string.format result of more than {limit} bytes exceeds the limit"


def _arg(kind: str, value: Any) -> Arg:
    """An argument as sandbox.lua hands it over: -0 comes as its own type, since Lua's integral
    numbers reach Python as integers (Go prints `%g` of -0 as `-0`)."""
    return ("number", -0.0) if kind == NEGATIVE_ZERO else (kind, value)


def _sprintf(template: str, args: list[Arg], limit: int) -> str:
    out: list[str] = []
    size, used, i, n = 0, 0, 0, len(template)
    while i < n:
        j = template.find("%", i)
        if j < 0:
            out.append(template[i:])
            break
        out.append(template[i:j])
        spec, i, used = _parse_spec(template, j + 1, args, used, out)
        if i >= n:
            out.append("%!(NOVERB)")
            break
        verb = template[i]
        i += 1
        if verb == "%":
            out.append("%")
        elif used >= len(args):
            out.append(f"%!{verb}(MISSING)")
        else:
            out.append(_format_arg(args[used], verb, spec))
            used += 1
        size += len(out[-1])
        if size > limit:
            raise FormatLimitError()
    if used < len(args):
        extra = ", ".join(f"{_GO_TYPES.get(t, t)}={_plain(t, v)}" for t, v in args[used:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _parse_spec(
    template: str, i: int, args: list[Arg], used: int, out: list[str]
) -> tuple[_Spec, int, int]:
    """The flags, width and precision from `i`; `*` consumes an argument and is a bad width."""
    spec = _Spec()
    n = len(template)
    while i < n and template[i] in "#0+- ":
        spec.flags += template[i]
        i += 1
    if i < n and template[i] == "*":
        i, used = i + 1, min(used + 1, len(args))
        out.append("%!(BADWIDTH)")
    else:
        spec.width, i = _number(template, i)
        if spec.width is not None and spec.width > _MAX_NUM:
            spec.width = None
            out.append("%!(BADWIDTH)")
    if i < n and template[i] == ".":
        if i + 1 < n and template[i + 1] == "*":
            i, used = i + 2, min(used + 1, len(args))
            out.append("%!(BADPREC)")
        else:
            precision, i = _number(template, i + 1)
            spec.precision = precision or 0
            if spec.precision > _MAX_NUM:
                spec.precision = None
                out.append("%!(BADPREC)")
    return spec, i, used


def _number(template: str, i: int) -> tuple[int | None, int]:
    start = i
    while i < len(template) and template[i].isdigit() and template[i].isascii():
        i += 1
        if i - start > 7:  # far above the limit already
            while i < len(template) and template[i].isdigit() and template[i].isascii():
                i += 1
            return _MAX_NUM + 1, i
    return (int(template[start:i]) if i > start else None), i


def _format_arg(arg: Arg, verb: str, spec: _Spec) -> str:
    kind, value = arg
    if verb == "v" and spec.flags:  # `+` and `#` ask %v for field names and Go syntax
        if kind == "string" and spec.has("#"):
            return _pad_text(_quote(str(value), _Spec()), spec)
        spec = dataclasses.replace(spec, flags=spec.flags.replace("+", "").replace("#", ""))
    if kind == "nil" and verb not in _STRINGER_VERBS:
        return "&{}"  # Go prints the nil value's empty struct
    if kind == "number":
        return _number_arg(float(value), verb, spec)
    if kind == "string":
        text = str(value)
        if verb in "di":
            if _tonumber.parse_number(text)[1] is not None:
                return _pad_text(_truncated(text, spec), spec)
            return _integer(0, "d", spec)
        return _string(text, verb, spec)
    if kind == "boolean" and verb == "t":
        return _pad_text("true" if value else "false", spec)
    if kind in ("boolean", "nil", "table", "function") and verb in _STRINGER_VERBS:
        return _string(_plain(kind, value), "s" if verb == "v" else verb, spec)
    if kind == "boolean":
        return _bad(verb, "lua.LBool", _pad_text("true" if value else "false", spec))
    return _bad(verb, _GO_TYPES.get(kind, kind), "&{...}")


def _bad(verb: str, go_type: str, shown: str) -> str:
    """Go's report of a verb that does not suit the value (shown with %v and the same flags)."""
    return f"%!{verb}({go_type}={shown})"


def _number_arg(value: float, verb: str, spec: _Spec) -> str:
    if verb in "qs":
        return _string(_number_text(value), verb, spec)
    if verb in "bcdoxXU":
        return _integer(_int64(value), verb, spec)
    if verb in "eEfFgG":
        return _float(value, verb, spec)
    if verb == "i":
        return _integer(_int64(value), "d", spec)
    if _is_int64(value):
        return _integer(_int64(value), verb, spec)
    return _float(value, verb, spec)


def _is_int64(value: float) -> bool:
    return value.is_integer() and -_INT64 <= value < _INT64


def _int64(value: float) -> int:
    """Go's int64(float64): toward zero; NaN and values out of range are the smallest int64."""
    if math.isnan(value) or not -_INT64 <= value < _INT64:
        return -_INT64
    return int(value)


def _number_text(value: float) -> str:
    """gopher-lua's LNumber.String (guards.lua `number_text`)."""
    if _is_int64(value):
        return str(int(value))
    return _shortest_g(value)


def _shortest_g(value: float) -> str:
    """Go's %g with the shortest digits (and %v of a float64): exponent form below 1e-4 and
    from 1e6 on."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return gofloat.format_float(value, "g")


def _plain(kind: str, value: Any) -> str:
    """A value as Go's %v prints it."""
    if kind == "number":
        return _number_text(float(value))
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "nil":
        return "nil"
    if kind == "string":
        return str(value)
    return f"{kind}: 0x0"


def _integer(value: int, verb: str, spec: _Spec) -> str:
    if verb == "c":
        return _pad_text(_char(value), spec)
    if verb == "U":
        width = max(4, spec.precision or 0)
        text = f"U+{value if value >= 0 else value & (2**64 - 1):0{width}X}"
        if spec.has("#") and 0 <= value <= 0x10FFFF and _char(value).isprintable():
            text += f" '{_char(value)}'"
        return _pad_text(text, spec)
    base = {"d": 10, "v": 10, "b": 2, "o": 8, "x": 16, "X": 16}.get(verb)
    if base is None:
        return _bad(verb, "int64", _integer(value, "v", spec))
    if value == 0 and spec.precision == 0:
        return _pad_text("", spec, zero=False)
    digits = _digits(abs(value), base, verb)
    sign = "-" if value < 0 else "+" if spec.has("+") else " " if spec.has(" ") else ""
    if spec.precision is not None:
        digits = digits.rjust(spec.precision, "0")
    elif spec.width is not None and spec.has("0") and not spec.has("-"):
        digits = digits.rjust(spec.width - len(sign), "0")
    prefix = ""
    if spec.has("#"):
        octal = "" if digits.startswith("0") else "0"
        prefix = {8: octal, 16: "0" + verb, 2: "0b"}.get(base, "")
    return _pad_text(sign + prefix + digits, spec, zero=False)


def _digits(value: int, base: int, verb: str) -> str:
    if base == 10:
        return str(value)
    text = format(value, {2: "b", 8: "o", 16: "x"}[base])
    return text.upper() if verb == "X" else text


def _char(value: int) -> str:
    if not 0 <= value <= 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return "\ufffd"
    return chr(value)


def _float(value: float, verb: str, spec: _Spec) -> str:
    if verb not in "eEfFgGv":
        return _bad(verb, "float64", _float(value, "v", spec))
    if math.isnan(value) or math.isinf(value):
        text = "NaN" if math.isnan(value) else "Inf"
        sign = "-" if value < 0 else "+" if spec.has("+") or math.isinf(value) else ""
        if spec.has(" ") and sign == "+" and not spec.has("+"):
            sign = " "
        return _pad_text(sign + text, spec, zero=False)
    if verb in "gGv" and spec.precision is None and not spec.has("#"):
        text = _shortest_g(value)
        text = text.upper() if verb == "G" else text
    else:
        python_verb = "f" if verb in "fF" else "g" if verb == "v" else verb
        flags = "#" if spec.has("#") else ""
        precision = "" if spec.precision is None else f".{spec.precision}"
        text = f"%{flags}{precision}{python_verb}" % value
    if spec.has("+") and not text.startswith("-"):
        text = "+" + text
    elif spec.has(" ") and not text.startswith("-"):
        text = " " + text
    if spec.width is not None and spec.has("0") and not spec.has("-"):
        sign = text[0] if text[0] in "+- " else ""
        return sign + text[len(sign) :].rjust(spec.width - len(sign), "0")
    return _pad_text(text, spec, zero=False)


def _string(text: str, verb: str, spec: _Spec) -> str:
    if verb in "sv":
        return _pad_text(_truncated(text, spec), spec)
    if verb == "q":
        return _pad_text(_quote(_truncated(text, spec), spec), spec)
    if verb in "xX":
        data = text.encode("utf-8", "surrogateescape")[: spec.precision]
        separator = " " if spec.has(" ") else ""
        prefix = ("0" + verb) if spec.has("#") else ""
        hexed = separator.join(prefix + format(b, "02x" if verb == "x" else "02X") for b in data)
        if not spec.has(" ") and prefix and hexed:
            hexed = prefix + hexed.replace(prefix, "")
        return _pad_text(hexed, spec)
    return _bad(verb, "string", _string(text, "s", spec))


def _truncated(text: str, spec: _Spec) -> str:
    return text if spec.precision is None else text[: spec.precision]


def _quote(text: str, spec: _Spec) -> str:
    """Go's strconv.Quote (QuoteToASCII with `+`, a backquoted string with `#` when it can)."""
    if spec.has("#") and "`" not in text and all(c == "\t" or c.isprintable() for c in text):
        return f"`{text}`"
    out = ['"']
    for c in text:
        if c in ('"', "\\"):
            out.append("\\" + c)
        elif c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c == "\v":
            out.append("\\v")
        elif c.isprintable() and (c.isascii() or not spec.has("+")):
            out.append(c)
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) < 0x10000:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    out.append('"')
    return "".join(out)


def _pad_text(text: str, spec: _Spec, *, zero: bool = True) -> str:
    if spec.width is None or len(text) >= spec.width:
        return text
    if spec.has("-"):
        return text.ljust(spec.width)
    return text.rjust(spec.width, "0" if zero and spec.has("0") else " ")
