"""The estimators' ``propositions`` option: the paper's propositionalisation."""

import numpy as np
import pytest

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.binning import paper_cut_points
from rulebook.datasets import load_dataset


@pytest.fixture(scope="module")
def titanic():
    return load_dataset("titanic")


@pytest.mark.parametrize("learner", ["greedy", "optimal"])
def test_rules_use_only_the_papers_propositions(titanic, learner):
    X, y = titanic
    spec = {"Age": 6, "Fare": 6, "SibSp": 4, "Parch": 4, "Pclass": 4}
    cuts = paper_cut_points(X, spec)
    model = RuleBoostingClassifier(n_rules=4, learner=learner, propositions=spec, reg_lambda=1.0,
                                   verbose=0).fit(X, y)
    for rule in model.ensemble_.rules:
        for p in rule.query.propositions:
            if p.feature in ("Sex", "Embarked"):
                assert p.operator == "=="  # no != in the paper's propositions
                continue
            # x <= c at a paper threshold c, or x > p(c) (= x >= c on the data).
            assert p.operator in ("<=", ">")
            assert np.isin(p.value, cuts[p.feature]), (p, cuts[p.feature])


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
