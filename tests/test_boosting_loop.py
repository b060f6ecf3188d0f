"""The boosting loop's own pieces (``rulebook.boosting``), against their definitions."""

import warnings

import numpy as np
import pandas as pd
import pytest

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.binning import Binner
from rulebook.boosting import BoostingSetup, _count, fit_boosting
from rulebook.datasets import load_titanic
from rulebook.learners import resolve_learner
from rulebook.losses import get_loss


@pytest.mark.parametrize("n, text", [
    (0, "0"), (950, "950"), (999, "999"), (1000, "1k"), (1234, "1.2k"), (9999, "10k"),
    (12345, "12k"), (99_999, "100k"), (999_499, "999k"), (999_999, "1M"), (3_400_000, "3.4M"), (12_000_000, "12M"),
    (2_500_000_000, "2.5G"),
])
def test_node_counts_print_in_four_characters_and_a_suffix(n, text):
    assert _count(n) == text


@pytest.mark.parametrize("learner", ["greedy", "orthogonal"])
def test_a_length_limit_of_zero_means_no_limit(learner):
    # BoostingSetup.max_rule_length 0 (the estimators' None) searches rules
    # of any length: the same rules as a limit no rule reaches.
    X, y = load_titanic()
    y = (y == y.unique()[0]).to_numpy(dtype=float) * 2 - 1
    weights = np.ones(len(y))
    binner = Binner(32)
    X_binned = binner.fit_transform(X, weights)
    learner_, objective, update = resolve_learner(learner, "second_order", None, "auto")

    def rules(limit):
        setup = BoostingSetup(X_binned=X_binned, binner=binner, y=y, sample_weight=weights,
                              loss=get_loss("logistic"), learner=learner_, objective=objective,
                              reg_lambda=1.0, n_rules=4, max_rule_length=limit,
                              weight_update=update)
        return [str(rule.query) for rule in fit_boosting(setup)[1]]

    unlimited = rules(0)
    assert unlimited and unlimited == rules(X.shape[1])
    if learner == "greedy":
        assert max(len(rule.split(" & ")) for rule in unlimited) > 2


@pytest.mark.parametrize("make", [
    lambda: RuleBoostingClassifier(n_rules=3, verbose=0),
    lambda: RuleBoostingClassifier(n_rules=3, learner="orthogonal", verbose=0),
])
def test_linear_terms_on_a_table_without_numbers_change_nothing(make):
    # No numeric column, no term: the same model as without include_linear,
    # to the last bit (the intercept is the loss's baseline, not a re-fit).
    X, y = load_titanic()
    X = X.select_dtypes(exclude="number")
    plain = make().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linear = make().set_params(include_linear=True).fit(X, y)
    assert linear.ensemble_.terms == ()
    assert linear.ensemble_.intercept == plain.ensemble_.intercept
    assert linear.ensemble_.rules == plain.ensemble_.rules
    pd.testing.assert_frame_equal(linear.history_.drop(columns="time"),
                                  plain.history_.drop(columns="time"))


def test_squared_loss_intercept_alone_is_the_weighted_mean():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"kind": rng.choice(["a", "b", "c"], size=50)})
    y = rng.normal(size=50)
    w = rng.uniform(0.5, 2, size=50)
    model = RuleBoostingRegressor(n_rules=1, include_linear=True, verbose=0).fit(X, y, w)
    assert model.history_["intercept"].iloc[0] == np.average(y, weights=w)
