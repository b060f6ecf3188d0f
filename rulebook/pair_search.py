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

import time

import numpy as np

from . import _pair_kernels as kernels
from . import _progress as progress
from ._search_kernels import EQ, GT, LE, NE

# Most categories of a nominal column branched on (its sets are bit masks
# of an int64); a pair of two larger nominal columns is not supported.
MAX_BRANCHED_CATEGORIES = 62
# Wall time aimed at per kernel call: the deadline, progress reports and
# Ctrl-C are handled between calls (as ``optimal._BranchAndBound``).
CALL_SECONDS = 0.05
FIRST_BUDGET = 256


def applies(problem):
    """Whether :func:`pair_search` can search ``problem`` exactly.

    The second-order objective with ``reg_lambda > 0``, a length limit of 1
    or 2 conditions, every proposition allowed, and no pair of nominal
    columns with more than ``MAX_BRANCHED_CATEGORIES`` categories each.
    """
    if problem.objective != 2 or not problem.reg_lambda > 0.0:
        return False
    if problem.max_rule_length not in (1, 2) or problem.allowed is not None:
        return False
    nominal = np.asarray(problem.is_nominal, bool)
    large = nominal & (np.asarray(problem.n_bins) > MAX_BRANCHED_CATEGORIES)
    return problem.max_rule_length == 1 or large.sum() < 2


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


class _PairSearch:
    """State of one search: the best query, the pairs left, the counters."""

    def __init__(self, problem, seed):
        rows = problem.rows
        self.X = np.asfortranarray(problem.X_binned[rows]).astype(np.int64)
        self.g, self.h = problem.g[rows], problem.h[rows]
        self.n2 = 2.0 * problem.n_total
        self.lam = float(problem.reg_lambda)
        self.n_bins = np.asarray(problem.n_bins, np.int64)
        self.nominal = np.asarray(problem.is_nominal, bool)
        B = int(self.n_bins.max()) + 1 if len(self.n_bins) else 1
        self.scratch = dict(work=np.empty((5, B)), hull=np.empty((2, B + 1), np.int64),
                            prefix=np.empty((2, B + 1)), keys=np.empty(B),
                            order=np.empty(B, np.int64))
        # The root (the empty query, all rows) is the first incumbent.
        G, H = float(self.g.sum()), float(self.h.sum())
        self.best = np.array([G * G / (self.n2 * (self.lam + H)), 0.0])
        self.query = []
        self.state = np.zeros(kernels.N_STATE, np.int64)
        self.singles = np.zeros(len(self.n_bins))
        self.trace = []
        if seed is not None and seed[0] > self.best[0]:
            self.best[0], self.query = seed[0], list(seed[1])

    # -- one column ------------------------------------------------------------

    def _usable(self, f):
        return self.n_bins[f] >= (1 if self.nominal[f] else 2)

    def solve_singles(self):
        """Each column's best condition; the best of them if it beats the seed."""
        B = len(self.scratch["keys"])
        sums = np.empty((2, B))
        members = np.empty(B, np.bool_)
        s = self.scratch
        for f in range(len(self.n_bins)):
            if not self._usable(f):
                continue
            nb = int(self.n_bins[f])
            kernels.column_sums(self.X[:, f], self.g, self.h, nb, sums)
            if self.nominal[f]:
                value, kind, size = kernels.best_set(sums[0], sums[1], nb, self.n2, self.lam,
                                                     s["keys"], s["order"])
                kernels.set_members(kind, size, s["order"], nb, members)
            else:
                value, lo, hi = kernels.best_interval(sums[0], sums[1], nb, self.n2, self.lam,
                                                      s["hull"], s["prefix"])
                members[:nb] = False
                members[lo: hi + 1] = True
            self.singles[f] = value
            if value > self.best[0]:
                self.best[0] = value
                self.query = _conditions(f, self.nominal[f], nb, members)

    # -- pairs ---------------------------------------------------------------------

    def pairs(self):
        """``(c, f)`` per pair of usable columns, c the one branched on
        (fewer conditions), strongest single columns first."""
        usable = [f for f in range(len(self.n_bins)) if self._usable(f)]
        k = self.n_bins.astype(np.float64)
        size = np.where(self.nominal, 2.0 ** np.minimum(k, 60), k * k / 2)
        out = []
        for i, a in enumerate(usable):
            for b in usable[i + 1:]:
                c, f = (a, b) if size[a] <= size[b] else (b, a)
                if self.nominal[c] and self.n_bins[c] > MAX_BRANCHED_CATEGORIES:
                    c, f = f, c
                out.append((c, f))
        out.sort(key=lambda pair: -(self.singles[pair[0]] + self.singles[pair[1]]))
        return out

    def start_pair(self, c, f):
        """Sums per cell of the pair and the root range on the stack."""
        Bc, Bf = int(self.n_bins[c]), int(self.n_bins[f])
        self.pair = (c, f, Bc, Bf)
        position = np.arange(Bc + 1, dtype=np.int64)
        if self.nominal[c]:
            # Categories in ratio order: the best ones are decided first.
            sums = np.empty((2, Bc))
            kernels.column_sums(self.X[:, c], self.g, self.h, Bc, sums)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(sums[1] > 0, sums[0] / sums[1], np.sign(sums[0]) * np.inf)
            rank = np.argsort(-np.abs(ratio), kind="stable")
            position[rank] = np.arange(Bc)
        self.bin_of = np.argsort(position[:Bc], kind="stable")  # position -> bin
        self.cum = np.empty((4, Bc + 1, Bf))
        kernels.pair_grid(self.X[:, c], self.X[:, f], position, Bc, Bf, self.g, self.h,
                          self.cum)
        depth = 4 * (Bc + 2)
        self.stack = np.empty((depth, kernels.STACK_WIDTH), np.int64)
        self.bounds = np.empty(depth)
        self.stack[0] = (0, 0, 0, 0) if self.nominal[c] else (-1, Bc - 2, 0, Bc - 1)
        self.bounds[0] = np.inf
        self.state[kernels.TOP] = 1
        self.in_c = np.zeros(Bc, np.bool_)
        self.in_f = np.zeros(Bf, np.bool_)

    def step(self, budget):
        """One kernel call on the current pair; returns DONE or BATCH."""
        c, f, Bc, Bf = self.pair
        s = self.scratch
        status = kernels.search_pair(self.cum, Bc, Bf, bool(self.nominal[c]),
                                     bool(self.nominal[f]), self.n2, self.lam, self.stack,
                                     self.bounds, self.state, self.best, budget, self.in_c,
                                     self.in_f, s["work"], s["hull"], s["prefix"], s["keys"],
                                     s["order"])
        if self.best[1]:
            self.best[1] = 0.0
            members_c = np.zeros(Bc, np.bool_)
            members_c[self.bin_of[self.in_c]] = True
            self.query = (_conditions(c, self.nominal[c], Bc, members_c)
                          + _conditions(f, self.nominal[f], Bf, self.in_f))
        return status

    def open_bound(self):
        """Largest bound on the current pair's stack (0 when empty)."""
        top = int(self.state[kernels.TOP])
        return float(self.bounds[:top].max()) if top else 0.0


