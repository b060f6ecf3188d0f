"""Orthogonal gradient boosting: basis, objective and rule searches.

Corrective orthogonal boosting (COB, Yang et al. 2024, Algorithm 1) re-fits
all rule weights after each rule (:mod:`rulebook.corrective`) and chooses
the next query by the orthogonal gradient boosting objective (eq. 14)

    obj_ogb(q) = |g_perp^T q| / (||q_perp|| + epsilon),

the angle between the gradient and the part of the query vector orthogonal
to the queries already selected (and the intercept). Proposition 1: for
``epsilon -> 0`` its maximiser gives the best approximation to the ideal
corrective gradient step. By default (``OrthogonalLearner(ridge=
"reg_lambda")``, our extension) the denominator is ``sqrt(||q_perp||^2 +
reg_lambda / kappa) + epsilon``, the risk reduction of the corrective step
the ridge-penalised re-fit actually takes (:func:`ridge_term`).

This module holds

* :class:`OrthogonalBasis`: an orthonormal basis of the selected query
  vectors, grown by Gram-Schmidt with re-orthogonalisation (Section 3.3);
* :class:`ChannelProblem`: a :class:`~rulebook.search.SearchProblem` with
  the per-row channels that score every proposition of a node in one
  histogram pass (:mod:`rulebook._orthogonal_kernels`, Proposition 3);
* the searches: greedy, beam (width ``w``) and branch-and-bound with the
  paper's prefix-greedy bound (Algorithm 2), and
  :class:`OrthogonalLearner`, the base learner of ``learner="orthogonal"``.

Sample weights enter as the inner product ``<u, v> = sum_i s_i u_i v_i``;
with unit weights every formula is the paper's.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.2 (Proposition 1, eq. 13-14), Section 3.3 (Proposition 3,
   Algorithms 1-3), Appendix B (the prefix-greedy bound is a heuristic).
.. [2] Giraud, L., Langou, J., Rozloznik, M. (2005). The loss of
   orthogonality in the Gram-Schmidt orthogonalization process. Computers
   & Mathematics with Applications 50, 1069-1075 ("twice is enough").
.. [3] Khuller, S., Moss, A., Naor, J. (1999). The budgeted maximum
   coverage problem. Information Processing Letters 70(1), 39-45 (gain per
   unit cost: :func:`length_factors`).
"""

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from . import _orthogonal_bnb_kernels as bnb_kernels
from . import _orthogonal_kernels as kernels
from . import greedy
from ._config import PARALLEL_MIN_WORK
from ._precompile import prepare as prepare_kernels
from .objectives import OBJECTIVES
from .orthogonal_outputs import OutputChannelProblem, output_branch_and_bound
from .search import LearnerRounds, MultiOutputProblem, SearchResult, _every_row
from .shortening import shortened

SEARCHES = ("greedy", "beam", "branch_and_bound")
# A round whose orthogonal objective is this small relative to sum |g|
# falls back to the gradient-boosting objective (OrthogonalRounds); the
# boosting loop's own stopping tolerance.
_FALLBACK_TOLERANCE = 1e-12
# Orthogonal objective values equal up to rounding are ties: a query and its
# complement always tie once the intercept is in the basis (q_perp = -(1 -
# q)_perp), and which one wins must not depend on the order of summation
# (weighted rows vs repeated rows, row order). Values are therefore rounded
# to this many digits relative to sum |g_perp|; ties then go to the first
# proposition in the kernels' order.
_TIE_DIGITS = 12
BOUNDS = ("prefix_greedy", "none")
LENGTH_PENALTIES = ("none", "complexity")
RIDGES = ("none", "reg_lambda")
# Length factors tabulated for this many conditions; longer queries share
# the last (the factor is non-increasing, so the bound stays valid).
_MAX_TABULATED_LENGTH = 64


def length_factors(length_penalty):
    """Factor ``f(c)`` by which a query of ``c`` conditions is scored.

    ``"none"``: 1. ``"complexity"``: ``1 / sqrt(1 + c)``, so that the
    searches maximise ``obj_ogb^2 / (1 + c)``: the squared objective is the
    risk reduction of the ideal corrective step (Yang et al. 2024,
    Proposition 1, ``epsilon -> 0``), ``1 + c`` the complexity the rule
    adds (Section 2: rules plus conditions), so each round takes the rule
    with the largest estimated risk reduction per unit of complexity, the
    cost-effective greedy choice for a budgeted objective (Khuller, Moss
    and Naor 1999).

    Parameters
    ----------
    length_penalty : {"none", "complexity"}

    Returns
    -------
    ndarray of shape (65,), float64
        Entry ``c``: the factor of ``c`` conditions (the last entry for
        more); positive and non-increasing.
    """
    c = np.arange(_MAX_TABULATED_LENGTH + 1, dtype=np.float64)
    if length_penalty == "none":
        return np.ones_like(c)
    return 1.0 / np.sqrt(1.0 + c)


