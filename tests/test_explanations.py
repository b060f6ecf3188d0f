"""Explanations of single predictions (issue 21, item 2): rulebook.explanations,
its waterfall repr (rulebook._explain_html) and chart (rulebook._explanation_chart).

The property: for every row, the terms add up to ``decision_function`` and
the prediction is ``predict``'s, on random ensembles over random frames
with NaN (the fuzz suite's strategies), and on fitted models.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from fuzz_strategies import MARKUP, assert_escaped, ensembles, frames
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rulebook import (
    Proposition,
    Query,
    Rule,
    RuleBoostingClassifier,
    RuleBoostingClassifierCV,
    RuleBoostingRegressor,
    RuleEnsemble,
    RuleFitClassifier,
    set_options,
)
from rulebook._explain_html import explanation_html, waterfall_bar
from rulebook._explanation_chart import explanation_chart, explanation_data
from rulebook.datasets import load_ships, load_titanic
from rulebook.explanations import (
    COLUMNS,
    Explanation,
    explain,
    explain_row,
    feature_contributions,
    feature_importances,
    feature_shares,
)
from rulebook.linear_terms import LinearTerm

PROPERTY = settings(derandomize=True, deadline=None, database=None, max_examples=150,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example])


def _ensemble(intercept=0.5, loss="squared"):
    age = Proposition("Age", "<=", 19.0, 0)
    male = Proposition("Sex", "==", "male", 1)
    return RuleEnsemble(intercept, (Rule(Query((age,)), 2.0), Rule(Query((age, male)), -3.0),
                                    Rule(Query((Proposition("Age", ">", 60.0, 0),)), 1.0)),
                        loss, ("Age", "Sex"))


X_SMALL = pd.DataFrame({"Age": [10.0, 30.0, np.nan, 70.0], "Sex": ["male", "female", "male", None]},
                       index=["a", "b", "c", "d"])


# -- the lines --------------------------------------------------------------------------
def test_lines_of_each_row():
    lines = explain(_ensemble(), X_SMALL)
    assert tuple(lines.columns) == COLUMNS
    assert list(lines["row"]) == ["a"] * 4 + ["b"] * 2 + ["c"] * 2 + ["d"] * 3
    assert list(lines["kind"]) == ["intercept", "rule", "rule", "total", "intercept", "total",
                                   "intercept", "total", "intercept", "rule", "total"]
    assert lines["rule"].dtype == "Int64"
    assert lines["rule"].tolist()[:4] == [pd.NA, 1, 2, pd.NA]
    assert lines.loc[1, "condition"] == "Age <= 19"
    assert lines.loc[2, "condition"] == "Age <= 19 & Sex == male"
    assert lines["condition"][lines["kind"] != "rule"].isna().all()
    assert lines["cumulative"].tolist()[:4] == [0.5, 2.5, -0.5, -0.5]
    assert math.isnan(lines.loc[3, "contribution"]) and math.isnan(lines.loc[3, "weight"])
    assert lines["applies"].all()
    assert lines.dtypes[["weight", "contribution", "cumulative", "prediction"]].eq(np.float64).all()


def test_all_rules_keeps_the_rules_that_do_not_apply():
    lines = explain(_ensemble(), X_SMALL, all_rules=True)
    assert len(lines) == 4 * (2 + 3)
    b = lines[lines["row"] == "b"]
    assert b["kind"].tolist() == ["intercept", "rule", "rule", "rule", "total"]
    assert b["applies"].tolist() == [True, False, False, False, True]
    assert b["contribution"].tolist()[:4] == [0.5, 0.0, 0.0, 0.0]
    assert b["weight"].tolist()[1:4] == [2.0, -3.0, 1.0]
    pd.testing.assert_frame_equal(
        lines[lines["applies"]].reset_index(drop=True), explain(_ensemble(), X_SMALL))


def test_rows_of_an_array_are_positions_and_no_rows_give_no_lines():
    ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("x0", ">", 0.0, 0),)), 2.0),), by_name=False)
    lines = explain(ensemble, np.array([[1.0], [-1.0], [np.nan]]))
    assert lines["row"].tolist() == [0, 0, 0, 1, 1, 2, 2]
    empty = explain(_ensemble(), X_SMALL.iloc[:0])
    assert tuple(empty.columns) == COLUMNS and len(empty) == 0


def test_a_missing_column_is_named():
    with pytest.raises(ValueError, match="Sex"):
        explain(_ensemble(), X_SMALL[["Age"]])


def test_logistic_prediction_is_the_probability_and_poisson_the_mean():
    for loss, link in [("logistic", lambda f: 1 / (1 + np.exp(-f))), ("poisson", np.exp)]:
        ensemble = _ensemble(loss=loss)
        lines = explain(ensemble, X_SMALL)
        np.testing.assert_allclose(lines["prediction"], link(lines["cumulative"]), rtol=1e-15)
        total = lines[lines["kind"] == "total"]
        np.testing.assert_array_equal(total["prediction"], ensemble.predict(X_SMALL))


# -- one row -------------------------------------------------------------------------------
def test_explain_row_is_that_rows_lines():
    ensemble = _ensemble(loss="logistic")
    lines = explain(ensemble, X_SMALL)
    for position, label in enumerate(X_SMALL.index):
        explanation = explain_row(ensemble, X_SMALL, position)
        assert isinstance(explanation, Explanation) and explanation.row == label
        expected = lines[lines["row"] == label].reset_index(drop=True)
        pd.testing.assert_frame_equal(explanation.to_frame(), expected)
    last = explain_row(ensemble, X_SMALL, -1)
    assert last.row == "d" and last.n_applying == 1 and last.n_rules == 3
    assert last.raw_score == ensemble.decision_function(X_SMALL)[-1]
    assert last.prediction == ensemble.predict(X_SMALL)[-1]
    assert str(last).splitlines() == [
        "row 'd': raw score 1.5, probability 0.81757 (1 of 3 rules apply)",
        "  +0.5  (intercept)",
        "    +1  3. if Age > 60",
        "   1.5  = raw score",
    ]


def test_explain_row_of_an_array_and_bad_positions():
    ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("x0", ">", 0.0, 0),)), 2.0),), by_name=False)
    explanation = explain_row(ensemble, [[1.0], [-1.0]], 1)
    assert explanation.row == 1 and explanation.raw_score == 1.0
    for row in (2, -3, 1.0, "a", True):
        with pytest.raises(IndexError):
            explain_row(ensemble, [[1.0], [-1.0]], row)


# -- per-feature contributions -------------------------------------------------------------
def test_feature_shares_split_a_rule_among_its_distinct_columns():
    ensemble = RuleEnsemble(0.0, (
        Rule(Query((Proposition("a", ">", 0.0), Proposition("a", "<", 5.0), Proposition("b", "==", "x"))), 1.0),
        Rule(Query((Proposition("c", "<=", 1.0),)), 1.0),
        Rule(Query(()), 1.0),
    ), feature_names=("b", "a", "unused"))
    features, shares = feature_shares(ensemble)
    assert list(features) == ["b", "a", "unused", "c"]
    np.testing.assert_array_equal(shares, [[0.5, 0.5, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]])


def test_feature_contributions_and_importances():
    ensemble = _ensemble()
    contributions = feature_contributions(ensemble, X_SMALL)
    assert list(contributions.columns) == ["Age", "Sex"]
    assert list(contributions.index) == list(X_SMALL.index)
    # Row a: rule 1 (Age) +2, rule 2 (Age, Sex) -3 shared.
    np.testing.assert_array_equal(contributions.loc["a"], [2.0 - 1.5, -1.5])
    np.testing.assert_array_equal(contributions.sum(axis=1) + ensemble.intercept,
                                  ensemble.decision_function(X_SMALL))
    importances = feature_importances(ensemble, X_SMALL)
    assert importances.name == "importance"
    np.testing.assert_allclose(importances, contributions.abs().mean())
    with pytest.raises(ValueError, match="0 rows"):
        feature_importances(ensemble, X_SMALL.iloc[:0])


# -- the property over random ensembles and frames --------------------------------------------
def _scale(ensemble):
    # A term contributes at most |w| (upper - lower + |centre - bound|); bound it generously.
    terms = sum(abs(t.weight) * (abs(t.upper) + abs(t.lower) + abs(t.centre)) for t in ensemble.terms)
    return abs(ensemble.intercept) + sum(abs(rule.weight) for rule in ensemble.rules) + terms


@PROPERTY
@given(data=st.data())
def test_terms_sum_to_the_decision_function_for_every_row(data):
    X = data.draw(frames(max_rows=30))
    own = data.draw(st.booleans())
    ensemble = data.draw(ensembles(list(X.columns.unique()) if own else None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            raw = ensemble.decision_function(X)
        except ValueError:  # a column the frame lacks, or repeated: explain says so too
            with pytest.raises(ValueError):
                explain(ensemble, X)
            event("X lacks a column")
            return
        lines = explain(ensemble, X)
        every = explain(ensemble, X, all_rules=True)
        contributions = feature_contributions(ensemble, X)
        predicted = ensemble.predict(X)
    event(f"explained, {'some' if (lines['kind'] == 'rule').any() else 'no'} rule applies")
    total = lines[lines["kind"] == "total"]
    assert len(total) == len(X) and len(every) == len(X) * (len(ensemble) + 2)
    # The raw score, to the last bit: the terms are added in decision_function's order.
    np.testing.assert_array_equal(total["cumulative"].to_numpy(), raw)
    np.testing.assert_array_equal(every[every["kind"] == "total"]["cumulative"].to_numpy(), raw)
    np.testing.assert_array_equal(total["prediction"].to_numpy(), predicted)
    assert list(total["row"]) == list(X.index)
    if not math.isfinite(_scale(ensemble)):
        return
    tolerance = 1e-12 * _scale(ensemble)
    sums = lines.groupby("row", sort=False)["contribution"].sum().to_numpy()
    np.testing.assert_allclose(sums, raw, rtol=1e-12, atol=tolerance)
    # Feature contributions and the intercept (and any rule without a
    # condition, which names no feature) sum to the score too.
    baseline = ensemble.intercept + sum(rule.weight for rule in ensemble.rules if len(rule.query) == 0)
    assert contributions.shape == (len(X), len(feature_shares(ensemble)[0]))
    np.testing.assert_allclose(contributions.sum(axis=1).to_numpy() + baseline, raw, rtol=1e-12,
                               atol=tolerance)


_POOL = [-1.0, 0.0, 0.5, 2.0]


@st.composite
def _covering_cases(draw):
    """A frame of two numeric columns with NaN and a nominal one with None, and
    an ensemble whose thresholds and categories come from its values, so that
    most rules apply to some rows (random ensembles mostly cover none), and
    linear terms on the numeric columns (NaN contributes 0)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 40))
    X = pd.DataFrame({"a": rng.choice(_POOL + [np.nan], n), "b": rng.choice(_POOL + [np.nan], n),
                      "c": pd.Series(rng.choice(["x", "y", "z", None], n), dtype=object)},
                     index=pd.Index(rng.permutation(n) * 10))
    rules = []
    for _ in range(draw(st.integers(0, 8))):
        propositions = []
        for _ in range(draw(st.integers(1, 3))):
            feature = draw(st.sampled_from(["a", "b", "c"]))
            if feature == "c":
                propositions.append(Proposition("c", draw(st.sampled_from(["==", "!="])),
                                                draw(st.sampled_from(["x", "y"])), 2))
            else:
                propositions.append(Proposition(feature, draw(st.sampled_from(["<=", "<", ">", ">="])),
                                                draw(st.sampled_from(_POOL)), "ab".index(feature)))
        weight = draw(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False))
        rules.append(Rule(Query(tuple(propositions)), weight))
    terms = []
    for _ in range(draw(st.integers(0, 3))):
        feature = draw(st.sampled_from(["a", "b"]))
        lower, upper = sorted(draw(st.lists(st.sampled_from(_POOL), min_size=2, max_size=2)))
        terms.append(LinearTerm(feature, lower, upper, draw(st.floats(-2, 3)), 1.0,
                                draw(st.floats(-1e6, 1e6, allow_subnormal=False)), "ab".index(feature)))
    loss = draw(st.sampled_from(["squared", "logistic", "poisson"]))
    ensemble = RuleEnsemble(draw(st.floats(-1e3, 1e3)), tuple(rules), loss, ("a", "b", "c"),
                            terms=tuple(terms))
    return ensemble, X


