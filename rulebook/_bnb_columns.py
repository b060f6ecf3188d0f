"""The last condition of a length-limited query, solved per column.

Under ``max_rule_length`` a node with one condition left has its children
on new columns solved column by column from the node's sums per bin: the
best interval (convex hull of prefix sums) or category set (ratio
prefixes), exactly. Part of :mod:`rulebook._bnb_kernels`.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (Theorem 3.1).
"""

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ._bnb_layout import (
    BEST_PROP,
    BEST_RECORD,
    BEST_VALUE,
    COLUMNS_SOLVED,
)
from ._bnb_subtrees import _ratio_key, _sort_by_key
from ._config import jit
from ._search_kernels import EQ, GT, LE
from .objectives import _objective


@jit
def _solve_columns(ext, Xp, n_bins, pf, pop, pb, gp, hp, cp, code, n_total, reg_lambda, alpha,
                   aug_a, aug_b, col_entries, n_entries, col_sums, col_keys, col_order,
                   col_hull, q, istate, fstate, counters, shared, best_extra):
    # The last condition under a length limit, solved column by column.
    # Node q has one condition left; the list entries col_entries[0..n)
    # (positions in aug_a, in list order) are its propositions on columns
    # q does not constrain, each column's entries contiguous (the caller
    # orders propositions by column under a limit). A child q p_a on such a
    # column f reaches the limit: its subtree only adds later propositions
    # on f. So every query of those subtrees is q plus one condition on f
    # built from f's entries: an interval of bins (one ``>`` and one ``<=``
    # entry, or one of them) for a numeric column, one category or all
    # categories but a set S of ``!=`` entries for a nominal one. Each
    # column's best condition is found exactly from the sums of q's rows
    # per bin (``_best_interval``, ``_best_category_set``) instead of
    # pushing the children. An improvement becomes the best query (record
    # q, BEST_PROP and best_extra). Returns whether the best value rose.
    improved = False
    lo = 0
    while lo < n_entries:
        f = pf[aug_a[col_entries[lo]]]
        hi = lo + 1
        while hi < n_entries and pf[aug_a[col_entries[hi]]] == f:
            hi += 1
        nb = n_bins[f]
        _column_sums(ext, Xp, f, nb, gp, hp, cp, col_sums)
        best = max(fstate[BEST_VALUE], shared[0])
        if pop[aug_a[col_entries[lo]]] == LE or pop[aug_a[col_entries[lo]]] == GT:
            value, first, second = _best_interval(col_sums, nb, pop, pb, aug_a, aug_b,
                                                  col_entries, lo, hi, code, n_total,
                                                  reg_lambda, alpha, best, col_hull)
            n_set = 0
        else:
            value, first, n_set = _best_category_set(col_sums, nb, pop, pb, aug_a, col_entries,
                                                     lo, hi, code, n_total, reg_lambda,
                                                     col_keys, col_order)
            second = -1
        counters[COLUMNS_SOLVED] += 1
        if value > best:
            fstate[BEST_VALUE] = value
            if value > shared[0]:
                shared[0] = value
            istate[BEST_RECORD], istate[BEST_PROP] = q, first
            best_extra[0] = 0
            if second >= 0:
                best_extra[0] = 1
                best_extra[1] = second
            for i in range(1, n_set):  # a category set: its other != entries
                best_extra[0] += 1
                best_extra[best_extra[0]] = col_order[i]
            improved = True
        lo = hi
    return improved


