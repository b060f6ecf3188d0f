"""The scikit-learn contract, bad input, invariances and real-data sanity."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.utils.estimator_checks import parametrize_with_checks

from rulebook import (GreedyLearner, OptimalLearner, RuleBoostingClassifier,
                      RuleBoostingRegressor, RuleEnsemble)
from rulebook.datasets import load_ships, load_titanic, load_used_cars

ESTIMATORS = [
    RuleBoostingRegressor(n_rules=5),
    RuleBoostingRegressor(n_rules=5, loss="poisson"),
    RuleBoostingRegressor(n_rules=4, objective="gradient_boosting", max_bins=16),
    RuleBoostingClassifier(n_rules=5),
    RuleBoostingClassifier(n_rules=3, objective="gradient_sum", max_rule_length=2),
    RuleBoostingClassifier(n_rules=3, learner=GreedyLearner()),
    # The price per refinement reads the rows' gradients and weights.
    RuleBoostingRegressor(n_rules=3, learner=GreedyLearner(condition_cost=0.25)),
    # A node budget keeps the exact search quick on the checks' noise targets.
    RuleBoostingClassifier(n_rules=3, learner=OptimalLearner(max_nodes=2000)),
    RuleBoostingRegressor(n_rules=3, learner=OptimalLearner(max_nodes=2000), max_bins=32),
]


def _expected_failures(estimator):
    # Poisson takes several outputs of counts, so the tag says multi_output;
    # scikit-learn's check_regressor_multioutput fits make_regression's
    # negative targets whatever positive_only says, which loss="poisson" refuses.
    if getattr(estimator, "loss", None) == "poisson":
        return {"check_regressor_multioutput": "negative targets despite positive_only"}
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


def test_poisson_regressor_contract_on_counts():
    """Beyond the generic checks: Poisson on real counts."""
    X, y = load_ships()
    model = RuleBoostingRegressor(n_rules=5, loss="poisson").fit(X, y)
    assert model.predict(X).min() > 0
    np.testing.assert_allclose(np.log(model.predict(X)), model.ensemble_.decision_function(X))
    assert model.history_["train_loss"].iloc[-1] < model.history_["train_loss"].iloc[0]
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


# -- real data -------------------------------------------------------------
def test_titanic_classifier_beats_chance_clearly_on_held_out_data():
    X, y = load_titanic()
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)
    model = RuleBoostingClassifier(n_rules=10).fit(X_train, y_train)
    assert len(model.ensemble_) == 10
    assert roc_auc_score(y_test, model.predict_proba(X_test)[:, 1]) > 0.8
    assert set(model.classes_) == {0, 1}
    # Rules speak of real column names and values.
    assert any("Sex" in str(rule.query) for rule in model.ensemble_)


def test_used_cars_regression_and_history():
    X, y = load_used_cars()
    model = RuleBoostingRegressor(n_rules=10, reg_lambda=10).fit(X, y)
    assert r2_score(y, model.predict(X)) > 0.6
    history = model.history_
    assert list(history.index) == list(range(11))
    assert {"rule", "weight", "objective", "train_loss", "coverage", "length", "complexity",
            "time"} <= set(history.columns)
    assert np.all(np.diff(history["train_loss"].to_numpy()) <= 1e-9)
    assert history["complexity"].iloc[-1] == model.ensemble_.complexity


# -- invariances --------------------------------------------------------------
def _numeric_problem(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)).round(2), columns=list("abcd"))
    y = (X["a"] > 0.3).astype(float) * 2 + (X["b"] < -0.5) * (X["c"] > 0) + rng.normal(0, 0.1, n)
    return X, y


def test_dataframe_and_ndarray_give_the_same_model():
    X, y = _numeric_problem()
    by_frame = RuleBoostingRegressor(n_rules=5).fit(X, y).ensemble_
    by_array = RuleBoostingRegressor(n_rules=5).fit(X.to_numpy(), y.to_numpy()).ensemble_
    assert [r.weight for r in by_frame] == [r.weight for r in by_array]
    assert [str(r.query).translate(str.maketrans("abcd", "0123")) for r in by_frame] == \
        [str(r.query).replace("x", "") for r in by_array]


def test_float32_and_float64_give_the_same_predictions():
    X, y = _numeric_problem()
    X32 = X.astype(np.float32)
    m32 = RuleBoostingRegressor(n_rules=5).fit(X32, y)
    m64 = RuleBoostingRegressor(n_rules=5).fit(X32.astype(np.float64), y)
    np.testing.assert_array_equal(m32.predict(X32), m64.predict(X32))


def test_row_and_column_order_do_not_change_the_model():
    X, y = _numeric_problem()
    base = RuleBoostingRegressor(n_rules=5).fit(X, y)
    perm = np.random.default_rng(1).permutation(len(X))
    shuffled = RuleBoostingRegressor(n_rules=5).fit(X.iloc[perm], y.iloc[perm])
    reordered = RuleBoostingRegressor(n_rules=5).fit(X[["d", "c", "b", "a"]], y)
    np.testing.assert_allclose(reordered.predict(X[["d", "c", "b", "a"]]), base.predict(X), rtol=1e-9)
    # Rules name columns, so the ensemble itself scores frames in any order.
    np.testing.assert_allclose(reordered.ensemble_.predict(X), base.predict(X), rtol=1e-9)
    for other in (shuffled, reordered):
        np.testing.assert_allclose(other.ensemble_.predict(X), base.predict(X), rtol=1e-9)
        assert [set(map(str, r.query)) for r in other.ensemble_] == \
            [set(map(str, r.query)) for r in base.ensemble_]


def test_integer_sample_weight_equals_repeating_rows():
    X, y = _numeric_problem(n=120)
    w = np.random.default_rng(2).integers(0, 3, len(X))
    weighted = RuleBoostingRegressor(n_rules=4).fit(X, y, sample_weight=w)
    repeated = RuleBoostingRegressor(n_rules=4).fit(X.loc[X.index.repeat(w)], y.loc[y.index.repeat(w)])
    np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-9, atol=1e-12)


def test_fitted_model_is_a_plain_value():
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=4).fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
    assert RuleEnsemble.from_json(model.ensemble_.to_json()) == model.ensemble_
    assert clone(model).get_params() == model.get_params()
    assert not hasattr(clone(model), "ensemble_")


def test_slicing_gives_the_first_rounds():
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=5).fit(X, y)
    small = RuleBoostingClassifier(n_rules=2).fit(X, y)
    assert model.ensemble_[:2] == small.ensemble_


# -- bad input ------------------------------------------------------------------
@pytest.mark.parametrize(
    "X, y, params, error, match",
    [
        (pd.DataFrame(), [], {}, ValueError, "no columns"),
        (pd.DataFrame({"a": []}), [], {}, ValueError, "0 rows"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, np.nan], {}, ValueError, "NaN or infinite"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, np.inf], {}, ValueError, "NaN or infinite"),
        (pd.DataFrame({"a": [1.0, np.inf]}), [1.0, 2.0], {}, ValueError, "'a' contains infinite"),
        (pd.DataFrame({"a": [1.0, 2.0]}), ["x", "y"], {}, ValueError, "must be numeric"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, -1.0], {"loss": "poisson"}, ValueError, "non-negative"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [0.0, 0.0], {"loss": "poisson"}, ValueError, "all zero"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"n_rules": 0}, ValueError, "n_rules"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"reg_lambda": -1}, ValueError, "reg_lambda"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"learner": "magic"}, ValueError, "greedy"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"objective": "x"}, ValueError, "second_order"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"loss": "logistic"}, ValueError, "'squared' or 'poisson'"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0, 2.0], {"max_rule_length": 0}, ValueError, "max_rule_length"),
        (pd.DataFrame({"a": [1.0, 2.0]}), [1.0], {}, ValueError, "rows but y has"),
        (pd.DataFrame([[1.0, 2.0]], columns=["a", "a"]), [1.0], {}, ValueError, "duplicate column"),
        (pd.DataFrame({"id": [f"n{i}" for i in range(25)]}), np.arange(25.0), {}, ValueError, "'id'.*identifier"),
    ],
)
def test_regressor_bad_input(X, y, params, error, match):
    before = X.copy()
    with pytest.raises(error, match=match):
        RuleBoostingRegressor(**params).fit(X, y)
    pd.testing.assert_frame_equal(X, before)


def test_classifier_rejects_one_class_and_three_where_not_supported():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="two classes"):
        RuleBoostingClassifier().fit(X, ["a", "a", "a"])
    # Multi-class: the greedy learner, and the optimal one with rules of at
    # most two conditions, so far (tests/test_multiclass.py).
    with pytest.raises(ValueError, match="Only binary classification"):
        RuleBoostingClassifier(learner="optimal", max_rule_length=3).fit(X, ["a", "b", "c"])
    assert RuleBoostingClassifier(verbose=0).fit(X, ["a", "b", "c"]).predict_proba(X).shape == (3, 3)


def test_one_row_and_constant_target_fit_the_intercept_and_stop_with_a_warning():
    with pytest.warns(UserWarning, match="stopped after 0 rules"):
        one = RuleBoostingRegressor().fit(pd.DataFrame({"a": [1.0]}), [3.0])
    assert len(one.ensemble_) == 0 and one.predict(pd.DataFrame({"a": [5.0]}))[0] == 3.0
    X = pd.DataFrame({"a": np.arange(10.0)})
    with pytest.warns(UserWarning, match="stopped after 0 rules"):
        const = RuleBoostingRegressor().fit(X, np.full(10, 2.5))
    np.testing.assert_array_equal(const.predict(X), 2.5)


def test_prediction_input_checks():
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    with pytest.raises(ValueError, match="Sex"):
        model.predict(X.drop(columns=["Sex"]))
    bad = X.copy()
    # Text that is not a number (number strings are parsed, as at fit).
    bad["Age"] = bad["Age"].astype(str).where(bad["Age"].isna(), "old")
    with pytest.raises(ValueError, match="'Age' was numeric"):
        model.predict(bad)
    inf = X.head().copy()
    inf["Fare"] = np.inf
    with pytest.raises(ValueError, match="'Fare' contains infinite"):
        model.predict(inf)
    unseen = X.head().copy()
    unseen["Sex"] = "unknown"
    with pytest.warns(UserWarning, match="'Sex' has categories not seen"):
        model.predict(unseen)


def test_fit_and_predict_never_modify_the_input():
    X, y = load_titanic()
    X_before, y_before = X.copy(deep=True), y.copy(deep=True)
    model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    model.predict_proba(X)
    pd.testing.assert_frame_equal(X, X_before)
    pd.testing.assert_series_equal(y, y_before)


def test_missing_values_satisfy_no_condition_of_the_fitted_rules():
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=10).fit(X, y)
    nan_row = X.head(1).copy()
    for column in ("Age", "Fare", "Embarked", "Pclass", "SibSp", "Parch", "Sex"):
        nan_row[column] = None if X[column].dtype == object else np.nan
    assert model.ensemble_.query_matrix(nan_row).sum() == sum(
        len(r) == 0 for r in model.ensemble_)


def test_large_predictions_on_read_only_data(monkeypatch):
    """Regression: the numba path wrote into a read-only view of the input."""
    import rulebook._predict as predict

    X, y = _numeric_problem(n=400)
    model = RuleBoostingRegressor(n_rules=5).fit(X, y)
    array = X.to_numpy().copy()
    array.setflags(write=False)
    frozen = pd.DataFrame(array, columns=X.columns, copy=False)
    monkeypatch.setattr(predict, "PREDICT_MIN_WORK", 0)
    fast = model.predict(frozen)
    monkeypatch.setattr(predict, "PREDICT_MIN_WORK", 10**12)
    np.testing.assert_array_equal(fast, model.predict(frozen))


@pytest.mark.parametrize("loss, data", [("poisson", load_ships), ("squared", load_used_cars)])
def test_no_rule_increases_the_training_loss(loss, data):
    """Regression: on ships the closed-form (Newton) weight overshot."""
    X, y = data()
    model = RuleBoostingRegressor(n_rules=8, loss=loss).fit(X, y)
    train_loss = model.history_["train_loss"].to_numpy()
    assert np.all(np.diff(train_loss) <= 1e-9 * train_loss[0])


def test_classifier_training_loss_never_increases():
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=10, reg_lambda=0.01).fit(X, y)
    train_loss = model.history_["train_loss"].to_numpy()
    assert np.all(np.diff(train_loss) <= 1e-12)


def test_history_frame_is_pandas_frame_of_the_records():
    """``_history_frame`` builds what ``DataFrame(records).set_index`` builds."""
    from rulebook.boosting import _history_frame

    records = [{"round": 0, "rule": "(intercept)", "weight": 0.5, "certified": np.nan},
               {"round": 1, "rule": "x <= 1", "weight": -0.25, "nodes": 3, "certified": True,
                "weights": (0.1, 0.2)},
               {"round": 2, "rule": "y == a", "weight": 1.0, "nodes": 5, "certified": False,
                "weights": (0.3,), "extra": "z"}]
    expected = pd.DataFrame(records).set_index("round")
    pd.testing.assert_frame_equal(_history_frame(records), expected)


def test_node_counts_in_the_progress_line_are_short():
    """The optimal search's progress line gives node counts in a few characters."""
    from rulebook.boosting import _count

    counts = [0, 950, 1_000, 1_500, 12_345, 3_400_000, 2e9]
    assert [_count(n) for n in counts] == ["0", "950", "1k", "1.5k", "12k", "3.4M", "2G"]
