"""Exact search of the best query of at most two conditions.

The default optimal learner limits a rule to two conditions (columns), and
every query within that limit is one condition on a column or two on a
pair of columns. This module finds the best one exactly on the fine bins
(all 255 cut points) without enumerating pairs of conditions one by one:

* each column's best condition is solved from its sums per bin
  (:func:`rulebook._pair_kernels.best_interval`, ``best_set``);
* each pair of columns ``(c, f)`` is searched by branch and bound over
  *ranges* of conditions on ``c``, bounded by the best condition on ``f``
  over optimistic sums and solved exactly on ``f`` once the range is a
  single condition (``search_pair``): Quant-BnB's idea of branching over
  ranges of thresholds (Mazumder et al. 2022), on the sums per cell of
  the pair's bins. The column with fewer conditions is the one branched on.
  A range's optimistic sums take the cells it is not sure of with the
  least curvature their gradients allow (each cell's ``h >= |g| / r``, r the
  largest ratio among them), which prunes most ranges near the root.

With ``condition_cost`` the query of largest objective less the cost of its
thresholds is searched, exactly (:func:`priced_conditions`): an interval
``a < x <= b`` pays twice, a one-sided condition or a set of categories
once.

It serves :func:`rulebook.optimal.optimal_search` for the second-order
objective with ``reg_lambda > 0``, ``max_rule_length`` 1 or 2 and every
proposition allowed (the estimators' defaults); other settings use the
general branch and bound of Boley et al. (2021). Both return the same
optimal value (tested against enumeration in ``tests/test_pair_search.py``).

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 2.3, eq. 2.3 (the objective); Section 3.1, Theorem 3.1.
.. [2] Mazumder, R., Meng, X., Wang, H. (2022). Quant-BnB: a scalable
   branch-and-bound method for optimal decision trees with continuous
   features. ICML. Section 3 (bounds over ranges of thresholds).
"""

import itertools
import time
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from . import _pair_kernels as kernels
from . import _progress as progress
from ._search_kernels import EQ, GT, LE, NE

# Most categories of a nominal column branched on (its sets are bit masks
# of an int64); a pair of two larger nominal columns is not supported.
MAX_BRANCHED_CATEGORIES = 62
# Most cells (bins of c times bins of f) of a pair's sums: 4 float64 arrays
# of that size per thread (32 MB at this cap). Beyond it (``max_bins=None``
# on columns with thousands of distinct values) the general search is used.
MAX_PAIR_CELLS = 1 << 20
# Wall time aimed at per kernel call: the deadline, progress reports and
# Ctrl-C are handled between calls (as ``optimal._BranchAndBound``).
CALL_SECONDS = 0.05
FIRST_BUDGET = 256
# A search runs on one thread for this long before it is split over
# threads (n_jobs > 1): on titanic, wine or used cars a round takes
# 0.01-0.1 s.
SERIAL_SECONDS = 0.1


def applies(problem):
    """Whether :func:`pair_search` can search ``problem`` exactly.

    Parameters
    ----------
    problem : rulebook.search.SearchProblem
        The round's search problem (objective code, ``reg_lambda``,
        ``max_rule_length``, ``allowed``, ``n_bins``, ``is_nominal``).

    Returns
    -------
    bool
        True for the second-order objective (code 2) with
        ``reg_lambda > 0``, a length limit of 1 or 2 conditions, every
        proposition allowed (``allowed is None``), no pair of nominal
        columns with more than ``MAX_BRANCHED_CATEGORIES`` categories each,
        and no pair of columns with more than ``MAX_PAIR_CELLS`` cells
        (``n_bins + 1`` of one times ``n_bins + 1`` of the other).
        Otherwise :func:`rulebook.optimal.optimal_search` runs
        the general branch and bound.
    """
    if problem.objective != 2 or not problem.reg_lambda > 0.0:
        return False
    if problem.max_rule_length not in (1, 2) or problem.allowed is not None:
        return False
    if problem.max_rule_length == 1:
        return True
    n_bins = np.asarray(problem.n_bins, np.int64)
    nominal = np.asarray(problem.is_nominal, bool)
    large = nominal & (n_bins > MAX_BRANCHED_CATEGORIES)
    widest = np.sort(n_bins)[-2:]
    return large.sum() < 2 and int(np.prod(widest + 1)) <= MAX_PAIR_CELLS


