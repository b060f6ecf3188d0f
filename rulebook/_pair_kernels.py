"""Numba kernels of the two-condition search (:mod:`rulebook.pair_search`).

A query of at most two conditions is one condition on a column (an
interval of bins of a numeric column, a set of categories of a nominal
one) or two on a pair of columns. Both are solved on sums per bin:

* the best condition on one column, from the sums of its bins
  (``best_interval``: convex hull of prefix sums; ``best_set``: ratio
  prefixes), exactly;
* the best pair of conditions on columns ``(c, f)``, from the sums per cell
  ``(bin of c, bin of f)`` (``pair_grid``), by branch and bound over
  *ranges* of conditions on ``c`` (``search_pair``), each range bounded by
  the best condition on ``f`` over optimistic sums, and each single
  condition on ``c`` solved exactly on ``f``.

Objective: the second-order objective ``G^2 / (2 n (lambda + H))`` with
``lambda > 0`` (``rulebook.objectives``, code 2). Sums are float64; sums of
integer-valued statistics are exact.

References
----------
.. [1] Mazumder, R., Meng, X., Wang, H. (2022). Quant-BnB: a scalable
   branch-and-bound method for optimal decision trees with continuous
   features. ICML. (Branching over ranges of thresholds.)
.. [2] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1, Theorem 3.1 (ratio order).
"""

import numpy as np

from ._bnb_subtrees import _sort_by_key
from ._config import jit, jit_helper

# Why ``search_pair`` returned.
DONE, BATCH = 0, 1
# Slots of ``state`` (int64) and ``best`` (float64) arrays.
TOP, NODES, LEAVES, PRUNED, PRUNED_OPEN, PUSHED, N_STATE = range(7)
# Stack columns: numeric c (s0, s1, t0, t1); nominal c (next position,
# mask of positions in, -, -).
STACK_WIDTH = 4


@jit_helper
def _value(G, H, n2, lam):
    return G * G / (n2 * (lam + H))


@jit
def best_interval(G, H, nb, n2, lam, hull, prefix, stop=np.inf):
    """Best interval of bins ``lo..hi`` (not all ``nb`` bins) by the
    second-order objective of its sums.

    ``G[b], H[b]`` are the sums of bin ``b``; ``H >= 0``. The value of bins
    ``s+1..t`` is ``f_t(PH_s, PG_s)`` with ``PG, PH`` the prefix sums and
    ``f_t(x, y) = (PG_t - y)^2 / (n2 (lam + PH_t - x))``, convex in
    ``(x, y)``: for each ``t`` its maximum over ``s < t`` is at a vertex of
    the convex hull of the prefix points, kept as upper and lower chains
    (Andrew's monotone chain; ``PH`` is non-decreasing). ``t = nb - 1``
    scans every ``s >= 0`` (``s = -1`` would be all bins).
    SCRATCH hull (2, nb + 1) int64, prefix (2, nb + 1).

    Returns (value, lo, hi); (0.0, -1, -1) when ``nb < 2``; as soon as a
    value exceeds ``stop``, that one (a branch and bound only needs to know
    that its bound is not below the best value).
    """
    if nb < 2:
        return 0.0, -1, -1
    best, raw, lo, hi = -1.0, -1.0, -1, -1
    _prefix_sums(G, H, nb, prefix)
    n_up, n_low = 0, 0
    for t in range(nb - 1):
        # Prefix point p = t: bins 0..t-1 (s = t - 1).
        n_up = _hull_add(hull, 0, n_up, t, prefix, 1.0)
        n_low = _hull_add(hull, 1, n_low, t, prefix, -1.0)
        best, raw, lo, hi = _ending_at(t, hull, n_up, n_low, prefix, n2, lam, 0.0, stop, best,
                                       raw, lo, hi)
        if best > stop:
            return best, lo, hi
    best, raw, lo, hi = _above(nb, prefix, n2, lam, stop, best, raw, lo, hi)
    return best, lo, hi


@jit_helper
def _prefix_sums(G, H, nb, prefix):
    # OUT prefix[:, :nb + 1]: PG and PH, from 0.
    prefix[0, 0] = 0.0
    prefix[1, 0] = 0.0
    for b in range(nb):
        prefix[0, b + 1] = prefix[0, b] + G[b]
        prefix[1, b + 1] = prefix[1, b] + H[b]


