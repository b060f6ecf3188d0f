"""scikit-learn estimators: RuleBoostingRegressor and RuleBoostingClassifier.

``fit`` validates and converts the input once, bins it, runs the boosting
loop (:mod:`rulebook.boosting`) and stores a plain-value
:class:`~rulebook.rules.RuleEnsemble`; prediction uses only that ensemble.
"""

import numbers
from dataclasses import replace

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._estimator_docs import _ATTRIBUTES, _NOTES, _PARAMETERS, _REFERENCES
from ._fitted_views import _Explained, _Staged
from ._output_targets import check_indicator_matrix, check_output_matrix, is_matrix_target
from ._predict import _column, column_values
from ._progress import INTERRUPTED, interrupts_kept, is_interrupt, round_bar
from ._sparse_bins import is_sparse
from ._validation import (
    NOMINAL,
    as_frame,
    as_sparse,
    check_prediction_frame,
    check_sample_weight,
    check_target,
    check_weighted_classes,
    fit_columns,
    warn_numbers_with_markers,
)
from .binning import Binner
from .boosting import BoostingSetup, fit_boosting
from .greedy import GreedyLearner
from .learners import resolve_learner
from .linear_terms import LinearTerm
from .losses import OutputWiseLoss, get_loss
from .optimal import OptimalLearner
from .orthogonal import OrthogonalLearner
from .paper_propositions import (
    _allowed_of,
    _cut_points_of,
    _paper_thresholds,
    _PaperBinner,
)
from .rules import RuleEnsemble

# ``max_rule_length="auto"``: see the parameter's documentation.
DEFAULT_MAX_RULE_LENGTH = 2


def linear_base(frame, binner, sample_weight):
    """The linear terms of the numeric columns and their standardised training columns.

    Returns
    -------
    terms : tuple of LinearTerm
        Weight 0; one per numeric column whose winsorised values vary
        (:meth:`LinearTerm.winsorised`), in column order.
    base_columns : ndarray of shape (n_samples, len(terms)), float64
        ``(clip(x, lower, upper) - centre) / std`` per term, read from
        ``frame`` as prediction reads the column (0 where missing).
    """
    terms, columns = [], []
    for index, feature in enumerate(binner.features_):
        if feature.kind == NOMINAL:
            continue
        # By position: the binner's features are the frame's columns in order.
        values, _ = column_values(_column(frame, feature.name, index, False), numeric=True)
        term = LinearTerm.winsorised(feature.name, values, sample_weight, index=index)
        if term is not None:
            terms.append(term)
            columns.append(term.basis(values) / term.std)
    base = np.column_stack(columns) if columns else np.empty((len(frame), 0))
    return tuple(terms), base


def _unscaled(terms, base_weights, history):
    """Terms with their fitted weights per unit of their column, and ``history_``
    with the column ``term_weights`` so (the loop fitted standardised columns)."""
    if not terms:
        return (), history
    std = np.array([term.std for term in terms])
    history = history.rename(columns={"base_weights": "term_weights"})
    history["term_weights"] = [tuple(float(w) for w in np.asarray(b) / std)
                               for b in history["term_weights"]]
    weights = np.asarray(base_weights) / std
    return tuple(replace(term, weight=float(w)) for term, w in zip(terms, weights)), history


