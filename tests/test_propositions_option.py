"""The estimators' ``propositions`` option: the paper's propositionalisation."""

import numpy as np
import pandas as pd
import pytest

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.datasets import load_dataset


@pytest.fixture(scope="module")
def titanic():
    return load_dataset("titanic")


@pytest.mark.parametrize("learner", ["greedy", "optimal"])
def test_rules_use_only_the_papers_propositions(titanic, learner):
    X, y = titanic
    spec = {"Age": 6, "Fare": 6, "SibSp": 4, "Parch": 4, "Pclass": 4}
    model = RuleBoostingClassifier(n_rules=4, learner=learner, propositions=spec, reg_lambda=1.0,
                                   verbose=0).fit(X, y)
    for rule in model.ensemble_.rules:
        for p in rule.query.propositions:
            if p.feature in ("Sex", "Embarked"):
                assert p.operator == "=="  # no != in the paper's propositions
                continue
            le, ge = _papers_thresholds(X[p.feature], spec[p.feature])
            assert p.operator in ("<=", ">=")
            assert p.value in (le if p.operator == "<=" else ge), p


def _papers_thresholds(column, k):
    """The thresholds of ``x <= c`` and ``x >= c`` in the paper's code (restated)."""
    values = np.sort(column.dropna().unique())
    if 2 * column.nunique(dropna=False) > k:
        _, edges = pd.qcut(column, k // 2, retbins=True, duplicates="drop")
        return list(edges[1:]), list(edges[1:])
    return list(values[:-1]), list(values[1:])


def test_greater_equal_propositions_select_the_papers_rows(titanic):
    """``x >= c`` is printed and predicts as the paper's proposition."""
    X, y = titanic
    model = RuleBoostingClassifier(n_rules=6, learner="greedy", propositions=20, reg_lambda=1.0,
                                   verbose=0).fit(X, y)
    ensemble = model.ensemble_
    assert any(p.operator == ">=" for r in ensemble.rules for p in r.query.propositions)
    # The printed rules select, on the training data, the rows the binned
    # search selected (each rule's coverage was computed from those).
    covered = np.asarray(ensemble.query_matrix(X), dtype=float).mean(axis=0)
    np.testing.assert_allclose(covered, [r.coverage for r in ensemble.rules], rtol=1e-12)
    history_rules = list(model.history_["rule"].iloc[1:])
    assert history_rules == [str(r.query) for r in model.ensemble_.rules]


def test_optimal_is_never_worse_than_greedy_on_the_same_propositions(titanic):
    X, y = titanic
    kwargs = dict(n_rules=1, propositions=8, reg_lambda=1.0, verbose=0)
    greedy = RuleBoostingClassifier(learner="greedy", **kwargs).fit(X, y)
    optimal = RuleBoostingClassifier(learner="optimal", **kwargs).fit(X, y)
    assert optimal.history_["objective"].iloc[1] >= greedy.history_["objective"].iloc[1] * (1 - 1e-12)


def test_bad_combinations_are_refused(titanic):
    X, y = titanic
    with pytest.raises(ValueError, match="cut_points and propositions"):
        RuleBoostingClassifier(cut_points={"Age": [10.0]}, propositions=6).fit(X, y)
    with pytest.raises(ValueError, match="propositions is supported"):
        RuleBoostingClassifier(learner="orthogonal", propositions=6).fit(X, y)
    with pytest.raises(ValueError, match="propositions"):
        RuleBoostingRegressor(propositions=1).fit(*load_dataset("used_cars"))
