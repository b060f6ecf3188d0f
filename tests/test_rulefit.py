"""RuleFit: the scikit-learn contract, rules from trees, the L1 path, real data."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import Lasso
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from rulebook import (
    Proposition,
    Query,
    Rule,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    RuleEnsemble,
)
from rulebook.binning import Binner
from rulebook.compare import area_under_rules_curve, compare_learners
from rulebook.datasets import load_breast_cancer, load_titanic, load_used_cars
from rulebook.rulefit import (
    RuleFitClassifier,
    RuleFitRegressor,
    _simplify,
    _tree_input,
    _tree_queries,
    feature_importances,
    rule_importances,
)

ESTIMATORS = [
    RuleFitRegressor(n_estimators=10),
    RuleFitClassifier(n_estimators=10),
    RuleFitRegressor(n_estimators=10, include_linear=True),
    RuleFitClassifier(n_estimators=10, include_linear=True),
    RuleFitRegressor(max_rules=None, alpha=0.05, n_estimators=10, tree_size=2, learning_rate=0.1,
                     max_bins=None),
]
# Each tree is grown on a random subsample of rows (Friedman and Popescu's
# Algorithm 1), so a row of weight 2 is not the same as the row twice: the
# subsamples differ. Like any subsampling ensemble, RuleFit cannot pass this.
_SUBSAMPLING = "trees are grown on random row subsamples; weights are not repetitions there"
EXPECTED_FAILURES = {"check_sample_weight_equivalence_on_dense_data": _SUBSAMPLING}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda estimator: EXPECTED_FAILURES)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)


@pytest.fixture(scope="module")
def titanic():
    return load_titanic(dropna=True)


@pytest.fixture(scope="module")
def used_cars():
    return load_used_cars()


def _with_missing(X, column, fraction, seed):
    X = X.copy()
    rows = np.random.default_rng(seed).random(len(X)) < fraction
    X.loc[rows, column] = np.nan
    return X


# -- max_rules and the regularisation path ----------------------------------
@pytest.mark.parametrize("k", [1, 3, 10])
def test_max_rules_is_respected_and_reached(titanic, used_cars, k):
    for model, (X, y) in ((RuleFitClassifier(max_rules=k, random_state=0), titanic),
                          (RuleFitRegressor(max_rules=k, random_state=0), used_cars)):
        model.fit(X, y)
        assert len(model.ensemble_) <= k
        assert all(rule.weight != 0 for rule in model.ensemble_)
        # The search went past k, so the model is at the boundary, not at an
        # arbitrary strength: a less regularised fit has more than k rules.
        assert (model.path_.loc[model.path_.alpha < model.alpha_, "n_rules"] > k).any()
        # No model found on the path with at most k rules is larger.
        sizes = model.path_.n_rules
        assert len(model.ensemble_) == sizes[sizes <= k].max()
        # Sizes the grid skips are searched for by bisection; on these data
        # only used cars' size 3 stays missing (two rules enter together).
        assert len(set(range(k + 1)) - set(sizes)) <= 1


def test_path_is_ordered_and_its_ensembles_match_its_sizes(titanic):
    model = RuleFitClassifier(max_rules=5, random_state=0).fit(*titanic)
    path = model.path_
    assert path.columns.tolist() == ["alpha", "n_rules", "train_loss", "ensemble"]
    assert (np.diff(path.alpha) <= 0).all()
    assert path.n_rules.iloc[0] == 0
    assert [len(e) for e in path.ensemble] == path.n_rules.tolist()
    chosen = path.loc[path.alpha == model.alpha_, "ensemble"].iloc[0]
    assert chosen == model.ensemble_


def test_alpha_sets_the_strength_and_caps_combine(used_cars):
    X, y = used_cars
    loose = RuleFitRegressor(max_rules=None, alpha=200.0, n_estimators=50, random_state=0).fit(X, y)
    tight = RuleFitRegressor(max_rules=None, alpha=800.0, n_estimators=50, random_state=0).fit(X, y)
    assert loose.alpha_ == 200.0 and tight.alpha_ == 800.0
    assert len(tight.ensemble_) < len(loose.ensemble_)
    capped = RuleFitRegressor(max_rules=3, alpha=200.0, n_estimators=50, random_state=0).fit(X, y)
    assert len(capped.ensemble_) <= 3 and capped.alpha_ >= 200.0
    huge = RuleFitRegressor(max_rules=None, alpha=1e12, n_estimators=50, random_state=0).fit(X, y)
    assert len(huge.ensemble_) == 0
    assert huge.ensemble_.intercept == pytest.approx(y.mean())


# -- the model is the ensemble ------------------------------------------------
def test_estimator_predictions_are_the_ensembles(titanic, used_cars):
    X, y = titanic
    classifier = RuleFitClassifier(max_rules=10, random_state=0).fit(X, y)
    ensemble = classifier.ensemble_
    assert isinstance(ensemble, RuleEnsemble) and ensemble.loss == "logistic"
    np.testing.assert_array_equal(classifier.decision_function(X), ensemble.decision_function(X))
    np.testing.assert_array_equal(classifier.predict_proba(X)[:, 1], ensemble.predict(X))
    X, y = used_cars
    regressor = RuleFitRegressor(max_rules=10, random_state=0).fit(X, y)
    np.testing.assert_array_equal(regressor.predict(X), regressor.ensemble_.predict(X))
    # The recorded training loss is that of the returned ensemble.
    chosen = regressor.path_.alpha == regressor.alpha_
    mse = np.mean((y.to_numpy() - regressor.ensemble_.predict(X)) ** 2)
    assert regressor.path_.loc[chosen, "train_loss"].iloc[0] == pytest.approx(mse, rel=1e-10)


def test_weights_are_fitted_on_rules_with_missing_value_semantics(used_cars):
    """The lasso weights solve the problem on rulebook's rule matrix.

    With the unselected weights at zero, the lasso restricted to the selected
    rules has the same solution (KKT conditions). Its matrix is
    ``query_matrix``, where a missing value satisfies no proposition; a rule
    matrix built with the trees' view of missing values would give other
    weights.
    """
    X, y = used_cars
    X = _with_missing(X, "powerPS", 0.2, seed=1)
    model = RuleFitRegressor(max_rules=8, random_state=0).fit(X, y)
    ensemble = model.ensemble_
    assert any(p.feature == "powerPS" for rule in ensemble for p in rule.query)
    Z = ensemble.query_matrix(X).astype(float)
    missing = X["powerPS"].isna().to_numpy()
    for j, rule in enumerate(ensemble):
        if any(p.feature == "powerPS" for p in rule.query):
            assert not Z[missing, j].any()
    refit = Lasso(alpha=model.alpha_, tol=1e-12, max_iter=1_000_000).fit(Z, y)
    weights = np.array([rule.weight for rule in ensemble])
    np.testing.assert_allclose(refit.coef_, weights, atol=1e-4 * np.abs(weights).max())
    assert refit.intercept_ == pytest.approx(ensemble.intercept, rel=1e-4)


def test_missing_only_branches_give_no_rule_and_fit_works():
    # Missingness of x is the signal: trees split missing from present rows.
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    x[:100] = np.nan
    X = pd.DataFrame({"x": x, "z": rng.normal(size=300)})
    y = np.where(np.isnan(x), 5.0, 0.0) + rng.normal(scale=0.1, size=300)
    # The first split of a tree separates missing from present x: neither
    # branch has a proposition, so the tree gives fewer rules than nodes.
    binner = Binner()
    matrix, columns = _tree_input(binner, binner.fit_transform(X, np.ones(300)))
    tree = DecisionTreeRegressor(max_leaf_nodes=4, random_state=0).fit(matrix, y).tree_
    assert not np.isfinite(tree.threshold[0])
    queries = _tree_queries(tree, binner, columns)
    assert 0 < len(queries) < tree.node_count - 1
    model = RuleFitRegressor(max_rules=5, random_state=0).fit(X, y)
    assert all(np.isfinite(p.value) for rule in model.ensemble_ for p in rule.query)
    np.testing.assert_array_equal(model.predict(X), model.ensemble_.predict(X))
    # Rules on x exclude the missing rows, so present rows carry the signal.
    assert model.predict(X)[100:].mean() < model.predict(X)[:100].mean()


@pytest.mark.parametrize("estimator, boosting", [
    (RuleFitClassifier(random_state=0), RuleBoostingClassifier(verbose=0)),
    (RuleFitRegressor(random_state=0), RuleBoostingRegressor(verbose=0)),
], ids=["classifier", "regressor"])
@pytest.mark.parametrize("column", [pd.Series([None] * 6, dtype=object), pd.Categorical([None] * 6)],
                         ids=["object", "category"])
def test_nominal_columns_without_a_category_give_the_intercept_alone(estimator, boosting, column):
    """Issue 26 (fuzz): no category, so no tree input column and no tree.

    The model is the intercept, as the boosting estimators fit on the same
    frame (they warn that no query reduces the loss).
    """
    X = pd.DataFrame({"a": column, "b": column})
    y = np.array([0, 1, 0, 1, 1, 0])
    model = clone(estimator).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reference = clone(boosting).fit(X, y)
    assert len(model.ensemble_) == 0 and model.n_candidates_ == 0
    assert model.ensemble_.intercept == pytest.approx(reference.ensemble_.intercept, abs=1e-12)
    np.testing.assert_allclose(model.predict(X), reference.predict(X))


# -- rules speak of real columns and data values ----------------------------
def test_rules_use_real_column_names_and_data_values(titanic):
    X, y = titanic
    model = RuleFitClassifier(max_rules=10, random_state=0).fit(X, y)
    seen_numeric = seen_nominal = False
    for rule in model.ensemble_:
        for p in rule.query:
            assert p.feature in X.columns
            assert X.columns.get_loc(p.feature) == p.index
            values = X[p.feature].dropna()
            if p.is_numeric:
                # A cut point between two data values (binning: the shortest
                # decimal after a value and before the next).
                assert values.min() <= p.value < values.max()
            else:
                assert p.value in set(values)
            seen_numeric |= p.is_numeric
            seen_nominal |= not p.is_numeric
    assert seen_numeric and seen_nominal
    assert model.ensemble_.feature_names == tuple(X.columns)
    assert "Sex" in str(model.ensemble_)


def test_tree_branches_and_their_rules_have_the_same_extent():
    """Every non-root node of a tree is a rule covering exactly its rows."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({
        "a": rng.integers(0, 20, 200).astype(float),
        "b": rng.normal(size=200),
        "c": rng.choice(["p", "q", "r"], 200),
    })
    y = X.a + 3 * (X.c == "q") + rng.normal(size=200)
    binner = Binner(max_bins=None)
    matrix, columns = _tree_input(binner, binner.fit_transform(X, np.ones(200)))
    tree = DecisionTreeRegressor(max_leaf_nodes=8, random_state=0).fit(matrix, y)
    in_node = tree.decision_path(matrix).toarray().astype(bool)[:, 1:].T
    node_extents = {row.tobytes() for row in in_node}
    queries = _tree_queries(tree.tree_, binner, columns)
    rule_extents = {q.evaluate(X, by_name=False).tobytes() for q in queries}
    assert len(queries) == tree.tree_.node_count - 1
    assert rule_extents == node_extents