def ridge_term(reg_lambda, h, c):
    """The ridge term of the regularised orthogonal objective (our extension).

    Eq. 14 scores a query by ``|g_perp^T q| / (||q_perp|| + epsilon)``,
    whose maximiser gives, for ``epsilon -> 0``, the ideal corrective step
    (Proposition 1): the risk reduction of adding ``q`` and re-fitting all
    weights *without* a penalty. The corrective re-fit here is
    ridge-regularised (``rulebook.corrective``: ``reg_lambda / 2 ||w||^2``),
    so a query's actual reduction is smaller, by most for queries of small
    ``||q_perp||``. To second order, with the Hessian ``diag(h)`` replaced
    by ``kappa diag(s)``, ``kappa = sum h / sum s`` its mean per unit of
    sample weight (exact for the squared loss, ``h = 2 s``): adding ``q``
    with weight ``beta`` and re-fitting the selected weights (unpenalised
    step, as in Proposition 1) changes the risk by

        min_a <d, q beta + O a> + kappa/2 ||q beta + O a||^2 + reg_lambda/2 beta^2

    for ``d = g / s``, inner products in ``s``. ``O a`` takes the part of
    the step in the span of the selected queries, which does not depend on
    ``beta``; what is left is ``beta g_perp^T q + (kappa ||q_perp||^2 +
    reg_lambda) beta^2 / 2`` (``<d_perp, q_perp> = g_perp^T q``), whose
    minimum is the reduction

        (g_perp^T q)^2 / (2 kappa (||q_perp||^2 + reg_lambda / kappa)),

    as XGBoost's ``G^2 / (H + lambda)`` is for the plain step. So the
    query of the largest reduction maximises ``|g_perp^T q| /
    sqrt(||q_perp||^2 + ridge)`` with ``ridge = reg_lambda / kappa``, in
    the units of ``||q_perp||^2`` (sample weight). For ``reg_lambda -> 0``
    it is eq. 14 at ``epsilon -> 0``; ``epsilon`` keeps its role (the
    kernels score ``|g_perp^T q| / (sqrt(||q_perp||^2 + ridge) +
    epsilon)``), although the ridge alone already keeps the denominator
    from 0. The earlier weights' penalty is left out (held fixed), as
    for the step of one rule.

    Parameters
    ----------
    reg_lambda : float >= 0
    h : ndarray of shape (m,) or (m, K), float64
        The weighted Hessian of the rows searched (``K`` outputs: ``kappa``
        is their mean, one ridge for the rule's shared query).
    c : ndarray of shape (m,), float64
        Their sample weights.

    Returns
    -------
    float
        ``reg_lambda / kappa``; 0 when ``reg_lambda`` is 0 or the rows
        carry no weight or Hessian (then the quadratic model has no
        curvature to compare the penalty with; eq. 14 is scored).

    References
    ----------
    .. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
       gradient boosting for simpler additive rule ensembles. AISTATS.
       Section 3.2 (Proposition 1, eq. 13-14).
    .. [2] Chen, T., Guestrin, C. (2016). XGBoost: A scalable tree boosting
       system. KDD. Eq. 6 (the regularised gain ``G^2 / (H + lambda)``).
    """
    h = np.asarray(h, dtype=np.float64)
    n_outputs = 1 if h.ndim == 1 else h.shape[1]
    h_sum, c_sum = float(h.sum()), float(np.sum(c)) * n_outputs
    if not (reg_lambda > 0 and h_sum > 0 and c_sum > 0 and np.isfinite(h_sum)):
        return 0.0
    return float(reg_lambda) * c_sum / h_sum


class OrthogonalBasis:
    """Orthonormal basis ``O`` of the intercept and the selected query vectors.

    Orthonormal in ``<u, v> = sum_i s_i u_i v_i``: ``O^T diag(s) O = I``.
    Each added query vector is orthogonalised twice by classical
    Gram-Schmidt (CGS2), which keeps ``||O^T diag(s) O - I||`` at rounding
    level where one pass loses orthogonality as ``kappa^2 u`` [2].

    Parameters
    ----------
    sample_weight : ndarray of shape (n,), float64
    capacity : int
        Most query vectors that will be added (the basis is preallocated).
    intercept : bool, default=True
        Start with the intercept's direction ``1``; ``False`` for ensembles
        without a background rule (the paper's Fig. 2).
    """

    def __init__(self, sample_weight, capacity, intercept=True):
        self.sample_weight = np.asarray(sample_weight, dtype=np.float64)
        n = len(self.sample_weight)
        # F-order: the slices O[:, :size] used in every product are contiguous.
        self._O = np.zeros((n, capacity + 1), order="F")
        self.size = 0
        if intercept:
            self.add(np.ones(n))

    @property
    def O(self):
        """The basis, shape (n, size): intercept direction first."""
        return self._O[:, :self.size]

    def add(self, q):
        """Add query vector ``q`` (shape (n,)); return ``||q_perp||``.

        A vector in the span of the basis (``||q_perp||`` below
        ``kernels.REDUNDANT`` relative to ``||q||``) is not added.
        """
        s = self.sample_weight
        v = np.asarray(q, dtype=np.float64).copy()
        norm_q = np.sqrt(s @ (v * v))
        for _ in range(2):
            O = self.O
            v -= O @ (O.T @ (s * v))
        norm = float(np.sqrt(s @ (v * v)))
        if norm * norm > kernels.REDUNDANT * norm_q * norm_q:
            if self.size == self._O.shape[1]:
                self._O = np.asfortranarray(np.hstack([self._O, np.zeros_like(self._O)]))
            self._O[:, self.size] = v / norm
            self.size += 1
        return norm

    def project(self, g):
        """Weighted gradient ``g = s d`` to ``s d_perp`` (Algorithm 2, line 1).

        ``d_perp = d - O O^T diag(s) d`` and ``O^T diag(s) d = O^T g``.
        """
        return g - self.sample_weight * (self.O @ (self.O.T @ g))


