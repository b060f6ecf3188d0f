"""The last condition of a length-limited query, solved per column
(``rulebook._bnb_kernels._best_interval``, ``_best_category_set``,
``_column_sums``), against enumerating every condition the column's list
entries can build."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _bnb_kernels as bnb
from rulebook._search_kernels import EQ, GT, LE, NE

import naive

LAMBDAS = (0.0, 0.5, 2.0)


def value(code, G, H, C, reg_lambda, n_total=10.0):
    return float(naive.objective_value(naive.NAMES[code], G, H, C, n_total, reg_lambda))


def column_sums(rng, nb, integer):
    """Per-bin sums (3, nb): g, h >= 0 (some zero), c > 0 or an empty bin."""
    if integer:
        g = rng.integers(-4, 5, nb).astype(float)
        h = rng.integers(0, 4, nb).astype(float)
    else:
        g = rng.normal(size=nb)
        h = rng.random(nb) * (rng.random(nb) < 0.8)
    c = rng.integers(1, 4, nb).astype(float)
    empty = rng.random(nb) < 0.2
    g[empty], h[empty], c[empty] = 0.0, 0.0, 0.0
    return np.array([g, h, c])


def entries(rng, props):
    """A random sub-list, in order, of the column's propositions (op, bin)."""
    keep = rng.random(len(props)) < rng.uniform(0.3, 1.0)
    chosen = [p for p, k in zip(props, keep) if k]
    pop = np.array([op for op, _ in chosen] or [LE], np.int64)
    pb = np.array([b for _, b in chosen] or [0], np.int64)
    return chosen, pop, pb


def problem_args(code, reg_lambda):
    if code == 2 and reg_lambda == 0.0:
        reg_lambda = 1.0  # the search does not solve columns there
    return code, reg_lambda


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 14), st.integers(0, 2), st.sampled_from(LAMBDAS), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_best_interval_is_the_best_of_all_intervals(nb, code, reg_lambda, integer, seed):
    """Exact against every ``x <= t``, ``x > s`` and ``s < x <= t`` the
    entries allow (the hull holds the best ``s`` for every ``t``)."""
    code, reg_lambda = problem_args(code, reg_lambda)
    rng = np.random.default_rng(seed)
    sums = column_sums(rng, nb, integer)
    props = [(LE, t) for t in range(nb - 1)] + [(GT, s) for s in range(nb - 2, -1, -1)]
    chosen, pop, pb = entries(rng, props)
    if not chosen:
        return
    n = len(chosen)
    aug_a = np.arange(n, dtype=np.int64)
    aug_b = np.full(n, np.inf)
    prefix = np.cumsum(sums, axis=1)

    def interval(s, t):  # bins s+1..t
        return prefix[:, t] - (prefix[:, s] if s >= 0 else 0.0)

    candidates = {}
    for op, b in chosen:
        key = ((-1, b) if op == LE else (b, nb - 1))
        candidates[key] = value(code, *interval(*key), reg_lambda)
    for (op1, t), (op2, s) in itertools.product(chosen, chosen):
        if op1 == LE and op2 == GT and s < t:
            candidates[(s, t)] = value(code, *interval(s, t), reg_lambda)
    expected = max(candidates.values())
    got, first, second = bnb._best_interval(sums.copy(), nb, pop, pb, aug_a, aug_b, aug_a, 0, n,
                                            code, 10.0, reg_lambda, 1.0, -np.inf,
                                            np.empty((4, nb), np.int64))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    if integer:
        assert got == expected
    # The propositions returned build an interval of that value.
    lo, hi = -1, nb - 1
    for p in (first, second):
        if p >= 0:
            lo, hi = (lo, pb[p]) if pop[p] == LE else (pb[p], hi)
    np.testing.assert_allclose(value(code, *interval(lo, hi), reg_lambda), got, rtol=1e-12,
                               atol=1e-12)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 9), st.integers(0, 2), st.sampled_from(LAMBDAS), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_best_category_set_is_the_best_of_all_sets(nb, code, reg_lambda, integer, seed):
    """Exact against every ``== k`` and every ``not in S`` (S a nonempty set
    of the ``!=`` entries), with ratio ties and empty categories."""
    code, reg_lambda = problem_args(code, reg_lambda)
    rng = np.random.default_rng(seed)
    sums = column_sums(rng, nb, integer)
    props = [p for k in range(nb) for p in ((EQ, k), (NE, k))]
    chosen, pop, pb = entries(rng, props)
    if not chosen:
        return
    n = len(chosen)
    aug_a = np.arange(n, dtype=np.int64)
    total = sums.sum(axis=1)
    candidates = [value(code, *sums[:, k], reg_lambda) for op, k in chosen if op == EQ]
    excluded = [k for op, k in chosen if op == NE]
    for size in range(1, len(excluded) + 1):
        for S in itertools.combinations(excluded, size):
            candidates.append(value(code, *(total - sums[:, list(S)].sum(axis=1)), reg_lambda))
    expected = max(candidates)
    order = np.empty(nb, np.int64)
    got, first, n_set = bnb._best_category_set(sums.copy(), nb, pop, pb, aug_a, aug_a, 0, n,
                                               code, 10.0, reg_lambda, np.empty(nb), order)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    if integer:
        assert got == expected
    # The propositions returned build a condition of that value.
    if n_set == 0:
        assert pop[first] == EQ
        rebuilt = sums[:, pb[first]]
    else:
        assert first == order[0] and all(pop[order[:n_set]] == NE)
        rebuilt = total - sums[:, pb[order[:n_set]]].sum(axis=1)
    np.testing.assert_allclose(value(code, *rebuilt, reg_lambda), got, rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 200), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_column_sums_are_the_sums_per_bin_of_the_extent(n, nb, seed):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, nb + 1, (n, 2)).astype(np.uint16))  # nb: missing
    g, h, c = rng.normal(size=n), rng.random(n), rng.random(n) + 0.5
    inside = rng.random(n) < 0.6
    ext = np.zeros((n + 63) // 64, np.uint64)
    packed = np.packbits(inside, bitorder="little")
    ext.view(np.uint8)[: len(packed)] = packed
    out = np.full((3, nb + 1), 7.0)
    bnb._column_sums(ext, X, 1, nb, g, h, c, out)
    for b in range(nb):
        rows = inside & (X[:, 1] == b)
        np.testing.assert_allclose(out[:, b], [g[rows].sum(), h[rows].sum(), c[rows].sum()],
                                   atol=1e-12)