class _RuleBoosting(_Explained, _Staged, BaseEstimator):
    _loss_name = None

    def __init__(self, n_rules=10, *, learner="greedy", objective="second_order", reg_lambda=1.0,
                 max_bins=255, cut_points=None, max_rule_length="auto", verbose=1, search=None,
                 weight_update="auto", propositions=None, max_categories=100,
                 include_linear=False, head="complete"):
        self.n_rules = n_rules
        self.include_linear = include_linear
        self.head = head
        self.learner = learner
        self.objective = objective
        self.search = search
        self.weight_update = weight_update
        self.reg_lambda = reg_lambda
        self.max_bins = max_bins
        self.cut_points = cut_points
        self.propositions = propositions
        self.max_categories = max_categories
        self.max_rule_length = max_rule_length
        self.verbose = verbose

    # -- fitting ------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the rule ensemble.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Numeric columns and nominal ones (object, string, category,
            bool); missing values allowed. Not modified. Or a scipy sparse
            matrix or array of numbers (any format; NaN entries missing):
            binned from its non-zero entries, the model equal to the one
            fitted on its dense array; the greedy learner searches the
            sparse codes, the other learners a dense table of the bin codes
            (2 bytes a cell). See the docs' page on sparse input.
        y : array-like of shape (n_samples,), or of shape (n_samples, n_outputs)
            One target column; or (``n_outputs >= 2``, an array or a
            DataFrame whose column names name the outputs) a multi-label
            0/1 indicator matrix (classifier) or a multi-output regression
            target (regressor), fitted by the greedy learner or the optimal
            one with rules of at most two conditions (see ``head``).
        sample_weight : float or array-like of shape (n_samples,), optional
            Non-negative and finite, not all zero; a weight of 2 counts a
            row twice, a number weights every row alike.

        Returns
        -------
        self

        Warns
        -----
        UserWarning
            Naming the column: a text column whose non-blank cells all hold
            numbers is read as numeric (blank cells missing); a text column
            of numbers with one or two other words (``"N/A"``, ``"-"``)
            stays nominal, and the warning suggests ``pandas.to_numeric``;
            pandas sparse columns are densified (their dense size is given).

        Raises
        ------
        ValueError
            Invalid parameters, empty input, mismatched lengths, missing or
            infinite targets, infinite feature values, identifier-like
            nominal columns, duplicate column names, the task-specific
            target checks, and ``sample_weight`` that is not numbers, has
            the wrong shape, negative or non-finite values, is zero on every
            row, or (classifier) on every row of one class; sparse ``X`` of
            a dtype other than numbers, or with ``propositions`` or
            ``include_linear=True``.
        TypeError
            Columns of unsupported dtype.
        KeyboardInterrupt
            On Ctrl-C or a kernel interrupt: within about 0.05 s in the
            greedy and optimal searches and the corrective re-fits; the
            orthogonal learner's compiled search first ends its round (0.1
            to 0.6 s on 5000 to 20000 rows with its default ``max_nodes``).
            The estimator is then unfitted: the attributes of an earlier
            fit are removed too, never mixed with this one's.
        """
        try:
            with interrupts_kept():
                return self._fit(X, y, sample_weight)
        except (KeyboardInterrupt, SystemError) as error:
            # Ctrl-C / a kernel interrupt: no half-fitted estimator (the
            # attributes validate_data sets first would describe this X while
            # a previous fit's ensemble_ described another), and one short
            # line instead of a traceback through the search's threads.
            if not is_interrupt(error):
                raise
            self._forget_fit()
            raise KeyboardInterrupt(INTERRUPTED) from None

    def _fit(self, X, y, sample_weight):
        self._check_params()
        sparse = is_sparse(X)
        frame = as_sparse(X) if sparse else as_frame(X)  # a canonical CSC copy if sparse
        if sparse:
            self._check_sparse_params()
        # On the caller's X, not on ``frame``: the names x0, x1, ... that
        # as_frame gives an ndarray are not feature names.
        validate_data(self, X, skip_check_array=True, reset=True)
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        n_rows = frame.shape[0]
        y_encoded, outputs, loss_name = self._encode_targets(y, n_rows)
        weights = check_sample_weight(sample_weight, n_rows)
        if _of_classes(loss_name, outputs):  # every class needs rows of positive weight
            check_weighted_classes(y_encoded, weights, self.classes_)
        cut_points, specs = self.cut_points, None
        if self.propositions is not None:
            # The quantiles (pandas.qcut per column) are computed once for
            # both the cut points and the allowed mask.
            specs = _paper_thresholds(frame, self.propositions)
            cut_points = _cut_points_of(specs)
        binner = Binner(self.max_bins, cut_points, self.max_categories)
        X_binned = binner.fit_transform(frame, weights)
        _check_cut_points_numeric(self.cut_points, binner)
        if not sparse:
            warn_numbers_with_markers(frame, binner.features_)
        allowed = None if specs is None else _allowed_of(binner, specs)
        learner, objective, weight_update = resolve_learner(
            self.learner, self.objective, self.search, self.weight_update)
        if sparse and type(learner) is not GreedyLearner:
            # The other learners index rows of a dense table: the bin codes
            # (2 bytes a cell), never the float64 values (docs/sparse.md).
            X_binned = X_binned.to_dense()
        if outputs is not None:
            self._check_multi_output(learner, objective, weight_update, outputs, loss_name)
        if allowed is not None and not _honours_allowed(learner, objective):
            raise ValueError("propositions is supported by the greedy and optimal learners with "
                             "the standard objectives; got learner="
                             f"{self.learner!r}, objective={objective!r}.")
        terms, base_columns = linear_base(frame, binner, weights) if self.include_linear else ((), None)
        with round_bar(self.n_rules, self.verbose) as progress:
            intercept, rules, history, base_weights = fit_boosting(BoostingSetup(
                X_binned=X_binned, binner=binner if allowed is None else _PaperBinner(binner),
                y=y_encoded, sample_weight=weights,
                loss=_loop_loss(loss_name, outputs), learner=learner,
                objective=objective, reg_lambda=float(self.reg_lambda),
                n_rules=self.n_rules, max_rule_length=self._max_rule_length() or 0,
                progress=progress, weight_update=weight_update, allowed=allowed,
                base_columns=base_columns, head=self.head,
            ))
        terms, history = _unscaled(terms, base_weights, history)
        self._feature_kinds = tuple(f.kind for f in binner.features_)
        self._categories = {f.name: frozenset(f.categories) for f in binner.features_ if f.kind == NOMINAL}
        self._fit_columns = fit_columns(X)
        by_name = isinstance(X, pd.DataFrame) and hasattr(self, "feature_names_in_")
        self.ensemble_ = RuleEnsemble(intercept, tuple(rules), loss_name,
                                      tuple(f.name for f in binner.features_), by_name, terms,
                                      outputs)
        self.history_ = history
        return self

    def _check_sparse_params(self):
        """Refuse, naming the parameter, what sparse ``X`` cannot use."""
        if self.propositions is not None:
            raise ValueError("propositions is not supported with sparse X (its quantiles are "
                             "computed on dense columns); pass X.toarray() or propositions=None.")
        if self.include_linear:
            raise ValueError("include_linear=True is not supported with sparse X: its linear "
                             "terms need a dense float64 column per feature; pass "
                             "include_linear=False.")

    def _forget_fit(self):
        """Remove every fitted attribute (``*_`` and the prediction state)."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]:
            delattr(self, name)
        for name in ("_feature_kinds", "_categories", "_fit_columns"):
            self.__dict__.pop(name, None)

    def _encode_targets(self, y, n_rows):
        """``(y, outputs, loss)``: the target as the loop reads it, the names of
        its outputs (None for one) and the name of the model's loss."""
        return self._encode_target(y, n_rows), None, self._loss_name_

    def _fits_several_outputs(self):
        """Whether these parameters fit targets of several outputs (see
        :meth:`_check_multi_output`)."""
        # Only this fit does: the Dask estimators, which subclass these,
        # have a fit of their own that takes one output.
        if type(self).fit is not _RuleBoosting.fit:
            return False
        try:
            learner, objective, weight_update = resolve_learner(
                self.learner, self.objective, self.search, self.weight_update)
        except ValueError:
            return False
        return (self._learner_fits_several_outputs(learner, objective)
                and objective in ("second_order", "orthogonal")
                and weight_update in ("stagewise", "corrective") and not self.include_linear)

    def _learner_fits_several_outputs(self, learner, objective):
        """The greedy learner, the orthogonal one
        (:mod:`rulebook.orthogonal_outputs`), or the optimal one where its
        exact search of several outputs applies
        (:mod:`rulebook.multi_output_search`)."""
        if objective == "orthogonal":
            return isinstance(learner, OrthogonalLearner)
        if isinstance(learner, GreedyLearner):
            return True
        return (isinstance(learner, OptimalLearner) and learner.max_nodes is None
                and learner.approximation == 1.0 and self._max_rule_length() in (1, 2)
                and self.reg_lambda > 0)

    def _check_multi_output(self, learner, objective, weight_update, outputs, loss_name):
        """Refuse, naming the parameter, what a target of several outputs cannot use yet."""
        refused = []
        if not self._learner_fits_several_outputs(learner, objective):
            refused.append(f"learner={self.learner!r}" + (
                f" with search={self.search!r}" if self.search is not None else "") + (
                f", max_rule_length={self.max_rule_length!r}, reg_lambda={self.reg_lambda!r}"
                if isinstance(learner, OptimalLearner) else ""))
        if objective not in ("second_order", "orthogonal"):
            refused.append(f"objective={self.objective!r}")
        if weight_update not in ("stagewise", "corrective"):
            refused.append(f"weight_update={self.weight_update!r}")
        if self.include_linear:
            refused.append("include_linear=True")
        if not refused:
            return
        works = ("learner='greedy' (the default), learner='orthogonal', or learner='optimal' "
                 "(rules of at most 2 conditions, reg_lambda > 0, no max_nodes or "
                 "approximation), objective='second_order' or 'orthogonal', stagewise or "
                 "corrective weights and include_linear=False.")
        if loss_name == "multinomial":
            # "Only binary classification is supported.": the words scikit-learn's
            # check_classifier_not_supporting_multiclass expects.
            raise ValueError(
                f"Only binary classification is supported with {', '.join(refused)}; y has "
                f"{len(outputs)} classes. Multi-class targets work with {works}")
        what = "labels (a multi-label target)" if loss_name == "logistic" else "outputs"
        raise ValueError(
            f"Targets of several outputs are not supported with {', '.join(refused)}; y has "
            f"{len(outputs)} {what}. They work with {works}")

    def _max_rule_length(self):
        """The length limit in force (None: unlimited); see ``max_rule_length``."""
        if isinstance(self.max_rule_length, str) and self.max_rule_length == "auto":
            return None if self.propositions is not None else DEFAULT_MAX_RULE_LENGTH
        return self.max_rule_length

    def _check_params(self):
        _check_int("n_rules", self.n_rules, minimum=1)
        if self.max_rule_length is not None and not (
                isinstance(self.max_rule_length, str) and self.max_rule_length == "auto"):
            _check_int("max_rule_length", self.max_rule_length, minimum=1)
        if (isinstance(self.reg_lambda, bool) or not isinstance(self.reg_lambda, numbers.Real)
                or not np.isfinite(self.reg_lambda) or self.reg_lambda < 0):
            raise ValueError(f"reg_lambda must be a finite number >= 0; got {self.reg_lambda!r}.")
        if isinstance(self.verbose, (bool, np.bool_)):
            pass
        elif not isinstance(self.verbose, numbers.Integral) or self.verbose < 0:
            raise ValueError(f"verbose must be an int >= 0 or a bool; got {self.verbose!r}.")
        resolve_learner(self.learner, self.objective, self.search, self.weight_update)
        if not (isinstance(self.head, str) and self.head in ("complete", "single")):
            raise ValueError(f"head must be 'complete' or 'single'; got {self.head!r}.")
        if not isinstance(self.include_linear, (bool, np.bool_)):
            raise ValueError(f"include_linear must be True or False; got {self.include_linear!r}.")
        if self.propositions is not None and self.cut_points is not None:
            raise ValueError("cut_points and propositions cannot both be set: propositions "
                             "chooses the cut points of every numeric column.")

    # -- prediction ---------------------------------------------------------
    def _raw_predict(self, X):
        """Raw scores ``f(x) = intercept + sum_i w_i q_i(x)``, shape (n_samples,), or
        (n_samples, n_classes) for a multi-class model.

        Raises ValueError for missing columns, a different number of columns
        than in ``fit``, non-numeric values in a numeric column, infinities.
        """
        check_is_fitted(self)
        frame = check_prediction_frame(self, X, self.ensemble_, self._feature_kinds, self._categories)
        return self.ensemble_.decision_function(frame)

    def explore(self, X_test=None, y_test=None, **kwargs):
        """Step through the boosting rounds in a notebook widget.

        Parameters
        ----------
        X_test, y_test : DataFrame and array-like, optional
            Held-out data for a test-score column and chart.
        **kwargs
            Passed to :class:`rulebook.widgets.BoostingExplorer`
            (``round=``, ``offline=``, ``metric=``: the test score's
            metric, by default the target kind's, e.g. accuracy for
            several classes).

        Returns
        -------
        rulebook.widgets.BoostingExplorer

        Examples
        --------
        >>> from rulebook import RuleBoostingClassifier
        >>> from rulebook.datasets import load_titanic
        >>> X, y = load_titanic()
        >>> RuleBoostingClassifier(n_rules=2).fit(X, y).explore().round
        2
        """
        from .widgets import BoostingExplorer

        return BoostingExplorer(self, X_test, y_test, **kwargs)

    # -- saving -------------------------------------------------------------
    def to_json(self, path=None, *, indent=None):
        """Save the fitted estimator as JSON; :func:`rulebook.load_model` reads it.

        The file holds plain values only (parameters, columns, categories,
        classes, rules, ``history_``), so loading it runs no code, unlike
        pickle. The format is versioned and described by a JSON Schema in
        the package (:mod:`rulebook.persistence`).

        Parameters
        ----------
        path : str or path-like, optional
            File to write (UTF-8); ``None`` returns the text.
        indent : int or None, default=None
            As :func:`json.dumps`.

        Returns
        -------
        str or None
            The JSON text, or None when written to ``path``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            A parameter that is not plain data (a custom learner object),
            or a category or class label of a type JSON cannot hold (e.g. a
            Timestamp); the message names the parameter or column.

        Examples
        --------
        >>> from rulebook import RuleBoostingRegressor, load_model
        >>> from rulebook.datasets import load_used_cars
        >>> X, y = load_used_cars()
        >>> model = RuleBoostingRegressor(n_rules=2, verbose=0).fit(X, y)
        >>> bool((load_model(model.to_json()).predict(X) == model.predict(X)).all())
        True
        """
        from .persistence import to_json

        return to_json(self, path, indent=indent)

    # -- notebook display -------------------------------------------------
    # Replaces scikit-learn's ReprHTMLMixin: a fitted estimator shows its
    # rules and search statistics, an unfitted one scikit-learn's diagram.
    # Both methods are needed: IPython asks _repr_html_ for any format the
    # mime bundle lacks.
    def _repr_html_(self):
        from ._repr_html import repr_html

        return repr_html(self)

    def _repr_mimebundle_(self, **kwargs):
        from ._repr_html import repr_mimebundle

        return repr_mimebundle(self, **kwargs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Sparse X is refused with linear terms (dense columns; _check_sparse_params).
        tags.input_tags.sparse = not self.include_linear
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _of_classes(loss_name, outputs):
    """Whether a target is one column of classes (two, or more: multinomial)."""
    return loss_name == "multinomial" or (loss_name == "logistic" and outputs is None)


def _loop_loss(loss_name, outputs):
    """The loss the boosting loop fits: with several outputs other than a
    multinomial's classes, the named loss on each output (label-wise)."""
    loss = get_loss(loss_name)
    if outputs is not None and loss_name != "multinomial":
        return OutputWiseLoss(loss)
    return loss


def _honours_allowed(learner, objective):
    """Whether the learner searches only ``SearchProblem.allowed``."""
    return isinstance(learner, (GreedyLearner, OptimalLearner)) and objective != "orthogonal"


def _check_cut_points_numeric(cut_points, binner):
    """Refuse ``cut_points`` for a column binned as nominal.

    The binner checks that the named columns exist and that the points are
    numbers; it bins a nominal column by category whatever ``cut_points``
    says, which would silently ignore them.
    """
    if not cut_points:
        return
    named = {str(name) for name in cut_points}
    for feature in binner.features_:
        if feature.name in named and feature.kind == NOMINAL:
            raise ValueError(
                f"cut_points names column {feature.name!r}, which is nominal (its values are "
                "categories, not numbers); cut points apply to numeric columns only. Drop it "
                "from cut_points, or convert the column to numbers."
            )


def _check_int(name, value, minimum):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int >= {minimum}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}; got {value}.")


