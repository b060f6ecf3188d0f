"""Exact search of the best query of at most two conditions, for several outputs.

With several outputs (classes of the multinomial loss, labels, targets) a
rule's head predicts for every output (*complete* head: the objective is
the sum over outputs of ``G_k^2 / (2 n (lambda + H_k))``) or for the one
output where it helps most (*single-output* head: their maximum); see
:class:`rulebook.search.MultiOutputProblem`. This module finds the query of
largest objective among all queries of one condition on a column or two on
a pair of columns (the estimators' default length limit), on the fine bins,
by branch and bound over boxes of conditions
(:mod:`rulebook._box_kernels`):

* one condition on ``c``: the box of ``c``'s conditions times a dummy axis
  that every row is in;
* two conditions on ``(c, f)``: ``c``'s conditions times ``f``'s.

A box's bound sums (complete head) or maximises (single-output head) one
bound per output, each the second-order objective of the most optimistic
gradient sum any query of the box can have over the least Hessian sum
(admissible: every output's term of any query of the box is at most its
bound). Searches stop at a deadline and then return the best query found
with its certified ratio, as :func:`rulebook.pair_search.pair_search`;
they start from the greedy query (``seed``), so a stopped search never
returns a worse query than greedy refinement. Tested against enumeration
of every query of at most two conditions in
``tests/test_multi_output_search.py``.

The bound over outputs is looser than each output's own (a complete head's
outputs may prefer different rows), so these searches expand more boxes
than the single-output search of :mod:`rulebook.pair_search`. As that
search, a large one is split over threads: each takes whole boxes in turn
and all share the best value.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3 (branch and bound with admissible bounds).
.. [2] Mazumder, R., Meng, X., Wang, H. (2022). Quant-BnB: a scalable
   branch-and-bound method for optimal decision trees with continuous
   features. ICML. Section 3 (branching over ranges of thresholds).
.. [3] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning. Advances in Data
   Analysis and Classification. Section 2.4.2 (complete and single-output
   heads).
"""

import copy
import functools
import itertools
import time

import numpy as np

from . import _box_kernels as kernels
from . import _progress as progress
from .pair_search import (
    CALL_SECONDS,
    MAX_BRANCHED_CATEGORIES,
    _conditions,
    priced_conditions,
    run_workers,
    search_stats,
)

# The first kernel call's node budget in each box, which then adapts to
# CALL_SECONDS a call (a node of a pair of 255-bin columns with four
# outputs takes about 1 ms).
FIRST_BUDGET = 16


def applies(problem):
    """Whether :func:`multi_output_search` can search ``problem`` exactly.

    Parameters
    ----------
    problem : rulebook.search.MultiOutputProblem

    Returns
    -------
    bool
        True for a length limit of 1 or 2 conditions, ``reg_lambda > 0``,
        every proposition allowed (``allowed is None``) and nominal columns
        of at most ``MAX_BRANCHED_CATEGORIES`` categories.
    """
    n_bins = np.asarray(problem.n_bins)
    nominal = np.asarray(problem.is_nominal, bool)
    return (problem.max_rule_length in (1, 2) and problem.reg_lambda > 0
            and problem.allowed is None
            and not (nominal & (n_bins > MAX_BRANCHED_CATEGORIES)).any())


@functools.cache
def prepare():
    """Compile (or load from numba's cache) this search's kernels, once per
    process, on a problem of four rows: a round's time limit then counts
    search only, as :func:`rulebook._precompile.prepare` does for the
    single-output learners."""
    from .search import MultiOutputProblem

    X = np.asfortranarray(np.array([[0, 1, 0], [1, 0, 1], [2, 1, 0], [1, 1, 1]], np.uint16))
    g = np.array([[1.0, -1.0], [-1.0, 1.0], [0.5, 0.5], [-0.5, -0.5]])
    for single in (False, True):
        problem = MultiOutputProblem(
            X_binned=X, n_bins=np.array([3, 2, 2]), is_nominal=np.array([False, True, False]),
            g=g, h=np.ones_like(g), c=np.ones(4), rows=np.arange(4), reg_lambda=1.0,
            objective=2, max_rule_length=2, single_head=single)
        multi_output_search(problem)