@PROPERTY
@given(case=_covering_cases())
def test_terms_sum_when_many_rules_apply(case):
    ensemble, X = case
    raw = ensemble.decision_function(X)
    lines = explain(ensemble, X)
    event(f"{int((lines['kind'] == 'rule').sum() > 0)} rule lines, "
          f"{int((lines['kind'] == 'term').sum() > 0)} term lines")
    total = lines[lines["kind"] == "total"]
    np.testing.assert_array_equal(total["cumulative"].to_numpy(), raw)
    np.testing.assert_array_equal(total["prediction"].to_numpy(), ensemble.predict(X))
    tolerance = 1e-12 * _scale(ensemble)
    np.testing.assert_allclose(lines.groupby("row", sort=False)["contribution"].sum(), raw,
                               rtol=1e-12, atol=tolerance)
    contributions = feature_contributions(ensemble, X)
    np.testing.assert_allclose(contributions.sum(axis=1) + ensemble.intercept, raw, rtol=1e-12,
                               atol=tolerance)
    # Ranks of term lines point at the terms, after the rules.
    term_lines = lines[lines["kind"] == "term"]
    np.testing.assert_array_equal(term_lines["weight"], [ensemble.terms[k - 1].weight for k in term_lines["rule"]])
    # A rule line is there exactly where the rule's query holds.
    covered = ensemble.query_matrix(X)
    rule_lines = lines[lines["kind"] == "rule"]
    assert len(rule_lines) == covered.sum()
    np.testing.assert_array_equal(rule_lines["contribution"],
                                  [ensemble[k - 1].weight for k in rule_lines["rule"]])
    # A term line is there exactly where its column has a value; a missing
    # value contributes 0 (every=all_rules lines), never NaN.
    term_lines = lines[lines["kind"] == "term"]
    present = X[[term.feature for term in ensemble.terms]].notna().to_numpy(dtype=bool)
    assert len(term_lines) == present.sum()
    every = explain(ensemble, X, all_rules=True)
    missing_terms = every[(every["kind"] == "term") & ~every["applies"]]
    assert (missing_terms["contribution"] == 0).all() and len(missing_terms) == (~present).sum()
    np.testing.assert_array_equal(every[every["kind"] == "total"]["cumulative"].to_numpy(), raw)
    position = int(np.argmax(X.index == X.index[-1]))
    explanation = explain_row(ensemble, X, position)
    assert explanation.raw_score == raw[position] and explanation.n_applying == covered[position].sum()


