"""Numba kernels of the exact two-condition search with several outputs.

:mod:`rulebook.multi_output_search` finds the best query of at most two
conditions for a rule with a complete head (objective: the sum over
outputs of ``G_k^2 / (2 n (lambda + H_k))``) or a single-output head (the
maximum over outputs). A query is a condition on a column ``c`` and one on
a column ``f`` (or, for one condition, ``f`` a dummy axis of one bin that
every row is in). Both are searched as *boxes*: a range of conditions on
``c`` times a range of conditions on ``f``, branched on until each is a
single condition (Quant-BnB's ranges of thresholds, Mazumder et al. 2022,
on both columns at once).

An axis's range is four integers, as in :mod:`rulebook._pair_kernels`:

* numeric: the intervals of positions ``s+1..t`` with ``s0 <= s <= s1`` and
  ``t0 <= t <= t1``; every one holds the *inner* positions ``s1+1..t0``
  and lies in the *outer* ones ``s0+1..t1``;
* nominal: ``(next, mask, -, -)``, the sets of positions holding those of
  ``mask`` below ``next`` and any from ``next`` on: inner the mask, outer
  the mask and every position from ``next``.

Every query of a box holds its inner cells (inner of ``c`` times inner of
``f``) and lies in its outer cells, so for each output its ``G_k`` lies
between ``A_k + N_k`` and ``A_k + P_k`` (``A`` the inner sums, ``P``/``N``
the sums of the positive/negative parts of each cell's ``G_k`` over outer
minus inner cells) and ``H_k >= A_Hk``: the box's bound on output ``k`` is
``max((A_k + P_k)^2, (A_k + N_k)^2) / (2 n (lambda + A_Hk))``, summed over
outputs for a complete head (each output's term of any query is at most
its bound), their maximum for a single-output head. A box of one query has
inner = outer, and its bound is its value. While f is free (a pair's
ranges on c alone), :func:`free_bound` also counts the Hessian the cells
between inner and outer must bring with their gradient (``h >= |g| / r``,
``r`` their largest ratio per position of c, from :func:`box_grid`), as
``rulebook._pair_kernels.search_pair`` does for one output.

Sums per cell are kept as 2-D prefix sums over positions of ``c`` and of
``f``, ``4 K`` channels (``G_k``, ``H_k``, positive and negative part of
each cell's ``G_k``); a rectangle's sum is four look-ups.

References
----------
.. [1] Mazumder, R., Meng, X., Wang, H. (2022). Quant-BnB: a scalable
   branch-and-bound method for optimal decision trees with continuous
   features. ICML. Section 3.
.. [2] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning. Advances in Data
   Analysis and Classification. Section 2.4.2 (complete and single-output
   heads from the summed statistics of a decomposable loss).
"""

import numpy as np

from ._config import jit, jit_helper
from ._pair_kernels import (  # as in the single-output pair search
    _c_price,
    _expressible,
    best_interval,
    best_priced_interval,
    best_set,
)

# Why ``search_boxes`` returned.
DONE, BATCH = 0, 1
# Slots of ``state`` (int64).
TOP, NODES, LEAVES, PRUNED, PRUNED_OPEN, PUSHED, N_STATE = range(7)
# Stack columns: axis c (4), axis f (4).
STACK_WIDTH = 8
# ``node[4]`` of a box whose condition on f is free: bounded by each
# output's best condition on f over optimistic sums (see search_boxes).
FREE = -2
# A complete head's free box is also bounded by enumerating f's intervals
# (the same interval for every output: tighter than each output's own best;
# on wine, 3 classes, a quarter of the nodes and a quarter of the time) when
# f has at most this many bins (its cost grows as their square); always once
# c's condition is fixed, where that enumeration is the box's best query.
ENUM_MAX_BINS = 256
# Most segments (runs of positions) of one axis's set: a nominal mask of at
# most 62 categories has at most 31 runs, and the outer set one more.
MAX_SEGMENTS = 64


