"""Number formatting for printed rules (``rulebook._formatting``)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook._formatting import format_number, format_weight


@pytest.mark.parametrize(
    "value, expected",
    [
        # Integer digits are never rounded away, with or without a ".0".
        (125000, "125000"),
        (125000.0, "125000"),
        (1991.0, "1991"),
        (1991, "1991"),
        (19.0, "19"),
        (123456.789, "123457"),
        (123456789.7, "123456790"),
        # Fractions keep about five significant digits, trailing zeros dropped.
        (7.25, "7.25"),
        (2.5, "2.5"),
        (0.038075906, "0.038076"),
        (3.14159265, "3.1416"),
        (0.1, "0.1"),
        (0.99999999, "1"),
        (1.5e-5, "0.000015"),
        # No exponent at the ends of [1e-6, 1e15].
        (1e-6, "0.000001"),
        (1e15, "1000000000000000"),
        # Negative numbers and zero.
        (-3.14159265, "-3.1416"),
        (-125000.0, "-125000"),
        (-0.5, "-0.5"),
        (0, "0"),
        (0.0, "0"),
        (-0.0, "0"),
    ],
)
def test_format_number_examples(value, expected):
    assert format_number(value) == expected


@pytest.mark.parametrize(
    "value, expected",
    [(2.5, "+2.5"), (-2.5, "-2.5"), (0.0, "+0"), (-0.0, "+0"), (16192.0, "+16192"),
     (-0.038075906, "-0.038076"), (1e-6, "+0.000001")],
)
def test_format_weight_always_has_a_sign(value, expected):
    assert format_weight(value) == expected


def test_non_numbers_are_printed_as_str():
    # Categories of nominal propositions go through format_number unchanged.
    assert format_number("male") == "male"
    assert format_number(True) == "True"
    assert format_number(None) == "None"


def test_non_finite_values_do_not_raise():
    assert format_number(float("inf")) == "inf"
    assert format_number(float("-inf")) == "-inf"
    assert format_number(float("nan")) == "nan"


def test_numpy_scalars_formatted_like_python_numbers():
    # A threshold built from a NumPy scalar must print like the same Python
    # number: about five significant digits and no exponent.
    assert format_number(np.float64(0.038075906)) == "0.038076"
    assert format_number(np.int64(125000)) == "125000"
    assert format_number(np.float32(1e-6)) == format_number(float(np.float32(1e-6)))
    assert format_number(np.float32(3.14159265)) == "3.1416"


def _no_exponent(text):
    return "e" not in text.lower()


@settings(max_examples=300, deadline=None)
@given(st.floats(1e-6, 1e15), st.booleans())
def test_no_exponent_notation_in_range(magnitude, negative):
    value = -magnitude if negative else magnitude
    text = format_number(value)
    assert _no_exponent(text), text
    assert format_weight(value)[0] in "+-"


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_format_number_round_trips_to_five_significant_digits(value):
    text = format_number(value)
    parsed = float(text)
    if abs(value) >= 1e-300:
        assert math.isclose(parsed, value, rel_tol=1e-4), (value, text)
    # Tiny magnitudes: only require that formatting works and parses back.
    assert math.isfinite(parsed)


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**15), 10**15))
def test_integers_keep_every_digit(k):
    assert format_number(k) == str(k)
    assert format_number(float(k)) == str(k)  # exact: |k| < 2**53
