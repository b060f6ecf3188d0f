"""Loss functions with their gradient statistics.

Each loss is a small stateless object. The boosting loop only needs

* ``loss(y, raw, sample_weight)``: the weighted mean loss (the empirical risk),
* ``gradient_hessian(y, raw, sample_weight)``: per-row ``g`` and ``h``,
* ``baseline(y, sample_weight)``: the constant raw score minimising the risk
  (the intercept, or *background rule*),
* ``inverse_link(raw)``: raw score to the predicted mean.

The multinomial loss (:class:`MultinomialLoss`) has one raw score per
class: its ``y``, ``raw``, ``g`` and ``h`` have shape (n, K) and its
baseline shape (K,).

Conventions follow Boley et al. (2021), Section 2.3, so that the papers'
regularisation strengths ``reg_lambda`` carry over unchanged: the squared
loss is ``(y - f)^2`` (not halved, hence ``g = -2 (y - f)`` and ``h = 2``)
and the logistic loss is ``log(1 + exp(-y f))`` with ``y`` in ``{-1, +1}``.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SIAM
   International Conference on Data Mining. Section 2.3.
"""

from dataclasses import dataclass

import warnings

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit, log_expit, log_softmax, xlogy

# exp(709) is the largest power of e below the float64 maximum. Poisson raw
# scores are clipped there so that exp never overflows; a model predicting a
# mean of e^709 is already meaningless, so nothing real is lost.
_MAX_LOG = 700.0


def _weighted_mean(values, sample_weight):
    # np.average's own arithmetic (multiply, sum, divide by the summed
    # weights), the same bits, without its argument handling: that took
    # about 8 us a call, and a round makes several calls.
    if sample_weight is None:
        return float(np.average(values))
    values, weights = np.asarray(values, np.float64), np.asarray(sample_weight, np.float64)
    total = weights.sum()
    if values.shape != weights.shape or total == 0.0:
        return float(np.average(values, weights=sample_weight))  # its result or its error
    return float(np.multiply(values, weights).sum() / total)


@dataclass(frozen=True)
class SquaredLoss:
    """Squared error ``l(y, f) = (y - f)^2`` with identity link."""

    name: str = "squared"

    def loss(self, y, raw, sample_weight):
        return _weighted_mean(self.pointwise(y, raw), sample_weight)

    def pointwise(self, y, raw):
        """Each row's loss, element-wise (also of (n, K) arrays)."""
        return (y - raw) ** 2

    def gradient_hessian(self, y, raw, sample_weight):
        g = -2.0 * (y - raw) * sample_weight
        h = 2.0 * sample_weight
        return g, h

    def baseline(self, y, sample_weight):
        return _weighted_mean(y, sample_weight)

    def inverse_link(self, raw):
        return np.asarray(raw, dtype=np.float64)


@dataclass(frozen=True)
class LogisticLoss:
    """Logistic loss ``l(y, f) = log(1 + exp(-y f))``, ``y`` in ``{-1, +1}``.

    The raw score is the log odds of the positive class. All terms are
    computed with ``log_expit``/``expit`` so that large scores neither
    overflow nor lose the gradient to cancellation.
    """

    name: str = "logistic"

    def loss(self, y, raw, sample_weight):
        return _weighted_mean(self.pointwise(y, raw), sample_weight)

    def pointwise(self, y, raw):
        """Each row's loss, element-wise (also of (n, K) arrays)."""
        return -log_expit(y * raw)

    def gradient_hessian(self, y, raw, sample_weight):
        # g = -y * sigma(-y f), h = sigma(y f) * sigma(-y f)   (Sec. 2.3)
        p_wrong = expit(-y * raw)
        g = -y * p_wrong * sample_weight
        # Not p (1 - p): for confident rows 1 - p rounds to 0 and the
        # Hessian (~e^-|f|) would be lost.
        h = expit(y * raw) * p_wrong * sample_weight
        return g, h

    def baseline(self, y, sample_weight):
        # Clipped so that a class with no weight gives a large finite log
        # odds (about +-27.6) instead of an infinite intercept.
        p = np.clip(_weighted_mean(y > 0, sample_weight), 1e-12, 1 - 1e-12)
        return float(np.log(p) - np.log1p(-p))

    def inverse_link(self, raw):
        return expit(raw)


