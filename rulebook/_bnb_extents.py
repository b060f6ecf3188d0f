"""Extents, implications and critical indices of the branch and bound.

Propositions as bitsets over rows in ratio order, the extent of a query as
the AND of its propositions' bitsets, the propositions a node implies, the
critical index of a child (Boley et al. 2021, Section 3.2, eq. 3.6-3.8) and
the evaluation of a child (its extent, objective and tight bound). Part of
:mod:`rulebook._bnb_kernels` (see its docstring for the layout).

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (Theorem 3.1), Section 3.2 (eq. 3.6-3.8).
"""

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ._bound_kernels import _implies, bound
from ._config import jit, jit_inline
from ._search_kernels import EQ, GT, LE, _satisfies
from .objectives import _objective


@jit
def proposition_bits(Xp, n_bins, pf, pop, pb, bits):
    # IN: Xp (n, d) uint16, rows in position order; pf, pop, pb (P,) int64.
    # OUT: bits (P, W) uint64, zeroed here: bit i of bits[p] is set if the
    #      row at position i satisfies proposition p (``_satisfies``).
    # Per feature, one pass over the rows gives a bitset per bin and their
    # running unions; each proposition is then one or two of those
    # (O(n d + bins W + P W) instead of O(P n) tests).
    bits[:, :] = 0
    n, W = Xp.shape[0], bits.shape[1]
    one = np.uint64(1)
    for f in range(Xp.shape[1]):
        used = False
        for p in range(pf.shape[0]):
            used |= pf[p] == f
        if not used:
            continue
        nb = n_bins[f]  # the missing bin's index
        per_bin = np.zeros((nb + 1, W), np.uint64)
        column = Xp[:, f]
        for i in range(n):
            per_bin[column[i], i >> 6] |= one << np.uint64(i & 63)
        upto = per_bin.copy()  # upto[b]: rows in bins 0..b
        for b in range(1, nb + 1):
            for w in range(W):
                upto[b, w] |= upto[b - 1, w]
        for p in range(pf.shape[0]):
            if pf[p] == f:
                _bits_of(pop[p], pb[p], nb, per_bin, upto, bits[p])


@jit
def _bits_of(op, k, nb, per_bin, upto, out):
    # OUT: out (W,), the rows of one proposition of a feature with nb
    # non-missing bins, from its per-bin bitsets and their running unions.
    # (Every branch yields uint64: a plain 0 would unify with uint64 as
    # float64 and round the words.)
    none = np.uint64(0)
    for w in range(out.shape[0]):
        if op == LE:  # b <= k
            word = upto[min(k, nb), w] if k >= 0 else none
        elif op == GT:  # k < b < nb
            if nb == 0 or k >= nb - 1:
                word = none
            elif k >= 0:
                word = upto[nb - 1, w] & ~upto[k, w]
            else:
                word = upto[nb - 1, w]
        elif op == EQ:  # b == k
            word = per_bin[k, w] if 0 <= k <= nb else none
        elif nb == 0:  # NE: b != k, not missing
            word = none
        elif 0 <= k < nb:
            word = upto[nb - 1, w] & ~per_bin[k, w]
        else:
            word = upto[nb - 1, w]
        out[w] = word


@jit
def ratio_sort_keys(g, w, rows, keys):
    """Sort keys of ``rows`` for the ratio order (``optimal.ratio_order``).

    ``keys[i]`` is minus the ratio ``g / w`` of row ``rows[i]``: ascending
    keys are descending ratios. A ratio that overflows is clipped to the
    largest float, so that it sorts after the infinite ratios of rows with
    ``w <= 0`` and ``g != 0`` (the limit by the sign of ``g``). A ratio of
    0 from a non-zero ``g`` (underflow) becomes the smallest float of the
    sign of ``g``, so that along the order gradients are positive, zero,
    then negative (``negative_start``).

    Parameters
    ----------
    g, w : ndarray of shape (n,), float64
    rows : ndarray of shape (m,), intp
    keys : ndarray of shape (m,), float64
        Output.
    """
    big = np.finfo(np.float64).max
    tiny = 5e-324
    for i in range(rows.shape[0]):
        gi, wi = g[rows[i]], w[rows[i]]
        if wi > 0.0:
            ratio = min(max(gi / wi, -big), big)
        elif gi != 0.0:
            ratio = np.inf if gi > 0.0 else -np.inf
        else:
            ratio = 0.0
        if ratio == 0.0 and gi != 0.0:
            ratio = tiny if gi > 0.0 else -tiny
        keys[i] = -ratio


