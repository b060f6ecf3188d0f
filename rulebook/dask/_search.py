"""A boosting round's search problem spread over a cluster's partitions.

:class:`DistributedProblem` is a :class:`rulebook.search.SearchProblem` whose
rows live on the workers. An :class:`Extent` (a search node) is its path
from the root, a few conditions, with its size and, once summed, its
histograms: the workers recompute its rows from their bin codes, and its
raw scores and gradients from the model's rules, inside each task, and
keep none of them. Its
``histograms`` build each worker's histograms of the node's rows and sum
them (:class:`rulebook.dask._client.Workers`); the scan of the summed
histograms is the in-memory one (``SearchProblem.best_refinements``), so
:func:`rulebook.greedy.greedy_search` runs on it unchanged: per search node
one histogram array of ``n_features x (max(n_bins) + 1) x 4`` floats
crosses the network per worker, whatever the number of rows or partitions,
and the node costs one round trip (the split itself is a new path, made on
the client).

The greedy learner's shortening (:mod:`rulebook.shortening`) reads the
training rows; :func:`shortened` is the same greedy set cover with its
per-bin row counts summed over partitions.
"""

from dataclasses import replace

import numpy as np

from .._search_kernels import N
from ..proposition_space import _PropositionSpace
from ..search import SearchProblem
from . import _partitions
from ._partitions import covered_bins


class Extent:
    """The rows a query covers: its path of conditions from the root.

    Parameters
    ----------
    terms : tuple of ((int, int, int), bool)
        ``((feature, op, bin), inside)``: the rows satisfying each binned
        condition (``inside``) or failing it
        (:func:`rulebook.dask._partitions.extent_rows`).
    size : int
        The number of rows (of all partitions).
    hist : ndarray of shape (n_features, max(n_bins) + 1, 4), optional
        Their summed histograms, once built.
    sums : tuple of (float, float, float), optional
        Their ``(G, H, C)``, once summed (with ``abs_gradient``, ``sum
        |g|``, and ``squares``, ``sum g^2 / c``).
    """

    def __init__(self, terms, size, hist=None, sums=None):
        self.terms = tuple(terms)
        self.size = int(size)
        self.hist = hist
        self.sums = sums
        self.abs_gradient = None
        self.squares = None  # sum g^2 / c, once summed

    def __len__(self):
        return self.size

    def narrowed(self, condition, inside, size):
        """The extent of the rows of this one satisfying (or failing) ``condition``."""
        return Extent(self.terms + ((tuple(condition), bool(inside)),), size)


class DistributedProblem(SearchProblem):
    """One boosting round's :class:`~rulebook.search.SearchProblem` over partitions.

    Parameters
    ----------
    workers : rulebook.dask._client.Workers
        The binned partitions.
    scores : rulebook.dask._partitions.RawScores
        The model so far (its raw scores are replayed on the workers).
    loss : rulebook loss
        Of the round's gradients (computed on the workers, per node).
    root : Extent
        The rows of positive weight (no condition).
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

    def __init__(self, workers, scores, loss, root, n_total, n_bins, is_nominal, reg_lambda,
                 objective, max_rule_length=0):
        empty = np.empty(0)
        super().__init__(X_binned=np.empty((0, len(n_bins)), np.uint16), n_bins=n_bins,
                         is_nominal=is_nominal, g=empty, h=empty, c=empty, rows=root,
                         reg_lambda=reg_lambda, objective=objective,
                         max_rule_length=max_rule_length, allowed=None)
        self.workers, self.scores, self.loss = workers, scores, loss
        self._n_total = float(n_total)

    @property
    def n_total(self):
        """Total sample weight of the rows of positive weight (all partitions)."""
        return self._n_total

    @property
    def n_features(self):
        return len(self.n_bins)

    def fetch(self, requests, squares=False):
        """Sums and histograms of extents, in one round trip.

        ``requests`` are ``(extent, with_histograms)`` pairs; the results
        are kept on the extents (``sums``, ``abs_gradient``, ``hist``, and
        ``squares`` when asked for).
        """
        results = self.workers.sum(_partitions.node_statistics, self.scores,
                                   tuple((extent.terms, bool(hist)) for extent, hist in requests),
                                   self.loss, self.n_bins, self.is_nominal, squares)
        for (extent, _), result in zip(requests, results):
            G, H, C, abs_gradient = result["sums"][:4]
            extent.sums = (float(G), float(H), float(C))
            extent.abs_gradient = float(abs_gradient)
            if squares:
                extent.squares = float(result["sums"][5])
            if "hist" in result:
                extent.hist = result["hist"]

    def histograms(self, rows):
        """Summed ``(G, H, C, N)`` histograms of the extent ``rows`` (kept on it)."""
        if rows.hist is None:
            self.fetch([(rows, True)])
        return rows.hist

    def split(self, rows, condition):
        """``(kept, removed)`` extents; their sizes from the histograms of ``rows``."""
        n_kept = covered_count(self.histograms(rows), condition, self.n_bins)
        return rows.narrowed(condition, True, n_kept), rows.narrowed(condition, False,
                                                                     len(rows) - n_kept)

    def refine(self, rows, condition):
        """The extent of ``rows`` satisfying the condition."""
        return self.split(rows, condition)[0]

    def child_histograms(self, parent_hist, kept, removed):
        """Histograms of ``kept``, kept on it, as the in-memory problem makes
        them (``SearchProblem.child_histograms``: the smaller side built,
        the other by subtraction).

        ``kept``'s sums come in the same round trip: if it is the round's
        query, its rule weight needs them.
        """
        if len(removed) < len(kept):
            self.fetch([(removed, True), (kept, False)])
            kept.hist = parent_hist - removed.hist
        else:
            self.fetch([(kept, True)])
        return kept.hist

    def sums(self, rows):
        """``(G, H, C)`` over the extent, summed over partitions (kept on it).

        The extent's histograms, if not built yet, come in the same round
        trip (the greedy search asks for both at its root).
        """
        if rows.sums is None:
            self.fetch([(rows, rows.hist is None)])
        return rows.sums

    def dispersion_sums(self):
        """``(sum g^2 / c, sum h)`` over the root extent, summed over partitions.

        Fetched with the root's histograms, which the greedy search reads
        next: no round trip of its own.
        """
        root = self.rows
        if root.squares is None:
            self.fetch([(root, root.hist is None)], squares=True)
        return root.squares + float(self.gradient_spread), root.sums[1]

    def count(self, conditions):
        """Rows of the root extent satisfying every one of ``conditions``."""
        terms = tuple((tuple(c), True) for c in conditions)
        return round(float(self.workers.sum(_partitions.count, terms, self.n_bins)[0]))


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
            terms = tuple((tuple(c), True) for c in space.conditions(chosen))
            satisfying = problem.histograms(Extent(terms, n_out + len(extent)))[:, :, N]
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
        patterns = problem.workers.sum(_partitions.failure_patterns, tuple(conditions),
                                       problem.n_bins, merge=_partitions.merge_patterns)

        def rows_satisfying(others):
            bits = sum(1 << j for j in others)
            return sum(n for pattern, n in patterns.items() if not pattern & bits)
    for i in range(len(props) - 1, -1, -1):
        if rows_satisfying([j for j in range(len(props)) if j != i and keep[j]]) == size:
            keep[i] = False
    return props[keep]
