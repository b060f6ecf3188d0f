"""Numba kernels of the greedy search on sparse bin codes (BOOMER, Section 3.2).

The twins of :mod:`rulebook._search_kernels`' histogram pass, row filters
and shortening for a :class:`rulebook._sparse_bins.SparseBins`: a row's
stored entries (CSR: ``indptr``, ``columns``, ``codes``) and, for every
column, the bin of the value 0 (``zero_bin``), the code of every entry not
stored. A histogram pass reads the stored entries of the node's rows only;
the zero bin's sums are the node's totals minus the column's stored
entries' (BOOMER's "globally aggregated statistics" minus the non-zero
ones), so its cost is the node's non-zeros, not rows x features.

The stored entries' bins hold the same sums as the dense pass (each in row
order); the zero bin's differ from a direct sum by rounding only, and its
count ``N`` (and ``C`` with integer weights) is exact. A zero bin with no
zero rows is left exactly as the stored entries make it.

Histogram channels as :mod:`rulebook._multi_output_kernels`': ``G_k`` at
``k``, ``H_k`` at ``K + k``, ``C`` at ``2 K``, ``N`` at ``2 K + 1``; with
``K = 1`` the single-output layout ``G, H, C, N``.

References
----------
.. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning (BOOMER). Advances in
   Data Analysis and Classification. Sections 3.2.2-3.2.4 (statistics of
   the zeros as the total minus those of the stored values), 4.3
   (histograms).
"""

import numpy as np

from ._config import jit, jit_helper
from ._search_kernels import (
    _fewest_outside,
    _implied_candidates,
    _prefix_counts,
    _satisfies,
)


def _complete_zero_bin(hist, j, n_bins, zero_bin, total):
    # IN/OUT hist (d, B, S): column j's histogram of its stored entries, the
    # count channel last; total (S,): the sums over the node's rows. The rows
    # column j does not store are the total minus its stored entries, added
    # to its zero bin (BOOMER Sec. 3.2); none when the counts already match.
    count = hist.shape[2] - 1
    stored = 0.0
    for b in range(n_bins[j] + 1):
        stored += hist[j, b, count]
    if stored == total[count]:
        return  # no zero rows: the zero bin is exactly the stored entries'
    z = zero_bin[j]
    for s in range(hist.shape[2]):
        rest = total[s]
        for b in range(n_bins[j] + 1):
            rest -= hist[j, b, s]
        hist[j, z, s] += rest


_complete_zero_bin = jit_helper(_complete_zero_bin)


def _build_histograms_sparse(indptr, columns, codes, zero_bin, n_bins, rows, g, h, c, hist):
    # IN: indptr (n + 1,) int64; columns (nnz,) int32; codes (nnz,) uint16;
    #     zero_bin (d,) uint16; n_bins (d,) int64; rows (m,) intp;
    #     g, h (n, K) float64; c (n,) float64
    # OUT: hist (d, n_bins_max + 1, 2K + 2) float64, overwritten
    n_outputs = g.shape[1]
    n_stats = 2 * n_outputs + 2
    count = n_stats - 1
    for j in range(hist.shape[0]):
        for b in range(hist.shape[1]):
            for s in range(n_stats):
                hist[j, b, s] = 0.0
    total = np.zeros(n_stats)
    for i in range(rows.shape[0]):
        r = rows[i]
        for k in range(n_outputs):
            total[k] += g[r, k]
            total[n_outputs + k] += h[r, k]
        total[count - 1] += c[r]
        total[count] += 1.0
        for p in range(indptr[r], indptr[r + 1]):
            j = columns[p]
            b = codes[p]
            for k in range(n_outputs):
                hist[j, b, k] += g[r, k]
                hist[j, b, n_outputs + k] += h[r, k]
            hist[j, b, count - 1] += c[r]
            hist[j, b, count] += 1.0
    for j in range(hist.shape[0]):
        _complete_zero_bin(hist, j, n_bins, zero_bin, total)