@jit_helper
def _solve_f(G, H, Bf, f_nominal, n2, lam, hull, prefix, keys, order, stop, extra=0.0):
    # Best condition on f for per-bin sums G, H: (value, a, b) with (a, b)
    # = (lo, hi) bins of an interval (its value less ``extra`` if it has two
    # thresholds), or (kind, size) of ``best_set``; returns early once
    # above stop. extra == 0 is ``best_interval`` itself.
    if f_nominal:
        return best_set(G, H, Bf, n2, lam, keys, order, stop)
    v, _, lo, hi = best_priced_interval(G, H, Bf, n2, lam, extra, hull, prefix, stop)
    return v, lo, hi


@jit
def box_grid(xc, xf, pos_c, pos_f, Bc, Bf, g, h, S, ratio_max):
    """OUT S (4 K, Bc + 1, Bf + 1): 2-D prefix sums over the cells.

    ``S[q, i, j]`` sums the cells of positions ``< i`` of c and ``< j`` of
    f (``pos_c[bin]``, ``pos_f[bin]``), rows with a bin below ``Bc`` and
    ``Bf`` (not missing) only; channels ``k`` the gradients of output k,
    ``K + k`` its Hessians, ``2 K + k`` the positive part of each cell's
    gradient sum, ``3 K + k`` its negative part. g, h (n, K) float64.
    OUT ratio_max (2, K, Bc): per output and position of c, the largest
    ``g / h`` of its cells of positive gradient sum (row 0) and ``-g / h``
    of those of negative sum (row 1); ``inf`` for such a cell with ``h ==
    0``, 0 when there is none (see :func:`free_bound`).
    """
    K = g.shape[1]
    S[:] = 0.0
    for r in range(xc.shape[0]):
        a, b = xc[r], xf[r]
        if a < Bc and b < Bf:
            i, j = pos_c[a] + 1, pos_f[b] + 1
            for k in range(K):
                S[k, i, j] += g[r, k]
                S[K + k, i, j] += h[r, k]
    # Prefix sums along each row, the four channels of an output in one
    # pass with running sums in registers (each cell's parts and ratio on
    # the way), then down the rows, a contiguous row at a time: about five
    # times faster than the 2-D recurrence, whose every cell waited on its
    # left neighbour (a third of an exact search's time on emotions).
    for k in range(K):
        for i in range(1, Bc + 1):
            sg = sh = sp = sn = 0.0
            top_p = top_n = 0.0
            for j in range(1, Bf + 1):
                cell = S[k, i, j]
                cell_h = S[K + k, i, j]
                if cell > 0.0:
                    sp += cell
                    top_p = max(top_p, cell / cell_h if cell_h > 0.0 else np.inf)
                elif cell < 0.0:
                    sn += cell
                    top_n = max(top_n, -cell / cell_h if cell_h > 0.0 else np.inf)
                sg += cell
                sh += cell_h
                S[k, i, j] = sg
                S[K + k, i, j] = sh
                S[2 * K + k, i, j] = sp
                S[3 * K + k, i, j] = sn
            ratio_max[0, k, i - 1] = top_p
            ratio_max[1, k, i - 1] = top_n
    for q in range(4 * K):
        for i in range(2, Bc + 1):
            for j in range(1, Bf + 1):
                S[q, i, j] += S[q, i - 1, j]


@jit
def column_sums(x, g, h, nb, G, H):
    """OUT G, H (nb, K): each output's sums of g and h per non-missing bin
    of column x (bins ``< nb``; a missing value's bin is ``nb``)."""
    K = g.shape[1]
    G[:] = 0.0
    H[:] = 0.0
    for r in range(x.shape[0]):
        b = x[r]
        if b < nb:
            for k in range(K):
                G[b, k] += g[r, k]
                H[b, k] += h[r, k]


@jit
def column_strength(x, g, h, nb, nominal, n2, lam, single, G, H, gk, hk, hull, prefix, keys,
                    order):
    """Each output's best single condition on column x, summed (complete
    head) or their maximum (single-output head); a negative value of an
    output counts as 0. Used to order the pairs, not as a bound.

    SCRATCH G, H (nb, K) (filled with :func:`column_sums`), gk, hk (nb,)
    and those of ``rulebook._pair_kernels.best_interval`` / ``best_set``.
    """
    column_sums(x, g, h, nb, G, H)
    total = 0.0
    for k in range(g.shape[1]):
        for b in range(nb):
            gk[b] = G[b, k]
            hk[b] = H[b, k]
        if nominal:
            value = best_set(gk, hk, nb, n2, lam, keys, order, np.inf)[0]
        else:
            value = best_interval(gk, hk, nb, n2, lam, hull, prefix, np.inf)[0]
        value = max(value, 0.0)
        total = max(total, value) if single else total + value
    return total