# -- the waterfall in HTML ---------------------------------------------------------------------
HOSTILE = ["</script><img src=x onerror=alert(1)>", "<img onerror=alert(1)>", "a\u202eb"]


def _hostile():
    names = HOSTILE
    rules = (Rule(Query((Proposition(names[0], "<=", 1.0, 0),)), 1.5),
             Rule(Query((Proposition(names[1], "==", HOSTILE[0], 1),
                         Proposition(names[2], "!=", "<img onerror=x>\u202e", 2))), -2.0))
    X = pd.DataFrame({names[0]: [0.0, 2.0], names[1]: [HOSTILE[0], "x"], names[2]: ["y", HOSTILE[1]]},
                     index=[HOSTILE[1], "\u202erow"])
    return RuleEnsemble(0.25, rules, "logistic", tuple(names)), X


def test_waterfall_escapes_names_categories_and_row_labels():
    ensemble, X = _hostile()
    for position in range(len(X)):
        explanation = explain_row(ensemble, X, position, all_rules=True)
        page = explanation_html(explanation)
        assert_escaped(page)
        assert "<img" not in page and "\u202e" not in page
        assert "&lt;img onerror" in page and "\\u202e" in page
        assert "<script" not in page.lower()  # no JavaScript at all
        assert page == explanation_html(explain_row(ensemble, X, position, all_rules=True))
    assert_escaped(explain_row(ensemble, X, 0)._repr_html_())