def _build_sparse_from_statistics(indptr, columns, codes, zero_bin, n_bins, rows, stats,
                                  features, every, hist):
    # IN: as _build_histograms_sparse, the rows' channels side by side in
    #     stats (n, 2K + 2) (_multi_output_kernels.row_statistics);
    #     features (f,) int64 ascending: the features to build; every: they
    #     are all of them.
    # OUT: hist (d, B, 2K + 2): the listed features' histograms, the same
    #      bits as _build_histograms_sparse's (each bin's stored entries
    #      summed in row order, the zero bin completed from the totals the
    #      same way); other features not written.
    # All features: a row's stored entries, each one contiguous add. A few
    # (a query at its length limit refines only its own columns): each
    # listed feature's entry of each row found by binary search.
    n_stats = stats.shape[1]
    for f in range(features.shape[0]):
        j = features[f]
        for b in range(hist.shape[1]):
            for s in range(n_stats):
                hist[j, b, s] = 0.0
    total = np.zeros(n_stats)
    for i in range(rows.shape[0]):
        r = rows[i]
        for s in range(n_stats):
            total[s] += stats[r, s]
        if every:
            for p in range(indptr[r], indptr[r + 1]):
                j = columns[p]
                b = codes[p]
                for s in range(n_stats):
                    hist[j, b, s] += stats[r, s]
        else:
            for f in range(features.shape[0]):
                j = features[f]
                lo, hi = indptr[r], indptr[r + 1]
                while lo < hi:
                    mid = (lo + hi) // 2
                    if columns[mid] < j:
                        lo = mid + 1
                    else:
                        hi = mid
                if lo < indptr[r + 1] and columns[lo] == j:
                    b = codes[lo]
                    for s in range(n_stats):
                        hist[j, b, s] += stats[r, s]
    for f in range(features.shape[0]):
        _complete_zero_bin(hist, features[f], n_bins, zero_bin, total)