@dataclass(frozen=True)
class PoissonLoss:
    """Poisson loss ``l(y, f) = y log y - y f - y + exp(f)`` (log link).

    Half the unit Poisson deviance, so it is 0 at a perfect fit (Yang et al.
    2024, Section 2). ``f`` is the log of the predicted mean;
    ``g = exp(f) - y``, ``h = exp(f)``.
    """

    name: str = "poisson"

    def loss(self, y, raw, sample_weight):
        return _weighted_mean(self.pointwise(y, raw), sample_weight)

    def pointwise(self, y, raw):
        """Each row's loss, element-wise (also of (n, K) arrays)."""
        raw = np.minimum(raw, _MAX_LOG)
        return xlogy(y, y) - y * raw - y + np.exp(raw)

    def gradient_hessian(self, y, raw, sample_weight):
        mu = np.exp(np.minimum(raw, _MAX_LOG))
        return (mu - y) * sample_weight, mu * sample_weight

    def baseline(self, y, sample_weight):
        # Clipped for the same reason when only zero-weight rows are positive.
        mean = _weighted_mean(y, sample_weight)
        return float(np.log(mean)) if mean > 0 else float(np.log(1e-12))

    def inverse_link(self, raw):
        return np.exp(np.minimum(raw, _MAX_LOG))


@dataclass(frozen=True)
class MultinomialLoss:
    """Multinomial (softmax) loss of ``K`` classes, ``-log softmax(f)_y``.

    ``y`` is the one-hot matrix of shape (n, K) and the raw score ``f`` has
    one column per class; ``p = softmax(f)``. The gradient is ``p - y``
    and the Hessian its diagonal ``p (1 - p)``, per class, as in XGBoost's
    multi-class boosting: each class is a boosting problem of its own
    whose sums a complete head adds up (BOOMER's label-wise
    decomposable case, Rapp et al. 2023, Section 2.4.2). The raw scores are determined up to a
    constant per row; the intercept is centred (its mean over classes 0).

    References
    ----------
    .. [1] Chen, T., Guestrin, C. (2016). XGBoost: a scalable tree boosting
       system. KDD. Section 2.2 (second-order approximation); its
       ``multi:softmax`` objective uses the diagonal ``p (1 - p)``.
    .. [2] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.2, eq. 3.
    """

    name: str = "multinomial"

    def loss(self, y, raw, sample_weight):
        return _weighted_mean(-(y * log_softmax(raw, axis=1)).sum(axis=1), sample_weight)

    def gradient_hessian(self, y, raw, sample_weight):
        p, q = _softmax_and_complement(raw)
        w = np.asarray(sample_weight, dtype=np.float64)[:, None]
        # p - y, written so that the true class's ``p - 1`` is ``-q``: for a
        # confident row 1 - p rounds to 0 and the gradient would be lost (as
        # LogisticLoss, which avoids 1 - p for the same reason).
        g = np.where(y > 0, -q, p) * w
        h = p * q * w
        return g, h

    def baseline(self, y, sample_weight):
        # Log class priors, clipped as LogisticLoss's, centred over classes.
        w = np.asarray(sample_weight, dtype=np.float64)
        prior = np.clip((y * w[:, None]).sum(axis=0) / w.sum(), 1e-12, 1.0)
        log_prior = np.log(prior)
        return log_prior - log_prior.mean()

    def inverse_link(self, raw):
        return _softmax_and_complement(np.asarray(raw, dtype=np.float64))[0]


def _softmax_and_complement(raw):
    """``p = softmax(raw)`` per row and ``q = 1 - p`` without cancellation.

    ``q_k`` is the sum of the other classes' exponentials (those before
    ``k`` plus those after it, both sums of positive terms) over their
    total, not ``1 - p_k``, which rounds to 0 for a confident row.
    """
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    # Exclusive cumulative sums, shifted rather than subtracted (a
    # subtraction would cancel just where q is small).
    before, after = np.zeros_like(e), np.zeros_like(e)
    np.cumsum(e[:, :-1], axis=1, out=before[:, 1:])
    np.cumsum(e[:, :0:-1], axis=1, out=after[:, -2::-1])
    total = e.sum(axis=1, keepdims=True)
    return e / total, (before + after) / total


LOSSES = {cls.name: cls for cls in (SquaredLoss(), LogisticLoss(), PoissonLoss(),
                                    MultinomialLoss())}


def get_loss(name):
    """Return the loss object called ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not one of ``"squared"``, ``"logistic"``,
        ``"poisson"``, ``"multinomial"``.
    """
    try:
        return LOSSES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"loss={name!r} is not supported; valid losses are {sorted(LOSSES)}"
        ) from None


# Largest rule weight searched for; reached only when the regularised loss
# has no finite minimiser (reg_lambda = 0 and, e.g., a logistic extent of one
# class), where any large weight is as good as another.
_MAX_WEIGHT = 1e12