def test_simplify_keeps_the_extent_and_drops_redundant_conditions():
    a_le_5, a_le_3, a_gt_1 = (Proposition("a", "<=", 5.0, 0), Proposition("a", "<=", 3.0, 0),
                              Proposition("a", ">", 1.0, 0))
    c_ne_p, c_eq_q = Proposition("c", "!=", "p", 1), Proposition("c", "==", "q", 1)
    query = _simplify((a_le_5, c_ne_p, a_gt_1, a_le_3, c_eq_q))
    assert query == Query((a_gt_1, a_le_3, c_eq_q))
    X = pd.DataFrame({"a": [0.0, 2.0, 4.0, np.nan, 2.0], "c": ["q", "q", "q", "q", None]})
    full = Query((a_le_5, c_ne_p, a_gt_1, a_le_3, c_eq_q))
    np.testing.assert_array_equal(query.evaluate(X), full.evaluate(X))


# -- importances (Friedman and Popescu 2008, Section 6) ----------------------
def test_importances(titanic):
    X, y = titanic
    model = RuleFitClassifier(max_rules=10, random_state=0).fit(X, y)
    rules = model.ensemble_.rules
    s = np.array([r.coverage for r in rules])
    expected = np.abs([r.weight for r in rules]) * np.sqrt(s * (1 - s))
    np.testing.assert_allclose(model.rule_importances_, expected)
    assert (np.diff(model.rule_importances_) <= 0).all()  # rules by importance
    coverage = model.ensemble_.query_matrix(X).mean(axis=0)
    np.testing.assert_allclose(s, coverage)
    importance = model.feature_importances_
    assert list(importance.index) == list(X.columns)
    assert importance.sum() == pytest.approx(model.rule_importances_.sum())
    assert importance.idxmax() == "Sex"


