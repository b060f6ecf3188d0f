"""Compiled best-first branch and bound of the orthogonal rule search.

The whole search loop of :func:`rulebook.orthogonal.branch_and_bound`
(Yang et al. 2024, Algorithm 2 with ``w = inf``) in one numba kernel,
:func:`branch_and_bound`. Profiling the pure-Python loop on iris (25 rounds,
2,000 expansions per round) showed the compiled kernels it called
(histograms, scans, prefix values, row splits) at about 5% of its time: the
rest was per-child Python overhead (node objects, ``heapq`` tuples, hashing
of row arrays). This kernel makes the same decisions in the same order, on
the same floating-point values: given rows numbered in the bound's order
(the caller passes atoms, :func:`rulebook.orthogonal._atoms`), it returns
the query and statistics of the Python reference ``tests/naive.py``
(``tests/test_orthogonal_bnb.py``). The one difference is the duplicate
check, which keys extents by a 64-bit Zobrist hash of their rows instead of
Python's hash of the row bytes (both exact up to a hash collision,
probability about ``N^2 / 2^64`` for ``N`` distinct extents).

The kernel is written for a short first compile (it is compiled on a user's
first orthogonal fit): element loops instead of array expressions and slice
assignments, a hash table in one array (open addressing) instead of a typed
``Dict``, and a merge sort of its own instead of ``np.argsort``. Those
changes halved the compile time (``bench_greedy.py --compile-time-only``)
without changing a result. Fewer arrays held by the kernel also pay: each
costs reference counting in every block it is live in, and merging the
queue's four arrays into one, the table's two into one and moving scratch
arrays into the helpers that use them cut the unoptimised IR of the kernel
and its compile by about 12%.

Layout
------
An *expansion* is an expanded node: its parent expansion, the condition it
adds, its depth and bound, its rows as a bitset over the table's rows (n/8
bytes, however many rows it has: a list of them took up to 8 bytes a row,
gigabytes for a few hundred nodes at 10^6 rows), and, in pools grown by
doubling, its channel histograms (kept for the children's subtraction
trick) and its refinements sorted by value, best first, with a cursor
``next``. The queue
is a binary heap of expansions keyed ``(-bound, -value of the next
refinement, counter)``, as the Python reference's ``heapq`` tuples. A child
is materialised (its rows split off the parent's) only when popped; its
histograms are built only if it is expanded, and only for the features its
tail augmentations can use. Rows are numbered in the order of the
prefix-greedy bound, so every extent, kept ascending, is already sorted for
Algorithm 3 (the layout of :mod:`rulebook._bnb_kernels`).

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.3 (Algorithms 2-3).
.. [2] Zobrist, A. L. (1970). A new hashing method with application for
   game playing. Technical report 88, University of Wisconsin.
"""

import numpy as np
from numba import prange

from ._config import jit, jit_helper, jit_parallel
from ._orthogonal_kernels import (
    ORTHOGONAL,
    N,
    _orthogonal_value,
    build_channel_histograms_serial,
    decode,
    scan_all_serial,
)
from ._search_kernels import filter_rows

# Digits kept when snapping orthogonal values (orthogonal._TIE_DIGITS).
TIE_DIGITS = 12
# Slots of the ``stats`` output.
N_NODES, N_PRUNED, N_REFINEMENTS, BUDGET_EXHAUSTED, MEMORY_EXHAUSTED, N_STATS = range(6)
_TIE_FACTOR = 10.0 ** TIE_DIGITS
# Odd 64-bit constant (2^64 / golden ratio) mixing the extent size into its key.
_MIX = np.int64(-7046029254386353131)
# A budget or pool cap that never binds.
_UNLIMITED = int(np.iinfo(np.int64).max)


def _snap(value, code, scale):
    # Values equal up to rounding are ties (see orthogonal._TIE_DIGITS):
    # ChannelProblem._snap's ``np.round(value / scale, 12) * scale`` for one
    # value, spelled as NumPy computes it (multiply by 10^12, round half to
    # even, divide), so that compiling it needs no array rounding.
    if code != ORTHOGONAL:
        return value
    return np.rint(value / scale * _TIE_FACTOR) / _TIE_FACTOR * scale


def _grow(a, needed, cap):
    # ``a`` itself, or a copy of it with room for ``needed``: doubled, but
    # not past ``cap``, the most the pool can ever need (the node budget's
    # worth for the per-node pools): doubling a pool of 0.8 MB histograms
    # per node past the budget reserved memory no search could use.
    if needed <= a.shape[0]:
        return a
    b = np.empty(_grown(a.shape[0], needed, cap), a.dtype)
    _copy(a, a.shape[0], b, 0)
    return b


