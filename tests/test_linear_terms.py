"""Linear terms (issue 21, item 1): RuleFit's winsorised linear basis functions.

The terms against a direct NumPy computation on real data; in the model
(print, predict by name, slice, JSON, HTML); in RuleFit's L1 fit (against
scikit-learn's Lasso on the same columns); their importances.
"""

import json
import re
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Lasso

from rulebook import (
    Proposition,
    Query,
    Rule,
    RuleEnsemble,
    RuleFitClassifier,
    RuleFitRegressor,
)
from rulebook._repr_html import ensemble_repr, term_effect
from rulebook.binning import Binner
from rulebook.datasets import load_titanic, load_used_cars
from rulebook.explanations import (
    feature_contributions,
    feature_importances,
    local_importances,
)
from rulebook.linear_terms import PRIOR_STD, LinearTerm
from rulebook.rulefit import feature_importances as global_importances
from rulebook.rulefit import rule_importances, term_importances
from rulebook.rulefit_rules import _linear_inputs


@pytest.fixture(scope="module")
def titanic():
    return load_titanic()


def _numpy_term(x, delta, weights=None):
    """The paper's l_j by hand: quantiles, clip, mean, std (missing rows at the mean)."""
    present = ~np.isnan(x)
    if weights is None:
        lower, upper = np.quantile(x[present], [delta, 1 - delta], method="inverted_cdf")
    else:  # integer weights: the rows repeated
        repeated = np.repeat(x[present], weights[present])
        lower, upper = np.quantile(repeated, [delta, 1 - delta], method="inverted_cdf")
    clipped = np.clip(x[present], lower, upper)
    centre = np.average(clipped, weights=None if weights is None else weights[present])
    deviation = np.where(present, np.clip(x, lower, upper) - centre, 0.0)
    std = np.sqrt(np.average(deviation ** 2, weights=weights))
    return lower, upper, centre, std, PRIOR_STD * deviation / std


# -- the terms against NumPy, on real data ------------------------------------------------
@pytest.mark.parametrize("delta", [0.025, 0.1, 0.0])
def test_winsorised_scaled_terms_match_numpy(titanic, delta):
    X, _ = titanic
    binner = Binner()
    binner.fit_transform(X, np.ones(len(X)))
    terms, L = _linear_inputs(X, binner.features_, np.ones(len(X)), delta)
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])]
    # Nominal columns (Sex, Embarked) get no term; every numeric one varies.
    assert [t.feature for t in terms] == numeric and L.shape == (len(X), len(numeric))
    for j, term in enumerate(terms):
        x = X[term.feature].to_numpy(dtype=float)
        lower, upper, centre, std, column = _numpy_term(x, delta)
        assert (term.lower, term.upper) == (lower, upper)
        assert lower in x and upper in x  # data values
        assert term.centre == pytest.approx(centre, rel=1e-12)
        assert term.std == pytest.approx(std, rel=1e-12)
        assert term.index == list(X.columns).index(term.feature) and term.weight == 0
        np.testing.assert_allclose(L[:, j], column, rtol=1e-12, atol=1e-12)
        # The scaled column has the prior standard deviation of a typical rule.
        assert L[:, j].std() == pytest.approx(PRIOR_STD, rel=1e-12)
    age = terms[numeric.index("Age")]
    np.testing.assert_array_equal(L[X["Age"].isna().to_numpy(), numeric.index("Age")], 0.0)
    if delta > 0:  # Fare's outliers are clipped
        fare = terms[numeric.index("Fare")]
        assert fare.upper < X["Fare"].max() and age.lower > X["Age"].min()


def test_integer_weights_are_repetitions_and_zero_weights_removal(titanic):
    X, _ = titanic
    x = X["Fare"].to_numpy(dtype=float)
    weights = np.random.default_rng(0).integers(0, 4, len(x))
    term = LinearTerm.winsorised("Fare", x, weights, 0.05)
    lower, upper, centre, std, _ = _numpy_term(x, 0.05, weights)
    assert (term.lower, term.upper) == (lower, upper)
    assert term.centre == pytest.approx(centre, rel=1e-12) and term.std == pytest.approx(std, rel=1e-12)
    kept = weights > 0
    same = LinearTerm.winsorised("Fare", x[kept], weights[kept], 0.05)
    assert same == term


@pytest.mark.parametrize("values", [[3.0, 3.0, 3.0], [np.nan, np.nan], [1.0] * 98 + [5.0, 9.0]])
def test_constant_or_missing_columns_get_no_term(values):
    # The last: constant after clipping at the 2.5% and 97.5% quantiles.
    assert LinearTerm.winsorised("x", np.array(values)) is None


