"""Kubernetes resource quantities (`500m`, `16Gi`, `1e3`) as exact fractions.

The scheduler needs them to fit pods on nodes, and the command line to split a cluster's
declared capacity over its nodes. Exact arithmetic keeps `sum(nodes) == declared total`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

_SUFFIXES = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 1000),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
    "Ki": Fraction(2**10),
    "Mi": Fraction(2**20),
    "Gi": Fraction(2**30),
    "Ti": Fraction(2**40),
    "Pi": Fraction(2**50),
    "Ei": Fraction(2**60),
}
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
