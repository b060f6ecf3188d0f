"""Choosing ``reg_lambda`` and the number of rules by cross-validation.

:class:`RuleBoostingClassifierCV` and :class:`RuleBoostingRegressorCV` fit
one boosting run of ``n_rules`` rules per strength ``reg_lambda`` and fold,
score the model after every round on the held-out fold (the staged models
of that one fit: no refit per number of rules), choose the pair with the
best mean score (or, with ``selection="one_standard_error"``, the
simplest pair within one standard error of it), and refit on all rows.
Yang et al. choose ``lambda`` by inner cross-validation in the same way.
The conventions are scikit-learn's ``*CV`` estimators' (``cv``,
``scoring``, ``n_jobs``, ``cv_results_``, ``best_params_``).

References
----------
.. [1] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 4 (lambda chosen by inner
   cross-validation).
.. [2] Hastie, T., Tibshirani, R., Friedman, J. (2009). The Elements of
   Statistical Learning, 2nd ed. Section 7.10 (the one-standard-error
   rule).
"""

import numbers
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils import _safe_indexing, indexable
from sklearn.utils.validation import check_is_fitted

from ._progress import round_bar
from .estimators import RuleBoostingClassifier, RuleBoostingRegressor
from .losses import get_loss

SELECTIONS = ("best", "one_standard_error")
DEFAULT_REG_LAMBDAS = (0.1, 1.0, 10.0, 100.0)

_SHARED_DOC = """
    Parameters
    ----------
    n_rules : int >= 1, default=10
        The most rules considered: every number from 1 to ``n_rules`` is
        scored, from the staged models of one fit per strength and fold.
    reg_lambdas : sequence of float >= 0, default=(0.1, 1, 10, 100)
        The strengths ``reg_lambda`` tried (L2 penalty of the rule weights,
        in units of the Hessian sum: rows for the squared loss).
    cv : int, cross-validation generator or iterable, default=5
        As in scikit-learn: an int is the number of folds, stratified for
        classifiers (``sklearn.model_selection.check_cv``).
    scoring : str, callable or None, default=None
        A scikit-learn scorer; None uses the estimator's ``score``
        (accuracy for the classifier, R^2 for the regressor).
    selection : {"best", "one_standard_error"}, default="best"
        ``"best"``: the pair with the highest mean score (ties: fewer rules,
        then the larger ``reg_lambda``). ``"one_standard_error"``: the
        fewest rules, then the largest ``reg_lambda``, whose mean score is
        within one standard error (over folds) of the best ([2]).
    n_jobs : int or None, default=None
        Fits run in parallel by joblib (strengths x folds); None is 1.
    learner, objective, max_bins, cut_points, max_rule_length, weight_update, max_categories, \
include_linear
        As in the estimator fitted (see its documentation).
    verbose : int, default=1
        0: silent; 1: a progress bar over the fits.

    Attributes
    ----------
    reg_lambda_ : float
        The strength chosen.
    n_rules_ : int
        The number of rules chosen.
    best_params_ : dict
        ``{"reg_lambda": reg_lambda_, "n_rules": n_rules_}``.
    best_score_ : float
        Mean cross-validated score of the chosen pair.
    best_index_ : int
        Its row in ``cv_results_``.
    cv_results_ : dict of ndarray
        One entry per pair (strength-major): ``param_reg_lambda``,
        ``param_n_rules``, ``params``, ``split{i}_test_score``,
        ``mean_test_score``, ``std_test_score``, ``rank_test_score`` and
        ``mean_fit_time`` (seconds per fold of the strength's fits).
    best_estimator_ : estimator
        Refitted on all rows with ``best_params_``; ``predict`` and the
        other methods below delegate to it, and ``to_json`` saves it.
    ensemble_, history_ : the best estimator's
    n_features_in_, feature_names_in_ : as in scikit-learn

    References
    ----------
    .. [1] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
       additive rule ensembles. AISTATS. Section 4.
    .. [2] Hastie, T., Tibshirani, R., Friedman, J. (2009). The Elements of
       Statistical Learning, 2nd ed. Section 7.10.
"""