def pair_search(problem, *, deadline=None, seed=None, started=None, root_bound=np.inf):
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

    Returns
    -------
    conditions : list of (feature, op, bin)
        The best query found, in no particular order (empty: the root).
    value : float
    stats : dict
        ``nodes_expanded`` (ranges of conditions searched), ``leaves``
        (single conditions solved on the other column), ``pruned``,
        ``pairs_searched``, ``pairs``, ``certified``, ``certified_ratio``,
        ``upper_bound``, ``search_time``, ``threads`` (1) and ``trace``
        ``((nodes, seconds, best value, upper bound), ...)``.
    """
    started = time.perf_counter() if started is None else started
    search = _PairSearch(problem, seed)
    search.solve_singles()
    pairs = search.pairs() if problem.max_rule_length == 2 else []
    done, finished = 0, True
    budget = FIRST_BUDGET
    last_report = started

    def upper():
        if done == len(pairs):
            return search.best[0]
        return max(search.best[0], min(root_bound, np.inf))

    for c, f in pairs:
        search.start_pair(c, f)
        while True:
            before = time.perf_counter()
            nodes = int(search.state[kernels.NODES] + search.state[kernels.PRUNED])
            improved_from = search.best[0]
            status = search.step(budget)
            spent = time.perf_counter() - before
            used = int(search.state[kernels.NODES] + search.state[kernels.PRUNED]) - nodes
            if used:
                budget = int(min(1 << 20, max(16, budget * CALL_SECONDS / max(spent, 1e-6))))
            if search.best[0] > improved_from:
                search.trace.append((int(search.state[kernels.NODES]),
                                     time.perf_counter() - started, float(search.best[0]),
                                     float(upper())))
            if status == kernels.DONE:
                break
            now = time.perf_counter()
            if now >= last_report + progress.REPORT_INTERVAL and progress.wants_reports():
                last_report = now
                ub = upper()
                progress.report(nodes=int(search.state[kernels.NODES]), best=search.best[0],
                                certified_ratio=search.best[0] / ub if ub > 0 else 1.0,
                                threads=1)
            if deadline is not None and now >= deadline:
                finished = False
                break
        if not finished:
            break
        done += 1
        if deadline is not None and time.perf_counter() >= deadline and done < len(pairs):
            finished = False
            break
    value = float(search.best[0])
    if finished:
        bound = value
    else:
        bound = max(value, search.open_bound(), root_bound)
    seconds = time.perf_counter() - started
    search.trace.append((int(search.state[kernels.NODES]), seconds, value, bound))
    stats = {
        "nodes_expanded": int(search.state[kernels.NODES]),
        "leaves": int(search.state[kernels.LEAVES]),
        "pruned": int(search.state[kernels.PRUNED]),
        "pairs_searched": done,
        "pairs": len(pairs),
        "certified": bool(finished),
        "certified_ratio": 1.0 if bound <= value else (value / bound if bound > 0 else 1.0),
        "upper_bound": float(bound),
        "search_time": seconds,
        "threads": 1,
        "trace": tuple(search.trace),
    }
    return search.query, value, stats
