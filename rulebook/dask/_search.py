"""A boosting round's search problem spread over a cluster's partitions.

:class:`DistributedProblem` is a :class:`rulebook.search.SearchProblem` whose
extents live on the workers: an :class:`Extent` holds one future of row
indices per partition and, on the client, only its size. Its
``histograms`` build each partition's histograms where the partition is and
sum them in a tree (:func:`rulebook.dask._client.reduce`); the scan of the
summed histograms is the in-memory one (``SearchProblem.best_refinements``),
so :func:`rulebook.greedy.greedy_search` runs on it unchanged: per search
node one histogram array of ``n_features x (max(n_bins) + 1) x 4`` floats
crosses the network per partition, whatever the number of rows.

The greedy learner's shortening (:mod:`rulebook.shortening`) reads the
training rows; :func:`shortened` is the same greedy set cover with its
per-bin row counts summed over partitions.
"""

from dataclasses import replace

import numpy as np

from .._search_kernels import N
from ..proposition_space import _PropositionSpace
from ..search import SearchProblem
from . import _client, _partitions
from ._partitions import covered_bins


class Extent:
    """The rows a query covers, as one future of row indices per partition.

    Parameters
    ----------
    parts : list of distributed.Future
        Per partition, an ndarray of its row indices (ascending).
    size : int
        The number of rows (of all partitions).
    hist : ndarray of shape (n_features, max(n_bins) + 1, 4), optional
        Their summed histograms, once built.
    sums : tuple of (float, float, float), optional
        Their ``(G, H, C)``, once summed.
    """

    def __init__(self, parts, size, hist=None, sums=None):
        self.parts = parts
        self.size = int(size)
        self.hist = hist
        self.sums = sums

    def __len__(self):
        return self.size


class DistributedProblem(SearchProblem):
    """One boosting round's :class:`~rulebook.search.SearchProblem` over partitions.

    Parameters
    ----------
    client : distributed.Client
    shards : list of distributed.Future
        The binned partitions (:class:`rulebook.dask._partitions.Shard`).
    gh : list of distributed.Future
        Per partition, the round's ``(g, h)``.
    root : Extent
        The rows of positive weight.
    n_total : float
        Their summed sample weight.
    n_bins, is_nominal, reg_lambda, objective, max_rule_length
        As :class:`~rulebook.search.SearchProblem`.

    Notes
    -----
    ``X_binned``, ``g``, ``h`` and ``c`` are empty: the rows are on the
    workers. Methods reading rows are replaced; those reading only
    histograms (``best_refinements``) are the in-memory ones.
    """

    def __init__(self, client, shards, gh, root, n_total, n_bins, is_nominal, reg_lambda,
                 objective, max_rule_length=0):
        empty = np.empty(0)
        super().__init__(X_binned=np.empty((0, len(n_bins)), np.uint16), n_bins=n_bins,
                         is_nominal=is_nominal, g=empty, h=empty, c=empty, rows=root,
                         reg_lambda=reg_lambda, objective=objective,
                         max_rule_length=max_rule_length, allowed=None)
        self.client, self.shards, self.gh = client, shards, gh
        self._n_total = float(n_total)

    @property
    def n_total(self):
        """Total sample weight of the rows of positive weight (all partitions)."""
        return self._n_total

    @property
    def n_features(self):
        return len(self.n_bins)

    def histograms(self, rows):
        """Summed ``(G, H, C, N)`` histograms of the extent ``rows`` (kept on it)."""
        if rows.hist is None:
            rows.hist = _client.reduce(self.client, self._histogram_parts(rows),
                                       _partitions.add_arrays)
        return rows.hist

    def _histogram_parts(self, rows):
        return _client.each(self.client, _partitions.histograms, self.shards, self.gh, rows.parts,
                            args=(self.n_bins, self.is_nominal))

    def split(self, rows, condition):
        """``(kept, removed)`` extents; their sizes from the histograms of ``rows``."""
        pairs = _client.each(self.client, _partitions.split, self.shards, rows.parts,
                             args=(condition, self.n_bins, self.is_nominal))
        kept = _client.each(self.client, _first, pairs)
        removed = _client.each(self.client, _second, pairs)
        n_kept = covered_count(self.histograms(rows), condition, self.n_bins)
        return Extent(kept, n_kept), Extent(removed, len(rows) - n_kept)

    def refine(self, rows, condition):
        """The extent of ``rows`` satisfying the condition."""
        return self.split(rows, condition)[0]

    def child_histograms(self, parent_hist, kept, removed):
        """Histograms of ``kept``, kept on it, as the in-memory problem makes
        them (``SearchProblem.child_histograms``: the smaller side built,
        the other by subtraction).

        ``kept``'s sums are summed in the same round trip: if it is the
        round's query, its rule weight needs them.
        """
        by_subtraction = len(removed) < len(kept)
        side = removed if by_subtraction else kept
        hist, sums = _client.reduce_all(self.client, [
            (self._histogram_parts(side), _partitions.add_arrays),
            (self._sum_parts(kept), _partitions.add_arrays)])
        side.hist = hist
        kept.sums = tuple(float(v) for v in sums)
        kept.hist = parent_hist - hist if by_subtraction else hist
        return kept.hist

    def sums(self, rows):
        """``(G, H, C)`` over the extent, summed over partitions (kept on it).

        The extent's histograms, if not built yet, are built in the same
        round trip (the greedy search asks for both at its root).
        """
        if rows.sums is not None:
            return rows.sums
        reductions = [(self._sum_parts(rows), _partitions.add_arrays)]
        if rows.hist is None:
            reductions.append((self._histogram_parts(rows), _partitions.add_arrays))
        sums, *hist = _client.reduce_all(self.client, reductions)
        if hist:
            rows.hist = hist[0]
        rows.sums = tuple(float(v) for v in sums)
        return rows.sums

    def _sum_parts(self, rows):
        return _client.each(self.client, _partitions.extent_sums, self.shards, self.gh, rows.parts)

    def count(self, conditions):
        """Rows of the root extent satisfying every one of ``conditions``."""
        parts = _client.each(self.client, _partitions.refine, self.shards, self.rows.parts,
                             args=(tuple(conditions), self.n_bins, self.is_nominal))
        counts = _client.each(self.client, _partitions.count, parts)
        return int(_client.reduce(self.client, counts, _partitions.add_arrays)[0])

    def _parallel(self, rows):
        return False