def newton_rule_weight(loss, y, raw, sample_weight, reg_lambda, xtol=1e-12):
    """Weight ``w`` minimising ``sum_i s_i l(y_i, raw_i + w) + reg_lambda/2 w^2``.

    Used for the rule weight of objectives without a closed-form weight
    (gradient sum, gradient boosting). The function is convex in ``w``, so
    its derivative ``sum_i g_i(raw_i + w) + reg_lambda w`` is monotone: the
    root is bracketed by doubling steps from 0 and then found by SciPy's
    Brent method, which is robust where Newton steps are not (tiny
    Hessians far from the optimum) and independent of the weights' scale.

    Parameters
    ----------
    loss : loss object
    y, raw, sample_weight : ndarray of shape (m,), float64
        Targets, current raw scores and weights of the rows the rule covers.
    reg_lambda : float
        L2 penalty on the weight (Boley et al. 2021, eq. 2.1).
    xtol : float
        Absolute tolerance on ``w`` (relative tolerance is machine precision).

    Returns
    -------
    float

    Warns
    -----
    UserWarning
        When no finite minimiser exists within ``|w| <= 1e12``.
    """

    def derivative(w):
        g, _ = loss.gradient_hessian(y, raw + w, sample_weight)
        return float(g.sum()) + reg_lambda * w

    d0 = derivative(0.0)
    if d0 == 0.0:
        return 0.0
    direction = -np.sign(d0)
    step = 1.0
    while derivative(direction * step) * direction < 0:
        if step >= _MAX_WEIGHT:
            warnings.warn("the rule weight has no finite minimiser (reg_lambda=0 and a "
                          "perfectly separated extent?); it is capped at 1e12. Use "
                          "reg_lambda > 0.", UserWarning, stacklevel=3)
            return float(direction * step)
        step *= 2.0
    low, high = sorted((direction * step / 2.0 if step > 1.0 else 0.0, direction * step))
    return float(brentq(derivative, low, high, xtol=xtol, rtol=4 * np.finfo(float).eps))


@dataclass(frozen=True)
class OutputWiseLoss:
    """A single-output loss applied to each of ``K`` outputs and summed.

    The *label-wise decomposable* losses of BOOMER (Rapp et al. 2023,
    Section 2.4.2): the logistic loss per label of a multi-label target,
    the squared or Poisson loss per output of a multi-output regression.
    ``y``, ``raw``, ``g`` and ``h`` have shape (n, K): output ``k``'s
    gradient and Hessian are those of ``output_loss`` on column ``k``
    (the Hessian is diagonal, the outputs independent), the risk is the
    sum over outputs of their weighted mean losses, and the baseline has
    one entry per output. ``name`` is the output loss's: a model stores
    it with its ``outputs`` (:class:`~rulebook.rules.RuleEnsemble`), and
    its inverse link applies element-wise.

    Parameters
    ----------
    output_loss : SquaredLoss, LogisticLoss or PoissonLoss
        The loss of each output; ``y`` coded as it expects (``+1``/``-1``
        labels for the logistic loss).

    References
    ----------
    .. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.2
       (label-wise decomposable losses).
    .. [2] Dembczyński, K., Waegeman, W., Cheng, W., Hüllermeier, E.
       (2012). On label dependence and loss minimization in multi-label
       classification. Machine Learning 88, 5-45.
    """

    output_loss: object

    @property
    def name(self):
        return self.output_loss.name

    def loss(self, y, raw, sample_weight):
        w = np.asarray(sample_weight, np.float64)
        total = w.sum()
        if total == 0.0 or y.shape != raw.shape or w.shape != y.shape[:1]:
            # np.average's error (or result), output by output.
            return float(sum(self.output_loss.loss(y[:, k], raw[:, k], sample_weight)
                             for k in range(y.shape[1])))
        # All outputs in one element-wise pass (the same numbers element by
        # element: the output losses are element-wise), then each output's
        # weighted sum over a contiguous row of the transpose: NumPy's
        # pairwise sum, as of the column alone (a sum down axis 0 would
        # add row after row: other bits). Output by output it took 6 calls
        # a loss and 3 losses a round (5 ms of a 10-rule fit of emotions).
        products = np.multiply(self.output_loss.pointwise(y, raw), w[:, None])
        sums = np.ascontiguousarray(products.T).sum(axis=1)
        return float(sum(float(s / total) for s in sums))

    def gradient_hessian(self, y, raw, sample_weight):
        # Every output loss's gradient and Hessian are element-wise in y and
        # raw, so one call on the (n, K) arrays with the weights as a column
        # computes all outputs (the squared loss's Hessian, 2 w, has no y:
        # broadcast to the outputs).
        w = np.asarray(sample_weight, dtype=np.float64)[:, None]
        g, h = self.output_loss.gradient_hessian(y, raw, w)
        return (np.ascontiguousarray(g, dtype=np.float64),
                np.ascontiguousarray(np.broadcast_to(h, g.shape), dtype=np.float64))

    def baseline(self, y, sample_weight):
        return np.array([self.output_loss.baseline(y[:, k], sample_weight)
                         for k in range(y.shape[1])], dtype=np.float64)

    def inverse_link(self, raw):
        return self.output_loss.inverse_link(raw)