def test_waterfall_bars_and_text_mode():
    ensemble = _ensemble()
    explanation = explain_row(ensemble, X_SMALL, 0)
    page = explanation_html(explanation)
    # intercept 0 -> 0.5, +2 -> 2.5, -3 -> -0.5, total 0 -> -0.5 on [-0.5, 2.5].
    assert page.count("class=\"rb-wf-step") == 4
    assert "left:16.7%;width:16.7%" in page  # the intercept
    assert "rb-wf-pos\" style=\"left:33.3%;width:66.7%" in page
    assert "rb-wf-neg\" style=\"left:0.0%;width:100.0%" in page
    assert "rb-text-repr-fallback" in page and "Age &lt;= 19" in page
    with set_options(display="text"):
        assert explanation._repr_html_() is None
    assert waterfall_bar(math.inf, 1.0, 0.0, 1.0, "rule") == "<span class=\"rb-wf\"></span>"
    with set_options(display_max_rules=1):
        assert "1 more rule<" in explanation._repr_html_()


# -- the chart ----------------------------------------------------------------------------------
def test_chart_spec_fields_and_data():
    ensemble = _ensemble(loss="logistic")
    data = explanation_data(ensemble, X_SMALL, 0)
    assert data["label"].tolist() == ["intercept", "1. Age <= 19", "2. Age <= 19 & Sex == male",
                                      "raw score"]
    assert data["start"].tolist() == [0.0, 0.5, 2.5, 0.0]
    assert data["end"].tolist() == [0.5, 2.5, -0.5, -0.5]
    assert data["effect"].tolist() == ["intercept", "positive", "negative", "total"]
    spec = explanation_chart(ensemble, X_SMALL, 0).to_dict()
    assert spec["mark"]["type"] == "bar"
    encoding = spec["encoding"]
    assert (encoding["x"]["field"], encoding["x2"]["field"], encoding["y"]["field"],
            encoding["color"]["field"]) == ("start", "end", "label", "effect")
    assert encoding["y"]["sort"]["field"] == "order"
    assert {t["field"] for t in encoding["tooltip"]} >= {"contribution", "cumulative", "prediction"}
    assert spec["title"].startswith("row 'a': raw score -0.5, probability")
    every = explanation_data(ensemble, X_SMALL, 1, all_rules=True)
    assert every["effect"].tolist() == ["intercept"] + ["not applying"] * 3 + ["total"]


