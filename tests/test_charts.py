"""Charts (``rulebook.charts``): tidy data, valid Vega-Lite, offline export."""

import html
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import mean_poisson_deviance, r2_score, roc_auc_score

from rulebook import OptimalLearner, RuleBoostingClassifier, RuleBoostingRegressor
from rulebook import charts
from rulebook.datasets import load_titanic, load_used_cars, make_noisy_parity

alt = pytest.importorskip("altair")


@pytest.fixture(scope="module")
def titanic():
    X, y = load_titanic()
    return X.iloc[:900], y.iloc[:900], X.iloc[900:], y.iloc[900:]


@pytest.fixture(scope="module")
def greedy(titanic):
    X, y, _, _ = titanic
    return RuleBoostingClassifier(n_rules=4).fit(X, y)


@pytest.fixture(scope="module")
def optimal():
    X, y = make_noisy_parity(n_samples=200, random_state=0)
    return RuleBoostingClassifier(n_rules=3, learner=OptimalLearner(), reg_lambda=10, max_bins=8).fit(X, y)


@pytest.fixture(scope="module")
def cars():
    return load_used_cars()


@pytest.fixture(scope="module")
def regressors(cars):
    X, y = cars
    return {
        "squared": RuleBoostingRegressor(n_rules=3).fit(X, y),
        "poisson": RuleBoostingRegressor(n_rules=3, loss="poisson").fit(X, y),
    }


def spec_values(spec):
    """The rows of the (single) inline dataset of a chart spec."""
    (values,) = spec["datasets"].values()
    return pd.DataFrame(values)


# -- curves --------------------------------------------------------------------------
def test_raw_scores_by_size_match_slicing_bit_for_bit(greedy, titanic):
    _, _, X, _ = titanic
    scores = charts.raw_scores_by_size(greedy.ensemble_, X)
    assert scores.shape == (5, len(X))
    for k in range(5):
        np.testing.assert_array_equal(scores[k], greedy.ensemble_[:k].decision_function(X))


def test_score_curve_data_classifier_is_roc_auc_of_prefixes(greedy, titanic):
    _, _, X, y = titanic
    data = charts.score_curve_data({"greedy": greedy}, X, y)
    assert data.columns.tolist() == ["model", "round", "n_rules", "complexity", "score", "metric"]
    assert data["n_rules"].tolist() == [0, 1, 2, 3, 4]
    assert (data["round"] == data["n_rules"]).all()
    assert data["metric"].unique().tolist() == ["ROC AUC"]
    expected = [roc_auc_score(y, greedy.ensemble_[:k].decision_function(X)) for k in range(5)]
    np.testing.assert_array_equal(data["score"], expected)
    assert data["complexity"].tolist() == [greedy.ensemble_[:k].complexity for k in range(5)]


@pytest.mark.parametrize("loss, metric", [("squared", r2_score), ("poisson", mean_poisson_deviance)])
def test_score_curve_data_regressors(regressors, cars, loss, metric):
    X, y = cars
    model = regressors[loss]
    data = charts.score_curve_data(model, X, y)
    expected = [metric(y, model.ensemble_[:k].predict(X)) for k in range(len(model.ensemble_) + 1)]
    np.testing.assert_allclose(data["score"], expected, rtol=1e-12)


def test_score_curve_data_names_and_custom_metric(greedy, titanic):
    _, _, X, y = titanic

    def accuracy(y_true, p):
        return float(np.mean((p > 0.5) == y_true))

    data = charts.score_curve_data([greedy, greedy.ensemble_, greedy], X, y, metric=accuracy)
    assert data["model"].unique().tolist() == ["greedy", "RuleEnsemble", "greedy #2"]
    assert data["metric"].iloc[0] == "accuracy"
    np.testing.assert_allclose(data.loc[data["n_rules"] == 4, "score"].iloc[0], greedy.score(X, y))


def test_different_losses_need_a_metric(greedy, regressors, cars):
    X, y = cars
    with pytest.raises(ValueError, match="different losses"):
        charts.score_curve_data({"a": greedy, "b": regressors["squared"]}, X, y)
    with pytest.raises(ValueError, match="not known"):
        charts.score_curve_data(regressors["squared"], X, y, metric="auc")