@jit
def _extract(ext, out):
    # IN: ext (W,) uint64 bitset. OUT: out, its first m entries the set
    # positions, ascending. Returns m.
    m = 0
    for w in range(ext.shape[0]):
        word = ext[w]
        while word != 0:
            out[m] = w * 64 + trailing_zeros(word)
            m += 1
            word &= word - np.uint64(1)
    return m


@jit
def _uses_feature(record, f, rec_parent, rec_prop, pf):
    # Whether the query of ``record`` has a proposition on feature f.
    r = record
    while r >= 0:
        p = rec_prop[r]
        if p >= 0 and pf[p] == f:
            return True
        r = rec_parent[r]
    return False


@jit
def _query_columns(record, rec_parent, rec_prop, pf, col_props, out):
    # OUT: out (PW,) the propositions on the columns of the query of
    # ``record`` (the OR of their features' rows of col_props).
    for w in range(out.shape[0]):
        out[w] = 0
    r = record
    while r >= 0:
        p = rec_prop[r]
        if p >= 0:
            for w in range(out.shape[0]):
                out[w] |= col_props[pf[p], w]
        r = rec_parent[r]


@jit_inline
def _child_columns(qcols, col_props, f, max_length, out):
    # OUT: out (PW,) q's columns and feature f's (all ones: no limit).
    for w in range(out.shape[0]):
        out[w] = qcols[w] | col_props[f, w] if max_length > 0 else ~np.uint64(0)


@jit
def _query_extent(record, rec_parent, rec_prop, bits, full, ext):
    # OUT: ext (W,) the bitset of the query of ``record`` (AND along the
    # chain of records; ``full`` has a bit per active row).
    # Loops, not ``ext[:] = full``: a slice assignment compiles numba's
    # shape check and its formatted error message (string code).
    for w in range(ext.shape[0]):
        ext[w] = full[w]
    r = record
    while r >= 0:
        p = rec_prop[r]
        if p >= 0:
            for w in range(ext.shape[0]):
                ext[w] &= bits[p, w]
        r = rec_parent[r]


@jit
def _feature_counts(Xp, rows, m, f, nb, counts, lo_hi):
    # OUT: counts[f, :nb + 1] rows per bin of feature f (nb: missing bin),
    #      lo_hi[f] = (lowest, highest) occupied non-missing bin (nb, -1
    #      if none).
    counts[f, :nb + 1] = 0
    column = Xp[:, f]
    for i in range(m):
        counts[f, column[rows[i]]] += 1
    lo, hi = nb, -1
    for k in range(nb):
        if counts[f, k] > 0:
            if lo == nb:
                lo = k
            hi = k
    lo_hi[f, 0] = lo
    lo_hi[f, 1] = hi


@jit
def _implied_by_node(Xp, rows, m, n_bins, pf, pop, pb, counts, lo_hi, implied):
    # OUT: implied[p] = (the extent rows[:m] lies inside proposition p).
    # Serial: a parallel kernel called from this compiled loop crashes when
    # numba loads the loop from its on-disk cache (seen with numba 0.68).
    for f in range(Xp.shape[1]):
        _feature_counts(Xp, rows, m, f, n_bins[f], counts, lo_hi)
    for p in range(pf.shape[0]):
        f = pf[p]
        implied[p] = _implies(counts[f], n_bins[f], m, lo_hi[f, 0], lo_hi[f, 1], pop[p], pb[p])


