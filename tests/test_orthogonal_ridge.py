"""``OrthogonalLearner(ridge="reg_lambda")``: the orthogonal objective of the
ridge-regularised corrective step, ``|g_perp^T q| / (sqrt(||q_perp||^2 +
ridge) + epsilon)`` (:func:`rulebook.orthogonal.ridge_term`).

Checked against a reference written directly in NumPy (projections by
least squares, independent of the Gram-Schmidt basis): every proposition's
value, every prefix of Algorithm 3, the exhaustive searches against
brute-force enumeration of conjunctions (one output and several, with and
without the length penalty), and the derivation itself: for the squared
loss the objective squared is, up to the factor ``1 / (2 kappa)``, the risk
reduction of adding the query and re-fitting the earlier weights. A
mutated reference must fail the brute-force comparison (the tests' power).
"""

import json
import sys
from pathlib import Path

import naive
import numpy as np
import pytest
import test_orthogonal_outputs as outputs
from conftest import binned_problems
from hypothesis import given, settings
from hypothesis import strategies as st
from test_orthogonal import _brute_force, _random_basis
from test_orthogonal_length import (
    _brute_force_score,
    _columns,
    best_scored_output_value,
)

from rulebook import (
    OrthogonalLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    load_model,
)
from rulebook import _orthogonal_kernels as kernels
from rulebook.datasets import load_titanic, load_used_cars
from rulebook.orthogonal import (
    RIDGES,
    ChannelProblem,
    OrthogonalBasis,
    beam_search,
    branch_and_bound,
    greedy_search,
    length_factors,
    ridge_term,
)
from rulebook.orthogonal_outputs import OutputChannelProblem, output_branch_and_bound
from rulebook.search import SearchProblem

RIDGE_VALUES = [0.0, 0.05, 0.5, 2.0, 30.0]


def ridge_objective(g, s, Q, q, epsilon, ridge, redundant=kernels.REDUNDANT):
    """``|g_perp^T q| / (sqrt(||q_perp||^2 + ridge) + epsilon)`` by direct
    projection (:func:`naive.orthogonal_objective`)."""
    return naive.orthogonal_objective(g, s, Q, q, epsilon, redundant, ridge)


def _value_of(problem, Q, epsilon, ridge, objective=ridge_objective):
    def direct(sub):
        q = np.zeros(len(problem.g))
        q[sub] = 1.0
        return objective(problem.g, problem.c, Q, q, epsilon, ridge)
    return direct


# -- the ridge term ----------------------------------------------------------
def test_ridge_term_is_reg_lambda_over_the_mean_hessian_per_weight():
    rng = np.random.default_rng(0)
    s = rng.uniform(0.5, 2.0, 50)
    assert ridge_term(3.0, 2.0 * s, s) == pytest.approx(1.5)  # squared loss: h = 2 s
    h = rng.uniform(0.01, 0.25, 50) * s
    assert ridge_term(1.0, h, s) == pytest.approx(s.sum() / h.sum())
    # Several outputs: the mean over outputs and rows.
    H = np.column_stack([h, 2 * h])
    assert ridge_term(1.0, H, s) == pytest.approx(2 * s.sum() / (3 * h.sum()))
    assert ridge_term(0.0, h, s) == 0.0
    assert ridge_term(1.0, np.zeros(50), s) == 0.0
    assert ridge_term(1.0, h, np.zeros(50)) == 0.0


# -- kernels against the reference -------------------------------------------
@settings(max_examples=200, deadline=None)
@given(problem=binned_problems(), seed=st.integers(0, 2**16), t=st.integers(0, 4),
       epsilon=st.sampled_from([1e-3, 0.1]), ridge=st.sampled_from(RIDGE_VALUES))
