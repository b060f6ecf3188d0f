"""What a fitted estimator shows besides its predictions: the terms of each
prediction (``explain``, ``explain_row``) and the model after each boosting
round (``staged_ensembles`` and the raw scores behind ``staged_predict``).

Mixins of the estimators: :class:`_Explained` needs ``ensemble_`` and the
prediction state that ``fit`` sets (``_feature_kinds``, ``_categories``;
RuleFit's estimators have them too), :class:`_Staged` also ``history_``,
the boosting loop's record of the intercept and weights after every round.
"""

from dataclasses import replace

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._predict import term_values
from ._validation import check_prediction_frame
from .explanations import explain, explain_row


class _Explained:
    """``explain`` and ``explain_row`` of an estimator with ``ensemble_``:
    ``X`` checked as ``predict`` checks it, then explained term by term."""

    def explain(self, X, *, all_rules=False, output=None):
        """Each row's raw score as its terms: intercept, the rules that apply, total.

        ``X`` is checked as in ``predict``; see
        :func:`rulebook.explanations.explain` for the columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        all_rules : bool, default=False
            Also list the rules that do not apply (contribution 0).
        output : label of the outputs or None, default=None
            With several outputs (classes, labels, targets), the one to
            explain; None, each (an ``output`` column).

        Returns
        -------
        DataFrame
            Long format; each row's ``total`` line equals the raw score
            (``decision_function`` of the classifier) and its
            ``prediction`` the probability of ``classes_[1]`` (classifier)
            or ``predict`` (regressor).

        Raises
        ------
        ValueError
            As ``predict``.
        """
        return explain(self.ensemble_, self._checked_frame(X), all_rules=all_rules, output=output)

    def explain_row(self, X, row=0, *, all_rules=False, output=None):
        """One row's explanation, shown as a waterfall in a notebook.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        row : int, default=0
            Position of the row in ``X`` (as ``iloc``).
        all_rules : bool, default=False
        output : label of the outputs or None, default=None
            With several outputs, the one to explain (one waterfall);
            None, each (a waterfall each).

        Returns
        -------
        rulebook.explanations.Explanation

        Raises
        ------
        ValueError
            As ``predict``.
        IndexError
            If ``row`` is not a position in ``X``.
        """
        return explain_row(self.ensemble_, self._checked_frame(X), row, all_rules=all_rules,
                           output=output)

    def _checked_frame(self, X):
        check_is_fitted(self)
        return check_prediction_frame(self, X, self.ensemble_, self._feature_kinds, self._categories)


class _Staged:
    """The models after rounds ``0, 1, ...`` of a fitted rule boosting
    estimator, from its ``history_``; the ``staged_*`` methods of the
    regressor and the classifier map ``_staged_raw_predict`` through their
    link."""

    def staged_ensembles(self):
        """The model after each boosting round, ``k = 0, ..., len(ensemble_)``.

        With stagewise updates the model after round ``k`` is
        ``ensemble_[:k]``; with corrective updates (``learner="orthogonal"``
        or ``weight_update="corrective"``) every round re-fits the intercept
        and all weights (Yang et al. 2024, eq. 7), so it is the first ``k``
        rules with the weights recorded in that round. Like scikit-learn's
        ``staged_predict``.

        Yields
        ------
        RuleEnsemble
            ``k`` rules, for ``k = 0, 1, ...``.

        Examples
        --------
        >>> from rulebook import RuleBoostingRegressor
        >>> from rulebook.datasets import load_used_cars
        >>> X, y = load_used_cars()
        >>> model = RuleBoostingRegressor(n_rules=3, learner="orthogonal").fit(X, y)
        >>> [len(e) for e in model.staged_ensembles()]
        [0, 1, 2, 3]
        """
        check_is_fitted(self)
        ensemble = self.ensemble_
        for k, (intercept, weights, term_weights) in enumerate(self._staged_weights()):
            rules = tuple(replace(rule, weight=w) for rule, w in zip(ensemble.rules, weights))
            terms = tuple(replace(term, weight=w) for term, w in zip(ensemble.terms, term_weights))
            intercept = float(intercept) if ensemble.outputs is None else intercept
            yield replace(ensemble, intercept=intercept, rules=rules[:k], terms=terms)

    def _staged_weights(self):
        """``(intercept, rule weights, term weights)`` after each round, from ``history_``.

        The linear terms (``include_linear``) are in the model from round 0.
        """
        history = self.history_
        term_weights = history["term_weights"] if "term_weights" in history else [()] * len(history)
        return zip(history["intercept"], history["weights"], term_weights)

    def _staged_raw_predict(self, X):
        """Raw scores of the model after rounds 1, 2, ..., shape (n_rounds, n_samples)
        (with several outputs, (n_rounds, n_samples, K)).

        Each rule is evaluated once; round ``k``'s score adds the weights
        recorded in round ``k`` (``staged_ensembles``) to its intercept in
        rule order, as ``decision_function`` of that model adds them, so
        the scores agree to the last bit.
        """
        check_is_fitted(self)
        frame = check_prediction_frame(self, X, self.ensemble_, self._feature_kinds, self._categories)
        ensemble = self.ensemble_
        masks = [rule.query.evaluate(frame, ensemble.by_name) for rule in ensemble.rules]
        values = term_values(ensemble, frame, ensemble.by_name)
        outputs = () if ensemble.outputs is None else (ensemble.n_outputs,)
        scores = np.empty((len(masks), len(frame), *outputs), dtype=np.float64)
        staged = list(self._staged_weights())[1:]
        for k, (intercept, weights, term_weights) in enumerate(staged):
            if outputs:  # a column per output, as decision_function adds them
                raw = np.tile(np.array(intercept, dtype=np.float64), (len(frame), 1))
                for mask, weight in zip(masks[:k + 1], weights):
                    raw[mask] += np.array(weight)
                scores[k] = raw
                continue
            raw = np.full(len(frame), float(intercept), dtype=np.float64)
            for mask, weight in zip(masks[:k + 1], weights):
                raw[mask] += weight
            # After the rules, one term after another, as decision_function adds them.
            for j, (term, weight) in enumerate(zip(ensemble.terms, term_weights)):
                raw += replace(term, weight=weight).contribution(values[:, j])
            scores[k] = raw
        return scores
