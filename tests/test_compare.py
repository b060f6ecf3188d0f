"""compare_learners: the tidy score-versus-rules frame; area_under_rules_curve."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.compare import (
    area_under_complexity_curve,
    area_under_rules_curve,
    compare_learners,
    rules_curve,
)
from rulebook.datasets import load_ships, load_titanic, load_used_cars
from rulebook.rulefit import RuleFitClassifier, RuleFitRegressor

COLUMNS = ["learner", "split", "n_rules", "complexity", "score", "metric", "fit_time"]


@pytest.fixture(scope="module")
def titanic_frame():
    X, y = load_titanic(dropna=True)
    learners = {"greedy": RuleBoostingClassifier(), "rulefit": RuleFitClassifier(n_estimators=60)}
    return compare_learners(X, y, learners, n_splits=2, max_rules=4, random_state=0)


def test_documented_columns_and_dtypes(titanic_frame):
    frame = titanic_frame
    assert frame.columns.tolist() == COLUMNS
    assert frame.dtypes[["split", "n_rules", "complexity"]].eq("int64").all()
    assert frame.dtypes[["score", "fit_time"]].eq("float64").all()
    assert set(frame.learner) == {"greedy", "rulefit"}
    assert set(frame.split) == {0, 1}
    assert (frame.metric == "roc_auc").all()
    assert (frame.fit_time > 0).all()
    assert frame.n_rules.between(0, 4).all()
    # Boosting: every size 0..4 once per split; the 0-rule model scores 0.5.
    greedy = frame[frame.learner == "greedy"]
    assert greedy.groupby("split").n_rules.apply(list).tolist() == [[0, 1, 2, 3, 4]] * 2
    assert (greedy.loc[greedy.n_rules == 0, "score"] == 0.5).all()
    # Complexity is rules plus conditions, so at least 2 per rule.
    rules = frame[frame.n_rules > 0]
    assert (rules.complexity >= 2 * rules.n_rules).all()
    # One fit per learner and split: its time is repeated on the curve's rows.
    assert frame.groupby(["learner", "split"]).fit_time.nunique().eq(1).all()


def test_deterministic_with_random_state(titanic_frame):
    X, y = load_titanic(dropna=True)
    learners = {"greedy": RuleBoostingClassifier(), "rulefit": RuleFitClassifier(n_estimators=60)}
    again = compare_learners(X, y, learners, n_splits=2, max_rules=4, random_state=0)
    columns = [c for c in COLUMNS if c != "fit_time"]
    pd.testing.assert_frame_equal(again[columns], titanic_frame[columns])
    other = compare_learners(X, y, learners, n_splits=2, max_rules=4, random_state=1)
    assert not other[columns].equals(titanic_frame[columns])


def test_fits_in_parallel_give_the_same_frame(titanic_frame):
    # n_jobs runs the (learner, split) fits through joblib: same rows, same order.
    X, y = load_titanic(dropna=True)
    learners = {"greedy": RuleBoostingClassifier(), "rulefit": RuleFitClassifier(n_estimators=60)}
    parallel = compare_learners(X, y, learners, n_splits=2, max_rules=4, random_state=0, n_jobs=2)
    columns = [c for c in COLUMNS if c != "fit_time"]
    pd.testing.assert_frame_equal(parallel[columns], titanic_frame[columns])


def test_scores_are_those_of_the_sliced_ensembles():
    """The k-rule score of a boosting run is the test AUC of ensemble_[:k]."""
    X, y = load_titanic(dropna=True)
    frame = compare_learners(X, y, {"greedy": RuleBoostingClassifier()}, n_splits=1, max_rules=3,
                             random_state=5)
    train, test = next(StratifiedShuffleSplit(1, test_size=0.2, random_state=5).split(X, y))
    model = RuleBoostingClassifier(n_rules=3).fit(X.iloc[train], y.iloc[train])
    for k in range(4):
        expected = roc_auc_score(y.iloc[test], model.ensemble_[:k].decision_function(X.iloc[test]))
        assert frame.loc[frame.n_rules == k, "score"].item() == pytest.approx(expected)


def test_rulefit_curve_comes_from_its_regularisation_path():
    X, y = load_used_cars()
    model = RuleFitRegressor(max_rules=6, n_estimators=60, random_state=0).fit(X, y)
    curve = rules_curve(model)
    sizes = [k for k, _ in curve]
    assert sizes == sorted(set(sizes)) and sizes[0] == 0 and max(sizes) <= 6
    for k, ensemble in curve:
        assert len(ensemble) == k
        # The least regularised model of that size on the path.
        rows = model.path_[model.path_.n_rules == k]
        assert ensemble == rows.loc[rows.alpha.idxmin(), "ensemble"]
    assert rules_curve(model, max_rules=2)[-1][0] <= 2


def test_regression_and_train_score():
    X, y = load_used_cars()
    X, y = X.iloc[:600], y.iloc[:600]
    learners = {"greedy": RuleBoostingRegressor(reg_lambda=10),
                "rulefit": RuleFitRegressor(n_estimators=40)}
    frame = compare_learners(X, y, learners, n_splits=2, max_rules=3, return_train_score=True)
    assert frame.columns.tolist() == COLUMNS + ["train_score"]
    assert (frame.metric == "r2").all()
    assert (frame.loc[frame.n_rules == 0, "score"] <= 0.01).all()  # the mean predicts about R^2 0
    best = frame[frame.n_rules == frame.groupby(["learner", "split"]).n_rules.transform("max")]
    # RuleFit's lasso weights are strongly shrunk at three rules (the
    # paper's rf column is low on regression for the same reason).
    assert (best.score > 0.05).all() and (best.train_score > 0.05).all()
    assert (best.loc[best.learner == "greedy", "score"] > 0.3).all()


def test_poisson_task_is_inferred_and_scored_by_deviance():
    X, y = load_ships()
    frame = compare_learners(X, y, {"poisson": RuleBoostingRegressor(loss="poisson", reg_lambda=1)},
                             n_splits=2, test_size=0.3, max_rules=3)
    assert (frame.metric == "poisson_deviance").all()
    assert (frame.score >= 0).all()
    # Rules lower the deviance on average (lower is better).
    means = frame.groupby("n_rules").score.mean()
    assert means.loc[3] < means.loc[0]


def test_ndarray_input():
    X, y = load_used_cars()
    numeric = X.select_dtypes("number").to_numpy()[:500]
    frame = compare_learners(numeric, y.to_numpy()[:500], {"greedy": RuleBoostingRegressor(n_rules=2)},
                             n_splits=1)
    assert frame.n_rules.tolist() == [0, 1, 2]


def test_errors():
    X, y = load_used_cars()
    with pytest.raises(ValueError, match="learners is empty"):
        compare_learners(X, y, {})
    with pytest.raises(ValueError, match="disagree on the task"):
        compare_learners(X, y, {"a": RuleBoostingRegressor(), "b": RuleBoostingClassifier()})
    with pytest.raises(ValueError, match="task must be one of"):
        compare_learners(X, y, {"a": RuleBoostingRegressor()}, task="ranking")
    numeric = X.select_dtypes("number")
    with pytest.raises(TypeError, match="no fitted ensemble_"):
        compare_learners(numeric, y, {"ols": LinearRegression()}, n_splits=1)


# -- area under the score-versus-rules curve ----------------------------------
def _curve_frame(rows):
    return pd.DataFrame(rows, columns=["learner", "split", "n_rules", "score"]).assign(metric="r2")


def test_area_interpolates_missing_sizes_and_carries_the_last_score_forward():
    frame = _curve_frame([
        ("a", 0, 0, 0.0), ("a", 0, 2, 0.4), ("a", 0, 4, 0.8),   # sizes 1, 3 missing; stops at 4
        ("b", 0, 0, 0.0), ("b", 0, 1, 0.5),
        ("a", 1, 0, 0.0), ("a", 1, 4, 0.4),
    ])
    by_split = area_under_rules_curve(frame, max_rules=5, by_split=True)
    # a, split 0: sizes 1..5 score 0.2, 0.4, 0.6, 0.8, 0.8.
    assert by_split[("a", 0)] == pytest.approx(np.mean([0.2, 0.4, 0.6, 0.8, 0.8]))
    assert by_split[("a", 1)] == pytest.approx(np.mean([0.1, 0.2, 0.3, 0.4, 0.4]))
    assert by_split[("b", 0)] == pytest.approx(0.5)
    area = area_under_rules_curve(frame, max_rules=5)
    assert area.name == "r2"
    assert area["a"] == pytest.approx((by_split[("a", 0)] + by_split[("a", 1)]) / 2)
    with pytest.raises(ValueError, match="max_rules must be"):
        area_under_rules_curve(frame, max_rules=0)
    with pytest.raises(ValueError, match="lacks columns"):
        area_under_rules_curve(frame.drop(columns="n_rules"))


def test_area_of_a_real_comparison(titanic_frame):
    area = area_under_rules_curve(titanic_frame, max_rules=4)
    assert set(area.index) == {"greedy", "rulefit"}
    assert area.between(0.75, 0.95).all()
    # It is the mean of the per-split curves at sizes 1..4.
    greedy = titanic_frame[titanic_frame.learner == "greedy"]
    expected = greedy[greedy.n_rules > 0].score.mean()
    assert area["greedy"] == pytest.approx(expected)


def test_rulefit_scores_are_those_of_its_path_models():
    """A learner's own random_state is kept; its curve is scored on the test rows."""
    X, y = load_used_cars()
    learner = RuleFitRegressor(n_estimators=40, random_state=11)
    frame = compare_learners(X, y, {"rulefit": learner}, n_splits=1, max_rules=3, random_state=3)
    train, test = next(ShuffleSplit(1, test_size=0.2, random_state=3).split(X))
    model = RuleFitRegressor(max_rules=3, n_estimators=40, random_state=11)
    model.fit(X.iloc[train], y.iloc[train])
    expected = {k: r2_score(y.iloc[test], e.predict(X.iloc[test])) for k, e in rules_curve(model)}
    assert frame.set_index("n_rules").score.to_dict() == pytest.approx(expected)