def test_every_propositions_value_is_the_reference(problem, seed, t, epsilon, ridge):
    basis, Q = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, epsilon, ridge)
    got = channels.values(channels.histograms(problem.rows), len(problem.rows))
    expected = naive.all_values(problem.X_binned, problem.rows, problem.n_bins,
                                problem.is_nominal, _value_of(problem, Q, epsilon, ridge))
    assert np.array_equal(np.isfinite(got), np.isfinite(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-7, atol=1e-7)
    assert channels.value(problem.rows) == pytest.approx(
        _value_of(problem, Q, epsilon, ridge)(problem.rows), rel=1e-7, abs=1e-7)


@settings(max_examples=100, deadline=None)
@given(problem=binned_problems(), seed=st.integers(0, 2**16), t=st.integers(0, 4))
def test_no_ridge_is_eq_14_to_the_bit(problem, seed, t):
    basis, _ = _random_basis(problem, seed, t)
    plain = ChannelProblem.orthogonal(problem, basis, 1e-3)
    zero = ChannelProblem.orthogonal(problem, basis, 1e-3, 0.0)
    hist = plain.histograms(problem.rows)
    assert np.array_equal(plain.values(hist, len(problem.rows)),
                          zero.values(hist, len(problem.rows)))


# -- the searches against brute force ------------------------------------------
@settings(max_examples=200, deadline=None)
@given(problem=binned_problems(max_rows=12, max_features=3), seed=st.integers(0, 2**16),
       t=st.integers(0, 3), ridge=st.sampled_from(RIDGE_VALUES[1:]))
def test_exhaustive_branch_and_bound_equals_brute_force(problem, seed, t, ridge):
    problem.max_rule_length = 2
    basis, Q = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, 1e-3, ridge)
    value_of = _value_of(problem, Q, 1e-3, ridge)
    result = branch_and_bound(channels, bound="none")
    np.testing.assert_allclose(result.value, _brute_force(problem, value_of, 2), rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(result.value, value_of(result.rows), rtol=1e-7, atol=1e-9)
    # Greedy, beam and the heuristic bound never beat the exact optimum.
    for approximate in (greedy_search(channels), beam_search(channels, 3),
                        branch_and_bound(channels)):
        assert approximate.value <= result.value + 1e-9
        np.testing.assert_allclose(approximate.value, value_of(approximate.rows), rtol=1e-7,
                                   atol=1e-9)
    # With the length penalty: the best score over every conjunction.
    factor = length_factors("complexity")
    scored = branch_and_bound(channels, bound="none", length_factor=factor)
    np.testing.assert_allclose(scored.value * factor[_columns(scored.conditions)],
                               _brute_force_score(problem, value_of, factor, 2), rtol=1e-7,
                               atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(outputs.small_problems(), st.sampled_from(RIDGE_VALUES[1:]), st.booleans())
def test_exhaustive_output_branch_and_bound_equals_brute_force(case, ridge, penalised):
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, outputs.EPSILON, ridge)
    factor = length_factors("complexity" if penalised else "none")
    result = output_branch_and_bound(channels, bound="none", length_factor=factor)

    def direct(rows):
        # outputs.direct_value with the ridge: each output's numerator over
        # the regularised denominator.
        plain = outputs.direct_value(problem, basis, rows)
        s, O = problem.c, basis.O
        q = np.zeros(len(s))
        q[rows] = 1.0
        q_perp = q - O @ (O.T @ (s * q))
        norm = np.sqrt(float(s @ q_perp**2))
        return plain * (norm + outputs.EPSILON) / (np.sqrt(norm**2 + ridge) + outputs.EPSILON)

    expected = best_scored_output_value(problem, direct, factor)
    score = result.value * factor[min(_columns(result.conditions), len(factor) - 1)]
    assert score == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert result.value == pytest.approx(direct(result.rows), rel=1e-9, abs=1e-9)
    heuristic = output_branch_and_bound(channels, length_factor=factor)
    assert heuristic.value == pytest.approx(direct(heuristic.rows), rel=1e-9, abs=1e-9)


def _small_problem(seed):
    rng = np.random.default_rng(seed)
    n, d = 12, 2
    X = np.asfortranarray(rng.integers(0, 4, size=(n, d)).astype(np.uint16))
    problem = SearchProblem(X, np.full(d, 4, np.int64), np.zeros(d, bool), rng.normal(size=n),
                            2.0 * np.ones(n), np.ones(n), np.arange(n), 1.0, 1,
                            max_rule_length=2)
    return problem


def _brute_force_agrees(problem, seed, ridge, objective):
    basis, Q = _random_basis(problem, seed, 2)
    result = branch_and_bound(ChannelProblem.orthogonal(problem, basis, 1e-3, ridge),
                              bound="none")
    expected = _brute_force(problem, _value_of(problem, Q, 1e-3, ridge, objective), 2)
    return np.isclose(result.value, expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("mutant", ["ridge dropped", "ridge outside the root"])
def test_a_mutated_reference_fails_the_brute_force_comparison(mutant):
    """The comparison has power: a reference that drops the ridge, or adds
    it outside the square root, disagrees with the search on most of 30
    problems, while the right one agrees on all."""
    def mutated(g, s, Q, q, epsilon, ridge):
        if mutant == "ridge dropped":
            return ridge_objective(g, s, Q, q, epsilon, 0.0)
        return _outside_root(g, s, Q, q, epsilon, ridge)

    agree = [_brute_force_agrees(_small_problem(seed), seed, 2.0, ridge_objective)
             for seed in range(30)]
    disagree = [not _brute_force_agrees(_small_problem(seed), seed, 2.0, mutated)
                for seed in range(30)]
    assert all(agree)
    assert sum(disagree) >= 15


def _outside_root(g, s, Q, q, epsilon, ridge):
    # |g_perp^T q| / (||q_perp|| + ridge + epsilon): the ridge in the wrong place.
    numerator = ridge_objective(g, s, Q, q, 0.0, 0.0)  # |g_perp^T q| / ||q_perp||
    S = np.diag(s)
    coef = np.linalg.lstsq(Q.T @ S @ Q, Q.T @ S @ q, rcond=None)[0]
    q_perp = q - Q @ coef
    norm = np.sqrt(float(q_perp @ S @ q_perp))
    return numerator * norm / (norm + ridge + epsilon)


# -- the derivation: the regularised step's risk reduction -----------------------
@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.integers(0, 4), reg_lambda=st.sampled_from(
    [0.1, 1.0, 10.0]), weighted=st.booleans())
def test_squared_loss_objective_is_the_regularised_steps_risk_reduction(seed, t, reg_lambda,
                                                                        weighted):
    """For the squared loss (``h = 2 s``, so ``ridge = reg_lambda / 2``), the
    risk ``sum s (y - f)^2 + reg_lambda / 2 beta^2`` after adding ``q`` with
    weight ``beta`` and re-fitting the earlier weights (unpenalised) drops
    by exactly ``obj^2 / (2 kappa)``, ``kappa = 2``, for ``epsilon = 0``."""
    rng = np.random.default_rng(seed)
    n = 20
    s = rng.uniform(0.3, 2.0, n) if weighted else np.ones(n)
    y, f = rng.normal(size=n), rng.normal(size=n)
    Q = [np.ones(n)] + [(rng.random(n) < 0.5).astype(float) for _ in range(t)]
    basis = OrthogonalBasis(s, t)
    for q in Q[1:]:
        basis.add(q)
    O = np.column_stack(Q)
    q = (rng.random(n) < 0.4).astype(float)
    if s @ q == 0:
        q[0] = 1.0
    g, h = -2.0 * (y - f) * s, 2.0 * s
    ridge = ridge_term(reg_lambda, h, s)
    assert ridge == pytest.approx(reg_lambda / 2)
    G = float(basis.project(g) @ q)
    q_perp = q - basis.O @ (basis.O.T @ (s * q))
    obj = abs(G) / np.sqrt(float(s @ q_perp**2) + ridge)

    def refit(A, penalty):
        # min over w of sum s (r - A w)^2 + penalty/2 * w_last^2, r = y - f.
        P = np.zeros((A.shape[1], A.shape[1]))
        P[-1, -1] = penalty / 2
        w = np.linalg.solve(A.T @ (s[:, None] * A) + P, A.T @ (s * (y - f)))
        return float(s @ (y - f - A @ w) ** 2 + penalty / 2 * w[-1] ** 2)

    before = refit(O, 0.0)
    after = refit(np.column_stack([O, q]), reg_lambda)
    if float(s @ q_perp**2) <= kernels.REDUNDANT * float(s @ q):
        return
    assert before - after == pytest.approx(obj**2 / 4, rel=1e-8, abs=1e-10)


# -- the learner ----------------------------------------------------------------
def test_ridge_option_is_validated_and_defaults_to_the_regularised_step():
    assert OrthogonalLearner().ridge == "reg_lambda"  # since session 23
    assert set(RIDGES) == {"none", "reg_lambda"}
    with pytest.raises(ValueError, match="ridge='ridge'"):
        OrthogonalLearner(ridge="ridge")


def test_files_written_before_the_ridge_load_with_eq_14():
    """A model file without the option (sessions before 23) loads with
    ``ridge="none"``, what its learner did; a file that names it keeps it."""
    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=2, verbose=0, max_bins=16,
                                   learner=OrthogonalLearner(strategy="greedy")).fit(X, y)
    data = json.loads(model.to_json())
    assert data["params"]["learner"]["options"].pop("ridge") == "reg_lambda"
    assert load_model(json.dumps(data)).learner.ridge == "none"
    assert load_model(model.to_json()).learner.ridge == "reg_lambda"