class _RuleBoostingCV(BaseEstimator):
    _estimator_class = None

    def _base_params(self):
        return {"learner": self.learner, "objective": self.objective, "max_bins": self.max_bins,
                "cut_points": self.cut_points, "max_rule_length": self.max_rule_length,
                "weight_update": self.weight_update, "max_categories": self.max_categories,
                "include_linear": self.include_linear}

    def _estimator(self, reg_lambda, n_rules, verbose=0):
        return self._estimator_class(n_rules, reg_lambda=reg_lambda, verbose=verbose,
                                     **self._base_params())

    def fit(self, X, y, sample_weight=None):
        """Cross-validate every strength and number of rules, then refit the best.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            As in the estimator's ``fit``. Not modified.
        y : array-like of shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), optional
            Used in every fit and, on the held-out folds, by the scorer.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Invalid ``reg_lambdas``, ``selection`` or ``n_rules``, or any
            error of the estimator's ``fit`` (raised by the first fit).
        """
        lambdas = self._check_cv_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        # The estimator's own checks first, on all rows: a bad input names
        # its column or parameter once, not from inside a fold.
        self._estimator(lambdas[0], 1).fit(X, y, sample_weight)
        X, y = indexable(X, y)
        if sample_weight is not None and np.ndim(np.asarray(sample_weight)) > 0:
            sample_weight = np.asarray(sample_weight)
        splits = list(check_cv(self.cv, y, classifier=is_classifier(self)).split(X, y))
        scorer = check_scoring(self._estimator(lambdas[0], self.n_rules), scoring=self.scoring)
        tasks = [(lam, train, test) for lam in lambdas for train, test in splits]
        with round_bar(len(tasks), self.verbose, desc="cross-validation fits") as progress:
            results = []
            parallel = Parallel(n_jobs=self.n_jobs, return_as="generator")
            for result in parallel(delayed(_fold_scores)(self._estimator(lam, self.n_rules), X, y,
                                                         sample_weight, train, test, scorer)
                                   for lam, train, test in tasks):
                results.append(result)
                progress.update(1)
        scores = np.array([s for s, _ in results]).reshape(len(lambdas), len(splits), self.n_rules)
        seconds = np.array([t for _, t in results]).reshape(len(lambdas), len(splits))
        self.cv_results_ = _cv_results(lambdas, scores, seconds)
        self.best_index_ = _select(self.cv_results_, self.selection, len(splits))
        best = self.cv_results_["params"][self.best_index_]
        self.best_params_ = dict(best)
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.reg_lambda_, self.n_rules_ = best["reg_lambda"], best["n_rules"]
        self.best_estimator_ = self._estimator(self.reg_lambda_, self.n_rules_, self.verbose)
        self.best_estimator_.fit(X, y, sample_weight)
        for name in ("ensemble_", "history_", "classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(self.best_estimator_, name):
                setattr(self, name, getattr(self.best_estimator_, name))
        return self

    def _check_cv_params(self):
        if isinstance(self.n_rules, bool) or not isinstance(self.n_rules, numbers.Integral) \
                or self.n_rules < 1:
            raise ValueError(f"n_rules must be an int >= 1; got {self.n_rules!r}.")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}; got {self.selection!r}.")
        try:
            lambdas = [float(v) for v in self.reg_lambdas]
        except (TypeError, ValueError):
            raise ValueError("reg_lambdas must be a non-empty sequence of numbers >= 0; "
                             f"got {self.reg_lambdas!r}.") from None
        if not lambdas or any(isinstance(v, bool) for v in self.reg_lambdas) \
                or not all(np.isfinite(v) and v >= 0 for v in lambdas):
            raise ValueError("reg_lambdas must be a non-empty sequence of finite numbers >= 0; "
                             f"got {self.reg_lambdas!r}.")
        if len(set(lambdas)) != len(lambdas):
            raise ValueError(f"reg_lambdas has repeated values: {self.reg_lambdas!r}.")
        return lambdas

    # -- the refitted model ---------------------------------------------------
    def predict(self, X):
        """The best estimator's ``predict``; see :attr:`best_estimator_`."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def explain(self, X, *, all_rules=False):
        """The best estimator's ``explain`` (each row's score as its terms)."""
        check_is_fitted(self)
        return self.best_estimator_.explain(X, all_rules=all_rules)

    def explain_row(self, X, row=0, *, all_rules=False):
        """The best estimator's ``explain_row`` (one row's waterfall)."""
        check_is_fitted(self)
        return self.best_estimator_.explain_row(X, row, all_rules=all_rules)

    def staged_ensembles(self):
        """The best estimator's model after each round (see its ``staged_ensembles``)."""
        check_is_fitted(self)
        return self.best_estimator_.staged_ensembles()

    def explore(self, X_test=None, y_test=None, **kwargs):
        """The best estimator's explorer widget (see its ``explore``)."""
        check_is_fitted(self)
        return self.best_estimator_.explore(X_test, y_test, **kwargs)

    def to_json(self, path=None, *, indent=None):
        """Save the best estimator (a plain estimator, as ``load_model`` returns it).

        The cross-validation results are not saved; see the estimator's
        ``to_json`` for the parameters and the format.
        """
        check_is_fitted(self)
        return self.best_estimator_.to_json(path, indent=indent)

    def _repr_html_(self):
        if not hasattr(self, "best_estimator_"):
            return None
        return self.best_estimator_._repr_html_()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = self._estimator_class(**self._base_params()).__sklearn_tags__()
        # What the fitted estimator accepts (nominal columns, NaN, two
        # classes only), the CV wrapper accepts.
        tags.input_tags, tags.target_tags = base.input_tags, base.target_tags
        tags.classifier_tags, tags.regressor_tags = base.classifier_tags, base.regressor_tags
        return tags