def _grown(size, needed, cap):
    # The length _grow gives an array of length ``size`` asked for ``needed``.
    return size if needed <= size else max(needed, min(2 * size, cap))


def _grow_hists(pool, needed, cap):
    # As _grow, for the pool of histograms (expansions, d, width, K'): one
    # 4-d array, so that an expansion's histograms are pool[e], not a
    # reshaped slice of a flat pool (each reshape costs the kernel compile
    # time).
    if needed <= pool.shape[0]:
        return pool
    _, d, width, k = pool.shape
    bigger = np.empty((_grown(pool.shape[0], needed, cap), d, width, k))
    for e in range(pool.shape[0]):
        for j in range(d):
            for b in range(width):
                for c in range(k):
                    bigger[e, j, b, c] = pool[e, j, b, c]
    return bigger


def _next_expansion_bytes(n_exp, n_hist, n_bits, hsize, n_order_used, n_ref_max, heap_size,
                          ei, hist_pool, bit_pool, order_pool, heap, table, entries, max_nodes):
    # Bytes of the pools once one more node is materialised and one more
    # expanded, at their largest:
    # its refinements at most n_ref_max; the table of seen extents as it is
    # (it grows at pops, ``_next_pop_bytes``).
    total = _grown(ei.shape[0], n_exp + 1, max_nodes) * (EI_COLUMNS * 8 + 8)  # ei row, bound
    total += _grown(hist_pool.shape[0], n_hist + 1, max_nodes) * hsize * 8
    total += _grown(bit_pool.shape[0], n_bits + 1, max_nodes) * bit_pool.shape[1] * 8
    # order and value
    total += _grown(order_pool.shape[0], n_order_used + n_ref_max, _UNLIMITED) * 16
    total += _grown(heap.shape[0], HEAP_FIELDS * (heap_size + 1), _UNLIMITED) * 8
    return total + entries.shape[0] * 24 + table.shape[0] * 16


def _next_pop_bytes(n_entries, n_keys, ei, hist_pool, bit_pool, order_pool, heap, table, entries):
    # Bytes of the pools once a popped child is recorded as seen: one more
    # entry, and one more key, which doubles the table at half load
    # (``_dominated``).
    total = ei.shape[0] * (EI_COLUMNS * 8 + 8) + hist_pool.size * 8 + bit_pool.size * 8
    total += order_pool.shape[0] * 16 + heap.shape[0] * 8
    slots = table.shape[0] * (2 if 2 * (n_keys + 1) > table.shape[0] else 1)
    return total + _grown(entries.shape[0], n_entries + 1, _UNLIMITED) * 24 + slots * 16


def _copy(source, n, target, at):
    # target[at:at + n] = source[:n], as a loop: slice assignment costs
    # seconds of compile time (the kernel is first compiled on a user's
    # first fit), a loop almost none.
    for i in range(n):
        target[at + i] = source[i]


def _store_rows(rows, n, bits):
    # bits (n_words,) int64, overwritten: the set of rows[:n], one bit a row
    # (row r: bit r % 64 of word r // 64).
    for w in range(bits.shape[0]):
        bits[w] = 0
    for i in range(n):
        r = rows[i]
        bits[r >> 6] |= np.int64(1) << (r & 63)


def _load_rows(bits, out):
    # out[:k] = the rows of the set, ascending; returns k.
    k = 0
    for w in range(bits.shape[0]):
        k = _emit_rows(bits[w], w, out, k)
    return k


def _load_difference(bits, minus, out):
    # out[:k] = the rows of the set ``bits`` not in ``minus``, ascending;
    # returns k.
    k = 0
    for w in range(bits.shape[0]):
        k = _emit_rows(bits[w] & ~minus[w], w, out, k)
    return k


def _emit_rows(word, w, out, k):
    # out[k:] = the rows of word w's set bits, ascending; returns the new k.
    # Reads bit b as (word >> b) & 1: right for the sign bit too.
    if word == -1:  # all 64 rows (most words of a large extent)
        for b in range(64):
            out[k + b] = w * 64 + b
        return k + 64
    if word != 0:
        for b in range(64):
            if (word >> b) & 1:
                out[k] = w * 64 + b
                k += 1
    return k


def _key(rows, row_keys):
    # Zobrist key of the extent: sum of per-row random keys (order-free,
    # int64 arithmetic wraps), mixed with its size.
    h = np.int64(0)
    for i in range(rows.shape[0]):
        h += row_keys[rows[i]]
    return h ^ (np.int64(rows.shape[0]) * _MIX)