def _check_counts(y):
    """Refuse a target that ``loss="poisson"`` cannot fit."""
    if (y < 0).any():
        raise ValueError("loss='poisson' needs non-negative targets (counts or rates); y has negative values.")
    if not (y > 0).any():
        raise ValueError("loss='poisson' needs at least one positive target; y is all zero.")


class RuleBoostingRegressor(RegressorMixin, _RuleBoosting):
    __doc__ = f"""Gradient rule boosting for regression and counts.

    Fits ``f(x) = intercept + sum_i w_i q_i(x)`` with ``n_rules`` rules,
    each ``q_i`` a conjunction of conditions on named columns. A target of
    several columns (multi-output regression) has one raw score per output,
    ``f_k(x) = intercept_k + sum_i w_ik q_i(x)``, the loss on each output
    summed (BOOMER's label-wise decomposable losses, [3]); ``predict``
    then has shape (n_samples, n_outputs).

    Parameters
    ----------
    loss : {{"squared", "poisson"}}, default="squared"
        ``"poisson"`` (log link) for non-negative counts; predictions are
        then ``exp(f(x))``.
{_PARAMETERS}
    Attributes
    ----------
{_ATTRIBUTES}
    Raises
    ------
    ValueError
        At fit: a non-numeric target, negative targets or an all-zero
        target with ``loss="poisson"``, and the input errors listed there.
        At prediction: columns other than those of fit, or in another order
        (see Notes).
{_NOTES}{_REFERENCES}    .. [3] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.2 (rule
       heads, label-wise decomposable losses).

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> model = RuleBoostingRegressor(n_rules=3).fit(X, y)
    >>> len(model.ensemble_)
    3

    Six regression targets (a DataFrame's columns), a weight per target in
    each rule:

    >>> from rulebook.datasets import load_atp7d
    >>> X, Y = load_atp7d()
    >>> model = RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, Y)
    >>> model.predict(X.head(2)).shape
    (2, 6)
    """

    def __init__(self, n_rules=10, *, loss="squared", learner="greedy", objective="second_order",
                 reg_lambda=1.0, max_bins=255, cut_points=None, max_rule_length="auto", verbose=1,
                 search=None, weight_update="auto", propositions=None, max_categories=100,
                 include_linear=False, head="complete"):
        super().__init__(n_rules, learner=learner, objective=objective, reg_lambda=reg_lambda,
                         max_bins=max_bins, cut_points=cut_points,
                         max_rule_length=max_rule_length, verbose=verbose, search=search,
                         weight_update=weight_update, propositions=propositions,
                         max_categories=max_categories, include_linear=include_linear, head=head)
        self.loss = loss

    @property
    def _loss_name_(self):
        return self.loss

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.positive_only = self.loss == "poisson"
        tags.target_tags.multi_output = self._fits_several_outputs()
        return tags

    def _encode_targets(self, y, n_rows):
        """One output, or a matrix of ``K >= 2`` (the loss on each column)."""
        if not is_matrix_target(y):
            return self._encode_target(y, n_rows), None, self.loss
        Y, names = check_output_matrix(y, n_rows)
        if self.loss == "poisson":
            for k, name in enumerate(names):
                try:
                    _check_counts(Y[:, k])
                except ValueError as error:
                    raise ValueError(f"y column {name!r}: {error}") from None
        return Y, names, self.loss

    def _check_params(self):
        if self.loss not in ("squared", "poisson"):
            raise ValueError(f"loss must be 'squared' or 'poisson'; got {self.loss!r}.")
        super()._check_params()

    def _encode_target(self, y, n_rows):
        y = check_target(y, n_rows, numeric=True)
        if self.loss == "poisson":
            _check_counts(y)
        return y

    def predict(self, X):
        """Predicted mean: ``f(x)`` (squared loss) or ``exp(f(x))`` (Poisson).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, n_outputs) for a
        multi-output target, float64

        Raises
        ------
        ValueError
            Columns other than those of ``fit`` or in another order (see
            Notes), non-numeric values in a numeric column, infinite values.
        """
        return get_loss(self.loss).inverse_link(self._raw_predict(X))

    def staged_predict(self, X):
        """Predictions of the model after each boosting round, like scikit-learn's.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,), float64
            After rounds ``1, 2, ..., len(ensemble_)`` (the models of
            :meth:`staged_ensembles` but the first, intercept-only one),
            each equal to that model's ``predict``.

        Raises
        ------
        ValueError
            As :meth:`predict`.
        """
        inverse_link = get_loss(self.loss).inverse_link
        yield from (inverse_link(raw) for raw in self._staged_raw_predict(X))


