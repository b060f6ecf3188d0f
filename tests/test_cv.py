"""Cross-validated choice of reg_lambda and the number of rules (issue 21, item 3)."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import rankdata
from sklearn.metrics import check_scoring
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from rulebook import (
    RuleBoostingClassifier,
    RuleBoostingClassifierCV,
    RuleBoostingRegressor,
    RuleBoostingRegressorCV,
    load_model,
)
from rulebook.cv import _cv_results, _select
from rulebook.datasets import load_titanic, load_used_cars

CHECKED = [
    RuleBoostingClassifierCV(n_rules=3, reg_lambdas=(1.0, 10.0), cv=3, verbose=0),
    RuleBoostingRegressorCV(n_rules=3, reg_lambdas=(1.0, 10.0), cv=3, verbose=0),
    RuleBoostingRegressorCV(n_rules=2, loss="poisson", reg_lambdas=(1.0,), cv=3, verbose=0),
]


def _expected_failures(estimator):
    # As for RuleBoostingRegressor (test_estimators): the multi-output check
    # fits negative targets, which loss="poisson" refuses.
    if getattr(estimator, "loss", None) == "poisson":
        return {"check_regressor_multioutput": "negative targets despite positive_only"}
    return {}


@parametrize_with_checks(CHECKED, expected_failed_checks=_expected_failures)
def test_sklearn_compatible_cv_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def _titanic(n=400):
    X, y = load_titanic()
    return X.iloc[:n].reset_index(drop=True), y.iloc[:n].reset_index(drop=True)


def test_every_score_is_the_refitted_model_of_that_many_rules():
    """Greedy stagewise boosting: the model after k rounds of an n-rule fit
    is the k-rule fit, so each staged score equals a direct fit's score."""
    X, y = _titanic()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    model = RuleBoostingClassifierCV(n_rules=4, reg_lambdas=(0.5, 20.0), cv=cv, verbose=0,
                                     scoring="roc_auc").fit(X, y)
    results = model.cv_results_
    scorer = check_scoring(RuleBoostingClassifier(), scoring="roc_auc")
    for row, params in enumerate(results["params"]):
        for i, (train, test) in enumerate(cv.split(X, y)):
            direct = RuleBoostingClassifier(params["n_rules"], reg_lambda=params["reg_lambda"],
                                            verbose=0).fit(X.iloc[train], y.iloc[train])
            expected = scorer(direct, X.iloc[test], y.iloc[test])
            assert results[f"split{i}_test_score"][row] == pytest.approx(expected, abs=1e-12)
    means = np.mean([results[f"split{i}_test_score"] for i in range(3)], axis=0)
    np.testing.assert_allclose(results["mean_test_score"], means)
    assert model.best_score_ == pytest.approx(means.max())


def test_refit_is_the_chosen_estimator_on_all_rows():
    X, y = _titanic()
    model = RuleBoostingClassifierCV(n_rules=3, reg_lambdas=(1.0, 10.0), cv=3, verbose=0).fit(X, y)
    reference = RuleBoostingClassifier(model.n_rules_, reg_lambda=model.reg_lambda_,
                                       verbose=0).fit(X, y)
    assert model.best_params_ == {"reg_lambda": model.reg_lambda_, "n_rules": model.n_rules_}
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))
    assert str(model.ensemble_) == str(reference.ensemble_)
    assert [len(e) for e in model.staged_ensembles()] == list(range(len(model.ensemble_) + 1))
    np.testing.assert_array_equal(model.classes_, reference.classes_)


def test_saved_file_loads_as_the_chosen_plain_estimator(tmp_path):
    X, y = load_used_cars()
    model = RuleBoostingRegressorCV(n_rules=3, reg_lambdas=(1.0, 5.0), cv=3, verbose=0).fit(X, y)
    loaded = load_model(model.to_json())
    assert type(loaded) is RuleBoostingRegressor
    assert loaded.get_params()["reg_lambda"] == model.reg_lambda_
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert json.loads(model.to_json())["params"]["n_rules"] == model.n_rules_


def test_a_fit_that_stops_early_keeps_its_last_model_for_more_rules():
    # Two stagewise rules (the intercept is not re-fitted) explain the
    # target exactly: with reg_lambda=0 the residual is then zero and
    # boosting stops before the 4 rules asked for.
    X = pd.DataFrame({"a": np.tile(np.arange(10.0), 6)})
    y = np.where(X["a"] <= 4, 3.0, -1.0)
    with pytest.warns(UserWarning, match="stopped after 2 rules"):
        model = RuleBoostingRegressorCV(n_rules=4, reg_lambdas=(0.0,), cv=KFold(3),
                                        verbose=0).fit(X, y)
    scores = model.cv_results_["mean_test_score"]
    assert scores[0] < 1.0
    np.testing.assert_allclose(scores[1:], 1.0)  # rounds 3 and 4: the model of round 2
    assert model.n_rules_ == 2  # ties: the fewest rules


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(2, 5), st.integers(1, 6), st.sampled_from(["best", "one_standard_error"]),
       st.data())
