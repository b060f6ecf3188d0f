"""Numba kernels of the rule search on binned data (BOOMER's idea).

One pass over the rows of a search node builds, per feature, a histogram of
``(G, H, C, N)`` per bin: sums of gradients, Hessians, sample weights and the
row count. Prefix and suffix scans over each histogram then score every
proposition of the feature at once:

* numeric feature, threshold bin ``k``: ``x <= t[k]`` covers bins
  ``0..k``, ``x > t[k]`` covers bins ``k+1..n_bins-1``;
* nominal feature, category ``k``: ``x == c[k]`` covers bin ``k``,
  ``x != c[k]`` every other non-missing bin (only offered with three or
  more categories; with two it is the other category's ``==``).

The missing bin (index ``n_bins[j]``) is never covered.

Each function is compiled twice from the same Python source, serial and
parallel (``prange`` over features); every thread writes only its own
feature's slot and the best proposition is chosen by a serial merge, so both
variants return identical results (STYLE.md, habit 5).

Channels of the histogram array ``hist[j, bin, channel]``.
"""

import numpy as np
from numba import prange

from ._config import jit, jit_helper, jit_inline, jit_parallel
from .objectives import _objective

G, H, C, N = 0, 1, 2, 3
N_CHANNELS = 4
# Binned operators, as in ``binning``.
LE, GT, EQ, NE = 0, 1, 2, 3