def _prefix_bound(G, C, classes, U, sigma, epsilon, ridge, code, scale):
    # The prefix-greedy bound (ChannelProblem.prefix_bound): best prefix of
    # the extent sigma, whose rows are numbered in the gradient order, and
    # of its reverse. Row r's channels: G[r], C[r] and the basis channels
    # U[classes[r]] (rows with equal basis channels share a row of U, see
    # orthogonal._bound_channels: 20 bytes a row are read, not 8 (4 + K)).
    # The same sums in the same order as prefix_values, so the same value
    # to the bit; both directions in one loop, whose two chains of
    # dependent additions the processor overlaps (5x faster at 10^6 rows).
    # C of length 0 stands for C = 1 on every row (unit weights, atoms of
    # one row each): adding 1.0 is adding C[r], without reading it.
    m = sigma.shape[0]
    if m == 0:
        return 0.0
    n_basis = U.shape[1]
    forward, backward = np.zeros(n_basis), np.zeros(n_basis)
    g_forward = c_forward = g_backward = c_backward = 0.0
    unit = C.shape[0] == 0
    best = -np.inf
    for i in range(m):
        r, s = sigma[i], sigma[m - 1 - i]
        g_forward += G[r]
        g_backward += G[s]
        if unit:
            c_forward += 1.0
            c_backward += 1.0
        else:
            c_forward += C[r]
            c_backward += C[s]
        u, v = classes[r], classes[s]
        sq_forward = sq_backward = 0.0
        for k in range(n_basis):
            forward[k] += U[u, k]
            sq_forward += forward[k] * forward[k]
            backward[k] += U[v, k]
            sq_backward += backward[k] * backward[k]
        best = max(best, _orthogonal_value(g_forward, c_forward, sq_forward, epsilon, ridge),
                   _orthogonal_value(g_backward, c_backward, sq_backward, epsilon, ridge))
    return _snap(best, code, scale)


# The queue: a binary heap in one float array, entry i at heap[4 i:4 i + 4]
# = (-bound, -value of the next refinement, counter, expansion); counters
# and expansions are integers far below 2^53, exact as floats. One array,
# not four, because each array a kernel holds costs compile time in every
# block it is live in (its reference counting).
HEAP_FIELDS = 4


def _heap_less(heap, i, j):
    for f in range(3):
        if heap[4 * i + f] != heap[4 * j + f]:
            return heap[4 * i + f] < heap[4 * j + f]
    return False


def _heap_swap(heap, i, j):
    for f in range(HEAP_FIELDS):
        heap[4 * i + f], heap[4 * j + f] = heap[4 * j + f], heap[4 * i + f]


def _heap_push(heap, size, bound, value, counter, e):
    # IN/OUT: heap with `size` entries, capacity > size. Returns size + 1.
    heap[4 * size] = -bound
    heap[4 * size + 1] = -value
    heap[4 * size + 2] = counter
    heap[4 * size + 3] = e
    i = size
    while i > 0:
        parent = (i - 1) // 2
        if not _heap_less(heap, i, parent):
            break
        _heap_swap(heap, i, parent)
        i = parent
    return size + 1


def _heap_pop(heap, size):
    # Removes the least entry; returns (its expansion, size - 1).
    top = int(heap[3])
    size -= 1
    _heap_swap(heap, 0, size)
    i = 0
    while True:
        left, smallest = 2 * i + 1, i
        if left < size and _heap_less(heap, left, smallest):
            smallest = left
        if left + 1 < size and _heap_less(heap, left + 1, smallest):
            smallest = left + 1
        if smallest == i:
            break
        _heap_swap(heap, i, smallest)
        i = smallest
    return top, size


# The table of seen extents: slot i holds (key, head) in table[i, KEY],
# table[i, HEAD]; head -1 is a free slot.
KEY, HEAD = 0, 1


def _slot(table, key):
    # Open addressing, linear probing: the slot of ``key`` in the table, or
    # the free slot (head -1) where it would go. The table is never full.
    mask = table.shape[0] - 1
    i = key & mask
    while table[i, HEAD] >= 0 and table[i, KEY] != key:
        i = (i + 1) & mask
    return i


def _empty_table(size):
    # An empty table of ``size`` slots, a power of two.
    table = np.empty((size, 2), np.int64)
    for i in range(size):
        table[i, KEY] = 0
        table[i, HEAD] = -1
    return table


def _rehash(table):
    # The same map in a table twice the size.
    bigger = _empty_table(2 * table.shape[0])
    for i in range(table.shape[0]):
        if table[i, HEAD] >= 0:
            j = _slot(bigger, table[i, KEY])
            bigger[j, KEY] = table[i, KEY]
            bigger[j, HEAD] = table[i, HEAD]
    return bigger


