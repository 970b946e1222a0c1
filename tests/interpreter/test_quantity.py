"""Resource quantities: parsing every suffix family, rounding up to milli and whole units, the
canonical text, and what is refused.

Aspects: decimal, binary and exponent suffixes; JSON numbers taken as their text; sub-nano
values rounded up; canonical text per format (binary only for whole multiples of 1024);
malformed input."""

from __future__ import annotations

import pytest

from gitfleet.interpreter import _quantity


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
            "1024Ei",
            id="beyond the largest suffix",
        ),
    ],
)
def test_canonical_text(quantity: _quantity.Quantity, text: str) -> None:
    assert str(quantity) == text


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
