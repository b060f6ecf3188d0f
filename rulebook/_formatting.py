"""Number formatting for printed rules: short, but never misleading.

Statistics and weights print rounded (:func:`format_number`,
:func:`format_weight`); the numbers of conditions print exactly
(:func:`format_exact`), and rulebook chooses its thresholds short in the
first place (:func:`shortest_between`, used by :mod:`rulebook.binning`).
"""

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


def format_exact(value):
    """``value`` exactly, as the shortest decimal that reads back to it, no exponent.

    For thresholds and numeric categories, which are conditions: parsing
    the text gives the very number the model compares with (Python's
    shortest round-trip ``repr``, written out in positional notation).
    Integers print every digit; floats that hold integers without ``.0``.

    >>> format_exact(0.0381), format_exact(19.0), format_exact(1e-7), format_exact(2.5e16)
    ('0.0381', '19', '0.0000001', '25000000000000000')
    >>> float(format_exact(0.1 + 0.2)) == 0.1 + 0.2
    True
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return repr(value) if not math.isfinite(value) else "0"
    digits, exponent = _repr_digits(abs(value))
    sign = "-" if value < 0 else ""
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    if exponent + 1 >= len(digits):
        return f"{sign}{digits}{'0' * (exponent + 1 - len(digits))}"
    return f"{sign}{digits[:exponent + 1]}.{digits[exponent + 1:]}"


def shortest_between(lower, upper):
    """The shortest decimal number ``t`` with ``lower <= t < upper``, as a float.

    *Shortest*: the fewest characters as :func:`format_exact` prints it
    (no exponent); among those, the nearest zero (above zero: the nearest
    ``lower``, the value a bin ends at, so ``[19, 25)`` gives 19 and
    ``[125000, 150000)`` gives 125000). ``t`` is a float64, compared with
    the bounds exactly, and ``format_exact(t)`` reads back to it.

    Parameters
    ----------
    lower, upper : float
        ``lower < upper``; either may be infinite.

    Returns
    -------
    float

    Notes
    -----
    ``t = 0`` when ``lower <= 0 < upper``. For ``0 < lower``, let ``c(e)``
    be the smallest multiple of ``10**e`` that reads as a float ``>=
    lower`` (a decimal is *read* as the float nearest it, so ``0.1`` reads
    as a float a little above 0.1). Every decimal ``x`` in the gap whose
    last nonzero digit is at ``10**e`` is matched by ``c(e) <= x``, which
    is as short and nearer zero; so ``t`` is one of the ``c(e)``. If
    ``c(0)``, the first integer, is in the gap, it is ``t``: the ``c(e)``
    of ``e > 0`` are as long or longer and larger, every fraction is
    longer. Otherwise the gap holds no integer and ``t`` is ``c(e)`` for
    the largest ``e < 0`` whose ``c(e)`` is in the gap: the fewest
    decimals.

    ``c(e)`` comes from ``repr(lower)``, the fewest digits that read as
    ``lower``: its digits above ``10**e`` plus one unit at ``10**e`` (no
    decimal with fewer digits than ``repr(lower)`` reads as ``lower``), or
    ``lower`` itself once ``10**e`` reaches ``repr``'s last digit. A gap
    below zero is the mirror image: ``lower <= t < upper`` if and only if
    ``next(-upper) <= -t < next(-lower)``, ``next`` the following float.

    Examples
    --------
    >>> shortest_between(19.0, 20.0), shortest_between(0.038075906, 0.0381234)
    (19.0, 0.0381)
    >>> shortest_between(19.0, 25.0), shortest_between(0.95, 1.05), shortest_between(-1.0, 0.0)
    (19.0, 1.0, -1.0)
    """
    lower, upper = float(lower), float(upper)
    if not lower < upper:
        raise ValueError(f"need lower < upper; got {lower!r}, {upper!r}.")
    if lower <= 0.0 < upper:
        return 0.0
    if upper <= 0.0:
        return -_shortest_above(math.nextafter(-upper, math.inf),
                                math.nextafter(-lower, math.inf))
    return _shortest_above(lower, upper)


def _shortest_above(lower, upper):
    """:func:`shortest_between` for ``0 < lower < upper``."""
    if lower == math.inf:  # the mirror of [-inf, -max float): no finite number
        return lower
    digits, exponent = _repr_digits(lower)

    def first_multiple(e):
        """``c(e)``, see shortest_between."""
        keep = exponent - e + 1  # digits of repr(lower) at or above 10**e
        if keep >= len(digits):  # 10**e at or below repr's last digit
            return lower
        return float(f"{int(digits[:keep]) + 1 if keep > 0 else 1}e{e}")

    e = 0
    while True:
        value = first_multiple(e)
        if value < upper:
            return value
        e -= 1


def _repr_digits(value):
    """``(digits, exponent)`` of ``repr(value)`` (positive, finite): ``value``
    reads as ``d1.d2d3... * 10**exponent``, no leading or trailing zero digit."""
    mantissa, _, power = repr(value).partition("e")
    whole, _, fraction = mantissa.partition(".")
    text = whole + fraction
    significant = text.lstrip("0")
    exponent = len(whole) - 1 - (len(text) - len(significant)) + (int(power) if power else 0)
    return significant.rstrip("0"), exponent


# Powers of ten that are floats exactly: m * 10**e for |e| <= 22 and
# m < 2**53 is one correctly rounded multiplication or division.
_EXACT_POWERS = 10.0 ** np.arange(23)
_EXACT_INTEGERS = 2.0**53


def shortest_between_arrays(lower, upper):
    """:func:`shortest_between` of each pair, vectorized.

    Parameters
    ----------
    lower, upper : ndarray of shape (n,), float64
        ``lower < upper`` elementwise.

    Returns
    -------
    ndarray of shape (n,), float64

    Notes
    -----
    The same numbers as :func:`shortest_between`, one power of ten at a
    time for all gaps: ``c(e) = m * 10**e`` is one correctly rounded
    multiplication or division when ``|e| <= 22`` and ``m < 2**53``, and
    ``m`` is the smallest integer whose ``c(e)`` reads as ``>= lower``
    (found among the four integers around ``lower / 10**e``, which
    rounding moves by less than one). Gaps outside those bounds (below
    zero the mirror image) go through :func:`shortest_between`.
    """
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    out = np.zeros(len(lower))
    negative = upper <= 0.0
    positive = lower > 0.0
    with np.errstate(over="ignore"):  # next(max float) is inf: see shortest_between
        low = np.where(negative, np.nextafter(-upper, np.inf), lower)
        high = np.where(negative, np.nextafter(-lower, np.inf), upper)
    todo = np.flatnonzero((negative | positive) & (low < _EXACT_INTEGERS))
    found = _shortest_above_arrays(low[todo], high[todo])
    out[todo] = np.where(negative[todo], -found, found)
    rest = np.flatnonzero((negative | positive) & ~(low < _EXACT_INTEGERS))
    for k in np.r_[todo[np.isnan(found)], rest].astype(np.intp):
        out[k] = shortest_between(lower[k], upper[k])
    return out


def _shortest_above_arrays(lower, upper):
    """:func:`_shortest_above` for ``0 < lower < 2**53``; NaN where it needs
    powers of ten beyond ``10**-22`` (the scalar path)."""
    result = np.full(len(lower), np.nan)
    open_ = np.arange(len(lower))
    for e in range(0, -23, -1):
        # m < 2**53 (with room) for every m * 10**e near lower: else the scalar path
        open_ = open_[lower[open_] * _EXACT_POWERS[-e] < _EXACT_INTEGERS / 2]
        if not len(open_):
            break
        value = _first_multiple(lower[open_], e)
        done = value < upper[open_]
        result[open_[done]] = value[done]
        open_ = open_[~done]
    return result


def _first_multiple(lower, e):
    """``c(e)`` of :func:`shortest_between` for each of ``lower``: the
    smallest ``m * 10**e`` that reads as ``>= lower`` (``m`` and the
    result exact, see :func:`shortest_between_arrays`)."""
    near = np.floor(lower / _EXACT_POWERS[e] if e >= 0 else lower * _EXACT_POWERS[-e])
    m = near[:, None] + np.arange(-1.0, 3.0)  # the exact floor is within one of near
    values = m * _EXACT_POWERS[e] if e >= 0 else m / _EXACT_POWERS[-e]
    return values[np.arange(len(lower)), np.argmax(values >= lower[:, None], axis=1)]
