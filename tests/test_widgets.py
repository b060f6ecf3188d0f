"""Widgets (``rulebook.widgets``) in plain pytest: set traits, click, simulate chart clicks."""

import html
import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("ipywidgets")
alt = pytest.importorskip("altair")

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor  # noqa: E402
from rulebook import widgets as rw  # noqa: E402
from rulebook.datasets import load_titanic, make_noisy_parity  # noqa: E402
from rulebook.learners import LEARNERS  # noqa: E402


def click_round(chart, t):
    """What the browser sends when round ``t`` is clicked in a JupyterChart."""
    chart._vl_selections = {"round": {"value": {"vlPoint": {"or": [{"round": t}]}},
                                      "store": [{"unit": "", "fields": [], "values": [t]}]}}


@pytest.fixture(autouse=True)
def no_echo_window(monkeypatch):
    """Simulated clicks come faster than a person's; see test_echoes_of_a_redraw_are_not_clicks."""
    monkeypatch.setattr(rw._ChartPanel, "ECHO_SECONDS", 0.0)


@pytest.fixture(scope="module")
def titanic():
    X, y = load_titanic()
    return X.iloc[:900], y.iloc[:900], X.iloc[900:], y.iloc[900:]


@pytest.fixture(scope="module")
def model(titanic):
    X, y, _, _ = titanic
    return RuleBoostingClassifier(n_rules=4).fit(X, y)


@pytest.fixture
def explorer(model, titanic):
    _, _, X_test, y_test = titanic
    return rw.BoostingExplorer(model, X_test, y_test)


