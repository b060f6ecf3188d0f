"""RuleFit's L1 fit: the regularisation path over the candidate rules.

Lasso (squared loss) or L1-penalised logistic regression over the rules'
indicator columns (and, with ``include_linear``, the scaled linear terms'
dense columns after them, penalised alike: Section 5 of [1] scales them to
a typical rule's standard deviation so that one penalty fits both),
warm-started down a geometric grid of strengths from
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
.. [3] Tibshirani, R., Bien, J., Friedman, J., Hastie, T., Simon, N.,
   Taylor, J., Tibshirani, R. J. (2012). Strong rules for discarding
   predictors in lasso-type problems. Journal of the Royal Statistical
   Society B 74(2). Section 2 (eq. 6, the sequential strong rule) and
   Section 7 (KKT checks).
"""

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
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
# noisy; 1e-7 costs little (warm starts) and gives lasso weights to about
# 1e-5. liblinear's criterion is relative to its gradient at w = 0: on
# titanic and breast cancer its weights are within about 1e-3 of the largest
# weight of a fit at 1e-13, the objective within 1e-9.
_TOLERANCE = 1e-7
# Rules of zero weight added to a logistic fit's working set beyond the
# rules already in the model nearby (_L1Fitter._working_set): more means
# fewer refits, fewer means less memory in liblinear (32 bytes per non-zero).
_WORKING_SET_MARGIN = 10


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

    ``Z`` is a sparse :class:`~rulebook.rulefit_rules._RuleMatrix`. The lasso
    reads its stored columns, some of them complements of ``Z``'s
    (:meth:`_fit_lasso`); liblinear reads ``Z``'s own columns of a working
    set (:meth:`_fit_logistic`).
    """

    def __init__(self, Z, y, weights, loss, random_state):
        self.Z, self.weights, self.loss = Z, weights, loss
        self.target = (y > 0).astype(np.float64) if loss.name == "logistic" else y
        # Each logistic fit's (alpha, rule weights, gradient), alpha_max's
        # included: where the next working set starts (_working_set).
        self._fitted = []
        if loss.name == "logistic":
            self.model = LogisticRegression(
                l1_ratio=1.0, solver="liblinear", intercept_scaling=_INTERCEPT_SCALING,
                tol=_TOLERANCE, max_iter=100, random_state=random_state,
            )
        else:
            # copy_X=False: a sparse X is not modified (no centring in place).
            self.model = Lasso(warm_start=True, tol=_TOLERANCE, max_iter=10_000, selection="cyclic",
                               copy_X=False)

    def alpha_max(self):
        """Smallest strength at which every rule weight is zero (KKT at the intercept-only model)."""
        if self.Z.shape[1] == 0:
            return 0.0
        mean = np.average(self.target, weights=self.weights)
        gradient = self._gradient(self.weights * (self.target - mean))
        alpha_max = float(np.abs(gradient).max())
        self._fitted.append((alpha_max, np.zeros(self.Z.shape[1]), gradient))
        return alpha_max

    def intercept_only(self, alpha):
        intercept = self.loss.baseline(self._loss_target(), self.weights)
        coef = np.zeros(self.Z.shape[1])
        return self._point(alpha, intercept, coef, np.full(len(self.target), float(intercept)))

    def fit(self, alpha):
        with warnings.catch_warnings():
            # Strengths near a change of the active set converge slowly; the
            # tolerance reached is ample for selecting rules.
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.loss.name == "logistic":
                return self._fit_logistic(alpha)
            return self._fit_lasso(alpha)

    def _fit_lasso(self, alpha):
        """The lasso on the stored columns, mapped back to ``Z``'s.

        A flipped column is ``1 - Z[:, j]``; with an unpenalised intercept,
        ``b' + w' (1 - z) = (b' + w') - w' z``: the same fit with weight
        ``-w'`` and intercept ``b' + w'``, and the same penalty ``|w'|``. So
        the stored problem is the lasso on ``Z`` (its centred columns differ
        only in sign, and coordinate descent's soft threshold is odd) and
        its solution maps back exactly.
        """
        self.model.set_params(alpha=alpha)
        self.model.fit(self.Z.stored, self.target, sample_weight=self.weights)
        stored_coef = self.model.coef_
        intercept = float(self.model.intercept_) + float(stored_coef[self.Z.flipped].sum())
        coef = self.Z.signs * stored_coef
        return self._point(alpha, intercept, coef, intercept + self.Z.matvec(coef))

    def _fit_logistic(self, alpha):
        """L1 logistic regression by liblinear on a working set of rules, checked by KKT.

        liblinear copies its input twice (rows, and columns for its
        coordinate descent), 32 bytes per non-zero, so it sees only the rules
        of a working set (:meth:`_working_set`). A rule left out must satisfy
        the optimality condition of a zero weight, ``|Z[:, j]' (w (y - p))| /
        sum(w) <= alpha``, at the fitted ``p``; the largest violators join the
        working set (at most doubling it) and the fit is repeated until there
        is none ([3], Section 7). What is returned is therefore a solution of
        the problem over all rules, to liblinear's tolerance. (liblinear
        penalises its intercept, so complemented columns, which move the
        intercept, would be another problem: it reads ``Z``'s own columns.)
        """
        self.model.set_params(C=1.0 / (alpha * self.weights.sum()))
        working = self._working_set(alpha)
        while True:
            self.model.fit(self.Z.columns(working), self.target, sample_weight=self.weights)
            coef = np.zeros(self.Z.shape[1])
            coef[working] = np.ravel(self.model.coef_)
            intercept = float(np.ravel(self.model.intercept_)[0])
            raw = intercept + self.Z.matvec(coef)
            gradient = self._gradient(self.weights * (self.target - expit(raw)))
            violation = np.abs(gradient) - alpha
            violation[working] = 0.0
            violating = np.flatnonzero(violation > 0)
            if len(violating) == 0:
                break
            worst = violating[np.argsort(-violation[violating], kind="stable")[:len(working)]]
            working = np.union1d(working, worst)
        self._fitted.append((alpha, coef, gradient))
        return self._point(alpha, intercept, coef, raw)

    def _working_set(self, alpha):
        """Rules likely to have a non-zero weight at ``alpha``.

        The rules with a non-zero weight at the nearest strengths fitted
        above and below ``alpha``, and, of the others, the largest
        gradients at the strength above, ``alpha_0``, that pass the
        sequential strong rule ``|g_j| >= 2 alpha - alpha_0`` ([3], eq. 6),
        at most ``_WORKING_SET_MARGIN`` of them. A wrong guess costs a refit
        (:meth:`_fit_logistic`), not accuracy.
        """
        above = min((f for f in self._fitted if f[0] >= alpha), key=lambda f: f[0])
        below = max((f for f in self._fitted if f[0] < alpha), key=lambda f: f[0], default=None)
        alpha_0, coef, gradient = above
        active = (coef != 0) | (below is not None and below[1] != 0)
        strength = np.where(active, 0.0, np.abs(gradient))
        passing = np.flatnonzero(strength >= max(2 * alpha - alpha_0, 0.0) + np.finfo(float).tiny)
        likely = passing[np.argsort(-strength[passing], kind="stable")[:_WORKING_SET_MARGIN]]
        working = np.union1d(np.flatnonzero(active), likely)
        # liblinear needs a column: the largest gradient when nothing else is likely.
        return working if len(working) else np.array([np.argmax(np.abs(gradient))])

    def _gradient(self, residual):
        """``Z' residual / sum(w)``: the mean loss's negative gradient in the rule weights."""
        return self.Z.rmatvec(residual) / self.weights.sum()

    def _point(self, alpha, intercept, coef, raw):
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
        pairs = itertools.pairwise(ordered)
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