# -- in the model ------------------------------------------------------------------------------
AGE = LinearTerm("Age", 1.0, 65.0, 29.7, 14.2, 0.0123, 0)
FARE = LinearTerm("Fare", 0.0, 263.0, 33.3, 50.0, -0.004, 2)
RULE = Rule(Query((Proposition("Sex", "==", "male", 1),)), -1.25, 0.6)


def _ensemble():
    return RuleEnsemble(0.5, (RULE,), "logistic", ("Age", "Sex", "Fare"), terms=(AGE, FARE))


def test_contribution_and_missing_values():
    X = pd.DataFrame({"Age": [10.0, 29.7, 90.0, np.nan, -5.0], "Sex": "male", "Fare": 1.0})
    expected = 0.0123 * (np.clip([10.0, 29.7, 90.0, 29.7, -5.0], 1, 65) - 29.7)
    np.testing.assert_allclose(AGE.evaluate(X), expected, rtol=1e-15, atol=1e-17)
    assert AGE.evaluate(X)[3] == 0.0  # missing: the mean, no NaN
    raw = _ensemble().decision_function(X)
    assert np.isfinite(raw).all()
    np.testing.assert_allclose(raw, 0.5 - 1.25 + expected + FARE.evaluate(X), rtol=1e-14)


def test_predict_by_column_name_reordered_and_by_position():
    ensemble = _ensemble()
    X = pd.DataFrame({"Age": [10.0, np.nan, 70.0], "Sex": ["male", "female", None],
                      "Fare": [7.25, 512.0, np.nan]})
    raw = ensemble.decision_function(X)
    reordered = X[["Fare", "Age", "Sex"]].assign(extra=1)
    np.testing.assert_array_equal(ensemble.decision_function(reordered), raw)
    positional = RuleEnsemble(0.5, (RULE,), "logistic", None, by_name=False, terms=(AGE, FARE))
    np.testing.assert_array_equal(positional.decision_function(X.to_numpy(dtype=object)), raw)
    with pytest.raises(ValueError, match="'Fare'"):  # a term's column missing is named
        ensemble.decision_function(X.drop(columns="Fare"))
    # The numba kernel path (large work) adds the terms in the same order.
    big = pd.concat([X] * 80_000, ignore_index=True)
    np.testing.assert_array_equal(ensemble.decision_function(big), np.tile(raw, 80_000))


def test_printed_terms_give_the_contribution_by_hand():
    text = str(_ensemble())
    lines = text.splitlines()
    assert lines[2].split() == ["+0.0123", "*", "(clip(Age,", "1,", "65)", "-", "29.7)"]
    assert "* (clip(Fare, 0, 263) - 33.3)" in lines[3] and lines[3].split()[0] == "-0.004"
    pattern = re.compile(r"([+-][\d.]+)\s+\* \(clip\((\w+), ([-\d.]+), ([-\d.]+)\) ([+-]) ([\d.]+)\)")
    X = pd.DataFrame({"Age": [0.5, 40.0, 80.0], "Sex": "f", "Fare": [600.0, 10.0, 0.0]})
    for line, term in zip(lines[2:], _ensemble().terms, strict=True):
        weight, name, lower, upper, sign, centre = pattern.fullmatch(line.strip()).groups()
        by_hand = float(weight) * (np.clip(X[name], float(lower), float(upper))
                                   + float(sign + centre))
        np.testing.assert_allclose(by_hand, term.evaluate(X), rtol=1e-4)
    assert "1 rules, 2 linear terms, complexity 6" in repr(_ensemble())
    odd = LinearTerm("High Temp (F)", -2.5, 3.0, -1.25, 1.0, 2.0)
    assert str(odd) == "+2 * (clip(`High Temp (F)`, -2.5, 3) + 1.25)"


