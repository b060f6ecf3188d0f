"""Numba kernels of the orthogonal rule search (Yang et al. 2024, Section 3.3).

Candidate queries are scored from per-row *channels* ``W`` (shape
``(n, 4 + K)``, C-order, one row per training row):

=========  ===========================================================
channel    content
=========  ===========================================================
``G`` 0    gradient (for the orthogonal objective: the projected
           gradient ``s * d_perp``, already multiplied by the weight)
``H`` 1    Hessian (weighted)
``C`` 2    sample weight ``s``
``N`` 3    1 (row count)
``U`` 4..  ``s_i o_k,i`` for the ``K`` orthonormal basis vectors ``o_k``
=========  ===========================================================

With these, every extent ``I`` is scored from its channel sums alone:
``g_perp^T q = sum_I G``, ``||q||^2 = sum_I C`` and ``o_k^T q = sum_I U_k``,
so ``||q_perp||^2 = ||q||^2 - sum_k (o_k^T q)^2`` (Proposition 3). This is
the paper's Algorithm 3 generalised to sample weights: inner products are
``<u, v> = sum_i s_i u_i v_i`` and the ``o_k`` are orthonormal in it; with
unit weights it is exactly the paper's.

Kernels (serial and ``prange``-parallel compilations of one source, each
thread writing its own feature's slot, as in :mod:`._search_kernels`):

* ``build_channel_histograms``: per feature and bin, the channel sums;
* ``scan_all``: from them, the objective of *every* proposition of every
  feature in one prefix/suffix pass (``O(d B K)`` for ``B`` bins);
* ``scan_outputs``: ``scan_all`` for the objective of several outputs
  (:mod:`rulebook.orthogonal_outputs`), one gradient channel per output;
* ``prefix_values``: Algorithm 3, the objective of every prefix of an
  ordered row selection in ``O(m K)``;
* ``distinct_rows``: the classes of bit-for-bit equal rows (the basis
  channels shared by rows of one rule-coverage pattern).

The objective codes are those of :mod:`rulebook.objectives` plus
``ORTHOGONAL = 3``.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.2 (eq. 14), Section 3.3 (eq. 15, Proposition 3, Algorithm 3).
"""

import numpy as np
from numba import prange

from ._config import jit, jit_parallel
from ._search_kernels import EQ, GT, LE, NE
from .objectives import _objective

G, H, C, N = 0, 1, 2, 3
FIRST_BASIS_CHANNEL = 4
ORTHOGONAL = 3
# A query whose orthogonal part has squared norm below this fraction of
# ||q||^2 lies in the span of the selected queries up to rounding (the
# subtraction ||q||^2 - sum_k (o_k^T q)^2 cancels to ~1e-16 ||q||^2 per
# term): its objective is 0, since adding it cannot change the model.
REDUNDANT = 1e-10


def _orthogonal_value(g_perp_sum, c_sum, parallel_sq, epsilon, ridge):
    """``|g_perp^T q| / (sqrt(||q_perp||^2 + ridge) + epsilon)`` from sums:
    eq. 14 for ``ridge = 0`` (the same bits: ``x + 0.0`` is ``x``), the
    regularised step's objective otherwise (``rulebook.orthogonal.ridge_term``)."""
    if c_sum <= 0.0:
        return 0.0
    perp_sq = c_sum - parallel_sq
    if perp_sq <= REDUNDANT * c_sum:
        return 0.0
    return abs(g_perp_sum) / (np.sqrt(perp_sq + ridge) + epsilon)


def _value(code, sums, n_total, reg_lambda, epsilon, ridge):
    """Objective of an extent with channel sums ``sums`` (length 4 + K)."""
    if code == ORTHOGONAL:
        parallel_sq = 0.0
        for k in range(FIRST_BASIS_CHANNEL, sums.shape[0]):
            parallel_sq += sums[k] * sums[k]
        return _orthogonal_value(sums[G], sums[C], parallel_sq, epsilon, ridge)
    return _objective(code, sums[G], sums[H], sums[C], n_total, reg_lambda)