class RuleBoostingClassifier(ClassifierMixin, _RuleBoosting):
    __doc__ = f"""Gradient rule boosting for classification (logistic or multinomial loss).

    With two classes the raw score ``f(x)`` is the log odds of
    ``classes_[1]`` (logistic loss). With more (any label type), the
    model has one raw score per class, ``f_k(x) = intercept_k + sum_i
    w_ik q_i(x)``: each rule predicts a weight for every class (a
    *complete head*, [3]) and ``predict_proba`` is their softmax
    (multinomial loss, gradient and diagonal Hessian per class as in
    XGBoost's multi-class boosting, [4]); each rule maximises the sum over
    classes of the second-order objective ``G_k^2 / (2 n (reg_lambda +
    H_k))``. A 0/1 indicator matrix (a DataFrame's columns naming the
    labels) is a multi-label target: one raw score per label, the logistic
    loss on each (BOOMER's label-wise decomposable loss, [3]);
    ``predict`` returns the int64 indicator matrix and ``predict_proba``
    each label's probability, shape (n_samples, n_labels), as
    scikit-learn's multi-label classifiers do. Multi-class and multi-label
    targets are fitted by the greedy learner with the second-order
    objective and stagewise weights; other learners, objectives, weight
    updates and ``include_linear`` raise ``ValueError`` for them.

    Parameters
    ----------
{_PARAMETERS}
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted; with two, ``classes_[1]`` is the
        positive class. For a multi-label target, the labels in column
        order (a DataFrame's column names, else ``0 .. n_labels - 1``).
{_ATTRIBUTES}
    Raises
    ------
    ValueError
        At fit: a target with one class, or missing labels, a multi-class
        target with a learner or option that does not support it yet, and
        the input errors listed there. At prediction: columns other than
        those of fit, or in another order (see Notes).
{_NOTES}{_REFERENCES}    .. [3] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.2 (rule
       heads for several labels, label-wise decomposable losses).
    .. [4] Chen, T., Guestrin, C. (2016). XGBoost: a scalable tree boosting
       system. KDD. Section 2.2; the ``multi:softmax`` objective's diagonal
       Hessian ``p (1 - p)``.

    Examples
    --------
    >>> from rulebook import RuleBoostingClassifier
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    >>> model.predict_proba(X.head(2)).shape
    (2, 2)

    Three classes (of string labels), a weight per class in each rule:

    >>> from sklearn.datasets import load_iris
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> species = load_iris().target_names[y]
    >>> model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, species)
    >>> model.predict_proba(X.head(2)).shape
    (2, 3)
    >>> print(model.ensemble_)
       setosa  versicolor  virginica
           +0          +0         +0  (intercept)
      +2.7523     -1.3761    -1.3761  if `petal length (cm)` <= 2
      -1.3663     -1.2772    +2.6436  if `petal width (cm)` > 1.7
      -1.3632     +2.7837    -1.4093  if `sepal length (cm)` > 4.9 & 2 < `petal length (cm)` <= 4.9

    Six labels per row (a 0/1 DataFrame, one column per emotion heard in a
    clip of music): ``predict`` returns the indicator matrix.

    >>> from rulebook.datasets import load_emotions
    >>> X, Y = load_emotions()
    >>> model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, Y)
    >>> model.predict(X.head(2))
    array([[0, 0, 1, 1, 1, 0],
           [1, 0, 0, 0, 0, 1]])
    """

    @property
    def _loss_name_(self):
        if self._is_multilabel():
            return "logistic"
        multi = getattr(self, "classes_", None) is not None and len(self.classes_) > 2
        return "multinomial" if multi else "logistic"

    def _encode_targets(self, y, n_rows):
        """A column of classes (two: logistic loss; more: multinomial), or a
        multi-label indicator matrix (the logistic loss on each label)."""
        if not is_matrix_target(y):
            y = self._encode_target(y, n_rows)
            loss = "multinomial" if y.ndim == 2 else "logistic"
            return y, (tuple(self.classes_.tolist()) if y.ndim == 2 else None), loss
        Y, labels = check_indicator_matrix(y, n_rows)
        same_type = len({type(label) for label in labels}) == 1
        self.classes_ = np.array(labels, dtype=None if same_type else object)
        return Y, labels, "logistic"

    def _is_multilabel(self):
        """Whether the fitted model is multi-label (the logistic loss on each of its outputs)."""
        ensemble = getattr(self, "ensemble_", None)
        return ensemble is not None and ensemble.outputs is not None and ensemble.loss == "logistic"

    def _encode_target(self, y, n_rows):
        """``+1`` / ``-1`` for two classes; the one-hot matrix (n, K) for more."""
        y = check_target(y, n_rows, numeric=False)
        check_classification_targets(y)
        classes = np.unique(y)
        if len(classes) < 2:
            raise ValueError(
                "RuleBoostingClassifier needs at least two classes in y; got "
                f"{len(classes)} class(es) {classes[:5].tolist()}.")
        self.classes_ = classes
        if len(classes) > 2:
            return (y[:, None] == classes[None, :]).astype(np.float64)
        return np.where(y == classes[1], 1.0, -1.0)

    def _probabilities(self, raw):
        """Class probabilities of raw scores: (n, 2) or the softmax (n, K), or
        for a multi-label model each label's probability (n, K)."""
        if raw.ndim == 2 and self._is_multilabel():
            return get_loss("logistic").inverse_link(raw)
        if raw.ndim == 2:
            return get_loss("multinomial").inverse_link(raw)
        p = get_loss("logistic").inverse_link(raw)
        return np.column_stack([1.0 - p, p])

    def _labels(self, raw):
        """Most probable class of raw scores (the first on ties), or for a
        multi-label model the indicator matrix of labels more likely than not."""
        if raw.ndim == 2 and self._is_multilabel():
            return (raw > 0).astype(np.int64)
        if raw.ndim == 2:
            return self.classes_[np.argmax(raw, axis=1)]
        return self.classes_[(raw > 0).astype(int)]

    def predict_proba(self, X):
        """Class probabilities, columns ordered as ``classes_``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), float64
            For a multi-label model, each label's probability, shape
            (n_samples, n_labels) (rows need not sum to 1).

        Raises
        ------
        ValueError
            As :meth:`decision_function`.
        """
        return self._probabilities(self._raw_predict(X))

    def staged_decision_function(self, X):
        """Raw scores (log odds of ``classes_[1]``, or one per class) after each boosting round.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Yields
        ------
        ndarray of shape (n_samples,) or (n_samples, n_classes), float64
            After rounds ``1, 2, ..., len(ensemble_)``, like scikit-learn's
            ``staged_decision_function`` (the models of
            :meth:`staged_ensembles` but the first, intercept-only one).

        Raises
        ------
        ValueError
            As :meth:`decision_function`.
        """
        yield from self._staged_raw_predict(X)

    def staged_predict_proba(self, X):
        """Class probabilities after each boosting round (see :meth:`staged_decision_function`).

        Yields
        ------
        ndarray of shape (n_samples, n_classes), float64
        """
        for raw in self._staged_raw_predict(X):
            yield self._probabilities(raw)

    def staged_predict(self, X):
        """Class labels after each boosting round (see :meth:`staged_decision_function`).

        Yields
        ------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        for raw in self._staged_raw_predict(X):
            yield self._labels(raw)

    def decision_function(self, X):
        """Raw scores: log odds of ``classes_[1]``, or one score per class.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), float64, or (n_samples, n_classes)
            with more than two classes (the softmax of a row is its
            ``predict_proba``)

        Raises
        ------
        ValueError
            Missing columns, a different number of columns than in ``fit``,
            the columns of ``fit`` in another order, non-numeric values in
            a numeric column, infinite values.
        """
        return self._raw_predict(X)

    def predict(self, X):
        """Most probable class label.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``; for a multi-label model the int64
            indicator matrix of shape (n_samples, n_labels), 1 where a
            label's probability exceeds 0.5.

        Raises
        ------
        ValueError
            As :meth:`decision_function`.
        """
        return self._labels(self._raw_predict(X))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._fits_multi_class()
        # Multi-label targets (0/1 indicator matrices); not multi-output in
        # scikit-learn's sense, which is a matrix of classes per output
        # (multiclass-multioutput), refused at fit.
        tags.classifier_tags.multi_label = self._fits_multi_class()
        return tags

    def _fits_multi_class(self):
        """Whether these parameters fit multi-class and multi-label targets
        (see :meth:`_check_multi_output`)."""
        return self._fits_several_outputs()