@jit_helper
def _ending_at(t, hull, n_up, n_low, prefix, n2, lam, extra, stop, best, raw, lo, hi):
    # The intervals p..t of the hull's points p, each at its value less
    # extra: (best, raw, lo, hi) raised by any that beats best, returned as
    # soon as best exceeds stop.
    for side in range(2):
        for j in range(n_up if side == 0 else n_low):
            p = hull[side, j]
            v = _value(prefix[0, t + 1] - prefix[0, p], prefix[1, t + 1] - prefix[1, p], n2,
                       lam)
            if v - extra > best:
                best, raw, lo, hi = v - extra, v, p, t
                if best > stop:
                    return best, raw, lo, hi
    return best, raw, lo, hi


@jit_helper
def _above(nb, prefix, n2, lam, stop, best, raw, lo, hi):
    # The intervals p..nb-1 (``x > p - 1``, one threshold) for p >= 1, as
    # _ending_at.
    t = nb - 1
    for p in range(1, nb):
        v = _value(prefix[0, t + 1] - prefix[0, p], prefix[1, t + 1] - prefix[1, p], n2, lam)
        if v > best:
            best, raw, lo, hi = v, v, p, t
            if best > stop:
                return best, raw, lo, hi
    return best, raw, lo, hi


@jit
def best_priced_interval(G, H, nb, n2, lam, extra, hull, prefix, stop=np.inf):
    """Best interval of bins by its value less ``extra`` if it has two
    thresholds (``lo > 0`` and ``hi < nb - 1``: ``a < x <= b``).

    As ``best_interval`` (same arguments, SCRATCH and early stop on the
    penalised value), with the prefix point 0 (``x <= t``, one threshold)
    evaluated apart and the hull kept over the points ``1..t`` of the
    two-threshold intervals ending at ``t``: the maximum of the convex
    ``f_t`` over those points is at a vertex of their own hull, which the
    point 0 could otherwise hide. ``t = nb - 1`` (``x > t``) is one
    threshold. ``extra == 0`` is ``best_interval`` itself.

    Returns (penalised value, value, lo, hi); (0.0, 0.0, -1, -1) when
    ``nb < 2``.
    """
    if extra == 0.0:
        v, lo, hi = best_interval(G, H, nb, n2, lam, hull, prefix, stop)
        return v, v, lo, hi
    if nb < 2:
        return 0.0, 0.0, -1, -1
    best, raw, lo, hi = -np.inf, -1.0, -1, -1
    _prefix_sums(G, H, nb, prefix)
    n_up, n_low = 0, 0
    for t in range(nb - 1):
        v = _value(prefix[0, t + 1], prefix[1, t + 1], n2, lam)
        if v > best:
            best, raw, lo, hi = v, v, 0, t
            if best > stop:
                return best, raw, lo, hi
        if t == 0:
            continue
        n_up = _hull_add(hull, 0, n_up, t, prefix, 1.0)
        n_low = _hull_add(hull, 1, n_low, t, prefix, -1.0)
        best, raw, lo, hi = _ending_at(t, hull, n_up, n_low, prefix, n2, lam, extra, stop, best,
                                       raw, lo, hi)
        if best > stop:
            return best, raw, lo, hi
    return _above(nb, prefix, n2, lam, stop, best, raw, lo, hi)


@jit_helper
def _hull_add(hull, side, n, p, prefix, sign):
    # Add prefix point p (x = prefix[1, p], y = sign * prefix[0, p]) to the
    # upper chain (side 0, sign 1) or lower chain (side 1, sign -1) hull[side,
    # :n] of points of non-decreasing x; returns the new length. A point at
    # the x of the last one replaces it if higher, else is left out; a point
    # is removed only when strictly below the segment of its neighbours
    # (collinear ones stay: more candidates, never fewer).
    x, y = prefix[1, p], sign * prefix[0, p]
    if n > 0:
        last = hull[side, n - 1]
        if prefix[1, last] == x:
            if sign * prefix[0, last] >= y:
                return n
            n -= 1
    while n >= 2:
        o, a = hull[side, n - 2], hull[side, n - 1]
        ox, oy = prefix[1, o], sign * prefix[0, o]
        ax, ay = prefix[1, a], sign * prefix[0, a]
        if (ax - ox) * (y - oy) - (ay - oy) * (x - ox) > 0.0:
            n -= 1
        else:
            break
    hull[side, n] = p
    return n + 1


