"""The stagewise rule weight: the closed form of eq. 2.2 unless it steps past
the minimiser of the extent's regularised loss (``weight_updates._rule_weight``)."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.losses import get_loss
from rulebook.weight_updates import _derivative, _rule_weight, past_minimiser


def _setup(loss_name, y, s, reg_lambda):
    return SimpleNamespace(loss=get_loss(loss_name), y=np.asarray(y, float),
                           sample_weight=np.asarray(s, float), reg_lambda=reg_lambda,
                           objective="second_order")


def _weight(setup, raw):
    rows = np.arange(len(setup.y))
    g, h = setup.loss.gradient_hessian(setup.y, raw, setup.sample_weight)
    return _rule_weight(setup, rows, float(g.sum()), h, raw), g, h


def _regularised_loss(setup, raw, w):
    # By the losses' per-row formulas (Poisson without its constant term).
    f, y, s = raw + w, setup.y, setup.sample_weight
    rows = {"logistic": np.log1p(np.exp(-y * f)), "poisson": np.exp(f) - y * f}[setup.loss.name]
    return float((s * rows).sum()) + 0.5 * setup.reg_lambda * w * w


@pytest.mark.parametrize("loss_name", ["squared", "logistic", "poisson"])
def test_derivative_is_the_regularised_losss(loss_name):
    rng = np.random.default_rng(1)
    s, raw = rng.uniform(0.5, 2.0, size=20), rng.normal(size=20)
    y = {"squared": rng.normal(size=20), "logistic": rng.integers(0, 2, size=20) * 2.0 - 1.0,
         "poisson": rng.poisson(2.0, size=20).astype(float)}[loss_name]
    loss, w, lam, eps = get_loss(loss_name), 0.7, 3.0, 1e-6

    def total(v):
        return loss.loss(y, raw + v, s) * s.sum() + 0.5 * lam * v * v

    expected = (total(w + eps) - total(w - eps)) / (2 * eps)
    assert _derivative(w, loss, y, raw, s, lam) == pytest.approx(expected, rel=1e-6)


def test_past_minimiser_is_a_sign_test():
    assert past_minimiser(2.0, 0.5) and past_minimiser(-2.0, -0.5)
    assert not past_minimiser(2.0, -0.5) and not past_minimiser(-2.0, 0.5)
    assert not past_minimiser(2.0, 0.0) and not past_minimiser(0.0, 3.0)


def test_poisson_rule_over_counts_above_its_prediction_takes_the_minimiser():
    # mu = 5 against counts of 10 on 30 rows: the Newton step is
    # 5 * 30 / (1 + 5 * 30) = 0.993 on the log scale, past the minimiser
    # (about log 2 = 0.69; lambda = 1 pulls it a little towards 0), though
    # it still lowers the extent's loss (5 (e^w - 1) - 10 w < 0 a row).
    setup = _setup("poisson", np.full(30, 10.0), np.ones(30), 1.0)
    raw = np.full(30, np.log(5.0))
    w, g, h = _weight(setup, raw)
    newton = -g.sum() / (1.0 + h.sum())
    assert newton == pytest.approx(150.0 / 151.0)
    assert _regularised_loss(setup, raw, newton) < _regularised_loss(setup, raw, 0.0)
    assert 0.6 < w < np.log(2.0)
    assert _derivative(w, setup.loss, setup.y, raw, setup.sample_weight, 1.0) == pytest.approx(
        0.0, abs=1e-6)


def test_step_short_of_the_minimiser_is_the_closed_form():
    # Counts of 1 under mu = e: the Newton step -(e - 1) 30 / (1 + 30 e) ~ -0.62
    # stops short of the minimiser (about log(1 / e) = -1): it is kept, to the bit.
    setup = _setup("poisson", np.ones(30), np.ones(30), 1.0)
    raw = np.ones(30)
    w, g, h = _weight(setup, raw)
    assert w == -float(g.sum()) / (1.0 + float(h.sum()))
    assert -0.7 < w < -0.6


@settings(max_examples=200, deadline=None)
@given(loss_name=st.sampled_from(["logistic", "poisson"]),
       seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40),
       reg_lambda=st.sampled_from([0.0, 0.1, 1.0, 10.0]))
def test_weight_never_passes_the_minimiser_and_lowers_the_loss(loss_name, seed, m, reg_lambda):
    rng = np.random.default_rng(seed)
    if loss_name == "logistic":
        y = rng.choice([-1.0, 1.0], size=m)
    else:
        y = rng.poisson(rng.uniform(0.1, 20.0), size=m).astype(float)
    raw = rng.normal(scale=rng.uniform(0.1, 3.0), size=m)
    setup = _setup(loss_name, y, rng.uniform(0.5, 2.0, size=m), reg_lambda)
    w, g, h = _weight(setup, raw)
    newton = -float(g.sum()) / (reg_lambda + float(h.sum()))
    d = _derivative(w, setup.loss, setup.y, raw, setup.sample_weight, reg_lambda)
    scale = float(np.abs(g).sum() + h.sum()) + 1.0
    # Not past the minimiser (up to the 1-D solver's tolerance), on the
    # side of the descent from 0, and no worse than no rule.
    assert d * np.sign(newton) <= 1e-7 * scale
    assert w * newton >= 0.0
    assert _regularised_loss(setup, raw, w) <= _regularised_loss(setup, raw, 0.0) + 1e-9 * scale
    # Either the closed form, or the minimiser (derivative 0).
    assert w == newton or abs(d) <= 1e-6 * scale
    if not past_minimiser(newton, _derivative(newton, setup.loss, setup.y, raw,
                                              setup.sample_weight, reg_lambda)):
        assert w == newton
