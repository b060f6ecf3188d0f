"""Bins of a scipy sparse matrix from its non-zero entries (BOOMER, Section 3.2).

A sparse column stores its non-zero values only; the rows it does not
store hold 0. Binning such a column reads the stored values and counts the
zeros: the cut points are those of the dense column (the zeros enter the
quantiles with their multiplicity, ``n_rows - nnz``), so that a fit on the
sparse matrix equals the fit on its dense array. The codes are kept sparse,
row-major (CSR): a row's stored entries and their bin codes; every row a
column does not store has that column's *zero bin*, ``zero_bin[j]``, the
bin of the value 0. The greedy search builds its histograms from the
stored entries and the node's totals (the zero bin's sums are the total
minus the other entries', :mod:`rulebook._sparse_kernels`), BOOMER's trick.

Whether 0 has a bin of its own follows from the dense column's quantiles:
with non-negative data (counts, indicators, tf-idf) it has whenever the
column has at most ``max_bins`` distinct values or 0 holds at least
``1 / max_bins`` of the rows' weight; a column of many distinct values
with few zeros among negative ones bins 0 with its neighbours, as the
dense fit does.

References
----------
.. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning (BOOMER). Advances in
   Data Analysis and Classification. Section 3.2 (sparse features: the
   zeros are not stored and their statistics are the total minus the
   stored entries'), Section 4.1.2 (equal-frequency bins).
"""

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ._binning_kernels import bin_values
from ._config import X_BINNED_DTYPE


@dataclass(frozen=True, eq=False)
class SparseBins:
    """The bin codes of a sparse matrix, row-major, zeros implicit.

    Attributes
    ----------
    shape : tuple of (int, int)
        ``(n_rows, n_features)``.
    indptr : ndarray of shape (n_rows + 1,), int64
        Row ``r``'s entries are ``indptr[r]:indptr[r + 1]``.
    columns : ndarray of shape (nnz,), int32
        The column of each entry, ascending within a row.
    codes : ndarray of shape (nnz,), uint16
        The bin code of each entry (non-zero values and NaN; the missing
        bin for NaN). Stored zeros are dropped: they are implicit.
    zero_bin : ndarray of shape (n_features,), uint16
        The bin of the value 0 in each column: the code of every row the
        column does not store.
    """

    shape: tuple
    indptr: np.ndarray
    columns: np.ndarray
    codes: np.ndarray
    zero_bin: np.ndarray

    def __len__(self):
        return self.shape[0]

    @property
    def nbytes(self):
        """Bytes of the arrays."""
        return sum(a.nbytes for a in (self.indptr, self.columns, self.codes, self.zero_bin))

    def to_dense(self):
        """The codes as the dense binner gives them: (n_rows, n_features), uint16, F-order.

        For the learners that index rows of a dense table (optimal,
        orthogonal, beam): 2 bytes a cell, never the float64 values.
        """
        out = np.empty(self.shape, X_BINNED_DTYPE, order="F")
        out[:] = self.zero_bin[None, :]
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.columns] = self.codes
        return out


def bin_sparse(X, sample_weight, max_bins, cut_points, readable, weighted_cuts):
    """Thresholds and sparse codes of a CSC matrix, as the dense binner would find them.

    Parameters
    ----------
    X : scipy.sparse CSC matrix of shape (n_rows, n_features)
        Canonical (sorted indices, no duplicates), numeric, no infinities
        (:func:`rulebook._validation.as_sparse`). Not modified.
    sample_weight : ndarray of shape (n_rows,), float64
    max_bins : int or None
    cut_points : dict of {str: ndarray of float64}
        Checked cut points by column name (``x<j>``).
    readable : callable
        ``readable({j: (cuts, following)}) -> {j: thresholds}``, the dense
        binner's choice of a threshold in each gap
        (:func:`rulebook.binning._readable_cuts` after ``_as_shown``).
    weighted_cuts : callable
        :func:`rulebook.binning._equal_frequency_cuts_numpy`, for unequal
        sample weights (given by the caller: ``binning`` imports this module).

    Returns
    -------
    thresholds : list of ndarray of float64
        Per column.
    bins : SparseBins
    """
    d = X.shape[1]
    active = sample_weight > 0
    weights = sample_weight[active]
    uniform = not len(weights) or bool(np.all(weights == weights[0]))
    n_active = len(weights)
    found = _few_valued_cuts(X, active, n_active, max_bins) if uniform else {}
    for j in range(d):
        if f"x{j}" in cut_points or j in found:
            continue
        rows, values = _column(X, j)
        found[j] = _column_cuts(rows, values, sample_weight, active, n_active, uniform,
                                max_bins, weighted_cuts)
    found = {j: found[j] for j in range(d) if f"x{j}" not in cut_points}  # in column order
    chosen = readable(found)
    thresholds = [cut_points.get(f"x{j}", chosen.get(j)) for j in range(d)]
    return thresholds, _codes(X, thresholds)