def test_terms_are_the_base_kept_by_every_slice():
    second = Rule(Query((Proposition("Age", ">", 60.0, 0),)), 0.75, 0.1)
    ensemble = replace(_ensemble(), rules=(RULE, second))
    assert len(ensemble) == 2 and list(ensemble) == [RULE, second] and ensemble[-1] == second
    assert ensemble.complexity == (2 + 2) + 2 * 2  # a term counts as a rule of one condition
    X = pd.DataFrame({"Age": [5.0, 70.0, np.nan], "Sex": ["male", "female", None], "Fare": [1.0, 90.0, 3.0]})
    for k in range(3):
        head = ensemble[:k]
        assert head.rules == ensemble.rules[:k] and head.terms == (AGE, FARE)
        assert (head.intercept, head.loss, head.feature_names, head.by_name) == (
            ensemble.intercept, ensemble.loss, ensemble.feature_names, ensemble.by_name)
        # The model after k rounds: intercept, terms, k rules.
        expected = 0.5 + ensemble.term_contributions(X).sum(axis=1) + sum(
            np.where(rule.query.evaluate(X), rule.weight, 0.0) for rule in ensemble.rules[:k])
        np.testing.assert_allclose(head.decision_function(X), expected, rtol=1e-14)
    frame = ensemble.to_frame()
    assert frame["rule"].tolist() == ["Sex == male", "Age > 60"]  # rules only
    terms = ensemble.terms_frame()
    assert terms["expression"].tolist() == ["(clip(Age, 1, 65) - 29.7)", "(clip(Fare, 0, 263) - 33.3)"]
    assert terms["feature"].tolist() == ["Age", "Fare"] and terms.index.tolist() == [1, 2]
    np.testing.assert_array_equal(terms["importance"], [abs(0.0123) * 14.2, abs(-0.004) * 50.0])
    X = pd.DataFrame({"Age": [5.0], "Sex": ["male"], "Fare": [100.0]})
    assert ensemble.query_matrix(X).shape == (1, 2)  # rules only
    np.testing.assert_array_equal(ensemble.term_contributions(X),
                                  [[AGE.evaluate(X)[0], FARE.evaluate(X)[0]]])


def test_json_round_trip_and_versions():
    ensemble = _ensemble()
    data = ensemble.to_dict()
    assert data["version"] == 2 and len(data["linear_terms"]) == 2
    back = RuleEnsemble.from_json(ensemble.to_json())
    assert back == ensemble
    for a, b in zip(back.terms, ensemble.terms, strict=True):
        for name in ("lower", "upper", "centre", "std", "weight"):
            assert getattr(a, name).hex() == getattr(b, name).hex()
    # Without terms the file is version 1, as older rulebooks wrote and read it.
    plain = replace(ensemble, terms=()).to_dict()
    assert plain["version"] == 1 and "linear_terms" not in plain
    with pytest.raises(ValueError, match="'linear_terms' needs version 2"):
        RuleEnsemble.from_dict({**data, "version": 1})
    bad = json.loads(ensemble.to_json())
    bad["linear_terms"][1]["lower"] = 300.0
    with pytest.raises(ValueError, match=r"'linear_terms\[1\]'.*'Fare'.*lower <= upper"):
        RuleEnsemble.from_dict(bad)
    del bad["linear_terms"][0]["std"]
    with pytest.raises(ValueError, match=r"'linear_terms\[0\].std' is missing"):
        RuleEnsemble.from_dict(bad)


def test_html_repr_shows_terms_escaped():
    odd = LinearTerm("<b>", 0.0, 10.0, 2.0, 1.0, -0.5)
    ensemble = RuleEnsemble(1.0, (RULE,), terms=(AGE, odd))
    page = ensemble_repr(ensemble)
    assert "clip(Age, 1, 65) - 29.7" in page and "clip(`&lt;b&gt;`, 0, 10)" in page
    assert "clip(`<b>`" not in page
    assert "linear terms" in page and "Rules and linear terms" in page
    assert term_effect(odd) == -4.0  # -0.5 * (10 - 2)
    assert page.count("rb-term") == 2


# -- RuleFit with linear terms ---------------------------------------------------------------
@pytest.fixture(scope="module")
def used_cars():
    return load_used_cars()


def test_rulefit_weights_are_the_lasso_over_rules_and_scaled_terms(used_cars):
    X, y = used_cars
    X = X.copy()
    X.loc[X.index[::7], "powerPS"] = np.nan  # missing values: 0 in the term's column
    model = RuleFitRegressor(max_rules=None, alpha=20.0, n_estimators=30, include_linear=True,
                             random_state=0).fit(X, y)
    ensemble = model.ensemble_
    assert ensemble.terms, "the fit should select linear terms here"
    Z = ensemble.query_matrix(X).astype(float)
    columns = [_numpy_term(X[t.feature].to_numpy(dtype=float), 0.025)[4] for t in ensemble.terms]
    A = np.column_stack([Z] + columns)
    # A term's weight per unit is its coefficient on the scaled column times 0.4 / std:
    # the model is the intercept plus A times these coefficients.
    coef = np.array([r.weight for r in ensemble.rules] + [t.weight * t.std / PRIOR_STD for t in ensemble.terms])
    np.testing.assert_allclose(ensemble.intercept + A @ coef, model.predict(X), rtol=1e-12)
    # And they solve the lasso over rules and scaled terms. Here some selected
    # columns are collinear (rank < columns), so the weights are not unique:
    # the objective and the fitted values (which are) are compared.
    refit = Lasso(alpha=model.alpha_, tol=1e-12, max_iter=1_000_000).fit(A, y)

    def objective(b, w):
        return 0.5 * np.mean((y - b - A @ w) ** 2) + model.alpha_ * np.abs(w).sum()

    assert objective(ensemble.intercept, coef) == pytest.approx(
        objective(refit.intercept_, refit.coef_), rel=1e-9)
    np.testing.assert_allclose(model.predict(X), refit.predict(A), rtol=1e-4, atol=1e-4 * np.std(y))


