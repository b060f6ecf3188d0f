"""Weight updates of the boosting loop: what a new rule does to the weights.

* :class:`StagewiseUpdate` (Boley et al. 2021, eq. 2.2): the new rule's
  weight is fitted on its extent and never changed again.
* :class:`CorrectiveUpdate` (Yang et al. 2024, eq. 7): the intercept and
  every weight are re-fitted jointly after each rule
  (:func:`rulebook.corrective.corrective_weights`).

Both have ``add(rows, rule, rules, intercept, raw, g, h) -> (intercept,
rules, raw, stats)``, ``shift_intercept`` and ``base_weights`` (the weights
of the fixed base terms, ``BoostingSetup.base_columns``: kept as fitted
before the first rule by the stagewise update, re-fitted with every weight
by the corrective one), so the loop does not know which one runs.
"""

from dataclasses import replace

import numpy as np

from .corrective import corrective_weights
from .corrective_outputs import corrective_weights_outputs
from .losses import newton_rule_weight
from .objectives import second_order_weight


def weight_update(setup, base_weights=()):
    """The weight update a fit uses.

    Parameters
    ----------
    setup : rulebook.boosting.BoostingSetup
        Its ``weight_update`` (``"stagewise"`` or ``"corrective"``) chooses;
        ``loss``, ``y``, ``sample_weight``, ``reg_lambda``, ``objective`` and
        ``n_rules`` and ``base_columns`` configure it.
    base_weights : array-like of shape (p,), default=()
        The fitted weights of ``setup.base_columns`` (``fit_base``).

    Returns
    -------
    StagewiseUpdate or CorrectiveUpdate
    """
    kind = CorrectiveUpdate if setup.weight_update == "corrective" else StagewiseUpdate
    return kind(setup, base_weights)


class _Update:
    def __init__(self, setup, base_weights=()):
        self.setup = setup
        self.base_weights = np.asarray(base_weights, dtype=np.float64)

    def shift_intercept(self, rows, intercept, raw, g, h):
        """The intercept moved by the weight of the empty query on ``rows``.

        For a round whose best query is the empty one (with stagewise
        weights the intercept is not re-fitted, so the rows' mean gradient
        drifts from 0): its weight, as a rule's, goes to the intercept.

        Returns
        -------
        intercept : float
        raw : ndarray of shape (n_samples,)
            A new array; ``raw`` is not modified.
        """
        weight = _weight(self.setup, rows, g, h, raw)
        return intercept + weight, raw + weight


class StagewiseUpdate(_Update):
    """Fixes each rule's weight when it is added (Boley et al. 2021, eq. 2.2)."""

    def add(self, rows, rule, rules, intercept, raw, g, h):
        """The model with ``rule`` added at its fitted weight.

        Parameters
        ----------
        rows : ndarray of int
            The rule's extent.
        rule : Rule
            The new rule (its weight is replaced).
        rules : list of Rule
            The rules so far (not modified).
        intercept : float
        raw : ndarray of shape (n_samples,), float64
            Raw scores of the model so far; updated in place.
        g, h : ndarray of shape (n_samples,), float64
            The round's gradients and Hessians (sample-weighted).

        Returns
        -------
        intercept : float
        rules : list of Rule
        raw : ndarray of shape (n_samples,)
        stats : dict
            Extra ``history_`` columns (none).
        """
        weight = _weight(self.setup, rows, g, h, raw, single=self.setup.head == "single")
        raw[rows] += weight
        if np.ndim(weight):  # a complete head: one weight per output
            return intercept, [*rules, replace(rule, weight=tuple(map(float, weight)))], raw, {}
        return intercept, [*rules, replace(rule, weight=weight)], raw, {}