def test_unfitted_model_is_rejected(cars):
    X, y = cars
    with pytest.raises(ValueError, match="not fitted"):
        charts.score_curve_data(RuleBoostingRegressor(), X, y)


def test_risk_complexity_data(regressors, cars):
    X, y = cars
    model = regressors["squared"]
    data = charts.risk_complexity_data({"m": model}, X, y)
    assert data["metric"].iloc[0] == "mean squared error"
    assert data["complexity"].tolist() == [model.ensemble_[:k].complexity for k in range(4)]
    expected = [np.mean((y - model.ensemble_[:k].predict(X)) ** 2) for k in range(4)]
    np.testing.assert_allclose(data["risk"], expected, rtol=1e-12)
    # Boosting lowers the training risk round after round.
    assert (np.diff(data["risk"]) < 0).all()


# -- search statistics --------------------------------------------------------------
def test_pruning_data_matches_history(optimal):
    data = charts.pruning_data(optimal)
    assert data.columns.tolist() == ["round", "category", "column", "count"]
    assert len(data) == 4 * 3 and set(data["round"]) == {1, 2, 3}
    for row in data.itertuples():
        assert row.count == optimal.history_.loc[row.round, row.column]
    assert list(dict.fromkeys(data["category"])) == list(charts.PRUNING_CATEGORIES.values())


def test_pruning_needs_pruning_columns(greedy):
    with pytest.raises(ValueError, match="optimal learner"):
        charts.pruning_chart(greedy)


def test_search_effort_data(greedy, optimal):
    greedy_data = charts.search_effort_data(greedy)
    assert list(dict.fromkeys(greedy_data["measure"])) == ["propositions scored", "time (s)"]
    assert greedy_data.loc[greedy_data["measure"] == "time (s)", "column"].iloc[0] == "time"
    optimal_data = charts.search_effort_data(optimal.history_)
    assert list(dict.fromkeys(optimal_data["measure"])) == ["nodes expanded", "time (s)"]
    assert optimal_data.loc[optimal_data["measure"] == "time (s)", "column"].iloc[0] == "search_time"
    nodes = optimal_data.loc[optimal_data["measure"] == "nodes expanded"]
    np.testing.assert_array_equal(nodes["value"], optimal.history_["nodes_expanded"].iloc[1:])


def test_anytime_data(optimal, greedy):
    trace = optimal.history_.loc[2, "trace"]
    data = charts.anytime_data(optimal, round=2)
    assert data.columns.tolist() == ["nodes_expanded", "seconds", "series", "value"]
    assert len(data) == 2 * len(trace)
    best = data[data["series"] == "best value"]
    np.testing.assert_array_equal(best["value"], [entry[2] for entry in trace])
    # The search certified optimality: the bound met the best value.
    final = data.groupby("series")["value"].last()
    assert final["upper bound"] == pytest.approx(final["best value"])
    pd.testing.assert_frame_equal(charts.anytime_data(list(trace)), data)
    with pytest.raises(ValueError, match="no anytime trace"):
        charts.anytime_data(greedy)
    with pytest.raises(ValueError, match="not in the history"):
        charts.anytime_data(optimal, round=9)


# -- rules ------------------------------------------------------------------------------
def test_rule_weights_data(greedy):
    data = charts.rule_weights_data(greedy)
    frame = greedy.ensemble_.to_frame()
    assert len(data) == 2 * len(frame)
    weights = data[data["measure"] == "weight"]
    np.testing.assert_array_equal(weights["value"], frame["weight"])
    assert weights["rule"].tolist() == frame["rule"].tolist()
    assert set(weights["kind"]) <= {"positive weight", "negative weight"}
    coverage = data[data["measure"] == "coverage"]
    np.testing.assert_array_equal(coverage["value"], frame["coverage"])
    assert data["label"].iloc[0].startswith("1. ")