def _dominated(table, n_keys, entries, n_entries, key, last, cols):
    # Whether an extent with this key was reached by a node whose subtree
    # contains this one's: last feature f <= last and, as the length limit
    # counts columns, cols' + (f != last) <= cols (an earlier node on
    # another last column pays one more column for this one's refinements
    # of ``last``); records (last, cols) otherwise. ``table`` (n_keys keys):
    # a hash table from extent key to the first of its rows in ``entries``,
    # rows (feature, columns, next index). Returns (dominated, table,
    # n_keys, entries, n_entries).
    slot = _slot(table, key)
    head = table[slot, HEAD]
    i = head
    while i >= 0:
        if entries[i, 0] <= last and entries[i, 1] + (entries[i, 0] != last) <= cols:
            return True, table, n_keys, entries, n_entries
        i = entries[i, 2]
    entries = _grow_table(entries, n_entries + 1, _UNLIMITED)
    entries[n_entries, 0] = last
    entries[n_entries, 1] = cols
    entries[n_entries, 2] = head
    if head < 0:
        table[slot, KEY] = key
        n_keys += 1
    table[slot, HEAD] = n_entries
    if 2 * n_keys > table.shape[0]:
        table = _rehash(table)
    return False, table, n_keys, entries, n_entries + 1


# Columns of the expansion table ``ei``.
# HIST_AT: the expansion's slot in the histogram pool, -1 until it is
# expanded; COUNTER: its queue counter, reserved when it was materialised;
# BITS_AT: its row of bit_pool, or -1 - i for the child of the root in row i
# of pre (root_children), whose bitset is made only if it is needed
# (_materialise_bits; at 10^6 rows, 125 kB a child, rarely needed).
(PARENT, FEATURE, OP, BIN, DEPTH, N_ROWS, ORDER_AT, N_ORDER, NEXT, COLS, HIST_AT, COUNTER,
 BITS_AT) = range(13)
EI_COLUMNS = 13


def _materialise_bits(e, ei, pre, X_binned, rows, n_bins, scratch, bit_pool, n_bits, max_nodes):
    # Gives expansion e its row bitset if it has none yet (a child of the
    # root from pre: its rows split off the root's `rows` again, into
    # `scratch`). Returns (bit_pool, n_bits).
    if ei[e, BITS_AT] >= 0:
        return bit_pool, n_bits
    i = -1 - ei[e, BITS_AT]
    j = pre[i, 0]
    n = filter_rows(X_binned, rows, j, pre[i, 1], pre[i, 2], n_bins[j], scratch)
    bit_pool = _grow_table(bit_pool, n_bits + 1, max_nodes)
    _store_rows(scratch, n, bit_pool[n_bits])
    ei[e, BITS_AT] = n_bits
    return bit_pool, n_bits + 1


def _grow_table(table, needed, cap):
    # As _grow, for a 2-d table (rows). Loops: a 2-d slice assignment costs
    # seconds of compile time.
    if needed <= table.shape[0]:
        return table
    bigger = np.empty((_grown(table.shape[0], needed, cap), table.shape[1]), table.dtype)
    for i in range(table.shape[0]):
        for j in range(table.shape[1]):
            bigger[i, j] = table[i, j]
    return bigger


def _refinement_order(values, last_feature, end_feature, width, code, scale, order, sorted_values):
    # Valid refinements (finite values; tail augmentation: features >=
    # last_feature, and < end_feature), best snapped value first, ties in
    # the scan order: flat positions j * 2 * width + p into ``order``, their
    # values into ``sorted_values`` (both long enough). Returns their number.
    n = 0
    for j in range(last_feature, end_feature):
        for p in range(2 * width):
            if np.isfinite(values[j, p]):
                order[n] = j * 2 * width + p
                sorted_values[n] = _snap(values[j, p], code, scale)
                n += 1
    _merge_sort_descending(order, sorted_values, n, np.empty(n, np.int64), np.empty(n))
    return n


def _merge_sort_descending(order, values, n, scratch_order, scratch_values):
    # Stable bottom-up merge sort of values[:n] (with order) by value,
    # largest first: equal values keep their order.
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if values[i] >= values[j]:
                    scratch_order[k], scratch_values[k] = order[i], values[i]
                    i += 1
                else:
                    scratch_order[k], scratch_values[k] = order[j], values[j]
                    j += 1
                k += 1
            while i < mid:
                scratch_order[k], scratch_values[k] = order[i], values[i]
                i += 1
                k += 1
            while j < hi:
                scratch_order[k], scratch_values[k] = order[j], values[j]
                j += 1
                k += 1
        for k in range(n):
            order[k], values[k] = scratch_order[k], scratch_values[k]
        width *= 2