def test_chart_is_a_rulebook_chart_and_escapes_in_html():
    from rulebook._chart_display import Chart

    ensemble, X = _hostile()
    chart = explanation_chart(ensemble, X, 1, all_rules=True)
    assert isinstance(chart, Chart)
    assert_escaped(chart.to_html())
    for marker in MARKUP[:2]:
        assert marker not in chart.to_html()


# -- fitted models on bundled data -------------------------------------------------------------
@pytest.fixture(scope="module")
def titanic():
    X, y = load_titanic()
    return RuleBoostingClassifier(n_rules=5).fit(X, y), X


@pytest.fixture(scope="module")
def ships():
    X, y = load_ships()
    return RuleBoostingRegressor(loss="poisson", n_rules=4).fit(X, y), X


def test_classifier_explanations(titanic):
    model, X = titanic
    lines = explain(model.ensemble_, X)
    total = lines[lines["kind"] == "total"]
    np.testing.assert_array_equal(total["cumulative"], model.decision_function(X))
    np.testing.assert_allclose(total["prediction"], model.predict_proba(X)[:, 1], rtol=1e-15)
    contributions = feature_contributions(model.ensemble_, X)
    assert list(contributions.columns) == list(model.feature_names_in_)
    np.testing.assert_allclose(contributions.sum(axis=1) + model.ensemble_.intercept,
                               model.decision_function(X), rtol=1e-12, atol=1e-12)
    assert list(feature_importances(model.ensemble_, X).index) == list(model.feature_names_in_)
    data = explanation_data(model, X, 3)
    assert data["end"].iloc[-1] == model.decision_function(X.iloc[[3]])[0]
    assert explanation_chart(model, X, 3).to_dict()["mark"]["type"] == "bar"


def test_poisson_regressor_explanations(ships):
    model, X = ships
    lines = explain(model.ensemble_, X)
    total = lines[lines["kind"] == "total"]
    np.testing.assert_array_equal(total["cumulative"], model.ensemble_.decision_function(X))
    np.testing.assert_allclose(total["prediction"], model.predict(X), rtol=1e-15)
    explanation = explain_row(model.ensemble_, X, 0)
    assert "mean" in str(explanation).splitlines()[0]
    assert "rb-wf" in explanation._repr_html_()
    assert explanation_data(model, X, 0)["label"].iloc[-1] == "raw score"


@pytest.mark.parametrize("make", [
    lambda: RuleBoostingClassifier(4, verbose=0),
    lambda: RuleBoostingClassifier(3, learner="orthogonal", verbose=0),
    lambda: RuleFitClassifier(max_rules=5, n_estimators=20, random_state=0),
    lambda: RuleBoostingClassifierCV(3, reg_lambdas=(1.0,), cv=3, verbose=0),
    lambda: RuleBoostingClassifier(4, include_linear=True, verbose=0),
    lambda: RuleBoostingClassifier(3, learner="orthogonal", include_linear=True, verbose=0),
    lambda: RuleFitClassifier(max_rules=5, n_estimators=20, include_linear=True, random_state=0),
], ids=["boosting", "orthogonal", "rulefit", "cv", "boosting+linear", "orthogonal+linear",
        "rulefit+linear"])
def test_every_estimator_explains_its_own_scores(make):
    X, y = load_titanic()
    X, y = X.iloc[:300], y.iloc[:300]
    model = make().fit(X, y)
    lines = model.explain(X)
    totals = lines[lines["kind"] == "total"]
    np.testing.assert_array_equal(totals["cumulative"].to_numpy(), model.decision_function(X))
    np.testing.assert_array_equal(totals["prediction"].to_numpy(), model.predict_proba(X)[:, 1])
    one = model.explain_row(X, 7)
    assert one.raw_score == model.decision_function(X)[7]
    with pytest.raises(ValueError, match="Age"):
        model.explain(X.drop(columns="Age"))