def test_coverage_data(greedy, titanic):
    _, _, X, _ = titanic
    X = X.head(40)
    matrix = greedy.ensemble_.query_matrix(X)
    data = charts.coverage_data(greedy, X, sort_rows=False)
    assert len(data) == matrix.size
    np.testing.assert_array_equal(data["covered"].to_numpy().reshape(matrix.shape), matrix)
    assert data["index"].iloc[0] == str(X.index[0])
    assert (data.loc[~data["covered"], "effect"] == "not covered").all()
    covered = data[data["covered"]]
    assert ((covered["effect"] == "positive") == (covered["weight"] > 0)).all()
    # Sorting rows only reorders them.
    sorted_data = charts.coverage_data(greedy, X)
    assert sorted(map(tuple, sorted_data["covered"].to_numpy().reshape(matrix.shape))) == \
        sorted(map(tuple, matrix))
    first_rule = sorted_data.loc[sorted_data["rank"] == 1, "covered"].to_numpy()
    assert (np.diff(first_rule.astype(int)) <= 0).all()  # covered rows first
    with pytest.raises(ValueError, match="max_rows"):
        charts.coverage_data(greedy, X, max_rows=10)


# -- the charts themselves ----------------------------------------------------------------
@pytest.fixture(scope="module")
def all_charts(greedy, optimal, titanic):
    _, _, X, y = titanic
    return {
        "score_curve": charts.score_curve({"greedy": greedy}, X, y),
        "risk_complexity": charts.risk_complexity([greedy], X, y),
        "pruning_chart": charts.pruning_chart(optimal),
        "search_effort_chart": charts.search_effort_chart(optimal),
        "anytime_chart": charts.anytime_chart(optimal, 1),
        "rule_weights_chart": charts.rule_weights_chart(greedy),
        "coverage_heatmap": charts.coverage_heatmap(greedy, X.head(30)),
    }


@pytest.mark.parametrize("name", ["score_curve", "risk_complexity", "pruning_chart", "search_effort_chart",
                                  "anytime_chart", "rule_weights_chart", "coverage_heatmap"])
def test_charts_are_valid_vega_lite_and_chainable(all_charts, name):
    chart = all_charts[name]
    assert isinstance(chart, alt.Chart)
    spec = chart.to_dict(validate=True)  # altair's jsonschema validation
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    chained = chart.properties(title="t").interactive()
    chained.to_dict(validate=True)
    # The spec round-trips through altair's schema classes.
    alt.Chart.from_dict(spec, validate=True)


def test_chart_data_columns(all_charts, greedy, optimal, titanic):
    _, _, X, y = titanic
    pd.testing.assert_frame_equal(
        spec_values(all_charts["score_curve"].to_dict()),
        charts.score_curve_data({"greedy": greedy}, X, y), check_dtype=False)
    pd.testing.assert_frame_equal(
        spec_values(all_charts["pruning_chart"].to_dict()), charts.pruning_data(optimal), check_dtype=False)
    weights = spec_values(all_charts["rule_weights_chart"].to_dict())
    assert weights.columns.tolist() == ["rank", "round", "rule", "label", "measure", "value", "kind"]
    spec = all_charts["pruning_chart"].to_dict()
    assert spec["encoding"]["x"]["field"] == "round"
    assert spec["encoding"]["y"]["stack"] == "zero"
    assert spec["encoding"]["color"]["scale"]["domain"] == list(charts.PRUNING_CATEGORIES.values())


def test_highlight_round_and_selection(optimal, greedy, titanic):
    _, _, X, y = titanic
    spec = charts.pruning_chart(optimal, highlight_round=2).to_dict()
    assert spec["encoding"]["opacity"]["condition"]["test"] == "(datum.round === 2)"
    curve = charts.score_curve(greedy, X, y, highlight_round=1).to_dict()
    assert curve["encoding"]["fillOpacity"]["condition"]["test"] == "(datum.round === 1)"
    selection = alt.selection_point(fields=["round"], name="picked")
    for chart in (charts.pruning_chart(optimal, selection=selection),
                  charts.search_effort_chart(optimal, selection=selection),
                  charts.rule_weights_chart(greedy, selection=selection),
                  charts.coverage_heatmap(greedy, X.head(20), selection=selection)):
        spec = chart.to_dict(validate=True)
        assert spec["params"][0]["name"] == "picked"
        assert spec["encoding"]["opacity"]["condition"]["param"] == "picked"
    with pytest.raises(ValueError, match="not both"):
        charts.pruning_chart(optimal, highlight_round=1, selection=selection)