@jit_helper
def _segments(nominal, B, a0, a1, b0, b1, outer, seg):
    # OUT seg[:n, 0:2]: the runs [start, stop) of positions of the axis's
    # inner (outer=False) or outer set; returns n.
    n = 0
    if not nominal:
        lo, hi = (a0 + 1, b1 + 1) if outer else (a1 + 1, b0 + 1)
        if lo < hi:
            seg[0, 0], seg[0, 1] = lo, hi
            n = 1
        return n
    nxt, mask = a0, a1
    p = 0
    while p < nxt:
        if mask >> p & 1:
            start = p
            while p < nxt and mask >> p & 1:
                p += 1
            seg[n, 0], seg[n, 1] = start, p
            n += 1
        else:
            p += 1
    if outer and nxt < B:
        if n > 0 and seg[n - 1, 1] == nxt:
            seg[n - 1, 1] = B
        else:
            seg[n, 0], seg[n, 1] = nxt, B
            n += 1
    return n


@jit_helper
def _set_sum(S, q, seg_c, n_c, seg_f, n_f):
    total = 0.0
    for u in range(n_c):
        i0, i1 = seg_c[u, 0], seg_c[u, 1]
        for v in range(n_f):
            j0, j1 = seg_f[v, 0], seg_f[v, 1]
            total += S[q, i1, j1] - S[q, i0, j1] - S[q, i1, j0] + S[q, i0, j0]
    return total


@jit_helper
def _is_single(nominal, B, a0, a1, b0, b1):
    # Whether the axis's range is one condition.
    if nominal:
        return a0 == B
    return a0 == a1 and b0 == b1


@jit
def box_bound(S, K, Bc, Bf, c_nominal, f_nominal, node, n2, lam, single, segs, sums):
    """The bound of a box (its value when it is one query); see the module.

    node (8,) int64: the ranges of c and f. SCRATCH segs (4, MAX_SEGMENTS, 2)
    int64, sums (4, K).
    """
    n_ci = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], False, segs[0])
    n_co = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], True, segs[1])
    n_fi = _segments(f_nominal, Bf, node[4], node[5], node[6], node[7], False, segs[2])
    n_fo = _segments(f_nominal, Bf, node[4], node[5], node[6], node[7], True, segs[3])
    value = 0.0
    for k in range(K):
        A = _set_sum(S, k, segs[0], n_ci, segs[2], n_fi)
        AH = _set_sum(S, K + k, segs[0], n_ci, segs[2], n_fi)
        P = (_set_sum(S, 2 * K + k, segs[1], n_co, segs[3], n_fo)
             - _set_sum(S, 2 * K + k, segs[0], n_ci, segs[2], n_fi))
        N = (_set_sum(S, 3 * K + k, segs[1], n_co, segs[3], n_fo)
             - _set_sum(S, 3 * K + k, segs[0], n_ci, segs[2], n_fi))
        # Rounding of the prefix sums may leave P a hair below 0 (or N above).
        G = max(abs(A + max(P, 0.0)), abs(A + min(N, 0.0)))
        term = G * G / (n2 * (lam + max(AH, 0.0)))
        sums[0, k] = A
        sums[1, k] = AH
        if single:
            value = max(value, term)
        else:
            value += term
    return value


