"""Charts of models of several outputs (issue 20, item 6): score curves with
multi-class, multi-label and multi-output metrics of each round's model, rule
weights and coverage per output. Tested through the data and ``to_dict()``."""

import numpy as np
import output_targets  # tests/output_targets.py
import pandas as pd
import pytest
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    hamming_loss,
    log_loss,
    mean_squared_error,
    r2_score,
)

from rulebook import (
    Proposition,
    Query,
    Rule,
    RuleEnsemble,
    charts,
)
from rulebook.chart_data import target_kind


def _fitted(kind, head="complete", **params):
    return output_targets.fitted(kind, head, n_rules=5, **params)


def _by_round(model, X, measure):
    """``measure(staged model)`` for the model after every round, from staged_ensembles()."""
    return [measure(ensemble) for ensemble in model.staged_ensembles()]


@pytest.mark.parametrize("head", ["complete", "single"])
def test_multi_class_curves_are_accuracy_and_log_loss_of_each_round_s_model(head):
    model, X, y = _fitted("classes", head)
    scores = charts.score_curve_data(model, X, y)
    assert scores["metric"].iloc[0] == "accuracy"
    classes = np.array(model.ensemble_.outputs, dtype=object)
    expected = _by_round(model, X, lambda e: accuracy_score(y, classes[e.decision_function(X).argmax(axis=1)]))
    np.testing.assert_allclose(scores["score"], expected, rtol=1e-12)
    risks = charts.risk_complexity_data(model, X, y)
    assert risks["metric"].iloc[0] == "log loss"
    expected = _by_round(model, X, lambda e: log_loss(y, e.predict(X), labels=classes))
    np.testing.assert_allclose(risks["risk"], expected, rtol=1e-10)
    assert risks["complexity"].tolist() == [e.complexity for e in model.staged_ensembles()]


def test_multi_label_curves_are_micro_f1_and_hamming_loss_of_each_round_s_model():
    model, X, Y = _fitted("labels")
    scores = charts.score_curve_data(model, X, Y)
    assert scores["metric"].iloc[0] == "micro-F1"
    predicted = lambda e: (e.predict(X) > 0.5).astype(int)
    expected = _by_round(model, X, lambda e: f1_score(Y, predicted(e), average="micro", zero_division=0))
    np.testing.assert_allclose(scores["score"], expected, rtol=1e-12)
    hamming = charts.score_curve_data(model, X, Y, metric="hamming_loss")
    np.testing.assert_allclose(hamming["score"], _by_round(model, X, lambda e: hamming_loss(Y, predicted(e))))
    # The risk: the labels' mean log loss, not scikit-learn's multi-class reading of a label matrix.
    risks = charts.risk_complexity_data(model, X, Y)
    assert risks["metric"].iloc[0] == "log loss (mean over outputs)"
    mean_log_loss = lambda e: np.mean([log_loss(Y.iloc[:, k], e.predict(X)[:, k], labels=[0, 1])
                                       for k in range(Y.shape[1])])
    np.testing.assert_allclose(risks["risk"], _by_round(model, X, mean_log_loss), rtol=1e-10)


def test_multi_label_targets_are_read_by_column_name():
    model, X, Y = _fitted("labels")
    shuffled = Y[Y.columns[::-1]]
    pd.testing.assert_frame_equal(charts.score_curve_data(model, X, shuffled),
                                  charts.score_curve_data(model, X, Y))
    with pytest.raises(ValueError, match=r"y must have a column per output of the model \(4"):
        charts.score_curve_data(model, X, Y.iloc[:, :3].to_numpy())


@pytest.mark.parametrize("head", ["complete", "single"])
def test_multi_output_regression_curves_are_mean_r2_of_each_round_s_model(head):
    model, X, Y = _fitted("targets", head)
    scores = charts.score_curve_data(model, X, Y)
    assert scores["metric"].iloc[0] == "R² (mean over outputs)"
    np.testing.assert_allclose(scores["score"], _by_round(model, X, lambda e: r2_score(Y, e.predict(X))),
                               rtol=1e-12)
    risks = charts.risk_complexity_data(model, X, Y)
    np.testing.assert_allclose(risks["risk"], _by_round(
        model, X, lambda e: mean_squared_error(Y, e.predict(X))), rtol=1e-12)


def test_curves_follow_the_staged_models_of_corrective_fits():
    """Corrective weights re-fit every round: round k is not the final model's first k rules."""
    model, X, y = _fitted("classes", weight_update="corrective")
    classes = np.array(model.ensemble_.outputs, dtype=object)
    risks = charts.risk_complexity_data(model, X, y)
    staged = _by_round(model, X, lambda e: log_loss(y, e.predict(X), labels=classes))
    np.testing.assert_allclose(risks["risk"], staged, rtol=1e-10)
    prefixes = [log_loss(y, model.ensemble_[:k].predict(X), labels=classes)
                for k in range(len(model.ensemble_) + 1)]
    assert not np.allclose(staged, prefixes)