def test_selection_against_its_definition(n_lambdas, n_splits, n_rules, selection, data):
    lambdas = sorted(data.draw(st.sets(st.sampled_from([0.0, 0.1, 1.0, 3.0, 10.0, 100.0]),
                                       min_size=n_lambdas, max_size=n_lambdas)))
    # Scores on a coarse grid, so that ties happen.
    scores = np.array(data.draw(st.lists(st.sampled_from([0.5, 0.6, 0.7, 0.75, 0.8]),
                                         min_size=len(lambdas) * n_splits * n_rules,
                                         max_size=len(lambdas) * n_splits * n_rules)))
    scores = scores.reshape(len(lambdas), n_splits, n_rules)
    results = _cv_results(lambdas, scores, np.ones((len(lambdas), n_splits)))
    chosen = _select(results, selection, n_splits)
    means = scores.mean(axis=1)  # (lambdas, rules)
    best = means.max()
    if selection == "one_standard_error":
        i, k = np.unravel_index(np.argmax(means), means.shape)
        best -= scores[i, :, k].std() / np.sqrt(n_splits)
    # Brute force: the fewest rules reaching the threshold, then the largest lambda.
    pairs = [(k + 1, -lambdas[i]) for i in range(len(lambdas)) for k in range(n_rules)
             if means[i, k] >= best - 1e-12 * max(1.0, abs(best))]
    k, minus_lambda = min(pairs)
    assert results["params"][chosen] == {"reg_lambda": -minus_lambda, "n_rules": k}
    np.testing.assert_array_equal(results["rank_test_score"],
                                  rankdata(-results["mean_test_score"], method="min"))


@pytest.mark.parametrize("params, message", [
    ({"reg_lambdas": ()}, "reg_lambdas"),
    ({"reg_lambdas": (1.0, -1.0)}, "reg_lambdas"),
    ({"reg_lambdas": "abc"}, "reg_lambdas"),
    ({"reg_lambdas": (1.0, 1.0)}, "reg_lambdas"),
    ({"selection": "smallest"}, "selection"),
    ({"n_rules": 0}, "n_rules"),
    ({"learner": "nope"}, "learner"),
])
def test_bad_parameters_are_named(params, message):
    X, y = _titanic(100)
    with pytest.raises(ValueError, match=message):
        RuleBoostingClassifierCV(verbose=0, cv=3, **params).fit(X, y)


def test_scalar_and_array_sample_weights():
    X, y = _titanic(200)
    a = RuleBoostingClassifierCV(n_rules=2, reg_lambdas=(1.0,), cv=3, verbose=0)
    plain = a.fit(X, y).cv_results_["mean_test_score"]
    scaled = a.fit(X, y, sample_weight=2.0).cv_results_["mean_test_score"]
    # A constant weight is the unweighted problem with a doubled Hessian:
    # the fits differ (reg_lambda counts against it), the scores are finite.
    assert np.isfinite(scaled).all() and np.isfinite(plain).all()
    weights = np.where(y.to_numpy() == 1, 2.0, 1.0)
    weighted = a.fit(X, y, sample_weight=weights)
    assert np.isfinite(weighted.cv_results_["mean_test_score"]).all()


def test_cv_chart_data_and_spec():
    pytest.importorskip("altair")
    from rulebook.charts import cv_chart, cv_data

    X, y = _titanic(200)
    model = RuleBoostingClassifierCV(n_rules=3, reg_lambdas=(1.0, 10.0), cv=3, verbose=0).fit(X, y)
    data = cv_data(model)
    assert len(data) == 6 and data["chosen"].sum() == 1
    chosen = data[data["chosen"]].iloc[0]
    assert (chosen["reg_lambda"], chosen["n_rules"]) == (model.reg_lambda_, model.n_rules_)
    np.testing.assert_allclose(data["std_error"], data["std"] / np.sqrt(3))
    spec = cv_chart(model).to_dict()
    assert spec["encoding"]["x"]["field"] == "n_rules"
    assert spec["encoding"]["color"]["field"] == "strength"
    with pytest.raises(ValueError, match="RuleBoostingClassifierCV"):
        cv_data(RuleBoostingClassifier(n_rules=1, verbose=0).fit(X, y))


@pytest.mark.parametrize("make", [
    lambda: RuleBoostingClassifier(4, verbose=0),
    lambda: RuleBoostingClassifier(4, learner="orthogonal", verbose=0),
    lambda: RuleBoostingRegressor(4, verbose=0),
    lambda: RuleBoostingRegressor(4, loss="poisson", weight_update="corrective", verbose=0),
])
def test_staged_predictions_are_the_staged_models_to_the_last_bit(make):
    X, y = _titanic(300)
    if not isinstance(make(), RuleBoostingClassifier):
        y = (X["Age"].fillna(30) / 10).round()  # counts, for Poisson too
        X = X.drop(columns="Age")
    model = make().fit(X, y)
    stages = list(model.staged_ensembles())[1:]
    predicted = list(model.staged_predict(X))
    assert len(predicted) == len(stages) == len(model.ensemble_)
    for stage, prediction in zip(stages, predicted):
        if isinstance(model, RuleBoostingClassifier):
            raw = stage.decision_function(X)
            np.testing.assert_array_equal(prediction, model.classes_[(raw > 0).astype(int)])
        else:
            np.testing.assert_array_equal(prediction, stage.predict(X))
    if isinstance(model, RuleBoostingClassifier):
        for stage, raw, proba in zip(stages, model.staged_decision_function(X),
                                     model.staged_predict_proba(X)):
            np.testing.assert_array_equal(raw, stage.decision_function(X))
            np.testing.assert_array_equal(proba[:, 1], stage.predict(X))
    # The last round is the fitted model.
    np.testing.assert_array_equal(predicted[-1], model.predict(X))