@jit
def best_set(G, H, nb, n2, lam, keys, order, stop=np.inf):
    """Best set of categories a nominal column's conditions can express.

    Expressible: one category (``== k``), or all but a nonempty set
    (``not in S``, columns of more than two categories); so every nonempty
    proper subset, and all of them when ``nb == 1`` (``== 0``). For the
    optimum's weight ``w`` the best set holds the categories of positive
    gain ``2 w G_k - w^2 H_k``, a prefix of the order by ``G_k / H_k``
    (descending for ``w > 0``, ascending for ``w < 0``; Theorem 3.1 of
    [2]); when that is every category, the best proper set drops the one
    of least gain. So the prefixes of length 1..nb-1 in both orders and the
    ``nb`` sets "all but one" hold the optimum. SCRATCH keys (nb,),
    order (nb,) int64.

    Returns (value, kind, size): kind 0 the first ``size`` of ``order``
    (ascending key = descending ratio), 1 its last ``size``, 2 all but
    ``order[size]``; (0.0, -1, 0) when ``nb == 0``; as soon as a value
    exceeds ``stop``, that one.
    """
    if nb == 0:
        return 0.0, -1, 0
    if nb == 1:
        order[0] = 0
        return _value(G[0], H[0], n2, lam), 0, 1
    tg, th = 0.0, 0.0
    for k in range(nb):
        order[k] = k
        keys[k] = -G[k] / H[k] if H[k] > 0.0 else (
            -np.inf if G[k] > 0.0 else (np.inf if G[k] < 0.0 else 0.0))
        tg += G[k]
        th += H[k]
    _sort_by_key(order, keys, nb)
    best, kind, size = -1.0, -1, 0
    for direction in range(2):
        g, h = 0.0, 0.0
        for j in range(nb - 1):
            k = order[j] if direction == 0 else order[nb - 1 - j]
            g += G[k]
            h += H[k]
            v = _value(g, h, n2, lam)
            if v > best:
                best, kind, size = v, direction, j + 1
                if best > stop:
                    return best, kind, size
    for j in range(nb):
        k = order[j]
        v = _value(tg - G[k], th - H[k], n2, lam)
        if v > best:
            best, kind, size = v, 2, j
            if best > stop:
                return best, kind, size
    return best, kind, size


@jit
def set_members(kind, size, order, nb, out):
    """OUT out[:nb] (bool): the categories of ``best_set``'s answer."""
    for k in range(nb):
        out[k] = kind == 2
    if kind == 2:
        out[order[size]] = False
    for j in range(size if kind != 2 else 0):
        out[order[j] if kind == 0 else order[nb - 1 - j]] = True


@jit
def column_sums(x, g, h, nb, out):
    """OUT out (2, nb): sums of g and h per non-missing bin of column x."""
    for b in range(nb):
        out[0, b] = 0.0
        out[1, b] = 0.0
    for r in range(x.shape[0]):
        b = x[r]
        if b < nb:
            out[0, b] += g[r]
            out[1, b] += h[r]


