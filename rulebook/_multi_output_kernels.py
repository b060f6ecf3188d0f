"""Numba kernels of the rule search with several outputs (BOOMER, Section 3).

The multi-output twins of :mod:`rulebook._search_kernels`' histogram pass
and scan: one pass over the rows of a search node builds, per feature and
bin, the sums of every output's gradient and Hessian besides the sample
weight and the row count, and prefix and suffix scans score every
proposition of the feature at once for a *complete* head (one weight per
output), whose objective is the sum over outputs of the single-output
second-order objective (:func:`rulebook.objectives._objective_complete`),
or for a *single-output* head (a weight for one output), whose objective
is the maximum over outputs (:func:`objective_single`).

Channels of ``hist[j, bin, channel]`` with ``K`` outputs: ``G_k`` at
``k``, ``H_k`` at ``K + k``, ``C`` at ``2 K`` and ``N`` (the row count)
last, at ``2 K + 1``; with ``K = 1`` the layout of the single-output
kernels (``G, H, C, N``). Propositions, operators and the missing bin are
as there. Each kernel is compiled serial and parallel (``prange`` over
features, each thread writing its own slot), with identical results.

References
----------
.. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning (BOOMER). Advances in
   Data Analysis and Classification. Sections 4.3 and 4.4 (histograms of
   the label space statistics, the evaluation of refinements on them) and
   2.4.2 (statistics of several labels summed element-wise).
"""

import numpy as np
from numba import prange

from ._config import jit, jit_helper, jit_inline, jit_parallel
from ._search_kernels import EQ, GT, LE, NE
from .objectives import _objective_complete


def n_channels(n_outputs):
    """Channels of a histogram with ``n_outputs`` outputs: ``2 K + 2``."""
    return 2 * n_outputs + 2


