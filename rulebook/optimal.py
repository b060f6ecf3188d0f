"""Exact rule search by branch and bound (Boley et al. 2021, Algorithm 1).

The optimal base learner maximises the objective over *all* conjunctions of
the binned propositions that the greedy learner chooses from, so greedy
refinement never finds a better query. The search enumerates queries by tail
augmentation in a fixed proposition order (that of the greedy kernels'
scan) and prunes with

* the tight bound of Theorem 3.1, computed in one linear pass because every
  extent is kept in the order of the gradient ratio ``g / h``, fixed once
  per search;
* OPUS propagation: an augmentation's bound, computed at one node, prunes
  the same augmentation in all of the node's siblings' subtrees;
* equivalence pruning: only one *core query* per extent is expanded
  (prefix preservation, eq. 3.6), and the critical index of Theorem 3.2
  carries the non-core verdicts into the siblings' subtrees (eq. 3.7, 3.8).

The optimal core query is finally replaced by an approximately shortest
query with the same extent (greedy set cover, end of Section 3.2).

The search is anytime: a node budget, a time limit or an approximation
factor stop it early with a certified ratio ``value / upper bound``.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (Theorem 3.1), Section 3.2 (eq. 3.6-3.8, Theorem 3.2),
   Algorithm 1, and Appendix C (Table 2, the pruning counts).
.. [2] Webb, G. I. (1995). OPUS: An efficient admissible algorithm for
   unordered search. JAIR 3, 431-465.
.. [3] Uno, T., Asai, T., Uchida, Y., Arimura, H. (2004). An efficient
   algorithm for enumerating closed patterns in transaction databases.
   Discovery Science.
"""

import heapq
import itertools
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from . import _bound_kernels as kernels
from ._search_kernels import EQ, GT, LE, N_CHANNELS, NE
from .objectives import _objective
from .search import SearchResult

ORDERS = ("best_first", "breadth_first", "depth_first")


@dataclass(frozen=True)
class OptimalLearner:
    """Branch-and-bound base learner (``learner="optimal"``).

    Finds the conjunction of binned propositions of largest objective value
    (within ``max_rule_length`` propositions), then shortens it to an
    approximately shortest query with the same extent.

    Parameters
    ----------
    order : {"best_first", "breadth_first", "depth_first"}, default="best_first"
        Which open query is expanded next: largest bound first, oldest
        first, or newest first. All give the same optimal value; best-first
        usually expands fewest nodes and gives the best anytime guarantee.
    max_nodes : int >= 1 or None, default=None
        Stop after expanding this many queries (None: no limit).
    time_limit : float > 0 or None, default=None
        Stop expanding after this many seconds (None: no limit). Checked
        between node expansions.
    approximation : float in (0, 1], default=1.0
        Prune a query when ``approximation * bound <= best value``: the
        result is then guaranteed to be within this factor of the optimum.

    Raises
    ------
    ValueError
        On an invalid option (at construction).

    Notes
    -----
    The search assumes ``h_i >= 0`` and ``c_i > 0`` for the rows of
    ``problem.rows`` (true for the convex losses of :mod:`rulebook.losses`,
    and ``rows`` holds only rows of positive weight). Rows with ``h_i == 0``
    are handled exactly, including with ``reg_lambda = 0``; see
    :func:`rulebook._bound_kernels.bound`.

    Bounds and values are compared exactly in floating point; they are sums
    in different orders (the bound along the ratio order, values from
    histograms), so with real-valued statistics a query that beats the best
    one by a relative 1e-15 or so may be pruned. The result is then optimal
    up to that rounding (exact with integer-valued statistics).

    The search is exponential in the worst case. Residuals that look like
    noise (late boosting rounds, small ``reg_lambda``, many bins) can make
    it run for hours, and best-first search keeps every open query in
    memory (a few hundred bytes each; tens of millions are possible): use
    ``max_bins`` of about 10 or less, a larger ``reg_lambda``,
    ``time_limit`` or ``max_nodes``. A stopped search returns the best query
    found with its certified ratio (``history_["certified_ratio"]``).

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 3 and Algorithm 1; Appendix C for the
       effect of ``reg_lambda`` on the running time.

    Examples
    --------
    >>> from rulebook import OptimalLearner, RuleBoostingClassifier
    >>> from rulebook.datasets import make_noisy_parity
    >>> X, y = make_noisy_parity(n_samples=200, random_state=0)
    >>> model = RuleBoostingClassifier(n_rules=2, learner=OptimalLearner(), reg_lambda=10,
    ...                                max_bins=8).fit(X, y)
    >>> bool(model.history_["certified"].iloc[1:].all())
    True
    """

    order: str = "best_first"
    max_nodes: int | None = None
    time_limit: float | None = None
    approximation: float = 1.0

    name = "optimal"

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(f"order={self.order!r} is not supported; "
                             f"valid orders are {list(ORDERS)}")
        if self.max_nodes is not None and not (_is_number(self.max_nodes, integral=True)
                                               and self.max_nodes >= 1):
            raise ValueError(f"max_nodes must be an integer >= 1 or None; got {self.max_nodes!r}")
        if self.time_limit is not None and not (_is_number(self.time_limit)
                                                and self.time_limit > 0):
            raise ValueError(f"time_limit must be a positive number or None; "
                             f"got {self.time_limit!r}")
        if not (_is_number(self.approximation) and 0.0 < self.approximation <= 1.0):
            raise ValueError(f"approximation must be in (0, 1]; got {self.approximation!r}")

    def search(self, problem):
        """Find the best query; see :func:`optimal_search`."""
        return optimal_search(problem, order=self.order, max_nodes=self.max_nodes,
                              time_limit=self.time_limit, approximation=self.approximation)


