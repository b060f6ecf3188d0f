"""The orthogonal learner: basis, kernels against NumPy twins, searches,
and the paper's examples (Yang et al. 2024, Fig. 2 and Proposition 2)."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _orthogonal_kernels as kernels
from rulebook import OrthogonalLearner, RuleBoostingRegressor
from rulebook.greedy import greedy_search as plain_greedy
from rulebook.orthogonal import (
    BeamLearner,
    ChannelProblem,
    OrthogonalBasis,
    beam_search,
    branch_and_bound,
    greedy_search,
)

import naive
from conftest import binned_problems


def _random_basis(problem, seed, n_queries):
    """A basis of random extents (as boosting would select) and their matrix."""
    rng = np.random.default_rng(seed)
    n = len(problem.g)
    basis = OrthogonalBasis(problem.c, n_queries)
    Q = [np.ones(n)]
    for _ in range(n_queries):
        q = (rng.random(n) < rng.uniform(0.1, 0.9)).astype(float)
        basis.add(q)
        Q.append(q)
    return basis, np.column_stack(Q)


# -- basis -------------------------------------------------------------------
@pytest.mark.parametrize("weighted", [False, True])
def test_basis_stays_orthonormal_over_50_rules(weighted):
    rng = np.random.default_rng(1)
    n = 400
    s = rng.choice([0.5, 1.0, 3.0], size=n) if weighted else np.ones(n)
    basis = OrthogonalBasis(s, 50)
    added = 0
    for t in range(50):
        # Nested and overlapping extents, the hard case for Gram-Schmidt.
        lo, hi = sorted(rng.integers(0, n, size=2))
        q = np.zeros(n)
        q[lo:hi + 1] = 1.0
        added += basis.add(q) ** 2 > kernels.REDUNDANT * (s @ q)
    O = basis.O
    assert O.shape[1] == 1 + added
    np.testing.assert_array_less(np.abs(O.T @ (s[:, None] * O) - np.eye(O.shape[1])).max(), 1e-10)


def test_basis_skips_redundant_queries_and_projects():
    s = np.ones(6)
    basis = OrthogonalBasis(s, 3)
    q = np.array([1, 1, 1, 0, 0, 0.0])
    assert basis.add(q) > 0
    assert basis.add(1 - q) < 1e-12  # in span{1, q}
    assert basis.O.shape[1] == 2
    g = np.arange(6.0)
    g_perp = basis.project(g)
    np.testing.assert_allclose(basis.O.T @ g_perp, 0.0, atol=1e-12)


# -- kernels against NumPy twins -------------------------------------------
@settings(max_examples=150, deadline=None)
@given(problem=binned_problems(), seed=st.integers(0, 2**16), t=st.integers(0, 4),
       epsilon=st.sampled_from([1e-3, 0.1, 1.0]))
def test_scan_all_equals_direct_projection(problem, seed, t, epsilon):
    basis, Q = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, epsilon)
    hist = channels.histograms(problem.rows)
    np.testing.assert_allclose(
        hist, naive.channel_histograms(problem.X_binned, problem.rows, channels.W, problem.n_bins),
        atol=1e-9)
    got = channels.values(hist, len(problem.rows))

    def direct(sub):
        q = np.zeros(len(problem.g))
        q[sub] = 1.0
        return naive.orthogonal_objective(problem.g, problem.c, Q, q, epsilon)

    expected = naive.all_values(problem.X_binned, problem.rows, problem.n_bins,
                                problem.is_nominal, direct)
    assert np.array_equal(np.isfinite(got), np.isfinite(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-7, atol=1e-7)


@settings(max_examples=150, deadline=None)
@given(problem=binned_problems(integer_stats=True))
def test_scan_all_with_standard_objectives_equals_naive(problem):
    channels = ChannelProblem.standard(problem)
    got = channels.values(channels.histograms(problem.rows), len(problem.rows))
    expected = naive.all_values(
        problem.X_binned, problem.rows, problem.n_bins, problem.is_nominal,
        lambda sub: naive.objective_value(naive.NAMES[problem.objective], problem.g[sub].sum(),
                                          problem.h[sub].sum(), problem.c[sub].sum(),
                                          problem.n_total, problem.reg_lambda))
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 30), t=st.integers(0, 5), seed=st.integers(0, 2**16),
       epsilon=st.sampled_from([1e-3, 0.1, 1.0]), weighted=st.booleans())
def test_prefix_values_equal_direct_projection(n, t, seed, epsilon, weighted):
    """Algorithm 3 (Proposition 3) against one NumPy projection per prefix."""
    rng = np.random.default_rng(seed)
    s = rng.choice([1.0, 2.0, 0.5], size=n) if weighted else np.ones(n)
    g = rng.normal(size=n) * s
    basis = OrthogonalBasis(s, t)
    Q = [np.ones(n)]
    for _ in range(t):
        q = (rng.random(n) < 0.5).astype(float)
        basis.add(q)
        Q.append(q)
    W = np.column_stack([basis.project(g), np.zeros(n), s, np.ones(n), s[:, None] * basis.O])
    order = rng.permutation(n)[:rng.integers(1, n + 1)]
    out = np.empty(len(order))
    kernels.prefix_values(np.ascontiguousarray(W), order, epsilon, out)
    expected = naive.prefix_objectives(g, s, np.column_stack(Q), order, epsilon)
    np.testing.assert_allclose(out, expected, rtol=1e-7, atol=1e-7)


def test_serial_and_parallel_kernels_agree():
    rng = np.random.default_rng(0)
    n, d = 3000, 6
    X = np.asfortranarray(rng.integers(0, 20, size=(n, d)).astype(np.uint16))
    W = np.ascontiguousarray(rng.normal(size=(n, 7)))
    rows = np.arange(n)
    a, b = np.empty((d, 21, 7)), np.empty((d, 21, 7))
    kernels.build_channel_histograms_serial(X, rows, W, a)
    kernels.build_channel_histograms_parallel(X, rows, W, b)
    np.testing.assert_array_equal(a, b)
    n_bins, nominal = np.full(d, 20, np.int64), np.array([False, True] * 3)
    a[:, :, 3] = np.abs(a[:, :, 3])
    out_a, out_b = np.empty((d, 42)), np.empty((d, 42))
    kernels.scan_all_serial(a, n_bins, nominal, 3, 1.0, 0.0, 1e-3, float(n), out_a)
    kernels.scan_all_parallel(a, n_bins, nominal, 3, 1.0, 0.0, 1e-3, float(n), out_b)
    np.testing.assert_array_equal(out_a, out_b)