def head_value(G, H, n_total, reg_lambda, single):
    """Objective of a head from its sums per output (NumPy).

    Parameters
    ----------
    G, H : ndarray of shape (K,), float64
        Gradient and Hessian sums of the extent, per output.
    n_total : float
    reg_lambda : float > 0
    single : bool
        Single-output head (the maximum over outputs) or complete (the sum).

    Returns
    -------
    float
    """
    terms = G * G / (2.0 * n_total * (reg_lambda + H))
    return float(terms.max() if single else terms.sum())


def _tight_bound(g, h, n2, lam):
    # max over subsets J of G_J^2 / (n2 (lam + H_J)): a prefix of the rows
    # in descending g/h order, from either end (Boley et al. 2021, Thm 3.1).
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(h > 0, g / h, np.sign(g) * np.inf)
    order = np.argsort(-np.nan_to_num(ratio, nan=0.0), kind="stable")
    best = 0.0
    for seq in (order, order[::-1]):
        G, H = np.cumsum(g[seq]), np.cumsum(h[seq])
        if len(G):
            best = max(best, float((G * G / (n2 * (lam + H))).max()))
    return best


class _Boxes:
    """The active rows' bin codes and statistics, and one search per box."""

    def __init__(self, problem):
        rows = problem.rows
        self.X = np.asfortranarray(problem.X_binned[rows]).astype(np.int64)
        self.g = np.ascontiguousarray(problem.g[rows], dtype=np.float64)
        self.h = np.ascontiguousarray(problem.h[rows], dtype=np.float64)
        self.K = self.g.shape[1]
        self.n2 = 2.0 * problem.n_total
        self.n_total = float(problem.n_total)
        self.lam = float(problem.reg_lambda)
        self.single = bool(problem.single_head)
        self.n_bins = np.asarray(problem.n_bins, np.int64)
        self.nominal = np.asarray(problem.is_nominal, bool)
        self.dummy = np.zeros(len(rows), np.int64)
        self.B = int(self.n_bins.max()) + 1 if len(self.n_bins) else 1
        self._allocate()

    def _allocate(self):
        # A thread's own arrays: the kernels' scratch, the grid of a box and
        # the counters.
        B = self.B
        self.segs = np.empty((4, kernels.MAX_SEGMENTS, 2), np.int64)
        self.sums = np.empty((2, self.K))
        self.scratch = (np.empty((7, B)), np.empty((2, B + 1), np.int64), np.empty((2, B + 1)),
                        np.empty(B), np.empty(B, np.int64), np.zeros(kernels.STACK_WIDTH, np.int64))
        self.wk = np.empty((4, self.K, B + 1))
        self.grid = np.empty(4 * self.K * (B + 1) * (B + 1))
        self.ratios = np.empty(2 * self.K * B)
        self.state = np.zeros(kernels.N_STATE, np.int64)

    def fork(self):
        """The same rows and statistics (shared, read only) with arrays of
        its own: for another thread."""
        other = copy.copy(self)
        other._allocate()
        return other

    @property
    def grid_bytes(self):
        return self.grid.nbytes

    def usable(self, f):
        return self.n_bins[f] >= (1 if self.nominal[f] else 2)

    def value_of(self, mask):
        return head_value(self.g[mask].sum(axis=0), self.h[mask].sum(axis=0), self.n_total,
                          self.lam, self.single)

    def root_value(self):
        return self.value_of(np.ones(len(self.g), bool))

    def root_bound(self):
        """A bound of every query's value: per output the tight bound of all rows."""
        terms = [_tight_bound(self.g[:, k], self.h[:, k], self.n2, self.lam)
                 for k in range(self.K)]
        return float(max(terms) if self.single else sum(terms))

    def bin_sums(self, f):
        """``(G, H)`` of shape (n_bins, K): each output's sums per non-missing bin of f."""
        nb = int(self.n_bins[f])
        G, H = np.empty((nb, self.K)), np.empty((nb, self.K))
        kernels.column_sums(self.X[:, f], self.g, self.h, nb, G, H)
        return G, H

    def positions(self, f):
        """Position of each bin of f on its axis (nominal: strongest first)."""
        nb = int(self.n_bins[f])
        position = np.arange(nb + 1, dtype=np.int64)
        if self.nominal[f]:
            G, H = self.bin_sums(f)
            strength = (G * G / (self.lam + H)).sum(axis=1)
            position[np.argsort(-strength, kind="stable")] = np.arange(nb)
        return position

    def start(self, c, f):
        """The box search of c alone (f None) or of the pair (c, f)."""
        Bc = int(self.n_bins[c])
        Bf = 1 if f is None else int(self.n_bins[f])
        pos_c = self.positions(c)
        pos_f = np.zeros(2, np.int64) if f is None else self.positions(f)
        xf = self.dummy if f is None else self.X[:, f]
        # One buffer for the widest pair, reused by every box (12 MB for
        # six outputs at 255 bins: allocating it per pair cost more than
        # filling it).
        S = self.grid[:4 * self.K * (Bc + 1) * (Bf + 1)].reshape(4 * self.K, Bc + 1, Bf + 1)
        ratio_max = self.ratios[:2 * self.K * Bc].reshape(2, self.K, Bc)
        kernels.box_grid(self.X[:, c], xf, pos_c, pos_f, Bc, Bf, self.g, self.h, S, ratio_max)
        depth = 4 * (Bc + Bf + 4)
        stack = np.empty((depth, kernels.STACK_WIDTH), np.int64)
        c_root = (0, 0, 0, 0) if self.nominal[c] else (-1, Bc - 2, 0, Bc - 1)
        # A pair's condition on f starts free: bounded by each output's best
        # condition on f until c's condition is fixed (_box_kernels.free_bound).
        f_root = (-1, -1, 0, 0) if f is None else (kernels.FREE, 0, 0, 0)
        stack[0] = c_root + f_root
        bounds = np.empty(depth)
        bounds[0] = np.inf
        self.state[kernels.TOP] = 1
        self.state[kernels.PUSHED] += 1
        return _Box(c, f, Bc, Bf, pos_c, pos_f, S, stack, bounds, ratio_max)

    def column_strength(self, f):
        """The best single condition on f of each output, summed (complete
        head) or their maximum (single-output head): to order the pairs."""
        nb = int(self.n_bins[f])
        G, H = np.empty((nb, self.K)), np.empty((nb, self.K))
        work, hull, prefix, keys, order, _ = self.scratch
        # Compiled: with 1,001 columns and 53 labels (enron) this took 1.5 s
        # of a round's 2 s in NumPy and Python.
        return kernels.column_strength(self.X[:, f], self.g, self.h, nb, bool(self.nominal[f]),
                                       self.n2, self.lam, self.single, G, H, work[0], work[1],
                                       hull, prefix, keys, order)

    def step(self, box, best, shared, budget, found, cost=0.0, extra=0.0):
        f_nominal = box.f is not None and bool(self.nominal[box.f])
        return kernels.search_boxes(box.S, self.K, box.Bc, box.Bf, bool(self.nominal[box.c]),
                                    f_nominal, box.f is None, self.n2, self.lam, self.single,
                                    box.stack, box.bounds, self.state, best, shared, budget,
                                    found, self.segs, self.sums, *self.scratch, self.wk,
                                    box.ratio_max, cost, extra)

    def query(self, box, found):
        """The ``(feature, op, bin)`` conditions of the one-query box ``found``."""
        out = _axis_conditions(box.c, self.nominal[box.c], box.Bc, box.pos_c, found[:4])
        if box.f is not None:
            out += _axis_conditions(box.f, self.nominal[box.f], box.Bf, box.pos_f, found[4:])
        return out

    def open_bound(self, box):
        top = int(self.state[kernels.TOP])
        return float(box.bounds[:top].max()) if top else 0.0