def _is_number(value, integral=False):
    kinds = (int, np.integer) if integral else (int, float, np.integer, np.floating)
    return isinstance(value, kinds) and not isinstance(value, bool)


def optimal_search(problem, *, order="best_first", max_nodes=None, time_limit=None,
                   approximation=1.0, shorten=True):
    """Find a query of largest objective value by branch and bound.

    Parameters
    ----------
    problem : SearchProblem
    order, max_nodes, time_limit, approximation
        As in :class:`OptimalLearner`.
    shorten : bool, default=True
        Replace the found query by an approximately shortest equivalent one
        (:func:`shortest_equivalent`). False returns the query as found.

    Returns
    -------
    SearchResult
        ``conditions`` are ``(feature, op, bin)`` triples in proposition
        order; ``rows`` the extent, ascending. ``stats`` holds

        nodes_created
            Queries put on the boundary (the root included).
        nodes_expanded
            Queries taken off the boundary and expanded: one histogram of
            their extent, then all their augmentations examined.
        pruned_bound_immediate
            Refinements ``q p_a`` whose own extent, just computed, is empty
            or has ``approximation * bnd <= best``: the entry is dropped from
            the list ``A'``, so no sibling considers ``p_a`` again. Plus open
            queries discarded unexpanded because the best value has since
            reached their bound.
        pruned_bound_propagated
            Entries of an inherited augmentation list skipped at line 9 of
            Algorithm 1 without computing their extent, because their bound
            (computed at the parent for the parent's refinement by ``p_a``,
            OPUS) no longer exceeds ``best / approximation``. As entries
            with small bounds are already dropped when computed (above),
            this counts only those overtaken by a later rise of the best
            value; the paper's Table 2 instead counts a dropped entry again
            in every sibling, so the split differs from it.
        pruned_equivalence_immediate
            Refinements found at this node not to be new core queries:
            ``q -> p_a`` (the extent is unchanged), or the prefix
            preservation check (3.6) gives a critical index below ``a``.
        pruned_equivalence_propagated
            Refinements known not to be core queries from the critical index
            inherited in the list (Theorem 3.2): skipped with all their
            extensions by (3.8), or not checked by (3.7).
        certified
            True if the search finished, or stopped with
            ``best >= approximation * (largest open bound)``.
        certified_ratio
            ``best / upper_bound``: 1.0 when an exact search finished.
        upper_bound
            An upper bound of the optimum: the largest of the best value, the
            bounds of the open queries and the bounds pruned (which exceed
            the best value only when ``approximation < 1``).
        search_time
            Seconds.
        trace
            Tuple of ``(nodes_expanded, seconds, best_value, upper_bound)``,
            one entry per improvement of the best value and one at the end.

    Raises
    ------
    ValueError
        If ``order`` is unknown.

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Algorithm 1; Table 2 for the four pruning counts.
    """
    if order not in ORDERS:
        raise ValueError(f"order={order!r} is not supported; valid orders are {list(ORDERS)}")
    started = time.perf_counter()
    search = _BranchAndBound(problem, order, approximation, started)
    search.run(max_nodes, None if time_limit is None else started + time_limit)
    conditions, rows = search.best_props, search.best_rows
    if shorten:
        conditions = shortest_equivalent(problem, conditions, rows, search.space)
    stats = search.stats(time.perf_counter() - started)
    return SearchResult(search.space.conditions(conditions), search.best_value,
                        np.sort(rows), stats)


