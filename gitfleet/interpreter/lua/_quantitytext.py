"""A resource quantity a script returned, printed as Karmada prints it after decoding it.

apimachinery's ParseQuantity keeps the text it was given when that text is already "canonical
enough" and the value fits its int64 fast path (quantity.go: a decimal whose scale is a multiple
of three, with no trailing `000` and no leading zero; a binary-suffixed integer not divisible
by 8), and a Quantity prints its kept text. So a requirement written `2.048` stays `2.048`
where the canonical form is `2048m`, and `+1Gi` stays `+1Gi`; any other text prints in
canonical form.
"""

from __future__ import annotations

import re

from gitfleet.interpreter import _quantity

_PARTS = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)", re.DOTALL)
_MAX_INT64_DIGITS = 18
"""apimachinery's maxInt64Factors: digits its int64 fast path takes."""
_NANO = -9
_INT64 = 2**63


def text(raw: str) -> str:
    """`raw` (a valid quantity) as Go prints the Quantity it parses to."""
    trimmed = raw.strip()
    canonical = str(_quantity.parse(trimmed))
    return trimmed if trimmed == "0" or _kept(trimmed) else canonical


def _kept(trimmed: str) -> bool:
    found = _PARTS.fullmatch(trimmed)
    if found is None:
        return False
    num, denom, suffix = found.group(2) or "0", found.group(3) or "", found.group(4)
    scale10, exp2, fmt = _quantity._interpret(suffix, trimmed)
    if fmt is _quantity.Format.BINARY_SI:
        if denom or 15 - len(num) - int(exp2 * 3 / 10) - 1 < 0:
            return False
        value = int(num)
        return value << exp2 < _INT64 and exp2 % 10 == 0 and value & 7 != 0
    if _MAX_INT64_DIGITS - len(num) - len(denom) < 0:
        return False
    scale = scale10 - len(denom)
    shifted = num + denom
    if scale < _NANO or int(shifted) >= _INT64:
        return False
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
