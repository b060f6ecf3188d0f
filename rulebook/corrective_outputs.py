"""The fully corrective weight update with several outputs (an extension of Yang et al. 2024).

After each new rule the intercepts and every rule weight are re-fitted
jointly (Yang et al. 2024, eq. 7) with one raw score per output:

    F(b, W) = sum_i s_i l(y_i, b + (Q W)_i) + reg_lambda / 2 * ||W||_F^2

``b`` of shape (m,), ``W`` of shape (t, m), ``Q`` the ``n x t`` 0/1 query
matrix. A rule with a *complete head* has a free weight for every output;
one with a *single-output head* (BOOMER's, Rapp et al. 2023, Section 2.4)
for its own output only, the others held at 0 (``heads``).

* For the label-wise losses (:class:`~rulebook.losses.OutputWiseLoss`:
  logistic per label, squared or Poisson per target) ``F`` is a sum of one
  single-output problem per output, each over the rules that predict for
  it, which :func:`rulebook.corrective.corrective_weights` solves.
* For the multinomial loss the classes share each row's softmax, so ``F``
  is minimised jointly by a damped Newton method with the full Hessian
  ``sum_i s_i (a_i a_i^T) (x) (diag(p_i) - p_i p_i^T)`` (``a_i = [1, Q_i]``),
  on the rows merged by rule pattern (the loss is linear in the one-hot
  ``y``: a pattern's rows are one row of their summed weight at their mean
  target). ``F`` does not change when a constant is added to every class's
  intercept, so its Hessian is singular in that one direction: the last
  class's intercept is held during the Newton steps and the intercepts are
  centred at the end as they started (the multinomial's baseline is).

These re-fits are rulebook's extension: the paper re-fits one output.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 2, eq. 7, Algorithm 1.
.. [2] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning. Advances in Data
   Analysis and Classification. Section 2.4 (heads).
.. [3] Boyd, S., Vandenberghe, L. (2004). Convex Optimization. Section 9.5.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from .corrective import (
    _QUADRATIC,
    _line_search,
    _newton_step,
    corrective_weights,
)
from .losses import OutputWiseLoss

__all__ = ["CorrectiveOutputsFit", "corrective_weights_outputs"]


@dataclass(frozen=True)
class CorrectiveOutputsFit:
    """Result of :func:`corrective_weights_outputs`.

    Attributes
    ----------
    intercept : ndarray of shape (m,), float64
    weights : ndarray of shape (t, m), float64
        0 where ``heads`` is False.
    n_iter : int
        Newton iterations (the most of any output's, label-wise).
    converged : bool
    objective : float
        ``F(intercept, weights)``.
    """

    intercept: np.ndarray
    weights: np.ndarray
    n_iter: int
    converged: bool
    objective: float


def corrective_weights_outputs(loss, y, Q, heads, sample_weight, reg_lambda, start=None,
                               tol=1e-24, max_iter=100):
    """Jointly optimal intercepts and rule weights of several outputs.

    Parameters
    ----------
    loss : MultinomialLoss or OutputWiseLoss
    y : ndarray of shape (n, m), float64
        One-hot classes (multinomial) or the outputs' targets, coded as the
        loss expects.
    Q : ndarray of shape (n, t), float64
        0/1 query matrix, a column per rule.
    heads : ndarray of shape (t, m), bool
        ``heads[j, k]``: rule ``j`` predicts for output ``k``.
    sample_weight : ndarray of shape (n,), float64
    reg_lambda : float >= 0
    start : tuple (ndarray of shape (m,), ndarray of shape (t, m)), optional
        Warm start; default the loss's baseline and zero weights.
    tol, max_iter
        As :func:`rulebook.corrective.corrective_weights`.

    Returns
    -------
    CorrectiveOutputsFit

    Raises
    ------
    ValueError
        Shapes that disagree, a negative ``reg_lambda``.

    Warns
    -----
    UserWarning
        When ``max_iter`` is reached.
    """
    y, Q, heads, sample_weight = _check(y, Q, heads, sample_weight, reg_lambda)
    b, W = _start(loss, y, sample_weight, heads, start)
    if isinstance(loss, OutputWiseLoss):
        return _label_wise(loss.output_loss, y, Q, heads, sample_weight, reg_lambda, b, W, tol,
                           max_iter)
    if getattr(loss, "name", None) != "multinomial":
        raise ValueError(f"several outputs need the multinomial or a label-wise loss; got {loss!r}.")
    return _multinomial(y, Q, heads, sample_weight, reg_lambda, b, W, tol, max_iter)


def _label_wise(output_loss, y, Q, heads, sample_weight, reg_lambda, b, W, tol, max_iter):
    """One single-output re-fit per output, over the rules that predict for it."""
    m = y.shape[1]
    intercept, weights = np.empty(m), np.zeros_like(W)
    n_iter, converged, objective = 0, True, 0.0
    for k in range(m):
        own = heads[:, k]
        fit = corrective_weights(output_loss, y[:, k], Q[:, own], sample_weight, reg_lambda,
                                 start=(b[k], W[own, k]), tol=tol, max_iter=max_iter)
        intercept[k], weights[own, k] = fit.intercept, fit.weights
        n_iter, converged = max(n_iter, fit.n_iter), converged and fit.converged
        objective += fit.objective
    return CorrectiveOutputsFit(intercept, weights, n_iter, converged, objective)


def _multinomial(y, Q, heads, sample_weight, reg_lambda, b, W, tol, max_iter):
    """Damped Newton on the multinomial ``F`` over the free entries of ``[b; W]``."""
    Y, A, s = _merged_rows(y, Q, sample_weight)
    t, m = W.shape
    # theta: the (t + 1) x m matrix [b; W] flattened row by row, its free
    # entries. The last class's intercept is held: F is flat along
    # b + c 1, so that direction is dropped (a rounded Cholesky factor of
    # the singular Hessian took steps along it), and the intercepts are
    # centred at the end as they started.
    free = np.vstack([np.ones((1, m), bool), heads])
    free[0, -1] = False
    free = free.ravel()
    centre = float(b.mean())
    penalty = np.concatenate([np.zeros(m), np.full(t * m, float(reg_lambda))])[free]
    full = np.vstack([b[None, :], W]).ravel()

    def unpack(theta):
        out = full.copy()
        out[free] = theta
        return out.reshape(t + 1, m)

    def objective(theta):
        raw = A @ unpack(theta)
        return float(s @ (logsumexp(raw, axis=1) - (Y * raw).sum(axis=1))
                     + 0.5 * theta @ (penalty * theta))

    theta = full[free]
    value = objective(theta)
    for iteration in range(1, max_iter + 1):
        gradient, hessian = _derivatives(A @ unpack(theta), Y, A, s)
        gradient = gradient[free] + penalty * theta
        hessian = hessian[np.ix_(free, free)] + np.diag(penalty)
        step = _newton_step(hessian, gradient)
        decrement = -float(gradient @ step)
        if decrement <= 2.0 * tol * (1.0 + abs(value)):
            return _fit(unpack(theta), iteration, True, value, centre)
        if decrement <= _QUADRATIC * (1.0 + abs(value)):
            theta = theta + step  # below F's rounding: the full step (as corrective.py)
            value = objective(theta)
            continue
        new, new_value = _line_search(objective, theta, value, step, decrement)
        if new is None:
            return _fit(unpack(theta), iteration, True, value, centre)
        theta, value = new, new_value
    warnings.warn(f"the corrective weight re-fit did not converge in {max_iter} Newton "
                  "iterations: there is no finite minimiser when reg_lambda=0, or when a "
                  "class has no row of positive weight (its intercept goes to -inf).",
                  UserWarning, stacklevel=3)
    return _fit(unpack(theta), max_iter, False, value, centre)


def _derivatives(raw, Y, A, s):
    """Gradient and Hessian of the multinomial risk in the flattened ``[b; W]``.

    Row ``i`` adds ``a_i (x) s_i (p_i - y_i)`` and
    ``s_i (a_i a_i^T) (x) (diag(p_i) - p_i p_i^T)``, (x) the Kronecker
    product, in the row-by-row order of the flattening.
    """
    p = np.exp(raw - logsumexp(raw, axis=1, keepdims=True))
    width, m = A.shape[1], p.shape[1]
    gradient = (A.T @ (s[:, None] * (p - Y))).ravel()
    # sum_i s_i a_ij a_il (delta_kh p_ik - p_ik p_ih), as a (width, m, width, m) array.
    hessian = -np.einsum("ij,ik,il,ih->jklh", A, s[:, None] * p, A, p, optimize=True)
    diagonal = np.einsum("ij,il,ik->jlk", A, A, s[:, None] * p, optimize=True)
    for k in range(m):
        hessian[:, k, :, k] += diagonal[:, :, k]
    return gradient, hessian.reshape(width * m, width * m)


def _merged_rows(y, Q, sample_weight):
    """Rows of one rule pattern merged: one row of their summed weight at their
    weighted mean target (the risk is linear in ``y``); the design ``[1, Q]``."""
    t = Q.shape[1]
    codes = np.unique(Q, axis=0, return_inverse=True)[1].reshape(-1) if t else np.zeros(len(y), int)
    n_groups = int(codes.max()) + 1 if len(codes) else 0
    s = np.bincount(codes, weights=sample_weight, minlength=n_groups)
    Y = np.column_stack([np.bincount(codes, weights=sample_weight * y[:, k], minlength=n_groups)
                         for k in range(y.shape[1])])
    keep = s > 0
    first = np.zeros(n_groups, int)
    first[codes[::-1]] = np.arange(len(codes))[::-1]
    A = np.hstack([np.ones((n_groups, 1)), Q[first]])
    return Y[keep] / s[keep, None], A[keep], s[keep]


def _fit(matrix, n_iter, converged, value, centre):
    """The fit, the intercepts moved to mean ``centre`` (F does not change)."""
    intercept = matrix[0] - (matrix[0].mean() - centre)
    return CorrectiveOutputsFit(intercept, matrix[1:].copy(), n_iter, converged, value)


def _check(y, Q, heads, sample_weight, reg_lambda):
    y = np.asarray(y, dtype=np.float64)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    Q = np.asarray(Q, dtype=np.float64).reshape(len(y), -1)
    heads = np.asarray(heads, dtype=bool)
    if heads.ndim != 2:
        heads = heads.reshape(Q.shape[1], -1) if heads.size else np.zeros((0, y.shape[-1]), bool)
    if y.ndim != 2 or sample_weight.shape != (len(y),) or heads.shape != (Q.shape[1], y.shape[1]):
        raise ValueError(f"y must be of shape (n, m), sample_weight (n,) and heads (t, m); got "
                         f"{y.shape}, {sample_weight.shape} and {heads.shape} with t="
                         f"{Q.shape[1]}.")
    if not reg_lambda >= 0:
        raise ValueError(f"reg_lambda must be >= 0; got {reg_lambda!r}.")
    return y, Q, heads, sample_weight


def _start(loss, y, sample_weight, heads, start):
    if start is None:
        return (np.asarray(loss.baseline(y, sample_weight), dtype=np.float64),
                np.zeros(heads.shape))
    b, W = start
    b = np.asarray(b, dtype=np.float64).reshape(-1)
    W = np.asarray(W, dtype=np.float64).reshape(heads.shape) * heads
    return b, W