@dataclass
class ChannelProblem:
    """A search problem scored through channel histograms.

    Attributes
    ----------
    base : SearchProblem
    W : ndarray of shape (n, 4 + K), float64, C-order
        Channels ``[G, H, C, N, U_1..U_K]`` (see
        :mod:`rulebook._orthogonal_kernels`).
    code : int
        Objective code: 0-2 as in :mod:`rulebook.objectives`, 3 orthogonal.
    epsilon : float
    ridge : float
        The ridge term of the orthogonal objective (:func:`ridge_term`);
        0: eq. 14.
    """

    base: object
    W: np.ndarray
    code: int
    epsilon: float = 0.0
    # True: searched once (the boosting loop's problems), so branch_and_bound
    # may drop W once its atoms are built (at 10^6 rows, 100 MB less while
    # the search runs).
    transient: bool = False
    ridge: float = 0.0

    @classmethod
    def standard(cls, problem):
        """Channels for the objectives of :mod:`rulebook.objectives`."""
        W = np.column_stack([problem.g, problem.h, problem.c, np.ones(len(problem.g))])
        return cls(problem, np.ascontiguousarray(W), int(problem.objective))

    @classmethod
    def orthogonal(cls, problem, basis, epsilon, ridge=0.0):
        """Channels for ``obj_ogb`` (eq. 14; with ``ridge > 0`` its
        regularised form, :func:`ridge_term`) given the current basis."""
        c = problem.c
        # Written in place: column_stack of the parts took three times the
        # channels' memory at once (hundreds of MB at 10^6 rows).
        W = np.empty((len(c), kernels.FIRST_BASIS_CHANNEL + basis.size))
        W[:, kernels.G] = basis.project(problem.g)
        W[:, kernels.H] = problem.h
        W[:, kernels.C] = c
        W[:, kernels.N] = 1.0
        np.multiply(c[:, None], basis.O, out=W[:, kernels.FIRST_BASIS_CHANNEL:])
        return cls(problem, W, kernels.ORTHOGONAL, float(epsilon), ridge=float(ridge))

    @cached_property
    def _scale(self):
        return float(np.abs(self.W[self.base.rows, kernels.G]).sum()) or 1.0

    def _snap(self, values):
        if self.code != kernels.ORTHOGONAL:
            return values  # exact sums; ties already broken by the order
        return np.round(values / self._scale, _TIE_DIGITS) * self._scale

    def value(self, rows):
        """Objective value of the extent ``rows``."""
        # All rows: W itself, not a copy of it (the same sums, in the same order).
        W = self.W if _every_row(rows, len(self.W)) else self.W[rows]
        return float(self._snap(kernels._value(self.code, W.sum(axis=0),
                                               self.base.n_total, float(self.base.reg_lambda),
                                               self.epsilon, self.ridge)))

    def histograms(self, rows):
        """Channel histograms, shape (n_features, max(n_bins) + 1, 4 + K)."""
        X = self.base.X_binned
        hist = np.empty((X.shape[1], int(self.base.n_bins.max()) + 1, self.W.shape[1]))
        parallel = len(rows) * X.shape[1] * self.W.shape[1] >= PARALLEL_MIN_WORK
        build = (kernels.build_channel_histograms_parallel if parallel
                 else kernels.build_channel_histograms_serial)
        build(X, rows, self.W, 0, hist)
        return hist

    def child_histograms(self, parent_hist, kept, removed):
        """Histograms of ``kept``, by subtraction when ``removed`` is smaller."""
        if len(removed) < len(kept):
            return parent_hist - self.histograms(removed)
        return self.histograms(kept)

    def values(self, hist, n_rows):
        """Objective of every proposition, shape (n_features, 2 * n_bins_max + 2).

        Entry ``[j, p]`` belongs to feature ``j``'s ``p``-th proposition in
        the greedy kernels' order (:func:`condition`); ``-inf``: none, or
        not a strict non-empty sub-extent of ``n_rows`` rows.
        """
        d, width, _ = hist.shape
        out = np.empty((d, 2 * width))
        parallel = d * width * hist.shape[2] >= PARALLEL_MIN_WORK
        scan = kernels.scan_all_parallel if parallel else kernels.scan_all_serial
        scan(hist, self.base.n_bins, self.base.is_nominal, 0, self.code, self.base.n_total,
             float(self.base.reg_lambda), self.epsilon, self.ridge, float(n_rows), out)
        return self._snap(out)

    def condition(self, j, p):
        """Binned ``(feature, op, bin)`` of entry ``[j, p]`` of :meth:`values`."""
        op, bin_ = kernels.decode(int(p), int(self.base.n_bins[j]), bool(self.base.is_nominal[j]))
        return int(j), int(op), int(bin_)

    def prefix_bound(self, rows, order):
        """Prefix-greedy bound (Algorithm 2): best prefix of ``rows`` in
        ``order`` (rows sorted by the projected gradient) and its reverse.

        A heuristic, not an upper bound of ``obj_ogb`` (Appendix B).
        """
        mask = np.zeros(len(self.W), bool)
        mask[rows] = True
        sigma = order[mask[order]]
        if len(sigma) == 0:
            return 0.0
        out = np.empty(len(sigma))
        kernels.prefix_values(self.W, sigma, self.epsilon, self.ridge, out)
        best = out.max()
        kernels.prefix_values(self.W, sigma[::-1].copy(), self.epsilon, self.ridge, out)
        return float(self._snap(max(best, out.max())))


@dataclass
class _Node:
    conditions: tuple
    rows: np.ndarray
    value: float
    hist: np.ndarray = None
    # Until the node is expanded: its parent's histograms and the rows the
    # last condition removed, so histograms are built only for expanded
    # nodes (most children of a branch-and-bound node never are).
    parent_hist: np.ndarray = None
    removed: np.ndarray = None
    # value x the length factor of its conditions (beam_search).
    score: float = None

    def histograms(self, problem):
        if self.hist is None:
            self.hist = problem.child_histograms(self.parent_hist, self.rows, self.removed)
            self.parent_hist = self.removed = None
        return self.hist


def _key(rows):
    return len(rows), hash(rows.tobytes())


def _only_features(values, features):
    """``values`` (features first) with every other feature's entries -inf."""
    out = np.full_like(values, -np.inf)
    out[features] = values[features]
    return out


def _depth_limit(problem):
    return problem.base.max_rule_length or np.inf


def beam_search(problem, width=1, length_factor=None):
    """Beam search (Algorithm 2 with a finite queue limit ``w``).

    Each level keeps the ``width`` best refinements, over all nodes of the
    previous level, that strictly improve on their parent's value and whose
    extents are distinct. With ``length_factor`` the values compared are
    scores, ``value * length_factor[c]`` for a query of ``c`` conditions
    (columns), and the query returned is the best-scoring one. ``width=1`` is greedy refinement: the same
    queries as :func:`rulebook.greedy.greedy_search` for the standard
    objectives (ties go to the first proposition in the kernels' order).

    Parameters
    ----------
    problem : ChannelProblem
    width : int >= 1
    length_factor : ndarray of shape (L,), float64, optional
        As from :func:`length_factors`; None: all ones.

    Returns
    -------
    SearchResult
        ``value``: the query's objective value (not its score);
        ``stats``: ``n_refinements`` (propositions scored), ``n_steps``
        (histogram passes).
    """
    rows = problem.base.rows
    factor = np.ones(1) if length_factor is None else np.asarray(length_factor, np.float64)
    root = _Node((), rows, problem.value(rows), problem.histograms(rows))
    root.score = root.value * factor[0]
    best, beam = root, [root]
    n_scored, n_steps, limit = 0, 0, _depth_limit(problem)
    while beam:
        candidates = []
        for i, node in enumerate(beam):
            if len(node.rows) <= 1:
                continue
            values = problem.values(node.histograms(problem), len(node.rows))
            used = sorted({c[0] for c in node.conditions})
            if len(used) >= limit:
                # The limit counts conditions (columns): at it, only the
                # columns used may be refined further.
                values = _only_features(values, used)
            n_steps += 1
            n_scored += int(np.isfinite(values).sum())
            # Each refinement's score: a column already used adds no condition.
            scale = np.full((values.shape[0], 1), factor[min(len(used) + 1, len(factor) - 1)])
            scale[used] = factor[min(len(used), len(factor) - 1)]
            flat, scores = values.ravel(), (values * scale).ravel()
            better = np.flatnonzero(scores > node.score)
            top = better[np.argsort(-scores[better], kind="stable")][:width]
            candidates += [(-scores[k], i, k, flat[k]) for k in top]
        candidates.sort(key=lambda c: c[:3])
        previous, beam, seen = beam, [], set()
        for negative, i, k, value in candidates:
            child = _child(problem, previous[i], k, value)
            child.score = -negative
            key = _key(child.rows)
            if key in seen:
                continue
            seen.add(key)
            beam.append(child)
            if child.score > best.score:
                best = child
            if len(beam) == width:
                break
    return SearchResult(best.conditions, best.value, best.rows,
                        {"n_refinements": n_scored, "n_steps": n_steps})


