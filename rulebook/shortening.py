"""Shortest equivalent queries (Boley et al. 2021, end of Section 3.2).

A learner's query is replaced by an approximately shortest query with the
same extent on the training rows: greedy set cover over the propositions
the extent implies, then redundant propositions dropped. The optimal
learner shortens the queries it finds; the greedy, beam and orthogonal
learners shorten theirs through :func:`shortened` (refinement adds
conditions that later ones can make redundant).
"""

import weakref
from dataclasses import replace

import numpy as np

from . import _search_kernels as search_kernels
from . import _sparse_kernels as sparse_kernels
from .proposition_space import _PropositionSpace


def shortest_equivalent(problem, props, rows, space=None):
    """An approximately shortest query with the same extent (greedy set cover).

    Among the propositions implied by the extent, repeatedly choose the one
    that excludes the most root rows not yet excluded (the first in
    proposition order on ties) until only the extent remains; keep the
    original query if that is not strictly shorter (Boley et al. 2021, end
    of Section 3.2; greedy set cover is within a factor ``ln n`` of the
    shortest). Finally drop any proposition the others make redundant, the
    last first (greedy set cover can choose one that later choices make
    redundant; a core query can contain one too).

    Parameters
    ----------
    problem : SearchProblem
    props : tuple of int
        Proposition numbers of the query (in :class:`_PropositionSpace` order).
    rows : ndarray of int
        Its extent within ``problem.rows``.
    space : _PropositionSpace, optional

    Returns
    -------
    tuple of int
        Proposition numbers, ascending unless the query is returned as
        given; never longer than ``props``, in propositions nor in columns
        (conditions, what ``max_rule_length`` limits).

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 3.2, last paragraph.
    """
    if len(props) <= 1:
        return tuple(props)
    space = space or _PropositionSpace.of(problem)
    X, root, n_bins = problem.X_binned, problem.rows, problem.n_bins
    inside = np.zeros(len(X), bool)
    inside[rows] = True
    chosen = np.empty(len(props) - 1, np.int64)
    root_counts = _root_counts(problem)
    sparse = getattr(X, "zero_bin", None) is not None  # SparseBins: codes of the non-zeros
    # The sparse twins take the codes' arrays (rulebook._sparse_kernels).
    codes = (X.indptr, X.columns, X.codes, X.zero_bin) if sparse else (X,)
    cover = sparse_kernels.greedy_cover_sparse if sparse else search_kernels.greedy_cover
    k = cover(*codes, root, np.asarray(rows, np.intp), inside, space.feature,
              space.op, space.bin, n_bins, space.searched, len(chosen), root_counts, chosen)
    best = np.array(props if k < 0 else np.sort(chosen[:k]), np.int64)
    if len(set(space.feature[best])) > len(set(space.feature[np.asarray(props)])):
        # Fewer propositions on more columns: longer in conditions.
        best = np.array(props, np.int64)
    if len(root_counts) and len(best) <= 2 and len(root) >= COUNTED_MIN_ROWS:
        return _without_redundant_counted(best, root_counts, space, n_bins, len(rows), len(root))
    if not sparse and 2 < len(best) <= MASKED_MAX_PROPS and len(root) >= MASKED_MIN_ROWS:
        return _without_redundant_masked(X, root, best, space, n_bins, len(rows))
    keep = np.empty(len(best), bool)
    redundant = sparse_kernels.redundant_sparse if sparse else search_kernels.redundant
    redundant(*codes, root, space.feature, space.op, space.bin, n_bins, best, len(rows), keep)
    return tuple(int(p) for p in best[keep])


# Root rows from which one or two propositions are checked for redundancy
# from the root's counts (a few Python steps) rather than by the kernel's
# pass over the rows (faster on small tables). Measured (session 24, two
# propositions): 27 820 rows (suicide rates) 250 -> 37 us, 16 327
# (videogames) 100-140 -> 20-65 us, 2 000 (friedman1) 27-38 -> 23-25 us.
COUNTED_MIN_ROWS = 4096

# Root rows from which three or more propositions (at most
# MASKED_MAX_PROPS) are checked by one vectorised pass per proposition
# (``_without_redundant_masked``) instead of the kernel's L passes of L
# tests over the rows.
MASKED_MIN_ROWS = 4096
MASKED_MAX_PROPS = 16


