"""Kubernetes resource quantities (`"500m"`, `"1Gi"`, `"1e3"`, `2`): parsing, rounding, printing.

Values are kept as whole nanounits because Kubernetes rounds every parsed quantity up (away from
zero) to nano precision, so an integer count of nanos is exact and integer arithmetic is fast.
`value()` and `milli_value()` round up the way `Quantity.Value()` and `MilliValue()` do; `str()`
prints the canonical form `Quantity.String()` would (`"1500m"`, `"128Mi"`, `"2"`), and
`printed(text)` what a Quantity parsed from `text` prints (the text itself when kept).

Karmada: vendored k8s.io/apimachinery/pkg/api/resource (quantity.go ParseQuantity,
parseQuantityString, CanonicalizeBytes; suffix.go; amount.go AsCanonicalBytes).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import re

from gitfleet.model import gofloat

_NANO = 10**9
_MILLI_IN_NANOS = 10**6
_BINARY_CAP = 2**63 - 1
"""Kubernetes caps BinarySI quantities at the largest int64."""
_MAX_DIGITS = 1000
_MAX_EXPONENT = 1000
"""Bounds that keep a hostile quantity from costing unbounded memory; real ones are far below."""


class QuantityError(ValueError):
    """A value that Kubernetes would not accept as a quantity."""


class Format(enum.StrEnum):
    """How a quantity prints: the family of its suffix."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_NAMES = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_NAMES = {0: "", **{exp // 10: suffix for suffix, exp in _BINARY_SUFFIXES.items()}}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")


@dataclasses.dataclass(frozen=True, slots=True)
class Quantity:
    """An exact quantity: whole nanounits and the format it prints in."""

    nanos: int
    format: Format = Format.DECIMAL_SI

    def value(self) -> int:
        """Whole units, rounded up away from zero (`Quantity.Value()`)."""
        return _ceil_div(self.nanos, _NANO)

    def milli_value(self) -> int:
        """Whole milliunits, rounded up away from zero (`Quantity.MilliValue()`)."""
        return _ceil_div(self.nanos, _MILLI_IN_NANOS)

    def __str__(self) -> str:
        return canonical(self.nanos, self.format)


def of_units(units: int, fmt: Format) -> Quantity:
    """`resource.NewQuantity(units, fmt)`."""
    return Quantity(units * _NANO, fmt)


def of_milli(milli: int, fmt: Format) -> Quantity:
    """`resource.NewMilliQuantity(milli, fmt)`."""
    return Quantity(milli * _MILLI_IN_NANOS, fmt)


def parse(raw: object) -> Quantity:
    """A quantity as written in a document: a string, or a JSON number taken as its text."""
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise QuantityError(f"quantity must be a string or a number, got {type(raw).__name__}")
    return _parse_text(_text(raw).strip())


def _text(raw: object) -> str:
    """A quantity's text: a string as written, a number as Go's encoding/json prints it, the
    text apimachinery's decoder reads (`1e20` as 100000000000000000000, which takes its decimal
    path, not its int64 one; an integer beyond int64 as the float64 Go holds it)."""
    if isinstance(raw, str):
        return raw
    if isinstance(raw, int) and -(2**63) <= raw < 2**63:
        return str(raw)
    if not isinstance(raw, int | float):
        raise QuantityError(f"quantity must be a string or a number, got {type(raw).__name__}")
    try:
        return gofloat.format_float(float(raw))
    except (OverflowError, ValueError):
        raise QuantityError(f"quantity {raw!r} is out of range") from None


@functools.lru_cache(maxsize=4096)
def _parse_text(text: str) -> Quantity:
    if not text:
        raise QuantityError("quantity is empty")
    negative, digits, fraction, suffix = _split(text)
    scale10, exp2, fmt = _interpret(suffix, text)
    if len(digits) + len(fraction) > _MAX_DIGITS or abs(scale10) > _MAX_EXPONENT:
        raise QuantityError(f"quantity {text!r} is out of range")
    numerator = int(digits + fraction) if digits or fraction else 0
    # exact value = numerator * 10**shift * 2**exp2 nanos; rounded up to whole nanos
    top = numerator * (2**exp2)
    shift = scale10 - len(fraction) + 9
    nanos = top * 10**shift if shift >= 0 else _ceil_div(top, 10**-shift)
    if fmt is Format.BINARY_SI:
        nanos = min(nanos, _BINARY_CAP * _NANO)
        if 0 < nanos < _NANO:
            fmt = Format.DECIMAL_SI
    return Quantity(-nanos if negative else nanos, fmt)


