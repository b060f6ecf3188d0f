"""Losses: derivatives, numerical safety, baselines and Newton rule weights.

Conventions (Boley et al. 2021, Sec. 2.3): squared loss ``(y - f)^2``,
logistic loss ``log(1 + exp(-y f))`` with ``y`` in {-1, +1}, Poisson loss
``y log y - y f - y + exp(f)``. Derivatives are checked against central
finite differences of the documented loss, and minimisers against
``scipy.optimize.minimize_scalar``.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.special import expit

from rulebook.losses import (
    LOSSES,
    LogisticLoss,
    PoissonLoss,
    SquaredLoss,
    get_loss,
    newton_rule_weight,
)

NAMES = ("squared", "logistic", "poisson")

finite = dict(allow_nan=False, allow_infinity=False, allow_subnormal=False)


def targets(name, counts_only=False):
    """Strategy for one target value valid for loss ``name``."""
    if name == "squared":
        return st.floats(-10, 10, **finite)
    if name == "logistic":
        return st.sampled_from([-1.0, 1.0])
    counts = st.integers(0, 10).map(float)
    # Counts, plus non-integer rates (which may be tiny).
    return counts if counts_only else st.one_of(counts, st.floats(0, 10, **finite))


weights = st.sampled_from([0.0, 0.5, 1.0, 1.0, 2.0, 3.7])


@st.composite
def problems(draw, name, max_size=8, raw_bound=4.0, counts_only=False):
    """(y, raw, sample_weight) with a positive total weight."""
    m = draw(st.integers(1, max_size))
    y = np.array(draw(st.lists(targets(name, counts_only), min_size=m, max_size=m)))
    raw = np.array(draw(st.lists(st.floats(-raw_bound, raw_bound, **finite), min_size=m, max_size=m)))
    s = np.array(draw(st.lists(weights, min_size=m, max_size=m)))
    if s.sum() == 0:
        s[draw(st.integers(0, m - 1))] = 1.0
    return y, raw, s


def unit_loss(loss, y, f):
    """l(y, f) for one row, through the public weighted-mean API."""
    return loss.loss(np.array([y]), np.array([f]), np.ones(1))


def documented_loss(name, y, f):
    """The loss formulas as documented, in plain Python."""
    if name == "squared":
        return (y - f) ** 2
    if name == "logistic":
        return math.log1p(math.exp(-y * f))
    return (y * math.log(y) if y > 0 else 0.0) - y * f - y + math.exp(f)


# -- basics -------------------------------------------------------------------


def test_registry():
    # NAMES: the single-output losses these tests cover; the multinomial
    # loss is tested in test_multiclass.py.
    assert set(LOSSES) == {*NAMES, "multinomial"}
    assert isinstance(get_loss("squared"), SquaredLoss)
    assert isinstance(get_loss("logistic"), LogisticLoss)
    assert isinstance(get_loss("poisson"), PoissonLoss)
    for name in NAMES:
        assert get_loss(name).name == name


@pytest.mark.parametrize("name", ["nope", "", "Squared", None, ["squared"]])
def test_get_loss_unknown_name_lists_valid_names(name):
    with pytest.raises(ValueError) as info:
        get_loss(name)
    for valid in NAMES:
        assert valid in str(info.value)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_loss_is_the_documented_formula(name, data):
    y = data.draw(targets(name))
    f = data.draw(st.floats(-5, 5, **finite))
    np.testing.assert_allclose(
        unit_loss(get_loss(name), y, f), documented_loss(name, y, f), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_loss_is_the_weighted_mean(name, data):
    loss = get_loss(name)
    y, raw, s = data.draw(problems(name))
    per_row = np.array([unit_loss(loss, y[i], raw[i]) for i in range(len(y))])
    np.testing.assert_allclose(loss.loss(y, raw, s), np.sum(s * per_row) / s.sum(), rtol=1e-12, atol=1e-14)


# -- derivatives ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_gradient_hessian_equal_finite_differences(name, data):
    # d/d raw_i of  loss(y, raw, s) * sum(s)  =  g_i, second derivative = h_i.
    loss = get_loss(name)
    y, raw, s = data.draw(problems(name))
    g, h = loss.gradient_hessian(y, raw, s)

    def total(r):
        return loss.loss(y, r, s) * s.sum()

    for i in range(len(y)):
        e = np.zeros(len(y))
        e[i] = 1.0
        scale = 1.0 + abs(total(raw))
        eps = 1e-5
        g_fd = (total(raw + eps * e) - total(raw - eps * e)) / (2 * eps)
        assert abs(g[i] - g_fd) <= 1e-6 * scale, (i, g[i], g_fd)
        eps = 1e-3
        h_fd = (total(raw + eps * e) - 2 * total(raw) + total(raw - eps * e)) / eps**2
        assert abs(h[i] - h_fd) <= 1e-5 * scale, (i, h[i], h_fd)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_unit_derivatives_by_one_hot_weights(name, data):
    # With a one-hot sample weight the weighted loss is the single row's loss.
    loss = get_loss(name)
    y, raw, _ = data.draw(problems(name))
    for i in range(len(y)):
        one_hot = np.zeros(len(y))
        one_hot[i] = 1.0
        g, h = loss.gradient_hessian(y, raw, one_hot)
        assert np.all(g[np.arange(len(y)) != i] == 0) and np.all(h[np.arange(len(y)) != i] == 0)

        def f(r):
            return loss.loss(y, raw + r * one_hot, one_hot)

        eps = 1e-5
        np.testing.assert_allclose(g[i], (f(eps) - f(-eps)) / (2 * eps), rtol=1e-6, atol=1e-7)
        eps = 1e-3
        np.testing.assert_allclose(h[i], (f(eps) - 2 * f(0.0) + f(-eps)) / eps**2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_gradient_hessian_are_multiplied_by_the_sample_weight(name, data):
    loss = get_loss(name)
    y, raw, s = data.draw(problems(name))
    g1, h1 = loss.gradient_hessian(y, raw, np.ones(len(y)))
    g, h = loss.gradient_hessian(y, raw, s)
    np.testing.assert_allclose(g, s * g1, rtol=1e-15, atol=0)
    np.testing.assert_allclose(h, s * h1, rtol=1e-15, atol=0)
    assert np.all(h >= 0)


# -- numerical safety -----------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("raw_value", [-1e4, -750.0, -40.0, 0.0, 40.0, 710.0, 1e4])
def test_extreme_raw_scores_are_finite_without_warnings(name, raw_value):
    loss = get_loss(name)
    y = {"squared": [-2.0, 0.0, 3.0], "logistic": [-1.0, 1.0, 1.0], "poisson": [0.0, 1.0, 7.0]}[name]
    y = np.array(y)
    raw = np.full(3, raw_value)
    s = np.array([1.0, 0.5, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = loss.loss(y, raw, s)
        g, h = loss.gradient_hessian(y, raw, s)
        mean = loss.inverse_link(raw)
    assert np.isfinite(value)
    assert np.all(np.isfinite(g)) and np.all(np.isfinite(h)) and np.all(np.isfinite(mean))
    assert value >= 0


def test_logistic_extremes_are_accurate():
    # log(1 + exp(-y f)) ~ |f| when wrong by a lot, ~ exp(-|f|) when right.
    loss = get_loss("logistic")
    np.testing.assert_allclose(unit_loss(loss, -1.0, 1e4), 1e4, rtol=1e-15)
    np.testing.assert_allclose(unit_loss(loss, 1.0, 40.0), math.exp(-40.0), rtol=1e-12)
    g, h = loss.gradient_hessian(np.array([1.0, -1.0]), np.array([40.0, 40.0]), np.ones(2))
    # The gradient of a confident right answer is tiny but not lost to 1 - 1.
    np.testing.assert_allclose(g, [-math.exp(-40.0), 1.0], rtol=1e-12)


def test_logistic_hessian_of_confident_rows_is_not_lost_to_cancellation():
    # h = sigma(y f) sigma(-y f) (Sec. 2.3) is symmetric in y f: a row that is
    # confidently wrong has the same small positive curvature as one that is
    # confidently right. Computed as p (1 - p) with p = sigma(40) = 1.0 in
    # float64 it would be exactly 0.
    loss = get_loss("logistic")
    _, h = loss.gradient_hessian(np.array([1.0, -1.0]), np.array([40.0, 40.0]), np.ones(2))
    np.testing.assert_allclose(h, [math.exp(-40.0), math.exp(-40.0)], rtol=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.floats(1e-3, 1e3, **finite))
def test_poisson_loss_is_zero_at_the_log_of_the_target(y):
    loss = get_loss("poisson")
    value = unit_loss(loss, y, math.log(y))
    assert abs(value) <= 1e-12 * (1.0 + y * abs(math.log(y)))
    # ... and that is its minimum (half the unit deviance is >= 0).
    for delta in (-0.1, 0.1):
        assert unit_loss(loss, y, math.log(y) + delta) > 0


def test_poisson_loss_at_zero_target():
    loss = get_loss("poisson")
    np.testing.assert_allclose(unit_loss(loss, 0.0, 0.3), math.exp(0.3), rtol=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_inverse_links(name):
    raw = np.array([-3.0, -0.5, 0.0, 0.25, 2.0])
    expected = {"squared": raw, "logistic": expit(raw), "poisson": np.exp(raw)}[name]
    out = get_loss(name).inverse_link(raw)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, expected, rtol=1e-15)


# -- baseline (intercept) -------------------------------------------------------


def _risk_minimiser(loss, y, s):
    result = minimize_scalar(lambda c: loss.loss(y, np.full(len(y), c), s), bracket=(-1.0, 1.0), tol=1e-12)
    return result.x


def _has_finite_minimiser(name, y, s):
    if name == "logistic":
        return (s[y > 0].sum() > 0) and (s[y < 0].sum() > 0)
    if name == "poisson":
        return (s * y).sum() > 0
    return True


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_baseline_minimises_weighted_risk(name, data):
    loss = get_loss(name)
    # Integer counts for Poisson: the baseline is documented to clip weighted
    # means below 1e-12 (log mean -27.6), so a tiny non-integer rate would
    # test the clipping, not the minimiser.
    y, _, s = data.draw(problems(name, counts_only=True))
    assume(_has_finite_minimiser(name, y, s))
    b = loss.baseline(y, s)
    assert isinstance(b, float)
    c = _risk_minimiser(loss, y, s)
    assert abs(b - c) <= 1e-6 * max(1.0, abs(c)), (b, c)

    def risk(v):
        return loss.loss(y, np.full(len(y), v), s)

    assert risk(b) <= risk(c) + 1e-12 * max(1.0, abs(risk(c)))
    # First-order condition: the weighted gradient sum vanishes at b.
    g, h = loss.gradient_hessian(y, np.full(len(y), b), s)
    assert abs(g.sum()) <= 1e-9 * max(1.0, np.abs(g).sum())


@pytest.mark.parametrize("positive", [True, False])
def test_logistic_baseline_finite_when_one_class_has_all_the_weight(positive):
    loss = get_loss("logistic")
    y = np.array([1.0, 1.0, -1.0]) if positive else np.array([-1.0, -1.0, 1.0])
    s = np.array([1.0, 2.0, 0.0])  # the other class is present, with zero weight
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = loss.baseline(y, s)
        b_single = loss.baseline(y[:2], s[:2])  # the other class absent
    for value in (b, b_single):
        assert math.isfinite(value)
        assert (value > 20) if positive else (value < -20)


def test_poisson_baseline_finite_for_all_zero_targets():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = get_loss("poisson").baseline(np.zeros(4), np.ones(4))
    assert math.isfinite(b) and b < -20


# -- Newton rule weights --------------------------------------------------------


def _regularised(loss, y, raw, s, reg_lambda):
    def objective(w):
        return loss.loss(y, raw + w, s) * s.sum() + 0.5 * reg_lambda * w * w

    return objective


def _reference_weight(loss, y, raw, s, reg_lambda):
    objective = _regularised(loss, y, raw, s, reg_lambda)
    return minimize_scalar(objective, bracket=(-1.0, 1.0), tol=1e-12).x


def _check_newton(loss, y, raw, s, reg_lambda):
    w = newton_rule_weight(loss, y, raw, s, reg_lambda)
    assert isinstance(w, float)
    expected = _reference_weight(loss, y, raw, s, reg_lambda)
    objective = _regularised(loss, y, raw, s, reg_lambda)
    assert objective(w) <= objective(expected) + 1e-12 * max(1.0, abs(objective(expected)))
    assert abs(w - expected) <= 1e-6 * max(1.0, abs(expected)), (w, expected)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_newton_rule_weight_minimises_regularised_loss(name, data):
    loss = get_loss(name)
    # Integer counts for Poisson: gradient sums of order one. Tiny gradient
    # sums are the subject of the scale-invariance test below.
    y, raw, s = data.draw(problems(name, raw_bound=3.0, counts_only=True))
    reg_lambda = data.draw(st.sampled_from([0.0, 0.0, 0.1, 1.0, 10.0]))
    # Without regularisation the minimiser must exist (non-vanishing Hessian
    # and both directions of the loss bounded).
    assume(reg_lambda > 0 or _has_finite_minimiser(name, y, s))
    _check_newton(loss, y, raw, s, reg_lambda)


def test_newton_squared_loss_closed_form():
    # sum s (y - raw - w)^2 + lambda/2 w^2  ->  w = 2 sum s r / (2 sum s + lambda).
    y, raw, s = np.array([1.0, 4.0, -2.0]), np.array([0.5, 1.0, 0.0]), np.array([1.0, 2.0, 0.5])
    for reg_lambda in (0.0, 1.0, 7.5):
        expected = 2 * np.sum(s * (y - raw)) / (2 * s.sum() + reg_lambda)
        np.testing.assert_allclose(newton_rule_weight(get_loss("squared"), y, raw, s, reg_lambda), expected,
                                   rtol=1e-10)


# Minimisers far from the starting point w = 0, reached by the boosting loop
# when an earlier rule got a large weight. reg_lambda = 0, non-vanishing
# Hessian, so the minimiser exists and is unique.
@pytest.mark.parametrize(
    "name, y, raw, expected",
    [
        # 9 positives, 1 negative, all scored -10: w* = 10 + log 9.
        ("logistic", [1.0] * 9 + [-1.0], [-10.0] * 10, 10.0 + math.log(9.0)),
        ("logistic", [1.0] * 5 + [-1.0], [-12.0] * 6, 12.0 + math.log(5.0)),
        # One count of 1 predicted with log-mean 60: w* = -60.
        ("poisson", [1.0], [60.0], -60.0),
    ],
)
def test_newton_rule_weight_far_minimiser(name, y, raw, expected):
    loss = get_loss(name)
    y, raw = np.array(y), np.array(raw)
    s = np.ones(len(y))
    w = newton_rule_weight(loss, y, raw, s, 0.0)
    assert abs(w - expected) <= 1e-6 * max(1.0, abs(expected)), (w, expected)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [1e-3, 1e-6, 1e-9])
def test_newton_rule_weight_invariant_to_scaling_the_weights(name, scale):
    # Scaling every sample weight and reg_lambda by the same factor scales the
    # objective and leaves its minimiser unchanged (e.g. weights normalised to
    # sum to one).
    loss = get_loss(name)
    y = {"squared": [1.0, -1.0, 1.0], "logistic": [1.0, -1.0, 1.0], "poisson": [1.0, 3.0, 0.0]}[name]
    y, raw, s = np.array(y), np.array([2.0, 0.5, 1.0]), np.ones(3)
    for reg_lambda in (0.0, 1.0):
        expected = newton_rule_weight(loss, y, raw, s, reg_lambda)
        _check_newton(loss, y, raw, s, reg_lambda)
        scaled = newton_rule_weight(loss, y, raw, scale * s, scale * reg_lambda)
        assert abs(scaled - expected) <= 1e-6 * max(1.0, abs(expected)), (reg_lambda, scaled, expected)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.integers(0, 2**32 - 1))
def test_weighted_mean_is_numpys_average_bit_for_bit(n, seed):
    """The fast weighted mean does np.average's arithmetic: the same bits."""
    from rulebook.losses import _weighted_mean

    rng = np.random.default_rng(seed)
    values = rng.normal(size=n) * 10.0 ** rng.integers(-5, 6)
    weights = rng.random(n) * (rng.random(n) < 0.8)
    if weights.sum() == 0:
        with pytest.raises(ZeroDivisionError):
            _weighted_mean(values, weights)
        return
    assert _weighted_mean(values, weights) == float(np.average(values, weights=weights))
    # Unweighted (None), and weights of another dtype, as np.average takes them.
    assert _weighted_mean(values, None) == float(np.average(values))
    counts = rng.integers(1, 4, n)
    assert _weighted_mean(values, counts) == float(np.average(values, weights=counts))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 300), st.integers(2, 8), st.sampled_from(["squared", "logistic", "poisson"]),
       st.integers(0, 2**32 - 1), st.booleans())
def test_output_wise_loss_is_the_sum_of_its_outputs_to_the_bit(n, K, name, seed, zeros):
    """One pass over the (n, K) arrays: the same float as each output's
    loss on its own column, summed (the boosting history's train_loss)."""
    from rulebook.losses import OutputWiseLoss

    rng = np.random.default_rng(seed)
    output = get_loss(name)
    y = (rng.choice([-1.0, 1.0], (n, K)) if name == "logistic"
         else rng.poisson(2.0, (n, K)).astype(np.float64))
    raw = rng.normal(scale=3.0, size=(n, K))
    w = rng.random(n) * (rng.random(n) < 0.7 if zeros else 1.0)
    w[0] += 1.0
    expected = float(sum(output.loss(y[:, k], raw[:, k], w) for k in range(K)))
    assert OutputWiseLoss(output).loss(y, raw, w) == expected
    np.testing.assert_array_equal(output.pointwise(y[:, 0], raw[:, 0]),
                                  output.pointwise(y, raw)[:, 0])
