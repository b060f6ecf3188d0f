"""The search kernels against their NumPy twins in ``naive.py``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _search_kernels as kernels

import naive
from conftest import binned_problems


def _hist(problem, build):
    hist = np.empty((problem.n_features, int(problem.n_bins.max()) + 1, 4))
    build(problem.X_binned, problem.rows, problem.g, problem.h, problem.c, hist)
    return hist


def _scan(problem, scan, hist):
    d = problem.n_features
    out = np.empty(d), np.empty(d, np.int64), np.empty(d, np.int64)
    scan(hist, problem.n_bins, problem.is_nominal, problem.allowed_mask, problem.objective,
         problem.n_total,
         problem.reg_lambda, float(len(problem.rows)), *out)
    return out


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_histograms_match_naive(problem):
    expected = naive.histograms(problem.X_binned, problem.rows, problem.g, problem.h,
                                problem.c, problem.n_bins)
    got = _hist(problem, kernels.build_histograms_serial)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(binned_problems())
def test_parallel_histograms_and_scans_equal_serial_bitwise(problem):
    serial = _hist(problem, kernels.build_histograms_serial)
    parallel = _hist(problem, kernels.build_histograms_parallel)
    np.testing.assert_array_equal(parallel, serial)
    for a, b in zip(_scan(problem, kernels.scan_histograms_serial, serial),
                    _scan(problem, kernels.scan_histograms_parallel, serial)):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=300, deadline=None)
@given(binned_problems())
def test_scan_best_value_per_feature_matches_naive(problem):
    """Real-valued statistics: the best value agrees to rounding, and the
    chosen proposition is a true maximiser by the naive definition."""
    value, op, bin_ = _scan(problem, kernels.scan_histograms_serial,
                            _hist(problem, kernels.build_histograms_serial))
    best = naive.best_per_feature(problem.X_binned, problem.rows, problem.g, problem.h,
                                  problem.c, problem.n_bins, problem.is_nominal,
                                  problem.objective, problem.n_total, problem.reg_lambda)
    for j, (expected_value, _, _) in enumerate(best):
        if expected_value == -np.inf:
            assert value[j] == -np.inf and op[j] == -1
            continue
        np.testing.assert_allclose(value[j], expected_value, rtol=1e-9, atol=1e-12)
        chosen, count, _ = naive.score(problem.X_binned, problem.rows, (j, op[j], bin_[j]),
                                       problem.g, problem.h, problem.c, problem.n_bins,
                                       problem.objective, problem.n_total, problem.reg_lambda)
        assert 0 < count < len(problem.rows)
        np.testing.assert_allclose(chosen, expected_value, rtol=1e-9, atol=1e-12)


@settings(max_examples=300, deadline=None)
@given(binned_problems(integer_stats=True))
def test_scan_matches_naive_exactly_with_exact_sums(problem):
    """Integer statistics make every sum exact: same choice, ties included."""
    got = _scan(problem, kernels.scan_histograms_serial,
                _hist(problem, kernels.build_histograms_serial))
    best = naive.best_per_feature(problem.X_binned, problem.rows, problem.g, problem.h,
                                  problem.c, problem.n_bins, problem.is_nominal,
                                  problem.objective, problem.n_total, problem.reg_lambda)
    for j, (v, o, b) in enumerate(best):
        assert (got[0][j], got[1][j], got[2][j]) == (v, o, b)


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_filter_rows_matches_mask(problem):
    for condition in naive.candidates(problem.n_bins, problem.is_nominal):
        out = np.empty_like(problem.rows)
        count = kernels.filter_rows(problem.X_binned, problem.rows, *condition,
                                    int(problem.n_bins[condition[0]]), out)
        mask = naive.condition_mask(problem.X_binned, *condition, problem.n_bins)
        np.testing.assert_array_equal(out[:count], problem.rows[mask[problem.rows]])


def test_missing_bin_is_never_covered():
    X = np.array([[0], [1], [2]], dtype=np.uint16, order="F")  # bin 2 = missing
    rows = np.arange(3)
    for op in (kernels.LE, kernels.GT, kernels.EQ, kernels.NE):
        for b in (0, 1):
            out = np.empty_like(rows)
            count = kernels.filter_rows(X, rows, 0, op, b, 2, out)
            assert 2 not in out[:count]


@pytest.mark.parametrize("parallel", [False, True])
def test_large_node_uses_same_result(parallel, monkeypatch):
    """SearchProblem picks the parallel kernels on large nodes; same answer."""
    import rulebook.search as search
    from rulebook.greedy import greedy_search

    rng = np.random.default_rng(0)
    n, d = 3000, 6
    X = np.asfortranarray(rng.integers(0, 20, size=(n, d)).astype(np.uint16))
    problem = search.SearchProblem(X, np.full(d, 19, np.int64), np.zeros(d, bool),
                                   rng.normal(size=n), np.ones(n), np.ones(n), np.arange(n),
                                   1.0, 2)
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 1 if parallel else 10**12)
    result = greedy_search(problem)
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 10**12)
    reference = greedy_search(problem)
    assert result.conditions == reference.conditions
    assert result.value == reference.value


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_split_rows_partitions_by_the_condition(problem):
    for condition in naive.candidates(problem.n_bins, problem.is_nominal):
        kept, removed = problem.split(problem.rows, condition)
        mask = naive.condition_mask(problem.X_binned, *condition, problem.n_bins)[problem.rows]
        np.testing.assert_array_equal(kept, problem.rows[mask])
        np.testing.assert_array_equal(removed, problem.rows[~mask])


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_child_histograms_by_subtraction_match_a_direct_pass(problem):
    parent = problem.histograms(problem.rows)
    for condition in naive.candidates(problem.n_bins, problem.is_nominal):
        kept, removed = problem.split(problem.rows, condition)
        child = problem.child_histograms(parent, kept, removed)
        direct = naive.histograms(problem.X_binned, kept, problem.g, problem.h, problem.c,
                                  problem.n_bins)
        np.testing.assert_array_equal(child[..., 3], direct[..., 3])  # counts exact
        np.testing.assert_allclose(child, direct, rtol=1e-9, atol=1e-9)


@settings(max_examples=200, deadline=None)
@given(binned_problems(integer_stats=True), st.integers(0, 2**32 - 1))
def test_scan_honours_the_allowed_mask(problem, seed):
    """Only allowed propositions are chosen; the best of them, exactly."""
    mask = np.random.default_rng(seed).random(problem.allowed_mask.shape) < 0.5
    problem.allowed = mask
    problem.__dict__.pop("allowed_mask", None)
    value, op, bin_ = _scan(problem, kernels.scan_histograms_serial,
                            _hist(problem, kernels.build_histograms_serial))
    for j in range(problem.n_features):
        best = -np.inf
        for condition in naive.candidates(problem.n_bins, problem.is_nominal):
            if condition[0] != j or not mask[j, condition[2], condition[1]]:
                continue
            v, count, _ = naive.score(problem.X_binned, problem.rows, condition, problem.g,
                                      problem.h, problem.c, problem.n_bins, problem.objective,
                                      problem.n_total, problem.reg_lambda)
            if 0 < count < len(problem.rows):
                best = max(best, v)
        assert value[j] == best
        if op[j] >= 0:
            assert mask[j, bin_[j], op[j]]