def _split(text: str) -> tuple[bool, str, str, str]:
    """Sign, integer digits, fraction digits and suffix (apimachinery parseQuantityString)."""
    pos, end = 0, len(text)
    negative = text[0] == "-"
    if text[0] in "+-":
        pos += 1
    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    digits = text[start:pos]
    fraction = ""
    if pos < end and text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        fraction = text[start:pos]
    suffix = text[pos:]
    if not _valid_suffix_shape(suffix):
        raise QuantityError(f"quantity {text!r} has an invalid suffix")
    return negative, digits, fraction, suffix


def _valid_suffix_shape(suffix: str) -> bool:
    pos = 0
    while pos < len(suffix) and suffix[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < len(suffix) and suffix[pos] in "+-":
        pos += 1
    return all(c in _DIGITS for c in suffix[pos:])


def _interpret(suffix: str, text: str) -> tuple[int, int, Format]:
    """(power of ten, power of two, format) a suffix stands for (apimachinery suffix.go)."""
    if suffix in _DECIMAL_SUFFIXES:
        return _DECIMAL_SUFFIXES[suffix], 0, Format.DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 0, _BINARY_SUFFIXES[suffix], Format.BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        exponent = suffix[1:]
        body = exponent[1:] if exponent[0] in "+-" else exponent
        if body and all(c in _DIGITS for c in body):
            return int(exponent), 0, Format.DECIMAL_EXPONENT
    raise QuantityError(f"quantity {text!r} has an unknown suffix {suffix!r}")


def canonical(nanos: int, fmt: Format) -> str:
    """The canonical text of a quantity (apimachinery Quantity.CanonicalizeBytes): the amount
    with every factor of ten (of 1024 for BinarySI) moved into the exponent, a decimal one
    lowered to a multiple of three, then the suffix for that exponent. Past the largest suffix
    apimachinery's suffix lookup finds nothing and prints the amount with no suffix at all, so
    DecimalSI `1000E` prints `1` and `12000E` `12`, and a BinarySI sum of 2**70 prints `1`;
    only DecimalExponent spells out any exponent (`1e21`). No value is finer than `n`: parsing
    rounds up to nanounits."""
    if nanos == 0:
        return "0"
    if fmt is Format.BINARY_SI and (abs(nanos) < 1024 * _NANO or nanos % _NANO):
        fmt = Format.DECIMAL_SI
    if fmt is Format.BINARY_SI:
        amount, times = _remove_factors(nanos // _NANO, 1024)
        return f"{amount}{_BINARY_NAMES.get(times, '')}"
    amount, times = _remove_factors(nanos, 10)
    exponent = times - 9
    while exponent % 3:
        amount *= 10
        exponent -= 1
    if fmt is Format.DECIMAL_SI:
        return f"{amount}{_DECIMAL_NAMES.get(exponent, '')}"
    return f"{amount}e{exponent}" if exponent else str(amount)


def _remove_factors(value: int, base: int) -> tuple[int, int]:
    times = 0
    while abs(value) >= base and value % base == 0:
        value //= base
        times += 1
    return value, times


def _ceil_div(value: int, divisor: int) -> int:
    """Division rounding away from zero, as Kubernetes rounds quantities."""
    quotient, remainder = divmod(abs(value), divisor)
    if remainder:
        quotient += 1
    return -quotient if value < 0 else quotient


_PARTS = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?(.*)", re.DOTALL)
_MAX_INT64_DIGITS = 18
"""apimachinery's maxInt64Factors: digits its int64 fast path takes."""
_KEPT_MIN_SCALE = -9


def printed(raw: str) -> str:
    """`raw` (a valid quantity) as Go prints the Quantity it parses to: apimachinery's
    ParseQuantity keeps the text it was given when it is already "canonical enough" and the
    value fits its int64 fast path (a decimal whose scale is a multiple of three, with no
    trailing `000` and no leading zero; a binary-suffixed integer not divisible by 8), and a
    Quantity prints kept text: `2.048` stays `2.048` where the canonical form is `2048m`, and
    `+1Gi` stays `+1Gi`; any other text prints in canonical form."""
    trimmed = raw.strip()
    canonical = str(parse(trimmed))
    return trimmed if trimmed == "0" or _kept(trimmed) else canonical


def _kept(trimmed: str) -> bool:
    fast = _fast_path(trimmed)
    if fast is None:
        return False
    num, denom, exp2, fmt, scale = fast
    if fmt is Format.BINARY_SI:
        return exp2 % 10 == 0 and int(num) & 7 != 0
    shifted = num + denom
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _fast_path(trimmed: str) -> tuple[str, str, int, Format, int] | None:
    """Digits, fraction digits, power of two, format and power of ten of a quantity that
    apimachinery's ParseQuantity keeps as an int64 amount (its fast path), else None (it keeps
    an arbitrary-precision decimal)."""
    found = _PARTS.fullmatch(trimmed)
    if found is None:
        return None
    num, denom, suffix = found.group(2) or "0", found.group(3) or "", found.group(4)
    scale10, exp2, fmt = _interpret(suffix, trimmed)
    if fmt is Format.BINARY_SI:
        if denom or 15 - len(num) - int(exp2 * 3 / 10) - 1 < 0 or int(num) << exp2 > _BINARY_CAP:
            return None
        return num, denom, exp2, fmt, 0
    scale = scale10 - len(denom)
    if _MAX_INT64_DIGITS - len(num) - len(denom) < 0 or scale < _KEPT_MIN_SCALE:
        return None
    return num, denom, 0, fmt, scale


_INT64_SPAN = 2**64


def wrap_int64(value: int) -> int:
    """`value` as Go's int64 arithmetic leaves it: its low 64 bits, two's complement."""
    value %= _INT64_SPAN
    return value - _INT64_SPAN if value > _BINARY_CAP else value


def int64_scaled(raw: object, scale: int) -> int:
    """What Go's `Quantity.ScaledValue(scale)` returns for `raw` (a valid quantity): the value
    in units of 10**scale, rounded up, but in int64, so a value out of range comes back as Go
    computes it rather than exact. A quantity kept as an int64 amount (the fast path) that is
    scaled up by other than 1, 2, 3, 6 or 9 powers of ten reads as 0 once it overflows, and
    as its wrapped product otherwise; one kept as a decimal reads as the low 64 bits of the
    rounded result. Kubernetes' own `Value()` is `scale` 0, `MilliValue()` is `scale` -3."""
    trimmed = _text(raw).strip()
    nanos = parse(trimmed).nanos  # refuses what is no quantity; the decimal, in whole nanos
    fast = _fast_path(trimmed)
    if fast is not None:
        num, denom, exp2, _, amount_scale = fast
        value = int(num + denom) << exp2
        if trimmed.startswith("-"):
            value = -value
        if amount_scale < scale:
            return _ceil_div(value, 10 ** (scale - amount_scale))
        times = amount_scale - scale
        if times in (0, 1, 2, 3, 6, 9):
            return wrap_int64(value * 10**times)
        product = value * 10**times
        return product if product == wrap_int64(product) else 0
    return decimal_scaled(nanos, 10 ** (scale + 9))


def decimal_backed(raw: object) -> bool:
    """Whether apimachinery holds the Quantity parsed from `raw` (a valid quantity) as an
    arbitrary-precision decimal instead of a scaled int64: its int64 fast path refuses a
    binary suffix with a fraction, more than 18 digits, or a value finer than nanounits. Such
    a quantity rounds differently once arithmetic makes it negative (`decimal_scaled`)."""
    text = _text(raw).strip()
    return text != "0" and _fast_path(text) is None


def decimal_scaled(nanos: int, unit_nanos: int) -> int:
    """`ScaledValue` of a decimal-backed quantity of `nanos` nanounits in units of `unit_nanos`
    nanos, as apimachinery computes it: below the largest int64 it reads the nanounits as an
    int64 (keeping the low 64 bits of a larger magnitude, so a deficit beyond about 9.2e9 units
    turns positive), divides truncating toward zero and adds one when inexact, which rounds a
    negative fraction up past its ceiling (-0.5 gives 1); above it, it divides exactly and
    keeps the low 64 bits."""
    if nanos >= _BINARY_CAP:  # in big integers, then the low 64 bits
        quotient, remainder = divmod(nanos, unit_nanos)
        return wrap_int64(wrap_int64(quotient) + (1 if remainder else 0))
    low = wrap_int64(abs(nanos))
    wrapped = -low if nanos < 0 and low != -(2**63) else low
    quotient = abs(wrapped) // unit_nanos
    quotient = -quotient if wrapped < 0 else quotient
    return quotient + 1 if wrapped % unit_nanos else quotient