def _conditions(feature, nominal, nb, members):
    """``(feature, op, bin)`` propositions of a condition given by its bins."""
    inside = np.flatnonzero(members[:nb])
    if nominal:
        if len(inside) == 1:
            return [(feature, EQ, int(inside[0]))]
        return [(feature, NE, int(k)) for k in range(nb) if not members[k]]
    lo, hi = int(inside[0]), int(inside[-1])
    out = []
    if lo > 0:
        out.append((feature, GT, lo - 1))
    if hi < nb - 1:
        out.append((feature, LE, hi))
    return out


class _Columns:
    """The active rows' bin codes and statistics, shared by the workers."""

    def __init__(self, problem, cost=0.0):
        rows = problem.rows
        self.cost = float(cost)  # the price of an interval's second threshold
        self.X = np.asfortranarray(problem.X_binned[rows]).astype(np.int64)
        self.g, self.h = problem.g[rows], problem.h[rows]
        self.n2 = 2.0 * problem.n_total
        self.lam = float(problem.reg_lambda)
        self.n_bins = np.asarray(problem.n_bins, np.int64)
        self.nominal = np.asarray(problem.is_nominal, bool)
        self.B = int(self.n_bins.max()) + 1 if len(self.n_bins) else 1

    def usable(self, f):
        """Whether column f has a condition (a numeric column needs 2 bins)."""
        return self.n_bins[f] >= (1 if self.nominal[f] else 2)

    def root_value(self):
        G, H = float(self.g.sum()), float(self.h.sum())
        return G * G / (self.n2 * (self.lam + H))

    def singles(self):
        """Each column's best condition: ``(values, best value, its conditions)``;
        with a cost, the best by value less the cost of its thresholds."""
        B = self.B
        sums, members = np.empty((2, B)), np.empty(B, np.bool_)
        hull, prefix = np.empty((2, B + 1), np.int64), np.empty((2, B + 1))
        keys, order = np.empty(B), np.empty(B, np.int64)
        values = np.zeros(len(self.n_bins))
        best, best_value, query = -np.inf, -np.inf, []
        for f in range(len(self.n_bins)):
            if not self.usable(f):
                continue
            nb = int(self.n_bins[f])
            kernels.column_sums(self.X[:, f], self.g, self.h, nb, sums)
            if self.nominal[f]:
                # stop given, as the search passes it: one compiled version.
                value, kind, size = kernels.best_set(sums[0], sums[1], nb, self.n2, self.lam,
                                                     keys, order, np.inf)
                penalised = value
                kernels.set_members(kind, size, order, nb, members)
            else:
                penalised, value, lo, hi = kernels.best_priced_interval(
                    sums[0], sums[1], nb, self.n2, self.lam, self.cost, hull, prefix, np.inf)
                members[:nb] = False
                members[lo: hi + 1] = True
            if not members[:nb].any():  # no condition has a number (NaN statistics)
                continue
            values[f] = value
            if penalised > best:
                best, best_value = penalised, value
                query = _conditions(f, self.nominal[f], nb, members)
        return values, best_value, query

    def pairs(self, singles):
        """``(c, f)`` per pair of usable columns, c the one branched on
        (fewer conditions), strongest single columns first."""
        usable = [f for f in range(len(self.n_bins)) if self.usable(f)]
        k = self.n_bins.astype(np.float64)
        size = np.where(self.nominal, 2.0 ** np.minimum(k, 60), k * k / 2)
        out = []
        for i, a in enumerate(usable):
            for b in usable[i + 1:]:
                c, f = (a, b) if size[a] <= size[b] else (b, a)
                if self.nominal[c] and self.n_bins[c] > MAX_BRANCHED_CATEGORIES:
                    c, f = f, c
                out.append((c, f))
        out.sort(key=lambda pair: -(singles[pair[0]] + singles[pair[1]]))
        return out


