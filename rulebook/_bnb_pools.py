"""Bounded pools of the branch and bound: reclaiming records, dropping open queries.

The growing state of one thread of :mod:`rulebook._bnb_kernels` is three
pools: the open list (``bound, tie, record, entry``: 32 bytes per open
query), the records of expanded queries (parent, proposition, length, list
offset and length: 40 bytes, plus the extent bitset when it is stored) and
the augmentation lists (``a, bound, critical index``: 24 bytes per entry).
Records and lists are only appended to; without a cap they grow for as
long as the search runs (issue 26, defect 5).

When the pools would outgrow their budget, :func:`compact` first reclaims
what no open query can reach any more: a record is kept only while an open
query descends from it (or it holds the best query), and a list only from
the first entry an open query still starts from (a popped query ``(r, e)``
reads entries ``e`` and after of record ``r``'s list; Algorithm 1, tail
augmentation). That loses nothing. Only when the live state alone exceeds
the budget does :func:`drop_open` discard the open queries of smallest
bound, the least promising ones of a best-first search; the largest bound
dropped stays an upper bound of everything the search can no longer see
(each open query's bound bounds its whole subtree, and a query skipped as
non-core elsewhere has the extent, hence the value, of a core query in
such a subtree). The search then goes on as an anytime search whose
certified ratio counts that bound.

Plain NumPy on whole pools, run between kernel calls, and rarely: only
when a pool would grow beyond the budget.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Algorithm 1; Section 3.2 (Theorem 3.2).
"""

import numpy as np

from ._bnb_layout import (
    AUG_USED,
    BEST_FIRST,
    BEST_RECORD,
    BREADTH_FIRST,
    N_OPEN,
    N_RECORDS,
    OPEN_HEAD,
)

# Bytes per open query, per record (without its extent) and per list entry.
OPEN_BYTES, RECORD_BYTES, AUG_BYTES = 32, 40, 24


def pool_bytes(n_open, n_records, n_aug, ext_words):
    """Bytes of pools of these capacities (``ext_words``: stored extent words per record)."""
    return (OPEN_BYTES * n_open + (RECORD_BYTES + 8 * ext_words) * n_records
            + AUG_BYTES * n_aug)


def open_span(istate, order):
    """``(head, end)`` of the open queries in the open arrays."""
    head = int(istate[OPEN_HEAD]) if order == BREADTH_FIRST else 0
    return head, int(istate[N_OPEN])


def live_records(parent, open_rec, best_record):
    """Mask of the records that open queries or the best query descend from.

    Parameters
    ----------
    parent : ndarray of shape (n_records,), int64
        Parent record of each record (-1: the root's).
    open_rec : ndarray of shape (n_open,), int64
        Record of each open query.
    best_record : int
        Record of the best query, or -1.

    Returns
    -------
    ndarray of shape (n_records,), bool
    """
    mark = np.zeros(len(parent), bool)
    frontier = np.unique(np.append(open_rec, best_record).astype(np.int64))
    frontier = frontier[frontier >= 0]
    while frontier.size:
        frontier = frontier[~mark[frontier]]
        mark[frontier] = True
        frontier = np.unique(parent[frontier])
        frontier = frontier[frontier >= 0]
    return mark