def _code_at(indptr, columns, codes, zero_bin, r, f):
    # The bin code of row r in column f: its stored entry's (binary search
    # in the row's ascending columns), else the column's zero bin.
    lo, hi = indptr[r], indptr[r + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if columns[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    if lo < indptr[r + 1] and columns[lo] == f:
        return codes[lo]
    return zero_bin[f]


def _split_rows_sparse(indptr, columns, codes, zero_bin, rows, feature, op, bin_index,
                       missing_bin, kept, removed):
    # IN: as _search_kernels._split_rows, the codes sparse.
    # OUT: kept, removed (m,) intp: rows satisfying / not satisfying the
    #      condition, order kept, in their first n_kept / m - n_kept
    #      entries. Returns n_kept.
    n_kept, n_removed = 0, 0
    for i in range(rows.shape[0]):
        r = rows[i]
        b = _code_at(indptr, columns, codes, zero_bin, r, feature)
        if _satisfies(b, op, bin_index, missing_bin):
            kept[n_kept] = r
            n_kept += 1
        else:
            removed[n_removed] = r
            n_removed += 1
    return n_kept


def _count_codes(indptr, columns, codes, zero_bin, rows, n_rows, counts):
    # IN: rows[:n_rows] intp.
    # OUT: counts (d, >= max(n_bins) + 1) int64, overwritten: the rows'
    #      count per column and bin (the zero bin: rows not stored).
    stored = np.zeros(counts.shape[0], np.int64)
    for f in range(counts.shape[0]):
        for b in range(counts.shape[1]):
            counts[f, b] = 0
    for i in range(n_rows):
        r = rows[i]
        for p in range(indptr[r], indptr[r + 1]):
            counts[columns[p], codes[p]] += 1
            stored[columns[p]] += 1
    for f in range(counts.shape[0]):
        counts[f, zero_bin[f]] += n_rows - stored[f]


def _greedy_cover_sparse(indptr, columns, codes, zero_bin, rows, extent, inside, feature, op,
                         bin_, n_bins, candidates, max_chosen, root_counts, chosen):
    # _search_kernels._greedy_cover on sparse codes: the same steps and
    # choices (the per-bin counts of a set of rows are the same integers),
    # the counts from the rows' stored entries (_count_codes).
    n_features = zero_bin.shape[0]
    width = 1
    for f in range(n_features):
        width = max(width, n_bins[f] + 1)
    counts = np.zeros((n_features, width), np.int64)
    _count_codes(indptr, columns, codes, zero_bin, extent, extent.shape[0], counts)
    # Counts per candidate from prefix sums, as in _search_kernels._greedy_cover.
    every = np.ones(n_features, np.bool_)
    prefix = np.zeros((n_features, width), np.int64)
    _prefix_counts(counts, n_bins, every, prefix)
    implied = np.empty(candidates.shape[0], np.int64)
    n_implied = _implied_candidates(counts, prefix, feature, op, bin_, n_bins, candidates,
                                    extent.shape[0], implied)
    outside = np.empty(0, rows.dtype)
    n_out = rows.shape[0] - extent.shape[0]
    listed = False
    k = 0
    while n_out > 0 and k < max_chosen:
        if k == 0 and root_counts.shape[0] > 0:
            for f in range(n_features):
                for b in range(n_bins[f] + 1):
                    counts[f, b] = root_counts[f, b] - counts[f, b]
        else:
            if not listed:
                outside, n_out = _outside_rows_sparse(indptr, columns, codes, zero_bin, rows,
                                                      inside, feature, op, bin_, n_bins, chosen, k)
                listed = True
            _count_codes(indptr, columns, codes, zero_bin, outside, n_out, counts)
        _prefix_counts(counts, n_bins, every, prefix)
        best, best_count = _fewest_outside(implied, n_implied, counts, prefix, feature, op,
                                           bin_, n_bins, n_out)
        if best < 0:
            break
        chosen[k] = best
        k += 1
        if listed:
            n_out = _filter_sparse(indptr, columns, codes, zero_bin, outside, n_out,
                                   feature[best], op[best], bin_[best], n_bins[feature[best]])
        else:
            n_out = best_count
    return k if n_out == 0 else -1


def _filter_sparse(indptr, columns, codes, zero_bin, rows, n_rows, feature, op, bin_index,
                   missing_bin):
    # Keeps, in place and in order, the rows of rows[:n_rows] satisfying
    # the condition; returns their number.
    n = 0
    for i in range(n_rows):
        r = rows[i]
        if _satisfies(_code_at(indptr, columns, codes, zero_bin, r, feature), op, bin_index,
                      missing_bin):
            rows[n] = r
            n += 1
    return n


def _outside_rows_sparse(indptr, columns, codes, zero_bin, rows, inside, feature, op, bin_,
                         n_bins, chosen, k):
    # The root rows outside the extent that satisfy chosen[:k]; (array, count).
    outside = np.empty(rows.shape[0], rows.dtype)
    n_out = 0
    for r in rows:
        if not inside[r]:
            keep = True
            for i in range(k):
                p = chosen[i]
                f = feature[p]
                if not _satisfies(_code_at(indptr, columns, codes, zero_bin, r, f), op[p],
                                  bin_[p], n_bins[f]):
                    keep = False
                    break
            if keep:
                outside[n_out] = r
                n_out += 1
    return outside, n_out


def _redundant_sparse(indptr, columns, codes, zero_bin, rows, feature, op, bin_, n_bins, props,
                      count, keep):
    # _search_kernels._redundant on sparse codes.
    for i in range(keep.shape[0]):
        keep[i] = True
    for i in range(props.shape[0] - 1, -1, -1):
        n = 0
        for r in rows:
            holds = True
            for j in range(props.shape[0]):
                if j != i and keep[j]:
                    p = props[j]
                    f = feature[p]
                    if not _satisfies(_code_at(indptr, columns, codes, zero_bin, r, f), op[p],
                                      bin_[p], n_bins[f]):
                        holds = False
                        break
            n += holds
        if n == count:
            keep[i] = False


build_histograms_sparse = jit(_build_histograms_sparse)
build_sparse_from_statistics = jit(_build_sparse_from_statistics)
# Helpers (called from Python, in tests, through an uncached twin: one
# function compiled both as a kernel and as a helper would share a cache
# entry, _config.jit_helper).
_code_at = jit_helper(_code_at)
split_rows_sparse = jit(_split_rows_sparse)
_count_codes = jit_helper(_count_codes)
_filter_sparse = jit_helper(_filter_sparse)
_outside_rows_sparse = jit_helper(_outside_rows_sparse)
greedy_cover_sparse = jit(_greedy_cover_sparse)
redundant_sparse = jit(_redundant_sparse)