def _subtract(parent_hist, removed_hist, first, out):
    # out[j] = parent_hist[j] - removed_hist[j] for features j >= first (the
    # histogram subtraction trick), as loops: cheaper to compile than the
    # 3-d array expression.
    for j in range(first, out.shape[0]):
        for b in range(out.shape[1]):
            for k in range(out.shape[2]):
                out[j, b, k] = parent_hist[j, b, k] - removed_hist[j, b, k]


def _copy_hist(source, out):
    # out[...] = source, as loops (see _subtract).
    for j in range(out.shape[0]):
        for b in range(out.shape[1]):
            for k in range(out.shape[2]):
                out[j, b, k] = source[j, b, k]


def _conditions(ei, best_parent, feature, op, bin_, best_depth):
    # The best node's conditions: its own (feature, op, bin_), then those
    # of its parents back to the root (expansion 0).
    out = np.empty((best_depth, 3), np.int64)
    if best_depth == 0:
        return out
    out[best_depth - 1, 0] = feature
    out[best_depth - 1, 1] = op
    out[best_depth - 1, 2] = bin_
    e = best_parent
    while e > 0:
        out[ei[e, DEPTH] - 1, 0] = ei[e, FEATURE]
        out[ei[e, DEPTH] - 1, 1] = ei[e, OP]
        out[ei[e, DEPTH] - 1, 2] = ei[e, BIN]
        e = ei[e, PARENT]
    return out


