"""Explanations of models of several outputs (issue 20, item 6): multi-class,
multi-label and multi-output regression, complete and single-output heads.

Every view must add up to each output's raw score, as it does for one output."""

import numpy as np
import output_targets  # tests/output_targets.py
import pandas as pd
import pytest

from rulebook import (
    Proposition,
    Query,
    Rule,
    RuleBoostingClassifier,
    RuleEnsemble,
)
from rulebook.charts import explanation_chart, explanation_data
from rulebook.explanations import (
    explain,
    explain_row,
    feature_contributions,
    feature_importances,
    feature_shares,
    local_importances,
)


def _fitted(kind, head="complete"):
    """(model, X) of a kind of target, fitted once per test session."""
    model, X, _ = output_targets.fitted(kind, head, n_rules=6)
    return model, X


KINDS = [(kind, head) for kind in ("classes", "labels", "targets") for head in ("complete", "single")]


@pytest.mark.parametrize("kind, head", KINDS)
def test_each_output_s_lines_add_up_to_its_raw_score_to_the_last_bit(kind, head):
    model, X = _fitted(kind, head)
    ensemble = model.ensemble_
    raw, mean = ensemble.decision_function(X), ensemble.predict(X)
    lines = explain(ensemble, X)
    assert lines.columns[:2].tolist() == ["row", "output"]
    totals = lines[lines["kind"] == "total"]
    # Row by row, each row's outputs in the model's order.
    assert totals["row"].tolist() == np.repeat(X.index, ensemble.n_outputs).tolist()
    assert totals["output"].tolist() == list(ensemble.outputs) * len(X)
    np.testing.assert_array_equal(totals["cumulative"].to_numpy().reshape(raw.shape), raw)
    np.testing.assert_allclose(totals["prediction"].to_numpy().reshape(raw.shape), mean, rtol=1e-12)
    sums = lines.groupby(["row", "output"], sort=False)["contribution"].sum()
    np.testing.assert_allclose(sums.to_numpy().reshape(raw.shape), raw, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind, head", KINDS)
def test_feature_contributions_add_up_to_each_output_s_raw_score(kind, head):
    model, X = _fitted(kind, head)
    ensemble = model.ensemble_
    raw = ensemble.decision_function(X)
    contributions = feature_contributions(ensemble, X)
    features, _ = feature_shares(ensemble)
    assert contributions.shape == (len(X), ensemble.n_outputs * len(features))
    assert contributions.columns.names == ["output", "feature"]
    for k, label in enumerate(ensemble.outputs):
        one = feature_contributions(ensemble, X, output=label)
        pd.testing.assert_frame_equal(contributions[label], one, check_names=False)
        np.testing.assert_allclose(one.sum(axis=1) + ensemble.intercept[k], raw[:, k], rtol=1e-10,
                                   atol=1e-10)
    # SHAP's layout, as the docstring says.
    shap = contributions.to_numpy().reshape(len(X), ensemble.n_outputs, -1).transpose(0, 2, 1)
    np.testing.assert_allclose(shap.sum(axis=1) + np.array(ensemble.intercept), raw, atol=1e-10)


def test_the_estimator_explains_with_output_as_the_ensemble_does():
    model, X = _fitted("classes")
    pd.testing.assert_frame_equal(model.explain(X.head(3), output="virginica"),
                                  explain(model.ensemble_, X.head(3), output="virginica"))
    assert model.explain_row(X, 3, output="setosa").outputs == ("setosa",)
    assert model.ensemble_.explain(X.head(2), output="setosa")["output"].eq("setosa").all()


def test_output_picks_the_lines_of_one_output():
    model, X = _fitted("classes")
    lines = explain(model.ensemble_, X)
    for label in model.ensemble_.outputs:
        one = explain(model.ensemble_, X, output=label)
        expected = lines[lines["output"] == label].reset_index(drop=True)
        pd.testing.assert_frame_equal(one, expected)


def test_a_single_head_s_rule_is_left_out_of_the_outputs_it_gives_no_weight():
    query = Query((Proposition("a", ">", 0.0),))
    model = RuleEnsemble((0.5, -0.5, 0.0), (Rule(query, (0.0, 2.0, 0.0)), Rule(query, (1.0, 1.0, -1.0))),
                         "multinomial", outputs=("x", "y", "z"))
    X = pd.DataFrame({"a": [1.0]})
    lines = explain(model, X)
    rules = lines[lines["kind"] == "rule"]
    assert rules.groupby("output", sort=False)["rule"].apply(list).to_dict() == {
        "x": [2], "y": [1, 2], "z": [2]}
    everything = explain(model, X, all_rules=True)
    assert (everything["kind"] == "rule").sum() == 6
    # The left-out rule contributes 0: the totals are the same.
    np.testing.assert_array_equal(everything.loc[everything["kind"] == "total", "cumulative"],
                                  lines.loc[lines["kind"] == "total", "cumulative"])
    # A multinomial line's prediction: the softmax of every class's score after the same terms.
    after_first = np.exp([0.5, 1.5, 0.0]) / np.exp([0.5, 1.5, 0.0]).sum()
    y_rule_1 = lines[(lines["output"] == "y") & (lines["rule"] == 1)]
    np.testing.assert_allclose(y_rule_1["prediction"], after_first[1], rtol=1e-12)


def test_an_unknown_output_is_refused_naming_the_valid_ones():
    model, X = _fitted("classes")
    for view in (explain, explain_row, feature_contributions, local_importances, feature_importances):
        with pytest.raises(ValueError, match=r"output='rose' is not one of the model's outputs; "
                                             r"use one of \['setosa', 'versicolor', 'virginica'\]"):
            view(model.ensemble_, X, output="rose")
    with pytest.raises(ValueError, match="output='setosa ' is not one of"):
        explanation_chart(model, X, output="setosa ")
    one = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), 2.0),))
    with pytest.raises(ValueError, match="output=0: the model has one output; leave output=None"):
        explain(one, pd.DataFrame({"a": [1.0]}), output=0)


