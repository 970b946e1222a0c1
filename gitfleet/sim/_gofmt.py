"""Float64 text as Go writes it: `%v` (`float64`), for the API server's messages that quote a
value it decoded (a strategic merge patch shown as a Go map, `_decoding`; a number where apply
wants a string, `_apply_keys`), and encoding/json (`json_float64`), for the bodies it writes
(`_gojson`). Both write the shortest digits that read back as the value (Python's `repr` has
the same digits, in another layout) and differ in where the exponent form starts."""

from __future__ import annotations

import decimal
import math


def _shortest(value: float) -> tuple[str, str, int]:
    """The sign, the shortest digits of a finite non-zero `value`, and the position of the
    decimal point relative to them (`0.0123`: `"123"`, -1)."""
    plain = decimal.Decimal(repr(value)).normalize()
    digits = "".join(map(str, plain.as_tuple().digits))
    return ("-" if plain < 0 else ""), digits, plain.adjusted() + 1


def _exponent_form(sign: str, digits: str, point: int, width: int) -> str:
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    exponent = point - 1
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):0{width}d}"


def _positional(sign: str, digits: str, point: int) -> str:
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"


def float64(value: float) -> str:
    """A float64 as Go's `%v` prints it: in exponent form from 1e+06 and below 1e-04."""
    if value == 0 or not math.isfinite(value):
        return {0.0: "0", math.inf: "+Inf", -math.inf: "-Inf"}.get(value, "NaN")
    sign, digits, point = _shortest(value)
    if -4 <= point - 1 < 6:
        return _positional(sign, digits, point)
    return _exponent_form(sign, digits, point, 2)


def json_float64(value: float) -> str:
    """A float64 as encoding/json writes it: in exponent form below 1e-6 and from 1e21, a
    one-digit negative exponent without its leading zero (`1.5e-7`, `1e+21`). Zero is `0`
    (the server writes what it read back from storage, where a negative zero is an integer);
    NaN and infinities, which Go's decoder refuses, are written as Python writes them."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else repr(value)
    sign, digits, point = _shortest(value)
    if 1e-6 <= abs(value) < 1e21:
        return _positional(sign, digits, point)
    return _exponent_form(sign, digits, point, 1 if point <= 0 else 2)
