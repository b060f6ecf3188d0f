"""The corrective weight re-fit against scipy.optimize.minimize."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from rulebook.corrective import corrective_weights, regularised_risk
from rulebook.losses import get_loss


def _random_problem(seed, loss_name, n=60, t=4):
    rng = np.random.default_rng(seed)
    Q = (rng.random((n, t)) < 0.4).astype(float)
    s = rng.choice([0.0, 1.0, 1.0, 2.0], size=n)
    s[:2] = 1.0
    if loss_name == "squared":
        y = rng.normal(size=n) * 3 + Q @ rng.normal(size=t)
    elif loss_name == "logistic":
        y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    else:
        y = rng.poisson(np.exp(0.5 + Q @ rng.normal(scale=0.5, size=t))).astype(float)
    return y, Q, s


def _scipy(loss, y, Q, s, reg_lambda):
    n, t = Q.shape
    A = np.hstack([np.ones((n, 1)), Q])
    penalty = np.r_[0.0, np.full(t, reg_lambda)]

    def fun(theta):
        return regularised_risk(loss, y, Q, s, reg_lambda, theta[0], theta[1:])

    def jac(theta):
        g, _ = loss.gradient_hessian(y, A @ theta, s)
        return A.T @ g + penalty * theta

    def hess(theta):
        _, h = loss.gradient_hessian(y, A @ theta, s)
        return A.T @ (h[:, None] * A) + np.diag(penalty)

    x = np.r_[loss.baseline(y, s), np.zeros(t)]
    # Newton-CG, polished by trust-exact: alone, each stops at gradients
    # ~1e-7 on some of these problems, too early for a 1e-8 comparison.
    for method, options in (("Newton-CG", {"xtol": 1e-15}), ("trust-exact", {"gtol": 1e-12})):
        x = minimize(fun, x, jac=jac, hess=hess, method=method, options=options).x
    # F is strongly convex: |x - x*| <= |grad F(x)| / mu, mu the smallest
    # Hessian eigenvalue, so SciPy's own residual bounds its distance to x*.
    slack = np.linalg.norm(jac(x)) / np.linalg.eigvalsh(hess(x))[0]
    return x, slack, jac


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), loss_name=st.sampled_from(["squared", "logistic", "poisson"]),
       reg_lambda=st.sampled_from([0.1, 1.0, 10.0]), t=st.integers(0, 5))
def test_corrective_equals_scipy(seed, loss_name, reg_lambda, t):
    loss = get_loss(loss_name)
    y, Q, s = _random_problem(seed, loss_name, t=t)
    fit = corrective_weights(loss, y, Q, s, reg_lambda)
    expected, slack, jac = _scipy(loss, y, Q, s, reg_lambda)
    assert fit.converged
    theta = np.r_[fit.intercept, fit.weights]
    np.testing.assert_allclose(theta, expected, rtol=0, atol=1e-8 + slack)
    # And our solution is the more accurate one: stationary to rounding.
    assert np.abs(jac(theta)).max() <= 1e-9 * max(1.0, s.sum())


def test_squared_loss_without_penalty_is_least_squares():
    y, Q, s = _random_problem(3, "squared", n=80, t=5)
    fit = corrective_weights(get_loss("squared"), y, Q, s, 0.0)
    A = np.hstack([np.ones((len(y), 1)), Q]) * np.sqrt(s)[:, None]
    expected = np.linalg.lstsq(A, y * np.sqrt(s), rcond=None)[0]
    np.testing.assert_allclose(np.r_[fit.intercept, fit.weights], expected, atol=1e-9)
    # Proposition 4 of Yang et al.: the gradient is orthogonal to every query.
    g, _ = get_loss("squared").gradient_hessian(y, fit.intercept + Q @ fit.weights, s)
    np.testing.assert_allclose(Q.T @ g, 0.0, atol=1e-8)
    assert abs(g.sum()) < 1e-8


@pytest.mark.parametrize("loss_name", ["squared", "logistic", "poisson"])
def test_warm_start_reaches_the_same_optimum_in_fewer_iterations(loss_name):
    loss = get_loss(loss_name)
    y, Q, s = _random_problem(11, loss_name, n=200, t=6)
    previous = corrective_weights(loss, y, Q[:, :5], s, 1.0)
    cold = corrective_weights(loss, y, Q, s, 1.0)
    warm = corrective_weights(loss, y, Q, s, 1.0,
                              start=(previous.intercept, np.r_[previous.weights, 0.0]))
    np.testing.assert_allclose(warm.weights, cold.weights, atol=1e-9)
    assert warm.n_iter <= cold.n_iter


def test_collinear_queries_without_penalty_still_minimise():
    """Two rules partitioning the data are collinear with the intercept; the
    Hessian is singular, yet the risk must reach the least-squares optimum."""
    rng = np.random.default_rng(0)
    q = (rng.random(30) < 0.5).astype(float)
    Q = np.column_stack([q, 1 - q])
    y = rng.normal(size=30) + 2 * q
    s = np.ones(30)
    fit = corrective_weights(get_loss("squared"), y, Q, s, 0.0)
    raw = fit.intercept + Q @ fit.weights
    expected = np.where(q > 0, y[q > 0].mean(), y[q == 0].mean())
    np.testing.assert_allclose(raw, expected, atol=1e-9)


def test_separable_logistic_without_penalty_warns():
    y = np.array([1.0, 1.0, -1.0, -1.0])
    Q = np.array([[1.0], [1.0], [0.0], [0.0]])
    with pytest.warns(UserWarning, match="did not converge"):
        fit = corrective_weights(get_loss("logistic"), y, Q, np.ones(4), 0.0, max_iter=20)
    assert not fit.converged


def test_fit_never_increases_the_risk_from_the_start():
    loss = get_loss("poisson")
    y, Q, s = _random_problem(5, "poisson", n=100, t=4)
    start = (0.3, np.array([0.5, -0.2, 0.1, 0.0]))
    fit = corrective_weights(loss, y, Q, s, 0.5, start=start)
    assert fit.objective <= regularised_risk(loss, y, Q, s, 0.5, start[0], start[1])


def test_bad_inputs_raise():
    loss = get_loss("squared")
    with pytest.raises(ValueError, match="reg_lambda"):
        corrective_weights(loss, np.zeros(3), np.zeros((3, 1)), np.ones(3), -1.0)
    with pytest.raises(ValueError, match="start weights"):
        corrective_weights(loss, np.zeros(3), np.zeros((3, 1)), np.ones(3), 1.0,
                           start=(0.0, np.zeros(2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        corrective_weights(loss, np.zeros(3), np.zeros((3, 0)), np.ones(3), 1.0)


@pytest.mark.parametrize("learner", ["greedy", "optimal"])
@pytest.mark.parametrize("reg_lambda", [0.0, 7.5])
def test_stagewise_rule_weight_is_the_regularised_newton_step(learner, reg_lambda):
    # Squared loss (y - f)^2, one rule: the intercept is the mean,
    # g = 2 (b - y) and h = 2, so the rule's weight is -G / (lambda + H) over
    # its extent (Boley et al. 2021, eq. 2.2) - with the user's lambda.
    from rulebook import RuleBoostingRegressor

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.integers(0, 4, 60)})
    y = 2.0 * (X["a"] > 0.3) + rng.normal(scale=0.1, size=60)
    model = RuleBoostingRegressor(n_rules=1, learner=learner, loss="squared",
                                  reg_lambda=reg_lambda).fit(X, y)
    (rule,) = model.ensemble_.rules
    extent = np.asarray(rule.query.evaluate(X), dtype=bool)
    G = np.sum(2.0 * (model.ensemble_.intercept - y[extent]))
    assert rule.weight == pytest.approx(-G / (reg_lambda + 2.0 * extent.sum()), rel=1e-9)
    assert model.ensemble_.intercept == pytest.approx(y.mean(), rel=1e-12)


# -- the damped Newton method's pieces, against their definitions -----------------
from rulebook import corrective as corrective_module  # noqa: E402


def test_line_search_halves_the_step_until_armijo_holds():
    # F(theta) = theta^2 from 1 with the overshooting step -3 (to -2, F = 4)
    # and decrement -F'(1) step = 6: the half step (to -0.5, F = 0.25) is the
    # first that decreases F enough, on the step's side of theta.
    def objective(theta):
        return float(theta[0] ** 2)

    theta, step = np.array([1.0]), np.array([-3.0])
    candidate, value = corrective_module._line_search(objective, theta, 1.0, step, 6.0)
    np.testing.assert_array_equal(candidate, [-0.5])
    assert value == 0.25


def test_line_search_accepts_armijo_with_equality():
    # Armijo's condition is F(theta + a step) <= F(theta) - c a decrement: a
    # step meeting it exactly is taken at once, not shortened.
    decrement = 2.0
    target = 5.0 - corrective_module._ARMIJO * decrement

    def objective(theta):
        return target if theta[0] == 1.0 else 100.0

    candidate, value = corrective_module._line_search(objective, np.array([0.0]), 5.0,
                                                      np.array([1.0]), decrement)
    np.testing.assert_array_equal(candidate, [1.0])
    assert value == target


def test_a_fit_whose_line_search_fails_returns_every_weight(monkeypatch):
    # When no step decreases F the current point is the answer: intercept and
    # all t weights, not fewer.
    monkeypatch.setattr(corrective_module, "_line_search", lambda *args: (None, None))
    rng = np.random.default_rng(0)
    Q = (rng.uniform(size=(60, 3)) < 0.5).astype(float)
    y = rng.integers(0, 2, size=60) * 2.0 - 1.0
    fit = corrective_weights(get_loss("logistic"), y, Q, np.ones(60), 1.0,
                             start=(0.3, np.array([0.1, -0.2, 0.4])))
    assert fit.intercept == 0.3
    np.testing.assert_array_equal(fit.weights, [0.1, -0.2, 0.4])
    assert fit.n_iter == 1


def test_without_intercept_only_the_weights_are_fitted():
    """``fit_intercept=False`` (the orthogonal learner's re-fit on a basis
    holding the intercept): the intercept stays 0 and the weights are the
    weighted least-squares fit of ``Q w = y``."""
    y, Q, s = _random_problem(3, "squared", n=80, t=4)
    fit = corrective_weights(get_loss("squared"), y, Q, s, 0.0, fit_intercept=False)
    assert fit.converged and fit.intercept == 0.0
    expected = np.linalg.lstsq(Q * np.sqrt(s)[:, None], y * np.sqrt(s), rcond=None)[0]
    np.testing.assert_allclose(fit.weights, expected, atol=1e-9)


def test_identical_queries_without_penalty_take_the_least_squares_step(monkeypatch):
    """Two rules of the same extent make the Hessian exactly singular, so
    that it has no Cholesky factor: the minimum-norm least-squares Newton
    step still reaches the optimum, the two weights equal."""
    calls = []
    lstsq = np.linalg.lstsq
    monkeypatch.setattr(np.linalg, "lstsq", lambda *args, **kwargs: (calls.append(1),
                                                                     lstsq(*args, **kwargs))[1])
    rng = np.random.default_rng(0)
    q = (rng.random(30) < 0.5).astype(float)
    y = rng.normal(size=30) + 2 * q
    fit = corrective_weights(get_loss("squared"), y, np.column_stack([q, q]), np.ones(30), 0.0)
    assert calls and fit.converged
    expected = np.where(q > 0, y[q > 0].mean(), y[q == 0].mean())
    np.testing.assert_allclose(fit.intercept + fit.weights.sum() * q, expected, atol=1e-9)
    assert fit.weights[0] == pytest.approx(fit.weights[1], abs=1e-12)


@pytest.mark.parametrize("name", ["squared", "logistic", "poisson"])
@pytest.mark.parametrize("weighted", [False, True])
def test_grouped_rows_give_the_rows_fit(name, weighted):
    """From 4,096 rows, rows of one rule pattern (and label, for the
    logistic loss) are fitted as one group: the same intercept, weights and
    objective as the fit on the rows, to rounding."""
    rng = np.random.default_rng(3)
    n, t = 6000, 4
    Q = (rng.random((n, t)) < [0.5, 0.3, 0.6, 0.1]).astype(float)
    raw = 0.3 + Q @ np.array([0.5, -1.0, 0.25, 2.0])
    loss = get_loss(name)
    if name == "logistic":
        y = np.where(rng.random(n) < 1 / (1 + np.exp(-raw)), 1.0, -1.0)
    elif name == "poisson":
        y = rng.poisson(np.exp(raw)).astype(float)
    else:
        y = raw + rng.normal(size=n)
    s = rng.choice([0.0, 0.5, 1.0, 2.0], size=n) if weighted else np.ones(n)
    assert corrective_module._groups(loss, y, Q, s) is not None
    grouped = corrective_weights(loss, y, Q, s, 1.0)
    # Linear terms (a column not 0/1) are fitted on the rows.
    Q_linear = np.column_stack([Q, rng.normal(size=n) * 1e-300])
    assert corrective_module._groups(loss, y, Q_linear, s) is None
    rows = _fit_on_rows(loss, y, Q, s, 1.0)
    assert grouped.intercept == pytest.approx(rows.intercept, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(grouped.weights, rows.weights, rtol=1e-9, atol=1e-9)
    assert grouped.objective == pytest.approx(rows.objective, rel=1e-12)
    assert grouped.objective == pytest.approx(
        regularised_risk(loss, y, Q, s, 1.0, grouped.intercept, grouped.weights), rel=1e-12)


def _fit_on_rows(loss, y, Q, s, reg_lambda):
    # The fit with grouping switched off.
    original = corrective_module._groups
    corrective_module._groups = lambda *args: None
    try:
        return corrective_weights(loss, y, Q, s, reg_lambda)
    finally:
        corrective_module._groups = original