@jit
def free_bound(S, K, Bc, Bf, c_nominal, f_nominal, node, n2, lam, single, segs, work, hull,
               prefix, keys, order, cand, ratio_max, stop=np.inf, extra=0.0):
    """The bound of a box of c's range and any condition on f.

    For each position of f, the sums of c's inner positions (``A_k``,
    ``A_Hk``) and the positive and negative parts ``P_k``, ``N_k`` of the
    cells between inner and outer: every query of the box has, on each
    output, ``G_k`` between ``A_k(J) + N_k(J)`` and ``A_k(J) + P_k(J)`` and
    ``H_k >= A_Hk(J)`` for its condition ``J`` on f, so its term is at most
    the best condition on f for the sums ``(A_k + P_k, A_Hk)`` or
    ``(A_k + N_k, A_Hk)``. Tighter, as the cells between bring their h (as
    ``rulebook._pair_kernels.search_pair`` for one output): a cell of
    ``g_k > 0`` has ``h_k >= g_k / r_k``, ``r_k`` the largest such ratio
    between inner and outer (``ratio_max``), so the term is at most the
    best condition on f for ``(A_k + P_k, A_Hk + P_k / r_k)``, ``(A_k +
    N_k, A_Hk - N_k / r'_k)`` or ``(A_k, A_Hk)`` (``(A + X)^2 / (lam + A_H
    + X / r)`` is convex in ``X``: its largest at ``X = 0`` or ``X = P``),
    each solved exactly. Summed over outputs (complete head) or their
    maximum (single-output head). When c's range is one condition, the
    single-output head's bound is its best query's value: then ``cand[4:8]``
    holds that query's range on f (an interval of positions, or a mask).
    SCRATCH work (7, Bf) and those of ``rulebook._pair_kernels.best_interval``
    / ``best_set``. ratio_max: as :func:`box_grid` gives it.

    ``extra`` (a single-output head's only): what an interval ``a < f <=
    b`` pays for its second threshold; each output's conditions on f are
    then solved by their value less it
    (``rulebook._pair_kernels.best_priced_interval``), so the bound (and a
    leaf's value) is of ``value - extra * [two thresholds on f]``. A
    complete head's bound, a sum of each output's own best condition, may
    not price them (the price is paid once, not once an output): it is of
    the plain value, at least the priced one.

    Returns ``(bound, stopped)``: stopped as soon as the bound is known to
    exceed ``stop`` (every output's term is at least 0, so a partial sum or
    one output's term above it suffices); the value returned is then not
    the bound, only more than ``stop``.
    """
    n_ci = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], False, segs[0])
    n_co = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], True, segs[1])
    single_c = _is_single(c_nominal, Bc, node[0], node[1], node[2], node[3])
    f_extra = extra if single else 0.0
    value = 0.0
    for k in range(K):
        for j in range(Bf):
            segs[2, 0, 0], segs[2, 0, 1] = j, j + 1
            A = _set_sum(S, k, segs[0], n_ci, segs[2], 1)
            work[0, j] = A
            work[1, j] = max(_set_sum(S, K + k, segs[0], n_ci, segs[2], 1), 0.0)
            work[4, j] = max(_set_sum(S, 2 * K + k, segs[1], n_co, segs[2], 1)
                             - _set_sum(S, 2 * K + k, segs[0], n_ci, segs[2], 1), 0.0)
            work[5, j] = -min(_set_sum(S, 3 * K + k, segs[1], n_co, segs[2], 1)
                              - _set_sum(S, 3 * K + k, segs[0], n_ci, segs[2], 1), 0.0)
            work[2, j] = A + work[4, j]
            work[3, j] = A - work[5, j]
        term = 0.0
        gap = stop - value if not single else stop
        # One condition on c (inner = outer): P = N = 0 and the first side
        # is exact. Without inner rows A is 0, which the sides reach.
        inner = n_ci > 0 and not single_c
        for side in range(3 if inner else 2):
            if side < 2:
                r = _free_ratio(ratio_max, side, k, segs[0], n_ci, segs[1], n_co)
                for j in range(Bf):
                    work[6, j] = work[1, j] + work[4 + side, j] / r
                v, a, b = _solve_f(work[2 + side], work[6], Bf, f_nominal, n2, lam, hull,
                                   prefix, keys, order, gap, f_extra)
            else:
                v, a, b = _solve_f(work[0], work[1], Bf, f_nominal, n2, lam, hull, prefix,
                                   keys, order, gap, f_extra)
            if v > gap:
                return value + v if not single else v, True
            if v > term:
                term = v
                if single and v > value:
                    if f_nominal:
                        mask = 0
                        for p in range(Bf):
                            order_in = False
                            if a == 2:
                                order_in = p != order[b]
                            else:
                                for i in range(b):
                                    if p == (order[i] if a == 0 else order[Bf - 1 - i]):
                                        order_in = True
                            if order_in:
                                mask |= 1 << p
                        cand[4], cand[5], cand[6], cand[7] = Bf, mask, 0, 0
                    else:
                        cand[4], cand[5], cand[6], cand[7] = a - 1, a - 1, b, b
        if single:
            value = max(value, term)
        else:
            value += term
    return value, False