def _first(pair):
    return pair[0]


def _second(pair):
    return pair[1]


def covered_count(hist, condition, n_bins):
    """Rows of a histogram's extent satisfying ``(feature, op, bin)`` (exact:
    counts are whole numbers in float64)."""
    feature, op, bin_index = condition
    nb = int(n_bins[feature])
    return round(hist[feature, :nb + 1, N][covered_bins(op, bin_index, nb)].sum())


# -- shortening ------------------------------------------------------------------
def shortened(problem, result):
    """``result`` with an approximately shortest equivalent query.

    :func:`rulebook.shortening.shortened` on a :class:`DistributedProblem`:
    the same greedy set cover and the same choices (first proposition on
    ties), its per-bin row counts the ``N`` channel of summed histograms.

    Parameters
    ----------
    problem : DistributedProblem
    result : rulebook.search.SearchResult
        Its ``rows`` an :class:`Extent`.

    Returns
    -------
    rulebook.search.SearchResult
    """
    if len(result.conditions) <= 1:
        return result
    space = _PropositionSpace.of(problem)
    props = space.numbers(result.conditions)
    if props is None:
        return result
    props = tuple(sorted(props))
    best = _greedy_cover(problem, space, result.rows, len(props) - 1)
    best = np.array(props if best is None else sorted(best), np.int64)
    if len(set(space.feature[best])) > len(set(space.feature[np.asarray(props)])):
        best = np.array(props, np.int64)  # fewer propositions on more columns: longer
    kept = _without_redundant(problem, space, best, len(result.rows))
    return replace(result, conditions=space.conditions(kept))


def _greedy_cover(problem, space, extent, max_chosen):
    """Propositions chosen by ``_search_kernels.greedy_cover``, or None when
    rows outside the extent remain after ``max_chosen`` of them."""
    inside = problem.histograms(extent)[:, :, N]
    candidates = space.searched
    implied = [p for p in candidates if _implied(inside, space, p, problem.n_bins)]
    # Rows outside the extent that satisfy the propositions chosen so far:
    # rows of the root that do, less the extent's (which satisfy all implied).
    satisfying = problem.histograms(problem.rows)[:, :, N]
    n_out = len(problem.rows) - len(extent)
    chosen = []
    while n_out > 0 and len(chosen) < max_chosen:
        outside = satisfying - inside
        best, best_count = -1, n_out + 1
        for p in implied:
            f = int(space.feature[p])
            nb = int(problem.n_bins[f])
            count = round(outside[f, :nb + 1][covered_bins(space.op[p], space.bin[p], nb)].sum())
            if count < best_count:
                best, best_count = p, count
        if best < 0:
            break
        chosen.append(best)
        n_out = best_count
        if n_out > 0 and len(chosen) < max_chosen:
            conditions = space.conditions(chosen)
            parts = _client.each(problem.client, _partitions.refine, problem.shards,
                                 problem.rows.parts,
                                 args=(conditions, problem.n_bins, problem.is_nominal))
            satisfying = problem.histograms(Extent(parts, n_out + len(extent)))[:, :, N]
    return chosen if n_out == 0 else None


def _implied(inside, space, p, n_bins):
    """Whether every row of the extent (per-bin counts ``inside``) satisfies ``p``."""
    f = int(space.feature[p])
    nb = int(n_bins[f])
    return not (inside[f, :nb + 1][~covered_bins(space.op[p], space.bin[p], nb)] > 0).any()


def _without_redundant(problem, space, props, size):
    """``props`` less each one, last first, whose removal leaves ``size`` rows
    (``_search_kernels.redundant``).

    The root's rows counted once by the propositions they fail
    (:func:`rulebook.dask._partitions.failure_patterns`): every check is
    then a sum on the client, one round trip for the whole query.
    """
    conditions = space.conditions(props)
    keep = np.ones(len(props), bool)
    if len(props) > _partitions.MAX_PATTERN_CONDITIONS:
        def rows_satisfying(others):
            return problem.count([conditions[j] for j in others])
    else:
        parts = _client.each(problem.client, _partitions.failure_patterns, problem.shards,
                             problem.rows.parts, args=(conditions, problem.n_bins))
        patterns = _client.reduce(problem.client, parts, _partitions.merge_patterns)

        def rows_satisfying(others):
            bits = sum(1 << j for j in others)
            return sum(n for pattern, n in patterns.items() if not pattern & bits)
    for i in range(len(props) - 1, -1, -1):
        if rows_satisfying([j for j in range(len(props)) if j != i and keep[j]]) == size:
            keep[i] = False
    return props[keep]