def _fold_scores(estimator, X, y, sample_weight, train, test, scorer):
    """Scores of the models after rounds 1..n_rules of one fit on ``train``."""
    weights = sample_weight if isinstance(sample_weight, np.ndarray) else None
    start = time.perf_counter()
    estimator.fit(_safe_indexing(X, train), _safe_indexing(y, train),
                  sample_weight if weights is None else _safe_indexing(weights, train))
    seconds = time.perf_counter() - start
    # As arrays: the scorer validates y on each of its n_rules calls.
    X_test, y_test = _safe_indexing(X, test), np.asarray(_safe_indexing(y, test))
    kwargs = {} if weights is None else {"sample_weight": _safe_indexing(weights, test)}
    staged = estimator._staged_raw_predict(X_test)
    if len(staged) == 0:  # no rule helped at all: the intercept-only model
        staged = estimator._raw_predict(X_test)[np.newaxis]
    # A fit that stopped early (no rule helped) keeps its last model.
    return [scorer(_Scored(estimator, staged[min(k, len(staged) - 1)]), X_test, y_test, **kwargs)
            for k in range(estimator.n_rules)], seconds


class _Scored:
    """One staged model of a fold's estimator, scored on that fold's test rows.

    Its predictions are the raw scores given (computed once for every round
    by ``_staged_raw_predict``), whatever ``X`` the scorer passes: the
    fold's test rows. Scorers read only the methods and tags below.
    """

    def __init__(self, estimator, raw):
        self._estimator, self._raw = estimator, raw
        self._inverse_link = get_loss(estimator.ensemble_.loss).inverse_link
        if hasattr(estimator, "classes_"):
            self.classes_ = estimator.classes_

    def __sklearn_tags__(self):
        return self._estimator.__sklearn_tags__()

    def decision_function(self, X):
        return self._raw

    def predict_proba(self, X):
        return self._estimator._probabilities(self._raw)

    def predict(self, X):
        if hasattr(self, "classes_"):
            return self._estimator._labels(self._raw)
        return self._inverse_link(self._raw)

    def score(self, X, y, sample_weight=None):
        # The estimator's own score (accuracy, R^2) on these predictions.
        mixin = ClassifierMixin if hasattr(self, "classes_") else RegressorMixin
        return mixin.score(self, X, y, sample_weight=sample_weight)


def _cv_results(lambdas, scores, seconds):
    """``cv_results_`` (strength-major rows) from scores (lambdas, folds, rules)."""
    n_lambdas, n_splits, n_rules = scores.shape
    per_pair = scores.transpose(0, 2, 1).reshape(n_lambdas * n_rules, n_splits)
    results = {
        "param_reg_lambda": np.repeat(np.asarray(lambdas, dtype=float), n_rules),
        "param_n_rules": np.tile(np.arange(1, n_rules + 1), n_lambdas),
        "mean_fit_time": np.repeat(seconds.mean(axis=1), n_rules),
    }
    results["params"] = [{"reg_lambda": float(lam), "n_rules": int(k)} for lam, k in
                         zip(results["param_reg_lambda"], results["param_n_rules"])]
    for i in range(n_splits):
        results[f"split{i}_test_score"] = per_pair[:, i]
    results["mean_test_score"] = per_pair.mean(axis=1)
    results["std_test_score"] = per_pair.std(axis=1)
    # As scikit-learn's GridSearchCV: equal means share the lowest rank.
    order = -results["mean_test_score"]
    results["rank_test_score"] = np.searchsorted(np.sort(order), order, side="left") + 1
    return results