@jit_helper
def _free_ratio(ratio_max, side, k, seg_i, n_i, seg_o, n_o):
    # Largest ratio_max[side, k] over the positions in the outer runs and
    # not in the inner ones; inf if it is 0 (no such cell: its part is 0).
    r = 0.0
    for u in range(n_o):
        for p in range(seg_o[u, 0], seg_o[u, 1]):
            inside = False
            for v in range(n_i):
                if seg_i[v, 0] <= p < seg_i[v, 1]:
                    inside = True
                    break
            if not inside:
                r = max(r, ratio_max[side, k, p])
    return r if r > 0.0 else np.inf


@jit
def joint_bound(S, K, Bc, Bf, c_nominal, node, n2, lam, segs, wk, cand, stop, extra=0.0):
    """A complete head's bound of a box of c's range and any interval on a
    numeric f, every output taking the same interval.

    For each interval ``J`` of f's positions, the sum over outputs of
    ``max((A_k + P_k)^2, (A_k + N_k)^2) / (n2 (lam + A_Hk))`` over ``J``'s
    bins (as :func:`free_bound`, but one ``J`` for all outputs): at least
    every query's value of the box, and its best query's value when c's
    range is one condition (``P = N = 0``); ``cand[4:8]`` then holds that
    interval. Each interval of two thresholds (``a < f <= b``) is valued
    less ``extra``. Returns ``(value, stopped)``: stopped (value not the
    maximum) as soon as a value exceeds ``stop``. SCRATCH wk (4, K, Bf + 1).
    """
    n_ci = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], False, segs[0])
    n_co = _segments(c_nominal, Bc, node[0], node[1], node[2], node[3], True, segs[1])
    for k in range(K):
        for q in range(4):
            wk[q, k, 0] = 0.0
        for j in range(Bf):
            segs[2, 0, 0], segs[2, 0, 1] = j, j + 1
            A = _set_sum(S, k, segs[0], n_ci, segs[2], 1)
            wk[0, k, j + 1] = wk[0, k, j] + A
            wk[1, k, j + 1] = wk[1, k, j] + max(_set_sum(S, K + k, segs[0], n_ci, segs[2], 1),
                                                0.0)
            wk[2, k, j + 1] = wk[2, k, j] + max(
                _set_sum(S, 2 * K + k, segs[1], n_co, segs[2], 1)
                - _set_sum(S, 2 * K + k, segs[0], n_ci, segs[2], 1), 0.0)
            wk[3, k, j + 1] = wk[3, k, j] + min(
                _set_sum(S, 3 * K + k, segs[1], n_co, segs[2], 1)
                - _set_sum(S, 3 * K + k, segs[0], n_ci, segs[2], 1), 0.0)
    best = 0.0
    for lo in range(Bf):
        for hi in range(lo + 1, Bf + 1):
            if lo == 0 and hi == Bf:
                continue  # every bin: no condition on f
            value = 0.0
            for k in range(K):
                A = wk[0, k, hi] - wk[0, k, lo]
                G = max(abs(A + wk[2, k, hi] - wk[2, k, lo]), abs(A + wk[3, k, hi] - wk[3, k, lo]))
                value += G * G / (n2 * (lam + wk[1, k, hi] - wk[1, k, lo]))
            if extra != 0.0 and lo > 0 and hi < Bf:
                value -= extra
            if value > best:
                best = value
                cand[4], cand[5], cand[6], cand[7] = lo - 1, lo - 1, hi - 1, hi - 1
                if best > stop:
                    return best, True
    return best, False