@dataclass(frozen=True)
class _PropositionSpace:
    """The numbered propositions of a problem, in the greedy scan's order."""

    feature: np.ndarray
    op: np.ndarray
    bin: np.ndarray
    feature_start: np.ndarray

    @classmethod
    def of(cls, problem):
        feature, op, bin_, start = [], [], [], [0]
        for j, nb in enumerate(int(b) for b in problem.n_bins):
            if problem.is_nominal[j]:
                for k in range(nb):
                    feature.append(j), op.append(EQ), bin_.append(k)
                    if nb > 2:
                        feature.append(j), op.append(NE), bin_.append(k)
            else:
                for k in range(nb - 1):
                    feature.append(j), op.append(LE), bin_.append(k)
                for k in range(nb - 2, -1, -1):
                    feature.append(j), op.append(GT), bin_.append(k)
            start.append(len(feature))
        as_int = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
        return cls(as_int(feature), as_int(op), as_int(bin_), as_int(start))

    def __len__(self):
        return len(self.feature)

    def condition(self, p):
        return int(self.feature[p]), int(self.op[p]), int(self.bin[p])

    def conditions(self, props):
        return tuple(self.condition(p) for p in props)

    def score(self, problem, hist, m):
        """Value, row count and implied flag of every refinement of an extent."""
        P = len(self)
        value, count, implied = np.empty(P), np.empty(P), np.empty(P, np.bool_)
        kernels.score_propositions(hist, problem.n_bins, problem.is_nominal, self.feature_start,
                                   problem.objective, problem.n_total, float(problem.reg_lambda),
                                   float(m), value, count, implied)
        return value, count, implied


def ratio_order(problem):
    """The rows of ``problem.rows`` sorted by ``g / h`` descending (Theorem 3.1).

    ``g / c`` for the gradient-boosting objective; rows with ``h == 0`` sort
    as ``+inf`` or ``-inf`` by the sign of ``g`` (the limit of the ratio),
    rows with ``g == 0`` as 0. The sort is stable, so ties keep row order.

    Returns
    -------
    ndarray of shape (n_active,), intp
    """
    rows = problem.rows
    g = problem.g[rows]
    w = (problem.c if problem.objective == 1 else problem.h)[rows]
    key = np.zeros(len(rows))
    with np.errstate(over="ignore"):
        np.divide(g, w, out=key, where=w > 0)
    # A ratio that overflows (h near the smallest float) must still sort
    # after the truly infinite ratios of rows with h == 0.
    np.clip(key, -np.finfo(key.dtype).max, np.finfo(key.dtype).max, out=key)
    zero = (w <= 0) & (g != 0)
    key[zero] = np.copysign(np.inf, g[zero])
    return rows[np.argsort(-key, kind="stable")]


class _Parent:
    """An expanded query with children on the boundary.

    Its children share its extent (from which each computes its own when
    expanded) and its augmentation list ``A'``; an open child is just
    ``(parent, k)``, k its entry in ``A'``. Open queries far outnumber
    expanded ones in best-first search, so they are kept this small.
    """

    __slots__ = ("props", "rows", "aug")

    def __init__(self, props, rows, aug):
        self.props, self.rows, self.aug = props, rows, aug


