"""Input defects found by fuzzing (issue 26): each test failed before its fix,
except those whose comment says they pin behaviour that was already right
(kept next to the defect they bound).

Column identity, sample weights, silently ignored parameters and numbers
stored as text; errors name the offending column or parameter.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from rulebook import OptimalLearner, RuleBoostingClassifier, RuleBoostingRegressor

LEARNERS = ["greedy", "optimal", "orthogonal"]


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(n, 3))
    return A, (A[:, 0] + A[:, 1] > 0).astype(int)


def _quiet(**params):
    return {"n_rules": 3, "verbose": 0, **params}


# -- 1. column identity --------------------------------------------------------
@pytest.mark.parametrize("names", [[0, 1, 2], ["a", "b", "c"]], ids=["int", "str"])
def test_reordered_columns_raise_instead_of_predicting_by_position(names):
    # int names failed before (silently positional); str names pin
    # scikit-learn's check, which already raised.
    A, y = _data()
    X = pd.DataFrame(A, columns=names)
    model = RuleBoostingClassifier(**_quiet()).fit(X, y)
    expected = model.predict(X)
    np.testing.assert_array_equal(model.predict(X[list(names)]), expected)
    shuffled = X[names[::-1]]
    for method in (model.predict, model.predict_proba, model.decision_function):
        with pytest.raises(ValueError, match="order"):
            method(shuffled)
    np.testing.assert_array_equal(model.predict(shuffled[list(names)]), expected)


def test_int_named_columns_missing_or_extra_are_listed():
    A, y = _data()
    X = pd.DataFrame(A)
    model = RuleBoostingRegressor(**_quiet()).fit(X, A[:, 0])
    with pytest.raises(ValueError, match=r"missing.*\[2\]"):
        model.predict(X[[0, 1]])
    with pytest.raises(ValueError, match=r"unexpected.*\[7\]"):
        model.predict(X.assign(**{"7": 1.0}).set_axis([0, 1, 2, 7], axis=1))
    with pytest.raises(ValueError, match=r"missing.*unexpected"):
        model.predict(X.set_axis([0, 1, 5], axis=1))


def test_int_named_mixed_dtypes_reordered_error_is_about_order_not_dtype():
    A, y = _data()
    X = pd.DataFrame({0: A[:, 0], 1: np.where(A[:, 1] > 0, "p", "n"), 2: A[:, 2]})
    model = RuleBoostingClassifier(**_quiet()).fit(X, y)
    with pytest.raises(ValueError, match="order") as error:
        model.predict(X[[2, 1, 0]])
    assert "dtype" not in str(error.value)


def test_numpy_input_stays_positional():
    # Pins behaviour that was right before the fix: arrays are read by position.
    A, y = _data()
    model = RuleBoostingClassifier(**_quiet()).fit(A, y)
    np.testing.assert_array_equal(model.predict(A), model.predict(pd.DataFrame(A)))
    framed = RuleBoostingClassifier(**_quiet()).fit(pd.DataFrame(A), y)
    np.testing.assert_array_equal(framed.predict(A), model.predict(A))


def test_rulefit_int_named_reordered_columns_raise():
    from rulebook.rulefit import RuleFitRegressor

    A, _ = _data()
    X = pd.DataFrame(A)
    model = RuleFitRegressor(n_estimators=10, random_state=0).fit(X, A[:, 0] + A[:, 2])
    with pytest.raises(ValueError, match="order"):
        model.predict(X[[2, 1, 0]])


# -- 2. sample weights -----------------------------------------------------------
def _estimator(kind, learner):
    cls = RuleBoostingClassifier if kind == "classifier" else RuleBoostingRegressor
    return cls(**_quiet(learner=learner))


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
@pytest.mark.parametrize("learner", LEARNERS)
@pytest.mark.parametrize("weight", [-2.0, 0.0, np.nan, np.inf, "2"])
def test_bad_scalar_sample_weight_is_refused_naming_it(kind, learner, weight):
    A, y = _data()
    with pytest.raises((ValueError, TypeError), match="sample_weight"):
        _estimator(kind, learner).fit(A, y, sample_weight=weight)


@pytest.mark.parametrize("weights", [["a"] * 80, [1.0] * 79 + [-1.0], np.zeros(80)],
                         ids=["strings", "negative", "zeros"])
def test_bad_sample_weight_array_is_refused_naming_it(weights):
    A, y = _data()
    with pytest.raises((ValueError, TypeError), match="sample_weight"):
        RuleBoostingRegressor(**_quiet()).fit(A, y, sample_weight=weights)


def test_positive_scalar_sample_weight_is_that_weight_on_every_row():
    # Pins the scalar path (passed before the fix too): a weight counts rows.
    A, y = _data()
    weighted = RuleBoostingClassifier(**_quiet()).fit(A, y, sample_weight=3)
    plain = RuleBoostingClassifier(**_quiet()).fit(A, y, sample_weight=np.full(len(y), 3.0))
    np.testing.assert_allclose(weighted.decision_function(A), plain.decision_function(A))


@pytest.mark.parametrize("learner", LEARNERS)
def test_weights_leaving_one_class_are_refused_naming_sample_weight(learner):
    A, y = _data()
    original = (y == 1).astype(float)
    weights = original.copy()
    with pytest.raises(ValueError, match="sample_weight.*class"):
        RuleBoostingClassifier(**_quiet(learner=learner)).fit(A, y, sample_weight=weights)
    np.testing.assert_array_equal(weights, original)  # not modified


def test_rulefit_weights_leaving_one_class_are_refused():
    from rulebook.rulefit import RuleFitClassifier

    A, y = _data()
    with pytest.raises(ValueError, match="sample_weight.*class"):
        RuleFitClassifier(n_estimators=5).fit(A, y, sample_weight=(y == 0).astype(float))


# -- 3. silently ignored parameters ---------------------------------------------
def _mixed(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "color": rng.choice(["red", "green"], n)})
    return X, X["a"].to_numpy() + (X["color"] == "red")


@pytest.mark.parametrize("verbose", ["loud", -1, 1.5, None])
def test_verbose_must_be_a_non_negative_int_or_bool(verbose):
    X, y = _mixed()
    with pytest.raises(ValueError, match="verbose"):
        RuleBoostingRegressor(n_rules=1, verbose=verbose).fit(X, y)


@pytest.mark.parametrize("verbose", [0, 2, False, True, np.int64(0)])
def test_valid_verbose_is_accepted(verbose):
    # Pins the values the new check must keep accepting.
    X, y = _mixed()
    RuleBoostingRegressor(n_rules=1, verbose=verbose).fit(X, y)


def test_cut_points_on_a_nominal_column_raise_naming_it():
    X, y = _mixed()
    with pytest.raises(ValueError, match="'color'.*nominal"):
        RuleBoostingRegressor(**_quiet(cut_points={"color": [1, 2]})).fit(X, y)
    with pytest.raises(ValueError, match="'color'.*nominal"):
        RuleBoostingRegressor(**_quiet(cut_points={"color": [1, 2]})).fit(
            X.astype({"color": "category"}), y)


def test_cut_points_on_a_missing_column_raise_naming_it():
    # Pins the existing check (it raised before the fixes of issue 26).
    X, y = _mixed()
    with pytest.raises(ValueError, match="'colour'"):
        RuleBoostingRegressor(**_quiet(cut_points={"colour": [1, 2]})).fit(X, y)


@pytest.mark.parametrize("n_splits", [0, -1, 1.5, "2"])
def test_compare_learners_refuses_bad_n_splits(n_splits):
    from rulebook.compare import compare_learners

    X, y = _mixed()
    with pytest.raises(ValueError, match="n_splits"):
        compare_learners(X, y, {"g": RuleBoostingRegressor(**_quiet())}, n_splits=n_splits)


def test_compare_learners_bad_random_state_is_named():
    from rulebook.compare import compare_learners

    X, y = _mixed()
    with pytest.raises(ValueError, match="random_state"):
        compare_learners(X, y, {"g": RuleBoostingRegressor(**_quiet())}, random_state="x")


def test_rulefit_bad_random_state_is_named():
    from rulebook.rulefit import RuleFitRegressor

    X, y = _mixed()
    with pytest.raises(ValueError, match="random_state"):
        RuleFitRegressor(n_estimators=5, random_state="x").fit(X, y)


def test_rulefit_max_samples_above_the_rows_raises_like_bagging():
    from rulebook.rulefit import RuleFitRegressor

    X, y = _mixed()
    with pytest.raises(ValueError, match=r"max_samples.*80"):
        RuleFitRegressor(n_estimators=5, max_samples=10**6).fit(X, y)
    RuleFitRegressor(n_estimators=5, max_samples=80, random_state=0).fit(X, y)


def test_rulefit_max_rules_zero_is_refused_like_n_rules_zero():
    from rulebook.rulefit import RuleFitRegressor

    X, y = _mixed()
    with pytest.raises(ValueError, match="max_rules"):
        RuleFitRegressor(n_estimators=5, max_rules=0).fit(X, y)
    with pytest.raises(ValueError, match="n_rules"):
        RuleBoostingRegressor(n_rules=0).fit(X, y)


def test_compare_learners_max_rules_zero_still_scores_rulefit():
    # Guards the change of RuleFit's max_rules to >= 1: compare_learners
    # passes max(max_rules, 1) and still scores the intercept-only model.
    from rulebook.compare import compare_learners
    from rulebook.rulefit import RuleFitRegressor

    X, y = _mixed()
    frame = compare_learners(X, y, {"rf": RuleFitRegressor(n_estimators=5)}, n_splits=1, max_rules=0)
    assert frame["n_rules"].tolist() == [0]


def test_optimal_learner_too_many_threads_are_capped_with_a_warning():
    import os

    from rulebook import OptimalLearner

    with pytest.warns(UserWarning, match="n_jobs=1000"):
        learner = OptimalLearner(n_jobs=1000)
    assert 1 <= learner.n_jobs <= max(os.cpu_count() or 1, 1)
    X, y = _mixed()
    RuleBoostingRegressor(**_quiet(learner=learner)).fit(X, y)


def test_sparse_dataframe_is_densified_with_a_warning_naming_its_size():
    from scipy import sparse

    X = pd.DataFrame.sparse.from_spmatrix(sparse.random(60, 3, density=0.3, random_state=0))
    y = np.arange(60.0)
    with pytest.warns(UserWarning, match=r"sparse.*60 rows.*3 columns"):
        model = RuleBoostingRegressor(**_quiet()).fit(X, y)
    with pytest.warns(UserWarning, match="sparse"):
        sparse_prediction = model.predict(X)
    np.testing.assert_array_equal(sparse_prediction, model.predict(X.sparse.to_dense()))


# -- 4. numbers stored as text ---------------------------------------------------
def _text_numbers(cells, n=80):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"s": pd.Series(cells * (n // len(cells)), dtype=object),
                      "b": rng.normal(size=n)})
    y = np.array([0.0, 1.0, 0.0, 2.0] * (n // 4)) + rng.normal(size=n) * 0.1
    return X, y


def test_text_numbers_with_blank_cells_are_numeric_with_a_warning():
    # Pins issue 17's conversion (it passed before issue 26): "" is missing.
    X, y = _text_numbers(["1.5", "2", "", "3.25"])
    original = X.copy()
    with pytest.warns(UserWarning, match="column 's'.*number"):
        model = RuleBoostingRegressor(**_quiet()).fit(X, y)
    pd.testing.assert_frame_equal(X, original)
    rules = [str(rule.query) for rule in model.ensemble_]
    assert not any('""' in rule or "==" in rule for rule in rules), rules
    numeric = X.assign(s=pd.to_numeric(X["s"]))
    np.testing.assert_allclose(model.predict(X), model.predict(numeric))


@pytest.mark.parametrize("marker", ["nan", "NA", "N/A", "?", "-"])
def test_text_numbers_with_a_missing_marker_warn_naming_column_and_marker(marker):
    X, y = _text_numbers(["1.5", "2", marker, "3.25"])
    with pytest.warns(UserWarning, match=rf"column 's'.*{re.escape(repr(marker))}.*to_numeric"):
        RuleBoostingRegressor(**_quiet()).fit(X, y)


def test_nominal_text_and_categoricals_of_numbers_do_not_warn():
    X, y = _text_numbers(["red", "green", "", "blue"])
    coded = X.assign(s=pd.Categorical(["1.5", "2", "NA", "3.25"] * 20))
    for frame in (X, coded):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            RuleBoostingRegressor(**_quiet()).fit(frame, y)


@pytest.mark.parametrize("learner", ["greedy", "optimal"])
@pytest.mark.parametrize("extra", [{}, {"propositions": 4}])
def test_no_rule_has_an_empty_query(learner, extra):
    # Issue 26: with stagewise weights the intercept is not re-fitted, and on
    # this table the best query of round 3 was the empty one, printed as a
    # rule `if True`. The intercept now takes that shift and the round
    # searches again; the model of each round is still what history_ says.
    import warnings

    X = pd.DataFrame({"s": [1.5, 2.0, np.nan, 3.25] * 15})
    y = np.random.default_rng(0).normal(size=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # The plain objective: with a cost per condition no rule pays for
        # itself on this noise and the fit stops (test_boosting).
        plain = OptimalLearner(condition_cost=0) if learner == "optimal" else learner
        model = RuleBoostingRegressor(n_rules=3, learner=plain, verbose=0, **extra).fit(X, y)
    assert all(len(rule.query) > 0 for rule in model.ensemble_.rules)
    assert "intercept_shift" in model.history_
    last = list(model.staged_ensembles())[-1]
    np.testing.assert_allclose(last.predict(X), model.predict(X))
    assert model.history_["intercept"].iloc[-1] == model.ensemble_.intercept