@jit
def _column_sums(ext, Xp, f, nb, gp, hp, cp, sums):
    # OUT sums[0..2, b] for b < nb: the sums of g, h, c over the rows of
    # ext in non-missing bin b of feature f.
    for b in range(nb):
        sums[0, b] = sums[1, b] = sums[2, b] = 0.0
    for w in range(ext.shape[0]):
        word = ext[w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - np.uint64(1)
            b = Xp[r, f]
            if b < nb:
                sums[0, b] += gp[r]
                sums[1, b] += hp[r]
                sums[2, b] += cp[r]


@jit
def _best_interval(sums, nb, pop, pb, aug_a, aug_b, col_entries, lo, hi, code, n_total,
                   reg_lambda, alpha, best, hull):
    # The best interval of a numeric column from entries lo..hi-1: ``x <= t``
    # (bins 0..t), ``x > s`` (bins s+1..nb-1) or both (s < t). sums[:, b]
    # become prefix sums. An entry's list bound (of the parent's query and
    # it) bounds every interval using it: entries of bound <= best / alpha
    # are left out of the pairs. Returns (value, proposition, second
    # proposition or -1) of the best interval evaluated (-inf, -1, -1 if
    # none). SCRATCH hull (4, nb) int64.
    #
    # Pairs in O(entries x hull size), not O(entries^2): the objective of
    # (s, t] is f_t(X_s, G_s) with X the prefix sums of h (c for code 1, any
    # increasing sum for code 0) and f_t(x, y) = (G_t - y)^2 / (X_t - x +
    # lambda) (or |G_t - y|), a convex function of (x, y) (quadratic over
    # linear), closed at x = X_t by its limit 0. Its maximum over the
    # points of the ``>`` entries s < t is at a vertex of their convex hull,
    # kept as upper and lower chains while t grows (Andrew's monotone
    # chain; X_s is non-decreasing in s). Collinear points stay in the
    # chains, which only adds candidates.
    for b in range(1, nb):
        for i in range(3):
            sums[i, b] += sums[i, b - 1]
    top = nb - 1
    xrow = 1 if code == 2 else 2
    value, first, second = -np.inf, -1, -1
    for i in range(lo, hi):
        a = aug_a[col_entries[i]]
        if pop[a] == LE:
            t = pb[a]
            v = _objective(code, sums[0, t], sums[1, t], sums[2, t], n_total, reg_lambda)
        else:
            s = pb[a]
            v = _objective(code, sums[0, top] - sums[0, s], sums[1, top] - sums[1, s],
                           sums[2, top] - sums[2, s], n_total, reg_lambda)
        if v > value:
            value, first, second = v, a, -1
    # The entries in list order: ``<=`` by ascending t, then ``>`` by
    # descending s (``_PropositionSpace`` order), so the ``>`` entries are
    # added from the end (ascending s) as t grows.
    g_end = lo
    while g_end < hi and pop[aug_a[col_entries[g_end]]] == LE:
        g_end += 1
    g = hi - 1
    n_up, n_low = 0, 0
    for i in range(lo, g_end):
        if alpha * aug_b[col_entries[i]] <= best:
            continue
        a = aug_a[col_entries[i]]
        t = pb[a]
        while g >= g_end and pb[aug_a[col_entries[g]]] < t:
            if alpha * aug_b[col_entries[g]] > best:
                n_up = _hull_add(hull, 0, n_up, pb[aug_a[col_entries[g]]], g, sums, xrow, 1.0)
                n_low = _hull_add(hull, 1, n_low, pb[aug_a[col_entries[g]]], g, sums, xrow,
                                  -1.0)
            g -= 1
        for side in range(2):
            for j in range(n_up if side == 0 else n_low):
                s = hull[2 + side, j]
                v = _objective(code, sums[0, t] - sums[0, s], sums[1, t] - sums[1, s],
                               sums[2, t] - sums[2, s], n_total, reg_lambda)
                if v > value:
                    value, first, second = v, aug_a[col_entries[hull[side, j]]], a
    return value, first, second


@jit
def _hull_add(hull, side, n, s, entry, sums, xrow, sign):
    # Add the point of bin s (x = sums[xrow, s], y = sign * sums[0, s]),
    # of list entry ``entry``, to the upper chain (side 0, sign 1) or the
    # lower chain (side 1, sign -1) of points of non-decreasing x: hull[side]
    # the entries, hull[2 + side] their bins, n long. Returns the new
    # length. A point at the x of the last one replaces it if higher, else
    # is left out; a point is removed only when strictly below the segment
    # of its neighbours.
    x, y = sums[xrow, s], sign * sums[0, s]
    if n > 0:
        last = hull[2 + side, n - 1]
        if sums[xrow, last] == x:
            if sign * sums[0, last] >= y:
                return n
            n -= 1
    while n >= 2:
        o, a = hull[2 + side, n - 2], hull[2 + side, n - 1]
        ox, oy = sums[xrow, o], sign * sums[0, o]
        ax, ay = sums[xrow, a], sign * sums[0, a]
        if (ax - ox) * (y - oy) - (ay - oy) * (x - ox) > 0.0:
            n -= 1
        else:
            break
    hull[side, n] = entry
    hull[2 + side, n] = s
    return n + 1


@jit
def _best_category_set(sums, nb, pop, pb, aug_a, col_entries, lo, hi, code, n_total,
                       reg_lambda, keys, order):
    # The best condition of a nominal column from entries lo..hi-1: one
    # category (an ``==`` entry) or every non-missing category but a
    # nonempty set S of categories with ``!=`` entries. With the others
    # always in (base), the best kept set T of the N ``!=`` categories
    # (S = N - T, T != N) is, for the objective's weight w at the optimum,
    # the categories of positive gain 2 w g - w^2 h (Fenchel form of
    # G^2 / (H + lambda)): a prefix of N sorted by g / h (descending for
    # w > 0, ascending for w < 0), unless that is all of N, when the best
    # proper set drops the category of least gain: so the prefixes of
    # length 0..N-1 in both orders and the N sets "all but one" hold the
    # optimum (Theorem 3.1 of [1] with a fixed part). Returns (value, first
    # proposition, size of S); for a set, S's propositions are
    # order[0..size) and first is order[0].
    tg, th, tc = 0.0, 0.0, 0.0
    for b in range(nb):
        tg += sums[0, b]
        th += sums[1, b]
        tc += sums[2, b]
    value, first, n_set = -np.inf, -1, 0
    n = 0
    ng, nh, nc = 0.0, 0.0, 0.0
    for i in range(lo, hi):
        a = aug_a[col_entries[i]]
        k = pb[a]
        if pop[a] == EQ:
            v = _objective(code, sums[0, k], sums[1, k], sums[2, k], n_total, reg_lambda)
            if v > value:
                value, first, n_set = v, a, 0
        else:
            order[n] = a
            keys[n] = _ratio_key(sums[0, k], sums[2, k] if code == 1 else
                                 (1.0 if code == 0 else sums[1, k]))
            ng += sums[0, k]
            nh += sums[1, k]
            nc += sums[2, k]
            n += 1
    if n == 0:
        return value, first, n_set
    bg, bh, bc = tg - ng, th - nh, tc - nc  # the categories always kept
    _sort_by_key(order, keys, n)  # ascending key
    best_kind, best_len, best_drop = -1, 0, -1
    for direction in range(2):
        g, h, c = bg, bh, bc
        for j in range(n):  # T = the first j of the order (S the rest)
            v = _objective(code, g, h, c, n_total, reg_lambda)
            if v > value:
                value, best_kind, best_len = v, direction, j
            k = pb[order[j] if direction == 0 else order[n - 1 - j]]
            g += sums[0, k]
            h += sums[1, k]
            c += sums[2, k]
    for j in range(n):  # all but one
        k = pb[order[j]]
        v = _objective(code, bg + ng - sums[0, k], bh + nh - sums[1, k], bc + nc - sums[2, k],
                       n_total, reg_lambda)
        if v > value:
            value, best_kind, best_drop = v, 2, j
    if best_kind < 0:
        return value, first, n_set
    # Move S's propositions to the front of order.
    if best_kind == 2:
        order[0], order[best_drop] = order[best_drop], order[0]
        n_set = 1
    elif best_kind == 0:  # T the first best_len ascending: S the rest
        for j in range(n - best_len):
            order[j] = order[best_len + j]
        n_set = n - best_len
    else:  # T the last best_len: S the first n - best_len
        n_set = n - best_len
    return value, order[0], n_set
