"""RuleFit's L1 fit: the regularisation path over the candidate rules.

Lasso (squared loss) or L1-penalised logistic regression over the rules'
indicator columns, warm-started down a geometric grid of strengths from
``alpha_max`` and bisected where the number of rules passes ``max_rules``
(Friedman and Popescu 2008, Section 2; Friedman, Hastie and Tibshirani
2010). Used by :mod:`rulebook.rulefit`.

References
----------
.. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3). Section 2 (eq. 25).
.. [2] Friedman, J. H., Hastie, T., Tibshirani, R. (2010). Regularization
   paths for generalized linear models via coordinate descent. Journal of
   Statistical Software 33(1).
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression

# Regularisation path: geometric grid of L1 strengths below alpha_max, how
# far down it goes when neither max_rules nor alpha stops it, and how many
# bisection steps refine the strength at which max_rules is exceeded
# (8 steps narrow one grid step, a factor 10**(1/20), to 0.05 %).
_STEPS_PER_DECADE = 20
_PATH_DECADES = 4
_BISECTION_STEPS = 8
# liblinear penalises the intercept like a coefficient of a constant column
# of this value; a large value makes that penalty negligible, so that, as in
# the lasso, only the rule weights are shrunk.
_INTERCEPT_SCALING = 100.0
# Solver tolerance (duality gap for the lasso, relative to the variance of y;
# liblinear's stopping criterion). The solvers' default 1e-4 leaves rule
# weights of correlated rules off by several per cent and the path's sizes
# noisy; 1e-7 costs little (warm starts) and gives weights to about 1e-5.
_TOLERANCE = 1e-7


# -- sparse fit along the regularisation path ---------------------------------
@dataclass(frozen=True)
class _PathPoint:
    alpha: float
    intercept: float
    coef: np.ndarray
    train_loss: float

    @property
    def n_rules(self):
        return int(np.count_nonzero(self.coef))


class _L1Fitter:
    """Fits the L1-penalised model at any strength ``alpha``, warm started.

    ``alpha`` multiplies the L1 norm of the rule weights against the mean
    loss: ``1/2 mean (y - f)^2`` (scikit-learn's ``Lasso``) or the mean
    logistic loss (``LogisticRegression`` with ``C = 1 / (alpha sum(w))``).
    """

    def __init__(self, Z, y, weights, loss, random_state):
        self.Z, self.weights, self.loss = Z, weights, loss
        self.target = (y > 0).astype(np.float64) if loss.name == "logistic" else y
        if loss.name == "logistic":
            self.model = LogisticRegression(
                l1_ratio=1.0, solver="liblinear", intercept_scaling=_INTERCEPT_SCALING,
                tol=_TOLERANCE, max_iter=100, random_state=random_state,
            )
        else:
            self.model = Lasso(warm_start=True, tol=_TOLERANCE, max_iter=10_000, selection="cyclic")

    def alpha_max(self):
        """Smallest strength at which every rule weight is zero (KKT at the intercept-only model)."""
        if self.Z.shape[1] == 0:
            return 0.0
        mean = np.average(self.target, weights=self.weights)
        gradient = self.Z.T @ (self.weights * (self.target - mean)) / self.weights.sum()
        return float(np.abs(gradient).max())

    def intercept_only(self, alpha):
        intercept = self.loss.baseline(self._loss_target(), self.weights)
        return self._point(alpha, intercept, np.zeros(self.Z.shape[1]))

    def fit(self, alpha):
        if self.loss.name == "logistic":
            self.model.set_params(C=1.0 / (alpha * self.weights.sum()))
        else:
            self.model.set_params(alpha=alpha)
        with warnings.catch_warnings():
            # Strengths near a change of the active set converge slowly; the
            # tolerance reached is ample for selecting rules.
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(self.Z, self.target, sample_weight=self.weights)
        coef = np.ravel(self.model.coef_).copy()
        return self._point(alpha, float(np.ravel(self.model.intercept_)[0]), coef)

    def _point(self, alpha, intercept, coef):
        selected = np.flatnonzero(coef)
        raw = intercept + self.Z[:, selected] @ coef[selected]
        return _PathPoint(alpha, intercept, coef, self.loss.loss(self._loss_target(), raw, self.weights))

    def _loss_target(self):
        # rulebook's logistic loss takes y in {-1, +1}.
        return 2.0 * self.target - 1.0 if self.loss.name == "logistic" else self.target


def _regularisation_path(fitter, max_rules, alpha_min):
    """Walk down the L1 strengths; return the visited points and the chosen one.

    From ``alpha_max`` (no rule) down a geometric grid to ``alpha_min``
    (``alpha_max * 1e-4`` if None) or until the fit saturates
    (:func:`_path_saturated`), stopping at the first strength with
    more than ``max_rules`` rules and bisecting (in log scale) between it and
    the previous strength. The chosen point is the least regularised one
    visited with at most ``max_rules`` rules (the last grid point if the cap
    is never reached). Sizes below ``max_rules`` that the grid skips are
    then looked for by bisection (:func:`_fill_skipped_sizes`).
    """
    alpha_max = fitter.alpha_max()
    if alpha_max <= 0 or (alpha_min is not None and alpha_min >= alpha_max):
        point = fitter.intercept_only(alpha_max if alpha_min is None else alpha_min)
        return [point], point
    floor = alpha_max * 10.0 ** -_PATH_DECADES if alpha_min is None else alpha_min
    best = fitter.intercept_only(alpha_max)
    points = [best]
    step = 1
    while True:
        alpha = max(alpha_max * 10.0 ** (-step / _STEPS_PER_DECADE), floor)
        point = fitter.fit(alpha)
        points.append(point)
        if max_rules is not None and point.n_rules > max_rules:
            # Bisect between the strengths giving at most and more than max_rules.
            within, beyond = best.alpha, alpha
            for _ in range(_BISECTION_STEPS):
                middle = float(np.sqrt(within * beyond))
                trial = fitter.fit(middle)
                points.append(trial)
                if trial.n_rules <= max_rules:
                    best, within = trial, middle
                else:
                    beyond = middle
            break
        if alpha <= floor or _path_saturated(points[0], best, point):
            best = point
            break
        best = point
        step += 1
    if max_rules is not None:
        points += _fill_skipped_sizes(fitter, points, max_rules)
    return sorted(points, key=lambda p: -p.alpha), best


def _path_saturated(null, previous, point):
    """True when the path has nothing left to gain (glmnet's ``devmax`` and ``fdev``).

    True when 99.9 % of the null model's loss is explained, when the loss
    changed by less than 1e-5 relatively over the last step, or when every
    candidate rule is in the model. Without this a separable classification
    problem would walk all the way down the grid with weights growing
    without bound.
    """
    explained = 1.0 - point.train_loss / null.train_loss if null.train_loss > 0 else 1.0
    tiny = np.finfo(float).tiny
    change = abs(previous.train_loss - point.train_loss) / max(previous.train_loss, tiny)
    return explained >= 0.999 or change < 1e-5 or point.n_rules == len(point.coef)


def _fill_skipped_sizes(fitter, points, max_rules):
    """Path points for the sizes ``1 .. max_rules - 1`` that the grid skipped.

    Near ``alpha_max`` one grid step often adds several rules at once, so
    the smallest models, the ones users read first, would be missing from
    the score-versus-rules curve. For each missing size ``k`` the strengths
    between neighbours with fewer and more than ``k`` rules are bisected
    until a model with exactly ``k`` rules appears (or the bisection steps
    run out: the path may jump over ``k`` at a single strength).
    """
    found = {p.n_rules for p in points}
    new = []
    for k in range(1, max_rules):
        if k in found:
            continue
        ordered = sorted(points + new, key=lambda p: -p.alpha)
        pairs = zip(ordered, ordered[1:])
        bracket = next(((a, b) for a, b in pairs if a.n_rules < k < b.n_rules), None)
        if bracket is None:
            continue
        # Strengths giving fewer and more than k rules (fewer at the larger one).
        fewer, more = bracket[0].alpha, bracket[1].alpha
        for _ in range(_BISECTION_STEPS):
            middle = float(np.sqrt(fewer * more))
            trial = fitter.fit(middle)
            new.append(trial)
            found.add(trial.n_rules)
            if trial.n_rules == k:
                break
            if trial.n_rules < k:
                fewer = middle
            else:
                more = middle
    return new


# -- 3. importances ([1], Sec. 6) ---------------------------------------------
