"""Resource quantities: parsing every suffix family, rounding up to milli and whole units, the
canonical text, and what is refused.

Aspects: decimal, binary and exponent suffixes; JSON numbers taken as their text; sub-nano
values rounded up; canonical text per format (binary only for whole multiples of 1024);
values past the largest suffix and below `n`, as Go prints them; a float64 (a Lua number) as
the Quantity Go decodes from its JSON text prints, which keeps that text when apimachinery
finds it canonical enough (`2.048`, not `2048m`); printing keeps the value and is a fixed
point; malformed input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitfleet.interpreter import _quantity
from gitfleet.model import gofloat


@pytest.mark.parametrize(
    ("raw", "milli", "units", "text"),
    [
        pytest.param("250m", 250, 1, "250m", id="millicores round up to one unit"),
        pytest.param("3", 3000, 3, "3", id="plain integer"),
        pytest.param("0.75", 750, 1, "750m", id="decimal fraction"),
        pytest.param("2Gi", 2 * 1024**3 * 1000, 2 * 1024**3, "2Gi", id="binary suffix"),
        pytest.param("1.5Mi", 1572864000, 1572864, "1536Ki", id="fractional binary"),
        pytest.param("2e3", 2000000, 2000, "2e3", id="exponent keeps its format"),
        pytest.param("5e2", 500000, 500, "500", id="exponent moved to a multiple of three"),
        pytest.param("3k", 3000000, 3000, "3k", id="kilo"),
        pytest.param("7n", 1, 1, "7n", id="nano rounds up to one milli"),
        pytest.param("0.0000000001", 1, 1, "1n", id="below nano rounds up to one nano"),
        pytest.param(4, 4000, 4, "4", id="JSON integer"),
        pytest.param(0.25, 250, 1, "250m", id="JSON float"),
        pytest.param("+12", 12000, 12, "12", id="explicit plus sign"),
        pytest.param("-1500m", -1500, -2, "-1500m", id="negative rounds away from zero"),
        pytest.param("0", 0, 0, "0", id="zero"),
    ],
)
def test_parse(raw: object, milli: int, units: int, text: str) -> None:
    quantity = _quantity.parse(raw)
    assert (quantity.milli_value(), quantity.value(), str(quantity)) == (milli, units, text)


@pytest.mark.parametrize(
    ("quantity", "text"),
    [
        pytest.param(
            _quantity.of_milli(2500, _quantity.Format.DECIMAL_SI), "2500m", id="milli cpu"
        ),
        pytest.param(_quantity.of_milli(3000, _quantity.Format.DECIMAL_SI), "3", id="whole cpu"),
        pytest.param(
            _quantity.of_units(3 * 1024**2, _quantity.Format.BINARY_SI), "3Mi", id="mebibytes"
        ),
        pytest.param(
            _quantity.of_units(10**9, _quantity.Format.BINARY_SI),
            "1000000000",
            id="bytes not a power of 1024",
        ),
        pytest.param(
            _quantity.of_units(512, _quantity.Format.BINARY_SI),
            "512",
            id="below 1024 prints decimal",
        ),
        pytest.param(
            _quantity.of_units(2 * 10**6, _quantity.Format.DECIMAL_SI), "2M", id="decimal mega"
        ),
        pytest.param(
            _quantity.of_units(1024**7, _quantity.Format.BINARY_SI),
            "1",
            id="beyond the largest suffix the suffix is dropped",
        ),
    ],
)
def test_canonical_text(quantity: _quantity.Quantity, text: str) -> None:
    assert str(quantity) == text


# What Go prints for each text: `ParseQuantity(text).String()` (the text itself where
# apimachinery keeps it), then the canonical form (`CanonicalizeBytes`). Taken from running
# apimachinery's resource package as vendored in Karmada f8fdd02d.
GO_PRINTS = [
    pytest.param("12E", "12E", "12E", id="E kept"),
    pytest.param("999E", "999E", "999E", id="largest whole E"),
    pytest.param("1000E", "1", "1", id="1e21 DecimalSI has no suffix"),
    pytest.param("12000E", "12", "12", id="1.2e22 DecimalSI prints its amount only"),
    pytest.param("-1000E", "-1", "-1", id="negative past E"),
    pytest.param("1000000P", "1", "1", id="past E from P"),
    pytest.param("1000000000000000000000", "1", "1", id="22 digits past E"),
    pytest.param("10000000000000000000", "10E", "10E", id="20 digits"),
    pytest.param("100000000000000000000", "100E", "100E", id="1e20 as Go's JSON writes it"),
    pytest.param(
        "123456789012345678901234",
        "123456789012345678901234",
        "123456789012345678901234",
        id="no factor of ten past E",
    ),
    pytest.param("1000000000000000000000000000000n", "1", "1", id="nanos past E"),
    pytest.param("1e19", "10e18", "10e18", id="exponent lowered to a multiple of three"),
    pytest.param("1e21", "1e21", "1e21", id="exponent past E kept"),
    pytest.param("1e30", "1e30", "1e30", id="exponent 30"),
    pytest.param("1e+21", "1e+21", "1e21", id="1e21 as Go's JSON writes it"),
    pytest.param("1e+22", "10e21", "10e21", id="exponent with a plus sign"),
    pytest.param("1.5e21", "1500e18", "1500e18", id="fraction with an exponent past E"),
    pytest.param("10e20", "1e21", "1e21", id="trailing zero moved into the exponent"),
    pytest.param("-1e21", "-1e21", "-1e21", id="negative exponent form"),
    pytest.param("1e-9", "1e-9", "1e-9", id="exponent at nano"),
    pytest.param("1e-10", "1e-9", "1e-9", id="exponent below nano rounds up"),
    pytest.param("1e-12", "1e-9", "1e-9", id="pico rounds up"),
    pytest.param("1.5e-7", "150e-9", "150e-9", id="small exponent"),
    pytest.param("0.1n", "1n", "1n", id="below n rounds up to 1n"),
    pytest.param("0.000000000000000000001E", "1m", "1m", id="a fraction of E"),
    pytest.param("1000P", "1E", "1E", id="P up to E"),
    pytest.param("7Ei", "7Ei", "7Ei", id="binary kept"),
    pytest.param("8Ei", "9223372036854775807", "9223372036854775807", id="binary capped"),
    pytest.param("1024Ei", "9223372036854775807", "9223372036854775807", id="binary past Ei"),
    pytest.param("1.5Ei", "1536Pi", "1536Pi", id="binary fraction"),
]


@pytest.mark.parametrize(("text", "printed", "canonical"), GO_PRINTS)
def test_prints_as_go(text: str, printed: str, canonical: str) -> None:
    assert (_quantity.printed(text), str(_quantity.parse(text))) == (printed, canonical)


# A float64 as Karmada's Lua runtime hands a script's number to a Quantity (luavm
# ConvertLuaResultInto): encoding/json writes it, UnmarshalJSON parses that text, String()
# prints the result. Taken from running that path in apimachinery as vendored in Karmada
# f8fdd02d (and Karmada's luavm GetReplicas itself for the first ten).
GO_FLOATS = [
    pytest.param(2.048, "2.048", id="2048m from getResourceQuantity: the text is kept"),
    pytest.param(1.001, "1.001", id="thousandths kept"),
    pytest.param(-2.048, "-2.048", id="negative kept"),
    pytest.param(1.5, "1500m", id="tenths are not a multiple of three: canonical"),
    pytest.param(0.5, "500m", id="half"),
    pytest.param(2.25, "2250m", id="hundredths"),
    pytest.param(1e-7, "100e-9", id="Go's JSON writes 1e-7: DecimalExponent"),
    pytest.param(1.5e-10, "1e-9", id="below nano rounds up, in its format"),
    pytest.param(0.0000015, "1500n", id="millionths written out"),
    pytest.param(0.00015, "150u", id="micro"),
    pytest.param(123456789012345680000.0, "123456789012345680k", id="beyond int64 digits"),
    pytest.param(1e21, "1e+21", id="Go's JSON writes 1e+21: kept"),
    pytest.param(1e22, "10e21", id="1e+22 canonical"),
    pytest.param(0.0, "0", id="zero"),
    pytest.param(-0.0, "0", id="negative zero"),
]


@pytest.mark.parametrize(("value", "printed"), GO_FLOATS)
def test_float_prints_as_go(value: float, printed: str) -> None:
    assert _quantity.printed(gofloat.format_float(value)) == printed


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_printing_keeps_the_value_and_is_a_fixed_point(value: float) -> None:
    """Go's `ParseQuantity(q.String())` is `q` again, printing the same (checked against
    apimachinery for random float64s)."""
    text = gofloat.format_float(value)
    printed = _quantity.printed(text)
    assert _quantity.parse(printed) == _quantity.parse(text)
    assert _quantity.printed(printed) == printed
    nanos = _quantity.parse(text).nanos
    assert (nanos > 0, nanos < 0) == (value > 0, value < 0)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param("", id="empty"),
        pytest.param("12 cores", id="words"),
        pytest.param("1Qi", id="unknown suffix"),
        pytest.param("1e", id="exponent without digits"),
        pytest.param("1Ki2", id="digits after a binary suffix"),
        pytest.param(True, id="boolean"),
        pytest.param(["1"], id="list"),
        pytest.param("1e99999", id="absurd exponent"),
    ],
)
def test_rejects(raw: object) -> None:
    with pytest.raises(_quantity.QuantityError):
        _quantity.parse(raw)