class _Worker:
    """One thread's search of pairs: its stack, sums per cell and best query."""

    def __init__(self, columns, value, query, shared):
        self.columns, self.shared = columns, shared
        B = columns.B
        self.scratch = (np.empty((6, B)), np.empty((2, B + 1), np.int64),
                        np.empty((2, B + 1)), np.empty(B), np.empty(B, np.int64))
        # Sums per cell of the current pair: one buffer for the widest pair,
        # reused by every pair of every round (about 2 MB at 255 bins).
        self.cum_buffer = np.empty(4 * (B + 1) * B)
        self.ratio_buffer = np.empty(2 * B)
        self.best = np.array([value, 0.0, np.nan])  # penalised, found, value
        self.query = list(query)
        self.state = np.zeros(kernels.N_STATE, np.int64)
        self.pair = None
        self.pairs_done = 0
        self.trace = []

    def start_pair(self, c, f):
        """Sums per cell of the pair and its root range on the stack."""
        cols = self.columns
        Bc, Bf = int(cols.n_bins[c]), int(cols.n_bins[f])
        self.pair = (c, f, Bc, Bf)
        position = np.arange(Bc + 1, dtype=np.int64)
        if cols.nominal[c]:
            # Categories by |ratio|: the strongest are decided first.
            sums = np.empty((2, Bc))
            kernels.column_sums(cols.X[:, c], cols.g, cols.h, Bc, sums)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(sums[1] > 0, sums[0] / sums[1], np.sign(sums[0]) * np.inf)
            rank = np.argsort(-np.abs(np.nan_to_num(ratio)), kind="stable")
            position[rank] = np.arange(Bc)
        self.bin_of = np.argsort(position[:Bc], kind="stable")  # position -> bin
        self.cum = self.cum_buffer[:4 * (Bc + 1) * Bf].reshape(4, Bc + 1, Bf)
        self.ratio_max = self.ratio_buffer[:2 * Bc].reshape(2, Bc)
        kernels.pair_grid(cols.X[:, c], cols.X[:, f], position, Bc, Bf, cols.g, cols.h,
                          self.cum, self.ratio_max)
        depth = 4 * (Bc + 2)
        self.stack = np.empty((depth, kernels.STACK_WIDTH), np.int64)
        self.bounds = np.empty(depth)
        self.stack[0] = (0, 0, 0, 0) if cols.nominal[c] else (-1, Bc - 2, 0, Bc - 1)
        self.bounds[0] = np.inf
        self.state[kernels.TOP] = 1
        self.state[kernels.PUSHED] += 1
        self.in_c = np.zeros(Bc, np.bool_)
        self.in_f = np.zeros(Bf, np.bool_)

    def step(self, budget):
        """One kernel call on the current pair; returns DONE or BATCH."""
        c, f, Bc, Bf = self.pair
        cols = self.columns
        status = kernels.search_pair(self.cum, self.ratio_max, Bc, Bf, bool(cols.nominal[c]),
                                     bool(cols.nominal[f]), cols.n2, cols.lam, cols.cost,
                                     self.stack,
                                     self.bounds, self.state, self.best, self.shared, budget,
                                     self.in_c, self.in_f, *self.scratch)
        if self.best[1]:
            self.best[1] = 0.0
            members_c = np.zeros(Bc, np.bool_)
            members_c[self.bin_of[self.in_c]] = True
            self.query = (_conditions(c, cols.nominal[c], Bc, members_c)
                          + _conditions(f, cols.nominal[f], Bf, self.in_f))
        if status == kernels.DONE:
            self.pair = None
            self.pairs_done += 1
        return status

    def open_bound(self):
        """Largest bound of the unfinished pair's ranges (0 when none)."""
        top = int(self.state[kernels.TOP])
        return float(self.bounds[:top].max()) if self.pair is not None and top else 0.0

    def run(self, pairs, taken, deadline, started, report):
        """Search pairs ``next(taken)`` until none is left, the deadline or a
        stop; ``report()`` (if given) a few times a second."""
        budget = FIRST_BUDGET
        reported = time.perf_counter()
        while self.shared[1] == 0.0:
            if self.pair is None:
                i = next(taken)  # atomic under the GIL
                if i >= len(pairs):
                    return
                self.start_pair(*pairs[i])
            before = time.perf_counter()
            nodes = int(self.state[kernels.NODES] + self.state[kernels.PRUNED_OPEN])
            value = self.best[0]
            self.step(budget)
            now = time.perf_counter()
            used = int(self.state[kernels.NODES] + self.state[kernels.PRUNED_OPEN]) - nodes
            if used:
                budget = int(min(1 << 20, max(16, budget * CALL_SECONDS / max(now - before,
                                                                              1e-6))))
            if self.best[0] > value:
                self.trace.append((int(self.state[kernels.NODES]), now - started,
                                   float(self.best[0])))
            if deadline is not None and now >= deadline:
                return
            if report is not None and now >= reported + progress.REPORT_INTERVAL:
                reported = now
                report()


