"""Kubernetes resource quantities (`500m`, `16Gi`, `1e3`) as exact fractions.

The scheduler needs them to fit pods on nodes, and the command line to split a cluster's
declared capacity over its nodes. Exact arithmetic keeps `sum(nodes) == declared total`.

`stored(raw)` is the text a real API server keeps for a quantity it decodes (apimachinery's
ParseQuantity, RoundUp and CanonicalizeBytes), so objects read back as they would from a
real cluster: `0.5` as `500m`, `1000m` as `1`, `1.5Gi` as `1536Mi`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from fractions import Fraction

_DECIMAL_NAMES = {
    -9: "n",
    -6: "u",
    -3: "m",
    0: "",
    3: "k",
    6: "M",
    9: "G",
    12: "T",
    15: "P",
    18: "E",
}
_BINARY_NAMES = {0: "", 1: "Ki", 2: "Mi", 3: "Gi", 4: "Ti", 5: "Pi", 6: "Ei"}
_SUFFIXES = {
    **{name: Fraction(10) ** scale for scale, name in _DECIMAL_NAMES.items()},
    **{name: Fraction(2) ** (10 * power) for power, name in _BINARY_NAMES.items() if name},
}
"""The value each suffix multiplies by."""
_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|([a-zA-Z]*))$"
)


def parse(text: str | int | float) -> Fraction:
    """The value of a quantity; ValueError for text that is not one."""
    if isinstance(text, int | float):
        return Fraction(text)
    match = _QUANTITY.match(text.strip())
    if match is None or (match.group(3) or "") not in _SUFFIXES:
        raise ValueError(f"quantities must match the regular expression: {text!r}")
    number, exponent, suffix = match.groups()
    value = Fraction(number)
    if exponent:
        return value * Fraction(10) ** int(exponent[1:])
    return value * _SUFFIXES[suffix or ""]


FORMAT_ERROR = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_ERROR = "unable to parse quantity's suffix"
_GO_PARTS = re.compile(r"([+-]?)0*([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
"""A quantity as apimachinery's parseQuantityString splits it: sign, digits without leading
zeros, fraction digits, suffix."""
_EXPONENT_DIGITS = re.compile(r"[+-]?0*[0-9]{1,19}")
_MAX_INT64 = 2**63 - 1
_MAX_EXPONENT = 1000
"""A quantity that would need more digits than this to print canonically is refused rather
than computed (`1.5e999999999`); real ones are far below."""
_DECIMAL, _BINARY, _EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"


@dataclasses.dataclass(frozen=True, slots=True)
class Parsed:
    """What apimachinery's ParseQuantity makes of a text."""

    text: str
    negative: bool
    digits: str
    """The digits written, without the decimal point."""
    scale: int
    """The power of ten they are in (the suffix's, less the fraction's digits)."""
    binary: int
    """The power of two of a binary suffix."""
    format: str
    amount: tuple[int, int] | None
    """(int64 amount, power of ten) where the int64 fast path takes it, else None."""
    kept: bool
    """Whether the Quantity keeps `text` as it prints."""

    def magnitude(self) -> Fraction:
        """The exact value written, without its sign; ValueError (apimachinery's format
        message) for one whose digits or exponent exceed `_MAX_EXPONENT`."""
        if len(self.digits) > _MAX_EXPONENT or abs(self.scale) > _MAX_EXPONENT:
            raise ValueError(FORMAT_ERROR)
        whole = Fraction(int(self.digits or "0") * 2**self.binary)
        power = Fraction(10 ** abs(self.scale))
        return whole * power if self.scale >= 0 else whole / power


def parse_go(raw: str | int | float) -> Parsed:
    """`raw` as ParseQuantity reads it (a JSON number taken as the text a JSON encoder writes
    for it); ValueError, with apimachinery's message, for one it cannot parse."""
    text = raw.strip() if isinstance(raw, str) else repr(raw)
    found = _GO_PARTS.fullmatch(text)
    if not text or found is None:
        raise ValueError(FORMAT_ERROR)
    sign, digits, fraction, suffix = found.groups(default="")
    scale, binary, fmt = _suffix(suffix)
    amount, kept = _fast(digits or "0", fraction, scale, binary)
    if amount is not None and sign == "-":
        amount = (-amount[0], amount[1])
    return Parsed(
        text=text,
        negative=sign == "-",
        digits=digits + fraction,
        scale=scale - len(fraction),
        binary=binary,
        format=fmt,
        amount=amount,
        kept=kept or text == "0",
    )