@jit
def pair_grid(xc, xf, position, Bc, Bf, g, h, cum, ratio_max):
    """OUT cum (4, Bc + 1, Bf): sums over the cells of the rows with both
    columns non-missing, cumulative over the positions of c's bins
    (``position[bin]``): cum[k, p, b] sums the cells of positions < p and
    bin b of f, for k = 0 g, 1 h, 2 the positive part of each cell's g,
    3 its negative part. OUT ratio_max (2, Bc): per position of c, the
    largest ``g / h`` of its cells of positive g (row 0) and ``-g / h`` of
    those of negative g (row 1); ``inf`` for such a cell with ``h == 0``,
    0 when there is none."""
    for k in range(4):
        for p in range(Bc + 1):
            for b in range(Bf):
                cum[k, p, b] = 0.0
    for r in range(xc.shape[0]):
        a, b = xc[r], xf[r]
        if a < Bc and b < Bf:
            p = position[a] + 1
            cum[0, p, b] += g[r]
            cum[1, p, b] += h[r]
    for p in range(1, Bc + 1):
        ratio_max[0, p - 1] = 0.0
        ratio_max[1, p - 1] = 0.0
        for b in range(Bf):
            cell, cell_h = cum[0, p, b], cum[1, p, b]
            if cell != 0.0:
                ratio = abs(cell) / cell_h if cell_h > 0.0 else np.inf
                side = 0 if cell > 0.0 else 1
                ratio_max[side, p - 1] = max(ratio_max[side, p - 1], ratio)
    for p in range(1, Bc + 1):
        for b in range(Bf):
            cell = cum[0, p, b]
            cum[2, p, b] = cum[2, p - 1, b] + max(cell, 0.0)
            cum[3, p, b] = cum[3, p - 1, b] + min(cell, 0.0)
            cum[0, p, b] += cum[0, p - 1, b]
            cum[1, p, b] += cum[1, p - 1, b]


@jit_helper
def _solve_f(G, H, Bf, f_nominal, n2, lam, extra, hull, prefix, keys, order, stop):
    # Best condition on f for per-bin sums G, H: (penalised value, value, a,
    # b) with (a, b) = (lo, hi) bins of an interval (less ``extra`` if it
    # has two thresholds), or (kind, size) of ``best_set``; returns early
    # once above stop.
    if f_nominal:
        v, kind, size = best_set(G, H, Bf, n2, lam, keys, order, stop)
        return v, v, kind, size
    return best_priced_interval(G, H, Bf, n2, lam, extra, hull, prefix, stop)