def _few_valued_cuts(X, active, n_active, max_bins):
    """:func:`_uniform_cuts` of every column with at most ``max_bins`` distinct
    values (zero included), in a few passes over all entries.

    Each such column is cut after every distinct value but its largest, as
    :func:`_uniform_cuts` does; the per-column NumPy calls were most of
    binning a wide sparse matrix (enron's 1,001 columns: 0.1 s). Columns
    with more distinct values are left to :func:`_uniform_cuts` (absent
    from the result).

    Returns
    -------
    dict of {int: (ndarray, ndarray)}
    """
    d = X.shape[1]
    column = np.repeat(np.arange(d), np.diff(X.indptr))
    values = np.asarray(X.data, dtype=np.float64)
    keep = (values != 0) & active[X.indices] & ~np.isnan(values)
    # A column's zeros: its active rows not stored as non-zero (NaN included,
    # as _column_cuts counts them).
    stored_active = np.bincount(column[(values != 0) & active[X.indices]], minlength=d)
    n_zero = n_active - stored_active
    column = np.concatenate([column[keep], np.flatnonzero(n_zero > 0)])
    values = np.concatenate([values[keep], np.zeros(int((n_zero > 0).sum()))])
    order = np.lexsort((values, column))
    column, values = column[order], values[order]
    first = np.ones(len(values), bool)  # the first of its value in its column
    first[1:] = (column[1:] != column[:-1]) | (values[1:] != values[:-1])
    column, values = column[first], values[first]
    n_distinct = np.bincount(column, minlength=d)
    last = np.ones(len(values), bool)  # the largest of its column
    last[:-1] = column[1:] != column[:-1]
    few = (n_distinct > 1) if max_bins is None else (n_distinct > 1) & (n_distinct <= max_bins)
    if max_bins is None and n_distinct.max(initial=0) - 1 > 65534:
        return {}  # _uniform_cuts raises for that column
    cut = ~last & few[column]
    following = np.empty_like(values)
    following[:-1] = values[1:]
    per_column = np.bincount(column[cut], minlength=d)
    splits = np.cumsum(per_column)[:-1]
    cuts = dict(enumerate(zip(np.split(values[cut], splits), np.split(following[cut], splits))))
    empty = np.empty(0), np.empty(0)
    return {j: (cuts[j] if few[j] else empty) for j in range(d) if few[j] or n_distinct[j] <= 1}


def _column(X, j):
    """Rows and values of column ``j``'s stored entries other than zeros."""
    start, stop = X.indptr[j], X.indptr[j + 1]
    rows, values = X.indices[start:stop], np.asarray(X.data[start:stop], dtype=np.float64)
    stored = values != 0  # NaN stays: a missing value
    return rows[stored], values[stored]


def _column_cuts(rows, values, sample_weight, active, n_active, uniform, max_bins,
                 weighted_cuts):
    """:func:`rulebook.binning._equal_frequency_cuts` of the dense column, from its entries.

    The zeros are counted (equal weights: their number) or, with unequal
    weights, their weights gathered in row order (a pass over the column's
    rows: the sums are then those of the dense column, to the bit).
    """
    keep = active[rows] & ~np.isnan(values)
    present, present_rows = values[keep], rows[keep]
    if uniform:
        n_zero = n_active - int(active[rows].sum())  # the column's entries only
        return _uniform_cuts(present, n_zero, max_bins)
    zero = active.copy()
    zero[rows] = False  # stored non-zero or NaN
    # Stored entries in row order, then the zeros in row order: a stable
    # sort by value orders ties by row, as it does the dense column.
    column = np.concatenate([present, np.zeros(int(zero.sum()))])
    column_weights = np.concatenate([sample_weight[present_rows], sample_weight[zero]])
    return weighted_cuts(column, column_weights, np.ones(len(column), bool), max_bins)


def _uniform_cuts(present, n_zero, max_bins):
    """Cuts of a column whose rows weigh alike: the non-zero values and ``n_zero`` zeros.

    The distinct values' counts are exact integers, so their cumulative
    shares are the same float64 numbers as the dense column's, in any order.
    """
    distinct, counts = np.unique(present, return_counts=True)
    if n_zero:
        at = int(np.searchsorted(distinct, 0.0))
        distinct = np.insert(distinct, at, 0.0)
        counts = np.insert(counts, at, n_zero)
    if len(distinct) <= 1:
        return np.empty(0), np.empty(0)
    if max_bins is None or len(distinct) <= max_bins:
        if len(distinct) - 1 > 65534:
            raise ValueError(
                f"a column has {len(distinct)} distinct values, more than 65535 bins; "
                "set max_bins to an int."
            )
        cut = np.arange(len(distinct) - 1)
    else:
        cumulative = np.cumsum(counts.astype(np.float64)) / float(counts.sum())
        targets = np.arange(1, max_bins) / max_bins
        cut = np.unique(np.searchsorted(cumulative, targets, side="left"))
        cut = cut[cut < len(distinct) - 1]
    return distinct[cut], distinct[cut + 1]


def _codes(X, thresholds):
    """The :class:`SparseBins` of ``X`` binned at ``thresholds`` (one array per column)."""
    n, d = X.shape
    data = np.asarray(X.data, dtype=np.float64)
    stored = data != 0
    entry_column = np.repeat(np.arange(d, dtype=np.int32), np.diff(X.indptr))
    codes = np.empty(len(data), X_BINNED_DTYPE)
    zero_bin = np.empty(d, X_BINNED_DTYPE)
    for j in range(d):
        start, stop = X.indptr[j], X.indptr[j + 1]
        codes[start:stop] = bin_values(data[start:stop], thresholds[j])
        zero_bin[j] = np.searchsorted(thresholds[j], 0.0, side="left")
    rows, entry_column, codes = X.indices[stored], entry_column[stored], codes[stored]
    # Column-major entries to row-major: a stable sort by row keeps each
    # row's columns ascending.
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return SparseBins((n, d), indptr, entry_column[order], codes[order], zero_bin)


def is_sparse(X):
    """Whether ``X`` is a scipy sparse matrix or array."""
    return sparse.issparse(X)