# -- normalised risk and the area under the risk-versus-complexity curve ------
def test_normalised_risk_is_test_loss_over_the_training_intercepts_loss():
    X, y = load_titanic(dropna=True)
    frame = compare_learners(X, y, {"greedy": RuleBoostingClassifier(n_rules=3)}, n_splits=1,
                             return_train_score=True, return_risk=True,
                             history_columns=("train_loss", "coverage"))
    assert frame.columns.tolist() == COLUMNS + ["train_score", "risk", "normalised_risk",
                                                "zero_normalised_risk", "train_normalised_risk",
                                                "train_loss", "coverage"]
    risks = ["risk", "normalised_risk", "zero_normalised_risk", "train_normalised_risk"]
    assert frame.dtypes[risks].eq("float64").all()
    # The 0-rule model *is* the intercept fitted on the training split.
    intercept = frame[frame.n_rules == 0].iloc[0]
    assert intercept.normalised_risk == pytest.approx(1.0)
    assert intercept.train_normalised_risk == pytest.approx(1.0)
    # By hand, on the same split.
    train, test = next(StratifiedShuffleSplit(1, test_size=0.2, random_state=0).split(X, y))
    model = RuleBoostingClassifier(n_rules=3).fit(X.iloc[train], y.iloc[train])
    signs = np.where(y.iloc[test] == model.classes_[1], 1.0, -1.0)
    p = (y.iloc[train] == model.classes_[1]).mean()
    raw = model.ensemble_.decision_function(X.iloc[test])
    risk = np.mean(np.logaddexp(0, -signs * raw))
    reference = np.mean(np.logaddexp(0, -signs * np.log(p / (1 - p))))
    last = frame[frame.n_rules == 3].iloc[0]
    assert last.risk == pytest.approx(risk)
    assert last.normalised_risk == pytest.approx(risk / reference)
    assert last.normalised_risk < 0.9
    assert last.zero_normalised_risk == pytest.approx(risk / np.log(2))  # raw score 0: p = 1/2
    # history_columns: round k of the boosting run on the k-rule row.
    history = model.history_
    assert frame.train_loss.tolist() == pytest.approx(history.train_loss.tolist())
    assert frame.coverage.tolist() == pytest.approx(history.coverage.tolist())


