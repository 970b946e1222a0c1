"""Go's float64 text, as the Go code whose output gitfleet reproduces writes it:
encoding/json (Karmada's JSON, a Lua result's numbers), `strconv.FormatFloat` with the
shortest digits (go-yaml, gopher-lua's `%g` and tostring) and its float32 form (the float map
keys of sigs.k8s.io/yaml). Python's `repr` gives the same shortest digits, in another layout.
"""

from __future__ import annotations

import decimal
import math
import struct


class UnsupportedValueError(ValueError):
    """A value Go's encoder refuses (NaN, infinities)."""


def _shortest(value: float) -> tuple[str, int]:
    """Shortest round-tripping decimal digits of a finite non-zero float and the position of
    the decimal point relative to them (Go's `decimalSlice` d and dp)."""
    parts = decimal.Decimal(repr(abs(value))).as_tuple()
    significant = "".join(map(str, parts.digits)).lstrip("0")
    return significant.rstrip("0"), len(significant) + int(parts.exponent)


def _fmt_e(digits: str, point: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exp = point - 1
    return f"{mantissa}e{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _fmt_f(digits: str, point: int) -> str:
    if point <= 0:
        return "0." + "0" * -point + digits
    if point >= len(digits):
        return digits + "0" * (point - len(digits))
    return digits[:point] + "." + digits[point:]


def format_float(value: float, verb: str = "json") -> str:
    """Go's float64 text: `verb="json"` as encoding/json writes it, `verb="g"` as
    `strconv.FormatFloat(v, 'g', -1, 64)` (what go-yaml writes)."""
    if math.isnan(value) or math.isinf(value):
        if verb == "json":
            raise UnsupportedValueError(f"json: unsupported value: {value!r}")
        return {"nan": ".nan", "inf": ".inf", "-inf": "-.inf"}[repr(value)]
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    if value == 0:
        return sign + "0"
    digits, point = _shortest(value)
    if verb == "json":
        magnitude = abs(value)
        if magnitude < 1e-6 or magnitude >= 1e21:
            text = _fmt_e(digits, point)
            # encoding/json shortens a two-digit negative exponent: e-07 -> e-7
            if text[-4:-1] == "e-0":
                text = text[:-2] + text[-1]
            return sign + text
        return sign + _fmt_f(digits, point)
    exp = point - 1
    if exp < -4 or exp >= 6:  # shortest 'g' switches to an exponent past 6 digits
        return sign + _fmt_e(digits, point)
    return sign + _fmt_f(digits, point)


def format_float32(value: float) -> str:
    """`strconv.FormatFloat(v, 'g', -1, 32)`: the shortest text that reads back as the same
    float32 (sigs.k8s.io/yaml writes float map keys so)."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    if math.isnan(single) or math.isinf(single) or single == 0:
        return format_float(single, "g")
    for precision in range(1, 10):
        text = f"{single:.{precision}g}"
        if struct.unpack("f", struct.pack("f", float(text)))[0] == single:
            return format_float(float(text), "g")
    return format_float(single, "g")