def _build_channel_histograms(X_binned, rows, W, first, hist):
    # IN: X_binned (n, d) uint16 F-order; rows (m,) intp; W (n, K') float64
    #     C-order channels; first int: features before it are skipped (the
    #     branch and bound's tail augmentation; an index, not a slice of
    #     the arrays, which costs compile time in its caller)
    # OUT: hist (d, n_bins_max + 1, K') float64, overwritten from feature first
    n_features = X_binned.shape[1]
    n_channels = W.shape[1]
    for j in prange(first, n_features):
        for b in range(hist.shape[1]):
            for k in range(n_channels):
                hist[j, b, k] = 0.0
        column = X_binned[:, j]
        for i in range(rows.shape[0]):
            r = rows[i]
            b = column[r]
            for k in range(n_channels):
                hist[j, b, k] += W[r, k]


def _build_all_channel_histograms(X_binned, W, hist):
    # The histograms of all rows (0..n-1) of every feature: what
    # _build_channel_histograms gives for rows = arange(n), first = 0, to
    # the bit (each bin sums its rows in ascending order either way), with
    # a thread per half of the features, each reading a row's channels once
    # for all its features (the per-feature form reads all channels once a
    # feature: 20 passes over 110 MB at 10^6 rows and 14 channels).
    n, n_features = X_binned.shape
    n_channels = W.shape[1]
    for j in range(n_features):
        for b in range(hist.shape[1]):
            for k in range(n_channels):
                hist[j, b, k] = 0.0
    n_groups = 2
    for group in prange(n_groups):
        start = group * n_features // n_groups
        stop = (group + 1) * n_features // n_groups
        for r in range(n):
            for j in range(start, stop):
                b = X_binned[r, j]
                for k in range(n_channels):
                    hist[j, b, k] += W[r, k]


def _scan_all(hist, n_bins, is_nominal, first, code, n_total, reg_lambda, epsilon, ridge,
              max_count, out):
    # IN: hist (d, B, K'); n_bins (d,) int64; is_nominal (d,) bool; first
    #     int: features before it are skipped (as in _build_channel_histograms); code int;
    #     n_total, reg_lambda, epsilon, ridge float; max_count float: a candidate
    #     must cover at least one and fewer than max_count rows.
    # OUT: out (d, 2 * B) float64: out[j, p] is the objective of feature j's
    #      p-th proposition in the enumeration order of _search_kernels
    #      (see decode), -inf where there is none or it is not a strict,
    #      non-empty sub-extent; rows before ``first`` are left as they are.
    n_features, _, n_channels = hist.shape
    for j in prange(first, n_features):
        # Element loops, not array expressions: the same sums, and far less
        # to compile on a user's first fit.
        for p in range(out.shape[1]):
            out[j, p] = -np.inf
        nb = n_bins[j]
        acc = np.zeros(n_channels)
        if is_nominal[j]:
            total = np.zeros(n_channels)
            for k in range(nb):
                for c in range(n_channels):
                    total[c] += hist[j, k, c]
            for k in range(nb):
                p = 2 * k if nb > 2 else k
                if 0.0 < hist[j, k, N] < max_count:
                    out[j, p] = _value(code, hist[j, k, :], n_total, reg_lambda, epsilon, ridge)
                if nb > 2:
                    for c in range(n_channels):
                        acc[c] = total[c] - hist[j, k, c]
                    if 0.0 < acc[N] < max_count:
                        out[j, p + 1] = _value(code, acc, n_total, reg_lambda, epsilon, ridge)
        else:
            for k in range(nb - 1):
                for c in range(n_channels):
                    acc[c] += hist[j, k, c]
                if 0.0 < acc[N] < max_count:
                    out[j, k] = _value(code, acc, n_total, reg_lambda, epsilon, ridge)
            for c in range(n_channels):
                acc[c] = 0.0
            for k in range(nb - 1, 0, -1):
                for c in range(n_channels):
                    acc[c] += hist[j, k, c]
                if 0.0 < acc[N] < max_count:
                    out[j, (nb - 1) + (nb - 1 - k)] = _value(code, acc, n_total, reg_lambda,
                                                             epsilon, ridge)