def compact(open_, rec, rec_ext, aug, istate, order, headroom, store_ext):
    """Pools holding only the live state, each with room to double.

    Records are renumbered in their order (a parent keeps a smaller number
    than its children), lists are copied from the first entry an open
    query starts from, the open queries keep their order.

    Parameters
    ----------
    open_ : list of 4 ndarrays
        ``bound, tie, record, entry`` of the open list.
    rec : list of 5 ndarrays
        ``parent, proposition, length, list offset, list length``.
    rec_ext : ndarray of shape (R, W), uint64
        Stored extents (one unused row unless ``store_ext``).
    aug : list of 3 ndarrays
        ``a, bound, critical index`` of the lists.
    istate : ndarray, int64
        The state; ``N_OPEN``, ``OPEN_HEAD``, ``N_RECORDS``, ``AUG_USED``
        and ``BEST_RECORD`` are updated in place.
    order : int
        Open-list order (``_bnb_layout``).
    headroom : int
        Spare open queries and list entries kept beyond twice the live ones
        (the kernel asks for room for one node's children).
    store_ext : bool

    Returns
    -------
    (open_, rec, rec_ext, aug)
        New arrays.
    """
    head, end = open_span(istate, order)
    ob, ot, orec, oe = (a[head:end] for a in open_)
    n_rec = int(istate[N_RECORDS])
    parent, prop, length, off, count = (a[:n_rec] for a in rec)
    best = int(istate[BEST_RECORD])
    kept = np.flatnonzero(live_records(parent, orec, best))
    new_id = np.full(n_rec + 1, -1, np.int64)  # index -1 (no parent) maps to -1
    new_id[kept] = np.arange(len(kept))
    # Each listed record's list from its first open entry (the root's whole list).
    first = np.full(n_rec, np.iinfo(np.int64).max)
    np.minimum.at(first, orec, np.where(oe < 0, off[orec], oe))
    listed = np.flatnonzero(first < np.iinfo(np.int64).max)
    lengths = off[listed] + count[listed] - first[listed]
    starts = np.cumsum(lengths) - lengths
    source = np.repeat(first[listed] - starts, lengths) + np.arange(lengths.sum())
    n_aug = len(source)
    new_aug = [np.empty(2 * n_aug + headroom, a.dtype) for a in aug]
    for new, old in zip(new_aug, aug):
        new[:n_aug] = old[source]
    R = 2 * len(kept) + 1
    new_rec = [np.empty(R, np.int64) for _ in range(5)]
    new_rec[0][:len(kept)] = new_id[parent[kept]]
    new_rec[1][:len(kept)] = prop[kept]
    new_rec[2][:len(kept)] = length[kept]
    new_rec[3][:len(kept)] = 0
    new_rec[4][:len(kept)] = 0
    new_rec[3][new_id[listed]] = starts
    new_rec[4][new_id[listed]] = lengths
    new_ext = np.empty((R if store_ext else 1, rec_ext.shape[1]), np.uint64)
    if store_ext:
        new_ext[:len(kept)] = rec_ext[kept]
    n_open = end - head
    new_open = [np.empty(2 * n_open + headroom, a.dtype) for a in open_]
    new_open[0][:n_open], new_open[1][:n_open] = ob, ot
    new_open[2][:n_open] = new_id[orec]
    lookup = np.zeros(n_rec, np.int64)
    lookup[listed] = starts - first[listed]
    new_open[3][:n_open] = np.where(oe < 0, -1, oe + lookup[orec])
    istate[OPEN_HEAD], istate[N_OPEN] = 0, n_open
    istate[N_RECORDS], istate[AUG_USED] = len(kept), n_aug
    if best >= 0:
        istate[BEST_RECORD] = new_id[best]
    return new_open, new_rec, new_ext, new_aug


def drop_open(open_, istate, order, keep):
    """Keep the ``keep`` open queries of largest bound; ``(largest bound dropped, dropped)``.

    Ties of bound go by age (the tie number), as in the best-first heap. A
    best-first list is left sorted (a valid heap); breadth- and depth-first
    lists keep their order.
    """
    head, end = open_span(istate, order)
    n = end - head
    if keep >= n:
        return -np.inf, 0
    bounds, ties = open_[0][head:end], open_[1][head:end]
    rank = np.lexsort((ties, -bounds))
    chosen, dropped = rank[:keep], rank[keep:]
    top = float(bounds[dropped].max())
    if order != BEST_FIRST:
        chosen = np.sort(chosen)
    entries = [a[head:end][chosen] for a in open_]
    for array, entry in zip(open_, entries):
        array[:keep] = entry
    istate[OPEN_HEAD], istate[N_OPEN] = 0, keep
    return top, n - keep