def _select(results, selection, n_splits):
    """Row of the chosen pair: fewest rules first, then the larger strength."""
    mean = results["mean_test_score"]
    threshold = mean.max()
    if selection == "one_standard_error":
        best = int(np.argmax(mean))
        threshold -= results["std_test_score"][best] / np.sqrt(n_splits)
    # Means equal but for the order of summation are ties.
    candidates = np.flatnonzero(mean >= threshold - 1e-12 * max(1.0, abs(threshold)))
    simplest = sorted(candidates, key=lambda i: (results["param_n_rules"][i],
                                                 -results["param_reg_lambda"][i]))
    return int(simplest[0])


class RuleBoostingClassifierCV(ClassifierMixin, _RuleBoostingCV):
    __doc__ = """Rule boosting classifier with ``reg_lambda`` and the number of rules
    chosen by cross-validation.
""" + _SHARED_DOC + """
    Examples
    --------
    >>> from rulebook import RuleBoostingClassifierCV
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> model = RuleBoostingClassifierCV(n_rules=4, reg_lambdas=(1, 10), verbose=0).fit(X, y)
    >>> sorted(model.best_params_)
    ['n_rules', 'reg_lambda']
    >>> len(model.cv_results_["params"])
    8
"""
    _estimator_class = RuleBoostingClassifier

    def __init__(self, n_rules=10, *, reg_lambdas=DEFAULT_REG_LAMBDAS, cv=5, scoring=None,
                 selection="best", n_jobs=None, learner="greedy", objective="second_order",
                 max_bins=255, cut_points=None, max_rule_length="auto", weight_update="auto",
                 max_categories=100, include_linear=False, verbose=1):
        self.n_rules = n_rules
        self.include_linear = include_linear
        self.reg_lambdas = reg_lambdas
        self.cv = cv
        self.scoring = scoring
        self.selection = selection
        self.n_jobs = n_jobs
        self.learner = learner
        self.objective = objective
        self.max_bins = max_bins
        self.cut_points = cut_points
        self.max_rule_length = max_rule_length
        self.weight_update = weight_update
        self.max_categories = max_categories
        self.verbose = verbose

    def predict_proba(self, X):
        """The best estimator's class probabilities, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def decision_function(self, X):
        """The best estimator's raw score ``f(x)`` (log-odds), shape (n_samples,), or
        one per class, shape (n_samples, n_classes)."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def __sklearn_tags__(self):
        # ClassifierMixin resets the classifier tags after the shared ones.
        tags = super().__sklearn_tags__()
        tags.classifier_tags = self._estimator_class(**self._base_params()).__sklearn_tags__(
            ).classifier_tags
        return tags


class RuleBoostingRegressorCV(RegressorMixin, _RuleBoostingCV):
    __doc__ = """Rule boosting regressor with ``reg_lambda`` and the number of rules
    chosen by cross-validation.
""" + _SHARED_DOC.replace(
        "    learner, objective,", "    loss : {\"squared\", \"poisson\"}, default=\"squared\"\n"
        "        As in :class:`RuleBoostingRegressor`.\n    learner, objective,") + """
    Examples
    --------
    >>> from rulebook import RuleBoostingRegressorCV
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> model = RuleBoostingRegressorCV(n_rules=3, verbose=0).fit(X, y)
    >>> model.n_rules_ <= 3
    True
"""
    _estimator_class = RuleBoostingRegressor

    def __init__(self, n_rules=10, *, loss="squared", reg_lambdas=DEFAULT_REG_LAMBDAS, cv=5,
                 scoring=None, selection="best", n_jobs=None, learner="greedy",
                 objective="second_order", max_bins=255, cut_points=None,
                 max_rule_length="auto", weight_update="auto", max_categories=100,
                 include_linear=False, verbose=1):
        self.n_rules = n_rules
        self.include_linear = include_linear
        self.loss = loss
        self.reg_lambdas = reg_lambdas
        self.cv = cv
        self.scoring = scoring
        self.selection = selection
        self.n_jobs = n_jobs
        self.learner = learner
        self.objective = objective
        self.max_bins = max_bins
        self.cut_points = cut_points
        self.max_rule_length = max_rule_length
        self.weight_update = weight_update
        self.max_categories = max_categories
        self.verbose = verbose

    def _base_params(self):
        return {**super()._base_params(), "loss": self.loss}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags = self._estimator_class().__sklearn_tags__().regressor_tags
        tags.target_tags.positive_only = self.loss == "poisson"
        return tags