def _child(problem, parent, flat_index, value):
    """The refinement of ``parent`` by proposition ``flat_index`` of its
    values, whose objective value (from the parent's scan) is ``value``."""
    j, p = divmod(int(flat_index), 2 * parent.hist.shape[1])
    condition = problem.condition(j, p)
    kept, removed = problem.base.split(parent.rows, condition)
    return _Node(parent.conditions + (condition,), kept, float(value),
                 parent_hist=parent.hist, removed=removed)


def greedy_search(problem, length_factor=None):
    """Greedy refinement: :func:`beam_search` with width 1."""
    return beam_search(problem, 1, length_factor)


def branch_and_bound(problem, bound="prefix_greedy", max_nodes=None, memory_limit=None,
                     atom_index=None, length_factor=None):
    """Best-first branch and bound over conjunctions (Algorithm 2, ``w = inf``).

    A node is expanded only when its bound exceeds the best value found;
    its refinements are generated lazily, best value first, and enter the
    queue with the parent's bound. Conditions are added in non-decreasing
    feature order (tail augmentation), and a node is skipped when one with
    the same extent and a subtree containing its own was reached before.

    The search runs on *atoms*: training rows with the same bin on every
    feature, merged with summed channels (:func:`_atoms`). Every extent is
    a union of atoms and its channel sums, hence its objective, are
    unchanged; extents, histograms and bounds shrink (friedman2: 8,000
    training rows, 1,296 atoms).

    ``bound="prefix_greedy"`` is the paper's bound: the best prefix of the
    node's extent sorted by the projected gradient, ascending or descending
    (Algorithm 2, red lines, with Algorithm 3; eq. 9 approximated as in
    Appendix B). Here the prefixes are of atoms sorted by their mean
    projected gradient ``G / C``: the paper's row order when every atom is
    a single row of unit weight; otherwise prefixes range over unions of
    atoms, which are closer to the query extents (no query splits an atom)
    than arbitrary row prefixes. It is a *heuristic*: it can be below the
    best value in the subtree, so the search can miss the optimum. The
    paper measured it to reach at least 75% of the optimal value on all of
    2,000 random instances per setting (Appendix B, Table 4: 15 points,
    5 rules). Measured here on 300 random problems per ``epsilon`` (15
    rows, 2 numeric features of 5 bins, the intercept and 3 random queries
    in the basis, up to 3 conditions): the search with the bound found the
    exhaustive optimum in 99.7%, 99.3% and 100% of them for ``epsilon`` =
    1e-3, 0.1, 1 (worst ratio 0.954), with 31% of the exhaustive search's
    node expansions (``tests/test_orthogonal.py`` keeps a smaller version
    of this check). ``bound="none"`` prunes nothing: exhaustive, exact,
    exponential.

    Parameters
    ----------
    problem : ChannelProblem
    bound : {"prefix_greedy", "none"}
    max_nodes : int or None
        Most node expansions; the best query found so far is returned
        when it is reached (``stats["budget_exhausted"]``).
    memory_limit : float > 0 or None
        Most mebibytes of the search's growing pools (see
        :class:`OrthogonalLearner`); the search stops, as at ``max_nodes``,
        before an expansion or the record of a popped query that could take
        them past it.
    atom_index : _AtomIndex, optional
        The atoms of the problem's rows, when known (kept over the rounds
        of a fit by :class:`OrthogonalRounds`).
    length_factor : ndarray of shape (L,), float64, optional
        As from :func:`length_factors` (None: all ones): the search
        maximises the score ``value * length_factor[c]`` of a query of
        ``c`` conditions (columns). A node's bound is scaled by its own
        factor: its refinements never have fewer conditions and the factor
        is non-increasing, so the scaled bound bounds their scores whenever
        the plain bound bounds their values.

    Returns
    -------
    SearchResult
        ``value``: the query's objective value (not its score); ``stats``: ``n_nodes`` (expansions), ``n_pruned`` (nodes whose
        bound did not exceed the best value), ``n_refinements``,
        ``budget_exhausted`` (``max_nodes`` or ``memory_limit`` stopped
        the search) and, when ``memory_limit`` is given,
        ``memory_exhausted`` (it stopped the search).

    Notes
    -----
    The loop runs compiled (:mod:`rulebook._orthogonal_bnb_kernels`, about
    10x faster than the Python loop it replaced). Its pure-Python twin,
    ``tests/naive.py::orthogonal_branch_and_bound``, is the reference: on
    data without duplicate rows and with unit weights the two return the
    same query, value and statistics. Differences otherwise: the bound's
    prefixes are of atoms (above); a node of a single atom is not
    expanded, since it has no strict sub-extent (the reference counts it
    as an expansion without refinements); duplicate extents are detected
    by a 64-bit Zobrist hash of their atoms (the reference: Python's hash
    of the row bytes; both exact up to a hash collision).
    """
    base = problem.base
    rows = base.rows
    root_value, _ = problem.value(rows), problem._scale
    X_atoms, W_atoms = _atoms(problem, atom_index, in_place=problem.transient)
    if problem.transient:
        problem.W = None
    channels = _bound_channels(W_atoms)
    row_keys = _row_keys(len(W_atoms))
    stats = np.zeros(bnb_kernels.N_STATS, np.int64)
    max_bytes = None if memory_limit is None else int(memory_limit * 2**20)
    value, conditions = bnb_kernels.branch_and_bound(
        X_atoms, np.arange(len(W_atoms)), W_atoms, *channels, base.n_bins,
        base.is_nominal, problem.code, base.n_total, float(base.reg_lambda), problem.epsilon,
        problem.ridge, problem._scale, root_value, bound != "none", _as_int(_depth_limit(problem)),
        _as_int(max_nodes), row_keys, stats, _as_int(max_bytes),
        *_root_children(problem, X_atoms, W_atoms, channels, row_keys, bound != "none",
                        max_nodes),
        np.ones(1) if length_factor is None else np.ascontiguousarray(length_factor, np.float64))
    conditions = tuple((int(f), int(o), int(b)) for f, o, b in conditions)
    extent = rows
    for condition in conditions:
        extent = base.refine(extent, condition)
    counts = {"n_nodes": int(stats[bnb_kernels.N_NODES]),
              "n_pruned": int(stats[bnb_kernels.N_PRUNED]),
              "n_refinements": int(stats[bnb_kernels.N_REFINEMENTS]),
              "budget_exhausted": bool(stats[bnb_kernels.BUDGET_EXHAUSTED])}
    if memory_limit is not None:
        counts["memory_exhausted"] = bool(stats[bnb_kernels.MEMORY_EXHAUSTED])
    return SearchResult(conditions, float(value), extent, counts)