def _output_value(sums, m, single_head, epsilon, ridge):
    """The orthogonal objective of a head of ``m`` outputs from channel sums
    ``[G_1 .. G_m, C, N, U_1 .. U_K]`` (:mod:`rulebook.orthogonal_outputs`):
    the norm (complete head) or the largest (single-output head) of the
    outputs' ``|G_k| / (sqrt(||q_perp||^2 + ridge) + epsilon)``."""
    parallel_sq = 0.0
    for k in range(m + 2, sums.shape[0]):
        parallel_sq += sums[k] * sums[k]
    c_sum = sums[m]
    if c_sum <= 0.0:
        return 0.0
    perp_sq = c_sum - parallel_sq
    if perp_sq <= REDUNDANT * c_sum:
        return 0.0
    top = 0.0
    for k in range(m):
        if single_head:
            top = max(top, abs(sums[k]))
        else:
            top += sums[k] * sums[k]
    if not single_head:
        top = np.sqrt(top)
    return top / (np.sqrt(perp_sq + ridge) + epsilon)


def _scan_outputs(hist, n_bins, is_nominal, first, m, single_head, epsilon, ridge, max_count,
                  out):
    # _scan_all for the objective of m outputs: hist (d, B, m + 2 + K) with
    # channels [G_1 .. G_m, C, N, U_1 .. U_K]; first: features before it
    # are skipped; out (d, 2 * B) as there (the same enumeration of
    # propositions, -inf where there is none or it is not a strict,
    # non-empty sub-extent; rows before first left as they are).
    n_features, _, n_channels = hist.shape
    count = m + 1
    for j in prange(first, n_features):
        for p in range(out.shape[1]):
            out[j, p] = -np.inf
        nb = n_bins[j]
        acc = np.zeros(n_channels)
        if is_nominal[j]:
            total = np.zeros(n_channels)
            for k in range(nb):
                for c in range(n_channels):
                    total[c] += hist[j, k, c]
            for k in range(nb):
                p = 2 * k if nb > 2 else k
                if 0.0 < hist[j, k, count] < max_count:
                    out[j, p] = _output_value(hist[j, k, :], m, single_head, epsilon, ridge)
                if nb > 2:
                    for c in range(n_channels):
                        acc[c] = total[c] - hist[j, k, c]
                    if 0.0 < acc[count] < max_count:
                        out[j, p + 1] = _output_value(acc, m, single_head, epsilon, ridge)
        else:
            for k in range(nb - 1):
                for c in range(n_channels):
                    acc[c] += hist[j, k, c]
                if 0.0 < acc[count] < max_count:
                    out[j, k] = _output_value(acc, m, single_head, epsilon, ridge)
            for c in range(n_channels):
                acc[c] = 0.0
            for k in range(nb - 1, 0, -1):
                for c in range(n_channels):
                    acc[c] += hist[j, k, c]
                if 0.0 < acc[count] < max_count:
                    out[j, (nb - 1) + (nb - 1 - k)] = _output_value(acc, m, single_head,
                                                                    epsilon, ridge)


def _prefix_values(W, order, epsilon, ridge, out):
    # IN: W (n, K') channels; order (m,) intp, an ordered row selection
    #     sigma; epsilon, ridge float
    # OUT: out (m,) float64: out[i] = obj_ogb(e_sigma(0) + ... + e_sigma(i))
    #      (Algorithm 3; the paper's "i^2" under the root is ||q^(i)||^2,
    #      which is i for unit weights, sum of s here).
    n_basis = W.shape[1] - FIRST_BASIS_CHANNEL
    acc = np.zeros(n_basis)
    g_sum, c_sum = 0.0, 0.0
    for i in range(order.shape[0]):
        r = order[i]
        g_sum += W[r, G]
        c_sum += W[r, C]
        parallel_sq = 0.0
        for k in range(n_basis):
            acc[k] += W[r, FIRST_BASIS_CHANNEL + k]
            parallel_sq += acc[k] * acc[k]
        out[i] = _orthogonal_value(g_sum, c_sum, parallel_sq, epsilon, ridge)


