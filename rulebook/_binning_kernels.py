"""Compiled binning of numeric columns: the fit's one pass over every value.

``numpy.searchsorted`` of a column's values in its thresholds did the same
work: 0.06-0.08 s per column of 10^6 rows on the 2-core test machine, most
of the binning of a wide table (``benchmarks/bench_scale.py --profile``).
One binary search is a chain of dependent loads; here a lookup grid over
the thresholds' range finds a value's few candidate thresholds in one step
(:func:`_bin_values`), and blocks of rows run on both cores. Columns
shorter than ``COMPILED_MIN_ROWS`` keep numpy's search.
"""

import numpy as np
from numba import prange

from ._config import jit, jit_helper, jit_parallel

# Rows from which a column is binned by these kernels: below, numpy's
# searchsorted costs at most a few hundredths of a second a column, less
# than compiling a kernel at a user's first fit (most first fits are on
# small tables; ``benchmarks/bench_greedy.py --compile-time-only``).
COMPILED_MIN_ROWS = 100_000
# Rows from which a column is binned by both cores (smaller ones serially:
# thread start-up would cost more than it saves).
PARALLEL_MIN_ROWS = 200_000


# Values per thread chunk (see _bin_values).
CHUNK = 2048
# Cells of the lookup grid per threshold (see _bin_values).
CELLS_PER_THRESHOLD = 4
# A cell holding more thresholds than this is searched by bisection.
SCAN_MAX = 8


def _cell(v, lo, scale, n_cells):
    # The grid cell of v, clamped to the grid: monotone in v.
    return min(max(np.int64((v - lo) * scale), 0), n_cells - 1)


def _bin_values(values, thresholds, out):
    # IN: values (n,) float64, no infinities; thresholds (t,) float64,
    #     ascending.
    # OUT: out (n,) uint16: the number of thresholds below each value
    #      (numpy.searchsorted(thresholds, values, side="left")), and
    #      t + 1, the missing bin, for NaN.
    # A grid of 4 t equal cells over [thresholds[0], thresholds[-1]] and,
    # per cell, the thresholds in cells before it (start). The cell of a
    # value is a monotone function of it (_cell), so the thresholds below
    # it are those of earlier cells plus those of its own cell below it:
    # exact, whatever the rounding of the cell. Quantile cuts put about one
    # threshold in a cell, so a value costs a multiply and a compare or two
    # instead of a binary search's log2(t) dependent loads (10x faster than
    # the branch-free search this replaced at 10^6 rows and 254 cuts).
    n, n_t = values.shape[0], thresholds.shape[0]
    lo = thresholds[0] if n_t > 0 else 0.0
    hi = thresholds[n_t - 1] if n_t > 0 else 0.0
    n_cells = max(CELLS_PER_THRESHOLD * n_t, 1)
    scale = n_cells / (hi - lo) if hi > lo else 0.0
    start = np.zeros(n_cells + 1, np.int64)
    for k in range(n_t):
        start[_cell(thresholds[k], lo, scale, n_cells) + 1] += 1
    for c in range(n_cells):
        start[c + 1] += start[c]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        for i in range(chunk * CHUNK, min(chunk * CHUNK + CHUNK, n)):
            v = values[i]
            if np.isnan(v):
                out[i] = n_t + 1
            elif n_t == 0 or v <= lo:
                out[i] = 0
            elif v > hi:
                out[i] = n_t
            else:
                c = _cell(v, lo, scale, n_cells)
                a, b = start[c], start[c + 1]
                if b - a <= SCAN_MAX:
                    k = a
                    for j in range(a, b):
                        k += np.int64(thresholds[j] < v)
                else:  # lower bound in thresholds[a:b]
                    while a < b:
                        mid = (a + b) // 2
                        if thresholds[mid] < v:
                            a = mid + 1
                        else:
                            b = mid
                    k = a
                out[i] = k


def _present_values(values, active, out):
    # IN: values (n,) float64; active (n,) bool.
    # OUT: out[:m] the values of active rows that are not NaN, in row order.
    # Returns m. One pass for numpy's ``values[active & ~isnan(values)]``
    # (three passes and two temporary arrays), without holding the GIL.
    m = 0
    for i in range(values.shape[0]):
        v = values[i]
        if active[i] and not np.isnan(v):
            out[m] = v
            m += 1
    return m


def _quantile_cuts(ordered, targets, cuts, following):
    # IN: ordered (m,) float64, ascending, no NaN: a column's present values
    #     (each of the same weight); targets (q,) float64 ascending in
    #     (0, 1): the shares of the rows below each wanted cut
    #     (arange(1, max_bins) / max_bins), or q = 0 for a cut after every
    #     distinct value.
    # OUT: cuts[:k], following[:k]: the distinct values cut after and each
    #      one's next larger value. Returns k.
    # numpy's form (tests/test_binning.py, _reference_quantile_cuts): the
    # distinct values' cumulative shares cumsum(counts) / m, the first
    # distinct value whose share reaches each target (searchsorted, left),
    # each distinct value once, never the largest. The shares here are the
    # same float64 divisions of exact integers, so the cuts are the same.
    m = ordered.shape[0]
    k = 0
    last = -1  # the distinct value last cut after (cuts are unique)
    j = 0
    i_distinct = 0
    start = 0
    total = np.float64(m)
    while start < m:
        stop = start + 1
        while stop < m and ordered[stop] == ordered[start]:
            stop += 1
        if stop < m:  # never after the largest value: x > max would be empty
            if targets.shape[0] == 0:
                cuts[k] = ordered[start]
                following[k] = ordered[stop]
                k += 1
            else:
                share = np.float64(stop) / total
                while j < targets.shape[0] and share >= targets[j]:
                    if i_distinct != last:
                        cuts[k] = ordered[start]
                        following[k] = ordered[stop]
                        k += 1
                        last = i_distinct
                    j += 1
        start = stop
        i_distinct += 1
    return k


def _count_distinct(ordered):
    # IN: ordered (m,) float64, ascending. Returns the number of distinct values.
    if ordered.shape[0] == 0:
        return 0
    n = 1
    for i in range(1, ordered.shape[0]):
        n += ordered[i] != ordered[i - 1]
    return n


present_values = jit(_present_values)
quantile_cuts = jit(_quantile_cuts)
count_distinct = jit(_count_distinct)


_cell = jit_helper(_cell)
bin_values_serial = jit(_bin_values)
bin_values_parallel = jit_parallel(_bin_values)


def bin_values(values, thresholds):
    """Bin codes of ``values``: ``searchsorted(thresholds, values)``, NaN last.

    Parameters
    ----------
    values : ndarray of shape (n,), float64
        A numeric column (NaN: missing; no infinities).
    thresholds : ndarray of shape (t,), float64
        Strictly ascending cut points, ``t <= 65534``.

    Returns
    -------
    ndarray of shape (n,), uint16
        ``k`` for a value in ``(thresholds[k - 1], thresholds[k]]``, ``t``
        above the last threshold, ``t + 1`` for NaN.
    """
    if len(values) < COMPILED_MIN_ROWS:
        codes = np.searchsorted(thresholds, values, side="left").astype(np.uint16)
        codes[np.isnan(values)] = len(thresholds) + 1
        return codes
    values = np.ascontiguousarray(values, dtype=np.float64)
    thresholds = np.ascontiguousarray(thresholds, dtype=np.float64)
    out = np.empty(values.shape[0], np.uint16)
    kernel = bin_values_parallel if values.shape[0] >= PARALLEL_MIN_ROWS else bin_values_serial
    kernel(values, thresholds, out)
    return out
