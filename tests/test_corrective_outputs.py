"""The corrective re-fit of several outputs (rulebook.corrective_outputs).

Checked against its definition: the gradient of F over the free entries of
[b; W] vanishes at the returned weights (computed on the rows, not on the
merged rows the Newton method uses), F is below a SciPy minimisation's
from the same start, entries outside the heads stay 0, and the label-wise
losses give each output's single-output re-fit.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.special import logsumexp, softmax

from rulebook.corrective import corrective_weights
from rulebook.corrective_outputs import corrective_weights_outputs
from rulebook.losses import OutputWiseLoss, get_loss


@st.composite
def cases(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, t, m = draw(st.integers(5, 60)), draw(st.integers(0, 4)), draw(st.integers(2, 4))
    Q = (rng.random((n, t)) < rng.uniform(0.2, 0.8, t)).astype(float)
    s = rng.choice([0.0, 1.0, 1.0, 3.0], n)
    if s.sum() == 0:
        s[0] = 1.0
    heads = np.ones((t, m), bool) if draw(st.booleans()) else np.eye(m, dtype=bool)[
        rng.integers(0, m, t)]
    reg_lambda = draw(st.sampled_from([0.1, 1.0, 10.0]))
    return rng, Q, s, heads, reg_lambda



def classes_on_weighted_rows(rng, s, m):
    """Random classes of the rows, each of the ``m`` on a row of positive
    weight: a class with no weight has no finite minimiser (its intercept
    goes to -inf; hypothesis found one: 3 weighted rows, 3 classes, one
    missing), which the re-fit reports as not converged."""
    weighted = np.flatnonzero(s > 0)
    if len(weighted) < m:
        s[:m] = np.maximum(s[:m], 1.0)
        weighted = np.flatnonzero(s > 0)
    classes = rng.integers(0, m, len(s))
    classes[rng.choice(weighted, m, replace=False)] = np.arange(m)
    return classes

def multinomial_risk(y, Q, s, reg_lambda, b, W):
    raw = b + Q @ W
    return float(s @ (logsumexp(raw, axis=1) - (y * raw).sum(axis=1)) + 0.5 * reg_lambda * (W**2).sum())


def multinomial_gradient(y, Q, s, reg_lambda, b, W):
    r = s[:, None] * (softmax(b + Q @ W, axis=1) - y)
    return r.sum(axis=0), Q.T @ r + reg_lambda * W


@settings(max_examples=100, deadline=None)
@given(cases())
def test_multinomial_refit_is_stationary_and_below_scipys(case):
    rng, Q, s, heads, reg_lambda = case
    m = heads.shape[1]
    y = np.eye(m)[classes_on_weighted_rows(rng, s, m)]
    loss = get_loss("multinomial")
    fit = corrective_weights_outputs(loss, y, Q, heads, s, reg_lambda)
    assert fit.converged
    assert np.all(fit.weights[~heads] == 0.0)
    gb, gW = multinomial_gradient(y, Q, s, reg_lambda, fit.intercept, fit.weights)
    scale = 1.0 + s.sum()
    np.testing.assert_allclose(gb, 0.0, atol=1e-7 * scale)
    np.testing.assert_allclose(gW[heads], 0.0, atol=1e-7 * scale)
    assert fit.objective == pytest.approx(
        multinomial_risk(y, Q, s, reg_lambda, fit.intercept, fit.weights), rel=1e-12, abs=1e-12)
    # The intercepts stay centred (the baseline is): F is flat along b + c 1.
    assert abs(fit.intercept.sum() - loss.baseline(y, s).sum()) < 1e-8
    free = np.vstack([np.ones((1, m), bool), heads])

    def F(theta):
        matrix = np.zeros(free.shape)
        matrix[free] = theta
        return multinomial_risk(y, Q, s, reg_lambda, matrix[0], matrix[1:])

    start = np.zeros(free.shape)
    reference = minimize(F, start[free], method="BFGS", options={"gtol": 1e-10, "maxiter": 5000})
    assert fit.objective <= reference.fun + 1e-9 * (1.0 + abs(reference.fun))


@settings(max_examples=100, deadline=None)
@given(cases(), st.sampled_from(["logistic", "squared", "poisson"]))
def test_label_wise_refit_is_each_outputs_own(case, name):
    rng, Q, s, heads, reg_lambda = case
    n, m = len(s), heads.shape[1]
    if name == "logistic":
        y = rng.choice([-1.0, 1.0], (n, m))
    elif name == "squared":
        y = rng.normal(size=(n, m))
    else:
        y = rng.poisson(2.0, (n, m)).astype(float)
    output_loss = get_loss(name)
    fit = corrective_weights_outputs(OutputWiseLoss(output_loss), y, Q, heads, s, reg_lambda)
    assert np.all(fit.weights[~heads] == 0.0)
    for k in range(m):
        own = corrective_weights(output_loss, y[:, k], Q[:, heads[:, k]], s, reg_lambda)
        assert fit.intercept[k] == pytest.approx(own.intercept, rel=1e-9, abs=1e-9)
        np.testing.assert_allclose(fit.weights[heads[:, k], k], own.weights, rtol=1e-9, atol=1e-9)


def test_shapes_that_disagree_are_refused_naming_them():
    with pytest.raises(ValueError, match="heads"):
        corrective_weights_outputs(get_loss("multinomial"), np.eye(3), np.ones((3, 2)),
                                   np.ones((3, 3), bool), np.ones(3), 1.0)
    with pytest.raises(ValueError, match="reg_lambda"):
        corrective_weights_outputs(get_loss("multinomial"), np.eye(3), np.ones((3, 1)),
                                   np.ones((1, 3), bool), np.ones(3), -1.0)