class _AtomIndex:
    """Which atom each row of a search's rows belongs to.

    Atoms depend on the binned rows only, not on the round's channels: one
    index serves every round of a fit (:class:`OrthogonalRounds`), where
    building it (a sort of the rows' codes) took 1.1 s a round at 10^6
    rows. Atoms are numbered by their first row.

    Parameters
    ----------
    X_binned : ndarray of shape (n, n_features), uint16
    rows : ndarray of shape (m,), intp
    n_bins : ndarray of shape (n_features,), int64
    """

    def __init__(self, X_binned, rows, n_bins):
        self.X_binned, self.rows = X_binned, rows
        codes = _row_codes(X_binned[rows], n_bins)
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        by_first = np.argsort(first)
        rank = np.empty_like(by_first)
        rank[by_first] = np.arange(len(by_first))
        self.singletons = len(first) == len(rows)
        # Atoms of one row each: the first rows are the rows, in order.
        self.first = np.arange(len(rows)) if self.singletons else first[by_first]
        self.inverse = None if self.singletons else rank[inverse.reshape(-1)]

    def fits(self, problem):
        """Whether the index is of ``problem``'s binned table and rows."""
        base = problem.base
        return base.X_binned is self.X_binned and np.array_equal(base.rows, self.rows)

    def sums(self, W):
        """Channel sums per atom, ``W`` of all the table's rows; for atoms
        of one row each, None (:func:`_atoms` then reads ``W`` directly)."""
        if self.singletons:
            return None
        W = W[self.rows]
        out = np.empty((len(self.first), W.shape[1]))
        for k in range(W.shape[1]):
            out[:, k] = np.bincount(self.inverse, weights=W[:, k], minlength=len(self.first))
        return out


# From this many atoms the root's histograms and its first children (rows,
# key, bound) are computed before the search, on numba's threads: at 10^6
# rows the search spends most of its time on them, one at a time. Smaller
# searches do not compile the parallel kernel.
ROOT_CHILDREN_MIN_ATOMS = 65_536


def _root_children(problem, X_atoms, W_atoms, channels, row_keys, use_bound, max_nodes):
    """The root's histograms and its first refinements, computed in parallel.

    The branch and bound pops the root's refinements best first; at 10^6
    rows most of a round is the first few hundred of them (their rows
    split off, their key and prefix-greedy bound), one at a time. Their
    order is known once the root is scanned, so they are computed here on
    numba's threads (``_orthogonal_bnb_kernels.root_children``), at most
    ``max_nodes`` of them, and the search takes each one as it pops it
    (checking its condition); the same numbers as the search's own.

    Returns
    -------
    root_hist, pre, pre_bound
        The arguments of ``_orthogonal_bnb_kernels.branch_and_bound``;
        empty below :data:`ROOT_CHILDREN_MIN_ATOMS` atoms.
    """
    base, n = problem.base, len(W_atoms)
    if n < ROOT_CHILDREN_MIN_ATOMS:
        return np.empty((0, 0, 0)), np.empty((0, 5), np.int64), np.empty(0)
    width = max(1, int(base.n_bins.max()) + 1)
    root_hist = np.empty((X_atoms.shape[1], width, W_atoms.shape[1]))
    kernels.build_all_channel_histograms(X_atoms, W_atoms, root_hist)
    values = np.empty((X_atoms.shape[1], 2 * width))
    kernels.scan_all_parallel(root_hist, base.n_bins, base.is_nominal, 0, problem.code,
                              base.n_total, float(base.reg_lambda), problem.epsilon,
                              problem.ridge, float(W_atoms[:, kernels.N].sum()), values)
    # The search's order of the root's refinements (its _refinement_order):
    # best snapped value first, ties in the scan's order.
    flat = values.ravel()
    finite = np.flatnonzero(np.isfinite(flat))
    order = finite[np.argsort(-problem._snap(flat[finite]), kind="stable")]
    order = order[:min(len(order), max_nodes or 1024)]
    pre = np.zeros((len(order), 5), np.int64)
    for i, k in enumerate(order):
        j, position = divmod(int(k), 2 * width)
        pre[i, :3] = problem.condition(j, position)
    pre_bound = np.empty(len(order))
    bnb_kernels.root_children(X_atoms, pre, base.n_bins, *channels, problem.epsilon,
                              problem.ridge, problem.code, problem._scale, use_bound, row_keys,
                              pre_bound)
    return root_hist, pre, pre_bound


def _atoms(problem, index=None, in_place=False):
    """Rows with equal bins on every feature merged into atoms.

    Every extent is a union of atoms and every channel is a sum over rows,
    so an extent's channel sums, hence its objective value, are those of
    its atoms (as :mod:`rulebook._atoms` does for the optimal learner).
    Atoms are numbered in the order of the prefix-greedy bound (see
    :func:`branch_and_bound`).

    Parameters
    ----------
    problem : ChannelProblem
    index : _AtomIndex, optional
        The atoms of ``problem``'s rows, when already known.
    in_place : bool, default=False
        When every row is an atom of its own, the atoms' channels may be
        ``problem.W`` itself, its rows permuted in place (a transient
        problem's: 100 MB less at 10^6 rows).

    Returns
    -------
    X_atoms : ndarray of shape (n_atoms, n_features), uint16, F-order
    W_atoms : ndarray of shape (n_atoms, 4 + K), float64
        Channel sums per atom (``N``: its row count).
    """
    base = problem.base
    if index is None:
        index = _AtomIndex(base.X_binned, base.rows, base.n_bins)
    sums = index.sums(problem.W)
    source = base.rows[index.first]
    # Number the atoms in the bound's order: ascending mean projected
    # gradient, ties by first row (Algorithm 2 sorts the rows by g_perp):
    # atoms are numbered by first row, and the sort is stable.
    if sums is None:  # atoms of one row: that row's channels
        ratio = problem.W[source, kernels.G] / problem.W[source, kernels.C]
    else:
        ratio = sums[:, kernels.G] / sums[:, kernels.C]
    order = np.argsort(ratio, kind="stable")
    X_atoms = np.empty((len(order), base.X_binned.shape[1]), base.X_binned.dtype, order="F")
    kernels.take_rows(base.X_binned, source[order], X_atoms)
    if sums is None and in_place and _every_row(source, len(problem.W)):
        # As np.bincount's sum of one row: 0.0 + w (-0.0 becomes 0.0).
        kernels.permute_channel_rows(problem.W, order)
        return X_atoms, problem.W
    W_atoms = np.empty((len(order), problem.W.shape[1]))
    if sums is None:
        kernels.take_channel_rows(problem.W, source[order], W_atoms)
    else:
        kernels.take_channel_rows(sums, order, W_atoms)
    return X_atoms, W_atoms