def _build_histograms_multi(X_binned, rows, g, h, c, features_per_pass, hist):
    # IN: X_binned (n, d) uint16 (either order); rows (m,) intp;
    #     g, h (n, K) float64 C-order; c (n,) float64; features_per_pass >= 1
    # OUT: hist (d, n_bins_max + 1, 2K + 2) float64, overwritten
    # Blocks of features as in _search_kernels._build_histograms: a row's
    # statistics read once per block; sums in row order, so every block
    # size gives the same bits.
    n_features = X_binned.shape[1]
    n_outputs = g.shape[1]
    count = 2 * n_outputs + 1
    for block in prange((n_features + features_per_pass - 1) // features_per_pass):
        first = block * features_per_pass
        end = min(first + features_per_pass, n_features)
        for j in range(first, end):
            for b in range(hist.shape[1]):
                for s in range(hist.shape[2]):
                    hist[j, b, s] = 0.0
        for i in range(rows.shape[0]):
            r = rows[i]
            cr = c[r]
            for j in range(first, end):
                b = X_binned[r, j]
                for k in range(n_outputs):
                    hist[j, b, k] += g[r, k]
                    hist[j, b, n_outputs + k] += h[r, k]
                hist[j, b, count - 1] += cr
                hist[j, b, count] += 1.0


def row_statistics(g, h, c):
    """The rows' channels side by side: ``(n, 2 K + 2)``, C-order.

    ``g``, ``h`` of shape (n, K), ``c`` of shape (n,): row ``r`` is
    ``g[r], h[r], c[r], 1.0``, the channels of a histogram, so that a row
    adds one contiguous vector to its bin (:func:`_build_from_statistics`).
    """
    n, k = g.shape
    stats = np.empty((n, 2 * k + 2))
    stats[:, :k] = g
    stats[:, k:2 * k] = h
    stats[:, 2 * k] = c
    stats[:, 2 * k + 1] = 1.0
    return stats


def _build_from_statistics(X_binned, rows, stats, n_bins, features, features_per_pass,
                           clear_padding, hist, scan, is_nominal, allowed, n_total, reg_lambda,
                           max_count, single, out_value, out_op, out_bin):
    # IN: X_binned (n, d) uint16; rows (m,) intp; stats (n, S) float64 from
    #     row_statistics; n_bins (d,) int64; features (f,) int64: the
    #     features to build (all of them: arange(d)); features_per_pass >= 1;
    #     clear_padding bool
    # OUT: hist (d, B, S): bins 0..n_bins[j] (the missing bin last) of each
    #      feature j of features overwritten with the rows' sums; the bins
    #      after them zeroed if clear_padding, else not written (the
    #      caller's are zero, and stay so). Other features not written.
    # With scan (the arguments after it as _scan_histograms_multi's), each
    # block of features is scanned as soon as it is built, while in cache:
    # out_value[j], out_op[j], out_bin[j] as _scan_histograms_multi's, for
    # the features built (a scan of a histogram the size of the last level
    # cache read it back from memory).
    # _build_histograms_multi with a row's channels one vector (one
    # contiguous add to its bin): the same sums in row order, so the same
    # bits; zeroing only the bins a feature has (most of a wide table's
    # histogram is the padding up to the widest feature's bins).
    n_todo = features.shape[0]
    n_stats = stats.shape[1]
    for block in prange((n_todo + features_per_pass - 1) // features_per_pass):
        first = block * features_per_pass
        end = min(first + features_per_pass, n_todo)
        for f in range(first, end):
            j = features[f]
            for b in range(hist.shape[1] if clear_padding else n_bins[j] + 1):
                for s in range(n_stats):
                    hist[j, b, s] = 0.0
        for i in range(rows.shape[0]):
            r = rows[i]
            for f in range(first, end):
                j = features[f]
                b = X_binned[r, j]
                for s in range(n_stats):
                    hist[j, b, s] += stats[r, s]
        if scan:
            for f in range(first, end):
                _scan_feature(hist, features[f], n_bins, is_nominal, allowed, n_total,
                              reg_lambda, max_count, single, out_value, out_op, out_bin)


def _rebuild_channels(X_binned, rows, stats, n_bins, features, features_per_pass, channels,
                      hist, scan, is_nominal, allowed, n_total, reg_lambda, max_count, single,
                      out_value, out_op, out_bin):
    # IN: as _build_from_statistics; channels (c,) int64: the channels whose
    #     row statistics changed since hist was built from the same rows (a
    #     single-output head's rule changes one output's gradient and
    #     Hessian under a loss of independent outputs)
    # OUT: hist: those channels of the features listed rebuilt (bins 0..
    #      n_bins[j]), the others kept; scanned as by _build_from_statistics.
    # The channels rebuilt are summed in row order from 0, as a full build
    # sums every channel, and the others are the sums of unchanged
    # statistics: hist is _build_from_statistics' to the bit, for the
    # gradient channels of one output rather than all of them (yeast's 14
    # labels: 2 of 30 channels). A kernel of its own: a list of channels in
    # _build_from_statistics' inner loop would cost the full build its one
    # contiguous add per row and feature.
    n_todo = features.shape[0]
    n_changed = channels.shape[0]
    for block in prange((n_todo + features_per_pass - 1) // features_per_pass):
        first = block * features_per_pass
        end = min(first + features_per_pass, n_todo)
        for f in range(first, end):
            j = features[f]
            for b in range(n_bins[j] + 1):
                for c in range(n_changed):
                    hist[j, b, channels[c]] = 0.0
        for i in range(rows.shape[0]):
            r = rows[i]
            for f in range(first, end):
                j = features[f]
                b = X_binned[r, j]
                for c in range(n_changed):
                    hist[j, b, channels[c]] += stats[r, channels[c]]
        if scan:
            for f in range(first, end):
                _scan_feature(hist, features[f], n_bins, is_nominal, allowed, n_total,
                              reg_lambda, max_count, single, out_value, out_op, out_bin)


def _subtract_rows(X_binned, rows, stats, n_bins, features, features_per_pass, clear_padding,
                   parent, out, scan, is_nominal, allowed, n_total, reg_lambda, max_count, single,
                   out_value, out_op, out_bin):
    # IN: as _build_from_statistics; parent (d, B, S): an extent's
    #     histograms, zero after each feature's bins
    # OUT: out (d, B, S) (may be parent itself): for the features listed,
    #      parent minus the histograms of rows (a subset of parent's
    #      extent); the bins after each feature's zeroed if clear_padding,
    #      else not written; with scan, out scanned a block at a time (see
    #      _build_from_statistics). Other features not written.
    # The rows' sums of a block of features go into a scratch histogram
    # the size of a core's cache and are subtracted from it at once: the
    # same subtraction as parent - build(rows), element by element, without
    # a histogram of every feature for the rows nor a pass over the padding.
    n_todo = features.shape[0]
    n_stats = stats.shape[1]
    width = parent.shape[1]
    for block in prange((n_todo + features_per_pass - 1) // features_per_pass):
        first = block * features_per_pass
        end = min(first + features_per_pass, n_todo)
        scratch = np.empty((end - first, width, n_stats))  # in the loop: a thread's own
        for f in range(first, end):
            for b in range(n_bins[features[f]] + 1):
                for s in range(n_stats):
                    scratch[f - first, b, s] = 0.0
        for i in range(rows.shape[0]):
            r = rows[i]
            for f in range(first, end):
                b = X_binned[r, features[f]]
                for s in range(n_stats):
                    scratch[f - first, b, s] += stats[r, s]
        for f in range(first, end):
            j = features[f]
            for b in range(n_bins[j] + 1):
                for s in range(n_stats):
                    out[j, b, s] = parent[j, b, s] - scratch[f - first, b, s]
            if clear_padding:
                for b in range(n_bins[j] + 1, width):
                    for s in range(n_stats):
                        out[j, b, s] = 0.0
        if scan:
            for f in range(first, end):
                _scan_feature(out, features[f], n_bins, is_nominal, allowed, n_total,
                              reg_lambda, max_count, single, out_value, out_op, out_bin)


@jit
def objective_single(stats, n_outputs, n, reg_lambda):
    """Second-order objective of a single-output head: the best output's.

    The maximum over outputs of ``G_k^2 / (2 n (reg_lambda + H_k))``,
    BOOMER's single-label head (the rule predicts for the one output where
    it reduces the loss most); ``stats`` as for
    :func:`rulebook.objectives._objective_complete`, 0 for an empty extent
    and for an output whose denominator vanishes.
    """
    if stats[2 * n_outputs] <= 0.0:
        return 0.0
    value = 0.0
    for k in range(n_outputs):
        denominator = 2.0 * n * (reg_lambda + stats[n_outputs + k])
        if denominator > 0.0:
            value = max(value, stats[k] * stats[k] / denominator)
    return value


@jit
def head_objective(stats, n_outputs, n, reg_lambda, single):
    """A head's objective: :func:`objective_single` if ``single``, else the
    complete head's (:func:`rulebook.objectives._objective_complete`)."""
    if single:
        return objective_single(stats, n_outputs, n, reg_lambda)
    return _objective_complete(stats, n_outputs, n, reg_lambda)


def _scan_histograms_multi(hist, n_bins, is_nominal, allowed, n_total, reg_lambda, max_count,
                           single, out_value, out_op, out_bin):
    # IN: hist (d, B, 2K + 2); n_bins (d,) int64; is_nominal (d,) bool;
    #     allowed (d, B, 4) bool; n_total, reg_lambda float; max_count float:
    #     a candidate covers at least one row and fewer than this; single
    #     bool: score single-output heads (else complete ones).
    # OUT: out_value (d,) float64, out_op (d,) int64, out_bin (d,) int64:
    #     best proposition per feature for the head (op -1 if none).
    # As _search_kernels._scan_histograms, the sums a vector of channels.
    # Scored by _head_value, inlined (head_objective called per candidate
    # was two thirds of the scan: reference counts of its array argument).
    n_features = hist.shape[0]
    for j in prange(n_features):
        _scan_feature(hist, j, n_bins, is_nominal, allowed, n_total, reg_lambda, max_count,
                      single, out_value, out_op, out_bin)


def _scan_feature(hist, j, n_bins, is_nominal, allowed, n_total, reg_lambda, max_count, single,
                  out_value, out_op, out_bin):
    # _scan_histograms_multi of feature j: its best proposition into
    # out_value[j], out_op[j], out_bin[j].
    n_stats = hist.shape[2]
    n_outputs = (n_stats - 2) // 2
    count = n_stats - 1
    two_n = 2.0 * n_total
    best, best_op, best_bin = -np.inf, -1, -1
    nb = n_bins[j]
    acc = np.zeros(n_stats)
    if is_nominal[j]:
        # ``x != k``: the bins before k plus the bins after k, added
        # (not total minus bin k, which cancels; see _scan_histograms).
        after = np.zeros((nb + 1, n_stats))
        for k in range(nb - 1, -1, -1):
            for s in range(n_stats):
                after[k, s] = after[k + 1, s] + hist[j, k, s]
        rest = np.zeros(n_stats)
        for k in range(nb):
            cn = hist[j, k, count]
            if allowed[j, k, EQ] and 0.0 < cn < max_count:
                v = _head_value(hist[j, k], n_outputs, two_n, reg_lambda, single)
                if v > best:
                    best, best_op, best_bin = v, EQ, k
            rn = acc[count] + after[k + 1, count]
            if nb > 2 and allowed[j, k, NE] and 0.0 < rn < max_count:
                for s in range(n_stats):
                    rest[s] = acc[s] + after[k + 1, s]
                v = _head_value(rest, n_outputs, two_n, reg_lambda, single)
                if v > best:
                    best, best_op, best_bin = v, NE, k
            for s in range(n_stats):
                acc[s] += hist[j, k, s]
    else:
        for k in range(nb - 1):
            for s in range(n_stats):
                acc[s] += hist[j, k, s]
            if allowed[j, k, LE] and 0.0 < acc[count] < max_count:
                v = _head_value(acc, n_outputs, two_n, reg_lambda, single)
                if v > best:
                    best, best_op, best_bin = v, LE, k
        acc[:] = 0.0
        for k in range(nb - 1, 0, -1):
            for s in range(n_stats):
                acc[s] += hist[j, k, s]
            if allowed[j, k - 1, GT] and 0.0 < acc[count] < max_count:
                v = _head_value(acc, n_outputs, two_n, reg_lambda, single)
                if v > best:
                    best, best_op, best_bin = v, GT, k - 1
    out_value[j] = best
    out_op[j] = best_op
    out_bin[j] = best_bin


def _head_value(stats, n_outputs, two_n, reg_lambda, single):
    # head_objective to the bit, two_n = 2.0 * n: the same products,
    # quotients and sum (or maximum) in output order.
    if stats[2 * n_outputs] <= 0.0:
        return 0.0
    value = 0.0
    for k in range(n_outputs):
        denominator = two_n * (reg_lambda + stats[n_outputs + k])
        if denominator > 0.0:
            if single:
                value = max(value, stats[k] * stats[k] / denominator)
            else:
                value += stats[k] * stats[k] / denominator
    return value


_head_value = jit_inline(_head_value)
_scan_feature = jit_helper(_scan_feature)
build_from_statistics_serial = jit(_build_from_statistics)
build_from_statistics_parallel = jit_parallel(_build_from_statistics)
rebuild_channels_serial = jit(_rebuild_channels)
rebuild_channels_parallel = jit_parallel(_rebuild_channels)
subtract_rows_serial = jit(_subtract_rows)
subtract_rows_parallel = jit_parallel(_subtract_rows)
build_histograms_multi_serial = jit(_build_histograms_multi)
build_histograms_multi_parallel = jit_parallel(_build_histograms_multi)
scan_histograms_multi_serial = jit(_scan_histograms_multi)
scan_histograms_multi_parallel = jit_parallel(_scan_histograms_multi)