def stored(raw: str | int | float, *, milli: bool = False) -> str:
    """The text a real API server stores for the quantity sent as `raw` (a JSON number is
    taken as the text a JSON encoder writes for it); ValueError, with apimachinery's message,
    for one it cannot parse. `milli` is for the values of a core API ResourceList (containers'
    requests and limits, a quota's `hard`, a claim's resources, ...), which the server's
    defaulting rounds up to thousandths (`100u` is `1m`); other quantities (an emptyDir's
    `sizeLimit`, a RuntimeClass's overhead) keep nano precision.

    Text already "canonical enough" for ParseQuantity's int64 fast path is kept as written
    (`2.048`, `1e3`, `+1Gi`, `010m`); anything else prints canonically, in the family of its
    suffix (decimal SI, binary SI, or a decimal exponent)."""
    found = parse_go(raw)
    if found.kept and (not milli or found.amount is None or found.amount[1] >= -3):
        return found.text
    nanos = _round_up(found.magnitude() * 10**9, 1)
    fmt = found.format
    if fmt == _BINARY:
        nanos = min(nanos, _MAX_INT64 * 10**9)
        fmt = _DECIMAL if nanos < 10**9 else fmt
    if milli:
        nanos = _round_up(Fraction(nanos), 10**6) * 10**6
    return _canonical(-nanos if found.negative else nanos, fmt)


def _suffix(suffix: str) -> tuple[int, int, str]:
    """(power of ten, power of two, format) of a suffix (apimachinery suffix.go)."""
    for scale, name in _DECIMAL_NAMES.items():
        if suffix == name:
            return scale, 0, _DECIMAL
    for power, name in _BINARY_NAMES.items():
        if name and suffix == name:
            return 0, 10 * power, _BINARY
    if suffix[:1] in ("e", "E") and _EXPONENT_DIGITS.fullmatch(suffix[1:]):
        exponent = int(suffix[1:].lstrip("+-").lstrip("0") or "0")
        if exponent <= _MAX_INT64:  # Go's ParseInt refuses a larger one
            return -exponent if suffix[1] == "-" else exponent, 0, _EXPONENT
    raise ValueError(SUFFIX_ERROR)


def _fast(
    digits: str, fraction: str, scale: int, binary: int
) -> tuple[tuple[int, int] | None, bool]:
    """The (int64 amount, power of ten) ParseQuantity's int64 fast path keeps, None where it
    takes the slow path; and whether it keeps the text as written."""
    shifted = digits + fraction
    if binary:
        if fraction or 15 - len(digits) - int(binary * 3 / 10) - 1 < 0:
            return None, False
        if int(shifted) << binary > _MAX_INT64:
            return None, False
        return (int(shifted) << binary, 0), binary % 10 == 0 and bool(int(shifted) & 7)
    scale -= len(fraction)
    if len(shifted) > 18 or scale < -9:
        return None, False
    canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
    return (int(shifted), scale), canonical


def _round_up(value: Fraction, step: int) -> int:
    """`value` in whole `step`s, rounded away from zero as Kubernetes rounds quantities."""
    whole = -(-abs(value) // step)
    return int(whole if value >= 0 else -whole)


def _canonical(nanos: int, fmt: str) -> str:
    """apimachinery's CanonicalizeBytes: the largest suffix that keeps the amount whole. A
    decimal exponent beyond `E` has no SI suffix and Go prints it with none at all."""
    if nanos == 0:
        return "0"
    if fmt == _BINARY and (abs(nanos) < 1024 * 10**9 or nanos % 10**9):
        fmt = _DECIMAL
    if fmt == _BINARY:
        amount, power = nanos // 10**9, 0
        while amount % 1024 == 0 and power < 6:
            amount, power = amount // 1024, power + 1
        return f"{amount}{_BINARY_NAMES[power]}"
    amount, exponent = nanos, -9
    while amount % 10 == 0:
        amount, exponent = amount // 10, exponent + 1
    while exponent % 3:
        amount, exponent = amount * 10, exponent - 1
    if fmt == _DECIMAL:
        return f"{amount}{_DECIMAL_NAMES.get(exponent, '')}"
    return f"{amount}e{exponent}" if exponent else str(amount)


def unit(resource: str) -> Fraction:
    """The smallest amount of `resource` worth counting: a millicore for CPU, else one."""
    return Fraction(1, 1000) if resource == "cpu" else Fraction(1)


def format_amount(resource: str, value: Fraction) -> str:
    """A canonical text for `value` (a whole number of the resource's unit)."""
    if resource == "cpu" and value.denominator != 1:
        return f"{int(value * 1000)}m"
    return str(int(value))


def split(total: Mapping[str, str], parts: int) -> list[dict[str, str]]:
    """Divide a capacity over `parts` nodes in whole units, the remainder going to the first
    nodes, so the nodes add up to exactly `total`."""
    shares: list[dict[str, str]] = [{} for _ in range(parts)]
    for resource, text in sorted(total.items()):
        step = unit(resource)
        units = int(parse(text) / step)
        base, extra = divmod(units, parts)
        for index, share in enumerate(shares):
            share[resource] = format_amount(resource, (base + (index < extra)) * step)
    return shares