def text_of(page):
    """The text of an HTML fragment, tags dropped, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", page))


def facts_of(page):
    """The (label, value) rows of the rule-of-round facts table."""
    table = page.split("rb-facts", 1)[1].split("</table>")[0]
    return dict(re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table))


def seconds(text):
    number, unit = text.split()
    return float(number) * {"s": 1.0, "ms": 1e-3}[unit]


def rule_rows(explorer):
    """Rows of the rules table shown (header + intercept + one per rule)."""
    return explorer.rules_html.value.split("rb-rules", 1)[1].count("<tr")


# -- BoostingExplorer -------------------------------------------------------------
def test_explorer_starts_at_the_last_round(explorer, model):
    assert explorer.round == explorer.slider.value == len(model.ensemble_) == 4
    assert explorer.slider.max == explorer.play.max == 4
    assert rule_rows(explorer) == 2 + 4
    assert "Model after round 4" in explorer.rules_html.value


def test_setting_the_slider_shows_the_ensemble_after_that_round(explorer, model):
    explorer.slider.value = 2
    assert explorer.round == 2
    assert rule_rows(explorer) == 2 + 2
    rule = model.ensemble_.rules[1]
    assert "Rule of round 2" in explorer.rule_html.value
    # The condition is escaped ("<=" -> "&lt;="), as in the reprs.
    assert html.escape(str(rule.query)) in explorer.rule_html.value
    shown = explorer.rule_html.value.split("<p class=\"rb-rule\"", 1)[1].split(">", 1)[1].split("</p>")[0]
    assert text_of(shown) == str(rule.query)
    # The round marked in the score table.
    current = explorer.scores_html.value.split("<tr class=\"rb-current\">", 1)[1]
    assert current.split("</tr>")[0].count("<td>2</td>") >= 1


def test_round_zero_is_the_intercept(explorer):
    explorer.round = 0
    assert explorer.slider.value == 0
    assert rule_rows(explorer) == 2
    assert "intercept" in explorer.rule_html.value


def test_rule_of_round_shows_what_a_reader_needs_not_internals(explorer, model):
    explorer.round = 2
    page = explorer.rule_html.value
    facts = facts_of(page)
    history = model.history_.loc[2]
    assert list(facts) == ["weight", "objective value", "coverage", "training loss", "test ROC AUC",
                           "time of the round"]
    assert facts["weight"] == rw.format_weight(history["weight"], 4)
    assert float(facts["weight"]) == pytest.approx(history["weight"], rel=1e-3)
    assert float(facts["objective value"]) == pytest.approx(history["objective"], rel=1e-3)
    assert facts["coverage"] == rw.format_percent(history["coverage"])
    assert seconds(facts["time of the round"]) == pytest.approx(history["time"], rel=1e-2)
    assert float(facts["test ROC AUC"]) == pytest.approx(explorer.score_table.loc[2, "test ROC AUC"], rel=1e-3)
    # No learner internals, no long floats such as the weights tuple's.
    for internal in ("n_refinements", "n_steps", "intercept", "weights"):
        assert internal not in page.split("Rule of round", 1)[1]
    assert not re.search(r"\d\.0*[1-9]\d{5}", text_of(page.split("</style>", 1)[1]))


def test_round_facts_leave_out_what_the_history_lacks():
    history = pd.DataFrame({"weight": [np.nan, -0.5], "certified": [np.nan, False],
                            "certified_ratio": [np.nan, 0.93751], "n_steps": [np.nan, 3.0]},
                           index=pd.Index([0, 1], name="round"))
    assert rw.round_facts(history, 1) == [("weight", "-0.5"), ("certified optimal", "no"),
                                          ("certified ratio", "0.938")]


def test_optimal_rounds_show_certification():
    X, y = make_noisy_parity(n_samples=200, random_state=0)
    model = RuleBoostingClassifier(n_rules=2, learner="optimal", reg_lambda=10, max_bins=8,
                                   verbose=0).fit(X, y)
    explorer = rw.BoostingExplorer(model, round=1)
    facts = facts_of(explorer.rule_html.value)
    assert facts["certified optimal"] == ("yes" if model.history_.loc[1, "certified"] else "no")
    assert float(facts["certified ratio"]) == pytest.approx(model.history_.loc[1, "certified_ratio"], rel=1e-3)
    assert "nodes_expanded" not in explorer.rule_html.value


def test_corrective_fit_scores_and_weights_are_those_of_each_round():
    """With corrective updates the model after round k is not ensemble_[:k]."""
    from sklearn.metrics import r2_score

    from rulebook.datasets import load_used_cars

    X, y = load_used_cars()
    model = RuleBoostingRegressor(n_rules=3, learner="orthogonal", verbose=0).fit(X, y)
    explorer = rw.BoostingExplorer(model, X, y)
    stages = list(model.staged_ensembles())
    staged = [r2_score(y, stage.decision_function(X)) for stage in stages]
    prefixes = [r2_score(y, model.ensemble_[:k].decision_function(X)) for k in range(len(stages))]
    assert not np.allclose(staged, prefixes, rtol=1e-6)
    np.testing.assert_allclose(explorer.score_table["test R²"], staged, rtol=1e-12)
    explorer.round = 1
    assert rule_rows(explorer) == 3
    assert explorer.stages[1] == stages[1]
    facts = facts_of(explorer.rule_html.value)
    # The weight the rule had after round 1, and the re-fitted final one.
    assert float(facts["weight"]) == pytest.approx(stages[1].rules[0].weight, rel=1e-3)
    assert float(facts["weight in the final model"]) == pytest.approx(model.ensemble_.rules[0].weight, rel=1e-3)
    assert float(facts["test R²"]) == pytest.approx(staged[1], rel=1e-3)


def test_rule_cells_wrap_and_break_between_conditions(explorer, model):
    page = explorer.scores_html.value
    rule = model.ensemble_.rules[0]
    # The rule column is the wrapping one, its cells made of one span per condition.
    assert "<th class=\"rb-cond\">rule</th>" in page
    assert f"<td class=\"rb-cond\">{rw.condition_html(rule.query)}</td>" in page
    assert page.count("<td class=\"rb-cond\">") == len(model.ensemble_) + 1  # and the intercept's


def test_explorer_falls_back_to_the_models_text(explorer, model):
    explorer.round = 3
    bundle = explorer._repr_mimebundle_()
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == explorer.model_id
    text = bundle["text/plain"]
    assert "round 3 of 4" in text and repr(explorer.stages[3]) in text
    page = bundle["text/html"]
    # The escaped text first (shown where styles are stripped), then the tables.
    assert "rb-text-repr-fallback" in page and html.escape(repr(explorer.stages[3])) in page
    for rule in model.ensemble_.rules[:3]:
        assert rw.condition_html(rule.query) in page
    assert "<script" not in page


def test_buttons_step_and_clip(explorer):
    explorer.next_button.click()
    assert explorer.round == 4  # already the last round
    explorer.previous_button.click()
    explorer.previous_button.click()
    assert explorer.round == explorer.slider.value == 2
    explorer.round = -5
    assert explorer.round == 0
    explorer.previous_button.click()
    assert explorer.round == 0


def test_clicking_a_round_in_a_chart_moves_the_slider(explorer):
    assert set(explorer.charts) >= {"score by rules", "rule weights", "search effort"}
    for title, chart in explorer.charts.items():
        assert isinstance(chart, alt.JupyterChart), title
        click_round(chart, 1)
        assert explorer.slider.value == 1, title
        assert rule_rows(explorer) == 3
        explorer.round = 3


def test_an_empty_chart_selection_keeps_the_round(explorer):
    explorer.round = 3
    explorer.charts["rule weights"]._vl_selections = {"round": {"value": None, "store": []}}
    assert explorer.round == 3


def test_echoes_of_a_redraw_are_not_clicks(explorer, monkeypatch):
    # After a redraw for round t the browser reports t as selected; when that
    # report arrives late (the slider has moved on) it must not pull it back.
    monkeypatch.setattr(rw._ChartPanel, "ECHO_SECONDS", 60.0)
    explorer.round = 2
    explorer.round = 3
    click_round(explorer.charts["rule weights"], 2)  # stale echo of round 2
    assert explorer.round == 3
    click_round(explorer.charts["rule weights"], 1)  # never drawn recently: a real click
    assert explorer.round == 1


def test_charts_emphasise_the_current_round(explorer):
    explorer.round = 2
    for chart in explorer.charts.values():
        spec = chart.chart.to_dict()
        (param,) = [p for p in spec["params"] if p["name"] == "round"]
        assert param["value"] == [{"round": 2}]


def test_explorer_without_test_data_has_no_score_chart(model):
    explorer = rw.BoostingExplorer(model, round=1)
    assert explorer.round == 1
    assert "score by rules" not in explorer.charts
    assert "test" not in explorer.scores_html.value.split("<thead>")[1].split("</thead>")[0]


def test_explorer_of_an_optimal_model_shows_pruning():
    X, y = make_noisy_parity(n_samples=200, random_state=0)
    model = RuleBoostingClassifier(n_rules=2, learner="optimal", reg_lambda=10, max_bins=8).fit(X, y)
    explorer = rw.BoostingExplorer(model)
    assert "pruning" in explorer.charts
    click_round(explorer.charts["pruning"], 1)
    assert explorer.round == 1


def test_explorer_of_a_regressor():
    X = pd.DataFrame({"a": [i % 10 for i in range(30)], "b": ["u", "v", "w"] * 10})
    y = (X["a"] > 4) * 3.0 + (X["b"] == "u")
    model = RuleBoostingRegressor(n_rules=2).fit(X, y)
    explorer = rw.BoostingExplorer(model, X, y)
    assert "test R²" in explorer.scores_html.value or "test R" in explorer.scores_html.value
    explorer.round = 1
    assert rule_rows(explorer) == 3


def test_explorer_needs_a_fitted_model():
    with pytest.raises(ValueError, match="not fitted"):
        rw.BoostingExplorer(RuleBoostingClassifier())


# -- LearnerComparison ------------------------------------------------------------
@pytest.fixture(scope="module")
def parity():
    X, y = make_noisy_parity(n_samples=200, random_state=0)
    return X, y


@pytest.fixture(scope="module")
def comparison(parity):
    X, y = parity
    return rw.LearnerComparison(X, y, n_rules=2, reg_lambda=10, max_bins=8, verbose=0)


def test_default_learners_are_the_available_paper_learners(comparison):
    expected = [name for name in rw.PAPER_LEARNERS if name in LEARNERS]
    assert list(comparison.models) == expected
    assert comparison.notes == []
    assert comparison.progress.value == comparison.progress.max == len(expected)
    assert comparison.progress.bar_style == "success"


def test_unavailable_learners_are_skipped_with_a_note(parity):
    X, y = parity
    comparison = rw.LearnerComparison(X, y, learners=("greedy", "orthogonal-not-yet"), n_rules=1, verbose=0)
    assert list(comparison.models) == ["greedy"]
    assert comparison.notes == ["orthogonal-not-yet: not available yet"]
    assert "orthogonal-not-yet: not available yet" in comparison.notes_html.value


def test_no_available_learner_raises(parity):
    X, y = parity
    with pytest.raises(ValueError, match="none of the learners"):
        rw.LearnerComparison(X, y, learners=("nope",), verbose=0)


def test_rules_side_by_side_and_where_they_differ(comparison):
    rules = comparison.rules
    assert rules.index.tolist() == [1, 2]
    assert rules.columns.tolist() == [*comparison.models, "differ"]
    for name, model in comparison.models.items():
        assert rules[name].tolist() == [str(rule.query) for rule in model.ensemble_.rules]
    expected = rules.drop(columns="differ").nunique(axis=1) > 1
    assert rules["differ"].tolist() == expected.tolist()


def test_comparison_slider_shows_each_learners_rule(comparison):
    comparison.slider.value = 2
    assert comparison.round == 2
    page = comparison.round_html.value
    assert "Round 2" in page
    for name in comparison.models:
        assert f"<td>{name}</td>" in page
    verdict = "the learners differ" if comparison.rules.loc[2, "differ"] else "all learners agree"
    assert verdict in page
    comparison.round = 0
    assert "same intercept" in comparison.round_html.value


def test_comparison_scores_are_those_of_the_staged_models(parity):
    """Per-round scores of every learner come from staged_ensembles(), also
    for the corrective orthogonal learner."""
    from sklearn.metrics import roc_auc_score

    X, y = parity
    comparison = rw.LearnerComparison(X, y, n_rules=2, reg_lambda=10, max_bins=8, verbose=0)
    assert comparison.metric == "ROC AUC"
    assert comparison.scores.columns.tolist() == list(comparison.models)
    for name, model in comparison.models.items():
        expected = [roc_auc_score(comparison.y_test, stage.decision_function(comparison.X_test))
                    for stage in model.staged_ensembles()]
        np.testing.assert_allclose(comparison.scores[name].iloc[:len(expected)], expected, rtol=1e-12)
    frame = comparison.round_frame(2)
    assert frame.columns.tolist() == ["rule", "weight", "training loss", "test ROC AUC"]
    for name, model in comparison.models.items():
        assert frame.loc[name, "test ROC AUC"] == comparison.scores.loc[2, name]
        assert frame.loc[name, "training loss"] == model.history_.loc[2, "train_loss"]
    comparison.round = 2
    page = comparison.round_html.value
    assert "test ROC AUC" in page
    assert html.escape(rw.format_number(frame["test ROC AUC"].iloc[0], 4)) in page


def test_comparison_falls_back_to_the_learners_rules(comparison):
    bundle = comparison._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    text, page = bundle["text/plain"], bundle["text/html"]
    for name, model in comparison.models.items():
        assert f"{name}:\n{model.ensemble_!r}" in text
        for rule in model.ensemble_.rules:
            assert rw.condition_html(rule.query) in page
    assert "rb-text-repr-fallback" in page and "<script" not in page


def test_comparison_chart_click_moves_the_slider(comparison):
    assert isinstance(comparison.chart, alt.JupyterChart)
    spec = comparison.chart.chart.to_dict()
    assert spec["mark"]["type"] == "line"
    click_round(comparison.chart, 1)
    assert comparison.slider.value == comparison.round == 1


def test_comparison_regression_task():
    X = pd.DataFrame({"a": range(40), "b": ["u", "v"] * 20})
    y = X["a"] * 0.1 + (X["b"] == "u")
    comparison = rw.LearnerComparison(X, y, learners=["greedy"], n_rules=2, verbose=0)
    assert comparison.task == "regression"
    assert isinstance(comparison.models["greedy"], RuleBoostingRegressor)


def test_charts_carry_their_javascript_by_default(model):
    """Offline by default: vega is bundled into the widget, nothing loads from a CDN."""
    import altair

    explorer = rw.BoostingExplorer(model, round=1)
    chart = explorer.charts["rule weights"]
    assert isinstance(chart, altair.JupyterChart)
    assert "esm.sh" not in chart._esm and len(chart._esm) > 100_000
    assert not altair.JupyterChart._is_offline  # altair's global setting is untouched
    click_round(chart, 2)
    assert explorer.round == 2


def test_cdn_charts_when_asked(model):
    from rulebook import set_options

    with set_options(widget_charts="cdn"):
        cdn = rw.BoostingExplorer(model, round=1).charts["rule weights"]
    assert "esm.sh" in cdn._esm and len(cdn._esm) < 100_000
    # The argument wins over the option.
    with set_options(widget_charts="cdn"):
        offline = rw.BoostingExplorer(model, round=1, offline=True).charts["rule weights"]
    assert "esm.sh" not in offline._esm
    assert "esm.sh" in rw.BoostingExplorer(model, round=1, offline=False).charts["rule weights"]._esm


def test_available_learners_keeps_order_and_drops_duplicates():
    available, missing = rw.available_learners(["optimal", "greedy", "greedy", "orthogonal-x"])
    assert available == [n for n in ["optimal", "greedy"] if n in LEARNERS]
    assert missing == ["orthogonal-x"] + [n for n in ["optimal"] if n not in LEARNERS]