def test_history_columns_are_missing_for_rulefit_and_must_not_clash():
    X, y = load_used_cars()
    X, y = X.iloc[:400], y.iloc[:400]
    frame = compare_learners(X, y, {"rulefit": RuleFitRegressor(n_estimators=20)}, n_splits=1,
                             max_rules=2, history_columns="train_loss", return_risk=True)
    assert frame.train_loss.isna().all()
    assert (frame.normalised_risk > 0).all()
    # Squared loss: the zero model's risk is the mean of y^2 on the test split.
    _, test = next(ShuffleSplit(1, test_size=0.2, random_state=0).split(X))
    ratio = frame.zero_normalised_risk / frame.normalised_risk
    reference = np.mean((y.iloc[test] - y.iloc[np.setdiff1d(np.arange(400), test)].mean()) ** 2)
    assert ratio.to_numpy() == pytest.approx(reference / np.mean(y.iloc[test] ** 2))
    with pytest.raises(ValueError, match="clash"):
        compare_learners(X, y, {"g": RuleBoostingRegressor()}, history_columns=["complexity"])


def test_area_under_complexity_curve_is_the_mean_of_the_budget_step_function():
    frame = pd.DataFrame({
        "learner": ["a"] * 4 + ["b"] * 2, "split": [0, 0, 0, 1, 0, 0],
        "n_rules": [0, 1, 2, 0, 0, 1], "complexity": [0, 2, 5, 0, 0, 3],
        "normalised_risk": [1.0, 0.5, 0.25, 1.0, 1.0, 0.4],
    })
    by_split = area_under_complexity_curve(frame, max_complexity=6, by_split=True)
    assert by_split[("a", 0)] == pytest.approx((1 + 3 * 0.5 + 2 * 0.25) / 6)
    assert by_split[("a", 1)] == pytest.approx(1.0)  # only the intercept
    assert by_split[("b", 0)] == pytest.approx((2 * 1 + 4 * 0.4) / 6)
    mean = area_under_complexity_curve(frame, max_complexity=6)
    assert mean["a"] == pytest.approx((by_split[("a", 0)] + 1.0) / 2)
    assert mean.name == "normalised_risk"
    # A model beyond the budget is never counted.
    assert area_under_complexity_curve(frame, max_complexity=1)["b"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="max_complexity"):
        area_under_complexity_curve(frame, max_complexity=0)
    with pytest.raises(ValueError, match="lacks columns"):
        area_under_complexity_curve(frame.drop(columns="complexity"))


