"""Exact rule search by branch and bound (Boley et al. 2021, Algorithm 1).

The optimal base learner maximises the objective over *all* conjunctions of
the binned propositions that the greedy learner chooses from, so greedy
refinement never finds a better query. The search enumerates queries by tail
augmentation in a fixed proposition order (ascending extent size, as in the
reference implementation and LCM) and prunes with

* the tight bound of Theorem 3.1, computed in one linear pass because every
  extent is kept in the order of the gradient ratio ``g / h``, fixed once
  per search; rows that no proposition separates are merged into *atoms*
  first (:mod:`rulebook._atoms`), which makes the bound tighter still;
* OPUS propagation: an augmentation's bound, computed at one node, prunes
  the same augmentation in all of the node's siblings' subtrees;
* equivalence pruning: only one *core query* per extent is expanded
  (prefix preservation, eq. 3.6), and the critical index of Theorem 3.2
  carries the non-core verdicts into the siblings' subtrees (eq. 3.7, 3.8);
* subtree bounds (not in the paper): a child's subtree only adds the
  propositions left in its augmentation list, so its extents are unions of
  the classes of rows that agree on those; the tight bound over the classes
  is tighter than over rows. With few propositions left (up to
  ``EXACT_MAX_LIST``), the subtree is solved on the spot instead: the sums of
  all its extensions come from one superset-sum (zeta) transform.

The optimal core query is finally replaced by an approximately shortest
query with the same extent (greedy set cover, end of Section 3.2).

The search is anytime: a node budget, a time limit or an approximation
factor stop it early with a certified ratio ``value / upper bound``.

The whole loop runs in compiled code (:mod:`rulebook._bnb_kernels`); an
open query costs a few dozen bytes (its extent is recomputed from its query
when it is expanded), and one expansion about a microsecond on data of a
thousand rows.

Large searches run on several threads (``OptimalLearner(n_jobs=...)``):
after ``32768 / W`` serial expansions (``W`` words per extent bitset: 4096
on up to 512 atoms, 63 on digits5) the open list is split, each thread runs the
compiled loop (which releases the GIL) on its own part, the threads share the
best value for pruning, and a thread that runs dry takes half of the longest
list. The parallelism is over subtrees, not over the features of one node:
after merging rows into atoms a node has a few hundred to a few thousand
rows, too few to share out per node, and a ``parallel=True`` kernel called
from the cached compiled loop crashed when numba loaded it from its cache.

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

import os
import time
import warnings
from dataclasses import dataclass

import numba
import numpy as np

from . import _bound_kernels as kernels
from . import multi_output_search, pair_search
from ._precompile import prepare as prepare_kernels
from .bnb_search import ORDERS, _BranchAndBound, ratio_order  # noqa: F401 (ratio_order: imported from here)
from .greedy import greedy_search
from .proposition_space import _PropositionSpace
from .search import MultiOutputProblem, SearchResult
from .shortening import shorten_conditions, shortest_equivalent


@dataclass(frozen=True)
class OptimalLearner:
    """Branch-and-bound base learner (``learner="optimal"``).

    Finds the conjunction of binned propositions of largest objective value
    (within ``max_rule_length`` conditions: columns constrained, so an
    interval ``a < x <= b`` counts once), then shortens it to an
    approximately shortest query with the same extent.

    Parameters
    ----------
    order : {"best_first", "breadth_first", "depth_first"}, default="best_first"
        Which open query is expanded next: largest bound first, oldest
        first, or newest first. All give the same optimal value; best-first
        usually expands fewest nodes and gives the best anytime guarantee.
    max_nodes : int >= 1 or None, default=None
        Stop after expanding this many queries (None: no limit).
    time_limit : float > 0, "auto" or None, default="auto"
        Stop a round's search after this many seconds (None: no limit);
        ``"auto"`` is ``AUTO_TIME_LIMIT`` = 2 s per round, so that a default
        fit of 10 rules takes at most about 20 s. Checked about every 0.05 s
        (``_BranchAndBound.CALL_SECONDS``, also how soon Ctrl-C is
        handled) and at least every 512 node expansions; the root is always
        expanded, and the search starts
        from the greedy query, so a stopped round returns a query at least
        as good as greedy refinement's, with its certified ratio
        ``value / upper bound`` in ``history_["certified_ratio"]`` (1.0:
        proven optimal). The first call in a process also compiles the
        search kernel, which counts.
    approximation : float in (0, 1], default=1.0
        Prune a query when ``approximation * bound <= best value``: the
        result is then guaranteed to be within this factor of the optimum.
    n_jobs : int >= 1 or None, default=None
        Threads for a large search (None: numba's thread count, set by
        ``NUMBA_NUM_THREADS``). A round runs serially for its first
        ``32768 / W`` node expansions, ``W = ceil(atoms / 64)`` (4096 on
        up to 512 atoms); a search still running then is split: each thread
        expands the queries of its own best-first open list, all share the
        best value for pruning, and a thread that runs out takes half of
        the longest list. Only ``order="best_first"`` is split. The
        search of rules of at most two conditions (the default length; one
        output or several) runs serially for 0.1 s, then its threads take
        whole pairs of columns in turn. The optimal
        value is the same as with one thread; among queries of exactly equal
        value, which one is returned may depend on the threads' timing, and
        the node counts vary slightly from run to run. More than the CPUs
        available to the process is capped to that number, with a warning.
    memory_limit : float > 0 or None, default=256
        Most mebibytes (2^20 bytes) held by a round's growing search state,
        all threads together (each thread ``memory_limit / n_jobs``): the
        open queries (32 bytes each), the records of expanded queries (40
        bytes, plus their extent bitset on up to 1,024 atoms) and their
        augmentation lists (24 bytes per entry). None: no cap. When the
        state would outgrow it, the records and list entries that no open
        query can reach are reclaimed first (the search stays exact); if the
        live state alone is too large, the half of the open queries with
        the smallest bounds is dropped, as often as needed, and the search
        goes on as an anytime search: its certified ratio counts the
        largest bound dropped, and ``certified`` is False unless the best
        value reaches it (``history_["nodes_dropped"]`` counts them). The
        default is reached only by searches without a time limit or with a
        long one (2,000 x 30 noise, 255 bins, no length limit: the state
        grows by 1-2 MiB per second of search); the fixed arrays of a
        search (each proposition's extent as a bitset: propositions x
        atoms / 8 bytes, 190 MB on 10^5 distinct rows of 30 columns of 255
        bins) come on top.
    condition_cost : float >= 0 or "auto", default="auto"
        What a threshold costs a rule, in multiples of the noise level
        ``phi ln(P) / n``: about the largest objective one of the round's
        ``P`` propositions reaches on residuals without signal, ``phi``
        their dispersion (the risk inflation criterion of Foster and
        George 1994 [3]_; :func:`rulebook.pair_search.condition_cost_of`).
        A rule pays once per threshold of a numeric column, twice for an
        interval ``a < x <= b``, and once per nominal column
        (:func:`rulebook.pair_search.priced_conditions`), with one output
        or several. Each round's rule is the query of
        largest ``objective - cost * thresholds``, searched exactly: a
        second condition, or an interval's second end, must add that much
        objective, so rules get them only where they pay (without it the
        search favours narrow pockets, ``a < x <= b & c < z <= d``).
        ``"auto"``: ``AUTO_CONDITION_COST`` = 0.25 for the estimators'
        default search (rules of at most two conditions, one output),
        chosen with ``benchmarks/bench_defaults.py`` (``benchmarks/README.md``,
        sessions 24 and 25: rules no longer than greedy's on all 28
        datasets, mean test score at least greedy's on 25; on 8 held-out
        tasks at least greedy's on 5; a factor of 0.5 lost two of them);
        ``AUTO_MULTI_OUTPUT_CONDITION_COST`` = 0.25 for several outputs,
        in units of their search's own noise level
        (:func:`rulebook.multi_output_search.condition_cost_of`), chosen
        with ``benchmarks/bench_multi_output.py`` (at least greedy's
        measure on 15 of 20 comparisons at 10 rules, against 11 with the
        plain objective; ``docs/multi_output.md``); 0 for the other searches (longer rules, the paper's propositions),
        which support no cost yet. 0: the plain objective of [1]_. A fit
        stops, with a warning, once no query's objective exceeds the cost
        of its conditions.

    Raises
    ------
    ValueError
        On an invalid option (at construction); at search time, a
        ``condition_cost`` above 0 with a search that does not support it.

    Notes
    -----
    The search assumes ``h_i >= 0`` and ``c_i > 0`` for the rows of
    ``problem.rows`` (true for the convex losses of :mod:`rulebook.losses`,
    and ``rows`` holds only rows of positive weight). Rows with ``h_i == 0``
    are handled exactly, including with ``reg_lambda = 0``; see
    :func:`rulebook._bound_kernels.bound`.

    Bounds and values are compared exactly in floating point; they are sums
    over atoms (summed rows) in different orders, so with real-valued
    statistics a query that beats the best one by a relative 1e-15 or so
    may be pruned. The result is then optimal up to that rounding (exact
    with integer-valued statistics).

    With at most two conditions per rule (``max_rule_length`` 1 or 2, the
    estimators' default), the second-order objective with ``reg_lambda > 0``
    and every proposition allowed, rounds are searched by
    :func:`rulebook.pair_search.pair_search` instead: each column's best
    condition solved from its sums per bin, each pair of columns by branch
    and bound over ranges of thresholds [2]_. It finds the same optimal
    value, usually within a second on all 255 bins; ``max_nodes`` or
    ``approximation < 1`` select the general search. Its ``history_``
    columns are those listed in :func:`rulebook.pair_search.pair_search`
    (the equivalence-pruning counts are 0 there).

    With several outputs (multi-class, multi-label or multi-output targets,
    :class:`rulebook.search.MultiOutputProblem`), rules of at most two
    conditions are searched exactly for a complete or a single-output head
    by :func:`rulebook.multi_output_search.multi_output_search` (boxes of
    conditions on two columns, each output bounded on its own; the bounds
    summed for a complete head, maximised for a single-output one); longer
    rules, ``max_nodes`` and ``approximation < 1`` are refused with several
    outputs. A complete head's bound is loose when the outputs prefer
    different rows (ten classes: bounds about ten times the best value), so
    on many columns and classes most rounds end at the time limit, anytime,
    with their certified ratio.

    The general search is exponential in the worst case. Residuals that look like
    noise (late boosting rounds, small ``reg_lambda``, many bins) can make
    it run for hours, and best-first search keeps every open query in
    memory (32 bytes each, plus about 64 bytes per expanded query with open
    children; tens of millions are possible): use
    ``max_bins`` of about 10 or less, a larger ``reg_lambda``,
    ``time_limit`` or ``max_nodes``. A stopped search returns the best query
    found with its certified ratio (``history_["certified_ratio"]``).

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 3 and Algorithm 1; Appendix C for the
       effect of ``reg_lambda`` on the running time.
    .. [2] Mazumder, R., Meng, X., Wang, H. (2022). Quant-BnB: a scalable
       branch-and-bound method for optimal decision trees with continuous
       features. ICML. Section 3.
    .. [3] Foster, D. P., George, E. I. (1994). The risk inflation criterion
       for multiple regression. The Annals of Statistics 22(4), 1947-1975.

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
    time_limit: float | str | None = "auto"
    approximation: float = 1.0
    n_jobs: int | None = None
    memory_limit: float | None = 256
    condition_cost: float | str = "auto"

    name = "optimal"

    def __post_init__(self):
        if self.order not in ORDERS:
            raise ValueError(f"order={self.order!r} is not supported; "
                             f"valid orders are {list(ORDERS)}")
        if self.max_nodes is not None and not (_is_number(self.max_nodes, integral=True)
                                               and self.max_nodes >= 1):
            raise ValueError(f"max_nodes must be an integer >= 1 or None; got {self.max_nodes!r}")
        if self.time_limit is not None and self.time_limit != "auto" and not (
                _is_number(self.time_limit) and self.time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds, 'auto' or None; "
                             f"got {self.time_limit!r}")
        if not (_is_number(self.approximation) and 0.0 < self.approximation <= 1.0):
            raise ValueError(f"approximation must be in (0, 1]; got {self.approximation!r}")
        if self.n_jobs is not None and not (_is_number(self.n_jobs, integral=True)
                                            and self.n_jobs >= 1):
            raise ValueError(f"n_jobs must be an integer >= 1 or None; got {self.n_jobs!r}")
        if self.memory_limit is not None and not (
                _is_number(self.memory_limit) and np.isfinite(self.memory_limit)
                and self.memory_limit > 0):
            raise ValueError(f"memory_limit must be a positive number of mebibytes or None; "
                             f"got {self.memory_limit!r}")
        _check_condition_cost(self.condition_cost)
        if self.n_jobs is not None and self.n_jobs > _available_cpus():
            # Each job is a thread with its own open list and buffers: more
            # threads than CPUs only add memory and contention (the result is
            # the same with any number), and thousands fail to start.
            cap = _available_cpus()
            warnings.warn(f"n_jobs={self.n_jobs} is more than the {cap} CPUs available; "
                          f"using n_jobs={cap}.", UserWarning, stacklevel=3)
            object.__setattr__(self, "n_jobs", cap)  # frozen: set once, at construction

    def search(self, problem):
        """Find the best query; see :func:`optimal_search`."""
        return optimal_search(problem, order=self.order, max_nodes=self.max_nodes,
                              time_limit=self.time_limit, approximation=self.approximation,
                              n_jobs=self.n_jobs, memory_limit=self.memory_limit,
                              condition_cost=self.condition_cost)


# ``time_limit="auto"``: seconds per boosting round. Small enough that a
# default fit of 10 rules cannot run for minutes, large enough that most
# rounds on tables of up to ~10^5 rows finish (and are certified) within it.
AUTO_TIME_LIMIT = 2.0
# ``condition_cost="auto"`` with the two-condition search: a condition costs a
# quarter of the noise level. Measured with bench_defaults.py (0, 0.1, 0.25
# and 0.5; benchmarks/README.md, session 24).
AUTO_CONDITION_COST = 0.25
# ``condition_cost="auto"`` with several outputs (the exact two-condition
# search of rulebook.multi_output_search): a threshold costs this factor of
# that search's noise level (multi_output_search.condition_cost_of), as with
# one output. Priced per threshold, 0.25 left the optimal learner at least
# greedy's measure on 15 of 20 comparisons at 10 rules against 11 with the
# plain objective, and on more at 50 rules (emotions, yeast, atp7d, enron,
# bench_multi_output.py's 5 splits; benchmarks/README.md, session 26).
# Priced per column (session 25) it had not helped.
AUTO_MULTI_OUTPUT_CONDITION_COST = 0.25


def resolve_time_limit(time_limit):
    """Seconds per search for ``time_limit`` (``"auto"``: ``AUTO_TIME_LIMIT``)."""
    return AUTO_TIME_LIMIT if isinstance(time_limit, str) and time_limit == "auto" else time_limit


def _greedy_seed(problem):
    """``(value, proposition numbers)`` of the greedy query, or None.

    None when greedy finds no query better than the root, or uses a
    proposition outside the search space (then the search runs unseeded).
    """
    result = greedy_search(problem)
    if not result.conditions:
        return None
    props = _PropositionSpace.of(problem).numbers(result.conditions, searched_only=True)
    if props is None:
        return None
    return float(result.value), tuple(sorted(props))


def _available_cpus():
    """CPUs this process may run on (its affinity where the OS tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _n_threads(n_jobs):
    """Threads for ``n_jobs`` (None: numba's thread count, NUMBA_NUM_THREADS)."""
    return numba.get_num_threads() if n_jobs is None else int(n_jobs)


def _is_number(value, integral=False):
    kinds = (int, np.integer) if integral else (int, float, np.integer, np.floating)
    return isinstance(value, kinds) and not isinstance(value, bool)


def optimal_search(problem, *, order="best_first", max_nodes=None, time_limit=None,
                   approximation=1.0, shorten=True, n_jobs=1, seed_greedy=True,
                   memory_limit=None, condition_cost=0.0):
    """Find a query of largest objective value by branch and bound.

    Parameters
    ----------
    problem : SearchProblem
    order, max_nodes, time_limit, approximation
        As in :class:`OptimalLearner`.
    shorten : bool, default=True
        Replace the found query by an approximately shortest equivalent one
        (:func:`shortest_equivalent`). False returns the query as found.
    n_jobs : int >= 1 or None, default=1
        Threads, as in :class:`OptimalLearner`.
    memory_limit : float > 0 or None, default=None
        Mebibytes of the growing search state, as in :class:`OptimalLearner`
        (None here: no cap). Not used by the two-condition search, whose
        state does not grow (:mod:`rulebook.pair_search`).
    condition_cost : float >= 0 or "auto", default=0.0
        As in :class:`OptimalLearner` (0 here: the plain objective).
    seed_greedy : bool, default=True
        Start from the greedy learner's query (same propositions, same
        length limit) as the incumbent: its value prunes from the first
        node, and a search stopped by a budget never returns a worse query
        than greedy refinement would. The result of a finished search is
        the same optimal value either way.

    Returns
    -------
    SearchResult
        ``conditions`` are ``(feature, op, bin)`` triples in proposition
        order; ``rows`` the extent, ascending. ``stats`` holds

        nodes_created
            Queries put on the open list (the root included).
        nodes_expanded
            Queries taken off the open list and expanded (their tail
            augmentations examined).
        nodes_evaluated
            Refinements whose extent, value and bound were computed (the
            reference implementation's ``created``).
        pruned_bound_immediate
            Refinements ``q p_a`` dropped because their own bound, just
            computed, is at most ``best / approximation`` (or their extent
            is empty), when computed or once the node's other refinements
            raised the best value (realkd's ``bnd_immediate_hits`` +
            ``bnd_post_children_hits``).
        pruned_bound_propagated
            Entries of an inherited augmentation list skipped without
            computing their extent, because their bound, computed at the
            parent (OPUS), no longer exceeds ``best / approximation``
            (realkd's ``del_bnd_hits``). Entries with small bounds are
            dropped when computed, so this counts only bounds overtaken by a
            later rise of the best value.
        pruned_equivalence_immediate
            Refinements that are not new core queries, found at this node:
            ``q -> p_a`` (same extent), or a critical index below ``a``
            (prefix preservation, eq. 3.6) (realkd's ``clo_hits`` +
            ``non_lexmin_hits``).
        pruned_equivalence_propagated
            Entries skipped with all their extensions because the critical
            index inherited in the list lies before ``tail(q)`` (eq. 3.8,
            Theorem 3.2; realkd's ``rec_crit_hits``).
        critical_index_reused
            Refinements whose critical index was taken from the list instead
            of computed (eq. 3.7; realkd's ``crit_hits``).
        pruned_open
            Open queries discarded unexpanded because the best value reached
            their bound after they were pushed.
        pruned_bound_subtree
            Core refinements not pushed because the bound of their subtree
            is at most ``best / approximation``: the tight bound over the
            classes of rows that the propositions left in their augmentation
            list cannot separate (their entry stays in the list for the
            siblings). Not in the paper; see :mod:`rulebook._bnb_kernels`.
        class_bounds_computed
            Subtree class bounds computed. After its first 1000, a search
            computes them only while at least 0.1% of them prune, and else in
            one node in 64 (``_bnb_kernels.CLASS_TRIAL``); each thread of a
            split search keeps its own count.
        subtrees_solved
            Core refinements not pushed because their whole subtree was
            solved on the spot: with few propositions left in their list,
            the sums of all ``2^L`` extensions are computed at once and the
            best becomes the best query if it improves on it. Not in the
            paper; see :mod:`rulebook._bnb_kernels`.
        nodes_dropped
            Open queries discarded unexpanded to keep the search state
            within ``memory_limit`` (the ones of smallest bound).
        certified
            True if the search finished, or stopped with
            ``best >= approximation * (largest open bound)``, and
            ``best >= approximation * (largest bound dropped)``.
        certified_ratio
            ``best / upper_bound``: 1.0 when an exact search finished.
        upper_bound
            An upper bound of the optimum: the largest of the best value, the
            bounds of the open queries, the bounds of the dropped ones and
            the bounds pruned (which exceed the best value only when
            ``approximation < 1``).
        search_time
            Seconds.
        threads
            Threads that searched (1 unless the search was split).
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
    if memory_limit is not None and not (_is_number(memory_limit) and memory_limit > 0):
        raise ValueError(f"memory_limit must be a positive number of mebibytes or None; "
                         f"got {memory_limit!r}")
    multi = isinstance(problem, MultiOutputProblem)
    pairs = (not multi and pair_search.applies(problem)
             and max_nodes is None and approximation == 1.0)
    if multi:
        return _multi_output_search(problem, max_nodes, approximation, time_limit, seed_greedy,
                                    shorten, _n_threads(n_jobs),
                                    _resolve_condition_cost(condition_cost, True, multi=True))
    factor = _resolve_condition_cost(condition_cost, pairs)
    if pairs:
        # Before the clock starts: a first fit's compiling is not search time.
        prepare_kernels("optimal")
    started = time.perf_counter()
    time_limit = resolve_time_limit(time_limit)
    if pairs:
        return _two_condition_search(problem, time_limit, seed_greedy, shorten, started,
                                     _n_threads(n_jobs), factor)
    seed = _greedy_seed(problem) if seed_greedy else None
    search = _BranchAndBound(problem, order, approximation, started, _n_threads(n_jobs), seed,
                             memory_limit)
    search.run(max_nodes, None if time_limit is None else started + time_limit)
    conditions = search.best_query()
    rows = problem.rows
    for p in conditions:
        rows = problem.refine(rows, search.space.condition(p))
    if shorten:
        conditions = shortest_equivalent(problem, conditions, rows, search.space)
    stats = search.stats(time.perf_counter() - started)
    return SearchResult(search.space.conditions(conditions), search.best_value,
                        np.sort(rows), stats)


def _check_condition_cost(condition_cost):
    if condition_cost != "auto" and not (
            _is_number(condition_cost) and np.isfinite(condition_cost) and condition_cost >= 0):
        raise ValueError(f"condition_cost must be a number >= 0 or 'auto'; got {condition_cost!r}")


def _resolve_condition_cost(condition_cost, pairs, multi=False):
    """The cost factor of a search: ``"auto"`` is ``AUTO_CONDITION_COST`` for
    the two-condition search of one output (``pairs``),
    ``AUTO_MULTI_OUTPUT_CONDITION_COST`` for several outputs (``multi``:
    their search is always the two-condition one, or refused), 0 for the
    others, which refuse a cost above 0."""
    _check_condition_cost(condition_cost)
    if condition_cost == "auto":
        if multi:
            return AUTO_MULTI_OUTPUT_CONDITION_COST
        return AUTO_CONDITION_COST if pairs else 0.0
    if condition_cost > 0 and not pairs:
        raise ValueError(
            f"condition_cost={condition_cost!r} is supported by the search of rules of at most "
            "2 conditions (max_rule_length 1 or 2, the second-order objective with "
            "reg_lambda > 0, every proposition allowed, without max_nodes or approximation; "
            "one output or several); use condition_cost=0 or 'auto' with other settings.")
    return float(condition_cost)


def _two_condition_search(problem, time_limit, seed_greedy, shorten, started, n_jobs,
                          condition_cost=0.0):
    """``optimal_search`` for a limit of 1 or 2 conditions (:mod:`rulebook.pair_search`),
    ``condition_cost`` a factor of the noise level."""
    # The tight bound of all rows (Theorem 3.1) needs them in ratio order: on
    # rows in any other order its prefixes miss the best subset and the
    # "bound" can lie below the optimum.
    root = ratio_order(problem)
    root_bound = float(kernels.bound(root, len(root), problem.g, problem.h, problem.c,
                                     int(problem.objective), problem.n_total,
                                     float(problem.reg_lambda)))
    deadline = None if time_limit is None else started + time_limit
    conditions, value, stats = pair_search.pair_search(
        problem, deadline=deadline, seed=_greedy_pair_seed(problem, seed_greedy),
        started=started, root_bound=root_bound, n_jobs=n_jobs,
        condition_cost=pair_search.condition_cost_of(problem, condition_cost))
    return _two_condition_result(problem, conditions, value, stats, shorten)


def _multi_output_search(problem, max_nodes, approximation, time_limit, seed_greedy, shorten,
                         n_jobs, condition_cost=0.0):
    """``optimal_search`` for several outputs (:mod:`rulebook.multi_output_search`),
    ``condition_cost`` a factor of its noise level."""
    if not (multi_output_search.applies(problem) and max_nodes is None
            and approximation == 1.0):
        raise ValueError(
            "learner='optimal' with several outputs searches rules of at most 2 conditions "
            "exactly, with reg_lambda > 0, every proposition allowed and nominal columns of at "
            f"most {pair_search.MAX_BRANCHED_CATEGORIES} categories, without max_nodes or "
            f"approximation; got max_rule_length={problem.max_rule_length}, "
            f"reg_lambda={problem.reg_lambda}, max_nodes={max_nodes}, "
            f"approximation={approximation}. Use learner='greedy' for other settings.")
    multi_output_search.prepare()  # before the clock: compiling is not search time
    started = time.perf_counter()
    time_limit = resolve_time_limit(time_limit)
    deadline = None if time_limit is None else started + time_limit
    conditions, value, stats = multi_output_search.multi_output_search(
        problem, deadline=deadline, seed=_greedy_pair_seed(problem, seed_greedy),
        started=started, n_jobs=n_jobs,
        condition_cost=multi_output_search.condition_cost_of(problem, condition_cost))
    return _two_condition_result(problem, conditions, value, stats, shorten)


def _greedy_pair_seed(problem, seed_greedy):
    """``(value, conditions)`` of the greedy query as the searches' incumbent, or None."""
    if not seed_greedy:
        return None
    greedy = greedy_search(problem)
    return (float(greedy.value), list(greedy.conditions)) if greedy.conditions else None


def _two_condition_result(problem, conditions, value, stats, shorten):
    """The SearchResult of a query of at most two conditions: its extent, shortened."""
    conditions = sorted(tuple(int(v) for v in c) for c in conditions)
    rows = problem.rows
    for condition in conditions:
        rows = problem.refine(rows, condition)
    if shorten:
        conditions = shorten_conditions(problem, conditions, rows)
    return SearchResult(tuple(conditions), value, np.sort(rows), stats)