def pair_search(problem, *, deadline=None, seed=None, started=None, root_bound=np.inf,
                n_jobs=1, condition_cost=0.0):
    """Best query of at most ``problem.max_rule_length`` (1 or 2) conditions.

    Parameters
    ----------
    problem : SearchProblem
        With :func:`applies` true.
    deadline : float or None
        ``time.perf_counter()`` time to stop at; the search then returns
        its best query with the certified ratio of what it has proven.
    seed : (float, list of (feature, op, bin)) or None
        An incumbent query (the greedy one) and its value.
    started : float or None
        ``time.perf_counter()`` at the start (for the trace's seconds).
    root_bound : float
        An upper bound of every query's value (the tight bound of all
        rows), which bounds the pairs not yet searched.
    n_jobs : int >= 1
        Threads; each searches whole pairs, all share the best value.
    condition_cost : float >= 0
        Objective charged per condition, where each threshold of a numeric
        column is one (an interval ``a < x <= b`` pays twice) and a nominal
        column's set of categories one (:func:`priced_conditions`): the
        query of largest ``value - condition_cost * conditions`` is
        searched for (:func:`condition_cost_of`), exactly: a pair or an
        interval must beat the best query of fewer thresholds by the cost
        it adds. 0: the plain objective (Boley et al. 2021).

    Returns
    -------
    conditions : list of (feature, op, bin)
        The best query found (empty: the root, all rows).
    value : float
        Its objective (without the cost).
    stats : dict
        ``nodes_created`` (ranges of conditions put on a stack, a pair's
        root included), ``nodes_expanded`` (ranges taken off it and
        bounded or solved), ``pruned_bound_immediate`` (ranges pruned by
        their bound), ``pruned_open`` (ranges discarded because the best
        value rose to their parent's bound), ``pruned_bound_propagated``
        and the two ``pruned_equivalence_*`` (0: no such pruning here, the
        columns of the general search), ``leaves`` (single conditions on
        one column solved on the other), ``pairs_searched``, ``pairs``,
        ``certified``, ``certified_ratio``, ``upper_bound``,
        ``search_time``, ``threads`` and ``trace`` ``((nodes, seconds, best
        value, upper bound), ...)``.
    """
    started = time.perf_counter() if started is None else started
    cost = float(condition_cost)
    columns = _Columns(problem, cost)
    singles, value, query = columns.singles()
    candidates = [(columns.root_value(), [])]
    if seed is not None:
        candidates.append((float(seed[0]), list(seed[1])))
    candidates.append((value, query))
    # The first on ties. A NaN value (from NaN statistics) is never chosen:
    # with none a number, the empty query, its value NaN, and the kernels'
    # incumbent 0 (every value is >= 0; their "no condition" is -1).
    value, query = max(candidates,
                       key=lambda found: _ranked(found[0] - cost * priced_conditions(found[1])))
    if np.isnan(value):
        value, query = 0.0, []
    # The kernels search pairs of a larger value, less the price of their
    # intervals' second thresholds, than the incumbent's. With a cost, a
    # pair's penalised value beats the incumbent's exactly when that beats
    # this (a single condition found within a pair never does: it is at
    # most the best single one's).
    penalised = value - cost * priced_conditions(query)
    incumbent = penalised + 2.0 * cost if cost > 0 else value
    pairs = columns.pairs(singles) if problem.max_rule_length == 2 else []
    shared = np.array([incumbent, 0.0])  # best value of all threads, stop flag
    n_threads = max(1, min(int(n_jobs), len(pairs)))
    workers = [_Worker(columns, incumbent, query, shared) for _ in range(n_threads)]
    taken = itertools.count()
    n_threads = _run(workers, pairs, taken, deadline, started, root_bound)
    best = max(workers, key=lambda w: w.best[0])  # the first on ties
    if best.best[0] > incumbent:
        value, query = float(best.best[2]), best.query
        penalised = float(best.best[0]) - 2.0 * cost
    if not query and np.isnan(candidates[0][0]):
        value = penalised = candidates[0][0]
    done = sum(w.pairs_done for w in workers)
    finished = done == len(pairs)
    bound = penalised
    if not finished:
        # Bounds of pairs' values; the queries left unsearched there that
        # can still win have two conditions.
        pair_bound = max([root_bound] if done + sum(w.pair is not None for w in workers)
                         < len(pairs) else [w.open_bound() for w in workers])
        bound = max(penalised, pair_bound - 2.0 * cost)
    traces = [[(n, t, v - 2.0 * cost) for n, t, v in w.trace] for w in workers]
    stats = search_stats([w.state for w in workers], traces, done, len(pairs), penalised, bound,
                         root_bound - cost, started, n_threads)
    stats["condition_cost"] = cost
    return query, value, stats