class _Boundary:
    """The open queries ``(bound, parent, k)``: best-bound, FIFO or LIFO order."""

    def __init__(self, order):
        self.order = order
        self._items = [] if order == "best_first" else deque()
        self._tie = itertools.count()

    def push(self, bound, parent, k):
        if self.order == "best_first":
            # Ties in the bound: the older query first (deterministic).
            heapq.heappush(self._items, (-bound, next(self._tie), parent, k))
        else:
            self._items.append((-bound, 0, parent, k))

    def pop(self):
        if self.order == "best_first":
            item = heapq.heappop(self._items)
        elif self.order == "breadth_first":
            item = self._items.popleft()
        else:
            item = self._items.pop()
        return -item[0], item[2], item[3]

    def max_bound(self):
        if not self._items:
            return -np.inf
        if self.order == "best_first":
            return -self._items[0][0]
        return -min(item[0] for item in self._items)

    def __len__(self):
        return len(self._items)


class _BranchAndBound:
    """State of one run of Algorithm 1."""

    def __init__(self, problem, order, approximation, started):
        self.problem = problem
        self.alpha = float(approximation)
        self.space = _PropositionSpace.of(problem)
        self.limit = int(problem.max_rule_length or 0)
        # With a length limit, core-query pruning could lose the optimum:
        # a core query may be longer than the shortest query of its extent
        # (p3 with I(p3) = I(p1 & p2) has core query p1 p2), so an extent
        # reachable within the limit may have its core query beyond it.
        # Then only the always-safe q -> p_a equivalence pruning is used.
        self.check_core = self.limit == 0
        self.code = int(problem.objective)
        self.n_total = problem.n_total
        self.reg_lambda = float(problem.reg_lambda)
        root = ratio_order(problem)
        G, H, C = problem.sums(root)
        self.best_value = float(_objective(self.code, G, H, C, self.n_total, self.reg_lambda))
        self.best_props, self.best_rows = (), root
        self.counters = np.zeros(kernels.N_COUNTERS, np.int64)
        self.pruned_max = np.full(1, -np.inf)
        self.nodes_created, self.nodes_expanded = 1, 0
        self.boundary = _Boundary(order)
        P = len(self.space)
        aug = (np.arange(P, dtype=np.int64), np.full(P, np.inf), np.arange(P, dtype=np.int64))
        self.root = root
        self.boundary.push(self._bound(root), _Parent((), root, aug), -1)
        # Buffers reused by every expansion.
        n_max_bins = int(problem.n_bins.max()) + 1
        self._counts = np.empty(n_max_bins, np.int64)
        self._hist = np.empty((problem.n_features, n_max_bins, N_CHANNELS))
        self._scores = np.empty(P), np.empty(P), np.empty(P, np.bool_)
        self._scratch = np.empty(len(root), dtype=root.dtype)
        self._out = np.empty(P, np.int64), np.empty(P), np.empty(P, np.int64)
        self._started = started
        self.trace = []

    def _bound(self, rows):
        p = self.problem
        return float(kernels.bound(rows, len(rows), p.g, p.h, p.c, self.code, self.n_total,
                                   self.reg_lambda))

    def run(self, max_nodes, deadline):
        """Expand queries until the boundary is empty or a budget is spent."""
        while self.boundary:
            if max_nodes is not None and self.nodes_expanded >= max_nodes:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            bound, parent, k = self.boundary.pop()
            if self.alpha * bound <= self.best_value:
                # The best value rose to this query's bound since it was pushed.
                self.counters[kernels.BOUND_IMMEDIATE] += 1
                self.pruned_max[0] = max(self.pruned_max[0], bound)
                continue
            if self._expand(parent, k):
                self._record()
        self._record()

    def _expand(self, parent, k):
        """Lines 7-16 of Algorithm 1 for entry k of the parent's list (root: -1).

        Returns True if the best value improved.
        """
        problem, space = self.problem, self.space
        aug_a, aug_b, aug_c = parent.aug
        if k < 0:
            props, rows = parent.props, parent.rows
        else:
            a = int(aug_a[k])
            props, rows = parent.props + (a,), problem.refine(parent.rows, space.condition(a))
        self.nodes_expanded += 1
        # Large extents: the parallel histogram kernel, chosen by the problem.
        build_hist = not problem._parallel(rows)
        hist = self._hist if build_hist else problem.histograms(rows)
        out_a, out_b, out_c = self._out
        n_out, best, best_a = kernels.expand_node(
            problem.X_binned, rows, problem.g, problem.h, problem.c, self.code, self.n_total,
            self.reg_lambda, problem.n_bins, problem.is_nominal, space.feature, space.op,
            space.bin, space.feature_start, hist, build_hist, *self._scores, aug_a, aug_b,
            aug_c, k + 1, props[-1] if props else -1, self.best_value,
            self.alpha, self.check_core, self._scratch, self._counts, out_a, out_b, out_c,
            self.counters, self.pruned_max)
        improved = best_a >= 0
        if improved:
            self.best_value = float(best)
            self.best_props = props + (int(best_a),)
            self.best_rows = problem.refine(rows, space.condition(best_a))
        if self.limit and len(props) + 1 >= self.limit:
            return improved  # children would reach the limit: nothing to expand
        # Line 15: only core queries (critical index = own index) are pushed;
        # without core pruning every kept entry has c == a.
        core = np.flatnonzero((out_c[:n_out] == out_a[:n_out])
                              & (self.alpha * out_b[:n_out] > self.best_value))
        if not len(core):
            return improved
        node = _Parent(props, rows, (out_a[:n_out].copy(), out_b[:n_out].copy(),
                                     out_c[:n_out].copy()))
        if self.boundary.order == "depth_first":
            core = core[::-1]  # pop the lowest proposition first
        for j in core.tolist():
            self.boundary.push(float(out_b[j]), node, j)
        self.nodes_created += len(core)
        return improved

    def upper_bound(self):
        return max(self.best_value, self.boundary.max_bound(), float(self.pruned_max[0]))

    def _record(self):
        self.trace.append((self.nodes_expanded, time.perf_counter() - self._started,
                           self.best_value, self.upper_bound()))

    def stats(self, seconds):
        upper = self.upper_bound()
        finished = not self.boundary
        open_bound = self.boundary.max_bound()
        certified = finished or self.best_value >= self.alpha * open_bound
        ratio = 1.0 if upper <= self.best_value else self.best_value / upper
        return {
            "nodes_created": self.nodes_created,
            "nodes_expanded": self.nodes_expanded,
            "pruned_bound_immediate": int(self.counters[kernels.BOUND_IMMEDIATE]),
            "pruned_bound_propagated": int(self.counters[kernels.BOUND_PROPAGATED]),
            "pruned_equivalence_immediate": int(self.counters[kernels.EQUIV_IMMEDIATE]),
            "pruned_equivalence_propagated": int(self.counters[kernels.EQUIV_PROPAGATED]),
            "certified": bool(certified),
            "certified_ratio": float(ratio),
            "upper_bound": float(upper),
            "search_time": seconds,
            "trace": tuple(self.trace),
        }


