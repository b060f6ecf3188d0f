"""Numba kernels of the branch-and-bound loop (Boley et al. 2021, Algorithm 1).

The whole loop of Algorithm 1 (pop a query, evaluate and bound its tail
augmentations, push its core children) runs in compiled code; Python only
grows the arrays, checks the time limit and records the anytime trace. The
kernel :func:`run_search` is resumable: it returns after a batch of node
expansions, after an improvement of the best value, or when an array needs
to grow, and continues from the state arrays on the next call.

Layout
------
Rows are renumbered by *position* in the order of the gradient ratio
``g / h`` (descending, Theorem 3.1), fixed once per search: ``Xp``, ``gp``,
``hp``, ``cp`` are the binned data and statistics of the active rows in that
order. An extent is then an ascending array of positions, already in ratio
order, so the tight bound is one linear pass; and it is also a bitset over
positions, so the extent of a query is the AND of its propositions' bitsets
``bits[p]``. Open queries store no extent: it is recomputed from the query
when they are popped (``depth`` ANDs of ``n / 64`` words), which keeps the
memory of best-first search to a few dozen bytes per open query.

Propositions are numbered in *search order* (the order of tail
augmentation), arrays ``pf`` (feature), ``pop`` (operator) and ``pb`` (bin).
The caller sorts them by ascending extent size, as the reference
implementation does: propositions with large extents (hard to prune) then
come last and have few tail augmentations.

Records
-------
An expanded query with children on the boundary is a *record*: its parent
record, the proposition it adds, its length, and its list ``A'`` of
augmentations ``(a, bound, critical index)`` in the pools ``aug_a``,
``aug_b``, ``aug_c``. An open query is ``(bound, record, entry)``: the
record's query plus the proposition of that entry of its list (entry -1:
the record's query itself, used for the root).

Subtree bounds
--------------
Once a node's list is final, each core child to be pushed has its subtree
bounded by its *remaining list* ``L`` (the kept entries after it): every
query of the subtree adds a subset ``S`` of ``L``, so its extent is the
child's rows whose *code* (which entries of ``L`` the row satisfies)
contains ``S``. Codes are built incrementally from the last entry back
(``_bound_subtrees``). With ``|L| <= EXACT_MAX_LIST`` (and ``2^|L|`` not
far above the child's row count) the subtree is solved: sums per code,
then per superset by the zeta transform, and the best ``S``
(``_solve_subtree``). Otherwise rows of equal code form classes, and
Theorem 3.1 over the classes (``_code_class_bound``) bounds the subtree;
it is never looser than the bound over classes of *all* propositions after
the child (finer classes), which it replaced.

Critical indices use each row's proposition bitset (``row_props``): the
propositions ``j < a`` implied by ``q p_a`` but not by ``q`` are the AND of
its rows' sets minus the node's implied set, which is usually empty after a
row or two (``_critical_index_rows``).

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Algorithm 1; Section 3.1 (Theorem 3.1); Section 3.2 (eq. 3.6-3.8,
   Theorem 3.2).
.. [2] Uno, T., Asai, T., Uchida, Y., Arimura, H. (2004). An efficient
   algorithm for enumerating closed patterns in transaction databases.
   Discovery Science. (Item order by ascending frequency.)
"""

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ._bound_kernels import _implies, bound

from ._config import jit, jit_inline
from ._search_kernels import EQ, GT, LE, _satisfies
from .objectives import _objective

# Orders of the open list.
BEST_FIRST, BREADTH_FIRST, DEPTH_FIRST = 0, 1, 2

# Integer state slots (``istate``).
(N_OPEN, OPEN_HEAD, N_RECORDS, AUG_USED, TIE, EXPANDED, PUSHED, EVALUATED,
 BEST_RECORD, BEST_PROP, N_ISTATE) = range(11)
# Float state slots (``fstate``).
BEST_VALUE, PRUNED_MAX, N_FSTATE = 0, 1, 2

# Pruning counters; the first four are the columns of Table 2 of [1].
(BOUND_IMMEDIATE, BOUND_PROPAGATED, EQUIV_IMMEDIATE, EQUIV_PROPAGATED,
 CRIT_REUSED, BOUND_AFTER_CHILDREN, OPEN_PRUNED, NOT_CORE, IMPLIED, BOUND_SUBTREE,
 SUBTREE_SOLVED, CLASS_TRIED, CLASS_PRUNED, COLUMNS_SOLVED, N_COUNTERS) = range(15)

# The subtree's class bound is given up once a child's rows fall into more
# than this fraction of its row count in classes. Measured (CPU s, 10 rules;
# digits5 4 rules): always computing it cut the nodes of diabetes 131k -> 37k
# and boston 832k -> 208k but slowed digits5 (wide: 266 propositions) from
# 14.9 to 19.3 s; the old rule (fewer than m / 2 classes in all the data)
# was the slowest on boston; 0.7 gave diabetes 0.47 s, boston 4.7 s,
# digits5 14.0 s against 0.73, 8.0 and 14.9.
CLASS_BOUND_MAX_FRACTION = 0.7