def test_feature_importance_shares_a_rule_among_its_distinct_columns():
    rule_ab = Query((Proposition("a", ">", 1.0, 0), Proposition("a", "<=", 5.0, 0),
                     Proposition("b", "==", "x", 1)))
    rule_a = Query((Proposition("a", ">", 3.0, 0),))
    ensemble = RuleEnsemble(0.0, (Rule(rule_ab, 2.0, 0.5), Rule(rule_a, -1.0, 0.2)),
                            feature_names=("a", "b", "c"))
    importances = rule_importances(ensemble)
    np.testing.assert_allclose(importances, [1.0, 0.4])
    result = feature_importances(ensemble)
    assert result.to_dict() == pytest.approx({"a": 0.9, "b": 0.5, "c": 0.0})


# -- parameters, determinism, serialisation ----------------------------------
@pytest.mark.parametrize("params, error, match", [
    ({"include_linear": "yes"}, ValueError, "include_linear must be True or False"),
    ({"include_linear": True, "winsor_quantile": 0.5}, ValueError, "winsor_quantile must be"),
    ({"winsor_quantile": -0.1}, ValueError, "winsor_quantile must be"),
    ({"max_rules": None}, ValueError, "set max_rules"),
    ({"max_rules": -1}, ValueError, "max_rules must be an int"),
    ({"alpha": 0.0}, ValueError, "alpha must be"),
    ({"tree_size": 1}, ValueError, "tree_size"),
    ({"learning_rate": 0.0}, ValueError, "learning_rate"),
    ({"max_samples": 1.5}, ValueError, "max_samples"),
    ({"n_estimators": 0}, ValueError, "n_estimators"),
])
def test_bad_parameters(used_cars, params, error, match):
    X, y = used_cars
    with pytest.raises(error, match=match):
        RuleFitRegressor(**params).fit(X, y)


