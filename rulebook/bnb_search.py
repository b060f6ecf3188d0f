"""One run of the branch and bound (Boley et al. 2021, Algorithm 1) in Python.

:class:`_BranchAndBound` lays the data out for the compiled loop
(:mod:`rulebook._bnb_kernels`: rows in ratio order, propositions in search
order, bitsets), grows its pools, calls the resumable kernel in batches of
about ``CALL_SECONDS`` (so that deadlines, progress and Ctrl-C are handled
between calls), splits large searches over threads (each with its own open
list; open queries are rebalanced between them), and reports the anytime
trace and the pruning statistics. :func:`rulebook.optimal.optimal_search`
creates it.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Algorithm 1; Section 3.1 (Theorem 3.1).
"""

import copy
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _bnb_kernels as bnb
from . import _bnb_pools as pools
from . import _bound_kernels as kernels
from . import _progress as progress
from ._atoms import atom_problem
from .objectives import _objective
from .proposition_space import _PropositionSpace

# Open-list orders; a name's position is the kernel's code for it.
ORDERS = ("best_first", "breadth_first", "depth_first")
# Largest number of 64-bit words per extent for which implications and
# refinements use bitset operations (see ``_BranchAndBound._setup_data``).
BITSET_MAX_WORDS = 256
# Largest extent bitset (64-bit words) stored with every expanded query.
STORED_EXTENT_MAX_WORDS = 16

_LAST_SEARCH_ORDER = {}  # the last search order of propositions, likewise


def ratio_order(problem):
    """The rows of ``problem.rows`` sorted by ``g / h`` descending (Theorem 3.1).

    ``g / c`` for the gradient-boosting objective; rows with ``h == 0`` sort
    as ``+inf`` or ``-inf`` by the sign of ``g`` (the limit of the ratio),
    rows with ``g == 0`` as 0; a ratio that underflows to 0 as the
    smallest float of the sign of ``g`` (gradients are then positive, zero,
    negative along the order). Equal ratios keep row order. Keys by the
    kernel ``_bnb_kernels.ratio_sort_keys``.

    Returns
    -------
    ndarray of shape (n_active,), intp
    """
    rows = problem.rows
    w = problem.c if problem.objective == 1 else problem.h
    keys = np.empty(len(rows))
    bnb.ratio_sort_keys(problem.g, w, rows, keys)
    return rows[np.argsort(keys, kind="stable")]