# The class bound is computed while it prunes: in every node for the first
# CLASS_TRIAL calls, then only while at least one call in
# CLASS_PRUNE_RATE_INV prunes its child, and else in one node in
# CLASS_SAMPLE, which keeps the rate current. Measured (session 8, 10
# rules, one thread; pruned / computed): titanic 50%, digits5 48%, gender
# recognition 42%, boston 20%, breast cancer 1.9%, diabetes 1.2%, mobile
# prices 3 in 20860 (computed in sampled nodes only), where switching it
# off took round 8 from 4.4 to 4.05 s (it and its codes for up to 64
# entries). A rate of 1% instead of 0.1% also switched it off at times on
# wine, boston, diabetes and friedman1 with 8 bins and 6 rules: 1-2.5% more
# nodes than at 0.1% there, at times within 3% (diabetes 2.6% slower).
CLASS_TRIAL = 1000
CLASS_PRUNE_RATE_INV = 1000
CLASS_SAMPLE = 64

# Subtrees of a child with at most this many augmentations left, and 2^L
# at most this factor times its rows, are solved exactly (2^L sums) instead
# of bounded and pushed. Measured (10 rules, one thread): factor 16 -> 64
# cut mobile prices from 1.30M to 0.82M expansions, 25.7 -> 23.2 s, and
# left the other datasets within 5%; 14 entries (factor 64) expanded
# fewer nodes still but took as long on mobile prices and longer on
# digits5 (13.8 -> 14.6 s).
EXACT_MAX_LIST = 12
EXACT_ROWS_FACTOR = 64

# Why ``run_search`` returned.
DONE, GROW, BATCH, IMPROVED = 0, 1, 2, 3


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


@jit
def negative_start(gp):
    """The first position whose gradient is negative (``len(gp)`` if none).

    Gradients in ratio order (``optimal.ratio_order``) are positive, then
    zero, then negative, so this is a binary search.

    Parameters
    ----------
    gp : ndarray of shape (n,), float64
        Gradients in position (ratio) order.

    Returns
    -------
    int
        In ``0..n``; ``gp[:k] >= 0`` and ``gp[k:] < 0``.
    """
    lo, hi = 0, gp.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if gp[mid] < 0.0:
            hi = mid
        else:
            lo = mid + 1
    return lo


@jit
def _ratio_key(g, w):
    # Sort key of a group of rows: minus its ratio g / w, so that ascending
    # keys are descending ratios, the position order of ``ratio_order``
    # (w == 0: the ratio's limit by the sign of g, as there).
    if w > 0.0:
        return -g / w
    return -np.inf if g > 0.0 else (np.inf if g < 0.0 else 0.0)


@jit
def _group_bound(k, cg, cw, counts, order, code, n_total, reg_lambda):
    # The tight bound of Theorem 3.1 over the k groups of rows 0..k-1,
    # numbered by their first row's position, with gradient sums cg,
    # weights cw (h, or c for code 1) and row counts counts (float,
    # overwritten by sort keys). A group of one row keeps its row's place
    # in the ratio order (positions are that order), so only the larger
    # groups are sorted; the prefix and suffix sums then walk both
    # sequences merged. SCRATCH order (k,).
    if code == 0:
        pos, neg = 0.0, 0.0
        for c in range(k):
            if cg[c] > 0.0:
                pos += cg[c]
            else:
                neg -= cg[c]
        return max(pos, neg)
    n_multi, n_single = 0, 0
    for c in range(k):
        if counts[c] == 1.0:
            n_single += 1
            order[k - n_single] = c  # from the back: the first at k - 1
        else:
            order[n_multi] = c
            counts[n_multi] = _ratio_key(cg[c], cw[c])
            n_multi += 1
    for i in range(n_multi, k):
        counts[i] = _ratio_key(cg[order[i]], cw[order[i]])
    keys = counts
    _sort_by_key(order, keys, n_multi)  # ascending key: descending ratio
    lam = reg_lambda if code == 2 else 0.0
    best_num, best_den, best_g, best_w = 0.0, 1.0, 0.0, 0.0
    sg, sw = 0.0, 0.0
    i, j = 0, k - 1  # prefixes: groups by ascending key
    for _ in range(k):
        if j < n_multi or (i < n_multi and keys[i] <= keys[j]):
            c = order[i]
            i += 1
        else:
            c = order[j]
            j -= 1
        sg += cg[c]
        sw += cw[c]
        den = lam + sw
        if cg[c] > 0.0 and den > 0.0 and sg * sg * best_den > best_num * den:
            best_num, best_den, best_g, best_w = sg * sg, den, sg, sw
    sg, sw = 0.0, 0.0
    i, j = n_multi - 1, n_multi  # suffixes: by descending key
    for _ in range(k):
        if j >= k or (i >= 0 and keys[i] >= keys[j]):
            c = order[i]
            i -= 1
        else:
            c = order[j]
            j += 1
        sg += cg[c]
        sw += cw[c]
        den = lam + sw
        if cg[c] < 0.0 and den > 0.0 and sg * sg * best_den > best_num * den:
            best_num, best_den, best_g, best_w = sg * sg, den, sg, sw
    if best_num == 0.0:
        return 0.0
    return _objective(code, best_g, best_w, best_w if code == 1 else 1.0, n_total, lam)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit
def _code_class_bound(ext, bits, a, codes, direct, max_classes, gkey, gid, gstamp, counter,
                      gp, hp, cp, code, n_total, reg_lambda, cg, cw, touched, keys):
    # The tight bound over the classes of the rows of ext & bits[a], a
    # class being the rows of one code (``codes[position]``: which of the
    # child's remaining augmentations the row satisfies). Codes are grouped
    # in a table of size T (a power of two): indexed by the code itself when
    # ``direct`` (codes < T), else by a multiplicative hash with linear
    # probing. Returns +inf beyond max_classes classes (few rows merge: the
    # bound is hardly tighter than the row bound and sorting would cost more
    # than it saves). SCRATCH cg, cw (class sums), keys (class row counts,
    # then sort keys) and touched (the classes' order), for ``_group_bound``.
    counter[0] += 1
    stamp = counter[0]
    T = gid.shape[0]
    # Linear probing ends only while the table has a free slot: never keep
    # more than half of it (the search sizes T >= 2 n, so this binds only
    # for a small table).
    max_classes = min(max_classes, T // 2)
    log_t, t = 0, T
    while t > 1:
        t >>= 1
        log_t += 1
    shift = np.uint64(64 - log_t)
    k = 0
    for w in range(ext.shape[0]):
        word = ext[w] & bits[a, w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - np.uint64(1)
            key = codes[r]
            s = np.int64(key) if direct else np.int64((key * _GOLDEN) >> shift)
            while gstamp[s] == stamp and gkey[s] != key:
                s = (s + 1) & (T - 1)
            if gstamp[s] != stamp:
                if k >= max_classes:
                    return np.inf
                gstamp[s], gkey[s], gid[s] = stamp, key, k
                cg[k], cw[k], keys[k] = 0.0, 0.0, 0.0
                k += 1
            c = gid[s]
            cg[c] += gp[r]
            cw[c] += cp[r] if code == 1 else hp[r]
            keys[c] += 1.0
    return _group_bound(k, cg, cw, keys, touched, code, n_total, reg_lambda)


@jit
def _bound_subtrees(ext, bits, aug_a, sub_b, sub_m, needs_bound, start, kept, codes, gkey, gid,
                    gstamp, counter, zg, zw, bit_prop, gp, hp, cp, code, n_total, reg_lambda,
                    cg, cw, touched, keys, alpha, max_length, length, q, istate, fstate,
                    counters, shared, best_extra, col_bit, rec_parent, rec_prop, pf):
    # Bounds the subtree of each child to be pushed (needs_bound, sub_b[j]
    # still above the best value) by its remaining augmentation list, the
    # kept entries after it: its subtree only adds those propositions. Rows
    # get a code, bit i set if the row satisfies the i-th entry from the
    # end, built from the last entry back. With L entries left:
    # - L == 0: no subtree;
    # - L <= EXACT_MAX_LIST: the subtree is solved exactly
    #   (``_solve_subtree``); an improvement becomes the best query and the
    #   child is not pushed;
    # - L <= 64: every extent of the subtree is a union of rows of equal
    #   code, so the tight bound over those classes bounds it
    #   (``_code_class_bound``), while it prunes (CLASS_TRIAL);
    # - else the child keeps its row bound.
    # Returns whether the best value improved.
    best = max(fstate[BEST_VALUE], shared[0])
    first = -1
    for j in range(kept):
        if needs_bound[j] and alpha * sub_b[j] > best:
            first = j
            break
    if first < 0:
        return False
    for w in range(ext.shape[0]):
        word = ext[w]
        while word != 0:
            codes[w * 64 + trailing_zeros(word)] = 0
            word &= word - np.uint64(1)
    T = gid.shape[0]
    one = np.uint64(1)
    improved = False
    tried = counters[CLASS_TRIED]
    class_on = (tried < CLASS_TRIAL or counters[CLASS_PRUNED] * CLASS_PRUNE_RATE_INV >= tried
                or istate[EXPANDED] % CLASS_SAMPLE == 0)
    # Codes of more entries than a solve takes serve only the class bound.
    last_entry = 64 if class_on else EXACT_MAX_LIST
    n_list = 0
    for j in range(kept - 1, first - 1, -1):
        a = aug_a[start + j]
        if needs_bound[j] and alpha * sub_b[j] > best:
            if n_list == 0:
                sub_b[j] = -np.inf  # no augmentation left: no subtree
            elif n_list <= EXACT_MAX_LIST and (1 << n_list) <= EXACT_ROWS_FACTOR * sub_m[j]:
                allowed = _new_columns(q, a, bit_prop, n_list, max_length, length, col_bit,
                                       rec_parent, rec_prop, pf)
                value, found = _solve_subtree(ext, bits, a, codes, n_list, allowed, col_bit,
                                              best, zg, zw, gp, hp, cp, code, n_total, reg_lambda)
                if found != 0 and value > best:
                    best = value
                    fstate[BEST_VALUE] = value
                    if value > shared[0]:
                        shared[0] = value
                    istate[BEST_RECORD], istate[BEST_PROP] = q, a
                    best_extra[0] = 0
                    for i in range(n_list):
                        if (found >> i) & 1:
                            best_extra[0] += 1
                            best_extra[best_extra[0]] = bit_prop[i]
                    improved = True
                counters[SUBTREE_SOLVED] += 1
                sub_b[j] = -np.inf
            elif class_on:
                direct = n_list < 64 and (one << np.uint64(n_list)) <= np.uint64(T)
                upper = _code_class_bound(
                    ext, bits, a, codes, direct, int(CLASS_BOUND_MAX_FRACTION * sub_m[j]),
                    gkey, gid, gstamp, counter, gp, hp, cp, code, n_total, reg_lambda, cg, cw,
                    touched, keys)
                counters[CLASS_TRIED] += 1
                if alpha * upper <= best:
                    counters[CLASS_PRUNED] += 1
                sub_b[j] = min(sub_b[j], upper)
        if n_list == last_entry:
            break
        bit = one << np.uint64(n_list)
        bit_prop[n_list] = a
        for w in range(ext.shape[0]):
            word = ext[w] & bits[a, w]
            while word != 0:
                codes[w * 64 + trailing_zeros(word)] |= bit
                word &= word - np.uint64(1)
        n_list += 1
    return improved


@jit
def _new_columns(q, a, bit_prop, n_list, max_length, length, col_bit, rec_parent, rec_prop, pf):
    # For the subtree of q p_a over the list entries bit_prop[0..n_list-1]:
    # OUT col_bit[i], the bit of entry i's column among the columns that
    # q p_a does not constrain yet (0 for a column it does). Returns how
    # many new columns a set of entries may add (n_list: no limit).
    if max_length == 0:
        return n_list
    fa = pf[a]
    child = length + (0 if _uses_feature(q, fa, rec_parent, rec_prop, pf) else 1)
    n_new = 0
    for i in range(n_list):
        f = pf[bit_prop[i]]
        col_bit[i] = 0
        if f == fa or _uses_feature(q, f, rec_parent, rec_prop, pf):
            continue
        for k in range(i):  # the bit of an earlier entry on the same column
            if pf[bit_prop[k]] == f:
                col_bit[i] = col_bit[k]
                break
        if col_bit[i] == 0:
            col_bit[i] = 1 << n_new
            n_new += 1
    return max(0, max_length - child) if max_length - child < n_new else n_list


@jit
def _solve_subtree(ext, bits, a, codes, n_list, allowed, col_bit, best, zg, zw, gp, hp, cp,
                   code, n_total, reg_lambda):
    # The best query of the subtree of a child (rows ext & bits[a]) whose
    # remaining list has n_list entries, if its value exceeds ``best``:
    # every extension adds a set S of them, and its extent is the rows
    # whose code contains S. Sums per code, then per superset (the zeta
    # transform over the 2^n_list codes, O(n_list 2^n_list)), then the best
    # S that adds at most ``allowed`` new columns (``col_bit``: entry i's
    # new-column bit, 0 for a column already constrained; allowed ==
    # n_list: no limit) (S empty: the child itself, not counted). Returns
    # (value, S), or (0.0, 0) if no S beats ``best``.
    size = 1 << n_list
    for s in range(size):  # a loop, not a slice: views cost reference counting
        zg[s] = 0.0
        zw[s] = 0.0
    # The largest |g| and the smallest weight of the rows: every extent
    # then has weight W >= kappa |G| (kappa = wmin / gmax), a bound on W
    # that needs no superset sums of the weights.
    gmax, wmin = 0.0, np.inf
    for w in range(ext.shape[0]):
        word = ext[w] & bits[a, w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - np.uint64(1)
            c = codes[r]
            gi = gp[r]
            wi = cp[r] if code == 1 else hp[r]
            zg[c] += gi
            zw[c] += wi
            gmax = max(gmax, abs(gi))
            wmin = min(wmin, wi)
    lam = reg_lambda if code == 2 else 0.0
    kappa = wmin / gmax if gmax > 0.0 else 0.0
    # The usual answer is that no S beats ``best`` (measured on mobile
    # prices: 94% of the solves are settled by the gradient sums and the
    # bound on W, all but 9 of 1.5 million by the exact W).
    _superset_sums(zg, n_list)
    if not _any_above(zg, zw, size, best, code, n_total, lam, kappa, False):
        return 0.0, 0
    if code != 0:
        _superset_sums(zw, n_list)
        if not _any_above(zg, zw, size, best, code, n_total, lam, kappa, True):
            return 0.0, 0
    # Compare G^2 / den by cross multiplication (no division per set): den
    # is lambda + H (code 2), C (code 1) or 1 (code 0); the winner's value
    # is then computed by ``_objective``.
    best_num, best_den, found = 0.0, 1.0, 0
    limited = allowed < n_list
    for s in range(1, size):
        if limited and _popcount(_columns_of(s, col_bit)) > allowed:
            continue
        g = zg[s]
        den = 1.0 if code == 0 else lam + zw[s]
        if den > 0.0 and g * g * best_den > best_num * den:
            best_num, best_den, found = g * g, den, s
    if found == 0:
        return 0.0, 0
    g, w = zg[found], zw[found]
    return _objective(code, g, w, w if code == 1 else 1.0, n_total, reg_lambda), found


# ``_any_above`` and ``_superset_sums`` are inlined into ``_solve_subtree``
# (2% of mobile prices' search, the reference counting of their array
# arguments). Inlining ``_solve_subtree`` or ``_code_class_bound`` into
# ``_bound_subtrees``, or the node helpers into ``run_search``, was slower
# (measured in session 8).
@jit_inline
def _any_above(zg, zw, size, best, code, n_total, lam, kappa, exact_weights):
    # Could any set s = 1..size-1 have an objective above ``best``? By
    # ``_objective``, value > best if and only if G^2 > t (lam + W) (code
    # 0: G^2 > t), with t = 2 n best (code 2) or best^2. W is zw[s] with
    # ``exact_weights``, else its lower bound kappa |G| (then a yes may be
    # wrong, a no is not). No loop-carried state, so the loop vectorises,
    # unlike the search for the best set. t is lowered by a relative 1e-9
    # so that rounding cannot hide a set whose value is above best.
    if best <= 0.0:
        return True
    t = (2.0 * n_total * best if code == 2 else best * best) * (1.0 - 1e-9)
    count = 0
    if code == 0:
        for s in range(1, size):
            count += zg[s] * zg[s] > t
    elif exact_weights:
        for s in range(1, size):
            count += zg[s] * zg[s] > t * (lam + zw[s])
    else:
        for s in range(1, size):
            count += zg[s] * zg[s] > t * (lam + kappa * abs(zg[s]))
    return count > 0


@jit_inline
def _superset_sums(z, n_list):
    # The zeta transform over subsets of n_list bits, in place: z[s] becomes
    # the sum of z[t] over every t that contains s (t & s == s).
    # The three lowest bits are done in registers per block of 8 entries,
    # and each higher bit by adding contiguous halves, which vectorise: 4x
    # faster than the textbook triple loop at 10 to 12 bits.
    size = 1 << n_list
    low = 0
    if n_list >= 3:
        low = 3
        for b in range(0, size, 8):
            x0, x1, x2, x3 = z[b], z[b + 1], z[b + 2], z[b + 3]
            x4, x5, x6, x7 = z[b + 4], z[b + 5], z[b + 6], z[b + 7]
            x0 += x1  # bit 0
            x2 += x3
            x4 += x5
            x6 += x7
            x0 += x2  # bit 1
            x1 += x3
            x4 += x6
            x5 += x7
            x0 += x4  # bit 2
            x1 += x5
            x2 += x6
            x3 += x7
            z[b], z[b + 1], z[b + 2], z[b + 3] = x0, x1, x2, x3
            z[b + 4], z[b + 5], z[b + 6], z[b + 7] = x4, x5, x6, x7
    # Unsigned indices: numba then needs no wraparound test, and the inner
    # loop vectorises without array views (whose reference counting cost
    # as much as the additions).
    one = np.uint64(1)
    end = np.uint64(size)
    for i in range(low, n_list):
        step = one << np.uint64(i)
        base = np.uint64(0)
        while base < end:
            for s in range(step):
                z[base + s] += z[base + step + s]
            base += step + step


@jit_inline
def _columns_of(s, col_bit):
    # The OR of the new-column bits of the entries in set s.
    cols = 0
    while s != 0:
        cols |= col_bit[trailing_zeros(s)]
        s &= s - 1
    return cols


@jit
def _popcount(x):
    count = 0
    while x != 0:
        x &= x - 1
        count += 1
    return count


@jit
def _sort_by_key(items, keys, k):
    # Sort items[:k] by keys[:k] ascending, in place (both arrays): insertion
    # sort for the usual handful of classes, else a heapsort (np.argsort
    # allocates on every call). Not stable; the bound does not depend on the
    # order of tied ratios (along a line of equal ratio the objective is
    # convex, so all or none of a tie is best).
    if k > 32:
        _heap_sort(items, keys, k)
        return
    for i in range(1, k):
        key, item = keys[i], items[i]
        j = i - 1
        while j >= 0 and keys[j] > key:
            keys[j + 1] = keys[j]
            items[j + 1] = items[j]
            j -= 1
        keys[j + 1] = key
        items[j + 1] = item


@jit
def _heap_sort(items, keys, k):
    # Heapsort of items[:k] by keys[:k] ascending, in place.
    for start in range((k - 2) // 2, -1, -1):
        _sift_down(items, keys, start, k)
    for end in range(k - 1, 0, -1):
        keys[0], keys[end] = keys[end], keys[0]
        items[0], items[end] = items[end], items[0]
        _sift_down(items, keys, 0, end)


@jit
def _sift_down(items, keys, i, n):
    while True:
        child = 2 * i + 1
        if child >= n:
            return
        if child + 1 < n and keys[child + 1] > keys[child]:
            child += 1
        if not keys[child] > keys[i]:
            return
        keys[i], keys[child] = keys[child], keys[i]
        items[i], items[child] = items[child], items[i]
        i = child


# ---------------------------------------------------------------- open list

@jit_inline
def _heap_less(b1, t1, b2, t2):
    # Larger bound first; on ties the older entry (smaller tie number).
    return b1 > b2 or (b1 == b2 and t1 < t2)


@jit_inline
def _push(order, istate, open_b, open_t, open_rec, open_e, bnd, rec, e):
    i = istate[N_OPEN]
    istate[N_OPEN] = i + 1
    t = istate[TIE]
    istate[TIE] = t + 1
    open_b[i], open_t[i], open_rec[i], open_e[i] = bnd, t, rec, e
    if order != BEST_FIRST:
        return
    while i > 0:  # sift up
        parent = (i - 1) >> 1
        if not _heap_less(open_b[i], open_t[i], open_b[parent], open_t[parent]):
            break
        _swap(open_b, open_t, open_rec, open_e, i, parent)
        i = parent


@jit_inline
def _swap(open_b, open_t, open_rec, open_e, i, j):
    open_b[i], open_b[j] = open_b[j], open_b[i]
    open_t[i], open_t[j] = open_t[j], open_t[i]
    open_rec[i], open_rec[j] = open_rec[j], open_rec[i]
    open_e[i], open_e[j] = open_e[j], open_e[i]


@jit_inline
def _pop(order, istate, open_b, open_t, open_rec, open_e):
    # Returns (bound, record, entry) of the next open query.
    if order == BREADTH_FIRST:
        i = istate[OPEN_HEAD]
        istate[OPEN_HEAD] = i + 1
        return open_b[i], open_rec[i], open_e[i]
    n = istate[N_OPEN] - 1
    istate[N_OPEN] = n
    if order == DEPTH_FIRST:
        return open_b[n], open_rec[n], open_e[n]
    top = (open_b[0], open_rec[0], open_e[0])
    _swap(open_b, open_t, open_rec, open_e, 0, n)
    i = 0
    while True:  # sift down
        left = 2 * i + 1
        if left >= n:
            break
        child = left
        if left + 1 < n and _heap_less(open_b[left + 1], open_t[left + 1],
                                       open_b[left], open_t[left]):
            child = left + 1
        if not _heap_less(open_b[child], open_t[child], open_b[i], open_t[i]):
            break
        _swap(open_b, open_t, open_rec, open_e, i, child)
        i = child
    return top


# ---------------------------------------------------------------- the loop

@jit
def run_search(Xp, gp, hp, cp, n_bins, pf, pop, pb, bits, full,
               code, n_total, reg_lambda, alpha, check_core, max_length, order, max_expansions,
               use_bits,
               open_b, open_t, open_rec, open_e,
               rec_parent, rec_prop, rec_length, rec_aug_off, rec_aug_len, store_ext, rec_ext,
               aug_a, aug_b, aug_c,
               istate, fstate, counters,
               ext, child_ext, rows, child_rows, counts, lo_hi, child_counts, child_lo_hi,
               stamps, known, implied, sums,
               row_props, node_implied, acc, sub_b, sub_m, needs_bound,
               subtree_bounds, codes, gkey, gid, gstamp, counter, cg, cw, touched, keys, zg, zw,
               bit_prop, shared, best_extra, col_bit, col_entries, col_sums, col_keys,
               col_order, col_hull, col_props, qcols, acols):
    # Algorithm 1 of [1] until the open list is empty (DONE), an array may
    # overflow (GROW: the caller enlarges it and calls again), the best
    # value improved (IMPROVED) or ``max_expansions`` queries were expanded
    # in this call (BATCH).
    # IN: data and propositions as in the module docstring; check_core
    #     False keeps only the q -> p_a equivalence pruning; max_length 0
    #     = unlimited, else the most columns (conditions) of a query, and
    #     core queries are those of the closure restricted to the query's
    #     own columns (see ``_BranchAndBound``); col_props (d, PW) bit j of
    #     row f: p_j is on feature f; use_bits: implications
    #     and refinements by bitset operations (small n) rather than by
    #     per-feature counts and row filters (large n); store_ext: records
    #     keep their extent's bitset in rec_ext (R, W) (small n) instead of
    #     recomputing it from the query.
    # IN/OUT: the open list, records, pools, state and counters; shared[0]
    #     the best value of all threads searching the same problem (read at
    #     every pop, raised on improvement; a lost update between threads
    #     only weakens pruning, as every value in it is some query's value);
    #     shared[1] != 0 asks the thread to return (BATCH) at its next pop:
    #     another thread ended its batch, and they meet to rebalance.
    # SCRATCH: the rest (qcols, acols (PW,) uint64: the columns of q and
    #     of q p_a as proposition masks, all ones without a length limit).
    n_props = pf.shape[0]
    neg_start = negative_start(gp)
    expanded_here = 0
    stamp = stamps.max()
    while True:
        if order == BREADTH_FIRST:
            if istate[OPEN_HEAD] >= istate[N_OPEN]:
                return DONE
        elif istate[N_OPEN] == 0:
            return DONE
        if expanded_here >= max_expansions or shared[1] != 0.0:
            return BATCH
        if (istate[N_OPEN] + n_props > open_b.shape[0]
                or istate[N_RECORDS] + 1 > rec_parent.shape[0]
                or istate[AUG_USED] + n_props > aug_a.shape[0]):
            return GROW
        bnd, record, e = _pop(order, istate, open_b, open_t, open_rec, open_e)
        best = max(fstate[BEST_VALUE], shared[0])
        if alpha * bnd <= best:
            # The best value rose to this query's bound since it was pushed.
            counters[OPEN_PRUNED] += 1
            fstate[PRUNED_MAX] = max(fstate[PRUNED_MAX], bnd)
            continue
        expanded_here += 1
        istate[EXPANDED] += 1
        # The popped query q: a new record unless it is the record's own query.
        if e < 0:
            q = record
            tail = rec_prop[q]
            first, last = rec_aug_off[q], rec_aug_off[q] + rec_aug_len[q]
        else:
            q = istate[N_RECORDS]
            istate[N_RECORDS] = q + 1
            rec_parent[q] = record
            rec_prop[q] = aug_a[e]
            # Length counts conditions: the columns the query constrains.
            rec_length[q] = rec_length[record] + (
                0 if _uses_feature(record, pf[aug_a[e]], rec_parent, rec_prop, pf) else 1)
            tail = aug_a[e]
            first, last = e + 1, rec_aug_off[record] + rec_aug_len[record]
        if not store_ext:
            _query_extent(q, rec_parent, rec_prop, bits, full, ext)
        elif e < 0:
            for w in range(ext.shape[0]):
                ext[w] = rec_ext[q, w]
        else:
            # One cache line or two instead of a walk up the records.
            for w in range(ext.shape[0]):
                ext[w] = rec_ext[record, w] & bits[tail, w]
        node = istate[EXPANDED]
        # Only the counts path needs q's positions; with bitsets q is dense
        # enough (it has children) that word-wise tests are as fast.
        m = -1
        if not use_bits:
            m = _extract(ext, rows)
            # Large data: implications from per-feature counts (m x d)
            # rather than one n / 64-word test per proposition.
            _implied_by_node(Xp, rows, m, n_bins, pf, pop, pb, counts, lo_hi, implied)
            for j in range(known.shape[0]):  # a loop: see _query_extent
                known[j] = node
        have_implied = False  # node_implied is filled on first need
        if max_length > 0:
            _query_columns(q, rec_parent, rec_prop, pf, col_props, qcols)
        improved = False
        start = istate[AUG_USED]
        kept = 0
        # One condition left under the limit: new columns are solved here
        # (``_solve_columns``), not pushed as children.
        solve_columns = (max_length > 0 and subtree_bounds
                         and rec_length[q] == max_length - 1)
        n_col_entries = 0
        for k in range(first, last):
            a, b, crit = aug_a[k], aug_b[k], aug_c[k]
            new_column = (max_length > 0
                          and not qcols[a >> 6] >> np.uint64(a & 63) & np.uint64(1))
            if new_column and rec_length[q] >= max_length:
                # A new column (qcols: the propositions on q's columns)
                # beyond the length limit, in q p_a and in all extensions
                # of q (columns only accumulate): dropped here and so from
                # every list below q.
                continue
            if check_core and crit < tail:
                # eq. 3.8: the witness crit (q_parent p_a -> p_crit, q_parent
                # does not) lies before tail(q): no core query extending q
                # contains p_a (Theorem 3.2).
                counters[EQUIV_PROPAGATED] += 1
                continue
            if alpha * b <= best:
                # OPUS: b bounds the parent's refinement by p_a, whose extent
                # contains those of q p_a and all its extensions.
                counters[BOUND_PROPAGATED] += 1
                fstate[PRUNED_MAX] = max(fstate[PRUNED_MAX], b)
                continue
            if new_column and solve_columns:
                col_entries[n_col_entries] = k
                n_col_entries += 1
                continue
            if _is_implied(a, ext, rows, m, bits, node, known, implied) and not new_column:
                # q p_a is equivalent to q; so is every extension of both.
                # Under a length limit only on q's columns: on a new column
                # q p_a has q's extent but another closure (the column's
                # propositions implied by the extent), a core query of its
                # own, whose children may be core queries reached from no
                # other node (a witness p_a < p_b of q p_b on p_a's column).
                counters[IMPLIED] += 1
                continue
            if use_bits:
                m_a, b_a = _evaluate_child(ext, bits, a, child_ext, neg_start, gp, hp, cp, code,
                                           n_total, reg_lambda, sums, child_rows)
            else:
                f = pf[a]
                m_a = _refine(Xp, rows, m, f, pop[a], pb[a], n_bins[f], gp, hp, cp, child_rows,
                              sums)
                b_a = bound(child_rows, m_a, gp, hp, cp, code, n_total, reg_lambda)
            if m_a == 0:
                counters[BOUND_IMMEDIATE] += 1  # objective 0, extensions too
                continue
            istate[EVALUATED] += 1
            value = _objective(code, sums[0], sums[1], sums[2], n_total, reg_lambda)
            if value > best:
                best = value
                fstate[BEST_VALUE] = value
                if value > shared[0]:
                    shared[0] = value
                istate[BEST_RECORD] = q
                istate[BEST_PROP] = a
                best_extra[0] = 0
                improved = True
            if alpha * b_a <= best:
                counters[BOUND_IMMEDIATE] += 1
                fstate[PRUNED_MAX] = max(fstate[PRUNED_MAX], b_a)
                continue
            if not check_core:
                c_a = a
            elif crit < a and not (_is_implied(crit, ext, rows, m, bits, node, known, implied)
                                   and qcols[crit >> 6] >> np.uint64(crit & 63) & np.uint64(1)):
                # eq. 3.7: q p_a -> p_crit still and q does not imply p_crit:
                # q p_a is not a core query; the entry stays for siblings.
                c_a = crit
                counters[CRIT_REUSED] += 1
            elif use_bits:
                if not have_implied:
                    _node_implications(ext, bits, _list_end(aug_a, first, last), node_implied)
                    have_implied = True
                _child_columns(qcols, col_props, pf[a], max_length, acols)
                c_a = _critical_index_rows(child_ext, a, row_props, node_implied, qcols, acols,
                                           acc)
            else:
                stamp += 1
                _child_columns(qcols, col_props, pf[a], max_length, acols)
                c_a = _critical_index(Xp, child_rows, m_a, a, n_bins, pf, pop, pb, implied,
                                      child_counts, child_lo_hi, stamp, stamps,
                                      qcols, acols)
            aug_a[start + kept] = a
            aug_b[start + kept] = b_a
            aug_c[start + kept] = c_a
            # A core child to be pushed gets its subtree bounded (or
            # solved) once the node's list is final (``_bound_subtrees``).
            sub_b[kept] = b_a
            sub_m[kept] = m_a
            # Under a length limit a child at the limit still has a subtree:
            # further propositions on its columns (an interval's other end).
            needs_bound[kept] = c_a == a
            kept += 1
        if n_col_entries > 0 and _solve_columns(
                ext, Xp, n_bins, pf, pop, pb, gp, hp, cp, code, n_total, reg_lambda, alpha,
                aug_a, aug_b, col_entries, n_col_entries, col_sums, col_keys, col_order,
                col_hull, q, istate, fstate, counters, shared, best_extra):
            improved = True
            best = fstate[BEST_VALUE]
        kept = _drop_overtaken(aug_a, aug_b, aug_c, sub_b, sub_m, needs_bound, start, kept,
                               alpha, best, counters, fstate)
        if subtree_bounds and _bound_subtrees(
                ext, bits, aug_a, sub_b, sub_m, needs_bound, start, kept, codes, gkey, gid,
                gstamp, counter, zg, zw, bit_prop, gp, hp, cp, code, n_total, reg_lambda, cg, cw,
                touched, keys, alpha, max_length, rec_length[q], q, istate, fstate, counters,
                shared, best_extra, col_bit, rec_parent, rec_prop, pf):
            improved = True
            best = fstate[BEST_VALUE]
        pushed = _push_children(order, istate, open_b, open_t, open_rec, open_e, aug_a, aug_c,
                                sub_b, start, kept, q, rec_length[q], max_length, alpha, best,
                                counters, fstate)
        if pushed > 0:
            rec_aug_off[q] = start
            rec_aug_len[q] = kept
            istate[AUG_USED] = start + kept
            if store_ext:
                for w in range(ext.shape[0]):
                    rec_ext[q, w] = ext[w]
        else:
            rec_aug_off[q] = start
            rec_aug_len[q] = 0
            if e >= 0 and istate[BEST_RECORD] != q:
                istate[N_RECORDS] = q  # nothing refers to q: drop its record
        if improved:
            return IMPROVED


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


@jit
def _list_end(aug_a, first, last):
    # One past the largest proposition of the list entries first..last-1.
    top = 0
    for k in range(first, last):
        top = max(top, aug_a[k] + 1)
    return top


@jit
def _drop_overtaken(aug_a, aug_b, aug_c, sub_b, sub_m, needs_bound, start, kept, alpha, best,
                    counters, fstate):
    # Entries whose bound the best value reached later in the same node.
    n = 0
    for k in range(start, start + kept):
        if alpha * aug_b[k] <= best:
            counters[BOUND_AFTER_CHILDREN] += 1
            fstate[PRUNED_MAX] = max(fstate[PRUNED_MAX], aug_b[k])
            continue
        aug_a[start + n], aug_b[start + n], aug_c[start + n] = aug_a[k], aug_b[k], aug_c[k]
        sub_b[n] = sub_b[k - start]
        sub_m[n] = sub_m[k - start]
        needs_bound[n] = needs_bound[k - start]
        n += 1
    return n


@jit
def _push_children(order, istate, open_b, open_t, open_rec, open_e, aug_a, aug_c, sub_b,
                   start, kept, q, length, max_length, alpha, best, counters, fstate):
    # Line 15: only core queries (critical index = own index) are pushed,
    # with the bound of their subtree (sub_b, by list position).
    # Returns how many.
    pushed = 0
    for i in range(kept):
        # Depth-first pops the last pushed: push in reverse so that the
        # lowest proposition is expanded first.
        j = kept - 1 - i if order == DEPTH_FIRST else i
        k = start + j
        if aug_c[k] != aug_a[k]:
            counters[NOT_CORE] += 1
            continue
        if alpha * sub_b[j] <= best:
            # The subtree's class bound prunes it; the entry stays in the
            # list, with its row bound, for the siblings (OPUS).
            counters[BOUND_SUBTREE] += 1
            fstate[PRUNED_MAX] = max(fstate[PRUNED_MAX], sub_b[j])
            continue
        _push(order, istate, open_b, open_t, open_rec, open_e, sub_b[j], q, k)
        pushed += 1
    istate[PUSHED] += pushed
    return pushed
