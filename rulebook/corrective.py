"""Fully corrective weight update: re-fit the intercept and all rule weights.

After each new rule, corrective boosting replaces the stagewise update
(Yang et al. 2024, eq. 3) by the joint minimisation of the regularised
empirical risk over the intercept and all rule weights (eq. 7, Algorithm 1):

    F(b, w) = sum_i s_i l(y_i, b + (Q w)_i) + reg_lambda / 2 * ||w||^2

with ``Q`` the ``n x t`` query matrix (one 0/1 column per rule) and ``s``
the sample weights. The ``reg_lambda / 2`` scaling and the unpenalised
intercept are those of the stagewise rule weight (Boley et al. 2021,
eq. 2.1-2.2), so ``weight_update="corrective"`` and ``"stagewise"`` mean
the same ``reg_lambda``.

``F`` is convex (strictly, when ``reg_lambda > 0`` or ``[1, Q]`` has full
column rank), so a damped Newton method converges quadratically from the
previous round's weights (warm start: only the new rule's weight starts at
0). The gradient is ``A^T g + reg_lambda [0; w]`` and the Hessian
``A^T diag(h) A + reg_lambda diag(0, 1, ..., 1)`` with ``A = [1, Q]``: a
``(t + 1) x (t + 1)`` matrix, never an ``n x n`` one.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 2, eq. 7 (corrective update), Algorithm 1.
.. [2] Boyd, S., Vandenberghe, L. (2004). Convex Optimization. Cambridge
   University Press. Section 9.5 (Newton's method, Newton decrement,
   backtracking line search).
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

# Armijo constant and step shrink factor of the backtracking line search
# (Boyd and Vandenberghe 2004, Algorithm 9.2 uses 0.01-0.3 and 0.1-0.8).
_ARMIJO = 1e-4
_SHRINK = 0.5
_MAX_HALVINGS = 60
# Below this relative Newton decrement the full step is taken unchecked.
_QUADRATIC = 1e-10


@dataclass(frozen=True)
class CorrectiveFit:
    """Result of :func:`corrective_weights`.

    Attributes
    ----------
    intercept : float
    weights : ndarray of shape (t,), float64
    n_iter : int
        Newton iterations taken.
    converged : bool
    objective : float
        ``F(intercept, weights)`` (total, not mean, loss plus penalty).
    """

    intercept: float
    weights: np.ndarray
    n_iter: int
    converged: bool
    objective: float


def regularised_risk(loss, y, Q, sample_weight, reg_lambda, intercept, weights):
    """``F(b, w)``: total weighted loss plus ``reg_lambda / 2 * ||w||^2``.

    Parameters
    ----------
    loss : loss object (:mod:`rulebook.losses`)
    y, sample_weight : ndarray of shape (n,), float64
    Q : ndarray of shape (n, t), float64
        Query matrix, 0/1 entries.
    reg_lambda : float
    intercept : float
    weights : ndarray of shape (t,), float64

    Returns
    -------
    float
    """
    raw = intercept + Q @ weights
    total = float(sample_weight.sum())
    return loss.loss(y, raw, sample_weight) * total + 0.5 * reg_lambda * float(weights @ weights)


def corrective_weights(loss, y, Q, sample_weight, reg_lambda, start=None, tol=1e-24,
                       max_iter=100, fit_intercept=True):
    """Jointly optimal intercept and rule weights (Yang et al. 2024, eq. 7).

    Damped Newton method with backtracking (Armijo) line search on
    ``F(b, w) = sum_i s_i l(y_i, b + (Q w)_i) + reg_lambda/2 ||w||^2``.

    Parameters
    ----------
    loss : loss object
        ``SquaredLoss``, ``LogisticLoss`` or ``PoissonLoss`` (any object with
        ``loss``, ``gradient_hessian`` and ``baseline``).
    y : ndarray of shape (n,), float64
    Q : ndarray of shape (n, t), float64
        Query matrix: column ``j`` is rule ``j``'s 0/1 output vector. May
        have ``t = 0`` columns (intercept only).
    sample_weight : ndarray of shape (n,), float64
        Non-negative.
    reg_lambda : float >= 0
        L2 penalty on the rule weights (not on the intercept).
    start : tuple (float, ndarray of shape (t,)), optional
        Warm start ``(intercept, weights)``; default: the loss's baseline
        and zero weights.
    tol : float, default=1e-24
        Stop when the Newton decrement ``lambda^2 / 2 = -grad^T step / 2``
        (the decrease of ``F`` the quadratic model predicts, an estimate of
        ``F - min F``) is at most ``tol * (1 + |F|)``, or when the line
        search can no longer decrease ``F``. The distance to the optimum is
        about ``sqrt(2 lambda^2 / mu)`` for the smallest Hessian eigenvalue
        ``mu``, so the default leaves the weights accurate to about
        ``1e-11 sqrt((1 + |F|) / mu)``, far below what F itself resolves;
        Newton's quadratic convergence makes this cost one or two extra
        iterations (tested against ``scipy.optimize.minimize`` to 1e-8).
    max_iter : int, default=100
    fit_intercept : bool, default=True
        ``False`` fixes the intercept at 0 (the rule ensembles without a
        background rule of the paper's Fig. 2 and Proposition 2).

    Returns
    -------
    CorrectiveFit

    Warns
    -----
    UserWarning
        When ``max_iter`` is reached, as happens when no finite minimiser
        exists (``reg_lambda = 0`` with a perfectly separated logistic
        extent, or a Poisson extent of zero counts).

    Raises
    ------
    ValueError
        If the shapes of ``y``, ``Q``, ``sample_weight`` or ``start`` disagree,
        or ``reg_lambda`` is negative.

    References
    ----------
    Yang et al. (2024), Section 2, eq. 7; Boyd and Vandenberghe (2004),
    Section 9.5.

    Examples
    --------
    The orthogonal ensemble of the paper's Fig. 2, ``q1 = (1, 1, 0)`` and
    ``q3 = (0, 1, 1)`` without intercept, fitted to ``y = (-10, -6, 5)``:

    >>> import numpy as np
    >>> from rulebook.losses import get_loss
    >>> y = np.array([-10.0, -6.0, 5.0])
    >>> Q = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> fit = corrective_weights(get_loss("squared"), y, Q, np.ones(3), 0.0,
    ...                          fit_intercept=False)
    >>> np.round(fit.weights, 4)
    array([-10.3333,   4.6667])
    """
    y, Q, sample_weight = _check(y, Q, sample_weight, reg_lambda)
    theta = _start(loss, y, sample_weight, Q.shape[1], start)
    # F is a sum over rows that depends on a row only through its loss
    # group (_groups): fitted on the groups, the same minimiser at a cost
    # independent of n; `offset` keeps F's value that of the rows.
    groups = _groups(loss, y, Q, sample_weight)
    offset = 0.0
    if groups is not None:
        rows_value = regularised_risk(loss, y, Q, sample_weight, reg_lambda, theta[0], theta[1:])
        y, Q, sample_weight = groups
        offset = rows_value - regularised_risk(loss, y, Q, sample_weight, reg_lambda, theta[0],
                                               theta[1:])
    n, t = Q.shape
    A = np.hstack([np.ones((n, 1)), Q])
    penalty = np.full(t + 1, float(reg_lambda))
    penalty[0] = 0.0
    if not fit_intercept:
        # The intercept's column, gradient and step are all dropped.
        theta[0] = 0.0
        A[:, 0] = 0.0
        penalty[0] = 1.0

    def objective(theta):
        return regularised_risk(loss, y, Q, sample_weight, reg_lambda, theta[0],
                                theta[1:]) + offset

    value = objective(theta)
    for iteration in range(1, max_iter + 1):
        g, h = loss.gradient_hessian(y, A @ theta, sample_weight)
        gradient = A.T @ g + penalty * theta
        hessian = A.T @ (h[:, None] * A) + np.diag(penalty)
        step = _newton_step(hessian, gradient)
        decrement = -float(gradient @ step)
        if decrement <= 2.0 * tol * (1.0 + abs(value)):
            return CorrectiveFit(float(theta[0]), theta[1:].copy(), iteration, True, value)
        if decrement <= _QUADRATIC * (1.0 + abs(value)):
            # Deep in the region of quadratic convergence the decrease is
            # below the rounding of F, so F cannot judge the step: take the
            # full Newton step, as the convergence theory allows.
            theta = theta + step
            value = objective(theta)
            continue
        theta_new, value_new = _line_search(objective, theta, value, step, decrement)
        if theta_new is None:
            # No decrease even for tiny steps: F is at its minimum to rounding.
            return CorrectiveFit(float(theta[0]), theta[1:].copy(), iteration, True, value)
        theta, value = theta_new, value_new
    warnings.warn(f"the corrective weight re-fit did not converge in {max_iter} Newton "
                  "iterations (no finite minimiser with reg_lambda=0?); use reg_lambda > 0.",
                  UserWarning, stacklevel=2)
    return CorrectiveFit(float(theta[0]), theta[1:].copy(), max_iter, False, value)


# Losses whose gradient is linear in y and Hessian free of it, so that rows
# of one rule pattern add up to one row at their weighted mean target (F up
# to a constant); the logistic loss is linear in y only on y = +-1 (its
# formula in y f is not), so its rows are grouped by pattern and label.
_MEAN_TARGET, _BY_LABEL = ("squared", "poisson"), ("logistic",)


def _groups(loss, y, Q, sample_weight):
    """The rows merged into groups that ``F`` cannot tell apart, or None.

    Rows with the same 0/1 row of ``Q`` (rule pattern) have the same raw
    score under every ``(b, w)``. For the squared and Poisson losses
    (gradient ``(mu(f) - y) s`` up to a factor, Hessian free of ``y``) they
    add up to one row of weight ``sum s`` at the weighted mean of ``y``:
    the same gradient and Hessian of ``F``, and ``F`` up to a constant. For
    the logistic loss rows are grouped by pattern and label. The Newton
    steps then cost ``O(groups t^2)`` instead of ``O(n t^2)`` (the "distinct
    patterns" of the issue; at 10^6 rows, a few hundred groups).

    Returns
    -------
    (y, Q, sample_weight) of the groups with positive weight, or None when
    grouping saves nothing (few rows, ``Q`` not 0/1, e.g. linear terms,
    more than 62 columns, other losses, or most rows distinct).
    """
    n, t = Q.shape
    name = getattr(loss, "name", None)
    if n < 4096 or t > 61 or name not in _MEAN_TARGET + _BY_LABEL or y.ndim != 1:
        return None
    bits = Q == 1.0
    if not np.all(bits | (Q == 0.0)):
        return None
    by_label = name in _BY_LABEL
    codes = bits @ (np.int64(1) << np.arange(t, dtype=np.int64)) if t else np.zeros(n, np.int64)
    if by_label:
        codes = codes * 2 + (y > 0)
    if (1 << (t + by_label)) <= 4 * n:
        # Few possible codes: groups numbered by code through a count of
        # each (one pass; np.unique sorts the n codes).
        counts = np.bincount(codes, minlength=1 << (t + by_label))
        present = np.flatnonzero(counts)
        counts[present] = np.arange(len(present))
        inverse = counts[codes]
    else:
        present, inverse = np.unique(codes, return_inverse=True)
        inverse = inverse.reshape(-1)
    if len(present) > n // 4:
        return None
    weight = np.bincount(inverse, weights=sample_weight, minlength=len(present))
    target = np.bincount(inverse, weights=sample_weight * y, minlength=len(present))
    keep = weight > 0
    patterns = present[keep] >> by_label
    Q_groups = ((patterns[:, None] >> np.arange(t)) & 1).astype(np.float64)
    # A group of one label: sum(s y) / sum(s) is that label exactly.
    return target[keep] / weight[keep], Q_groups, weight[keep]


def _check(y, Q, sample_weight, reg_lambda):
    y = np.asarray(y, dtype=np.float64)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    Q = np.asarray(Q, dtype=np.float64).reshape(len(y), -1)
    if sample_weight.shape != y.shape or y.ndim != 1:
        raise ValueError(f"y and sample_weight must be 1-D of equal length; got {y.shape} "
                         f"and {sample_weight.shape}.")
    if not reg_lambda >= 0:
        raise ValueError(f"reg_lambda must be >= 0; got {reg_lambda!r}.")
    return y, Q, sample_weight


def _start(loss, y, sample_weight, t, start):
    if start is None:
        return np.concatenate([[loss.baseline(y, sample_weight)], np.zeros(t)])
    intercept, weights = start
    weights = np.asarray(weights, dtype=np.float64).ravel()
    if weights.shape != (t,):
        raise ValueError(f"start weights must have shape ({t},); got {weights.shape}.")
    return np.concatenate([[float(intercept)], weights])


def _newton_step(hessian, gradient):
    """Solve ``hessian @ step = -gradient``.

    Cholesky when the Hessian is positive definite; otherwise (collinear
    queries without regularisation, e.g. two rules whose extents partition
    the data, together equal to the intercept) the minimum-norm least-squares
    step, which still is a descent direction on the range of the Hessian.
    """
    try:
        return cho_solve(cho_factor(hessian), -gradient)
    except LinAlgError:
        return np.linalg.lstsq(hessian, -gradient, rcond=None)[0]


def _line_search(objective, theta, value, step, decrement):
    """Backtracking from the full Newton step; ``(None, None)`` on failure."""
    a = 1.0
    for _ in range(_MAX_HALVINGS):
        candidate = theta + a * step
        new_value = objective(candidate)
        if np.isfinite(new_value) and new_value <= value - _ARMIJO * a * decrement:
            return candidate, new_value
        a *= _SHRINK
    return None, None