def priced_conditions(conditions):
    """The conditions a query pays ``condition_cost`` for: one per threshold
    of a numeric column (an interval ``a < x <= b`` pays two), one per
    nominal column (its set of categories is one choice).

    Parameters
    ----------
    conditions : list of (feature, op, bin)
        A query's propositions, at most one ``<=`` and one ``>`` per
        numeric column.

    Returns
    -------
    int
    """
    nominal = {int(f) for f, op, _ in conditions if op in (EQ, NE)}
    return sum(1 for _, op, _ in conditions if op in (LE, GT)) + len(nominal)


def condition_cost_of(problem, factor):
    """The objective a threshold costs: ``factor`` times the noise level.

    The noise level ``phi ln(P) / n`` is about the largest second-order
    objective ``G^2 / (2 n (lambda + H))`` (eq. 2.3 of [1]) that one of
    ``P`` conditions reaches on residuals without signal: an extent's
    ``G^2 / (lambda + H)`` is then about ``phi`` times a chi-square
    variable of one degree of freedom, ``phi = sum (g_i^2 / c_i) / sum
    h_i`` the residuals' dispersion, and the largest of ``P`` such is
    about ``2 phi ln P`` (the risk inflation criterion of Foster and George
    1994 [2], here in the objective's units).

    Parameters
    ----------
    problem : SearchProblem
        The round's problem: its :meth:`~rulebook.search.SearchProblem.dispersion_sums`
        (of ``g``, ``h``, ``c`` over ``rows`` and ``gradient_spread``; a
        Dask fit's sums over the workers' rows), ``n_bins``,
        ``is_nominal``, ``n_total``.
    factor : float >= 0

    Returns
    -------
    float >= 0
        ``P`` counts the propositions: ``x <= t`` and ``x > t`` per cut of
        a numeric column, ``x == v`` per category of a nominal one.

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 2.3, eq. 2.3.
    .. [2] Foster, D. P., George, E. I. (1994). The risk inflation criterion
       for multiple regression. The Annals of Statistics 22(4), 1947-1975.
    """
    if not factor > 0:
        return 0.0
    squares, H = problem.dispersion_sums()
    if not H > 0:
        return 0.0
    phi = squares / H
    n_bins = np.asarray(problem.n_bins, np.float64)
    P = float(np.where(problem.is_nominal, n_bins, 2.0 * np.maximum(n_bins - 1.0, 0.0)).sum())
    cost = factor * phi * np.log(max(P, 2.0)) / float(problem.n_total)
    return cost if np.isfinite(cost) else 0.0