class _Box:
    """One box search's arrays."""

    def __init__(self, c, f, Bc, Bf, pos_c, pos_f, S, stack, bounds, ratio_max):
        self.c, self.f, self.Bc, self.Bf = c, f, Bc, Bf
        self.ratio_max = ratio_max
        self.pos_c, self.pos_f = pos_c, pos_f
        self.S, self.stack, self.bounds = S, stack, bounds


def _axis_conditions(feature, nominal, nb, position, axis):
    """Conditions of one axis's single-condition range, by bin."""
    members = np.zeros(nb, bool)
    if nominal:
        mask = int(axis[1])
        for b in range(nb):
            members[b] = bool(mask >> int(position[b]) & 1)
    else:
        s, t = int(axis[1]), int(axis[2])
        members[:] = (position[:nb] > s) & (position[:nb] <= t)
    return _conditions(feature, nominal, nb, members)


def multi_output_search(problem, *, deadline=None, seed=None, started=None, n_jobs=1,
                        condition_cost=0.0):
    """Best query of at most ``problem.max_rule_length`` (1 or 2) conditions
    for a complete or single-output head.

    Parameters
    ----------
    problem : rulebook.search.MultiOutputProblem
        With :func:`applies` true.
    deadline : float or None
        ``time.perf_counter()`` time to stop at; the search then returns its
        best query with the certified ratio of what it has proven.
    seed : (float, list of (feature, op, bin)) or None
        An incumbent query (the greedy one) and its value.
    started : float or None
        ``time.perf_counter()`` at the start (for the trace's seconds).
    n_jobs : int >= 1, default=1
        Threads; each searches whole boxes, all share the best value. A
        search runs on one thread for its first
        ``rulebook.pair_search.SERIAL_SECONDS`` (most end by then, and then
        return the same query on every run); the threads are capped so that
        their grids of sums take at most ``GRID_MEMORY`` bytes together.
    condition_cost : float >= 0, default=0.0
        Objective charged per threshold, as with one output
        (:func:`rulebook.pair_search.priced_conditions`: ``x <= t`` or a
        nominal set once, an interval ``a < x <= b`` twice): the query of
        largest ``value - condition_cost * thresholds`` is searched for
        (:func:`condition_cost_of`), exactly: the boxes of one column and
        of two share one incumbent in penalised values, each box's
        columns charged as ``_box_kernels.search_boxes``'s ``cost`` and an
        interval's second threshold as its ``extra``. 0: the plain
        objective.

    Returns
    -------
    conditions : list of (feature, op, bin)
        The best query found (empty: the root, all rows).
    value : float
        Its objective (without the cost).
    stats : dict
        As :func:`rulebook.pair_search.pair_search`'s; ``pairs`` counts the
        boxes (one per usable column and one per pair of them) and
        ``pairs_searched`` those finished. With a cost, ``certified_ratio``,
        ``upper_bound`` and the trace are in penalised values, as there.
    """
    started = time.perf_counter() if started is None else started
    cost = float(condition_cost)
    boxes = _Boxes(problem)
    value, query = boxes.root_value(), []
    penalised = value
    if seed is not None and float(seed[0]) - cost * priced_conditions(seed[1]) > penalised:
        value, query = float(seed[0]), list(seed[1])
        penalised = value - cost * priced_conditions(query)
    # Every box is bounded by the root's bound (each output's tight bound
    # over all rows), less the cost of one threshold at least: what a
    # stopped search reports for the boxes not begun.
    root_bound = boxes.root_bound()
    query_bound = root_bound - cost
    plan = _plan(boxes, problem.max_rule_length)
    shared = np.array([penalised, 0.0])  # best penalised value of all threads, stop flag
    n_threads = max(1, min(int(n_jobs), len(plan[0]),
                           GRID_MEMORY // max(boxes.grid_bytes, 1)))
    runs = [_Run(boxes if i == 0 else boxes.fork(), value, query, shared, query_bound, cost)
            for i in range(n_threads)]
    n_threads = _run_all(runs, plan, itertools.count(), deadline, started, query_bound)
    best = max(runs, key=lambda run: run.best[0])  # the first on ties
    n_boxes = len(plan[0])
    penalised = float(best.best[0])
    # Once the best value reaches the root's bound, every box is settled.
    done = n_boxes if penalised >= query_bound else sum(run.boxes_done for run in runs)
    upper = penalised
    if done < n_boxes:
        # The unfinished boxes' open ranges, and the boxes not begun, each
        # bounded by the root's bound, less their conditions' cost.
        rest = [min(run.open_bound(), query_bound) for run in runs]
        if done + sum(run.box is not None for run in runs) < n_boxes:
            rest.append(query_bound)
        upper = max(penalised, max(rest))
    stats = search_stats([run.boxes.state for run in runs], [run.trace for run in runs],
                         done, n_boxes, penalised, upper, query_bound, started, n_threads)
    stats["condition_cost"] = cost
    return best.query, best.value, stats


def condition_cost_of(problem, factor):
    """The objective a threshold costs with several outputs: ``factor``
    times the noise level.

    The noise level is what one more condition lets the largest objective
    rise on residuals without signal, from the best of the ``P`` queries of
    one condition to the best of the ``~P^2`` of two (``P`` propositions;
    for one output :func:`rulebook.pair_search.condition_cost_of`'s ``phi
    ln(P) / n``, the risk inflation criterion of Foster and George 1994
    [2]_). An extent's term for output ``k``, ``G_k^2 / (2 n (lambda +
    H_k))`` (eq. 2.3 of [1]_), is then about ``phi_k chi2_1 / (2 n)``,
    ``phi_k = (sum_i g_ik^2 / c_i + spread_k) / sum_i h_ik`` the output's
    dispersion. A threshold is one choice among the ``P`` propositions, an
    interval's second end as much as a second column's, so each pays this
    level, as with one output.

    * Single-output head (the maximum over outputs): the largest of ``Q``
      queries' values is about ``max_k phi_k ln(K Q) / n``; from ``Q = P``
      to ``P^2`` it rises by ``max_k phi_k ln(P) / n``. The choice of the
      output is made once a rule, not once a condition, so ``K`` does not
      enter.
    * Complete head (the sum): a value is about ``sum_k phi_k Z_k^2 / (2
      n)``, whose largest of ``Q`` is about ``(sum_k phi_k + 2 |phi|_2
      sqrt(ln Q) + 2 max_k phi_k ln Q) / (2 n)`` (the tail of Laurent and
      Massart 2000 [3]_, Lemma 1, at ``x = ln Q``): from ``Q = P`` to
      ``P^2`` it rises by ``(max_k phi_k ln P + (sqrt 2 - 1) |phi|_2
      sqrt(ln P)) / n``. The mean ``sum_k phi_k`` is every extent's, a
      condition's or a pair's alike, so it is not charged.

    On simulated noise (``benchmarks/results/multi_output/
    session25_noise_level.txt``) the best pair's objective exceeds the
    best single condition's by 0.8-1.2 times this level for 1-20 outputs.

    Parameters
    ----------
    problem : rulebook.search.MultiOutputProblem
        The round's problem: its :meth:`~rulebook.search.SearchProblem.dispersion_sums`
        (of ``g``, ``h`` (n, K), ``c`` over ``rows`` and ``gradient_spread``,
        a number or one per output), ``n_bins``, ``is_nominal``,
        ``n_total``, ``single_head``.
    factor : float >= 0

    Returns
    -------
    float >= 0
        ``P`` counts the propositions as for one output: ``x <= t`` and
        ``x > t`` per cut of a numeric column, ``x == v`` per category of
        a nominal one. 0 when no output has a Hessian sum above 0.

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 2.3, eq. 2.3.
    .. [2] Foster, D. P., George, E. I. (1994). The risk inflation criterion
       for multiple regression. The Annals of Statistics 22(4), 1947-1975.
    .. [3] Laurent, B., Massart, P. (2000). Adaptive estimation of a
       quadratic functional by model selection. The Annals of Statistics
       28(5), 1302-1338. Section 4.1, Lemma 1.
    """
    if not factor > 0:
        return 0.0
    squares, H = problem.dispersion_sums()
    positive = H > 0
    if not positive.any():
        return 0.0
    # Outputs without Hessian mass have no term to fit: no dispersion.
    phi = np.where(positive, squares / np.where(positive, H, 1.0), 0.0)
    n_bins = np.asarray(problem.n_bins, np.float64)
    P = float(np.where(problem.is_nominal, n_bins, 2.0 * np.maximum(n_bins - 1.0, 0.0)).sum())
    log_p = np.log(max(P, 2.0))
    level = float(phi.max()) * log_p
    if not problem.single_head:
        level += (np.sqrt(2.0) - 1.0) * float(np.sqrt((phi * phi).sum())) * np.sqrt(log_p)
    cost = factor * level / float(problem.n_total)
    return cost if np.isfinite(cost) else 0.0


# Most bytes of the threads' grids of sums together (one grid a thread:
# 4 K (B + 1)^2 float64, 112 MB for 53 outputs on 255-bin columns).
GRID_MEMORY = 256 << 20


def _plan(boxes, max_rule_length):
    """The boxes in search order, as arrays ``(c, f)`` (``f = -1``: c alone).

    Each column alone first (few boxes, a high incumbent soon), then the
    pairs of the strongest columns first (as pair_search): a high best
    value early prunes the rest. A pair's own bound is its first box's;
    computing them all first took seconds on 2,628 pairs. In arrays:
    enron's 1,001 columns make 500,500 pairs.
    """
    usable = np.array([f for f in range(len(boxes.n_bins)) if boxes.usable(f)], np.int64)
    c, f = usable, np.full(len(usable), -1, np.int64)
    if max_rule_length == 2:
        strength = np.array([boxes.column_strength(j) for j in usable])
        first, second = np.triu_indices(len(usable), 1)  # pairs c < f, row by row
        # Stable: pairs of equal strength keep that order.
        by_strength = np.argsort(-(strength[first] + strength[second]), kind="stable")
        c = np.concatenate([c, usable[first[by_strength]]])
        f = np.concatenate([f, usable[second[by_strength]]])
    return c, f


def _run_all(runs, plan, taken, deadline, started, root_bound):
    """The runs' searches of the boxes (``pair_search.run_workers``);
    returns the threads used."""
    shared = runs[0].shared

    def report():
        # Honest while boxes are left: bounded by the root's bound.
        if progress.wants_reports():
            best = float(shared[0])
            progress.report(nodes=sum(int(run.boxes.state[kernels.NODES]) for run in runs),
                            best=best, certified_ratio=min(1.0, best / root_bound)
                            if root_bound > 0 else 1.0, threads=len(runs))

    return run_workers(runs, plan, taken, deadline, started, report,
                       lambda: runs[0].finished)


class _Run:
    """One thread's search of boxes: its arrays, best query and trace.

    ``best[0]`` and the shared incumbent are penalised values (value minus
    ``cost`` per threshold), ``value`` the best query's plain value;
    ``root_bound`` bounds every penalised value of a query of conditions.
    """

    def __init__(self, boxes, value, query, shared, root_bound, cost=0.0):
        self.boxes, self.shared, self.root_bound = boxes, shared, root_bound
        self.value, self.query, self.cost = value, query, cost
        self.best = np.array([value - cost * priced_conditions(query), 0.0])
        self.found = np.zeros(kernels.STACK_WIDTH, np.int64)
        self.box, self.trace = None, []
        self.boxes_done, self.finished = 0, False

    def box_cost(self, box):
        """What the box's queries' columns cost, one or two thresholds (an
        interval's second threshold is the kernel's ``extra``)."""
        return self.cost * (1 if box.f is None else 2)

    def run(self, plan, taken, deadline, started, report):
        """Search boxes ``next(taken)`` of ``plan`` until none is left, the
        deadline or a stop; ``report()`` (if given) a few times a second."""
        columns_c, columns_f = plan
        budget = FIRST_BUDGET
        reported = time.perf_counter()
        while self.shared[1] == 0.0:
            if self.box is None:
                i = next(taken)  # atomic under the GIL
                if i >= len(columns_c):
                    self.finished = True
                    return
                if self.root_bound <= max(self.best[0], self.shared[0]):
                    # This box and every one after it are bounded by the
                    # root's bound: none can beat the best value.
                    self.finished = True
                    return
                f = int(columns_f[i])
                self.box = self.boxes.start(int(columns_c[i]), None if f < 0 else f)
                # A box's nodes may cost far more than the last one's (a
                # column of few bins, then a pair of 255 x 255): its budget
                # adapts afresh.
                budget = FIRST_BUDGET
            before = time.perf_counter()
            state = self.boxes.state
            nodes = int(state[kernels.NODES] + state[kernels.PRUNED_OPEN])
            box_cost = self.box_cost(self.box)
            status = self.boxes.step(self.box, self.best, self.shared, budget, self.found,
                                     box_cost, self.cost)
            now = time.perf_counter()
            used = int(state[kernels.NODES] + state[kernels.PRUNED_OPEN]) - nodes
            if used:
                budget = int(min(1 << 20, max(16, budget * CALL_SECONDS / max(now - before,
                                                                              1e-6))))
            if self.best[1]:
                self.best[1] = 0.0
                self.query = self.boxes.query(self.box, self.found)
                # Its plain value: the penalised one plus what it paid (with
                # no cost, + 0.0: the kernel's value as it is).
                self.value = float(self.best[0]) + self.cost * priced_conditions(self.query)
                self.trace.append((int(state[kernels.NODES]), now - started,
                                   float(self.best[0])))
            if status == kernels.DONE:
                self.box = None
                self.boxes_done += 1
            if deadline is not None and now >= deadline:
                return
            if report is not None and now >= reported + progress.REPORT_INTERVAL:
                reported = now
                report()

    def open_bound(self):
        """The largest penalised value the unfinished box's open ranges may hold."""
        if self.box is None:
            return 0.0
        return self.boxes.open_bound(self.box) - self.box_cost(self.box)
