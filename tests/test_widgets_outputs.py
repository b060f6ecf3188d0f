"""The explorer widget on models of several outputs (issue 20, item 6): it
steps through the rounds showing each round's weight per output and the
chosen test metric of the model after that round."""

import html
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
alt = pytest.importorskip("altair")

from sklearn.datasets import load_iris, make_multilabel_classification  # noqa: E402
from sklearn.metrics import accuracy_score, f1_score, log_loss  # noqa: E402

from rulebook import RuleBoostingClassifier  # noqa: E402
from rulebook import widgets as rw  # noqa: E402


@pytest.fixture(autouse=True)
def no_echo_window(monkeypatch):
    monkeypatch.setattr(rw._ChartPanel, "ECHO_SECONDS", 0.0)


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    y = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y.to_numpy()]
    return X.iloc[::2], y[::2], X.iloc[1::2], y[1::2]


def facts_of(page):
    table = page.split("rb-facts", 1)[1].split("</table>")[0]
    return {html.unescape(k): html.unescape(v)
            for k, v in re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table)}


@pytest.mark.parametrize("head", ["complete", "single"])
def test_the_explorer_steps_through_a_multi_class_model(head):
    X, y, X_test, y_test = _iris()
    model = RuleBoostingClassifier(n_rules=4, head=head, verbose=0).fit(X, y)
    explorer = model.explore(X_test, y_test)
    classes = np.array(model.ensemble_.outputs, dtype=object)
    stages = list(model.staged_ensembles())
    accuracy = [accuracy_score(y_test, classes[s.decision_function(X_test).argmax(axis=1)]) for s in stages]
    np.testing.assert_allclose(explorer.score_table["test accuracy"], accuracy, rtol=1e-12)
    columns = model.ensemble_.weight_columns()
    assert [c for c in explorer.score_table.columns if c.startswith("weight")] == columns
    np.testing.assert_array_equal(explorer.score_table.loc[1:, columns].to_numpy(),
                                  [rule.weight for rule in model.ensemble_.rules])
    explorer.previous_button.click()
    assert explorer.round == 3
    facts = facts_of(explorer.rule_html.value)
    for k, label in enumerate(model.ensemble_.outputs):
        assert float(facts[f"weight[{label}]"]) == pytest.approx(model.ensemble_.rules[2].weight[k], abs=1e-3)
    assert float(facts["test accuracy"]) == pytest.approx(accuracy[3], abs=1e-4)
    # The model after the round, a weight column per class in its table.
    assert "Model after round 3" in explorer.rules_html.value
    assert all(label in explorer.rules_html.value for label in classes)
    assert set(explorer.charts) >= {"score by rules", "rule weights", "search effort"}
    spec = explorer.charts["rule weights"].chart.to_dict()
    assert spec["encoding"]["column"]["field"] == "panel"
    (param,) = [p for p in spec["params"] if p["name"] == "round"]
    assert param["value"] == [{"round": 3}]
    bundle = explorer._repr_mimebundle_()
    assert "virginica" in bundle["text/plain"] and "weight[virginica]" in bundle["text/html"]


def test_the_explorer_shows_the_chosen_metric():
    X, y, X_test, y_test = _iris()
    model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, y)
    explorer = rw.BoostingExplorer(model, X_test, y_test, metric="log_loss", round=1)
    classes = list(model.ensemble_.outputs)
    expected = [log_loss(y_test, s.predict(X_test), labels=classes) for s in model.staged_ensembles()]
    np.testing.assert_allclose(explorer.score_table["test log loss"], expected, rtol=1e-10)
    spec = explorer.charts["score by rules"].chart.to_dict()
    assert spec["encoding"]["y"]["title"] == "log loss"


def test_corrective_weights_of_several_outputs_are_those_of_each_round():
    X, y, X_test, y_test = _iris()
    model = RuleBoostingClassifier(n_rules=3, weight_update="corrective", verbose=0).fit(X, y)
    explorer = rw.BoostingExplorer(model, X_test, y_test, round=1)
    stages = list(model.staged_ensembles())
    facts = facts_of(explorer.rule_html.value)
    assert float(facts["weight[setosa]"]) == pytest.approx(stages[1].rules[0].weight[0], abs=1e-3)
    final = [float(w) for w in facts["weight in the final model"].split()]
    np.testing.assert_allclose(final, model.ensemble_.rules[0].weight, atol=1e-3)


def test_the_explorer_of_a_multi_label_model_scores_micro_f1():
    X, Y = make_multilabel_classification(n_samples=160, n_features=5, n_classes=3, random_state=1)
    X = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
    Y = pd.DataFrame(Y, columns=["a", "b", "c"])
    model = RuleBoostingClassifier(n_rules=3, head="single", verbose=0).fit(X.iloc[:100], Y.iloc[:100])
    explorer = model.explore(X.iloc[100:], Y.iloc[100:])
    expected = [f1_score(Y.iloc[100:], (s.predict(X.iloc[100:]) > 0.5).astype(int), average="micro",
                         zero_division=0) for s in model.staged_ensembles()]
    np.testing.assert_allclose(explorer.score_table["test micro-F1"], expected, rtol=1e-12)
    explorer.round = 0
    assert "The intercept only" in explorer.rule_html.value


def test_learner_comparison_of_classes():
    X, y = load_iris(return_X_y=True, as_frame=True)
    y = pd.Series(np.array(["setosa", "versicolor", "virginica"], dtype=object)[y.to_numpy()])
    comparison = rw.LearnerComparison(X, y, learners=["greedy"], n_rules=3, verbose=0)
    assert comparison.task == "multiclass" and comparison.metric == "accuracy"
    model = comparison.models["greedy"]
    stages = list(model.staged_ensembles())
    classes = np.array(model.classes_, dtype=object)
    expected = [accuracy_score(comparison.y_test, classes[s.decision_function(comparison.X_test).argmax(axis=1)])
                for s in stages]
    np.testing.assert_allclose(comparison.scores["greedy"], expected, rtol=1e-12)
    # Stratified: each class keeps its share in the test rows.
    assert comparison.y_test.value_counts().tolist() == [10, 10, 10]
    frame = comparison.round_frame(2)
    assert frame.loc["greedy", "weight"] == " ".join(
        rw.format_weight(w, 4) for w in model.ensemble_.rules[1].weight)
    numeric = rw.LearnerComparison(X, y.map({"setosa": 0, "versicolor": 1, "virginica": 2}),
                                   learners=["greedy"], n_rules=1, verbose=0)
    assert numeric.task == "regression"  # numbers: a task= says they are classes