def _bound_channels(W):
    """The channels the prefix-greedy bound reads, in a compact form.

    The basis channels ``U_k = s o_k`` of a row depend only on which of the
    selected queries cover it (and its weight): the orthonormal basis is
    spanned by the intercept and their indicator vectors. Rows with equal
    basis channels, bit for bit, share one row of ``U``; the bound then
    reads 20 bytes a row (``G``, ``C``, a class) instead of ``8 (4 + K)``,
    and the same numbers. Rows of no shared class (linear terms in the
    basis, weights) still give the same bound, from as many classes as rows.

    Returns
    -------
    G : ndarray of shape (n,), float64
    C : ndarray of shape (n,) or (0,), float64
        Empty when every row's ``C`` is 1.
    classes : ndarray of shape (n,), int32
    U : ndarray of shape (n_classes, K), float64
    """
    W = np.ascontiguousarray(W)
    classes, first = np.empty(len(W), np.int32), np.empty(len(W), np.intp)
    n_classes = kernels.distinct_rows(W.view(np.int64), kernels.FIRST_BASIS_CHANNEL, classes,
                                      first)
    C = W[:, kernels.C]
    # C = 1 on every row (unit weights, atoms of one row) is not read at all.
    C = np.empty(0) if np.all(C == 1.0) else np.ascontiguousarray(C)
    U = np.ascontiguousarray(W[first[:n_classes], kernels.FIRST_BASIS_CHANNEL:])
    return np.ascontiguousarray(W[:, kernels.G]), C, classes, U


def _row_codes(X, n_bins):
    """An int64 per row of ``X``, equal exactly when the binned rows are.

    Mixed radix over the features (bin codes ``0..n_bins[j]``, the last
    the missing bin); when the next radix would overflow, the codes so far
    are renumbered densely first. Sorting one int64 array is much faster
    than ``np.unique(X, axis=0)`` (1.1 s of a 2.7 s fit on suicide_rates).
    """
    codes, radix = np.zeros(len(X), np.int64), 1
    for j in range(X.shape[1]):
        base = int(n_bins[j]) + 1
        if radix > 2**62 // base:
            codes = np.unique(codes, return_inverse=True)[1].reshape(-1).astype(np.int64)
            radix = int(codes.max()) + 1
        codes += X[:, j].astype(np.int64) * radix
        radix *= base
    return codes


# Stands for "no limit" in the kernel's integer arguments.
_UNLIMITED = np.iinfo(np.int64).max


def _as_int(limit):
    return _UNLIMITED if limit is None or limit == np.inf else int(limit)


def _row_keys(n):
    """Random 64-bit Zobrist keys of the rows (fixed seed: reproducible)."""
    return np.random.default_rng(0).integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                             size=n, dtype=np.int64)


