"""What a base learner is given and what it returns.

A base learner (``greedy`` now; ``optimal`` and ``orthogonal`` plug in the
same way) is a function ``search(problem) -> SearchResult`` registered in
:data:`LEARNERS`. It sees only binned data and gradient statistics, never
pandas objects; the boosting loop turns its binned conditions into
real-valued propositions.
"""

from dataclasses import dataclass, field
from functools import cached_property

import numba
import numpy as np

from . import _multi_output_kernels as multi_kernels
from . import _search_kernels as kernels
from . import _sparse_kernels as sparse_kernels
from ._config import PARALLEL_MIN_WORK
from ._sparse_bins import SparseBins
from .objectives import _objective


@dataclass
class SearchProblem:
    """One boosting round's rule-search problem.

    Attributes
    ----------
    X_binned : ndarray of shape (n_samples, n_features), uint16, F-order
        Or a :class:`~rulebook._sparse_bins.SparseBins` (the codes of a
        sparse matrix's non-zero entries): histograms are then built from
        the extent's stored entries and its totals
        (:mod:`rulebook._sparse_kernels`, BOOMER Section 3.2), for the
        greedy learner; ``X_rows`` is not used.
    n_bins : ndarray of shape (n_features,), int64
        Non-missing bins per feature; the missing bin has this index.
    is_nominal : ndarray of shape (n_features,), bool
    g, h : ndarray of shape (n_samples,), float64
        Gradients and Hessians, already multiplied by the sample weights
        (of shape (n_samples, K) in a :class:`MultiOutputProblem`).
    c : ndarray of shape (n_samples,), float64
        Sample weights (so ``C = sum c`` is the weighted count).
    rows : ndarray of shape (n_active,), intp
        Rows of positive weight, ascending: the root extent.
    reg_lambda : float
    objective : int
        Objective code, see :mod:`rulebook.objectives`.
    max_rule_length : int
        Largest number of conditions; 0 means unlimited.
    allowed : ndarray of shape (n_features, max(n_bins) + 1, 4), bool, or None
        ``allowed[feature, bin, op]`` marks the propositions the optimal
        learner may use (``op`` as in :mod:`rulebook._search_kernels`:
        ``LE, GT, EQ, NE = 0, 1, 2, 3``); None allows all. The greedy and
        optimal learners honour it; it lets them search exactly the
        propositions of another implementation.
    root_update : tuple or None
        ``(previous, changed, dg, dh)``: the previous round's root
        histograms and the rows whose gradient statistics changed since,
        by ``dg``, ``dh`` (arrays of shape (n_samples,), zero elsewhere).
        Set by the boosting loop when the last rule's weight changed only
        the raw scores of its extent (:meth:`root_histograms`).
    X_rows : ndarray of shape (n_samples, n_features), uint16, C-order, or None
        ``X_binned`` row-major, given for tall tables: histograms of under
        a tenth or over a third of the rows are then built from it in one
        serial pass over all features (a row's bins in one cache line): at
        10^6 x 20, 2% of the rows 18 -> 6 ms, all of them 89 -> 44 ms; in
        between the column-major blocks on two threads stay faster
        (``boosting.ROW_MAJOR_MIN_ROWS``). Same sums, to the bit.
    gradient_spread : float >= 0
        What ``sum g_i^2 / c_i`` over ``rows`` leaves out when a row stands
        for several (a Dask fit's atoms: one weighted row at the mean of
        ``y``): the within-atom part, the same in every round. The noise
        level of the optimal learner's ``condition_cost`` adds it
        (:func:`rulebook.pair_search.condition_cost_of`); 0 for rows of
        their own.
    """

    X_binned: np.ndarray
    n_bins: np.ndarray
    is_nominal: np.ndarray
    g: np.ndarray
    h: np.ndarray
    c: np.ndarray
    rows: np.ndarray
    reg_lambda: float
    objective: int
    max_rule_length: int = 0
    allowed: np.ndarray | None = None
    root_update: tuple | None = None
    X_rows: np.ndarray | None = None
    gradient_spread: float = 0.0
    _root_hist: np.ndarray | None = field(default=None, init=False, repr=False)

    @cached_property
    def n_total(self):
        """Total sample weight (``n`` in Boley et al. 2021, eq. 2.3)."""
        return float((self.c if _every_row(self.rows, len(self.c)) else self.c[self.rows]).sum())

    @cached_property
    def allowed_mask(self):
        """``allowed``, or all True when every proposition is allowed."""
        if self.allowed is not None:
            return self.allowed
        return np.ones((self.n_features, int(self.n_bins.max()) + 1, 4), dtype=bool)

    @property
    def n_features(self):
        return self.X_binned.shape[1]

    def dispersion_sums(self):
        """The residuals' dispersion over ``rows``, in two sums.

        Returns
        -------
        squares : float or ndarray of shape (K,)
            ``sum_i g_i^2 / c_i + gradient_spread`` (per output in a
            :class:`MultiOutputProblem`).
        hessian : float or ndarray of shape (K,)
            ``sum_i h_i``.

        Their ratio is the dispersion ``phi`` of the noise level
        (:func:`rulebook.pair_search.condition_cost_of`,
        :func:`rulebook.multi_output_search.condition_cost_of`).
        """
        rows = self.rows
        g, h, c = self.g[rows], self.h[rows], self.c[rows]
        if g.ndim == 2:
            spread = np.broadcast_to(np.asarray(self.gradient_spread, np.float64), g.shape[1:])
            return (g * g / c[:, None]).sum(axis=0) + spread, h.sum(axis=0)
        return float((g * g / c).sum()) + float(self.gradient_spread), float(h.sum())

    def histograms(self, rows):
        """Per-feature ``(G, H, C, N)`` histograms of the extent ``rows``.

        The root extent (``rows is self.rows``) through
        :meth:`root_histograms`.

        Returns
        -------
        ndarray of shape (n_features, max(n_bins) + 1, 4), float64
            A new array (the caller may change it).
        """
        if rows is self.rows:
            return self.root_histograms().copy()
        return self._build(rows, self.g, self.h)

    def root_histograms(self):
        """The root extent's histograms, built once per problem (do not modify).

        With :attr:`root_update`, the previous round's root histograms plus
        those of the changed rows' differences in ``g`` and ``h``: a pass
        over the last rule's extent instead of over every row (the root was
        three quarters of the rows the greedy learner binned into
        histograms). The counts and weights (``C``, ``N``) do not change
        between rounds and are kept as they were. Sums may differ from a
        direct pass by rounding only, as with the subtraction of
        :meth:`child_histograms`.
        """
        if self._root_hist is None:
            if self.root_update is None:
                self._root_hist = self._build(self.rows, self.g, self.h)
            else:
                previous, changed, dg, dh = self.root_update
                hist = previous.copy()
                if len(changed):
                    delta = self._build(changed, dg, dh)
                    gh = self._gradient_channels  # G and H; C and N do not change
                    hist[:, :, gh] += delta[:, :, gh]
                self._root_hist = hist
                self.root_update = None  # the previous round's arrays can go
        return self._root_hist

    # The channels of the gradient and Hessian sums (kernels.G, kernels.H).
    _gradient_channels = slice(0, 2)

    @property
    def built_root_histograms(self):
        """The root histograms if a learner has built them this round, else None (do not modify)."""
        return self._root_hist

    def _build(self, rows, g, h):
        if isinstance(self.X_binned, SparseBins):
            return _sparse_histograms(self, rows, g.reshape(len(g), -1), h.reshape(len(h), -1))
        hist = np.empty((self.n_features, int(self.n_bins.max()) + 1, kernels.N_CHANNELS))
        d = self.n_features
        if self.X_rows is not None and not 10 * len(rows) > len(self.X_rows) > 3 * len(rows):
            kernels.build_histograms_serial(self.X_rows, rows, g, h, self.c, d, hist)
        elif self._parallel(rows):
            # Two blocks of features per thread: fewer reads of the row
            # statistics, the threads still evenly loaded.
            per_pass = max(1, -(-d // (2 * numba.get_num_threads())))
            kernels.build_histograms_parallel(self.X_binned, rows, g, h, self.c, per_pass, hist)
        else:
            kernels.build_histograms_serial(self.X_binned, rows, g, h, self.c, d, hist)
        return hist

    def best_refinements(self, hist, n_rows):
        """Best proposition of every feature for an extent of ``n_rows`` rows.

        Returns
        -------
        value : ndarray of shape (n_features,), float64 (-inf: none)
        op, bin : ndarray of shape (n_features,), int64
        """
        d = self.n_features
        value, op, bin_ = np.empty(d), np.empty(d, np.int64), np.empty(d, np.int64)
        scan = kernels.scan_histograms_parallel if d * hist.shape[1] >= PARALLEL_MIN_WORK else kernels.scan_histograms_serial
        scan(hist, self.n_bins, self.is_nominal, self.allowed_mask, self.objective, self.n_total,
             float(self.reg_lambda), float(n_rows), value, op, bin_)
        return value, op, bin_

    def refine(self, rows, condition):
        """Rows of ``rows`` satisfying the binned ``(feature, op, bin)``."""
        if isinstance(self.X_binned, SparseBins):
            return self.split(rows, condition)[0]
        feature, op, bin_index = condition
        out = np.empty_like(rows)
        count = kernels.filter_rows(self.X_binned, rows, feature, op, bin_index,
                                    int(self.n_bins[feature]), out)
        return out[:count]

    def split(self, rows, condition):
        """``(kept, removed)``: rows of ``rows`` satisfying the condition or not."""
        feature, op, bin_index = condition
        kept, removed = np.empty_like(rows), np.empty_like(rows)
        X = self.X_binned
        if isinstance(X, SparseBins):
            n_kept = sparse_kernels.split_rows_sparse(
                X.indptr, X.columns, X.codes, X.zero_bin, rows, feature, op, bin_index,
                int(self.n_bins[feature]), kept, removed)
        else:
            n_kept = kernels.split_rows(X, rows, feature, op, bin_index,
                                        int(self.n_bins[feature]), kept, removed)
        return kept[:n_kept], removed[:len(rows) - n_kept]

    def child_histograms(self, parent_hist, kept, removed):
        """Histograms of ``kept`` given those of ``kept`` + ``removed``.

        Builds the smaller side and subtracts when that is cheaper (the
        histogram subtraction trick of LightGBM and scikit-learn). Counts
        stay exact; sums of gradients may differ from a direct pass by
        rounding only.
        """
        if len(removed) < len(kept):
            return parent_hist - self.histograms(removed)
        return self.histograms(kept)

    def reuse_memory(self, previous):
        """Let this problem build its histograms in the memory of
        ``previous`` (the last round's problem, which the caller drops and
        no longer reads). Not needed: a problem may ignore it."""

    def search_histograms(self, rows):
        """``(hist, owned)``: the histograms of ``rows`` for a search that
        refines them with :meth:`refined_histograms`.

        The root extent's are :meth:`root_histograms` themselves, not a copy
        (``owned`` False: not to be modified); any other extent's are new.
        A subclass with its own :meth:`child_histograms` (the Dask problem)
        gets :meth:`histograms`.
        """
        if rows is self.rows and self._own_children():
            return self.root_histograms(), False
        return self.histograms(rows), True

    def refined_histograms(self, parent_hist, kept, removed, owned, features=None):
        """:meth:`child_histograms`, in memory already allocated.

        With ``owned``, ``parent_hist`` is the caller's to give up and the
        children overwrite it; else the difference goes into the removed
        side's new histograms. Either way the same numbers as
        :meth:`child_histograms` (the same subtraction, element by
        element), without a new array a step (a histogram of 255 bins, 103
        features and 14 outputs is 6 MB).

        ``features`` (ascending feature indices, optional): only these
        features' histograms are needed from here on (a query at its length
        limit refines only the columns it uses); a problem may then leave
        the others' as they were, or anything, and its next
        :meth:`best_refinements` of them -inf.
        """
        if not self._own_children() or len(removed) >= len(kept):
            return self.child_histograms(parent_hist, kept, removed)
        built = self.histograms(removed)
        return np.subtract(parent_hist, built, out=parent_hist if owned else built)

    def _own_children(self):
        # SearchProblem's child_histograms, not a subclass's (the Dask problem's).
        return type(self).child_histograms is SearchProblem.child_histograms

    def extent_value(self, rows):
        """Objective value of the extent ``rows`` (:mod:`rulebook.objectives`)."""
        G, H, C = self.sums(rows)
        return _objective(self.objective, G, H, C, self.n_total, float(self.reg_lambda))

    def sums(self, rows):
        """``(G, H, C)`` over the extent ``rows``."""
        if _every_row(rows, len(self.g)):  # the arrays themselves: no copies, the same sums
            return float(self.g.sum()), float(self.h.sum()), float(self.c.sum())
        return float(self.g[rows].sum()), float(self.h[rows].sum()), float(self.c[rows].sum())

    def _parallel(self, rows):
        return len(rows) * self.n_features >= PARALLEL_MIN_WORK


@dataclass
class MultiOutputProblem(SearchProblem):
    """A round's problem with several outputs, for rules with a complete or a single-output head.

    As :class:`SearchProblem`, but ``g`` and ``h`` have shape
    (n_samples, K), C-order: one gradient and Hessian per output (per class
    of the multinomial loss). A query is scored for a *complete head*, one
    weight per output: its objective is the sum over outputs of the
    second-order objective (:func:`rulebook.objectives._objective_complete`),
    the only objective supported with several outputs. Histograms have
    ``2 K + 2`` channels (:mod:`rulebook._multi_output_kernels`), the row
    count last.

    With ``single_head=True`` a query is scored for a *single-output head*
    (a weight for one output only): its objective is the maximum over
    outputs of the second-order objective
    (:func:`rulebook._multi_output_kernels.objective_single`), BOOMER's
    single-label head.

    References
    ----------
    .. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Sections 2.4.2 (heads
       from the summed statistics of a decomposable loss) and 4.3-4.4
       (histograms, evaluation of refinements).
    """

    single_head: bool = False
    # (hist, n_rows, (value, op, bin)): the scan of the histograms a fused
    # kernel just made, for the next best_refinements (see _scan_arguments).
    _scored: tuple | None = field(default=None, init=False, repr=False)
    # The last round's root histograms, to build this round's into (reuse_memory).
    _spare: np.ndarray | None = field(default=None, init=False, repr=False)
    # The histograms the last refinement wrote (refined_histograms), and the
    # last round's, to write the first refinement's into (reuse_memory).
    _child: np.ndarray | None = field(default=None, init=False, repr=False)
    _spare_child: np.ndarray | None = field(default=None, init=False, repr=False)
    # The rows' statistics the spare was built from (reuse_memory).
    _previous_statistics: np.ndarray | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.objective != 2:
            raise ValueError("rules for several outputs support objective='second_order' only.")

    @property
    def n_outputs(self):
        return self.g.shape[1]

    @property
    def _gradient_channels(self):
        return slice(0, 2 * self.n_outputs)

    def _build(self, rows, g, h):
        if isinstance(self.X_binned, SparseBins):
            if g is self.g and h is self.h:
                return self._sparse_build(rows)
            return _sparse_histograms(self, rows, g, h)
        hist = np.empty((self.n_features, int(self.n_bins.max()) + 1,
                         multi_kernels.n_channels(self.n_outputs)))
        if g is self.g and h is self.h and self._fused():
            return self._build_fused(rows, hist, True)
        d = self.n_features
        # Blocks of features whose histograms fit in about 256 KB (a core's
        # L2): with 2 K + 2 channels of 255 bins a feature's histogram is
        # 4 K KB, and a pass over the rows for all features at once (as the
        # single-output build does with its 4 channels) misses the cache at
        # every row and feature: 30 -> 14 ms at 1,611 rows x 103 features x
        # 14 outputs. Sums are in row order in any block, so the same bits.
        per_pass = max(1, min(d, _BLOCK_FLOATS // (hist.shape[1] * hist.shape[2])))
        if self.X_rows is not None and not 10 * len(rows) > len(self.X_rows) > 3 * len(rows):
            multi_kernels.build_histograms_multi_serial(self.X_rows, rows, g, h, self.c, per_pass,
                                                        hist)
        elif self._parallel(rows):
            per_pass = min(per_pass, max(1, -(-d // (2 * numba.get_num_threads()))))
            multi_kernels.build_histograms_multi_parallel(self.X_binned, rows, g, h, self.c,
                                                          per_pass, hist)
        else:
            multi_kernels.build_histograms_multi_serial(self.X_binned, rows, g, h, self.c,
                                                        per_pass, hist)
        return hist

    @cached_property
    def _row_statistics(self):
        return multi_kernels.row_statistics(self.g, self.h, self.c)

    def _fused(self):
        # Column-major dense bins and SearchProblem's children: histograms
        # from the rows' channels side by side (_multi_output_kernels.
        # _build_from_statistics, _subtract_rows).
        return (isinstance(self.X_binned, np.ndarray) and self.X_rows is None
                and self._own_children())

    def _features_per_pass(self, shape, rows):
        # See _build: blocks of features in a core's L2; more blocks than
        # threads when parallel.
        d = self.n_features
        per_pass = max(1, min(d, _BLOCK_FLOATS // (shape[1] * shape[2])))
        if self._parallel(rows):
            per_pass = min(per_pass, max(1, -(-d // (2 * numba.get_num_threads()))))
        return per_pass

    def _build_fused(self, rows, hist, clear_padding, scan=False, features=None):
        kernel = (multi_kernels.build_from_statistics_parallel if self._parallel(rows)
                  else multi_kernels.build_from_statistics_serial)
        kernel(self.X_binned, rows, self._row_statistics, self.n_bins,
               self._listed(features), self._features_per_pass(hist.shape, rows), clear_padding,
               hist, *self._scan_arguments(hist, rows, scan))
        return hist

    def _listed(self, features):
        # The kernels' list of features: all of them unless given.
        if features is None:
            return self._every_feature
        return np.asarray(features, np.int64)

    @cached_property
    def _every_feature(self):
        return np.arange(self.n_features, dtype=np.int64)

    def _scan_arguments(self, hist, rows, scan):
        # The fused kernels' scan of the new histograms (of the extent
        # ``rows``), kept for the best_refinements call that follows; -inf
        # for features not scanned.
        d = self.n_features
        out = np.full(d, -np.inf), np.full(d, -1, np.int64), np.full(d, -1, np.int64)
        if scan:
            self._scored = (hist, len(rows), out)
        return (scan, self.is_nominal, self.allowed_mask, self.n_total, float(self.reg_lambda),
                float(len(rows)), bool(self.single_head), *out)

    def search_histograms(self, rows):
        """:meth:`SearchProblem.search_histograms`; the root's histograms
        built (on dense bins) with the scan of the first step."""
        if rows is self.rows and self._root_hist is None and self.root_update is None \
                and self._fused():
            shape = (self.n_features, int(self.n_bins.max()) + 1,
                     multi_kernels.n_channels(self.n_outputs))
            spare, self._spare = self._spare, None
            # The last round's root: zero after each feature's bins, as the
            # kernel leaves them (a wide table's padding not written again).
            hist = spare if spare is not None and spare.shape == shape else np.empty(shape)
            changed = self._changed_channels() if hist is spare else None
            if changed is not None:
                self._root_hist = self._rebuild_fused(rows, hist, changed)
            else:
                self._root_hist = self._build_fused(rows, hist, hist is not spare, scan=True)
        self._previous_statistics = None
        return super().search_histograms(rows)

    def _changed_channels(self):
        # The channels whose rows' statistics differ from those the last
        # round's root histograms (the spare) were built from, if at most
        # half of them: a single-output head changes one output's under a
        # loss of independent outputs (the sums of the others are already
        # there, to the bit). None: build every channel.
        previous = self._previous_statistics
        current = self._row_statistics
        if previous is None or previous.shape != current.shape:
            return None
        changed = np.flatnonzero((current != previous).any(axis=0))
        return changed.astype(np.int64) if 2 * len(changed) <= current.shape[1] else None

    def _rebuild_fused(self, rows, hist, channels):
        # _build_fused of the root for the channels listed only (see
        # _multi_output_kernels._rebuild_channels), scanned.
        kernel = (multi_kernels.rebuild_channels_parallel if self._parallel(rows)
                  else multi_kernels.rebuild_channels_serial)
        kernel(self.X_binned, rows, self._row_statistics, self.n_bins, self._every_feature,
               self._features_per_pass(hist.shape, rows), channels, hist,
               *self._scan_arguments(hist, rows, True))
        return hist

    def reuse_memory(self, previous):
        """The root histograms are built into ``previous``'s (see
        :meth:`SearchProblem.reuse_memory`), on dense bins; the channels of
        outputs whose statistics did not change are kept."""
        if isinstance(previous, MultiOutputProblem) and self._fused():
            self._spare, self._spare_child = previous._root_hist, previous._child
            if previous._root_hist is not None and previous.rows is self.rows:
                # Its root histograms are those of these rows and statistics.
                self._previous_statistics = previous.__dict__.get("_row_statistics")

    def _sparse_build(self, rows, features=None, hist=None):
        # Histograms from sparse codes, the rows' channels side by side: all
        # features, or only those listed (their entries found per row).
        X = self.X_binned
        if hist is None:
            hist = np.empty((self.n_features, int(self.n_bins.max()) + 1,
                             multi_kernels.n_channels(self.n_outputs)))
        sparse_kernels.build_sparse_from_statistics(
            X.indptr, X.columns, X.codes, X.zero_bin, self.n_bins, rows, self._row_statistics,
            self._listed(features), features is None, hist)
        return hist

    def _sparse_refined(self, parent_hist, kept, removed, owned, features):
        # refined_histograms of sparse codes for a few features: theirs
        # built or subtracted (the same numbers as for all features), then
        # scanned, kept for the next best_refinements.
        features = np.asarray(features, np.int64)
        out = parent_hist if owned else np.empty_like(parent_hist)
        if len(removed) < len(kept):
            built = self._sparse_build(removed, features)
            out[features] = parent_hist[features] - built[features]
        else:
            self._sparse_build(kept, features, out)
        d = self.n_features
        value = np.full(d, -np.inf)
        op, bin_ = np.full(d, -1, np.int64), np.full(d, -1, np.int64)
        some = (np.empty(len(features)), np.empty(len(features), np.int64),
                np.empty(len(features), np.int64))
        multi_kernels.scan_histograms_multi_serial(
            np.ascontiguousarray(out[features]), self.n_bins[features], self.is_nominal[features],
            np.ascontiguousarray(self.allowed_mask[features]), self.n_total,
            float(self.reg_lambda), float(len(kept)), bool(self.single_head), *some)
        value[features], op[features], bin_[features] = some
        self._scored = (out, len(kept), (value, op, bin_))
        return out

    def refined_histograms(self, parent_hist, kept, removed, owned, features=None):
        """:meth:`SearchProblem.refined_histograms`; on dense bins the rows
        of the smaller side are summed a block of features at a time and
        subtracted at once (the same numbers), or built into the parent's
        memory, for the ``features`` given only (on sparse codes too)."""
        if (features is not None and isinstance(self.X_binned, SparseBins)
                and self._own_children()):
            return self._sparse_refined(parent_hist, kept, removed, owned, features)
        if not self._fused():
            return super().refined_histograms(parent_hist, kept, removed, owned, features)
        if owned:
            out, fresh = parent_hist, False
        else:
            # The last round's search's memory if handed over (reuse_memory):
            # zero after each feature's bins, as the kernels leave them.
            spare, self._spare_child = self._spare_child, None
            fresh = spare is None or spare.shape != parent_hist.shape
            out = np.empty_like(parent_hist) if fresh else spare
        self._child = out
        if len(removed) < len(kept):
            kernel = (multi_kernels.subtract_rows_parallel if self._parallel(removed)
                      else multi_kernels.subtract_rows_serial)
            kernel(self.X_binned, removed, self._row_statistics, self.n_bins,
                   self._listed(features), self._features_per_pass(parent_hist.shape, removed),
                   fresh, parent_hist, out, *self._scan_arguments(out, kept, True))
            return out
        return self._build_fused(kept, out, fresh, True, features)

    def best_refinements(self, hist, n_rows):
        """Best proposition of every feature for a complete head; see
        :meth:`SearchProblem.best_refinements`."""
        scored, self._scored = self._scored, None
        if scored is not None and scored[0] is hist and scored[1] == n_rows:
            # Scanned by the kernel that made hist (refined_histograms,
            # search_histograms): the greedy search's next call, once.
            return scored[2]
        d = self.n_features
        value, op, bin_ = np.empty(d), np.empty(d, np.int64), np.empty(d, np.int64)
        parallel = d * hist.shape[1] >= PARALLEL_MIN_WORK
        scan = (multi_kernels.scan_histograms_multi_parallel if parallel
                else multi_kernels.scan_histograms_multi_serial)
        scan(hist, self.n_bins, self.is_nominal, self.allowed_mask, self.n_total,
             float(self.reg_lambda), float(n_rows), bool(self.single_head), value, op, bin_)
        return value, op, bin_

    def sums(self, rows):
        """``(G, H, C)`` over the extent ``rows``: ``G``, ``H`` of shape (K,)."""
        if _every_row(rows, len(self.g)):
            return self.g.sum(axis=0), self.h.sum(axis=0), float(self.c.sum())
        return self.g[rows].sum(axis=0), self.h[rows].sum(axis=0), float(self.c[rows].sum())

    def extent_value(self, rows):
        """The head's objective of the extent ``rows``."""
        G, H, C = self.sums(rows)
        stats = np.concatenate([G, H, [C, float(len(rows))]])
        return multi_kernels.head_objective(stats, self.n_outputs, self.n_total,
                                            float(self.reg_lambda), bool(self.single_head))


def _sparse_histograms(problem, rows, g, h):
    """Histograms of ``rows`` from sparse codes: ``g``, ``h`` of shape (n, K), K >= 1.

    One serial pass over the rows' stored entries (the zero bins from the
    totals); the channels of :mod:`rulebook._multi_output_kernels`, which
    for ``K = 1`` are the single-output ``G, H, C, N``.
    """
    X = problem.X_binned
    hist = np.empty((problem.n_features, int(problem.n_bins.max()) + 1,
                     multi_kernels.n_channels(g.shape[1])))
    sparse_kernels.build_histograms_sparse(X.indptr, X.columns, X.codes, X.zero_bin,
                                           problem.n_bins, rows, np.ascontiguousarray(g),
                                           np.ascontiguousarray(h), problem.c, hist)
    return hist


# float64 values of one block of features' histograms (256 KB): see
# MultiOutputProblem._build.
_BLOCK_FLOATS = 32_768


def _every_row(rows, n):
    """Whether ascending ``rows`` are ``0..n-1``: all of them, in order."""
    return len(rows) == n and (n == 0 or (rows[0] == 0 and rows[-1] == n - 1))


@dataclass
class SearchResult:
    """A learner's chosen query, in binned terms.

    Attributes
    ----------
    conditions : tuple of (int, int, int)
        ``(feature, op, bin)`` triples; empty means the query ``True``.
    value : float
        Objective value of the query.
    rows : ndarray of int
        The query's extent (training rows of positive weight it covers).
    stats : dict
        Learner-specific search statistics, recorded in ``history_``.
    """

    conditions: tuple
    value: float
    rows: np.ndarray
    stats: dict = field(default_factory=dict)


class LearnerRounds:
    """A base learner's searches over the rounds of one fit.

    This is the boosting loop's whole view of a learner: each round it
    calls :meth:`search` with the round's problem and, once the rule is in
    the model, :meth:`added` with the rule's extent; its stopping test reads
    :meth:`progress`. This default serves learners without per-fit state
    (each round ``learner.search(problem)``). A learner with state has a
    method ``start_rounds(sample_weight, n_rules, base_columns)`` returning
    its own object with these three methods: the orthogonal learner keeps
    the orthonormal basis of the selected queries (and of the fixed base
    terms) there (:class:`rulebook.orthogonal.OrthogonalRounds`). Learners
    return shortened queries themselves (:mod:`rulebook.shortening`).

    Parameters
    ----------
    learner : object with a method ``search(problem) -> SearchResult``
    """

    def __init__(self, learner):
        self.learner = learner

    def search(self, problem):
        """The round's query; see :class:`SearchProblem` and :class:`SearchResult`."""
        return self.learner.search(problem)

    def added(self, rows):
        """The rule of the last search is in the model (``rows``: its extent)."""

    def progress(self, problem, result):
        """How far the rule moves the model: ``|sum of g over its extent|``
        (with several outputs, summed over them).

        The loop stops when this is negligible against ``sum |g|`` (the
        gradient has no component the rule can follow).
        """
        # Several outputs: the sum of the outputs' |G_k| (for the multinomial
        # loss the gradients of a row sum to 0 over the classes).
        G = problem.g[result.rows].sum(axis=0)
        return float(np.abs(G).sum()) if G.ndim else abs(float(G))


def start_rounds(learner, sample_weight, n_rules, base_columns=None):
    """The :class:`LearnerRounds` of ``learner`` for a fit.

    Parameters
    ----------
    learner : object
        A base learner; its ``start_rounds(sample_weight, n_rules,
        base_columns)`` is used when it has one.
    sample_weight : ndarray of shape (n_samples,), float64
    n_rules : int
        Rounds the fit will run at most.
    base_columns : ndarray of shape (n_samples, p), float64, optional
        The fixed base terms of the model (linear terms) at unit weight. A
        learner without state does not need them: the gradients it searches
        already hold their fit.

    Returns
    -------
    LearnerRounds or the learner's own equivalent
    """
    start = getattr(learner, "start_rounds", None)
    return LearnerRounds(learner) if start is None else start(sample_weight, n_rules, base_columns)