class _BranchAndBound:
    """One run of Algorithm 1, driving the resumable kernel ``run_search``."""

    # Most node expansions per kernel call between two checks of the clock.
    BATCH = 512
    # Longest wall time aimed at per kernel call. The compiled loop cannot
    # be interrupted: Python handles Ctrl-C, checks the deadline and reports
    # progress only between calls. An expansion costs about a microsecond on
    # a thousand atoms but 3 ms on friedman1 (2000 rows, 32 bins, no length
    # limit), where 512 of them took 1.7 s; so each state sizes its calls
    # from the last call's seconds per expansion (``_call``).
    CALL_SECONDS = 0.05
    # Wall time aimed at per parallel batch: the threads meet in Python
    # after each (about 0.4 ms on 2 cores), so batches grow from BATCH
    # expansions until they last about this long. Measured on mobile
    # prices' 8th round (2 threads): fixed 512-expansion batches spent 4%
    # of the search meeting; 2048, 2%.
    PARALLEL_BATCH_SECONDS = 0.025
    # Longest parallel batch (a bound, not an aim: see ``_run_parallel``).
    MAX_PARALLEL_BATCH_SECONDS = 0.25
    # Work before a search is split over threads, in expansions times words
    # per extent (what an expansion's bitset operations scale with):
    # smaller searches (most rounds on most data) run serially, without
    # thread overhead, and stay reproducible. Measured (10 rules, 2 threads):
    # a fixed 4096 expansions kept a quarter of digits5's expansions
    # (62 words) serial, 10.5 s; 32768 (528 expansions there, 4096 at 8
    # words), 8.2 s (boston 0.97 -> 0.67 s). Session 8, with growing
    # parallel batches: 32768 -> 8192 took mobile prices (32 words) from
    # 8.61 to 8.25-8.54 s, boston 0.59 s, digits5 6.3 s; no dataset slower.
    PARALLEL_AFTER_WORDS = 8192

    def __init__(self, problem, order, approximation, started, n_jobs=1, seed=None,
                 memory_limit=None):
        self.n_jobs = int(n_jobs)
        # Bytes of open list, records and lists per thread (None: no cap);
        # past it the pools are reclaimed and, if need be, the open queries
        # of smallest bound dropped (``_reclaim``, :mod:`rulebook._bnb_pools`).
        self.pool_budget = (None if memory_limit is None
                            else int(memory_limit * 2**20) // self.n_jobs)
        self.dropped_max, self.n_dropped = -np.inf, 0
        # Helper threads' states; not ``self.workers = [self]``, a reference
        # cycle that kept each round's open list and scratch until the next
        # garbage collection (0.2 MB per round on noisy parity; resident
        # memory rose 7 MB over 40 fits).
        self.helpers, self.snapshot = [], None
        self.alpha = float(approximation)
        self.order = ORDERS.index(order)
        self.space = space = _PropositionSpace.of(problem)
        searched = space.searched
        self.problem = problem = atom_problem(problem, space.feature[searched],
                                              space.op[searched], space.bin[searched])
        # The limit counts conditions: the columns a query constrains (an
        # interval ``a < x <= b`` is one condition of two propositions).
        self.limit = int(problem.max_rule_length or 0)
        # With a length limit, core queries of the usual closure (every
        # proposition the extent implies) could lose the optimum: a core
        # query may constrain more columns than the shortest query of its
        # extent (p3 with I(p3) = I(p1 & p2) has core query p1 p2). Under a
        # limit the closure is restricted to the query's own columns:
        # clo(q) = the propositions implied by q's extent on q's columns.
        # That is still a closure operator (extensive, monotone, idempotent),
        # so prefix-preserving extensions enumerate each of its closed
        # queries once (Uno et al. 2004; Theorem 3.2 of [1] holds for any
        # closure operator), and clo(q) has q's columns and extent: the
        # best query within the limit is a closed one.
        self.check_core = True
        self.code = int(problem.objective)
        self.n_total = problem.n_total
        self.reg_lambda = float(problem.reg_lambda)
        self.root = ratio_order(problem)
        self._setup_data()
        G, H, C = problem.sums(self.root)
        self.istate = np.zeros(bnb.N_ISTATE, np.int64)
        self.fstate = np.array([_objective(self.code, G, H, C, self.n_total, self.reg_lambda),
                                -np.inf])
        self.istate[bnb.BEST_RECORD], self.istate[bnb.BEST_PROP] = 0, -1
        # Further propositions of the best query (count, then the
        # propositions), set when a subtree solved exactly holds it.
        self.best_extra = np.zeros(max(65, int(problem.n_bins.max()) + 2), np.int64)
        # A seed query (the greedy one) better than the root is the first
        # incumbent: the kernel improves on it only by a strictly larger
        # value, so a best value equal to the seed's means the seed is best.
        self.seed = None
        if seed is not None and seed[0] > self.fstate[bnb.BEST_VALUE]:
            self.seed = seed
            self.fstate[bnb.BEST_VALUE] = seed[0]
        # The best value of all threads, and the flag that ends their batch.
        self.shared = np.array([self.fstate[0], 0.0])
        self.counters = np.zeros(bnb.N_COUNTERS, np.int64)
        self._setup_pools()
        self._started = started
        self.trace = []
        self.chunk = self.BATCH  # expansions per kernel call (see _call)
        self._reported = started  # when progress was last reported

    def _setup_data(self):
        """Rows in ratio order, propositions in search order, their bitsets."""
        p, space, root = self.problem, self.space, self.root
        self.Xp = np.asfortranarray(p.X_binned[root])
        self.gp, self.hp, self.cp = p.g[root], p.h[root], p.c[root]
        props = space.searched
        W = max(1, (len(root) + 63) // 64)
        bits = np.empty((len(props), W), np.uint64)
        bnb.proposition_bits(self.Xp, p.n_bins, space.feature[props], space.op[props],
                             space.bin[props], bits)
        # Ascending extent size, as the reference implementation orders its
        # attributes: large extents, which bounds rarely prune, come last in
        # tail augmentation and so get the fewest augmentations. Sizes (in
        # atoms) do not change between the rounds of a fit, which search
        # the same atoms (the same array, ``_atoms``): the order is kept.
        # Under a length limit, one column's propositions are contiguous
        # instead (``_column_rank``): the last condition of a query is then
        # solved per column (``bnb._solve_columns``).
        by_column = self.limit > 0
        last = _LAST_SEARCH_ORDER.get("entry")
        if (last is not None and last[0]() is p.X_binned and last[1] is space
                and last[3] == by_column):
            rank, self.props, self.pf, self.pop, self.pb = last[2]
        else:
            if by_column:
                rank = np.argsort(_column_rank(p, space.feature[props]), kind="stable")
            else:
                sizes = np.unpackbits(bits.view(np.uint8), axis=1).sum(axis=1)
                rank = np.argsort(sizes, kind="stable")
            self.props = props[rank]  # search index -> proposition number
            self.pf = space.feature[self.props]
            self.pop = space.op[self.props]
            self.pb = space.bin[self.props]
            kept = (rank, self.props, self.pf, self.pop, self.pb)
            for array in kept:
                array.flags.writeable = False  # shared by later rounds
            _LAST_SEARCH_ORDER["entry"] = (weakref.ref(p.X_binned), space, kept, by_column)
        self.bits = np.ascontiguousarray(bits[rank])
        full = np.zeros(W, np.uint64)
        n = len(root)
        full[: n // 64] = np.uint64(0xFFFFFFFFFFFFFFFF)
        if n % 64:
            full[n // 64] = np.uint64((1 << (n % 64)) - 1)
        self.full = full
        # Bitset tests cost n / 64 words each, per-feature counts m x d per
        # node: bitsets win unless n is large (demographics, 6876 atoms = 108
        # words: 10.4 s with bitsets, 21.5 s with counts for 10 rules).
        self.use_bits = W <= BITSET_MAX_WORDS
        # Each row's propositions as a bitset, for critical indices.
        PW = (len(props) + 63) // 64
        self.row_props = np.zeros((n if self.use_bits else 1, PW), np.uint64)
        if self.use_bits:
            bnb.row_proposition_bits(self.bits, n, self.row_props)
        # Subtree bounds over classes of rows (``_bnb_kernels._bound_subtrees``)
        # are tight bounds of Theorem 3.1 over groups of rows, which do not
        # cover the h == 0 special case of the second-order objective at
        # lambda == 0 (``_bound_kernels._singletons_without_regularisation``).
        self.subtree_bounds = not (self.code == 2 and self.reg_lambda == 0.0)
        # Each feature's propositions as a bitset over search indices (the
        # columns of a query under a length limit).
        # One call, not a loop of numpy scalar operations (2 us each, 0.1 ms
        # of every round's set-up with 60 propositions).
        self.col_props = np.zeros((self.problem.n_features, PW), np.uint64)
        j = np.arange(len(self.pf))
        np.bitwise_or.at(self.col_props, (self.pf, j >> 6),
                         np.left_shift(np.uint64(1), (j & 63).astype(np.uint64)))
        # Records keep their extent (W words each) when that is small: it
        # saves a walk up the records, a chain of cache misses, per node.
        self.store_ext = W <= STORED_EXTENT_MAX_WORDS

    def _setup_pools(self):
        """Open list, records and augmentation pools, with the root."""
        P = len(self.props)
        cap, records = 1024 + 4 * P, 1024
        W = len(self.full)
        if self.pool_budget is not None:
            # Smaller first pools under a small budget, down to what the
            # root's expansion needs (room for P children and P entries).
            words = W if self.store_ext else 0
            while (cap > 2 * P + 1
                   and pools.pool_bytes(cap, records, cap, words) > self.pool_budget):
                cap, records = max(2 * P + 1, cap // 2), max(2, records // 2)
        self.open = [np.empty(cap), np.empty(cap, np.int64), np.empty(cap, np.int64),
                     np.empty(cap, np.int64)]
        self.rec = [np.empty(records, np.int64) for _ in range(5)]
        self.rec_ext = np.empty((records if self.store_ext else 1, W), np.uint64)
        self.rec_ext[0] = self.full
        self.aug = [np.empty(cap, np.int64), np.empty(cap), np.empty(cap, np.int64)]
        # Record 0 is the root query; its list offers every proposition.
        parent, prop, length, off, count = self.rec
        parent[0], prop[0], length[0], off[0], count[0] = -1, -1, 0, 0, P
        self.aug[0][:P] = np.arange(P)
        self.aug[1][:P] = np.inf
        self.aug[2][:P] = np.arange(P)
        self.istate[bnb.N_RECORDS], self.istate[bnb.AUG_USED] = 1, P
        bnb._push(self.order, self.istate, *self.open, self._bound(self.root), 0, -1)
        self.scratch = self._new_scratch()
        self._new_column_scratch()

    def _new_column_scratch(self):
        """Per-thread work arrays of the length limit (columns of a query)."""
        PW = self.row_props.shape[1]
        B = int(self.problem.n_bins.max()) + 1
        # A solve's new-column bits; a node's list entries on new columns,
        # their per-bin sums, sort keys, order and hull chains
        # (``bnb._solve_columns``).
        self.column_scratch = (np.zeros(64, np.int64), np.empty(len(self.props), np.int64),
                               np.empty((3, B)), np.empty(B), np.empty(B, np.int64),
                               np.empty((4, B), np.int64))
        # Without a limit the closure is over all columns: all ones, once.
        self.qcols = np.full(PW, np.uint64(0xFFFFFFFFFFFFFFFF))
        self.acols = np.full(PW, np.uint64(0xFFFFFFFFFFFFFFFF))

    def _new_scratch(self):
        """Work arrays of one thread's kernel calls."""
        P, n, d = len(self.props), len(self.root), self.problem.n_features
        B = int(self.problem.n_bins.max()) + 1
        W = len(self.full)
        PW = self.row_props.shape[1]
        # Code tables: a power of two, at least twice the most classes kept.
        T = 1 << max(1, int(2 * n - 1).bit_length())
        return (np.empty(W, np.uint64), np.empty(W, np.uint64), np.empty(n, np.int64),
                np.empty(n, np.int64), np.empty((d, B), np.int64),
                np.empty((d, 2), np.int64), np.empty((d, B), np.int64),
                np.empty((d, 2), np.int64), np.zeros(d, np.int64),
                np.full(P, -1, np.int64), np.empty(P, np.bool_), np.empty(3),
                self.row_props, np.empty(PW, np.uint64), np.empty(PW, np.uint64),
                np.empty(P), np.empty(P, np.int64), np.empty(P, np.bool_),
                self.subtree_bounds, np.zeros(n, np.uint64), np.zeros(T, np.uint64),
                np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(1, np.int64),
                np.empty(n), np.empty(n), np.empty(n, np.int64), np.empty(n),
                np.empty(2 << bnb.EXACT_MAX_LIST), np.empty(2 << bnb.EXACT_MAX_LIST),
                np.empty(64, np.int64))

    def _bound(self, rows):
        p = self.problem
        return float(kernels.bound(rows, len(rows), p.g, p.h, p.c, self.code, self.n_total,
                                   self.reg_lambda))

    # -- one thread's search state -------------------------------------------

    def _own_best_query(self):
        """This state's best query, as search indices (``self.props`` positions)."""
        if self.snapshot is not None and self.snapshot[0] >= self.fstate[bnb.BEST_VALUE]:
            return self.snapshot[1]
        parent, prop = self.rec[0], self.rec[1]
        found, r = [], int(self.istate[bnb.BEST_RECORD])
        found.extend(int(p) for p in self.best_extra[1: 1 + self.best_extra[0]])
        if self.istate[bnb.BEST_PROP] >= 0:
            found.append(int(self.istate[bnb.BEST_PROP]))
        while r >= 0:
            if prop[r] >= 0:
                found.append(int(prop[r]))
            r = int(parent[r])
        return tuple(found)

    def _open_span(self):
        """``(head, end)``: this state's open queries are ``open[k][head:end]``.

        A breadth-first list is a FIFO consumed from ``OPEN_HEAD``; the
        other orders keep their open queries from position 0.
        """
        head = int(self.istate[bnb.OPEN_HEAD]) if self.order == bnb.BREADTH_FIRST else 0
        return head, int(self.istate[bnb.N_OPEN])

    def _n_open(self):
        head, end = self._open_span()
        return end - head

    def _call(self, batch):
        """One call of the kernel; returns its status after growing arrays.

        At most ``self.chunk`` expansions, which follows the measured cost
        of an expansion so that a call lasts about ``CALL_SECONDS``.
        """
        batch = min(batch, self.chunk)
        before, started = int(self.istate[bnb.EXPANDED]), time.perf_counter()
        status = bnb.run_search(
            self.Xp, self.gp, self.hp, self.cp, self.problem.n_bins, self.pf, self.pop,
            self.pb, self.bits, self.full, self.code, self.n_total, self.reg_lambda,
            self.alpha, self.check_core, self.limit, self.order, batch, self.use_bits,
            *self.open, *self.rec, self.store_ext, self.rec_ext, *self.aug, self.istate,
            self.fstate, self.counters, *self.scratch, self.shared, self.best_extra,
            *self.column_scratch, self.col_props, self.qcols, self.acols)
        done = int(self.istate[bnb.EXPANDED]) - before
        if done:
            per_expansion = (time.perf_counter() - started) / done
            self.chunk = int(min(self.BATCH, max(1, self.CALL_SECONDS / per_expansion)))
        if status == bnb.GROW:
            self._grow()
        return status

    def _work(self, budget, until):
        """Expand up to ``budget`` queries (one thread of a parallel search).

        Stops early once another thread has ended its batch, and then asks
        the others to stop (``self.shared[1]``): no thread waits for a
        slower one at the meeting point. Also stops at the clock time
        ``until`` (checked between kernel calls).
        """
        stop = int(self.istate[bnb.EXPANDED]) + budget
        # Several calls when expansions are slow (``_call``): the flag and
        # the clock are then also checked between calls, so that an
        # interrupt (which sets the flag) waits for one short call only.
        while (self._n_open() and self.istate[bnb.EXPANDED] < stop
               and self.shared[1] == 0.0 and time.perf_counter() < until):
            if self._call(stop - int(self.istate[bnb.EXPANDED])) == bnb.DONE:
                break
        self.shared[1] = 1.0

    # -- the whole search ---------------------------------------------------

    def run(self, max_nodes, deadline):
        """Expand queries until the open list is empty or a budget is spent.

        Serial until ``PARALLEL_AFTER_WORDS`` (expansions times words per
        extent), so that small searches cost no threads and stay
        reproducible; then, with ``n_jobs > 1`` and best-first order, split
        over threads.
        """
        parallel = self.n_jobs > 1 and self.order == bnb.BEST_FIRST
        serial = -(-self.PARALLEL_AFTER_WORDS // len(self.full))  # expansions
        # The root is always expanded, so that even a time limit shorter
        # than compiling the kernel yields the best single proposition.
        while (deadline is None or self.istate[bnb.EXPANDED] == 0
               or time.perf_counter() < deadline):
            expanded = int(self.istate[bnb.EXPANDED])
            if parallel and expanded >= serial:
                self._run_parallel(max_nodes, deadline)
                break
            # The root alone first only under a time limit (see above):
            # each call costs a return to Python.
            batch = self.BATCH if expanded or deadline is None else 1
            if parallel:
                batch = min(batch, serial - expanded)
            if max_nodes is not None:
                batch = min(batch, max_nodes - expanded)
                if batch <= 0:
                    break
            status = self._call(batch)
            if status == bnb.DONE:
                break
            if status == bnb.IMPROVED:
                self._record()
            self._report()
        self._record()

    def _run_parallel(self, max_nodes, deadline):
        """Best-first search by ``n_jobs`` threads, each with its own open list.

        The open list is split between the threads, which share the best
        value (``self.shared``) for pruning. A batch ends for all threads
        when one of them ends it; then a thread whose list ran dry takes
        half of the longest list. The kernel releases the GIL, so the
        threads run in parallel.
        """
        self.helpers = [self._spawn() for _ in range(self.n_jobs - 1)]
        batch = self.BATCH
        pool = ThreadPoolExecutor(len(self.workers))
        try:
            while True:
                for idle in (w for w in self.workers if not w._n_open()):
                    busiest = max(self.workers, key=lambda w: w._n_open())
                    if busiest._n_open() >= 2:
                        _rebalance(busiest, idle)
                busy = [w for w in self.workers if w._n_open()]
                if not busy or (deadline is not None and time.perf_counter() >= deadline):
                    break
                budget = batch
                if max_nodes is not None:
                    left = max_nodes - self.n_expanded
                    if left <= 0:
                        break
                    busy = busy[:left]  # fewer queries left than threads
                    budget = max(1, min(budget, left // len(busy)))
                before = self.best_value
                self.shared[1] = 0.0
                started = time.perf_counter()
                # Batches grow while they are short; one that turns out slow
                # (expensive nodes) still ends at the deadline, and after
                # MAX_PARALLEL_BATCH_SECONDS, for the progress reports.
                until = started + self.MAX_PARALLEL_BATCH_SECONDS
                if deadline is not None:
                    until = min(until, deadline)
                for future in [pool.submit(w._work, budget, until) for w in busy]:
                    future.result()
                batch = self._next_batch(batch, time.perf_counter() - started, deadline)
                if self.best_value > before:
                    self._record()
                self._report()
        except KeyboardInterrupt:
            # Only the main thread sees Ctrl-C, while it waits for the
            # workers; the flag ends their batch at their next pop or call.
            self.shared[1] = 1.0
            raise
        finally:
            # Waits for the workers' current kernel calls (``CALL_SECONDS``):
            # they use this search's arrays, which must outlive them.
            pool.shutdown(wait=True, cancel_futures=True)

    def _report(self):
        """Tell the fit's progress bar what the search knows, a few times a second."""
        now = time.perf_counter()
        if now < self._reported + progress.REPORT_INTERVAL or not progress.wants_reports():
            return
        self._reported = now
        upper = self.upper_bound()
        ratio = 1.0 if upper <= self.best_value else self.best_value / upper
        progress.report(nodes=self.n_expanded, best=self.best_value, certified_ratio=ratio,
                        threads=len(self.workers))

    def _next_batch(self, batch, seconds, deadline):
        """Expansions per thread for the next parallel batch.

        Doubles (or halves) ``batch`` towards ``PARALLEL_BATCH_SECONDS``, and
        under a deadline towards a quarter of the time left; never below
        ``BATCH``, so that clock checks stay as frequent as in the serial
        search.
        """
        target = self.PARALLEL_BATCH_SECONDS
        if deadline is not None:
            target = min(target, (deadline - time.perf_counter()) / 4)
        if seconds < target / 2:
            return 2 * batch
        if seconds > 2 * target:
            return max(self.BATCH, batch // 2)
        return batch

    def _spawn(self):
        """A second search state over the same data, with no open queries."""
        other = copy.copy(self)
        other.helpers = []
        other.open = [a.copy() for a in self.open]
        other.istate = self.istate.copy()
        other.istate[bnb.N_OPEN] = 0
        other.fstate = self.fstate.copy()
        other.best_extra = self.best_extra.copy()
        other.counters = np.zeros_like(self.counters)
        other.n_dropped = 0
        other.scratch = self._new_scratch()
        other._new_column_scratch()
        other.rec, other.rec_ext, other.aug = self.rec, self.rec_ext, self.aug  # copied on rebalance
        other.snapshot = (self.best_value, self._own_best_query())
        other.istate[bnb.EXPANDED] = other.istate[bnb.PUSHED] = other.istate[bnb.EVALUATED] = 0
        return other

    @property
    def workers(self):
        """This search state and its helpers' (one per thread)."""
        return [self, *self.helpers]

    @property
    def n_expanded(self):
        return sum(int(w.istate[bnb.EXPANDED]) for w in self.workers)

    @property
    def best_value(self):
        return max(float(w.fstate[bnb.BEST_VALUE]) for w in self.workers)

    def best_query(self):
        """Proposition numbers of the best query (in ``_PropositionSpace`` terms)."""
        # The first thread's on ties: the serial search's when no thread
        # found a better value after the split.
        if self.seed is not None and self.best_value <= self.seed[0]:
            return self.seed[1]
        best = max(self.workers, key=lambda w: float(w.fstate[bnb.BEST_VALUE]))
        return tuple(sorted(int(self.props[s]) for s in best._own_best_query()))

    def _grow(self):
        """Double the arrays that may overflow (and compact a FIFO).

        Within ``pool_budget``: growth that would exceed it reclaims the
        pools instead (``_reclaim``).
        """
        if self.pool_budget is not None and self._grown_bytes() > self.pool_budget:
            self._reclaim()
            return
        P = len(self.props)
        state = self.istate
        if self.order == bnb.BREADTH_FIRST and state[bnb.OPEN_HEAD] > 0:
            head, end = int(state[bnb.OPEN_HEAD]), int(state[bnb.N_OPEN])
            for array in self.open:
                array[: end - head] = array[head:end]
            state[bnb.OPEN_HEAD], state[bnb.N_OPEN] = 0, end - head
        if state[bnb.N_OPEN] + P > len(self.open[0]):
            self.open = [_enlarged(a, int(state[bnb.N_OPEN]) + P) for a in self.open]
        if state[bnb.N_RECORDS] + 1 > len(self.rec[0]):
            self.rec = [_enlarged(a, int(state[bnb.N_RECORDS]) + 1) for a in self.rec]
            if self.store_ext:
                self.rec_ext = _enlarged(self.rec_ext, len(self.rec[0]))
        if state[bnb.AUG_USED] + P > len(self.aug[0]):
            self.aug = [_enlarged(a, int(state[bnb.AUG_USED]) + P) for a in self.aug]

    def _grown_bytes(self):
        """Bytes of the pools after ``_grow`` would have grown them."""
        P, state = len(self.props), self.istate
        sizes = []
        for used, extra, array in ((self._n_open(), P, self.open[0]),
                                   (int(state[bnb.N_RECORDS]), 1, self.rec[0]),
                                   (int(state[bnb.AUG_USED]), P, self.aug[0])):
            size = len(array)
            sizes.append(size if used + extra <= size else max(used + extra, 2 * size))
        return pools.pool_bytes(*sizes, len(self.full) if self.store_ext else 0)

    def _reclaim(self):
        """Fit the pools into ``pool_budget``: an anytime search from here on.

        Keeps only the records and list entries that open queries can still
        reach (``_bnb_pools.compact``, which loses nothing); while that live
        state, with room to double, is over the budget, drops the half of
        the open queries of smaller bound, remembering the largest bound
        dropped (an upper bound of their subtrees: ``upper_bound``). The
        spare capacity is shared out in proportion to the live pools.
        """
        P = len(self.props)
        words = len(self.full) if self.store_ext else 0
        while True:
            self.open, self.rec, self.rec_ext, self.aug = pools.compact(
                self.open, self.rec, self.rec_ext, self.aug, self.istate, self.order, P,
                self.store_ext)
            sizes = [len(self.open[0]), len(self.rec[0]), len(self.aug[0])]
            live = pools.pool_bytes(*sizes, words)
            n_open = self._n_open()
            if live <= self.pool_budget or n_open == 0:
                break
            top, dropped = pools.drop_open(self.open, self.istate, self.order, n_open // 2)
            self.dropped_max = max(self.dropped_max, top)
            self.n_dropped += dropped
        scale = max(1.0, self.pool_budget / live)
        if scale > 1.0:
            self.open = [_enlarged(a, int(len(a) * scale), exact=True) for a in self.open]
            self.rec = [_enlarged(a, int(len(a) * scale), exact=True) for a in self.rec]
            if self.store_ext:
                self.rec_ext = _enlarged(self.rec_ext, len(self.rec[0]), exact=True)
            self.aug = [_enlarged(a, int(len(a) * scale), exact=True) for a in self.aug]

    def open_bounds(self):
        bounds = []
        for w in self.workers:
            head, end = w._open_span()
            bounds.append(w.open[0][head:end])
        return np.concatenate(bounds)

    def max_open_bound(self):
        top = -np.inf
        for w in self.workers:
            head, end = w._open_span()
            if end > head:
                # A best-first list is a heap: its largest bound is first.
                top = max(top, float(w.open[0][head] if self.order == bnb.BEST_FIRST
                                     else w.open[0][head:end].max()))
        return top

    def upper_bound(self):
        pruned = max(float(w.fstate[bnb.PRUNED_MAX]) for w in self.workers)
        return max(self.best_value, self.max_open_bound(), pruned, self.max_dropped_bound())

    def max_dropped_bound(self):
        """Largest bound of the open queries dropped to keep within the budget (-inf: none)."""
        return max(w.dropped_max for w in self.workers)

    def _record(self):
        self.trace.append((self.n_expanded, time.perf_counter() - self._started,
                           self.best_value, self.upper_bound()))

    def stats(self, seconds):
        upper = self.upper_bound()
        finished = not len(self.open_bounds())
        # Dropped open queries (``_reclaim``) certify only once the best
        # value reached their bound.
        certified = ((finished or self.best_value >= self.alpha * self.max_open_bound())
                     and self.best_value >= self.alpha * self.max_dropped_bound())
        ratio = 1.0 if upper <= self.best_value else self.best_value / upper
        c = sum(w.counters for w in self.workers)
        total = {k: sum(int(w.istate[k]) for w in self.workers)
                 for k in (bnb.PUSHED, bnb.EXPANDED, bnb.EVALUATED)}
        return {
            "nodes_created": total[bnb.PUSHED] + 1,
            "nodes_expanded": total[bnb.EXPANDED],
            "nodes_evaluated": total[bnb.EVALUATED],
            "pruned_bound_immediate": int(c[bnb.BOUND_IMMEDIATE] + c[bnb.BOUND_AFTER_CHILDREN]),
            "pruned_bound_propagated": int(c[bnb.BOUND_PROPAGATED]),
            "pruned_equivalence_immediate": int(c[bnb.IMPLIED] + c[bnb.NOT_CORE]),
            "pruned_equivalence_propagated": int(c[bnb.EQUIV_PROPAGATED]),
            "critical_index_reused": int(c[bnb.CRIT_REUSED]),
            "pruned_open": int(c[bnb.OPEN_PRUNED]),
            "pruned_bound_subtree": int(c[bnb.BOUND_SUBTREE]),
            "class_bounds_computed": int(c[bnb.CLASS_TRIED]),
            "subtrees_solved": int(c[bnb.SUBTREE_SOLVED]),
            "columns_solved": int(c[bnb.COLUMNS_SOLVED]),
            "nodes_dropped": sum(w.n_dropped for w in self.workers),
            "certified": bool(certified),
            "certified_ratio": float(ratio),
            "upper_bound": float(upper),
            "search_time": seconds,
            "threads": len(self.workers),
            "trace": tuple(self.trace),
        }


def _column_rank(problem, feature):
    """Search order of the columns under a length limit, per proposition.

    Columns with few conditions come first: the first columns of a query
    are enumerated node by node (every interval, or category set, of the
    column can be a node), its last condition is solved per column at once
    (``bnb._solve_columns``, cost linear in its rows, quadratic in its
    bins). A numeric column of ``k`` bins has about ``k^2 / 2`` intervals, a
    nominal one up to ``2^k`` category sets. Ties keep column order.
    """
    k = np.asarray(problem.n_bins, dtype=np.float64)
    conditions = np.where(problem.is_nominal, 2.0 ** np.minimum(k, 60), k * k / 2)
    column = np.argsort(np.argsort(conditions, kind="stable"), kind="stable")
    return column[feature]


def _rebalance(source, target):
    """Give ``target`` every other open query of ``source``, by bound.

    ``target`` first keeps its best query as a snapshot, then takes copies
    of ``source``'s records and augmentation pools, which the moved open
    queries refer to. Both open lists are left sorted by (bound descending,
    age), which is a valid heap.
    """
    target.snapshot = max(target.snapshot or (-np.inf, ()),
                          (float(target.fstate[bnb.BEST_VALUE]), target._own_best_query()),
                          key=lambda found: found[0])
    target.istate[bnb.BEST_RECORD], target.istate[bnb.BEST_PROP] = -1, -1
    target.best_extra[0] = 0
    target.rec = [a.copy() for a in source.rec]
    target.rec_ext = source.rec_ext.copy()
    target.aug = [a.copy() for a in source.aug]
    for slot in (bnb.N_RECORDS, bnb.AUG_USED):
        target.istate[slot] = source.istate[slot]
    n = int(source.istate[bnb.N_OPEN])
    entries = [a[:n].copy() for a in source.open]
    rank = np.lexsort((entries[1], -entries[0]))
    keep, give = rank[0::2], rank[1::2]
    if len(target.open[0]) < len(give) + len(source.props):
        target.open = [_enlarged(a, len(give) + len(source.props)) for a in target.open]
    for src, dst, entry in zip(source.open, target.open, entries):
        src[: len(keep)] = entry[keep]
        dst[: len(give)] = entry[give]
    source.istate[bnb.N_OPEN], target.istate[bnb.N_OPEN] = len(keep), len(give)


def _enlarged(array, needed, exact=False):
    """A copy of ``array`` with at least ``needed`` (and twice as many) rows.

    ``exact``: exactly ``needed`` rows (at least ``len(array)``).
    """
    rows = max(needed, len(array)) if exact else max(needed, 2 * len(array))
    out = np.empty((rows,) + array.shape[1:], dtype=array.dtype)
    out[: len(array)] = array
    return out
