"""The orthogonal objective: the basis of the selected queries and the channels that score it.

Corrective orthogonal boosting (Yang et al. 2024, Algorithm 1) chooses the
next query by the orthogonal gradient boosting objective (eq. 14)

    obj_ogb(q) = |g_perp^T q| / (||q_perp|| + epsilon),

the angle between the gradient and the part of the query vector orthogonal
to the queries already selected (and the intercept). This module holds what
the searches (:mod:`rulebook.orthogonal_search`) score a query with:

* :class:`OrthogonalBasis`: an orthonormal basis of the selected query
  vectors, grown by Gram-Schmidt with re-orthogonalisation (Section 3.3);
* :class:`ChannelProblem`: a :class:`~rulebook.search.SearchProblem` with
  the per-row channels that score every proposition of a node in one
  histogram pass (:mod:`rulebook._orthogonal_kernels`, Proposition 3);
* the objective's two extensions of ours: :func:`ridge_term`, the
  denominator of the ridge-regularised corrective step, and
  :func:`length_factors`, the score's factor of a query's length.

Sample weights enter as the inner product ``<u, v> = sum_i s_i u_i v_i``;
with unit weights every formula is the paper's.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.2 (Proposition 1, eq. 13-14), Section 3.3 (Proposition 3,
   Algorithm 2: the prefix-greedy bound), Appendix B (the bound is a
   heuristic).
.. [2] Giraud, L., Langou, J., Rozloznik, M. (2005). The loss of
   orthogonality in the Gram-Schmidt orthogonalization process. Computers
   & Mathematics with Applications 50, 1069-1075 ("twice is enough").
.. [3] Khuller, S., Moss, A., Naor, J. (1999). The budgeted maximum
   coverage problem. Information Processing Letters 70(1), 39-45 (gain per
   unit cost: :func:`length_factors`).
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from . import _orthogonal_kernels as kernels
from ._config import PARALLEL_MIN_WORK
from .search import _every_row

# Orthogonal objective values equal up to rounding are ties: a query and its
# complement always tie once the intercept is in the basis (q_perp = -(1 -
# q)_perp), and which one wins must not depend on the order of summation
# (weighted rows vs repeated rows, row order). Values are therefore rounded
# to this many digits relative to sum |g_perp|; ties then go to the first
# proposition in the kernels' order.
_TIE_DIGITS = 12
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