def search_stats(states, traces, done, n_items, value, bound, root_bound, started, n_threads):
    """The ``history_`` columns of a split two-condition search.

    ``states``: each worker's counters (the slots of
    :mod:`rulebook._pair_kernels`, which :mod:`rulebook._box_kernels`
    shares); ``traces``: each worker's improvements ``(nodes, seconds,
    value)``; ``done`` of ``n_items`` pairs (or boxes) finished; ``bound``
    the final upper bound; ``root_bound`` bounds the items not yet searched,
    so the trace's improvements before the end carry ``max(value,
    root_bound)``. See :func:`pair_search` for the columns.
    """
    seconds = time.perf_counter() - started

    def total(slot):
        return sum(int(state[slot]) for state in states)

    nodes = total(kernels.NODES)
    trace = sorted((t, n, v) for worker in traces for n, t, v in worker)
    early = float(max(value, root_bound))
    # The pruning columns of the general search (Boley et al. 2021, Table
    # 2) where they apply: ranges pruned by their bound when computed, or
    # when popped after the best value rose to it. There is no
    # equivalence pruning here (two conditions are never enumerated twice).
    return {
        "nodes_created": total(kernels.PUSHED),
        "nodes_expanded": nodes,
        "pruned_bound_immediate": total(kernels.PRUNED),
        "pruned_bound_propagated": 0,
        "pruned_equivalence_immediate": 0,
        "pruned_equivalence_propagated": 0,
        "pruned_open": total(kernels.PRUNED_OPEN),
        "leaves": total(kernels.LEAVES),
        "pairs_searched": done,
        "pairs": n_items,
        "certified": done == n_items,
        "certified_ratio": 1.0 if bound <= value else (value / bound if bound > 0 else 1.0),
        "upper_bound": float(bound),
        "search_time": seconds,
        "threads": n_threads,
        "trace": (tuple((n, t, v, early) for t, n, v in trace)
                  + ((nodes, seconds, value, float(bound)),)),
    }


def _ranked(value):
    """An objective value to compare, NaN below every number."""
    return -np.inf if np.isnan(value) else value


def _run(workers, pairs, taken, deadline, started, root_bound):
    """The workers' searches of the pairs; returns the threads used."""

    def report():
        # Honest while pairs are left: they are bounded by root_bound only.
        if progress.wants_reports():
            best = float(workers[0].shared[0])
            progress.report(nodes=sum(int(w.state[kernels.NODES]) for w in workers),
                            best=best, certified_ratio=min(1.0, best / root_bound)
                            if root_bound > 0 else 1.0, threads=len(workers))

    return run_workers(workers, pairs, taken, deadline, started, report,
                       lambda: sum(w.pairs_done for w in workers) == len(pairs))


def run_workers(workers, work, taken, deadline, started, report, finished):
    """Run the workers of a split search: the first alone, then all in a pool
    if several and work is left after ``SERIAL_SECONDS``.

    Each worker's ``run(work, taken, deadline, started, report)`` takes the
    items ``next(taken)`` of ``work`` until none is left, the deadline or
    the stop flag ``shared[1]`` (the workers' shared array) is set; only the
    worker in this thread reports (``report()``, a few times a second).
    ``finished()`` tells whether all the work is done. Used by this
    module's pairs and by :mod:`rulebook.multi_output_search`'s boxes.

    Returns the threads used.
    """
    shared = workers[0].shared
    # Serial first: most searches end within SERIAL_SECONDS, and then
    # return the same query on every run (with threads, which of two
    # queries of exactly equal value is kept depends on their timing).
    serial = time.perf_counter() + SERIAL_SECONDS if len(workers) > 1 else None
    until = serial if deadline is None else (deadline if serial is None else min(serial, deadline))
    workers[0].run(work, taken, until, started, report)
    past_deadline = deadline is not None and time.perf_counter() >= deadline
    if len(workers) == 1 or past_deadline or shared[1] != 0.0 or finished():
        return 1
    pool = ThreadPoolExecutor(len(workers))
    try:
        futures = [pool.submit(w.run, work, taken, deadline, started, None) for w in workers]
        while not all(f.done() for f in futures):
            wait(futures, timeout=progress.REPORT_INTERVAL)
            report()
        for f in futures:
            f.result()
        return len(workers)
    except KeyboardInterrupt:
        # Only this thread sees Ctrl-C; the flag ends the workers' loops
        # after their current kernel call (CALL_SECONDS).
        shared[1] = 1.0
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