def _distinct_rows(bits, start, classes, first):
    # IN: bits (n, K) int64: rows compared bit for bit (float64 rows viewed
    #     as int64, so that -0.0 and 0.0 differ and every NaN equals itself)
    #     from column start on (so that the channels' view needs no copy)
    # OUT: classes (n,) int32: the class of each row, numbered by first
    #      occurrence; first (n,) intp: first[c] is class c's first row.
    #      Returns the number of classes. Open addressing on a hash of the
    #      row's words, in a table of at least 2 n slots.
    n, k = bits.shape[0], bits.shape[1]
    size = 1
    while size < 2 * max(n, 1):
        size *= 2
    table = np.full(size, -1, np.int64)
    n_classes = 0
    for r in range(n):
        h = np.uint64(1469598103934665603)
        for j in range(start, k):
            h = (h ^ np.uint64(bits[r, j])) * np.uint64(1099511628211)
        slot = np.int64(h >> np.uint64(1)) & (size - 1)
        while True:
            c = table[slot]
            if c < 0:
                table[slot] = n_classes
                first[n_classes] = r
                classes[r] = n_classes
                n_classes += 1
                break
            same = True
            for j in range(start, k):
                if bits[first[c], j] != bits[r, j]:
                    same = False
                    break
            if same:
                classes[r] = c
                break
            slot = (slot + 1) & (size - 1)
    return n_classes


def _take_rows(X, rows, out):
    # out[i, j] = X[rows[i], j]: a row gather into an F-order ``out``, one
    # column per thread (NumPy's X[rows] then asfortranarray copies twice).
    for j in prange(X.shape[1]):
        for i in range(rows.shape[0]):
            out[i, j] = X[rows[i], j]


def _take_channel_rows(W, rows, out):
    # out[i, :] = W[rows[i], :] + 0.0 (C-order; the + 0.0 turns -0.0 into
    # 0.0, as a sum over one row does), rows shared among the threads.
    for i in prange(rows.shape[0]):
        r = rows[i]
        for k in range(W.shape[1]):
            out[i, k] = W[r, k] + 0.0


def _permute_channel_rows(W, order):
    # W[i, :] = W_before[order[i], :] + 0.0 in place (order a permutation),
    # one cycle of the permutation at a time through one row of scratch.
    n, k = W.shape
    done = np.zeros(n, np.bool_)
    first = np.empty(k)
    for start in range(n):
        if done[start]:
            continue
        for c in range(k):
            first[c] = W[start, c]
        i = start
        while True:
            done[i] = True
            j = order[i]
            if j == start:
                for c in range(k):
                    W[i, c] = first[c] + 0.0
                break
            for c in range(k):
                W[i, c] = W[j, c] + 0.0
            i = j


def decode(position, n_bins_j, nominal):
    """``(op, bin)`` of position ``position`` in a feature's ``scan_all`` row."""
    if nominal:
        if n_bins_j > 2:
            return (EQ if position % 2 == 0 else NE), position // 2
        return EQ, position
    if position < n_bins_j - 1:
        return LE, position
    return GT, (n_bins_j - 2) - (position - (n_bins_j - 1))


_orthogonal_value = jit(_orthogonal_value)
_value = jit(_value)
build_channel_histograms_serial = jit(_build_channel_histograms)
build_channel_histograms_parallel = jit_parallel(_build_channel_histograms)
build_all_channel_histograms = jit_parallel(_build_all_channel_histograms)
_output_value = jit(_output_value)
scan_outputs_serial = jit(_scan_outputs)
scan_outputs_parallel = jit_parallel(_scan_outputs)
scan_all_serial = jit(_scan_all)
scan_all_parallel = jit_parallel(_scan_all)
prefix_values = jit(_prefix_values)
distinct_rows = jit(_distinct_rows)
take_rows = jit_parallel(_take_rows)
take_channel_rows = jit_parallel(_take_channel_rows)
permute_channel_rows = jit(_permute_channel_rows)