@jit
def _critical_index(Xp, rows, m, a, n_bins, pf, pop, pb, implied, counts, lo_hi, stamp,
                    stamps, qcols, acols):
    # crt(q p_a) = min {j < a : p_j in clo(q p_a), not in clo(q)}, or a if
    # none (Section 3.2). clo(q) holds the propositions implied by q's
    # extent on the columns of ``qcols`` (bit j: p_j's column is q's; all
    # ones without a length limit), clo(q p_a) those on ``acols`` (q's
    # columns and a's). rows[:m] is the extent of q p_a; a feature's counts
    # are built on first need (``stamps[f] == stamp`` marks them current).
    one = np.uint64(1)
    for j in range(a):
        bit = one << np.uint64(j & 63)
        if not acols[j >> 6] & bit or (implied[j] and qcols[j >> 6] & bit):
            continue
        f = pf[j]
        if stamps[f] != stamp:
            _feature_counts(Xp, rows, m, f, n_bins[f], counts, lo_hi)
            stamps[f] = stamp
        if _implies(counts[f], n_bins[f], m, lo_hi[f, 0], lo_hi[f, 1], pop[j], pb[j]):
            return j
    return a


@jit
def _refine(Xp, rows, m, f, op, k, nb, gp, hp, cp, out, sums):
    # OUT: out[:count] the rows of rows[:m] satisfying (f, op, k), order
    # kept; sums[0:3] their (G, H, C). Returns count.
    count = 0
    sg, sh, sc = 0.0, 0.0, 0.0
    column = Xp[:, f]
    for i in range(m):
        r = rows[i]
        if _satisfies(column[r], op, k, nb):
            out[count] = r
            count += 1
            sg += gp[r]
            sh += hp[r]
            sc += cp[r]
    sums[0], sums[1], sums[2] = sg, sh, sc
    return count


@jit_inline
def _subset(x, y):
    # Is bitset x a subset of bitset y?
    for w in range(x.shape[0]):
        if x[w] & ~y[w]:
            return False
    return True


@jit_inline
def _contains(rows, m, y):
    # Do the positions rows[:m] all lie in bitset y? A sparse extent is
    # tested row by row (usually its first row already fails), a dense one
    # word by word (``_subset``).
    one = np.uint64(1)
    for i in range(m):
        r = rows[i]
        if not (y[r >> 6] >> np.uint64(r & 63)) & one:
            return False
    return True


@jit_inline
def _inside(x, rows, m, y):
    # Is the extent (bitset x, positions rows[:m]) a subset of bitset y?
    # m < 0: positions not extracted.
    if 0 <= m < x.shape[0]:
        return _contains(rows, m, y)
    return _subset(x, y)


@jit_inline
def _is_implied(j, ext, rows, m, bits, node, known, implied):
    # Memoised "q -> p_j" for the node being expanded (``known[j] == node``).
    if known[j] != node:
        known[j] = node
        implied[j] = _inside(ext, rows, m, bits[j])
    return implied[j]


@jit
def row_proposition_bits(bits, n, row_props):
    """The transpose of ``bits``: bit ``j`` of ``row_props[i]`` is set if the
    row at position ``i`` satisfies proposition ``j``.

    Parameters
    ----------
    bits : ndarray of shape (P, W), uint64
        Proposition bitsets over positions.
    n : int
        Number of positions.
    row_props : ndarray of shape (n, (P + 63) // 64), uint64
        Output, zeroed here.
    """
    row_props[:, :] = 0
    one = np.uint64(1)
    for j in range(bits.shape[0]):
        bit = one << np.uint64(j & 63)
        for w in range(bits.shape[1]):
            word = bits[j, w]  # only the set bits are visited
            while word != 0:
                row_props[w * 64 + trailing_zeros(word), j >> 6] |= bit
                word &= word - one


@jit
def _node_implications(ext, bits, n_props, out):
    # OUT: out (PW,) uint64, bit j set if the node's extent (bitset ext)
    # lies inside proposition j, for j < n_props; other bits cleared.
    # Non-implied propositions fail at their first differing word.
    for w in range(out.shape[0]):
        out[w] = 0
    one = np.uint64(1)
    for j in range(n_props):
        if _subset(ext, bits[j]):
            out[j >> 6] |= one << np.uint64(j & 63)


