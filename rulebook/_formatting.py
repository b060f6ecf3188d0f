"""Number formatting for printed rules: short, but never misleading."""

import math
import numbers

import numpy as np


def format_number(value, digits=5):
    """``value`` with about ``digits`` significant digits, no exponent.

    Integer parts are never rounded away (``125000`` stays ``125000``, not
    ``1.25e+05``), and integers print every digit; fractions keep
    ``digits`` significant digits.

    >>> format_number(7.25), format_number(125000.0), format_number(0.038075906)
    ('7.25', '125000', '0.038076')
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        # Every digit: through a float, 2**53 + 1 would print as 2**53, a
        # different integer (an integer category names one value exactly).
        return str(int(value))
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return repr(value) if not math.isfinite(value) else "0"
    integer_digits = int(math.floor(math.log10(abs(value)))) + 1
    decimals = max(0, digits - integer_digits)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def format_weight(value, digits=5):
    """A rule weight with an explicit sign, as in the papers: ``+16192``."""
    text = format_number(value, digits)
    return text if text.startswith("-") else "+" + text