def shortest_equivalent(problem, props, rows, space=None):
    """An approximately shortest query with the same extent (greedy set cover).

    Among the propositions implied by the extent, repeatedly choose the one
    that excludes the most root rows not yet excluded (the first in
    proposition order on ties) until only the extent remains; keep the
    original query if that is not strictly shorter (Boley et al. 2021, end
    of Section 3.2; greedy set cover is within a factor ``ln n`` of the
    shortest). Finally drop any proposition the others make redundant.

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
        Proposition numbers, ascending; never longer than ``props``.
    """
    if len(props) <= 1:
        return tuple(props)
    space = space or _PropositionSpace.of(problem)
    _, _, implied = space.score(problem, problem.histograms(rows), len(rows))
    outside = np.setdiff1d(problem.rows, rows, assume_unique=True)
    chosen = []
    while len(outside) and len(chosen) < len(props) - 1:
        # count[p] = outside rows that p keeps; the best p keeps the fewest.
        _, count, _ = space.score(problem, problem.histograms(outside), len(outside))
        count[~implied] = np.inf
        p = int(np.argmin(count))
        chosen.append(p)
        outside = problem.refine(outside, space.condition(p))
    best = tuple(props) if len(outside) else tuple(sorted(chosen))
    return _drop_redundant(problem, best, len(rows), space)


def _drop_redundant(problem, props, count, space):
    """Remove propositions whose absence keeps the extent (``count`` rows).

    Greedy set cover can choose a proposition that later choices make
    redundant; a core query can contain one too.
    """
    props = list(props)
    for p in reversed(list(props)):
        rest = [q for q in props if q != p]
        rows = problem.rows
        for q in rest:
            rows = problem.refine(rows, space.condition(q))
        if len(rows) == count:  # the rest contains the extent, hence equals it
            props = rest
    return tuple(props)