@jit_inline
def _critical_index_rows(child_ext, a, row_props, node_implied, qcols, acols, acc):
    # crt(q p_a) = min {j < a : p_j in clo(q p_a), not in clo(q)} (eq.
    # 3.7), or a if none; child_ext is the bitset of q p_a; closures as in
    # ``_critical_index`` (qcols, acols: all ones without a length limit).
    # The candidates j < a not in clo(q) (``node_implied`` on q's columns)
    # are ANDed with each row's proposition set; the AND is usually empty
    # after a row or two, so a core child costs O(1) rows instead of a
    # bitset test per proposition before a.
    one = np.uint64(1)
    n_words = (a + 63) >> 6
    for w in range(n_words):
        acc[w] = ~(node_implied[w] & qcols[w]) & acols[w]
    if a & 63:
        acc[n_words - 1] &= (one << np.uint64(a & 63)) - one
    for v in range(child_ext.shape[0]):
        word = child_ext[v]
        while word != 0:
            r = v * 64 + trailing_zeros(word)
            word &= word - one
            left = np.uint64(0)
            for w in range(n_words):
                acc[w] &= row_props[r, w]
                left |= acc[w]
            if left == 0:
                return a
    for w in range(n_words):
        if acc[w] != 0:
            return w * 64 + trailing_zeros(acc[w])
    return a


@jit_inline
def _evaluate_child(ext, bits, a, out_ext, neg_start, gp, hp, cp, code, n_total, reg_lambda,
                    sums, out_rows):
    # The refinement q p_a in one visit of each of its rows: its bitset
    # out_ext = ext & bits[a], sums[0:3] = (G, H, C) as the objective reads
    # them, from one weight sum W (H for the second-order objective, else C;
    # the others do not read H, and the second-order one reads C only as
    # "C > 0", true of every non-empty set of rows as all have positive
    # weight: m stands in), and the tight bound (Theorem 3.1).
    # Positions are in ratio order, so gradients are >= 0 before
    # ``neg_start`` and < 0 from it on (``negative_start``): the prefix
    # candidates (eq. 3.4) are met walking forward up to neg_start, the
    # suffix candidates (eq. 3.5) walking backward down to it. Nothing is
    # stored per row (a second pass over gathered rows cost a third of
    # this kernel's time).
    # Candidates are compared as fractions G^2 / (lambda + W) by cross
    # multiplication; the winner's value is then computed by ``_objective``
    # exactly as ``bound`` does. SCRATCH out_rows (n,), only for the
    # lambda == 0 case. Returns (m, bound).
    lam = reg_lambda if code == 2 else 0.0
    weights = hp if code == 2 else cp
    n_words = ext.shape[0]
    one = np.uint64(1)
    split = neg_start >> 6
    low = (one << np.uint64(neg_start & 63)) - one  # the split word's bits before neg_start
    m = 0
    sg, sw = 0.0, 0.0
    best_num, best_den, best_g, best_w = 0.0, 1.0, 0.0, 0.0
    for w in range(min(split + 1, n_words)):
        word = ext[w] & bits[a, w]
        out_ext[w] = word
        if w == split:
            word &= low
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - one
            gi = gp[r]
            m += 1
            sg += gi
            sw += weights[r]
            if gi > 0.0:
                den = lam + sw
                if den > 0.0 and sg * sg * best_den > best_num * den:
                    best_num, best_den, best_g, best_w = sg * sg, den, sg, sw
    tg, tw = 0.0, 0.0
    for w in range(n_words - 1, split - 1, -1):
        word = ext[w] & bits[a, w]
        if w == split:
            word &= ~low
        else:
            out_ext[w] = word
        while word != 0:
            top = np.uint64(63 - leading_zeros(word))
            word ^= one << top
            # Unsigned: no test for negative indices in this hot loop.
            r = np.uint64(w * 64) + top
            m += 1
            tg += gp[r]
            tw += weights[r]
            den = lam + tw
            if den > 0.0 and tg * tg * best_den > best_num * den:
                best_num, best_den, best_g, best_w = tg * tg, den, tg, tw
    G, W = sg + tg, sw + tw
    sums[0], sums[1], sums[2] = G, W, float(m) if code == 2 else W
    if m == 0:
        return 0, 0.0
    if code == 0:
        return m, max(sg, -tg)
    if code == 2 and lam == 0.0:
        # Rows with h == 0 need the extra candidates of ``bound``.
        _extract(out_ext, out_rows)
        return m, bound(out_rows, m, gp, hp, cp, code, n_total, reg_lambda)
    if best_num == 0.0:
        return m, 0.0
    # The weight stands in for H (code 2) or C (code 1) in the objective.
    return m, _objective(code, best_g, best_w, best_w if code == 1 else 1.0, n_total, lam)
