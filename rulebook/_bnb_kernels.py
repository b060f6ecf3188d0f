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
(``_solve_subtree``); a solve runs only where a sieve over the node's rows
(``_sieve_subtrees``, the children with lists of at most ``SIEVE_MAX_LIST``)
finds a set that may beat the incumbent, and tests in single precision
first (``_may_beat``), which leaves the results as they were. (numba's
cache keys a kernel on its own file only: this module's cached loop keeps
the code of its parts' kernels, so a change to them must touch this file.) Otherwise rows of equal code form classes, and
Theorem 3.1 over the classes (``_code_class_bound``) bounds the subtree;
it is never looser than the bound over classes of *all* propositions after
the child (finer classes), which it replaced.

Critical indices use each row's proposition bitset (``row_props``): the
propositions ``j < a`` implied by ``q p_a`` but not by ``q`` are the AND of
its rows' sets minus the node's implied set, which is usually empty after a
row or two (``_critical_index_rows``).

Modules
-------
This module holds the loop (:func:`run_search`, the open list, pushing
children); its parts live beside it: :mod:`._bnb_layout` (state slots,
counters, tuning constants), :mod:`._bnb_extents` (bitsets, extents,
implications, critical indices, evaluating a child), :mod:`._bnb_subtrees`
(exact subtree solves and class bounds) and :mod:`._bnb_columns` (the last
condition under a length limit, per column). Their names are re-exported
here.

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

# The parts' kernels and constants that the rest of the package and the
# tests use as ``rulebook._bnb_kernels.<name>``.
from ._bnb_columns import (  # noqa: F401
    _best_category_set,
    _best_interval,
    _column_sums,
    _solve_columns,
)
from ._bnb_extents import (  # noqa: F401
    _child_columns,
    _critical_index,
    _critical_index_rows,
    _evaluate_child,
    _extract,
    _implied_by_node,
    _is_implied,
    _node_implications,
    _query_columns,
    _query_extent,
    _refine,
    _uses_feature,
    proposition_bits,
    ratio_sort_keys,
    row_proposition_bits,
)
from ._bnb_layout import (  # noqa: F401
    AUG_USED,
    BATCH,
    BEST_FIRST,
    BEST_PROP,
    BEST_RECORD,
    BEST_VALUE,
    BOUND_AFTER_CHILDREN,
    BOUND_IMMEDIATE,
    BOUND_PROPAGATED,
    BOUND_SUBTREE,
    BREADTH_FIRST,
    CLASS_SAMPLE,
    CLASS_TRIAL,
    CLASS_TRIED,
    COLUMNS_SOLVED,
    CRIT_REUSED,
    DEPTH_FIRST,
    DONE,
    EQUIV_PROPAGATED,
    EVALUATED,
    EXACT_MAX_LIST,
    EXPANDED,
    GROW,
    IMPLIED,
    IMPROVED,
    N_COUNTERS,
    N_ISTATE,
    N_OPEN,
    N_RECORDS,
    NOT_CORE,
    OPEN_HEAD,
    OPEN_PRUNED,
    PRUNED_MAX,
    PUSHED,
    SUBTREE_SOLVED,
    TIE,
)
from ._bnb_subtrees import (  # noqa: F401
    _bound_subtrees,
    _code_class_bound,
    _solve_subtree,
    _superset_sums,
    negative_start,
)
from ._bound_kernels import bound
from ._config import jit, jit_inline
from .objectives import _objective

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
                # Kept in the list too, unevaluated and never pushed: q p_a
                # (and all its subtree, p_a's column only) is what
                # ``_solve_columns`` solves, but a child of q on q's own
                # columns (an interval narrowed, still one condition short)
                # extends by these new columns. The parent's bound of p_a
                # bounds q p_a too; no witness is known (aug_c = a).
                aug_a[start + kept] = a
                aug_b[start + kept] = b
                aug_c[start + kept] = a
                sub_b[kept] = -np.inf
                sub_m[kept] = 0
                needs_bound[kept] = False
                kept += 1
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