class CorrectiveUpdate(_Update):
    """Re-fits the intercept and all weights after each rule (Yang et al. 2024, eq. 7).

    Each re-fit is warm-started from the previous round's intercept and
    weights, the new rule's weight starting at 0.
    """

    def __init__(self, setup, base_weights=()):
        super().__init__(setup, base_weights)
        # Column-major: a round writes one column, which is then contiguous.
        # Row-major, writing a column touched one page per row of a matrix
        # that np.zeros maps lazily: 11 s in one uninterruptible statement
        # for the first rule of 5000 on 10^5 rows (and all of its 4 GB).
        # The base columns come first and are re-fitted with the rules.
        self.p = len(self.base_weights)
        self.Q = np.zeros((len(setup.y), self.p + setup.n_rules), order="F")
        if self.p:
            self.Q[:, :self.p] = setup.base_columns
        self.t = 0
        # With several outputs: which outputs each rule predicts for.
        self.heads = np.zeros((0, setup.y.shape[1]), bool) if np.ndim(setup.y) == 2 else None

    def add(self, rows, rule, rules, intercept, raw, g, h):
        """The model with ``rule`` added and every weight re-fitted.

        Parameters and returns as :meth:`StagewiseUpdate.add`; ``raw`` is
        recomputed, ``stats`` holds ``refit_iterations`` (Newton steps).
        """
        if g.ndim == 2:
            return self._add_outputs(rows, rule, rules, intercept, g, h)
        setup, p = self.setup, self.p
        self.Q[rows, p + self.t] = 1.0
        self.t += 1
        Q = self.Q[:, :p + self.t]
        previous = np.concatenate([self.base_weights, [r.weight for r in rules], [0.0]])
        fit = corrective_weights(setup.loss, setup.y, Q, setup.sample_weight, setup.reg_lambda,
                                 start=(intercept, previous))
        self.base_weights = fit.weights[:p].copy()
        rules = [replace(r, weight=float(w)) for r, w in zip([*rules, rule], fit.weights[p:])]
        return fit.intercept, rules, fit.intercept + Q @ fit.weights, {
            "refit_iterations": fit.n_iter}

    def _add_outputs(self, rows, rule, rules, intercept, g, h):
        """:meth:`add` with several outputs (``g`` of shape (n, K)): every
        intercept and weight re-fitted (:mod:`rulebook.corrective_outputs`).

        A single-output head keeps the output chosen when it was added (as
        the stagewise update chooses it, :func:`single_head_output`); its
        other outputs' weights stay 0.
        """
        setup = self.setup
        self.Q[rows, self.t] = 1.0
        self.t += 1
        Q = self.Q[:, :self.t]
        head = np.ones(g.shape[1], bool)
        if setup.head == "single":
            head[:] = False
            head[single_head_output(g[rows].sum(axis=0), h[rows].sum(axis=0),
                                    setup.reg_lambda)] = True
        self.heads = np.vstack([self.heads, head])
        previous = np.array([r.weight for r in rules] + [np.zeros(g.shape[1])]).reshape(
            self.t, g.shape[1])
        fit = corrective_weights_outputs(setup.loss, setup.y, Q, self.heads, setup.sample_weight,
                                         setup.reg_lambda, start=(intercept, previous))
        rules = [replace(r, weight=tuple(map(float, w)))
                 for r, w in zip([*rules, rule], fit.weights)]
        return fit.intercept, rules, fit.intercept + Q @ fit.weights, {
            "refit_iterations": fit.n_iter}


def _weight(setup, rows, g, h, raw, single=False):
    """The weight of a rule (or of the intercept's shift) on the extent ``rows``:
    a float, or with several outputs (``g`` of shape (n, K)) an ndarray of
    shape (K,), the complete head's, or with ``single`` the single-output
    head's (:func:`single_head_output`; 0 for the other outputs)."""
    if g.ndim == 1:
        return _rule_weight(setup, rows, float(g[rows].sum()), h, raw)
    G, H = g[rows].sum(axis=0), h[rows].sum(axis=0)
    if single:
        k = single_head_output(G, H, setup.reg_lambda)
        G = np.where(np.arange(len(G)) == k, G, 0.0)
    return complete_head_weight(setup.loss, setup.y[rows], raw[rows], setup.sample_weight[rows],
                                G, H, setup.reg_lambda)


def single_head_output(G, H, reg_lambda):
    """The output a single-output head predicts for: the one of the largest
    ``G_k^2 / (reg_lambda + H_k)`` (the first on ties).

    The search scored the extent by this maximum
    (:func:`rulebook._multi_output_kernels.objective_single`); it is taken
    again here from the extent's sums, which the weight is computed from.
    An output whose denominator vanishes scores 0, as there.

    Parameters
    ----------
    G, H : ndarray of shape (K,), float64
    reg_lambda : float

    Returns
    -------
    int
    """
    denominator = reg_lambda + H
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(denominator > 0, G * G / denominator, 0.0)
    return int(np.argmax(score))