def _build_histograms(X_binned, rows, g, h, c, features_per_pass, hist):
    # IN: X_binned (n, d) uint16 F-order; rows (m,) intp; g, h, c (n,) float64;
    #     features_per_pass int >= 1
    # OUT: hist (d, n_bins_max + 1, 4) float64, overwritten
    # Features in blocks of features_per_pass (the blocks in parallel): a
    # row's statistics are read once per block, not once per feature; they
    # were most of the memory traffic (24 bytes a row against 2 of its bin:
    # 10^6 rows x 20 features, 99 -> 42 ms on two threads in blocks of 5).
    # Within a feature the sums run in row order whatever the block size,
    # so every block size gives the same bits.
    n_features = X_binned.shape[1]
    for block in prange((n_features + features_per_pass - 1) // features_per_pass):
        first = block * features_per_pass
        end = min(first + features_per_pass, n_features)
        # Loops rather than slice assignment: less to compile on a first fit.
        for j in range(first, end):
            for b in range(hist.shape[1]):
                for k in range(N_CHANNELS):
                    hist[j, b, k] = 0.0
        for i in range(rows.shape[0]):
            r = rows[i]
            gr, hr, cr = g[r], h[r], c[r]
            for j in range(first, end):
                b = X_binned[r, j]
                hist[j, b, G] += gr
                hist[j, b, H] += hr
                hist[j, b, C] += cr
                hist[j, b, N] += 1.0


def _scan_histograms(hist, n_bins, is_nominal, allowed, code, n_total, reg_lambda, max_count, out_value, out_op, out_bin):
    # IN: hist (d, B, 4); n_bins (d,) int64; is_nominal (d,) bool;
    #     allowed (d, B, 4) bool: candidates [feature, bin, op] considered;
    #     code int; n_total, reg_lambda float; max_count float: a candidate
    #     must cover fewer rows than this (a strict sub-extent) and at least one.
    # OUT: out_value (d,) float64, out_op (d,) int64, out_bin (d,) int64:
    #     best proposition per feature (op -1 if none).
    n_features = hist.shape[0]
    for j in prange(n_features):
        best, best_op, best_bin = -np.inf, -1, -1
        nb = n_bins[j]
        if is_nominal[j]:
            # The sums of ``x != k``: the bins before k plus the bins after
            # k, added. ``total - bin k`` would cancel when bin k holds
            # nearly all of a statistic (a hessian of 1e-285 beside one of
            # 1e-299 left its complement with no correct digit).
            after = np.zeros((nb + 1, 4))
            for k in range(nb - 1, -1, -1):
                for s in range(4):
                    after[k, s] = after[k + 1, s] + hist[j, k, s]
            bg, bh, bc, bn = 0.0, 0.0, 0.0, 0.0  # the bins before k
            for k in range(nb):
                cg, ch, cc, cn = hist[j, k, G], hist[j, k, H], hist[j, k, C], hist[j, k, N]
                if allowed[j, k, EQ] and 0.0 < cn < max_count:
                    v = _objective(code, cg, ch, cc, n_total, reg_lambda)
                    if v > best:
                        best, best_op, best_bin = v, EQ, k
                rn = bn + after[k + 1, N]
                # With two categories ``x != a`` is ``x == b``: keep the
                # more readable equality only.
                if nb > 2 and allowed[j, k, NE] and 0.0 < rn < max_count:
                    v = _objective(code, bg + after[k + 1, G], bh + after[k + 1, H],
                                   bc + after[k + 1, C], n_total, reg_lambda)
                    if v > best:
                        best, best_op, best_bin = v, NE, k
                bg, bh, bc, bn = bg + cg, bh + ch, bc + cc, bn + cn
        else:
            ag, ah, ac, an = 0.0, 0.0, 0.0, 0.0
            for k in range(nb - 1):
                ag += hist[j, k, G]
                ah += hist[j, k, H]
                ac += hist[j, k, C]
                an += hist[j, k, N]
                if allowed[j, k, LE] and 0.0 < an < max_count:
                    v = _objective(code, ag, ah, ac, n_total, reg_lambda)
                    if v > best:
                        best, best_op, best_bin = v, LE, k
            ag, ah, ac, an = 0.0, 0.0, 0.0, 0.0
            for k in range(nb - 1, 0, -1):
                ag += hist[j, k, G]
                ah += hist[j, k, H]
                ac += hist[j, k, C]
                an += hist[j, k, N]
                if allowed[j, k - 1, GT] and 0.0 < an < max_count:
                    v = _objective(code, ag, ah, ac, n_total, reg_lambda)
                    if v > best:
                        best, best_op, best_bin = v, GT, k - 1
        out_value[j] = best
        out_op[j] = best_op
        out_bin[j] = best_bin


def _satisfies(b, op, bin_index, missing_bin):
    if op == LE:
        return b <= bin_index
    if op == GT:
        return bin_index < b < missing_bin
    if op == EQ:
        return b == bin_index
    return b != bin_index and b != missing_bin


def _inside(b, op, lo, hi, bin_index, missing_bin):
    # _satisfies without branches on the bin (see _bounds): whether a row
    # with bin b satisfies the condition.
    if op == NE:
        return (b != bin_index) & (b != missing_bin)
    return (b >= lo) & (b <= hi)


def _bounds(op, bin_index, missing_bin):
    # The bins [lo, hi] a condition other than NE accepts.
    if op == LE:
        return 0, bin_index
    if op == GT:
        return bin_index + 1, missing_bin - 1
    return bin_index, bin_index


def _filter_rows(X_binned, rows, feature, op, bin_index, missing_bin, out):
    # IN: rows (m,) intp; feature, op, bin_index, missing_bin int
    # OUT: out (m,) intp, its first `count` entries the rows satisfying
    #      the condition (order kept). Returns count.
    # Every row is written and the count advanced by the test's outcome:
    # no branch on the bin, which a balanced split mispredicts half the
    # time (4x faster at 10^6 rows, 1 ms instead of 4).
    count = 0
    column = X_binned[:, feature]
    lo, hi = _bounds(op, bin_index, missing_bin)
    for i in range(rows.shape[0]):
        r = rows[i]
        out[count] = r
        count += _inside(column[r], op, lo, hi, bin_index, missing_bin)
    return count


def _split_rows(X_binned, rows, feature, op, bin_index, missing_bin, kept, removed):
    # IN: as _filter_rows
    # OUT: kept, removed (m,) intp: rows satisfying / not satisfying the
    #      condition, order kept, in their first n_kept / m - n_kept entries.
    #      Returns n_kept. Without branches on the bin, as _filter_rows.
    n_kept, n_removed = 0, 0
    column = X_binned[:, feature]
    lo, hi = _bounds(op, bin_index, missing_bin)
    for i in range(rows.shape[0]):
        r = rows[i]
        inside = _inside(column[r], op, lo, hi, bin_index, missing_bin)
        kept[n_kept] = r
        removed[n_removed] = r
        n_kept += inside
        n_removed += 1 - inside
    return n_kept


def _greedy_cover(X_binned, rows, extent, inside, feature, op, bin_, n_bins, candidates,
                  max_chosen, root_counts, chosen):
    # Greedy set cover for a shorter query of the same extent (Boley et al.
    # 2021, end of Section 3.2).
    # IN: rows (m,) intp, the root rows; extent (e,) intp, the query's rows
    #     (a subset of rows), and inside (n,) bool, True on them; feature,
    #     op, bin_ (P,) the propositions;
    #     candidates (K,) ascending proposition numbers that may be chosen;
    #     max_chosen: stop after that many; root_counts (d, >= max(n_bins)
    #     + 1) int64, the root rows' count per feature and bin, or shape
    #     (0, 0) when not known.
    # OUT: chosen[:k] proposition numbers in the order chosen. Returns k, or
    #      -1 when rows outside the extent remain after max_chosen.
    # Among the candidates implied by the extent, repeatedly take the one
    # that keeps the fewest rows outside the extent (the first on ties).
    # Whether a row satisfies a proposition depends only on its bin, so
    # both questions are answered from per-bin row counts of the features
    # the candidates use: O(rows x features + candidates x bins) per step,
    # not O(rows x candidates) (bench_scale.py: this shortening was two
    # thirds of the greedy learner's fit at 10^5 rows).
    n_features = X_binned.shape[1]
    width = 1
    for f in range(n_features):
        width = max(width, n_bins[f] + 1)
    used = np.zeros(n_features, np.bool_)
    for i in range(candidates.shape[0]):
        used[feature[candidates[i]]] = True
    counts = np.zeros((n_features, width), np.int64)
    for f in range(n_features):
        if used[f]:  # the extent's rows only: often a small part of the root's
            column = X_binned[:, f]
            for r in extent:
                counts[f, column[r]] += 1
    # Implied: no row of the extent is in a bin the proposition excludes.
    # Only the features of implied candidates are counted from here on.
    # Each candidate's count from its feature's prefix sums over the bins
    # (_count_satisfying): O(1) a candidate rather than a pass over its
    # feature's bins (the shortening of a 255-bin table was a fifth of a
    # multi-output fit). The same integers, so the same choices.
    prefix = np.zeros((n_features, width), np.int64)
    _prefix_counts(counts, n_bins, used, prefix)
    implied = np.empty(candidates.shape[0], np.int64)
    n_implied = _implied_candidates(counts, prefix, feature, op, bin_, n_bins, candidates,
                                    extent.shape[0], implied)
    counted = np.zeros(n_features, np.bool_)
    for i in range(n_implied):
        counted[feature[implied[i]]] = True
    # The rows outside the extent are listed only when a step needs them:
    # the first step's counts are the root's minus the extent's when the
    # root's are known (the learner built them), and with max_chosen = 1
    # (two propositions, the default length) no step needs them at all.
    outside = np.empty(0, rows.dtype)
    n_out = rows.shape[0] - extent.shape[0]
    listed = False
    k = 0
    while n_out > 0 and k < max_chosen:
        if k == 0 and root_counts.shape[0] > 0:
            for f in range(n_features):
                if counted[f]:
                    for b in range(n_bins[f] + 1):
                        counts[f, b] = root_counts[f, b] - counts[f, b]
        else:
            if not listed:
                outside, n_out = _outside_rows(rows, inside, X_binned, feature, op, bin_, n_bins,
                                               chosen, k)
                listed = True
            for f in range(n_features):  # per-bin counts of the rows still outside
                if counted[f]:
                    column = X_binned[:, f]
                    for b in range(width):
                        counts[f, b] = 0
                    for j in range(n_out):
                        counts[f, column[outside[j]]] += 1
        _prefix_counts(counts, n_bins, counted, prefix)
        best, best_count = _fewest_outside(implied, n_implied, counts, prefix, feature, op,
                                           bin_, n_bins, n_out)
        if best < 0:
            break
        chosen[k] = best
        k += 1
        if listed:
            n_out = filter_rows(X_binned, outside[:n_out], feature[best], op[best], bin_[best],
                                n_bins[feature[best]], outside)
        else:
            n_out = best_count  # the outside rows that satisfy it; listed when needed
    return k if n_out == 0 else -1


def _implied_candidates(counts, prefix, feature, op, bin_, n_bins, candidates, n_extent, out):
    # The candidates implied by an extent (their proposition holds on each
    # of its n_extent rows, counted per bin in counts, prefix from
    # _prefix_counts) that a step of _greedy_cover may choose, ascending,
    # into out; returns their number.
    # A step takes the first implied candidate with the fewest rows still
    # outside. When every proposition is a candidate (the estimators'
    # default), a numeric column's implied ``x <= k`` are those with k at
    # least the extent's highest bin, and the first of them, k = that bin,
    # keeps the fewest rows of any set of rows (its bins are a subset of
    # the others'); likewise ``x > lo - 1`` among the implied ``x > k``,
    # which come in decreasing k. So only these two are listed for a
    # numeric column (all of a nominal one's), and every step chooses as
    # among all candidates: O(columns x bins) rather than a count per
    # proposition (atp7d: 156,000 of them, most of a 10-rule fit's
    # shortening).
    if candidates.shape[0] < feature.shape[0]:
        n = 0
        for i in range(candidates.shape[0]):
            p = candidates[i]
            f = feature[p]
            if _count_satisfying(counts, prefix, f, op[p], bin_[p], n_bins[f]) == n_extent:
                out[n] = p
                n += 1
        return n
    # Every proposition, numbered as _PropositionSpace does: per column its
    # x <= k (k ascending) then x > k (k descending), or its x == k and
    # (more than two categories) x != k in turn.
    n, start = 0, 0
    for f in range(n_bins.shape[0]):
        if start >= feature.shape[0] or feature[start] != f:
            continue  # no propositions: a numeric column of one bin
        nb = n_bins[f]
        if op[start] == LE or op[start] == GT:
            if counts[f, nb] == 0:  # no missing value in the extent
                # The extent's lowest and highest bins; an empty extent
                # implies every proposition, and x <= 0, x > nb - 2 come first.
                lo, hi = nb, -1
                for b in range(nb):
                    if counts[f, b] > 0:
                        lo, hi = min(lo, b), b
                if hi <= nb - 2:
                    out[n] = start + max(hi, 0)  # x <= hi
                    n += 1
                if lo >= 1:
                    out[n] = start + 2 * nb - 3 - min(lo - 1, nb - 2)  # x > lo - 1
                    n += 1
            start += 2 * (nb - 1)
        else:
            size = 2 * nb if nb > 2 else nb
            for p in range(start, start + size):
                if _count_satisfying(counts, prefix, f, op[p], bin_[p], nb) == n_extent:
                    out[n] = p
                    n += 1
            start += size
    return n


def _fewest_outside(implied, n_implied, counts, prefix, feature, op, bin_, n_bins, n_out):
    # A step of the greedy cover: the first of implied[:n_implied] whose
    # proposition the fewest of the n_out rows still outside satisfy (their
    # per-bin counts and prefix sums in counts, prefix): (proposition, that
    # number), (-1, n_out + 1) if none.
    best, best_count = -1, n_out + 1
    for i in range(n_implied):
        p = implied[i]
        f = feature[p]
        count = _count_satisfying(counts, prefix, f, op[p], bin_[p], n_bins[f])
        if count < best_count:
            best, best_count = p, count
    return best, best_count


def _prefix_counts(counts, n_bins, features, prefix):
    # IN: counts (d, W) int64 per-bin counts; features (d,) bool: which to do
    # OUT: prefix[f, b] = counts[f, 0] + ... + counts[f, b], b <= n_bins[f]
    #      (the missing bin last), for the features marked.
    for f in range(counts.shape[0]):
        if features[f]:
            total = 0
            for b in range(n_bins[f] + 1):
                total += counts[f, b]
                prefix[f, b] = total


def _count_satisfying(counts, prefix, f, op, bin_index, missing_bin):
    # The rows counted in counts[f] (prefix from _prefix_counts) whose bin
    # satisfies (op, bin_index): the sum of counts[f, b] over the bins b
    # where _satisfies holds, from two prefix sums.
    k = min(bin_index, missing_bin)
    return _satisfying(op, bin_index, missing_bin, prefix[f, k], counts[f, k],
                       prefix[f, missing_bin] - counts[f, missing_bin])


def _satisfying(op, bin_index, missing_bin, below, at, present):
    # _count_satisfying on scalars (a helper without array arguments: no
    # reference counting per call, 10x faster in the candidates' loop):
    # below, at: the rows in bins 0..k and in bin k, k = min(bin_index,
    # missing_bin); present: the rows not in the missing bin.
    if op == LE:
        return below
    if op == GT:
        return present - below if bin_index < missing_bin else 0
    if op == EQ:
        return at if bin_index <= missing_bin else 0
    return present - (at if bin_index < missing_bin else 0)


def _outside_rows(rows, inside, X_binned, feature, op, bin_, n_bins, chosen, k):
    # The root rows outside the extent that satisfy chosen[:k]; returns
    # (array, count).
    outside = np.empty(rows.shape[0], rows.dtype)
    n_out = 0
    for r in rows:
        if not inside[r]:
            keep = True
            for i in range(k):
                p = chosen[i]
                if not _satisfies(X_binned[r, feature[p]], op[p], bin_[p], n_bins[feature[p]]):
                    keep = False
                    break
            if keep:
                outside[n_out] = r
                n_out += 1
    return outside, n_out


def _redundant(X_binned, rows, feature, op, bin_, n_bins, props, count, keep):
    # IN: rows (m,) intp, the root rows; props (L,) proposition numbers of a
    #     query whose extent has ``count`` rows.
    # OUT: keep (L,) bool: False for each proposition, last first, whose
    #      removal from the propositions still kept leaves ``count`` rows
    #      (the rest contains the extent, hence equals it).
    for i in range(keep.shape[0]):
        keep[i] = True
    for i in range(props.shape[0] - 1, -1, -1):
        n = 0
        for r in rows:
            holds = True
            for j in range(props.shape[0]):
                if j != i and keep[j]:
                    p = props[j]
                    if not _satisfies(X_binned[r, feature[p]], op[p], bin_[p], n_bins[feature[p]]):
                        holds = False
                        break
            n += holds
        if n == count:
            keep[i] = False


build_histograms_serial = jit(_build_histograms)
build_histograms_parallel = jit_parallel(_build_histograms)
scan_histograms_serial = jit(_scan_histograms)
scan_histograms_parallel = jit_parallel(_scan_histograms)
_satisfies = jit_helper(_satisfies)
_inside = jit_helper(_inside)
_bounds = jit_helper(_bounds)
filter_rows = jit(_filter_rows)
split_rows = jit(_split_rows)
_outside_rows = jit_helper(_outside_rows)
_prefix_counts = jit_helper(_prefix_counts)
_implied_candidates = jit_helper(_implied_candidates)
_fewest_outside = jit_helper(_fewest_outside)
_satisfying = jit_helper(_satisfying)
_count_satisfying = jit_inline(_count_satisfying)
greedy_cover = jit(_greedy_cover)
redundant = jit(_redundant)