def test_normalized_pruning_chart(optimal):
    spec = charts.pruning_chart(optimal, normalize=True).to_dict()
    assert spec["encoding"]["y"]["stack"] == "normalize"


def test_anytime_chart_x_axis(optimal):
    assert charts.anytime_chart(optimal, 1, x="seconds").to_dict()["encoding"]["x"]["field"] == "seconds"
    with pytest.raises(ValueError, match="x must be"):
        charts.anytime_chart(optimal, 1, x="rounds")


def test_static_export_offline(all_charts, tmp_path):
    vl_convert = pytest.importorskip("vl_convert")
    svg = vl_convert.vegalite_to_svg(all_charts["pruning_chart"].to_dict())
    assert svg.lstrip().startswith("<svg") and "bound, immediate" in svg
    path = tmp_path / "rules.svg"
    all_charts["rule_weights_chart"].save(path)
    assert path.read_text().lstrip().startswith("<svg")


def test_altair_is_imported_lazily():
    code = "import sys, rulebook.charts; print('altair' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_curves_of_a_corrective_fit_use_each_rounds_model():
    """After a corrective update the first k rules of the final model are not
    the model of round k: the curves must follow ``staged_ensembles``."""
    from rulebook import RuleBoostingRegressor
    from rulebook.charts import risk_complexity_data, score_curve_data
    from rulebook.datasets import load_used_cars
    from rulebook.losses import get_loss

    X, y = load_used_cars()
    model = RuleBoostingRegressor(n_rules=4, learner="orthogonal", verbose=0).fit(X, y)
    loss = get_loss("squared")
    stages = list(model.staged_ensembles())
    recorded = model.history_["train_loss"].to_numpy()
    got = [loss.loss(y.to_numpy(), s.decision_function(X), np.ones(len(y))) for s in stages]
    np.testing.assert_allclose(got, recorded, rtol=1e-10)
    # ... and the prefixes of the final ensemble do not reproduce them.
    prefixes = [loss.loss(y.to_numpy(), model.ensemble_[:k].decision_function(X), np.ones(len(y)))
                for k in range(len(stages))]
    assert not np.allclose(prefixes, recorded, rtol=1e-6)
    scores = score_curve_data(model, X, y)["score"].to_numpy()
    from sklearn.metrics import r2_score
    expected = [r2_score(y, s.decision_function(X)) for s in stages]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    assert len(risk_complexity_data(model, X, y)) == len(stages)


# -- display in a notebook: offline by default ------------------------------------------
def displayed(chart):
    """The MIME types IPython sends to the notebook for ``chart``."""
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(chart)
    return data


@pytest.fixture
def default_renderer():
    """Altair's renderer as after import, restored after the test."""
    with alt.renderers.enable("default"):
        yield


def test_charts_draw_as_static_svg_by_default(all_charts, default_renderer):
    pytest.importorskip("vl_convert")
    for name, chart in all_charts.items():
        data = displayed(chart)
        assert data["image/svg+xml"].lstrip().startswith("<svg"), name
        # No HTML that would fetch vega from a CDN.
        assert "text/html" not in data, name
    assert alt.renderers.active == "default"  # altair's setting is the user's
    # Chained methods keep the display.
    assert "image/svg+xml" in displayed(all_charts["rule_weights_chart"].properties(title="t"))


def test_chart_renderer_option(all_charts, default_renderer):
    from rulebook import set_options

    chart = all_charts["pruning_chart"]
    with set_options(chart_renderer="png"):
        assert displayed(chart)["image/png"][:4] == b"\x89PNG"
    with set_options(chart_renderer="altair"):
        assert "cdn.jsdelivr.net/npm/vega@" in displayed(chart)["text/html"]
    # "auto" keeps a renderer the user enabled.
    with alt.renderers.enable("json"):
        assert charts.notebook_renderer() is None
        assert "application/json" in displayed(chart)
    with set_options(chart_renderer="svg"), alt.renderers.enable("json"):
        assert "image/svg+xml" in displayed(chart)
    with pytest.raises(ValueError, match="chart_renderer"):
        set_options(chart_renderer="html")