def _branch_and_bound(X_binned, rows, W, G, C, classes, U, n_bins, is_nominal, code, n_total,
                      reg_lambda, epsilon, ridge, scale, root_value, use_bound, max_depth,
                      max_nodes, row_keys, stats, max_bytes, root_hist, pre, pre_bound,
                      length_factor):
    # IN: X_binned (n, d) uint16 F-order; rows (m,) intp, the root extent;
    #     W (n, K') channels; G, C (n,) float64: W's G and C channels,
    #     contiguous (C of length 0: every row's C is 1), classes (n,) int32 and U (P, K' - 4) float64: the
    #     basis channels of row r are U[classes[r]] (_prefix_bound);
    #     n_bins (d,) int64; is_nominal (d,) bool;
    #     code int; n_total, reg_lambda, epsilon, ridge float (ridge: the
    #     orthogonal objective's ridge term, 0 for eq. 14); scale float, the
    #     snapping scale (sum |G| over rows); rows must be numbered in
    #     the order of the prefix-greedy bound (ascending G / C), so that
    #     every extent, kept ascending, is already in that order (as in
    #     _bnb_kernels); root_value float (snapped); use_bound bool;
    #     max_depth (conditions: columns), max_nodes int (huge: unlimited);
    #     row_keys (n,) int64
    #     random Zobrist keys; max_bytes int (huge: unlimited): the pools
    #     (expansions, histograms, rows, refinements, queue, seen extents)
    #     stay within it: the search stops, as at max_nodes, before an
    #     expansion, or the record of a popped child, that could take them
    #     past it (the root is always materialised); root_hist (d, B, K')
    #     float64: the root's histograms (shape (0, 0, 0): built here);
    #     pre (R, 5) int64, pre_bound (R,) float64: the root's first R
    #     refinements in their order, each (feature, op, bin, rows, key)
    #     with its bound (root_children; R = 0: none); length_factor (L,)
    #     float64, positive and non-increasing: a query of c conditions
    #     (columns) is scored value * length_factor[min(c, L - 1)] (all
    #     ones: the plain objective, the same floating-point decisions);
    #     a node's bound is scaled by its own factor, which bounds its
    #     subtree's scores since refinements never have fewer columns.
    # OUT: stats (N_STATS,) int64: N_NODES, N_PRUNED, N_REFINEMENTS,
    #      BUDGET_EXHAUSTED (a node or memory budget stopped the search),
    #      MEMORY_EXHAUSTED (the memory budget did). Returns (best value,
    #      unscaled, best conditions (depth, 3) int64 rows (feature, op,
    #      bin)); best by the scaled score.
    # One function, not several, because the pools it grows are locals.
    n_features = X_binned.shape[1]
    width = 1
    for j in range(n_features):
        width = max(width, n_bins[j] + 1)
    hsize = n_features * width * W.shape[1]
    m = rows.shape[0]
    ei = np.zeros((64, EI_COLUMNS), np.int64)
    bounds = np.empty(64)
    # Each expansion's rows as a bitset over all of X_binned's rows: n / 8
    # bytes a node, where a list of its rows took up to 8 m (at 10^6 rows,
    # 37 MB for 300 nodes instead of up to 2.4 GB).
    bit_pool = np.zeros((4, (X_binned.shape[0] + 63) // 64), np.int64)
    hist_pool = np.empty((4, n_features, width, W.shape[1]))
    order_pool, value_pool = np.empty(256, np.int64), np.empty(256)
    heap = np.empty(HEAP_FIELDS * 64)
    table = _empty_table(1024)
    entries = np.empty((256, 3), np.int64)
    n_entries, n_exp, n_order_used, heap_size, counter = 0, 0, 0, 0, 0
    _, table, n_keys, entries, n_entries = _dominated(table, 0, entries, n_entries,
                                                      _key(rows, row_keys), 0, 0)
    kept, parent_rows = np.empty(m, np.intp), np.empty(m, np.intp)
    tmp_hist = np.empty((n_features, width, W.shape[1]))
    values = np.empty((n_features, 2 * width))
    # A node's refinements, sorted.
    ref_order, ref_values = np.empty(n_features * 2 * width, np.int64), np.empty(n_features * 2 * width)
    for i in range(stats.shape[0]):
        stats[i] = 0
    # best_value: the best score (value x length factor); best_raw its value.
    best_value, best_raw, best_parent, best_depth = root_value * length_factor[0], root_value, -1, 0
    best_feature, best_op, best_bin = 0, 0, 0
    # The node to expand next: the root first, then each child popped.
    _copy(rows, m, kept, 0)
    # The node's last condition: (feature, op, bin).
    n_kept, parent, depth, feature, op, bin_ = m, -1, 0, 0, 0, 0
    cols = 0  # conditions (columns) of the node: what max_depth limits
    n_hist = 0  # expansions whose histograms are built (slots of hist_pool)
    n_bits = 0  # rows of bit_pool used
    loaded, n_parent = -1, 0  # the expansion whose rows parent_rows[:n_parent] are
    n_real = 0  # queue entries that are refinements (the others: placeholders)
    pre_at = -1  # the popped child's row of pre, or -1
    finishing = False  # the node budget is spent (see below)
    have_node = True
    while True:
        # A popped child is materialised: its bound, pruning and rows. Its
        # histograms, scan and sorted refinements wait until its first
        # refinement is due: the queue holds a placeholder keyed (-bound,
        # -inf, counter) instead, which pops before any refinement of equal
        # bound and is then replaced by the entry (-bound, -best value,
        # the same counter) that expanding at once would have pushed. The
        # refinements pop in the same order; a node whose refinements
        # never come up before the search ends (at 10^6 rows, every node
        # but the root in most rounds: the node budget ends the search
        # among the root's refinements) is never scanned.
        if have_node and n_kept > 1:
            bnd = np.inf
            if use_bound:
                if pre_at >= 0:
                    bnd = pre_bound[pre_at]
                else:
                    bnd = _prefix_bound(G, C, classes, U, kept[:n_kept], epsilon, ridge, code,
                                        scale)
                bnd *= length_factor[min(cols, length_factor.shape[0] - 1)]
            if not bnd > best_value:
                stats[N_PRUNED] += 1
            else:
                stats[N_NODES] += 1
                e = n_exp
                n_exp += 1
                ei = _grow_table(ei, n_exp, max_nodes)
                bounds = _grow(bounds, n_exp, max_nodes)
                if pre_at >= 0:  # its bitset only if needed
                    ei[e, BITS_AT] = -1 - pre_at
                else:
                    bit_pool = _grow_table(bit_pool, n_bits + 1, max_nodes)
                    _store_rows(kept, n_kept, bit_pool[n_bits])
                    ei[e, BITS_AT] = n_bits
                    n_bits += 1
                ei[e, PARENT] = parent
                ei[e, DEPTH] = depth
                ei[e, COLS] = cols
                ei[e, FEATURE] = feature
                ei[e, OP] = op
                ei[e, BIN] = bin_
                ei[e, N_ROWS] = n_kept
                ei[e, HIST_AT] = -1
                ei[e, COUNTER] = counter
                bounds[e] = bnd
                heap = _grow(heap, HEAP_FIELDS * (heap_size + 1), _UNLIMITED)
                heap_size = _heap_push(heap, heap_size, bnd, np.inf, counter, e)
                counter += 1
        have_node = False
        if heap_size == 0:
            break
        if stats[N_NODES] >= max_nodes:
            # The budget is spent. It stopped the search if a queued node
            # has refinements left: surely so with a refinement queued;
            # with only placeholders, once one expands to a refinement
            # (then the next check breaks here), and not if the queue
            # empties first (as the scanned search's empty queue).
            if n_real > 0:
                stats[BUDGET_EXHAUSTED] = 1
                break
            finishing = True
        if _next_expansion_bytes(n_exp, n_hist, n_bits, hsize, n_order_used,
                                 n_features * 2 * width, heap_size, ei, hist_pool, bit_pool, order_pool, heap, table,
                                 entries, max_nodes) > max_bytes:
            stats[BUDGET_EXHAUSTED] = 1
            stats[MEMORY_EXHAUSTED] = 1
            break
        e, heap_size = _heap_pop(heap, heap_size)
        expanded = ei[e, HIST_AT] >= 0
        if expanded:
            n_real -= 1
        if not finishing and not bounds[e] > best_value:
            # The refinements left; a node never scanned has none counted.
            if expanded:
                stats[N_PRUNED] += 1 + ei[e, N_ORDER] - ei[e, NEXT]
            continue
        if not expanded:
            # The placeholder: expand the node now. Its histograms: the
            # parent's minus those of the rows its condition removed, when
            # those are fewer (the subtraction trick); tail augmentation:
            # only features >= its last one are ever read.
            bit_pool, n_bits = _materialise_bits(e, ei, pre, X_binned, rows, n_bins, kept,
                                                 bit_pool, n_bits, max_nodes)
            n_node = _load_rows(bit_pool[ei[e, BITS_AT]], kept)
            up, last = ei[e, PARENT], (ei[e, FEATURE] if ei[e, DEPTH] > 0 else 0)
            hist_pool = _grow_hists(hist_pool, n_hist + 1, max_nodes)
            hist = hist_pool[n_hist]
            ei[e, HIST_AT] = n_hist
            n_hist += 1
            # The removed rows go where a parent's rows are kept between
            # pops (parent_rows), which must then be loaded again.
            n_removed = 0 if up < 0 else _load_difference(
                bit_pool[ei[up, BITS_AT]], bit_pool[ei[e, BITS_AT]], parent_rows)
            loaded = -1
            if up < 0 and root_hist.shape[0] > 0:
                _copy_hist(root_hist, hist)
            elif up >= 0 and n_removed < n_node:
                build_channel_histograms_serial(X_binned, parent_rows[:n_removed], W, last,
                                                tmp_hist)
                _subtract(hist_pool[ei[up, HIST_AT]], tmp_hist, last, hist)
            else:
                build_channel_histograms_serial(X_binned, kept[:n_node], W, last, hist)
            # Strict sub-extents have fewer rows (the N channel: an atom
            # counts its rows) than the node.
            n_rows = 0.0
            for i in range(n_node):
                n_rows += W[kept[i], N]
            scan_all_serial(hist, n_bins, is_nominal, last, code, n_total, reg_lambda, epsilon,
                            ridge, n_rows, values)
            # At the length limit only the last column may be refined
            # further (tail augmentation keeps columns in order, so the
            # node's other columns lie before it).
            end = last + 1 if ei[e, COLS] >= max_depth else n_features
            n_ref = _refinement_order(values, last, end, width, code, scale, ref_order, ref_values)
            stats[N_REFINEMENTS] += n_ref
            order_pool = _grow(order_pool, n_order_used + n_ref, _UNLIMITED)
            value_pool = _grow(value_pool, n_order_used + n_ref, _UNLIMITED)
            _copy(ref_order, n_ref, order_pool, n_order_used)
            _copy(ref_values, n_ref, value_pool, n_order_used)
            ei[e, ORDER_AT] = n_order_used
            ei[e, N_ORDER] = n_ref
            ei[e, NEXT] = 0
            n_order_used += n_ref
            if n_ref > 0:
                heap = _grow(heap, HEAP_FIELDS * (heap_size + 1), _UNLIMITED)
                heap_size = _heap_push(heap, heap_size, bounds[e], ref_values[0], ei[e, COUNTER],
                                       e)
                n_real += 1
            continue
        at = ei[e, ORDER_AT] + ei[e, NEXT]
        k = order_pool[at]
        value = value_pool[at]
        ei[e, NEXT] += 1
        if ei[e, NEXT] < ei[e, N_ORDER]:
            heap_size = _heap_push(heap, heap_size, bounds[e], value_pool[at + 1], counter, e)
            counter += 1
            n_real += 1
        j = k // (2 * width)
        p = k - j * (2 * width)
        op, bin_ = _decode(p, n_bins[j], is_nominal[j])
        # A child of the root whose rows, key and bound the caller computed
        # (in parallel, root_children), or one to split off here.
        pre_at = at - ei[0, ORDER_AT] if e == 0 else -1
        if pre_at >= pre.shape[0] or pre_at >= 0 and not (
                pre[pre_at, 0] == j and pre[pre_at, 1] == op and pre[pre_at, 2] == bin_):
            pre_at = -1
        if pre_at >= 0:
            n_kept, key = pre[pre_at, 3], pre[pre_at, 4]
        else:
            if e != loaded:
                # Children pop from the same node in runs (at 10^6 rows: the
                # root's, all of them): its rows are loaded once a run.
                bit_pool, n_bits = _materialise_bits(e, ei, pre, X_binned, rows, n_bins,
                                                     parent_rows, bit_pool, n_bits, max_nodes)
                n_parent = _load_rows(bit_pool[ei[e, BITS_AT]], parent_rows)
                loaded = e
            n_kept = filter_rows(X_binned, parent_rows[:n_parent], j, op, bin_, n_bins[j], kept)
            key = _key(kept[:n_kept], row_keys)
        depth = ei[e, DEPTH] + 1
        cols = ei[e, COLS] + (1 if ei[e, DEPTH] == 0 or j != ei[e, FEATURE] else 0)
        if _next_pop_bytes(n_entries, n_keys, ei, hist_pool, bit_pool, order_pool, heap, table,
                           entries) > max_bytes:
            stats[BUDGET_EXHAUSTED] = 1
            stats[MEMORY_EXHAUSTED] = 1
            break
        dominated, table, n_keys, entries, n_entries = _dominated(
            table, n_keys, entries, n_entries, key, j, cols)
        if dominated:
            continue
        feature = j
        parent = e
        score = value * length_factor[min(cols, length_factor.shape[0] - 1)]
        if score > best_value:
            best_value, best_raw, best_parent, best_depth = score, value, e, depth
            best_feature, best_op, best_bin = feature, op, bin_
        have_node = True
    return best_raw, _conditions(ei, best_parent, best_feature, best_op, best_bin, best_depth)


def _root_children(X_binned, pre, n_bins, G, C, classes, U, epsilon, ridge, code, scale,
                   use_bound, row_keys, pre_bound):
    # IN: X_binned (n, d), the root's rows all n rows in the bound's order
    #     (as _branch_and_bound's); pre (R, 5) int64 with (feature, op,
    #     bin) in its first columns; the rest as _branch_and_bound's.
    # OUT: pre[:, 3] the child's row count, pre[:, 4] its key, pre_bound
    #      its bound (inf without use_bound): what the
    #      search computes when it pops the child, for R children at once,
    #      one contiguous half of them per thread (each with its own list
    #      of rows).
    n = X_binned.shape[0]
    rows = np.arange(n)
    n_chunks = 2
    for chunk in prange(n_chunks):
        kept = np.empty(n, np.intp)
        for i in range(chunk * pre.shape[0] // n_chunks, (chunk + 1) * pre.shape[0] // n_chunks):
            j = pre[i, 0]
            n_kept = filter_rows(X_binned, rows, j, pre[i, 1], pre[i, 2], n_bins[j], kept)
            pre[i, 3] = n_kept
            pre[i, 4] = _key(kept[:n_kept], row_keys)
            pre_bound[i] = np.inf
            if use_bound and n_kept > 1:
                pre_bound[i] = _prefix_bound(G, C, classes, U, kept[:n_kept], epsilon, ridge, code,
                                             scale)


# The jitted twin of the Python decode: (op, bin) of a scan position.
_decode = jit_helper(decode)
_snap = jit_helper(_snap)
_copy = jit_helper(_copy)
_grow = jit_helper(_grow)
_grown = jit_helper(_grown)
_grow_hists = jit_helper(_grow_hists)
_next_expansion_bytes = jit_helper(_next_expansion_bytes)
_next_pop_bytes = jit_helper(_next_pop_bytes)
_grow_table = jit_helper(_grow_table)
_materialise_bits = jit_helper(_materialise_bits)
_key = jit_helper(_key)
_store_rows = jit_helper(_store_rows)
_emit_rows = jit_helper(_emit_rows)
_load_rows = jit_helper(_load_rows)
_load_difference = jit_helper(_load_difference)
_prefix_bound = jit_helper(_prefix_bound)
_heap_less = jit_helper(_heap_less)
_heap_swap = jit_helper(_heap_swap)
_heap_push = jit_helper(_heap_push)
_heap_pop = jit_helper(_heap_pop)
_slot = jit_helper(_slot)
_empty_table = jit_helper(_empty_table)
_rehash = jit_helper(_rehash)
_dominated = jit_helper(_dominated)
_merge_sort_descending = jit_helper(_merge_sort_descending)
_refinement_order = jit_helper(_refinement_order)
_subtract = jit_helper(_subtract)
_copy_hist = jit_helper(_copy_hist)
_conditions = jit_helper(_conditions)
branch_and_bound = jit(_branch_and_bound)
root_children = jit_parallel(_root_children)