def test_integer_class_labels_are_outputs_not_positions():
    X, y = output_targets.iris()
    codes = pd.Series(y).map({"setosa": 7, "versicolor": 8, "virginica": 9}).to_numpy()
    model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, codes)
    assert explain(model.ensemble_, X.head(1), output=9)["output"].eq(9).all()
    with pytest.raises(ValueError, match="output=0 is not one of"):
        explain(model.ensemble_, X.head(1), output=0)


@pytest.mark.parametrize("kind, head", KINDS)
def test_explain_row_of_several_outputs(kind, head):
    model, X = _fitted(kind, head)
    ensemble = model.ensemble_
    row = explain_row(ensemble, X, 5)
    assert row.outputs == ensemble.outputs
    pd.testing.assert_series_equal(
        row.raw_score, pd.Series(ensemble.decision_function(X.iloc[[5]])[0], index=pd.Index(
            list(ensemble.outputs), dtype=object, name="output"), name="cumulative"))
    np.testing.assert_allclose(row.prediction.to_numpy(), ensemble.predict(X.iloc[[5]])[0], rtol=1e-12)
    text = str(row)
    for k, label in enumerate(ensemble.outputs):
        one = row.for_output(label)
        assert one.raw_score == ensemble.decision_function(X.iloc[[5]])[0, k]
        assert str(one) in text
        assert str(explain_row(ensemble, X, 5, output=label)) == str(one)
    with pytest.raises(ValueError, match="use one of"):
        row.for_output("nothing")


def test_the_html_of_several_outputs_has_a_waterfall_each_and_escapes_labels():
    query = Query((Proposition("a", ">", 0.0),))
    model = RuleEnsemble((0.0, 0.0), (Rule(query, (1.0, -1.0)),), "logistic", outputs=("<b>", "ok"))
    page = explain_row(model, pd.DataFrame({"a": [1.0]}))._repr_html_()
    assert page.count("rb-waterfall\"") == 2 and page.count("rb-wf-output") == 3  # CSS + 2
    assert "&lt;b&gt;" in page and "<b><b>" not in page
    one = explain_row(model, pd.DataFrame({"a": [1.0]}), output="ok")._repr_html_()
    assert one.count("rb-waterfall\"") == 1 and "rb-wf-step rb-wf-pos" not in one and "rb-wf-step rb-wf-neg" in one


@pytest.mark.parametrize("kind, head", KINDS)
def test_feature_importances_per_output(kind, head):
    model, X = _fitted(kind, head)
    ensemble = model.ensemble_
    for method in ("contribution", "rulefit"):
        table = feature_importances(ensemble, X, kind=method)
        assert table.columns.tolist() == list(ensemble.outputs) and table.columns.name == "output"
        for label in ensemble.outputs:
            pd.testing.assert_series_equal(table[label].rename("importance"),
                                           feature_importances(ensemble, X, kind=method, output=label),
                                           check_names=False)


def test_local_importances_of_one_output_follow_the_paper():
    """J_j(x) of output k: |w_jk| |q_j(x) - s_j| shared among the rule's columns."""
    model, X = _fitted("labels")
    ensemble = model.ensemble_
    _features, shares = feature_shares(ensemble)
    Q = ensemble.query_matrix(X)
    coverage = np.array([rule.coverage for rule in ensemble.rules])
    for k, label in enumerate(ensemble.outputs):
        W = np.array([rule.weight[k] for rule in ensemble.rules])
        expected = (np.abs(W) * np.abs(Q - coverage)) @ shares
        np.testing.assert_allclose(local_importances(ensemble, X, output=label).to_numpy(), expected,
                                   atol=1e-12)


def test_the_explanation_chart_of_several_outputs_has_a_panel_each():
    model, X = _fitted("classes", "single")
    spec = explanation_chart(model, X, 100).to_dict()
    assert spec["encoding"]["column"]["field"] == "output"
    assert spec["resolve"]["scale"]["x"] == "independent"
    data = explanation_data(model, X, 100)
    raw = model.decision_function(X.iloc[[100]])[0]
    totals = data[data["kind"] == "total"]
    np.testing.assert_array_equal(totals["end"], raw)
    # Each waterfall starts on its own intercept: a bar starts where the one above it ended.
    for _, lines in data.groupby("output"):
        steps = lines[lines["kind"] == "rule"]
        before = lines["end"].shift(1)[steps.index]
        np.testing.assert_array_equal(steps["start"], before)
    # The panels share their rows: a line has one place whatever the output, the total last.
    assert (data.groupby("label")["order"].nunique() == 1).all()
    assert (data.loc[data["kind"] == "total", "order"] == data["order"].max()).all()
    assert (data.loc[data["kind"] == "intercept", "order"] == 0).all()
    one = explanation_chart(model, X, 100, output="virginica").to_dict()
    assert "column" not in one["encoding"] and "virginica" in one["title"]