def test_rulefit_counts_terms_as_rules_and_orders_them(used_cars):
    X, y = used_cars
    model = RuleFitRegressor(max_rules=8, include_linear=True, random_state=0).fit(X, y)
    ensemble = model.ensemble_
    assert len(ensemble.rules) + len(ensemble.terms) <= 8
    assert (np.diff(model.term_importances_) <= 0).all() and (np.diff(model.rule_importances_) <= 0).all()
    sizes = [len(e.rules) + len(e.terms) for e in model.path_["ensemble"]]
    assert sizes == model.path_["n_rules"].tolist()
    # Nominal columns never get a term.
    X2, y2 = load_titanic(dropna=True)
    clf = RuleFitClassifier(max_rules=None, alpha=1e-3, n_estimators=20, include_linear=True,
                            random_state=0).fit(X2, y2)
    assert {t.feature for t in clf.ensemble_.terms} <= {"Pclass", "Age", "SibSp", "Parch", "Fare"}
    assert clf.ensemble_.terms
    np.testing.assert_array_equal(clf.decision_function(X2), clf.ensemble_.decision_function(X2))


def test_importances_sum_and_are_root_mean_squares_of_local_ones(used_cars):
    X, y = used_cars
    X = X.copy()
    X.loc[X.index[::5], "year"] = np.nan
    model = RuleFitRegressor(max_rules=12, include_linear=True, random_state=0).fit(X, y)
    ensemble = model.ensemble_
    assert ensemble.terms and ensemble.rules
    np.testing.assert_allclose(model.term_importances_, [abs(t.weight) * t.std for t in ensemble.terms])
    np.testing.assert_array_equal(model.term_importances_, term_importances(ensemble))
    np.testing.assert_array_equal(model.rule_importances_, rule_importances(ensemble))
    # Global J_j sums to the importances of the rules and terms.
    total = model.rule_importances_.sum() + model.term_importances_.sum()
    assert model.feature_importances_.sum() == pytest.approx(total, rel=1e-12)
    pd.testing.assert_series_equal(model.feature_importances_, global_importances(ensemble))
    # Local J_j(x) sums, row by row, to the local importances of the rules and terms.
    local = local_importances(ensemble, X)
    covered = ensemble.query_matrix(X)
    coverage = np.array([r.coverage for r in ensemble.rules])
    rule_local = np.abs([r.weight for r in ensemble.rules]) * np.abs(covered - coverage)
    term_local = np.abs(ensemble.term_contributions(X))
    np.testing.assert_allclose(local.sum(axis=1), rule_local.sum(axis=1) + term_local.sum(axis=1),
                               rtol=1e-12)
    # Over the training rows, the root mean square of a local importance is the global one.
    np.testing.assert_allclose(np.sqrt((rule_local ** 2).mean(axis=0)), model.rule_importances_, rtol=1e-10)
    np.testing.assert_allclose(np.sqrt((term_local ** 2).mean(axis=0)), model.term_importances_, rtol=1e-10)
    mean_local = feature_importances(ensemble, X, kind="rulefit")
    pd.testing.assert_series_equal(mean_local, local.mean(axis=0).rename("importance"))
    # Signed contributions add up to the raw score, terms included.
    np.testing.assert_allclose(feature_contributions(ensemble, X).sum(axis=1) + ensemble.intercept,
                               ensemble.decision_function(X), rtol=1e-12)


def test_local_importances_need_coverage_and_kind_is_checked():
    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 0.0),)), 1.0),))
    X = pd.DataFrame({"a": [1.0]})
    with pytest.raises(ValueError, match="rule 1 has no coverage"):
        local_importances(ensemble, X)
    with pytest.raises(ValueError, match="kind must be"):
        feature_importances(ensemble, X, kind="paper")