@jit
def search_pair(cum, ratio_max, Bc, Bf, c_nominal, f_nominal, n2, lam, extra, stack, bounds,
                state, best, shared, budget, in_c, in_f, work, hull, prefix, keys, order):
    """Branch and bound over the conditions on c, each solved on f.

    A node is a range of conditions on c: for numeric c the intervals of
    positions ``s+1..t`` with ``s0 <= s <= s1``, ``t0 <= t <= t1``; for
    nominal c the sets of positions that hold the positions set in
    ``mask`` among those below ``next``, and any of those from ``next`` on.
    Every condition of a node contains its *inner* rows (positions
    s1+1..t0; the mask) and lies in its *outer* ones (s0+1..t1; the mask
    and every position from next). For a bin of f let ``A`` be the inner
    sums and ``P``, ``N`` the sums of the positive and negative parts of
    the cells between inner and outer. Any condition of the node, with any
    condition ``J`` on f, has ``G`` between ``A_G(J) + N(J)`` and
    ``A_G(J) + P(J)`` and ``H >= A_H(J)``, so its value is at most the best
    condition on f for the sums ``(A_G + P, A_H)`` or ``(A_G + N, A_H)``.
    Tighter, as the cells between bring their h: a cell of g > 0 has
    ``h >= g / r`` with ``r`` the largest such ratio between inner and
    outer (``ratio_max``), so a condition taking ``X`` of ``P`` has
    ``H >= A_H + X / r``; ``(A_G + X)^2 / (lam + A_H + X / r)`` is convex
    in ``X``, so its largest is at ``X = 0`` or ``X = P``: the bound is
    the best condition on f for ``(A_G + P, A_H + P / r)``, ``(A_G + N,
    A_H - N / r')`` or ``(A_G, A_H)``: the node's bound, exact once inner = outer (a single condition,
    solved exactly on f). With ``extra > 0`` a pair's value is less
    ``extra`` per numeric interval with two thresholds (``a < x <= b``),
    on c or on f: the bound takes off ``extra`` for c when no condition
    of the node has one threshold, and f's best condition is solved with
    its price (``best_priced_interval``). Nodes whose bound is at most
    ``best[0]`` are pruned, the others split in two (the wider range halved; the next
    category in or out). Depth first from ``stack[:state[TOP]]``, at most
    ``budget`` nodes per call.

    IN/OUT: stack (S, 4) int64 and bounds (S,) (a node's parent bound, for
    the anytime upper bound), state, best[0] (this thread's best penalised
    value, raised on improvement; then in_c[:Bc] holds the positions of c
    and in_f[:Bf] the bins of f of the best pair, best[1] = 1.0 and best[2]
    its value without the price),
    shared[0] (the best value of all threads, read at every node and
    raised on improvement: a lost update between threads only weakens
    pruning). SCRATCH: work (6, Bf), hull (2, Bf + 1) int64, prefix
    (2, Bf + 1), keys (Bf,), order (Bf,) int64.

    Returns DONE (stack empty) or BATCH (budget spent).
    """
    expanded = 0
    while state[TOP] > 0:
        if expanded >= budget:
            return BATCH
        expanded += 1
        state[TOP] -= 1
        top = state[TOP]
        a0, a1, b0, b1 = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        threshold = max(best[0], shared[0])
        if bounds[top] <= threshold:
            state[PRUNED_OPEN] += 1  # the best value rose to its bound since
            continue
        state[NODES] += 1
        if _node_sums(cum, Bc, Bf, c_nominal, a0, a1, b0, b1, work):
            if _expressible(c_nominal, Bc, a0, a1, b0, b1):
                state[LEAVES] += 1
                v, raw, x, y = _solve_f(work[0], work[1], Bf, f_nominal, n2, lam, extra, hull,
                                        prefix, keys, order, np.inf)
                v -= extra * _c_price(c_nominal, Bc, a0, a1, b0, b1)
                if v > threshold:
                    best[0] = v
                    best[1] = 1.0
                    best[2] = raw
                    if v > shared[0]:
                        shared[0] = v
                    _members_c(c_nominal, Bc, a0, a1, b0, b1, in_c)
                    _members_f(f_nominal, Bf, x, y, order, in_f)
            continue
        # Each side's solve stops once above the best value: the node is
        # then not pruned, and its halves keep the bound inherited
        # (admissible, looser). A pair's root (no bound yet) is bounded in
        # full, which bounds the pair while it is searched.
        upper = -np.inf
        inherited = bounds[top]
        # The node's least price on c: none while it holds a one-sided
        # condition (s = -1 or t = Bc - 1).
        c_price = extra * _c_price(c_nominal, Bc, a0, a0, b1, b1)
        stop = threshold + c_price if inherited < np.inf else np.inf
        # Without inner rows (nominal: none in; numeric: s1 >= t0) A_G alone
        # is 0, which the other two sides' values already reach.
        sides = 2 if ((a1 == 0) if c_nominal else (a1 >= b0)) else 3
        for side in range(sides):  # A_G + P, then A_G + N, then A_G alone
            if side < 2:
                r = _free_ratio(c_nominal, Bc, a0, a1, b0, b1, ratio_max, side)
                for b in range(Bf):
                    work[4, b] = work[0, b] + work[2 + side, b]
                    work[5, b] = work[1, b] + abs(work[2 + side, b]) / r
            else:
                for b in range(Bf):
                    work[4, b] = work[0, b]
                    work[5, b] = work[1, b]
            v, _, _, _ = _solve_f(work[4], work[5], Bf, f_nominal, n2, lam, extra, hull,
                                  prefix, keys, order, stop)
            upper = max(upper, v - c_price)
            if v > stop:
                upper = inherited
                break
        if upper <= threshold:
            state[PRUNED] += 1
            continue
        _split(c_nominal, a0, a1, b0, b1, stack, bounds, state, min(upper, inherited))
    return DONE


@jit_helper
def _node_sums(cum, Bc, Bf, c_nominal, a0, a1, b0, b1, work):
    # OUT work[0..3, :Bf]: A_G, A_H, P, N of the node (see search_pair).
    # Returns whether the node is a single condition (inner = outer).
    if c_nominal:
        nxt, mask = a0, a1
        for b in range(Bf):
            work[0, b] = work[1, b] = 0.0
            work[2, b] = cum[2, Bc, b] - cum[2, nxt, b]
            work[3, b] = cum[3, Bc, b] - cum[3, nxt, b]
        for p in range(nxt):
            if mask >> p & 1:
                for b in range(Bf):
                    work[0, b] += cum[0, p + 1, b] - cum[0, p, b]
                    work[1, b] += cum[1, p + 1, b] - cum[1, p, b]
        return nxt == Bc
    s0, s1, t0, t1 = a0, a1, b0, b1
    for b in range(Bf):
        if s1 < t0:
            for k in range(4):
                work[k, b] = cum[k, t0 + 1, b] - cum[k, s1 + 1, b]
        else:
            for k in range(4):
                work[k, b] = 0.0
        # Outer minus inner, positive and negative parts.
        work[2, b] = cum[2, t1 + 1, b] - cum[2, s0 + 1, b] - work[2, b]
        work[3, b] = cum[3, t1 + 1, b] - cum[3, s0 + 1, b] - work[3, b]
    return s0 == s1 and t0 == t1