def test_the_papers_tables_keep_the_papers_objective():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import reproduce_tables

    learner = reproduce_tables.orthogonal_learner(None, None, {})
    assert (learner.ridge, learner.length_penalty) == ("none", "none")
    assert reproduce_tables.orthogonal_learner(None, None, {"ridge": "reg_lambda"}).ridge \
        == "reg_lambda"


@pytest.mark.parametrize("strategy", ["greedy", "beam", "branch_and_bound"])
def test_no_reg_lambda_makes_the_ridge_the_papers_objective(strategy):
    X, y = load_used_cars()
    models = [RuleBoostingRegressor(n_rules=6, verbose=0, reg_lambda=0.0, learner=OrthogonalLearner(
        strategy=strategy, ridge=ridge)).fit(X, y) for ridge in RIDGES]
    assert str(models[0].ensemble_) == str(models[1].ensemble_)


@pytest.mark.parametrize("strategy", ["greedy", "branch_and_bound"])
def test_the_ridge_gives_rules_no_smaller_on_average(strategy):
    # The ridge lowers a query's value by more the smaller ||q_perp|| is.
    X, y = load_titanic()
    coverage = {}
    for ridge in RIDGES:
        model = RuleBoostingClassifier(
            n_rules=10, verbose=0, reg_lambda=5.0, max_rule_length=None,
            learner=OrthogonalLearner(strategy=strategy, ridge=ridge)).fit(X, y)
        coverage[ridge] = model.history_["coverage"].iloc[1:].min()
    assert coverage["reg_lambda"] >= coverage["none"]


def test_several_outputs_take_the_ridge():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    Y = (X[:, :2] + X[:, 2:] * X[:, :2] + 0.5 * rng.normal(size=(200, 2)) > 0).astype(int)
    for strategy in ("greedy", "branch_and_bound"):
        model = RuleBoostingClassifier(n_rules=5, verbose=0, learner=OrthogonalLearner(
            strategy=strategy, ridge="reg_lambda")).fit(X, Y)
        assert len(model.ensemble_) >= 2