def _root_counts(problem):
    """The root rows' count per feature and bin, from root histograms the
    learner built (``SearchProblem.root_histograms``); shape (0, 0) if none.

    The last one is kept: a fit's rounds with several outputs build their
    root histograms into the same array from the same rows (see
    ``MultiOutputProblem.reuse_memory``), so the counts are the same (a
    strided copy of the count channel each round was 2% of a 10-rule fit).
    """
    hist = getattr(problem, "built_root_histograms", None)
    if hist is None:
        return np.zeros((0, 0), np.int64)
    last = _LAST_ROOT_COUNTS.get("entry")
    if last is not None and last[0]() is hist and last[1]() is problem.rows:
        return last[2]
    # The count is the last channel, of multi-output histograms too.
    counts = hist[:, :, -1].astype(np.int64)  # writeable: numba types read-only arrays apart
    # Weak references: the entry keeps neither the histograms nor the rows
    # alive (a million rows: 8 MB), nor, once they are gone, their identity.
    _LAST_ROOT_COUNTS["entry"] = (weakref.ref(hist), weakref.ref(problem.rows), counts)
    return counts


_LAST_ROOT_COUNTS = {}  # replaced whole: safe across threads


def _without_redundant_masked(X, root, props, space, n_bins, count):
    """:func:`search_kernels.redundant` from the set of propositions each root row fails.

    One vectorised pass per proposition gives each row's failed set (a
    bitmask); rows are then counted per mask, and dropping proposition
    ``i`` leaves the rows whose mask meets none of the other kept ones. The
    same integer counts as the kernel's, so the same propositions are
    dropped (the last first), for ``len(props)`` passes instead of
    ``len(props)`` squared tests per row (3-5 propositions on 27 820 rows:
    0.4-0.8 ms in the kernel).
    """
    # Counts do not depend on row order: when the root holds every row
    # (distinct row numbers), the columns are read whole, without a gather.
    every_row = len(root) == len(X)
    fails = np.zeros(len(root), np.uint16)
    for i, p in enumerate(props):
        f, op, k = space.feature[p], space.op[p], space.bin[p]
        column = X[:, f] if every_row else X[root, f]
        missing = n_bins[f]
        # As ``search_kernels._satisfies``.
        if op == search_kernels.LE:
            holds = column <= k
        elif op == search_kernels.GT:
            holds = (column > k) & (column < missing)
        elif op == search_kernels.EQ:
            holds = column == k
        else:
            holds = (column != k) & (column != missing)
        fails |= (~holds).astype(np.uint16) << np.uint16(i)
    per_mask = np.bincount(fails, minlength=1 << len(props))
    masks = np.arange(len(per_mask))
    kept = (1 << len(props)) - 1
    for i in range(len(props) - 1, -1, -1):
        others = kept & ~(1 << i)
        if int(per_mask[(masks & others) == 0].sum()) == count:
            kept = others
    return tuple(int(p) for i, p in enumerate(props) if kept >> i & 1)


def _without_redundant_counted(props, root_counts, space, n_bins, count, n_root):
    """:func:`search_kernels.redundant` for one or two propositions, from counts.

    What remains when a proposition is dropped is one proposition (whose
    root rows the per-bin counts give) or none (all ``n_root`` rows).
    """
    def rows_of(p):
        f = space.feature[p]
        bins = np.arange(n_bins[f] + 1)
        op, k, missing = space.op[p], space.bin[p], n_bins[f]
        if op == search_kernels.LE:
            holds = bins <= k
        elif op == search_kernels.GT:
            holds = (bins > k) & (bins < missing)
        elif op == search_kernels.EQ:
            holds = bins == k
        else:
            holds = (bins != k) & (bins != missing)
        return int(root_counts[f, :n_bins[f] + 1][holds].sum())

    keep = [True] * len(props)
    for i in range(len(props) - 1, -1, -1):
        others = [p for j, p in enumerate(props) if j != i and keep[j]]
        if (rows_of(others[0]) if others else n_root) == count:
            keep[i] = False
    return tuple(int(p) for p, kept in zip(props, keep) if kept)


def shorten_conditions(problem, conditions, rows):
    """A learner's query replaced by an approximately shortest equivalent one.

    :func:`shortest_equivalent` for queries given as ``(feature, op, bin)``
    triples, as the greedy and orthogonal learners return them: the result
    covers the same training rows (``rows`` within ``problem.rows``), with
    no more propositions and no more columns; propositions that are
    redundant on the training data are dropped (Boley et al. 2021, end of
    Section 3.2, which does this for the optimal learner's queries).

    Parameters
    ----------
    problem : SearchProblem
    conditions : tuple of (int, int, int)
    rows : ndarray of int
        The query's extent.

    Returns
    -------
    tuple of (int, int, int)
        ``conditions`` itself if a proposition lies outside the searched
        propositions of ``problem`` (nothing to choose from then).

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 3.2, last paragraph.
    """
    if len(conditions) <= 1:
        return tuple(conditions)
    props = proposition_numbers(problem.n_bins, problem.is_nominal, conditions)
    if props is None:
        return tuple(conditions)
    space = _space_of(problem)
    return space.conditions(shortest_equivalent(problem, tuple(sorted(props)), rows, space))