@dataclass(frozen=True)
class OrthogonalLearner:
    """Base learner of corrective orthogonal boosting (``learner="orthogonal"``).

    Maximises the orthogonal gradient boosting objective ``obj_ogb``
    (Yang et al. 2024, eq. 14) over conjunctions of binned propositions.
    The boosting loop keeps the orthonormal basis of the selected queries
    and, with ``weight_update="auto"``, re-fits all weights after each rule
    (corrective update, eq. 7): together, COB (Algorithm 1).

    Parameters
    ----------
    strategy : {"greedy", "beam", "branch_and_bound"}, default="branch_and_bound"
        The search: greedy refinement (the paper's COB_G), beam search of
        width ``beam_width``, or best-first branch and bound with the
        prefix-greedy bound (the paper's COB_B, Algorithm 2 with
        ``w = inf``; the bound is a heuristic, Appendix B, see
        :func:`branch_and_bound`), compiled end to end.
    beam_width : int >= 1, default=5
    epsilon : float > 0, default=1e-3
        The regulariser ``epsilon`` of eq. 14, in units of
        ``sqrt(sample weight)``: it keeps redundant queries
        (``||q_perp|| = 0``) from dividing by zero and, when large, moves
        the objective toward the gradient sum (Proposition 5b). The paper
        gives no value for its experiments (Section 4); 1e-3 is small
        against ``||q_perp||`` of most extents (in units of
        ``sqrt(weight)``), so it mainly guards the division.
    bound : {"prefix_greedy", "none"}, default="prefix_greedy"
        Bound of ``strategy="branch_and_bound"``; ``"none"`` is exhaustive.
    max_nodes : int >= 1 or None, default=300
        Node budget (expansions per rule) of ``strategy="branch_and_bound"``;
        the paper sets none. Chosen by measurement on the reproduction
        protocol of Table 5 (``benchmarks/reproduce_tables.py --table yang``,
        2 splits, 25 rules, 16 datasets on which the optimal learner is
        fast): budgets 100, 300, 1,000 and 2,000 all gave the lowest test
        risk (mean over complexities 1-50, below both greedy and optimal
        boosting) on 11 of the 16, so the budget was chosen for time: with
        300 the fit time was within 3x the optimal learner's on 16 of 16,
        with 1,000 on 14 (100 and 2,000 were measured on an earlier, slower
        build: 15 and 6; ``bound="none"`` with 300 nodes: 15 and 11 wins).
        Most rounds exhaust the budget: the result is anytime, not
        certified, as in the optimal learner with a time limit.
    memory_limit : float > 0 or None, default=1024
        Most mebibytes (2^20 bytes) of a round's growing search state in
        ``strategy="branch_and_bound"``: per node its rows (a bitset, one
        bit per atom), per node whose refinements were scanned its channel
        histograms (8 bytes per bin, channel and column) and its sorted
        refinements, plus the queue and the table of extents seen. None:
        no cap. The search stops, as at ``max_nodes``, before an expansion
        (counted with the root's rows and every refinement a node can have)
        or the record of a popped query that could take them past it, and
        returns the best query found (``history_["memory_exhausted"]``).
        Only nodes whose first refinement comes up are scanned (most are
        not: at 10^6 rows, the root alone in most rounds), so the
        histograms (about 0.8 MB per scanned node on 30 columns of 255
        bins late in a fit) take far less than ``max_nodes`` of them; the
        pools grow by doubling up to ``max_nodes`` nodes, no further. Peak
        resident memory of a default fit at 10^6 rows x 20 columns: under
        1 GiB, the table included (``benchmarks/bench_scale.py``).
    length_penalty : {"complexity", "none"}, default="complexity"
        What a rule's conditions cost in the search. ``"complexity"``: each
        round takes the query of the largest ``obj_ogb^2 / (1 + c)`` for
        ``c`` conditions (columns), the estimated risk reduction
        (Proposition 1) per unit of the complexity the rule adds (rules
        plus conditions, Section 2; :func:`length_factors`), so a condition
        is added only when it pays for itself. ``"none"``: the query of the
        largest ``obj_ogb``, whatever its length (the paper's COB; the
        default before session 22). Every strategy applies it, with one
        output or several. Measured (``benchmarks/bench_orthogonal.py``,
        24 datasets, 5 random 80/20 splits, 25 rules, no length limit;
        ``benchmarks/README.md``, "fastogb side by side"): against
        ``"none"``, mean test risk over complexities 1-50 lower by more
        than two standard errors of the paired split differences on 5
        datasets (tic_tac_toe 0.719 -> 0.653, gender_recognition,
        used_cars, demographics, world_happiness; wine 0.383 -> 0.277 at
        2.0 standard errors), higher on one
        (suicide_rates, 0.714 -> 0.715), within noise on the rest; fits
        as fast or faster (wine 0.47 -> 0.04 s). At the estimators'
        ``max_rule_length="auto"`` the same picture (5 lower, 1 higher:
        suicide_rates by 0.001).
    ridge : {"reg_lambda", "none"}, default="reg_lambda"
        ``"reg_lambda"``: score queries by ``|g_perp^T q| /
        (sqrt(||q_perp||^2 + ridge) + epsilon)`` with ``ridge =
        reg_lambda / kappa`` (``kappa``: the mean Hessian per unit of
        sample weight, 2 for the squared loss), the risk reduction of the
        *regularised* corrective step, which the ridge-penalised re-fit
        actually takes, rather than of the ideal one (Proposition 1); it
        penalises queries of small ``||q_perp||`` (few rows, or nearly in
        the span of the rules so far) as the re-fit will (derivation:
        :func:`ridge_term`; our extension, not the paper's). ``"none"``:
        eq. 14 (the paper's objective; the default before session 23).
        Measured (``benchmarks/bench_orthogonal.py``, 24 datasets, 25
        rules, ``reg_lambda=1``, no length limit; ``benchmarks/README.md``,
        "fastogb side by side"): against ``"none"``, mean test risk over
        complexities 1-50 lower by more than two standard errors of the
        paired split differences on 3 datasets with 5 splits (banknote,
        adult, insurance, by 0.001-0.003) and 4 with 10 (wine 0.271 ->
        0.244 too), higher on 1 with 5 splits (world_happiness, 0.280 ->
        0.290; +0.006 at 1.9 standard errors with 10), within noise
        elsewhere; against fastogb the same 17 of 24 datasets; fit times
        unchanged. The effect is small at ``reg_lambda=1``: the ridge is
        half a row's weight for the squared loss (``kappa = 2``), four or
        more for the logistic loss (``kappa <= 1/4``), against
        ``||q_perp||^2`` of tens to thousands of rows for most queries.

    Raises
    ------
    ValueError
        On an invalid option (at construction), naming it and its valid
        values.

    Notes
    -----
    The figures below are of ``length_penalty="none"`` and ``ridge="none"``
    (before session 22).
    On all 27 datasets of the protocol (5 random 80/20 splits, 25 rules;
    ``benchmarks/results/reproduction_yang_v2_5splits/``,
    ``benchmarks/README.md``) this preset had a lower mean test risk over
    complexities 1-50 than both greedy and optimal boosting on 22 of 27
    datasets (not on tic_tac_toe, iris, wine, insurance, gdp), and fitted
    within 3x the optimal learner's time (2 s per rule limit) on 23 of 27
    (over 3x where optimal needs well under a second: tic_tac_toe 4.7,
    ships 3.2, friedman2 3.2, suicide_rates 3.1). The paper: COB_B best on
    23 of 34 datasets; its time within 2x of SXB's on half and 5x on all but
    one (Section 4, Table 5 and Fig. 6).

    References
    ----------
    .. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
       gradient boosting for simpler additive rule ensembles. AISTATS.
       Section 3.2 (eq. 14, Proposition 1), Section 3.3 (Algorithms 1-3),
       Appendix B; Section 2 (complexity: rules plus conditions).
    .. [2] Khuller, S., Moss, A., Naor, J. (1999). The budgeted maximum
       coverage problem. Information Processing Letters 70(1), 39-45 (the
       greedy choice by gain per unit cost; ``length_penalty``).

    Examples
    --------
    >>> from rulebook import OrthogonalLearner, RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> model = RuleBoostingRegressor(n_rules=3, learner=OrthogonalLearner(strategy="greedy"),
    ...                               verbose=0)
    >>> len(model.fit(X, y).ensemble_)
    3
    """

    strategy: str = "branch_and_bound"
    beam_width: int = 5
    epsilon: float = 1e-3
    bound: str = "prefix_greedy"
    max_nodes: int = 300
    memory_limit: float | None = 1024
    length_penalty: str = "complexity"
    ridge: str = "reg_lambda"

    name = "orthogonal"
    objective = "orthogonal"
    # Its searches score channel histograms, never the search problem's
    # own, so the boosting loop needs no row-major copy of the bins for it.
    uses_row_major_bins = False

    def __post_init__(self):
        if self.strategy not in SEARCHES:
            raise ValueError(f"strategy={self.strategy!r} is not supported; valid strategies are "
                             f"{list(SEARCHES)}.")
        if self.length_penalty not in LENGTH_PENALTIES:
            raise ValueError(f"length_penalty={self.length_penalty!r} is not supported; valid "
                             f"length penalties are {list(LENGTH_PENALTIES)}.")
        if self.ridge not in RIDGES:
            raise ValueError(f"ridge={self.ridge!r} is not supported; valid ridges are "
                             f"{list(RIDGES)}.")
        if self.bound not in BOUNDS:
            raise ValueError(f"bound={self.bound!r} is not supported; valid bounds are "
                             f"{list(BOUNDS)}.")
        if not _positive_int(self.beam_width):
            raise ValueError(f"beam_width must be an int >= 1; got {self.beam_width!r}.")
        if self.max_nodes is not None and not _positive_int(self.max_nodes):
            raise ValueError(f"max_nodes must be an int >= 1 or None; got {self.max_nodes!r}.")
        if not (isinstance(self.epsilon, (int, float)) and np.isfinite(self.epsilon)
                and self.epsilon > 0):
            raise ValueError(f"epsilon must be a finite number > 0; got {self.epsilon!r}.")
        if self.memory_limit is not None and not (
                isinstance(self.memory_limit, (int, float, np.integer, np.floating))
                and not isinstance(self.memory_limit, bool)
                and np.isfinite(self.memory_limit) and self.memory_limit > 0):
            raise ValueError(f"memory_limit must be a positive number of mebibytes or None; "
                             f"got {self.memory_limit!r}.")

    def search_channels(self, problem, atom_index=None):
        """Run the configured search on a :class:`ChannelProblem`
        (``atom_index``: see :func:`branch_and_bound`)."""
        factor = None if self.length_penalty == "none" else length_factors(self.length_penalty)
        if self.strategy == "greedy":
            return greedy_search(problem, factor)
        if self.strategy == "beam":
            return beam_search(problem, self.beam_width, factor)
        prepare_kernels("orthogonal")
        return branch_and_bound(problem, self.bound, self.max_nodes, self.memory_limit,
                                atom_index, factor)

    def ridge_of(self, problem):
        """The ridge term of ``problem``'s objective (:func:`ridge_term`;
        0 with ``ridge="none"``)."""
        if self.ridge == "none":
            return 0.0
        rows = problem.rows
        return ridge_term(float(problem.reg_lambda), np.asarray(problem.h)[rows],
                          np.asarray(problem.c)[rows])

    def search(self, problem):
        """Search a plain :class:`~rulebook.search.SearchProblem`; the query
        comes shortened (:func:`rulebook.shortening.shortened`).

        Without a basis (outside the boosting loop) the orthogonal objective
        has only the intercept to project out.
        """
        basis = OrthogonalBasis(problem.c, 0)
        return shortened(problem, self.search_channels(
            ChannelProblem.orthogonal(problem, basis, self.epsilon, self.ridge_of(problem))))

    def start_rounds(self, sample_weight, n_rules, base_columns=None):
        """The learner's searches over one fit (:class:`OrthogonalRounds`)."""
        return OrthogonalRounds(self, sample_weight, n_rules, base_columns)