def test_chart_class_pickles_and_is_an_altair_chart(all_charts):
    import pickle

    chart = all_charts["score_curve"]
    assert type(chart) is charts.Chart and isinstance(chart, alt.Chart)
    again = pickle.loads(pickle.dumps(chart))
    assert type(again) is charts.Chart and again.to_dict() == chart.to_dict()


# -- rule labels: wrapped, never clipped ---------------------------------------------------
def long_rules():
    from rulebook import Proposition, Query, Rule, RuleEnsemble

    wide = Query((Proposition("Department", "==", "Research & Development"),
                  Proposition("MonthlyIncome", "<=", 5000.0), Proposition("YearsAtCompany", ">", 3.0),
                  Proposition("JobRole", "!=", "Sales Representative"), Proposition("Age", ">", 30.0),
                  Proposition("DistanceFromHome", "<=", 10.0), Proposition("Overtime", "==", "Yes")))
    huge = Query(tuple(Proposition("TotalCharges", "!=", f"{1000 + 1.5 * i:.2f}") for i in range(80)))
    short = Query((Proposition("Sex", "==", "female"),))
    return RuleEnsemble(0.0, (Rule(short, 1.0, 0.3), Rule(wide, -0.5, 0.1), Rule(huge, 0.2, 0.9)))


def test_wrap_rule_keeps_conditions_whole_and_lines_short():
    from rulebook import Proposition, Query

    conditions = long_rules().rules[1].query.condition_strings()
    lines = charts.wrap_rule(conditions, width=40, max_lines=10, prefix="2. ")
    assert all(len(line) <= 40 for line in lines)
    # Joined again, the lines are the rule: nothing lost, breaks only between conditions.
    assert " ".join(lines) == "2. " + " & ".join(conditions)
    for line in lines:
        body = line.removeprefix("2. ").removeprefix("& ")
        assert all(c in conditions for c in body.split(" & ")) or '"' in body
    assert charts.wrap_rule(Query(())) == ["True"]
    assert charts.wrap_rule(Query((Proposition("a", ">", 1.0),))) == ["a > 1"]
    cut = charts.wrap_rule(conditions, width=40, max_lines=2)
    assert len(cut) == 2 and cut[-1].endswith("…") and all(len(line) <= 40 for line in cut)


def test_rule_weights_chart_labels_are_wrapped_not_clipped():
    vl_convert = pytest.importorskip("vl_convert")
    ensemble = long_rules()
    chart = charts.rule_weights_chart(ensemble)
    spec = chart.to_dict(validate=True)
    axis = spec["encoding"]["y"]["axis"]
    assert axis["labelLimit"] == 0
    data = spec_values(spec)
    labels = data["label"].drop_duplicates().tolist()
    assert labels[0] == "1. Sex == female"
    longest = max(len(line) for label in labels for line in label.split("\n"))
    assert longest <= charts.RULE_LABEL_WIDTH
    # Left-aligned in a gutter wide enough for DejaVu Sans (6.3 px a character
    # at 10 px), the widest common sans-serif: a viewer whose font is wider
    # than the one vl-convert measured with cannot push labels off the chart.
    assert axis["labelAlign"] == "left" and axis["labelPadding"] >= 6.3 * longest
    # The huge rule is cut after RULE_LABEL_LINES lines; its tooltip has it whole.
    assert labels[2].count("\n") == charts.RULE_LABEL_LINES - 1 and labels[2].endswith("…")
    assert data["rule"].iloc[-1] == str(ensemble.rules[2].query)
    assert {"field": "rule", "type": "nominal"} in spec["encoding"]["tooltip"]
    # Drawn by vega: every line appears whole (vega marks a clipped label with "…").
    svg = vl_convert.vegalite_to_svg(spec)
    drawn = [html.unescape(t) for t in re.findall(r"<tspan[^>]*>(.*?)</tspan>", svg)]
    drawn += [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]+)</text>", svg)]
    for label in labels:
        for line in label.split("\n"):
            assert line in drawn, line
    # No "…" but wrap_rule's own (vega would add one to a label it clips).
    assert sum(line.endswith("…") for line in drawn) == sum(label.endswith("…") for label in labels)