def _space_of(problem):
    """``_PropositionSpace.of(problem)``, its arrays built by NumPy.

    The space's own build loops over every proposition in Python (10 ms
    for 72 columns of 255 bins), once per fit on new data; here the same
    arrays in the same order from the features' bin counts (see
    :func:`proposition_numbers`). The last one is kept, as there.
    """
    n_bins = np.asarray(problem.n_bins, np.int64)
    is_nominal = np.asarray(problem.is_nominal, bool)
    allowed = getattr(problem, "allowed", None)
    key = tuple(None if a is None else (a.dtype.str, a.shape, a.tobytes())
                for a in (n_bins, is_nominal, allowed))
    last = _LAST_SPACE.get("entry")
    if last is not None and last[0] == key:
        return last[1]
    per_feature = _per_feature(n_bins, is_nominal)
    feature = np.repeat(np.arange(len(n_bins), dtype=np.int64), per_feature)
    place = np.arange(len(feature), dtype=np.int64) - np.repeat(
        np.cumsum(per_feature) - per_feature, per_feature)
    nb, nominal = n_bins[feature], is_nominal[feature]
    pairs = nominal & (nb > 2)  # == and != per category
    le = place < nb - 1
    op = np.where(nominal, np.where(pairs & (place % 2 == 1), search_kernels.NE, search_kernels.EQ),
                  np.where(le, search_kernels.LE, search_kernels.GT)).astype(np.int64)
    bin_ = np.where(nominal, np.where(pairs, place // 2, place),
                    np.where(le, place, 2 * nb - 3 - place)).astype(np.int64)
    searched = np.arange(len(feature), dtype=np.int64)
    if allowed is not None:
        searched = searched[allowed[feature, bin_, op]]
    space = _PropositionSpace(feature, op, bin_, searched)
    for array in (space.feature, space.op, space.bin, space.searched):
        array.flags.writeable = False  # shared by later rounds
    _LAST_SPACE["entry"] = (key, space)
    return space


_LAST_SPACE = {}  # the last space built (replaced whole: safe across threads)


def _per_feature(n_bins, is_nominal):
    # Propositions of each feature: 2 (n_bins - 1) numeric; n_bins nominal,
    # twice that with three or more categories (!= too).
    return np.where(is_nominal, np.where(n_bins > 2, 2 * n_bins, n_bins),
                    2 * np.maximum(n_bins - 1, 0))


def proposition_numbers(n_bins, is_nominal, conditions):
    """``_PropositionSpace.numbers(conditions)``, from the features' bin counts.

    The space's dictionary of every proposition took 50 ms to build for
    411 columns (atp7d), once per fit on new data; a proposition's number
    is its feature's offset plus its place in the feature's scan order
    (``<=`` by ascending bin, then ``>`` by descending bin; ``==`` and,
    with three or more categories, ``!=`` per category).

    Returns
    -------
    tuple of int, or None when a condition is not a proposition of the space.
    """
    n_bins, is_nominal = np.asarray(n_bins), np.asarray(is_nominal)
    offset = np.concatenate(([0], np.cumsum(_per_feature(n_bins, is_nominal))))
    props = []
    for feature, op, k in conditions:
        nb = int(n_bins[feature])
        if is_nominal[feature]:
            if op == search_kernels.EQ and 0 <= k < nb:
                place = 2 * k if nb > 2 else k
            elif op == search_kernels.NE and nb > 2 and 0 <= k < nb:
                place = 2 * k + 1
            else:
                return None
        elif op in (search_kernels.LE, search_kernels.GT) and 0 <= k <= nb - 2:
            place = k if op == search_kernels.LE else (nb - 1) + (nb - 2 - k)
        else:
            return None
        props.append(int(offset[feature]) + place)
    return tuple(props)


def shortened(problem, result):
    """``result`` with :func:`shorten_conditions` applied to its query.

    Same rows, so the same objective value and rule weight.

    Parameters
    ----------
    problem : SearchProblem
    result : SearchResult

    Returns
    -------
    SearchResult
    """
    return replace(result, conditions=shorten_conditions(problem, result.conditions, result.rows))