class OrthogonalRounds(LearnerRounds):
    """The orthogonal learner over the rounds of a fit (Yang et al. 2024, Algorithm 1).

    Keeps the orthonormal basis of the selected queries' indicator vectors;
    each round's objective is scored on channels of it
    (:meth:`ChannelProblem.orthogonal`).

    With ``reg_lambda > 0`` the re-fitted gradient need not be orthogonal to
    the selected queries (Proposition 4 of Yang et al. holds for
    ``reg_lambda = 0``) and can even lie in their span: every ``obj_ogb``
    is then 0 although a new rule still lowers the regularised risk
    wherever ``q^T g != 0`` (seen on breast_cancer after 8 rules). Such a
    round falls back to the gradient-boosting objective ``|g^T q| / ||q||``
    (``history_`` column ``objective_fallback``) instead of stopping.

    Parameters
    ----------
    learner : OrthogonalLearner
    sample_weight : ndarray of shape (n_samples,), float64
    n_rules : int
    base_columns : ndarray of shape (n_samples, p), float64, optional
        Fixed base terms of the model (linear terms): in the basis from the
        start, with the intercept's direction, since the corrective re-fit
        fits them with every rule (the orthogonal objective scores only what
        they and the rules cannot fit already).
    """

    def __init__(self, learner, sample_weight, n_rules, base_columns=None):
        super().__init__(learner)
        # The atoms of the rows searched, the same every round (_AtomIndex).
        self._atom_index = None
        p = 0 if base_columns is None else base_columns.shape[1]
        self.basis = OrthogonalBasis(sample_weight, n_rules + p)
        for j in range(p):
            self.basis.add(base_columns[:, j])

    def search(self, problem):
        """The round's query by the orthogonal objective (or the fallback), shortened."""
        learner = self.learner
        if isinstance(problem, MultiOutputProblem):
            return self._search_outputs(problem)
        channels = ChannelProblem.orthogonal(problem, self.basis, learner.epsilon,
                                             learner.ridge_of(problem))
        channels.transient = True
        if learner.strategy == "branch_and_bound" and (
                self._atom_index is None or not self._atom_index.fits(channels)):
            base = channels.base
            self._atom_index = _AtomIndex(base.X_binned, base.rows, base.n_bins)
        result = learner.search_channels(channels, self._atom_index)
        if not result.value > _FALLBACK_TOLERANCE * np.abs(problem.g).sum():
            # A new problem, not the loop's with its objective changed.
            fallback = replace(problem, objective=OBJECTIVES["gradient_boosting"])
            result = learner.search_channels(ChannelProblem.standard(fallback), self._atom_index)
            result.stats = {**result.stats, "objective_fallback": True}
        return shortened(problem, result)

    def _search_outputs(self, problem):
        """:meth:`search` with several outputs: the objective of
        :mod:`rulebook.orthogonal_outputs` for the problem's head; the
        fallback is the greedy search of the second-order objective of
        several outputs (the gradient-boosting objective of one output is
        not defined for them)."""
        learner = self.learner
        channels = OutputChannelProblem.orthogonal(problem, self.basis, learner.epsilon,
                                                   learner.ridge_of(problem))
        channels.transient = True
        if learner.strategy == "branch_and_bound":
            factor = (None if learner.length_penalty == "none"
                      else length_factors(learner.length_penalty))
            result = output_branch_and_bound(channels, learner.max_nodes, learner.bound,
                                             learner.memory_limit, factor)
        else:
            result = learner.search_channels(channels)
        if not result.value > _FALLBACK_TOLERANCE * np.abs(problem.g).sum():
            result = greedy.greedy_search(problem)
            result.stats = {**result.stats, "objective_fallback": True}
        return shortened(problem, result)

    def added(self, rows):
        """Adds the rule's indicator vector to the basis."""
        q = np.zeros(len(self.basis.sample_weight))
        q[rows] = 1.0
        self.basis.add(q)

    def progress(self, problem, result):
        """The projected gradient's objective: ``g^T q`` itself is ~0 for a
        query in the span of the rules after a corrective re-fit."""
        return result.value


@dataclass(frozen=True)
class BeamLearner:
    """Beam search for the standard objectives (``search="beam"``).

    Parameters
    ----------
    width : int >= 1, default=5

    Raises
    ------
    ValueError
        If ``width`` is not a positive int.
    """

    width: int = 5
    name = "beam"

    def __post_init__(self):
        if not _positive_int(self.width):
            raise ValueError(f"width must be an int >= 1; got {self.width!r}.")

    def search(self, problem):
        """Beam search with the problem's own objective (:func:`beam_search`);
        the query comes shortened (:func:`rulebook.shortening.shortened`)."""
        return shortened(problem, beam_search(ChannelProblem.standard(problem), self.width))


def _positive_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