class _CorrectiveStandIn(RuleBoostingRegressor):
    """Stagewise rules, then weights re-fitted the corrective way (Yang et al. 2024, eq. 7).

    Stands in for a corrective estimator: ``ensemble_`` holds final-round
    weights and ``history_["train_loss"]`` the loss after each round's re-fit.
    """

    def fit(self, X, y, sample_weight=None):
        from dataclasses import replace

        from rulebook.corrective import corrective_weights
        from rulebook.losses import get_loss

        super().fit(X, y)
        loss, y = get_loss("squared"), np.asarray(y, dtype=float)
        Q = self.ensemble_.query_matrix(X).astype(float)
        losses = [loss.loss(y, np.full(len(y), y.mean()), None)]
        for k in range(1, Q.shape[1] + 1):
            fit = corrective_weights(loss, y, Q[:, :k], np.ones(len(y)), self.reg_lambda)
            losses.append(loss.loss(y, fit.intercept + Q[:, :k] @ fit.weights, None))
        rules = tuple(replace(r, weight=float(w)) for r, w in zip(self.ensemble_.rules, fit.weights))
        self.ensemble_ = replace(self.ensemble_, intercept=float(fit.intercept), rules=rules)
        self.history_ = self.history_.assign(train_loss=losses)
        return self


def test_models_of_a_corrective_fit_are_refitted_per_round():
    X, y = load_used_cars()
    X, y = X.iloc[:500], y.iloc[:500]
    frame = compare_learners(X, y, {"corrective": _CorrectiveStandIn(n_rules=3, reg_lambda=1.0)},
                             n_splits=1, return_train_score=True)
    train, test = next(ShuffleSplit(1, test_size=0.2, random_state=0).split(X))
    model = _CorrectiveStandIn(n_rules=3, reg_lambda=1.0).fit(X.iloc[train], y.iloc[train])
    # The 3-rule model is the final one; the 1-rule model is not ensemble_[:1].
    assert frame.score.iloc[-1] == pytest.approx(r2_score(y.iloc[test], model.predict(X.iloc[test])))
    sliced = r2_score(y.iloc[train], model.ensemble_[:1].predict(X.iloc[train]))
    assert frame.train_score.iloc[1] != pytest.approx(sliced)
    assert frame.train_score.tolist() == pytest.approx(
        [1 - h / model.history_.train_loss.iloc[0] for h in model.history_.train_loss])


def test_a_model_that_cannot_be_rebuilt_is_an_error():
    class Broken(RuleBoostingRegressor):
        def fit(self, X, y, sample_weight=None):
            super().fit(X, y)
            self.history_ = self.history_.assign(train_loss=self.history_.train_loss * 0.5)
            return self

    X, y = load_used_cars()
    with pytest.raises(RuntimeError, match="cannot rebuild"):
        compare_learners(X.iloc[:300], y.iloc[:300], {"broken": Broken(n_rules=2)}, n_splits=1)


@pytest.mark.parametrize("params", [{"learner": "orthogonal"},
                                    {"learner": "greedy", "weight_update": "corrective"}])
def test_a_corrective_fit_is_scored_by_its_staged_models(params):
    X, y = load_used_cars()
    X, y = X.iloc[:400], y.iloc[:400]
    frame = compare_learners(X, y, {"corrective": RuleBoostingRegressor(n_rules=3, **params)},
                             n_splits=1, return_train_score=True)
    train, test = next(ShuffleSplit(1, test_size=0.2, random_state=0).split(X))
    model = RuleBoostingRegressor(n_rules=3, **params).fit(X.iloc[train], y.iloc[train])
    staged = [r2_score(y.iloc[test], e.predict(X.iloc[test])) for e in model.staged_ensembles()]
    assert frame.score.tolist() == pytest.approx(staged)
    assert [e for _, e in rules_curve(model)] == list(model.staged_ensembles())
    # The final weights on the first k rules are another, wrong, curve.
    prefix = [r2_score(y.iloc[test], model.ensemble_[:k].predict(X.iloc[test])) for k in range(4)]
    assert not np.allclose(prefix[:-1], staged[:-1])
