"""compare_learners on targets of several outputs (issue 20, item 6): the
tasks "multiclass", "multilabel" and "multioutput", scored by scikit-learn
on the model after each round."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris, make_multilabel_classification, make_regression
from sklearn.metrics import accuracy_score, f1_score, r2_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.compare import area_under_rules_curve, compare_learners
from rulebook.losses import MultinomialLoss


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, pd.Series(np.array(["setosa", "versicolor", "virginica"], dtype=object)[y.to_numpy()])


def _labels(n=150, k=4):
    X, Y = make_multilabel_classification(n_samples=n, n_features=5, n_classes=k, random_state=0)
    return (pd.DataFrame(X, columns=[f"f{j}" for j in range(5)]),
            pd.DataFrame(Y, columns=[f"label {j}" for j in range(k)]))


def _targets(n=120, k=3):
    X, Y = make_regression(n_samples=n, n_features=4, n_targets=k, noise=10.0, random_state=0)
    return pd.DataFrame(X, columns=list("abcd")), pd.DataFrame(Y, columns=[f"t{j}" for j in range(k)])


def _refit(estimator, X, y, splitter, y_split):
    """The fits of the comparison's splits, redone here."""
    for train, test in splitter.split(np.zeros((len(X), 1)), y_split):
        yield estimator.fit(X.iloc[train], np.asarray(y)[train]), train, test


@pytest.mark.parametrize("learners", [
    {"greedy": RuleBoostingClassifier(n_rules=3), "single": RuleBoostingClassifier(n_rules=3, head="single")},
    {"corrective": RuleBoostingClassifier(n_rules=3, weight_update="corrective")},
])
def test_multiclass_is_inferred_stratified_and_scored_by_each_round_s_accuracy(learners):
    X, y = _iris()
    frame = compare_learners(X, y, learners, n_splits=2, random_state=3)
    assert frame["metric"].unique().tolist() == ["accuracy"]
    splitter = StratifiedShuffleSplit(n_splits=2, test_size=0.2, random_state=3)
    for name, learner in learners.items():
        for split, (model, train, test) in enumerate(_refit(learner, X, y, splitter, y)):
            classes = np.array(model.classes_, dtype=object)
            expected = [accuracy_score(y.iloc[test], classes[e.decision_function(X.iloc[test]).argmax(axis=1)])
                        for e in model.staged_ensembles()]
            rows = frame[(frame["learner"] == name) & (frame["split"] == split)]
            np.testing.assert_allclose(rows["score"], expected, rtol=1e-12)
    assert set(area_under_rules_curve(frame, max_rules=3).index) == set(learners)


def test_multiclass_risk_is_the_multinomial_loss_against_the_training_priors():
    X, y = _iris()
    frame = compare_learners(X, y, {"greedy": RuleBoostingClassifier(n_rules=2)}, n_splits=1,
                             return_risk=True, random_state=1)
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=0.2, random_state=1)
    (model, train, test), = _refit(RuleBoostingClassifier(n_rules=2), X, y, splitter, y)
    onehot = lambda rows: (y.iloc[rows].to_numpy()[:, None] == model.classes_[None, :]).astype(float)
    loss = MultinomialLoss()
    offset = np.tile(loss.baseline(onehot(train), np.ones(len(train))), (len(test), 1))
    for k, ensemble in enumerate(model.staged_ensembles()):
        risk = loss.loss(onehot(test), ensemble.decision_function(X.iloc[test]), None)
        row = frame[frame["n_rules"] == k].iloc[0]
        assert row["risk"] == pytest.approx(risk, rel=1e-12)
        assert row["normalised_risk"] == pytest.approx(risk / loss.loss(onehot(test), offset, None), rel=1e-12)
    assert frame.loc[frame["n_rules"] == 0, "normalised_risk"].iloc[0] == pytest.approx(1.0)


def test_multilabel_is_inferred_and_scored_by_each_round_s_micro_f1():
    X, Y = _labels()
    frame = compare_learners(X, Y, {"greedy": RuleBoostingClassifier(n_rules=3, head="single")},
                             n_splits=2, return_risk=True, return_train_score=True)
    assert frame["metric"].unique().tolist() == ["micro_f1"]
    splitter = ShuffleSplit(n_splits=2, test_size=0.2, random_state=0)
    for split, (model, train, test) in enumerate(_refit(
            RuleBoostingClassifier(n_rules=3, head="single"), X, Y, splitter, None)):
        expected = [f1_score(Y.iloc[test], (e.predict(X.iloc[test]) > 0.5).astype(int), average="micro",
                             zero_division=0) for e in model.staged_ensembles()]
        np.testing.assert_allclose(frame.loc[frame["split"] == split, "score"], expected, rtol=1e-12)
    assert frame["normalised_risk"].notna().all() and frame["train_normalised_risk"].iloc[-1] < 1


def test_multioutput_is_inferred_and_scored_by_each_round_s_mean_r2():
    X, Y = _targets()
    learners = {"complete": RuleBoostingRegressor(n_rules=3),
                "corrective": RuleBoostingRegressor(n_rules=3, weight_update="corrective")}
    frame = compare_learners(X, Y, learners, n_splits=1, return_risk=True)
    assert frame["metric"].unique().tolist() == ["mean_r2"]
    splitter = ShuffleSplit(n_splits=1, test_size=0.2, random_state=0)
    for name, learner in learners.items():
        (model, train, test), = _refit(learner, X, Y, splitter, None)
        expected = [r2_score(Y.iloc[test], e.predict(X.iloc[test])) for e in model.staged_ensembles()]
        np.testing.assert_allclose(frame.loc[frame["learner"] == name, "score"], expected, rtol=1e-12)


def test_a_task_that_does_not_fit_y_names_the_one_that_would():
    X, y = _iris()
    with pytest.raises(ValueError, match=r"task='binary' scores two classes; y has 3 \(use task='multiclass'\)"):
        compare_learners(X, y, {"g": RuleBoostingClassifier(n_rules=1)}, task="binary", n_splits=1)
    X, Y = _labels()
    with pytest.raises(ValueError, match="y has 4 columns .use task='multilabel'"):
        compare_learners(X, Y, {"g": RuleBoostingClassifier(n_rules=1)}, task="binary", n_splits=1)
    with pytest.raises(ValueError, match="task='multioutput' needs a column per label or target"):
        compare_learners(X, Y.iloc[:, 0], {"g": RuleBoostingClassifier(n_rules=1)}, task="multioutput",
                         n_splits=1)
    with pytest.raises(ValueError, match="task must be one of"):
        compare_learners(X, Y, {"g": RuleBoostingClassifier(n_rules=1)}, task="labels", n_splits=1)