def test_classifier_rejects_three_classes():
    X = pd.DataFrame({"a": np.arange(30.0)})
    with pytest.raises(ValueError, match="exactly two"):
        RuleFitClassifier().fit(X, np.arange(30) % 3)


def test_same_seed_same_model_and_plain_value(titanic):
    X, y = titanic
    first = RuleFitClassifier(max_rules=5, n_estimators=60, random_state=7).fit(X, y)
    second = RuleFitClassifier(max_rules=5, n_estimators=60, random_state=7).fit(X, y)
    assert first.ensemble_ == second.ensemble_
    again = pickle.loads(pickle.dumps(first))
    np.testing.assert_array_equal(again.predict_proba(X), first.predict_proba(X))
    assert RuleEnsemble.from_json(first.ensemble_.to_json()) == first.ensemble_


def test_ndarray_input_evaluates_rules_by_position(used_cars):
    X, y = used_cars
    numeric = X.select_dtypes("number")
    model = RuleFitRegressor(max_rules=5, n_estimators=50, random_state=0).fit(numeric.to_numpy(), y)
    assert not model.ensemble_.by_name
    assert all(p.feature.startswith("x") for rule in model.ensemble_ for p in rule.query)
    np.testing.assert_array_equal(model.predict(numeric.to_numpy()),
                                  model.ensemble_.predict(numeric.to_numpy()))


# -- against the paper (Boley et al. 2021, Table 1, column 'rf') -------------
# Mean test ROC AUC over 1..10 rules, five random 80/20 splits. Measured with
# this implementation (random_state=0): breast cancer 0.961 (paper 0.908),
# titanic 0.883 (paper 0.699), titanic on its numeric columns only 0.686.
# The paper's RuleFit (PyPI 'rulefit', numeric matrices only) scores 0.500,
# i.e. no rule, on three datasets, and on titanic it is far below its own
# unbounded model (0.837); that titanic without Sex and Embarked gives the
# paper's number suggests its RuleFit never saw the nominal columns (our
# reading, not stated in the paper). On the regression datasets, where no
# nominal column matters, this implementation matches the rf column closely
# (used cars 0.261 vs 0.269, diabetes 0.182 vs 0.182, boston 0.186 vs 0.163).
# So the test asserts: within 0.1 of the paper where the inputs are
# comparable (breast cancer, numeric titanic); for the full titanic, not
# worse than the paper by more than 0.1 and at most 0.2 better; and never
# above greedy boosting on the same splits by more than 0.02 (the paper's
# ordering grd > rf; a leak or a scoring error would show up there).
PAPER = {  # name: (loader, paper rf, greedy reg_lambda of Table 1, tolerance below, above)
    "titanic": (lambda: load_titanic(dropna=True), 0.699, 1.0, 0.1, 0.2),
    "titanic_numeric": (lambda: _numeric(load_titanic(dropna=True)), 0.699, 1.0, 0.1, 0.1),
    "breast_cancer": (load_breast_cancer, 0.908, 2.0, 0.1, 0.1),
}


def _numeric(data):
    X, y = data
    return X.select_dtypes("number"), y


@pytest.mark.parametrize("name", sorted(PAPER))
def test_ten_rule_rulefit_area_against_the_paper(name):
    load, paper_rf, reg_lambda, below, above = PAPER[name]
    X, y = load()
    learners = {"rulefit": RuleFitClassifier(), "greedy": RuleBoostingClassifier(reg_lambda=reg_lambda)}
    frame = compare_learners(X, y, learners, n_splits=5, test_size=0.2, max_rules=10, random_state=0)
    area = area_under_rules_curve(frame, max_rules=10)
    print(f"{name}: RuleFit {area['rulefit']:.3f} (paper rf {paper_rf}), greedy {area['greedy']:.3f}")
    assert paper_rf - below <= area["rulefit"] <= paper_rf + above
    assert area["rulefit"] <= area["greedy"] + 0.02
    assert frame.loc[frame.learner == "rulefit", "n_rules"].max() <= 10
