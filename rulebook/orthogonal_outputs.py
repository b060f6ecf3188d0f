"""The orthogonal objective for rules of several outputs (an extension of Yang et al. 2024).

Yang et al. (2024) choose each query of a single-output ensemble by the
orthogonal gradient boosting objective (eq. 14),

    obj_ogb(q) = |g_perp^T q| / (||q_perp|| + epsilon),

the gain in fit of the ideal corrective step when ``q`` joins the selected
queries (Proposition 1). With several outputs (classes of the multinomial
loss, labels, targets; BOOMER's setting, Rapp et al. 2023), a rule's query
is shared by its outputs and so is the basis of the selected queries: the
orthogonal part ``q_perp`` of a query, hence ``||q_perp||``, does not
depend on the output; only the projected gradient ``g_k,perp`` does. Adding
``q`` to the basis lowers output ``k``'s squared residual by
``(g_k,perp^T q)^2 / ||q_perp||^2`` (eq. 13 for that output), so this
module scores a query

* for a *complete head* (a weight per output) by the root of the sum of
  those gains, ``sqrt(sum_k (g_k,perp^T q)^2) / (||q_perp|| + epsilon)``:
  the norm of the per-output objectives, which orders queries as the total
  gain does; with one output it is eq. 14;
* for a *single-output head* (a weight for one output) by the largest of
  them, ``max_k |g_k,perp^T q| / (||q_perp|| + epsilon)``.

These two objectives are rulebook's extension: the paper treats one
output. Each extent is scored from channel sums as in
:mod:`rulebook._orthogonal_kernels` (Proposition 3), with one gradient
channel per output: ``W = [G_1 .. G_m, C, N, U_1 .. U_K]``. The scans reuse
the single-output kernel once per output (the same denominators) and
combine its values.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.2 (Proposition 1, eq. 13-14), Section 3.3 (Proposition 3).
.. [2] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning. Advances in Data
   Analysis and Classification. Section 2.4 (complete and single-output
   heads).
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import _orthogonal_kernels as kernels
from ._config import PARALLEL_MIN_WORK
from .orthogonal_objective import _TIE_DIGITS  # ties as with one output
from .orthogonal_search import _key


@dataclass
class OutputChannelProblem:
    """A round's search problem of several outputs, scored by the orthogonal objective.

    Has the interface the orthogonal searches read of a
    :class:`~rulebook.orthogonal.ChannelProblem` (``value``,
    ``histograms``, ``child_histograms``, ``values``, ``condition``,
    ``base``), so :func:`rulebook.orthogonal.beam_search` and
    :func:`~rulebook.orthogonal.greedy_search` run on it unchanged.

    Attributes
    ----------
    base : rulebook.search.MultiOutputProblem
    W : ndarray of shape (n, m + 2 + K), float64, C-order
        Channels ``[G_1 .. G_m, C, N, U_1 .. U_K]``: the projected weighted
        gradients of the ``m`` outputs, the sample weight, 1, and
        ``s_i o_k,i`` for the ``K`` orthonormal basis vectors.
    n_outputs : int
    single_head : bool
        Score for single-output heads (the largest output's objective)
        instead of complete heads (the norm of the outputs' objectives).
    epsilon : float
    ridge : float
        The ridge term (:func:`rulebook.orthogonal.ridge_term`): every
        output's ``|G_k| / (sqrt(||q_perp||^2 + ridge) + epsilon)``; 0: as
        eq. 14.
    """

    base: object
    W: np.ndarray
    n_outputs: int
    single_head: bool = False
    epsilon: float = 0.0
    transient: bool = False
    ridge: float = 0.0

    @classmethod
    def orthogonal(cls, problem, basis, epsilon, ridge=0.0):
        """Channels of ``problem`` (several outputs) given the current basis.

        Parameters
        ----------
        problem : rulebook.search.MultiOutputProblem
            ``g`` of shape (n, m): the weighted gradients of the outputs.
        basis : rulebook.orthogonal.OrthogonalBasis
        epsilon : float
        ridge : float, default=0.0
        """
        g = np.asarray(problem.g)
        m, c = g.shape[1], problem.c
        W = np.empty((len(c), m + 2 + basis.size))
        for k in range(m):
            W[:, k] = basis.project(g[:, k])
        W[:, m] = c
        W[:, m + 1] = 1.0
        np.multiply(c[:, None], basis.O, out=W[:, m + 2:])
        return cls(problem, W, m, bool(getattr(problem, "single_head", False)), float(epsilon),
                   ridge=float(ridge))

    @cached_property
    def _scale(self):
        rows = self.base.rows
        return float(np.abs(self.W[rows, :self.n_outputs]).sum()) or 1.0

    def _snap(self, values):
        return np.round(values / self._scale, _TIE_DIGITS) * self._scale

    def _combine(self, per_output):
        """The head's objective from the outputs' eq.-14 values (first axis)."""
        if self.single_head:
            return per_output.max(axis=0)
        # -inf (no proposition) stays -inf: it is -inf for every output.
        return np.sqrt(np.sum(np.where(np.isfinite(per_output), per_output, 0.0) ** 2, axis=0)) \
            + np.where(np.isfinite(per_output[0]), 0.0, -np.inf)

    def value(self, rows):
        """Objective value of the extent ``rows``."""
        return float(self._snap(kernels._output_value(self.W[rows].sum(axis=0), self.n_outputs,
                                                      self.single_head, self.epsilon,
                                                      self.ridge)))

    def histograms(self, rows, first=0, out=None):
        """Channel histograms, shape (n_features, max(n_bins) + 1, m + 2 + K).

        Only features ``first`` on are built (the others are left as they
        are: the branch and bound's tail augmentation never reads them),
        into ``out`` when given.
        """
        X = self.base.X_binned
        hist = out if out is not None else np.empty(
            (X.shape[1], int(self.base.n_bins.max()) + 1, self.W.shape[1]))
        parallel = len(rows) * (X.shape[1] - first) * self.W.shape[1] >= PARALLEL_MIN_WORK
        build = (kernels.build_channel_histograms_parallel if parallel
                 else kernels.build_channel_histograms_serial)
        build(X, rows, self.W, first, hist)
        return hist

    def child_histograms(self, parent_hist, kept, removed, first=0):
        """Histograms of ``kept``, by subtraction when ``removed`` is smaller
        (features ``first`` on, as :meth:`histograms`)."""
        if len(removed) < len(kept):
            hist = self.histograms(removed, first)
            np.subtract(parent_hist[first:], hist[first:], out=hist[first:])
            return hist
        return self.histograms(kept, first)

    def values(self, hist, n_rows, first=0):
        """Objective of every proposition, shape (n_features, 2 * n_bins_max + 2).

        Entry ``[j, p]`` is feature ``j``'s ``p``-th proposition in the
        kernels' order (:meth:`condition`), ``-inf`` where there is none or
        it is not a strict, non-empty sub-extent of ``n_rows`` rows, and
        for the features before ``first``.
        """
        d, width, channels = hist.shape
        out = np.full((d, 2 * width), -np.inf)
        parallel = (d - first) * width * channels >= PARALLEL_MIN_WORK
        scan = kernels.scan_outputs_parallel if parallel else kernels.scan_outputs_serial
        scan(hist, self.base.n_bins, self.base.is_nominal, first, self.n_outputs,
             self.single_head, self.epsilon, self.ridge, float(n_rows), out)
        return self._snap(out)

    def condition(self, j, p):
        """Binned ``(feature, op, bin)`` of entry ``[j, p]`` of :meth:`values`."""
        op, bin_ = kernels.decode(int(p), int(self.base.n_bins[j]), bool(self.base.is_nominal[j]))
        return int(j), int(op), int(bin_)


def output_branch_and_bound(problem, max_nodes=None, bound="prefix_greedy", memory_limit=None,
                            length_factor=None):
    """Best-first branch and bound over conjunctions, for several outputs.

    The single-output search's design (:func:`rulebook.orthogonal.branch_and_bound`,
    Yang et al. 2024, Algorithm 2) in Python: conditions added in
    non-decreasing feature order (tail augmentation; several on one feature
    make an interval or a set of categories), a query skipped when its
    extent, last feature and set of features was reached before (their
    refinements are the same), a node expanded only while its bound exceeds
    the best value found, ``max_nodes`` expansions at most.

    The bound combines the paper's prefix-greedy bound of each output (the
    best prefix of the node's rows sorted by that output's projected
    gradient, ascending or descending) as the head's objective combines the
    outputs' values: the root of their sum of squares for a complete head,
    their maximum for a single-output head. Were each output's a true upper
    bound of its value over the node's sub-extents, so would the
    combination be (each output's value is below its bound in every
    sub-extent); the prefix-greedy bound is a heuristic (the paper's
    Appendix B), so this one is too, and the search can miss the optimum.

    Parameters
    ----------
    problem : OutputChannelProblem
    max_nodes : int >= 1 or None
        Most node expansions (None: no limit).
    bound : {"prefix_greedy", "none"}, default="prefix_greedy"
        ``"none"`` prunes nothing: exhaustive, exact, exponential.
    memory_limit : float > 0 or None
        Most mebibytes of the expanded nodes' refinements (their indices
        and values, 16 bytes each, and their rows): the search stops, as at
        ``max_nodes``, once they pass it.
    length_factor : ndarray of shape (L,), float64, optional
        As from :func:`rulebook.orthogonal.length_factors` (None: all
        ones): the search maximises ``value * length_factor[c]`` for a
        query of ``c`` conditions (features); a node's bound is scaled by
        its own factor (its refinements have no fewer conditions), as in
        :func:`rulebook.orthogonal.branch_and_bound`.

    Returns
    -------
    rulebook.search.SearchResult
        ``value``: the query's objective value (not its score); ``stats``: ``n_nodes`` (expansions), ``n_pruned``,
        ``budget_exhausted`` (``max_nodes`` or ``memory_limit`` stopped the
        search), ``memory_exhausted``.
    """
    import heapq

    from .search import SearchResult

    bound = _PrefixBound(problem) if bound == "prefix_greedy" else (lambda rows: np.inf)
    rows = problem.base.rows
    limit = problem.base.max_rule_length or np.inf
    factor = np.ones(1) if length_factor is None else np.asarray(length_factor, np.float64)
    # [score, conditions, rows, value]: the best by score (value x factor).
    root_value = problem.value(rows)
    best = [root_value * factor[0], (), rows, root_value]
    # Entries (-priority, tie, node): a node to bound and expand, or the
    # refinements of an expanded one, handed out best value first (each
    # enters the queue with its parent's bound only when it comes up).
    queue = [(-np.inf, 0, _Node((), rows))]
    seen, count, n_nodes, n_pruned = set(), 1, 0, 0
    scratch = []  # one histogram array, reused by every expansion
    held, most = 0, np.inf if memory_limit is None else memory_limit * 2**20
    while queue:
        negative, _, node = heapq.heappop(queue)
        if not -negative > best[0]:
            n_pruned += 1 + len(queue)  # best first: nothing left can beat it
            break
        if node.order is not None:  # the next refinement of an expanded node
            if node.has_next():
                heapq.heappush(queue, (negative, count, node.next()))
                count += 1
            child = _refinement(problem, node, seen, best, factor)
            if child is not None:
                heapq.heappush(queue, (negative, count, child))
                count += 1
            continue
        if (max_nodes is not None and n_nodes >= max_nodes) or held > most:
            queue.append((negative, 0, node))  # left unexpanded: the budget stopped it
            break
        node_bound = bound(node.rows) * _factor(factor, node.conditions)
        if not node_bound > best[0] or len(node.rows) <= 1:
            n_pruned += 1
            continue
        n_nodes += 1
        expanded = _expand(problem, node, limit, scratch)
        if expanded is not None:
            held += 16 * (len(expanded.order) + len(expanded.rest[0])) + expanded.rows.nbytes
            heapq.heappush(queue, (-node_bound, count, expanded))
            count += 1
    memory = bool(queue) and held > most
    exhausted = bool(queue) and (memory or (max_nodes is not None and n_nodes >= max_nodes))
    return SearchResult(best[1], best[3], best[2],
                        {"n_nodes": n_nodes, "n_pruned": n_pruned, "budget_exhausted": exhausted,
                         "memory_exhausted": memory})


@dataclass
class _Node:
    """A query of the branch and bound and, once expanded, its refinements.

    An expanded node keeps its refinements' flat indices (feature times
    ``width`` plus position) and values, best first, not its histograms,
    which are built from its rows into one array reused by every expansion:
    kept per node, those of 411 columns of 255 bins and 6 outputs took
    12.6 MB each, 3.8 GB at 300 nodes.
    """

    conditions: tuple
    rows: np.ndarray
    order: np.ndarray = None
    scores: np.ndarray = None
    width: int = 0
    position: int = 0
    rest: tuple = None  # (indices, values) of the refinements not yet ordered

    def has_next(self):
        return self.position + 1 < len(self.order) or len(self.rest[0]) > 0

    def next(self):
        """The same node, its next refinement up (the next chunk of them
        ordered when the ordered ones run out)."""
        if self.position + 1 < len(self.order):
            return _Node(self.conditions, self.rows, self.order, self.scores, self.width,
                         self.position + 1, self.rest)
        order, scores, rest = _best_first(*self.rest)
        return _Node(self.conditions, self.rows, order, scores, self.width, 0, rest)


# Refinements put in order at a time: most expanded nodes hand out a few
# before the search prunes them, and sorting all of a node's (10^5 at 411
# columns of 255 bins) took 40% of a search.
_CHUNK = 256


def _best_first(indices, values):
    """The best ``_CHUNK`` of ``(indices, values)`` (more on a tie at the
    cut), best value first, ties by index; and the rest, unordered: chunk by
    chunk, the order of one stable sort of all."""
    if len(values) > _CHUNK:
        cut = np.partition(values, len(values) - _CHUNK)[len(values) - _CHUNK]
        top = values >= cut
    else:
        top = np.ones(len(values), bool)
    chosen = np.argsort(-values[top], kind="stable")
    return (indices[top][chosen], values[top][chosen],
            (indices[~top], values[~top]))


def _expand(problem, node, limit, scratch):
    """``node`` with its refinements scored and ordered (None: it has none).

    Conditions on features before the last one's are not added (tail
    augmentation); at ``limit`` features only the features used are.
    ``scratch``: a list holding the reusable histogram array, or empty.
    """
    first = node.conditions[-1][0] if node.conditions else 0
    hist = problem.histograms(node.rows, first, scratch[0] if scratch else None)
    scratch[:] = [hist]
    values = problem.values(hist, len(node.rows), first)
    used = sorted({c[0] for c in node.conditions})
    if len(used) >= limit:
        keep = np.zeros(values.shape[0], bool)
        keep[used] = True
        values[~keep] = -np.inf
    flat = values.ravel()
    finite = np.flatnonzero(np.isfinite(flat))
    if not len(finite):
        return None
    order, scores, rest = _best_first(finite, flat[finite])
    return _Node(node.conditions, node.rows, order, scores, values.shape[1], 0, rest)


def _factor(factor, conditions):
    """The length factor of a query: of its number of features."""
    return factor[min(len({c[0] for c in conditions}), len(factor) - 1)]


def _refinement(problem, node, seen, best, factor):
    """The refinement of ``node`` at its position, or None when a query of
    the same extent, last feature and features was seen (the same
    refinements: one is enough); ``best`` (score, conditions, rows, value)
    is updated in place."""
    j, p = divmod(int(node.order[node.position]), node.width)
    condition = problem.condition(j, p)
    kept = problem.base.split(node.rows, condition)[0]
    key = (_key(kept), j, frozenset(c[0] for c in node.conditions) | {j})
    if key in seen:
        return None
    seen.add(key)
    value = float(node.scores[node.position])
    conditions = node.conditions + (condition,)
    score = value * _factor(factor, conditions)
    if score > best[0]:
        best[:] = [score, conditions, kept, value]
    return _Node(conditions, kept)


class _PrefixBound:
    """Each output's prefix-greedy bound of an extent, combined as the head's objective."""

    def __init__(self, problem):
        self.problem = problem
        m, W = problem.n_outputs, problem.W
        self.single = np.empty((len(W), kernels.FIRST_BASIS_CHANNEL + W.shape[1] - m - 2))
        self.single[:, kernels.H] = 0.0
        self.single[:, kernels.C] = W[:, m]
        self.single[:, kernels.N] = W[:, m + 1]
        self.single[:, kernels.FIRST_BASIS_CHANNEL:] = W[:, m + 2:]
        rows = problem.base.rows
        # Rows in ascending projected gradient per weight, for each output.
        self.orders = [rows[np.argsort(W[rows, k] / W[rows, m], kind="stable")] for k in range(m)]

    def __call__(self, rows):
        problem = self.problem
        mask = np.zeros(len(problem.W), bool)
        mask[rows] = True
        per_output = np.empty(problem.n_outputs)
        for k, order in enumerate(self.orders):
            sigma = order[mask[order]]
            self.single[:, kernels.G] = problem.W[:, k]
            out = np.empty(len(sigma))
            kernels.prefix_values(self.single, sigma, problem.epsilon, problem.ridge, out)
            best = out.max(initial=0.0)
            kernels.prefix_values(self.single, sigma[::-1].copy(), problem.epsilon,
                                  problem.ridge, out)
            per_output[k] = max(best, out.max(initial=0.0))
        return float(problem._snap(problem._combine(per_output)))