@jit_helper
def _free_ratio(c_nominal, Bc, a0, a1, b0, b1, ratio_max, side):
    # Largest ratio_max[side] over the positions between a node's inner and
    # outer rows (see search_pair); inf if it is 0 (no such cell: P or N is
    # then 0, and P / inf adds nothing).
    r = 0.0
    if c_nominal:
        for p in range(a0, Bc):
            r = max(r, ratio_max[side, p])
    else:
        s0, s1, t0, t1 = a0, a1, b0, b1
        for p in range(s0 + 1, t1 + 1):
            if not (s1 < t0 and s1 < p <= t0):
                r = max(r, ratio_max[side, p])
    return r if r > 0.0 else np.inf


@jit_helper
def _c_price(c_nominal, Bc, a0, a1, b0, b1):
    # 1 when every condition of c's range s0..s1, t0..t1 has two thresholds
    # (s0 >= 0 and t1 < Bc - 1; called with (s0, s0, t1, t1) for a range's
    # least), else 0; a nominal c's set is priced as one condition.
    if c_nominal:
        return 0.0
    return 1.0 if a0 >= 0 and b1 < Bc - 1 else 0.0


@jit_helper
def _expressible(c_nominal, Bc, a0, a1, b0, b1):
    # A single condition on c that some conjunction of propositions is:
    # not every non-missing bin (except ``== 0`` of a one-category column),
    # not empty.
    if c_nominal:
        mask = a1
        if mask == 0:
            return False
        return Bc == 1 or mask != (1 << Bc) - 1
    return not (a0 == -1 and b0 == Bc - 1)


@jit_helper
def _members_c(c_nominal, Bc, a0, a1, b0, b1, out):
    # OUT out[:Bc]: the positions of c's condition of a single-condition node.
    for p in range(Bc):
        out[p] = (a1 >> p & 1) == 1 if c_nominal else a0 < p <= b0


@jit_helper
def _members_f(f_nominal, Bf, x, y, order, out):
    # OUT out[:Bf]: the bins of f's condition from _solve_f's answer.
    if f_nominal:
        set_members(x, y, order, Bf, out)
    else:
        for b in range(Bf):
            out[b] = x <= b <= y


@jit_helper
def _split(c_nominal, a0, a1, b0, b1, stack, bounds, state, upper):
    # Push the two halves of a node (see search_pair), each with bound upper.
    top = state[TOP]
    if c_nominal:
        nxt, mask = a0, a1
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = nxt + 1, mask, 0, 0
        stack[top + 1, 0], stack[top + 1, 1] = nxt + 1, mask | (1 << nxt)
        stack[top + 1, 2], stack[top + 1, 3] = 0, 0
        bounds[top] = bounds[top + 1] = upper
        state[TOP] = top + 2
        state[PUSHED] += 2
        return
    s0, s1, t0, t1 = a0, a1, b0, b1
    if s1 - s0 >= t1 - t0:
        m = (s0 + s1) // 2
        halves = ((m + 1, s1, t0, t1), (s0, m, t0, t1))
    else:
        m = (t0 + t1) // 2
        halves = ((s0, s1, t0, m), (s0, s1, m + 1, t1))
    for i in range(2):
        c0, c1, d0, d1 = halves[i]
        c1, d0 = min(c1, d1 - 1), max(d0, c0 + 1)
        if c0 > c1 or d0 > d1:
            continue  # no s < t
        stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = c0, c1, d0, d1
        bounds[top] = upper
        top += 1
        state[PUSHED] += 1
    state[TOP] = top