@jit_helper
def _split(nominal_axis, node, off, stack, bounds, state, upper):
    # Push the two halves of the node's range on axis ``off`` (0: c, 4: f).
    top = state[TOP]
    a0, a1, b0, b1 = node[off], node[off + 1], node[off + 2], node[off + 3]
    if nominal_axis:
        for bit in range(2):
            for w in range(8):
                stack[top, w] = node[w]
            stack[top, off] = a0 + 1
            stack[top, off + 1] = a1 | (bit << a0)
            bounds[top] = upper
            top += 1
            state[PUSHED] += 1
        state[TOP] = top
        return
    if a1 - a0 >= b1 - b0:
        m = (a0 + a1) // 2
        halves = ((m + 1, a1, b0, b1), (a0, m, b0, b1))
    else:
        m = (b0 + b1) // 2
        halves = ((a0, a1, b0, m), (a0, a1, m + 1, b1))
    for i in range(2):
        c0, c1, d0, d1 = halves[i]
        c1, d0 = min(c1, d1 - 1), max(d0, c0 + 1)
        if c0 > c1 or d0 > d1:
            continue  # no s < t
        for w in range(8):
            stack[top, w] = node[w]
        stack[top, off], stack[top, off + 1] = c0, c1
        stack[top, off + 2], stack[top, off + 3] = d0, d1
        bounds[top] = upper
        top += 1
        state[PUSHED] += 1
    state[TOP] = top


@jit_helper
def _width(nominal, B, a0, a1, b0, b1):
    # How many conditions the axis's range still spans, roughly: what to halve.
    if nominal:
        return B - a0
    return max(a1 - a0, b1 - b0)


@jit_helper
def _keep(value, node, cand, best, shared, found):
    # A new best query: c's range from node, f's from cand[4:8]; ``value``
    # its penalised value (value minus the cost of its conditions).
    best[0] = value
    best[1] = 1.0
    shared[0] = max(shared[0], value)
    for w in range(4):
        found[w] = node[w]
        found[4 + w] = cand[4 + w]


