"""Numbers as Go's fmt prints them (`%v`, `%#v`), for the API server's messages that quote a
value it decoded: a strategic merge patch shown as a Go map (`_decoding`), a number where apply
wants a string (`_apply_keys`)."""

from __future__ import annotations

import decimal
import math


def float64(value: float) -> str:
    """A float64 as Go's `%v` prints it: its shortest digits, in exponent form from 1e+06 and
    below 1e-04."""
    if value == 0 or not math.isfinite(value):
        return {0.0: "0", math.inf: "+Inf", -math.inf: "-Inf"}.get(value, "NaN")
    plain = decimal.Decimal(repr(value)).normalize()
    digits = "".join(map(str, plain.as_tuple().digits))
    exponent = plain.adjusted()
    if -4 <= exponent < 6:
        return format(plain, "f")
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    sign = "-" if plain < 0 else ""
    return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