def test_a_bare_ensemble_of_several_outputs_is_scored_by_its_prefixes():
    query = Query((Proposition("a", ">", 0.0),))
    ensemble = RuleEnsemble((0.0, 1.0), (Rule(query, (2.0, -2.0)),), "squared", outputs=("u", "v"))
    X = pd.DataFrame({"a": [-1.0, 1.0]})
    scores = charts.raw_scores_by_size(ensemble, X)
    np.testing.assert_array_equal(scores, [[[0.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [2.0, -1.0]]])
    risks = charts.risk_complexity_data(ensemble, X, pd.DataFrame({"v": [1.0, -1.0], "u": [0.0, 2.0]}))
    assert risks["risk"].tolist() == [2.0, 0.0]  # u: (0 + 4) / 2, v: (0 + 4) / 2


def test_unknown_classes_in_y_are_named():
    model, X, y = _fitted("classes")
    with pytest.raises(ValueError, match=r"y has classes \['rose'\] that are not among"):
        charts.score_curve_data(model, X, np.where(np.arange(len(y)) == 3, "rose", y))


def test_several_metrics_for_classes():
    model, X, y = _fitted("classes")
    for metric in ("roc_auc", "micro_f1", "hamming_loss", "log_loss", "accuracy"):
        values = charts.score_curve_data(model, X, y, metric=metric)["score"]
        assert values.notna().all() and len(values) == len(model.ensemble_) + 1, metric
    assert target_kind(model.ensemble_) == "multinomial"


@pytest.mark.parametrize("kind, head", [("classes", "complete"), ("labels", "single"), ("targets", "complete")])
def test_score_curve_charts_draw(kind, head):
    model, X, y = _fitted(kind, head)
    spec = charts.score_curve(model, X, y).to_dict()
    assert spec["mark"]["type"] == "line"
    assert spec["encoding"]["y"]["title"] == charts.score_curve_data(model, X, y)["metric"].iloc[0]
    charts.risk_complexity(model, X, y, highlight_round=2).to_dict()


@pytest.mark.parametrize("head", ["complete", "single"])
def test_rule_weights_have_a_panel_per_output(head):
    model, _X, _y = _fitted("classes", head)
    ensemble = model.ensemble_
    data = charts.rule_weights_data(model)
    weights = data[data["measure"] == "weight"]
    assert len(weights) == len(ensemble) * 3 and (data["measure"] == "coverage").sum() == len(ensemble)
    frame = ensemble.to_frame()
    for panel, rows in weights.groupby("panel"):
        np.testing.assert_array_equal(rows["value"], frame[panel])
    assert list(dict.fromkeys(data["panel"])) == ensemble.weight_columns() + ["coverage"]
    if head == "single":
        assert (weights["kind"] == "no weight").sum() == 2 * len(ensemble)
    spec = charts.rule_weights_chart(model, highlight_round=2).to_dict()
    assert spec["encoding"]["column"]["field"] == "panel"
    assert spec["encoding"]["column"]["sort"] == ensemble.weight_columns() + ["coverage"]
    one = charts.rule_weights_data(model, output="virginica")
    assert list(dict.fromkeys(one["panel"])) == ["weight[virginica]", "coverage"]


def test_coverage_heatmap_has_the_same_rows_for_each_output():
    model, X, _y = _fitted("labels", "single")
    ensemble = model.ensemble_
    sample = X.iloc[:40]
    data = charts.coverage_data(model, sample)
    assert len(data) == 40 * len(ensemble) * ensemble.n_outputs
    per_output = [rows.drop(columns=["output", "weight", "effect"]).reset_index(drop=True)
                  for _, rows in data.groupby("output", sort=False)]
    for rows in per_output[1:]:
        pd.testing.assert_frame_equal(rows, per_output[0])
    pd.testing.assert_frame_equal(per_output[0], charts.coverage_data(
        RuleEnsemble(0.0, tuple(Rule(r.query, 1.0) for r in ensemble.rules)), sample).drop(
        columns=["weight", "effect"]))
    for k, (label, rows) in enumerate(data.groupby("output", sort=False)):
        weights = np.array([rule.weight[k] for rule in ensemble.rules])
        np.testing.assert_array_equal(rows["weight"], np.tile(weights, 40))
        covered_zero = rows["covered"] & (rows["weight"] == 0)
        assert (rows.loc[covered_zero, "effect"] == "no weight").all()
        assert (rows.loc[~rows["covered"], "effect"] == "not covered").all()
    spec = charts.coverage_heatmap(model, sample).to_dict()
    assert spec["encoding"]["column"]["field"] == "output"
    assert "no weight" in spec["encoding"]["color"]["scale"]["domain"]
    one = charts.coverage_heatmap(model, sample, output=ensemble.outputs[1]).to_dict()
    assert one["encoding"]["column"]["field"] == "output"  # one panel, named
    with pytest.raises(ValueError, match="is not one of the model's outputs"):
        charts.coverage_heatmap(model, sample, output="nothing")


def test_one_output_charts_are_unchanged():
    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0),)), -2.0, 0.5),))
    data = charts.rule_weights_data(ensemble)
    assert data.columns.tolist() == ["rank", "round", "rule", "label", "measure", "value", "kind"]
    assert "output" not in charts.coverage_data(ensemble, pd.DataFrame({"a": [0.0, 2.0]}))
    with pytest.raises(ValueError, match="the model has one output"):
        charts.rule_weights_chart(ensemble, output="x")


@pytest.mark.parametrize("kind, head", [("classes", "single"), ("labels", "complete"), ("targets", "single")])
def test_every_chart_of_several_outputs_is_valid_json(kind, head):
    """Vega-Lite reads JSON: a NaN in the data (pandas' missing value) would not parse."""
    import json

    model, X, y = _fitted(kind, head)
    built = [charts.rule_weights_chart(model), charts.coverage_heatmap(model, X.iloc[:30]),
             charts.score_curve(model, X, y), charts.risk_complexity(model, X, y),
             charts.explanation_chart(model, X, 3)]
    for chart in built:
        json.loads(chart.to_json(), parse_constant=lambda name: pytest.fail(f"{name} in the spec"))
