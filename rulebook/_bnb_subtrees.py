"""Bounds of whole subtrees in the branch and bound.

A core child's subtree adds subsets of its remaining list: small lists are
solved exactly (sums per code, zeta transform over supersets,
``_solve_subtree``), larger ones bounded by Theorem 3.1 over classes of rows
of equal code (``_code_class_bound``). Most solves find nothing better, so
they are filtered first: a node's children with the shortest lists by one
transform over the node's rows (``_sieve_subtrees``), and within a solve by
the least gradient a better set must have (``_gradient_floors``) before the
weights are summed. Also the small sorts and heaps these use. Part of :mod:`rulebook._bnb_kernels` (see its docstring).

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (Theorem 3.1).
"""

import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ._bnb_extents import _uses_feature
from ._bnb_layout import (
    BEST_PROP,
    BEST_RECORD,
    BEST_VALUE,
    CLASS_BOUND_MAX_FRACTION,
    CLASS_FIRST_LIST,
    CLASS_PRUNE_RATE_INV,
    CLASS_PRUNED,
    CLASS_SAMPLE,
    CLASS_TRIAL,
    CLASS_TRIAL_BARREN,
    CLASS_TRIED,
    EXACT_MAX_LIST,
    EXACT_ROWS_FACTOR,
    EXPANDED,
    SIEVE_MAX_LIST,
    SIEVE_MIN_CHILDREN,
    SINGLE_MIN_LIST,
    SUBTREE_SOLVED,
)
from ._config import jit, jit_helper, jit_inline
from .objectives import _objective


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
    tried, pruned = counters[CLASS_TRIED], counters[CLASS_PRUNED]
    class_on = ((tried < CLASS_TRIAL and (pruned > 0 or tried < CLASS_TRIAL_BARREN))
                or pruned * CLASS_PRUNE_RATE_INV >= tried
                or istate[EXPANDED] % CLASS_SAMPLE == 0)
    # Codes of more entries than a solve takes serve only the class bound.
    last_entry = 64 if class_on else EXACT_MAX_LIST
    # The subtrees that may be solved below, as a bitmask of their list
    # lengths, and one sieve for all of them (``_sieve_subtrees``): only
    # those it flags are solved. The codes of the last n_built entries are
    # built by it; solves mask the higher bits off, class bounds clear them.
    n_built, flagged = _sieve_subtrees(ext, bits, aug_a, sub_b, sub_m, needs_bound, start,
                                       first, kept, alpha, best, codes, bit_prop, zg, zw, gp,
                                       hp, cp, code, n_total, reg_lambda)
    n_list = 0
    for j in range(kept - 1, first - 1, -1):
        a = aug_a[start + j]
        if needs_bound[j] and alpha * sub_b[j] > best:
            if n_list == 0:
                sub_b[j] = -np.inf  # no augmentation left: no subtree
            elif n_list <= EXACT_MAX_LIST and (1 << n_list) <= EXACT_ROWS_FACTOR * sub_m[j]:
                # Without a limit every set is allowed; the call is skipped,
                # as its five array arguments cost reference counting per solve.
                allowed = n_list if max_length == 0 else _new_columns(
                    q, a, bit_prop, n_list, max_length, length, col_bit, rec_parent, rec_prop,
                    pf)
                value, found = 0.0, 0
                solve = (flagged >> n_list) & 1
                if solve and class_on and n_list >= CLASS_FIRST_LIST:
                    # The class bound first (cheap next to 2^L sums): where it
                    # prunes, no set of the subtree beats ``best``.
                    upper = _code_class_bound(
                        ext, bits, a, codes, (one << np.uint64(n_list)) <= np.uint64(T),
                        int(CLASS_BOUND_MAX_FRACTION * sub_m[j]), gkey, gid, gstamp, counter,
                        gp, hp, cp, code, n_total, reg_lambda, cg, cw, touched, keys)
                    counters[CLASS_TRIED] += 1
                    if alpha * upper <= best:
                        counters[CLASS_PRUNED] += 1
                        solve = False
                if solve:
                    value, found = _solve_subtree(ext, bits, a, codes, n_list, allowed, col_bit,
                                                  best, zg, zw, gp, hp, cp, code, n_total,
                                                  reg_lambda)
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
                if n_list < n_built:
                    # Classes are of the child's own entries: the codes'
                    # higher bits (the sieve's) are cleared, and rebuilt
                    # below entry by entry (rare: a child of few rows).
                    low = (one << np.uint64(n_list)) - one
                    for w in range(ext.shape[0]):
                        word = ext[w]
                        while word != 0:
                            codes[w * 64 + trailing_zeros(word)] &= low
                            word &= word - one
                    n_built = n_list
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
        if n_list < n_built:  # its code bit is set already
            n_list += 1
            continue
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
def _sieve_subtrees(ext, bits, aug_a, sub_b, sub_m, needs_bound, start, first, kept, alpha,
                    best, codes, bit_prop, zg, zw, gp, hp, cp, code, n_total, reg_lambda):
    # The children that ``_bound_subtrees`` may solve (list length L =
    # kept - 1 - j between 1 and EXACT_MAX_LIST, 2^L <= EXACT_ROWS_FACTOR
    # rows, still above ``best``: ``best`` only rises in that loop, so it
    # solves no other) have nested lattices: with codes over the node's
    # rows (bit i: the i-th entry from the end) the sets of child j's
    # subtree are the codes whose highest bit is L, and the sums over the
    # node's rows whose code contains such a set are the child's. One
    # accumulation over the node's rows and one zeta transform over
    # n_built = 1 + (largest L) bits then test every child at once, where
    # each solve would visit its rows again (a node's children share most
    # of them) and transform its own 2^L sums. A child is flagged when one
    # of its sets may beat ``best`` (in a different order of summation
    # than the solve's, hence margins); only flagged children are solved,
    # exactly as before, so results do not change. With fewer than
    # SIEVE_MIN_CHILDREN candidates nothing is sieved (all flagged).
    # OUT codes (ext's rows) for the last n_built entries, bit_prop[0..n_built-1].
    # Returns (n_built, bitmask of flagged list lengths).
    top, n_cand = 0, 0
    for j in range(max(first, kept - 1 - SIEVE_MAX_LIST), kept - 1):
        L = kept - 1 - j
        if (needs_bound[j] and alpha * sub_b[j] > best
                and (1 << L) <= EXACT_ROWS_FACTOR * sub_m[j]):
            n_cand += 1
            top = max(top, L)
    if n_cand < SIEVE_MIN_CHILDREN or best <= 0.0:
        return 0, -1
    n_built = top + 1
    one = np.uint64(1)
    size = 1 << n_built
    for s in range(size):
        zg[s] = 0.0
        zw[s] = 0.0
    for i in range(n_built):  # codes of ext's rows are zero here
        a = aug_a[start + kept - 1 - i]
        bit_prop[i] = a
        bit = one << np.uint64(i)
        for w in range(ext.shape[0]):
            word = ext[w] & bits[a, w]
            while word != 0:
                codes[w * 64 + trailing_zeros(word)] |= bit
                word &= word - one
    abs_g, sum_w = 0.0, 0.0
    for w in range(ext.shape[0]):
        word = ext[w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - one
            c = codes[r]
            gi = gp[r]
            wi = cp[r] if code == 1 else hp[r]
            zg[c] += gi
            zw[c] += wi
            abs_g += abs(gi)
            sum_w += wi
    _superset_sums(zg, n_built)
    _superset_sums(zw, n_built)
    # A set's value exceeds ``best`` iff G^2 > t (lam + W) (code 0: G^2 >
    # t), t as in ``_any_above`` lowered by a relative 1e-9; G and W may
    # differ from the solve's sums by rounding, at most a few units of
    # 2^-52 of abs_g, sum_w per addition (2^n_built + rows of them): 1e-9
    # of them is far more.
    lam = reg_lambda if code == 2 else 0.0
    t = (2.0 * n_total * best if code == 2 else best * best) * (1.0 - 1e-9)
    dg, dw = 1e-9 * abs_g, 1e-9 * sum_w
    flagged = -(1 << n_built)  # longer lists are solved unsieved
    for L in range(1, n_built):
        count = 0
        for s in range((1 << L) + 1, 1 << (L + 1)):
            g = abs(zg[s]) + dg
            den = 1.0 if code == 0 else lam + max(zw[s] - dw, 0.0)
            count += g * g > t * den
        if count > 0:
            flagged |= 1 << L
    return n_built, flagged


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
    if (n_list >= SINGLE_MIN_LIST and code != 0 and best > 0.0
            and not _may_beat(ext, bits, a, codes, n_list, best, zg, gp, hp, cp, code, n_total,
                              reg_lambda)):
        return 0.0, 0
    for s in range(size):  # a loop, not a slice: views cost reference counting
        zg[s] = 0.0
        zw[s] = 0.0
    abs_g = 0.0
    for w in range(ext.shape[0]):
        word = ext[w] & bits[a, w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - np.uint64(1)
            c = codes[r] & (size - 1)  # the higher bits: earlier entries
            gi = gp[r]
            zg[c] += gi
            zw[c] += cp[r] if code == 1 else hp[r]
            abs_g += abs(gi)
    lam = reg_lambda if code == 2 else 0.0
    # The usual answer is that no S beats ``best`` (measured on friedman1:
    # 99% of the solves), settled by the gradient sums alone where it can
    # (``_gradient_floors``), else by the exact W.
    _superset_sums(zg, n_list)
    if best > 0.0:
        t = (2.0 * n_total * best if code == 2 else best * best) * (1.0 - 1e-9)
        if code == 0:
            lo_pos = lo_neg = np.sqrt(t)
        else:
            lo_pos, lo_neg = _gradient_floors(ext, bits, a, gp, hp, cp, code, lam, t)
        # zg's sums and the floors' may differ by rounding: 1e-9 of the
        # rows' |g| is far more than it.
        margin = 1e-9 * abs_g
        if not _any_beyond(zg, size, lo_pos - margin, lo_neg - margin):
            return 0.0, 0
    if code != 0:
        _superset_sums(zw, n_list)
        if not _any_above(zg, zw, size, best, code, n_total, lam):
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
def _any_above(zg, zw, size, best, code, n_total, lam):
    # Could any set s = 1..size-1 have an objective above ``best``? By
    # ``_objective``, value > best if and only if G^2 > t (lam + W) (code
    # 0: G^2 > t), with t = 2 n best (code 2) or best^2, G = zg[s] and
    # W = zw[s]. No loop-carried state, so the loop vectorises, unlike the
    # search for the best set. t is lowered by a relative 1e-9 so that
    # rounding cannot hide a set whose value is above best.
    if best <= 0.0:
        return True
    t = (2.0 * n_total * best if code == 2 else best * best) * (1.0 - 1e-9)
    count = 0
    if code == 0:
        for s in range(1, size):
            count += zg[s] * zg[s] > t
    else:
        for s in range(1, size):
            count += zg[s] * zg[s] > t * (lam + zw[s])
    return count > 0


@jit_inline
def _may_beat(ext, bits, a, codes, n_list, best, zg, gp, hp, cp, code, n_total, reg_lambda):
    # Could a set S (1..2^n_list - 1) of ``_solve_subtree``'s subtree beat
    # ``best``? Its tests in single precision: half the memory and twice
    # the additions per vector instruction, for the usual answer (no). A
    # yes sends the solve on in double precision, as before. The sums are
    # kept in zg's memory (2 x 2^n_list floats). Rounding: a sum of k
    # float32 terms in any order of pairwise additions is within (k - 1)
    # u sum|x| of the exact sum (u = 2^-24); a sum here has at most (rows
    # + n_list) additions and a rounding of each term, so the margins
    # below, twice that times sum |g| and sum w, cover every set. Codes are
    # 1 or 2 (code 0 has no weights and its test is exact in the solve).
    size = 1 << n_list
    z = zg.view(np.float32)
    zg32, zw32 = z[:size], z[size: 2 * size]
    for s in range(2 * size):
        z[s] = 0.0
    abs_g, sum_w, m = 0.0, 0.0, 0
    for w in range(ext.shape[0]):
        word = ext[w] & bits[a, w]
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - np.uint64(1)
            c = codes[r] & (size - 1)
            gi = gp[r]
            wi = cp[r] if code == 1 else hp[r]
            zg32[c] += np.float32(gi)
            zw32[c] += np.float32(wi)
            abs_g += abs(gi)
            sum_w += wi
            m += 1
    if abs_g > 1e37 or sum_w > 1e37:
        return True  # beyond float32's range: no test
    # (Also an absolute 2^-149, float32's spacing below 2^-126, per
    # addition and term.)
    rel = (m + n_list + 2) * 2.0 ** -23
    tiny = (m + n_list + 2) * 2.0 ** -148
    dg, dw = rel * abs_g + tiny, rel * sum_w + tiny
    lam = reg_lambda if code == 2 else 0.0
    t = (2.0 * n_total * best if code == 2 else best * best) * (1.0 - 1e-9)
    lo_pos, lo_neg = _gradient_floors(ext, bits, a, gp, hp, cp, code, lam, t)
    _superset_sums(zg32, n_list)
    # Rounded down to float32: a set at or above a floor stays so.
    hi_pos, hi_neg = _down32(lo_pos - dg), _down32(lo_neg - dg)
    count = 0
    for s in range(1, size):
        count += (zg32[s] >= hi_pos) | (-zg32[s] >= hi_neg)
    if count == 0:
        return False
    _superset_sums(zw32, n_list)
    count = 0
    for s in range(1, size):
        g = abs(np.float64(zg32[s])) + dg
        count += g * g > t * (lam + max(np.float64(zw32[s]) - dw, 0.0))
    return count > 0


@jit_inline
def _down32(x):
    # The largest float32 at most x (inf stays inf).
    y = np.float32(x)
    if np.float64(y) > x:
        y = np.nextafter(y, np.float32(-np.inf))
    return y


@jit_inline
def _gradient_floors(ext, bits, a, gp, hp, cp, code, lam, t):
    # Every extent S within the rows ext & bits[a] with value above the
    # threshold (G^2 > t (lam + W), W its weight) has G >= lo_pos or
    # -G >= lo_neg. The least weight of rows summing to a gradient G > 0
    # is at least W*(G), the weight of the prefix of the positive rows in
    # ratio order (positions are that order) reaching G, interpolated
    # within a row (the fractional knapsack); W*(G) is convex and
    # piecewise linear, so G^2 - t (lam + W*(G)) is convex on each piece
    # and positive on a piece only if it is at one of its ends. Hence
    # below the start of the first piece whose end is positive no G
    # qualifies: lo_pos is that start (inf if none), found walking
    # forward; lo_neg likewise from the negative rows, walking back.
    # Tighter than W >= (min w / max |g|) |G| (the bound it replaced):
    # on friedman1 it settles about half of the solves that needed the
    # superset sums of W (L = 9-12) without them.
    one = np.uint64(1)
    lo_pos, lo_neg = np.inf, np.inf
    G, W = 0.0, 0.0
    for w in range(ext.shape[0]):
        word = ext[w] & bits[a, w]
        done = False
        while word != 0:
            r = w * 64 + trailing_zeros(word)
            word &= word - one
            gi = gp[r]
            if not gi > 0.0:
                done = True
                break
            G1 = G + gi
            W1 = W + (cp[r] if code == 1 else hp[r])
            if G1 * G1 > t * (lam + W1):
                lo_pos = G
                done = True
                break
            G, W = G1, W1
        if done:
            break
    G, W = 0.0, 0.0
    for w in range(ext.shape[0] - 1, -1, -1):
        word = ext[w] & bits[a, w]
        done = False
        while word != 0:
            top = np.uint64(63 - leading_zeros(word))
            word ^= one << top
            r = np.uint64(w * 64) + top
            gi = gp[r]
            if not gi < 0.0:
                done = True
                break
            G1 = G - gi
            W1 = W + (cp[r] if code == 1 else hp[r])
            if G1 * G1 > t * (lam + W1):
                lo_neg = G
                done = True
                break
            G, W = G1, W1
        if done:
            break
    return lo_pos, lo_neg


@jit_inline
def _any_beyond(zg, size, lo_pos, lo_neg):
    # Is some zg[s] (s = 1..size-1) >= lo_pos or <= -lo_neg? Vectorises.
    count = 0
    for s in range(1, size):
        count += (zg[s] >= lo_pos) | (-zg[s] >= lo_neg)
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


@jit_helper
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


@jit_helper
def _heap_sort(items, keys, k):
    # Heapsort of items[:k] by keys[:k] ascending, in place.
    for start in range((k - 2) // 2, -1, -1):
        _sift_down(items, keys, start, k)
    for end in range(k - 1, 0, -1):
        keys[0], keys[end] = keys[end], keys[0]
        items[0], items[end] = items[end], items[0]
        _sift_down(items, keys, 0, end)


@jit_helper
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