# Most halvings of a complete head's Newton step (2^-60: a step of 0).
_MAX_HALVINGS = 60


def complete_head_weight(loss, y, raw, sample_weight, G, H, reg_lambda):
    """A complete head's weights: the per-output Newton step, damped if it overshoots.

    The step ``w_k = -G_k / (reg_lambda + H_k)`` minimises the second-order
    approximation with the diagonal Hessian, output by output (Rapp et al.
    2023, Section 2.4.2; eq. 2.2 of Boley et al. 2021 per output). Far from the
    optimum it can raise the regularised loss of the extent, as the
    single-output closed form can (:func:`_rule_weight`); it is then halved
    until it does not. It is a descent direction of that loss (its inner
    product with the gradient ``G`` is ``-sum G_k^2 / (reg_lambda + H_k)``),
    so some halving does.

    Parameters
    ----------
    loss : loss object with several outputs (e.g. ``MultinomialLoss``)
    y, raw : ndarray of shape (m, K), float64
        Targets and raw scores of the extent's rows.
    sample_weight : ndarray of shape (m,), float64
    G, H : ndarray of shape (K,), float64
        The extent's sums of the sample-weighted gradients and Hessians.
    reg_lambda : float

    Returns
    -------
    ndarray of shape (K,), float64

    References
    ----------
    .. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.2, eq. 3
       (gradients and Hessians per label, summed element-wise).
    """
    denominator = reg_lambda + H
    with np.errstate(divide="ignore", invalid="ignore"):
        weight = np.where(denominator > 0, -G / denominator, 0.0)
    loss_at = lambda w: (loss.loss(y, raw + w, sample_weight) * sample_weight.sum()
                         + 0.5 * reg_lambda * float(w @ w))
    start = loss_at(np.zeros_like(weight))
    for _ in range(_MAX_HALVINGS):
        if loss_at(weight) <= start:
            return weight
        weight = weight / 2.0
    return np.zeros_like(weight)


def _rule_weight(setup, rows, G, h, raw):
    """The rule's weight: the closed form (eq. 2.2), unless it steps past the minimiser.

    The second-order objective's weight is one Newton step from 0 on the
    regularised loss of the extent (Boley et al. 2021, eq. 2.2), the
    step whose loss reduction the objective scored. For the squared loss
    it is that loss's minimiser. For the logistic and Poisson losses it
    can step past the minimiser: a Poisson rule covering counts above its
    prediction always does, as the loss grows like ``exp(w)``, faster than
    the quadratic it stands for, and more so the smaller its extent (seen
    on the ships, covid and bicycle counts). Then the exact 1-D minimiser
    is taken (:func:`rulebook.losses.newton_rule_weight`). A step short
    of the minimiser is kept: by convexity it lowers the extent's loss.
    XGBoost's ``max_delta_step`` (0.7 by default for its Poisson loss)
    guards the same overshoot with a fixed cap.
    """
    args = (setup.loss, setup.y[rows], raw[rows], setup.sample_weight[rows], setup.reg_lambda)
    if setup.objective == "second_order":
        weight = second_order_weight(G, float(h[rows].sum()), setup.reg_lambda)
        if setup.loss.name == "squared" or not past_minimiser(weight, _derivative(weight, *args)):
            return weight
    return newton_rule_weight(*args)


def past_minimiser(weight, derivative):
    """Whether a step ``weight`` from 0 passed the minimiser of a convex loss.

    Parameters
    ----------
    weight : float
        The step (a descent direction from 0).
    derivative : float
        The loss's derivative at ``weight``.

    Returns
    -------
    bool
        True when the loss rises further in the step's direction at
        ``weight``: the minimiser lies between 0 and ``weight``. At the
        minimiser itself (derivative 0), False.
    """
    return derivative * weight > 0.0


def _derivative(weight, loss, y, raw, sample_weight, reg_lambda):
    """Derivative in ``weight`` of the extent's regularised loss
    ``sum_i s_i l(y_i, raw_i + weight) + reg_lambda / 2 weight^2``."""
    g, _ = loss.gradient_hessian(y, raw + weight, sample_weight)
    return float(g.sum()) + reg_lambda * weight