@jit
def search_boxes(S, K, Bc, Bf, c_nominal, f_nominal, f_dummy, n2, lam, single, stack, bounds,
                 state, best, shared, budget, found, segs, sums, work, hull, prefix, keys,
                 order, cand, wk, ratio_max, cost=0.0, extra=0.0):
    """Depth-first branch and bound over the boxes on ``stack[:state[TOP]]``.

    A box whose bound is at most the best value is pruned. A box whose
    condition on f is free (``node[4] == FREE``, a pair's root) is bounded
    by :func:`free_bound` (a complete head's with numeric f also by
    :func:`joint_bound` when f has at most ``ENUM_MAX_BINS`` bins) and
    split on c until c's range is one condition; then its best query is
    known (a leaf: :func:`free_bound` for a single-output head,
    :func:`joint_bound` for a complete head with numeric f), or, for a
    complete head with nominal f, f's sets are branched on in turn (f's
    root range, c fixed), bounded by :func:`box_bound`. A box of one
    query is scored (when expressible on both axes; the dummy axis always
    is) and kept if it beats the best value; any other box is split on its
    wider axis. At most ``budget`` boxes per call.

    IN/OUT: stack (D, 8) int64, bounds (D,) (a box's parent bound), state
    (N_STATE,) int64, best[0] (this search's best value; on improvement
    ``found[:8]`` is the query's box and best[1] = 1.0), shared[0] (the
    best value of all threads, read and raised). SCRATCH segs, sums: as
    :func:`box_bound`; work, hull, prefix, keys, order, cand: as
    :func:`free_bound`; wk: as :func:`joint_bound`; ratio_max: as
    :func:`box_grid` gives it for the box's pair.

    ``cost``: what the conditions of this search's queries cost (one
    condition's cost for a column alone, two for a pair): best[0] and
    shared[0] then hold *penalised* values, value minus the cost of the
    query's conditions, so that one run's boxes of one column and of two
    share one incumbent. A box is pruned when its bound is at most the
    incumbent plus ``cost`` (its queries' penalised values are at most
    their bound minus ``cost``): exactly the queries of largest penalised
    value are kept. 0: the plain objective, bit for bit as before.

    ``extra``: what an interval ``a < x <= b`` on a numeric axis pays for
    its second threshold (a nominal set and a one-sided condition pay
    none), on top of ``cost``: a box's bound is then of ``value - extra *
    intervals`` (its least on c, and on f where f is free the priced
    solves of :func:`free_bound` and :func:`joint_bound`), and so are
    ``bounds``; a leaf's value is less its exact price. 0: no such price.

    Returns DONE (stack empty) or BATCH (budget spent).
    """
    expanded = 0
    while state[TOP] > 0:
        if expanded >= budget:
            return BATCH
        expanded += 1
        state[TOP] -= 1
        top = state[TOP]
        node = stack[top].copy()
        # In value units (see ``cost``); + 0.0 leaves it as it was.
        threshold = max(best[0], shared[0]) + cost
        if bounds[top] <= threshold:
            state[PRUNED_OPEN] += 1
            continue
        state[NODES] += 1
        single_c = _is_single(c_nominal, Bc, node[0], node[1], node[2], node[3])
        # The least price of the node's second thresholds on c (exact when
        # c's range is one condition); 0.0 without ``extra``.
        c_extra = extra * _c_price(c_nominal, Bc, node[0], node[0], node[3], node[3])
        if node[4] == FREE:
            # Exact only where it is a leaf's value (a single-output head
            # with c fixed); elsewhere it need only be known above the best
            # value, and the box keeps its parent's bound (admissible).
            exact = single and single_c
            upper, stopped = free_bound(S, K, Bc, Bf, c_nominal, f_nominal, node, n2, lam,
                                        single, segs, work, hull, prefix, keys, order, cand,
                                        ratio_max, np.inf if exact else threshold + c_extra,
                                        extra)
            upper -= c_extra
            if not stopped and upper <= threshold:
                state[PRUNED] += 1
                continue
            upper = bounds[top] if stopped else min(upper, bounds[top])
            if not single and not f_nominal and (single_c or Bf <= ENUM_MAX_BINS):
                joint, stopped = joint_bound(S, K, Bc, Bf, c_nominal, node, n2, lam, segs, wk,
                                             cand, threshold + c_extra if not single_c else np.inf,
                                             extra)
                joint -= c_extra
                if not stopped:
                    if joint <= threshold:
                        state[PRUNED] += 1
                        continue
                    upper = min(upper, joint)
                if single_c:
                    # The enumeration is exact here: the box's best query.
                    state[LEAVES] += 1
                    if _expressible(c_nominal, Bc, node[0], node[1], node[2], node[3]):
                        _keep(joint - cost, node, cand, best, shared, found)
                    continue
            if not single_c:
                _split(c_nominal, node, 0, stack, bounds, state, upper)
            elif single:
                state[LEAVES] += 1
                if _expressible(c_nominal, Bc, node[0], node[1], node[2], node[3]):
                    _keep(upper - cost, node, cand, best, shared, found)
            elif _expressible(c_nominal, Bc, node[0], node[1], node[2], node[3]):
                t = state[TOP]
                for w in range(4):
                    stack[t, w] = node[w]
                if f_nominal:
                    stack[t, 4], stack[t, 5], stack[t, 6], stack[t, 7] = 0, 0, 0, 0
                else:
                    stack[t, 4], stack[t, 5], stack[t, 6], stack[t, 7] = -1, Bf - 2, 0, Bf - 1
                bounds[t] = upper
                state[TOP] = t + 1
                state[PUSHED] += 1
            continue
        upper = box_bound(S, K, Bc, Bf, c_nominal, f_nominal, node, n2, lam, single, segs, sums)
        if not f_dummy:
            upper -= extra * _c_price(f_nominal, Bf, node[4], node[4], node[7], node[7])
        upper -= c_extra
        single_f = f_dummy or _is_single(f_nominal, Bf, node[4], node[5], node[6], node[7])
        if single_c and single_f:
            state[LEAVES] += 1
            if (upper > threshold and _expressible(c_nominal, Bc, node[0], node[1], node[2], node[3])
                    and (f_dummy or _expressible(f_nominal, Bf, node[4], node[5], node[6],
                                                 node[7]))):
                best[0] = upper - cost
                best[1] = 1.0
                shared[0] = max(shared[0], upper - cost)
                for w in range(8):
                    found[w] = node[w]
            continue
        if upper <= threshold:
            state[PRUNED] += 1
            continue
        upper = min(upper, bounds[top])
        if single_f or (not single_c and _width(c_nominal, Bc, node[0], node[1], node[2], node[3])
                        >= _width(f_nominal, Bf, node[4], node[5], node[6], node[7])):
            _split(c_nominal, node, 0, stack, bounds, state, upper)
        else:
            _split(f_nominal, node, 4, stack, bounds, state, upper)
    return DONE
