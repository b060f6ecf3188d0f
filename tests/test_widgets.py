"""Widgets (``rulebook.widgets``) in plain pytest: set traits, click, simulate chart clicks."""

import html

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
    # Search statistics of that round, and the round marked in the score table.
    assert "n_refinements" in explorer.rule_html.value
    current = explorer.scores_html.value.split("rb-current", 1)[1]
    assert current.split("</tr>")[0].count("<td>2</td>") >= 1


def test_round_zero_is_the_intercept(explorer):
    explorer.round = 0
    assert explorer.slider.value == 0
    assert rule_rows(explorer) == 2
    assert "intercept" in explorer.rule_html.value


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
    X = pd.DataFrame({"a": range(30), "b": ["u", "v", "w"] * 10})
    y = (X["a"] > 14) * 3.0 + (X["b"] == "u")
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


def test_offline_charts_carry_their_javascript(model):
    import altair

    explorer = rw.BoostingExplorer(model, round=1, offline=True)
    chart = explorer.charts["rule weights"]
    assert isinstance(chart, altair.JupyterChart)
    assert "esm.sh" not in chart._esm and len(chart._esm) > 100_000
    assert not altair.JupyterChart._is_offline  # altair's global setting is untouched
    click_round(chart, 2)
    assert explorer.round == 2


def test_available_learners_keeps_order_and_drops_duplicates():
    available, missing = rw.available_learners(["optimal", "greedy", "greedy", "orthogonal-x"])
    assert available == [n for n in ["optimal", "greedy"] if n in LEARNERS]
    assert missing == ["orthogonal-x"] + [n for n in ["optimal"] if n not in LEARNERS]
