"""The two-condition search (``rulebook.pair_search``, ``rulebook._pair_kernels``)
against enumeration: its one-column solvers, its range bound and the whole
search, which ``optimal_search`` uses for a limit of 1 or 2 conditions."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _pair_kernels as kernels
from rulebook import pair_search as pair_module
from rulebook.optimal import optimal_search

import naive
from conftest import binned_problems
from test_optimal import (SMALL, assert_consistent, brute_force, conjunction_states,
                          extent_of, value_of)


def value(G, H, n2, lam):
    return G * G / (n2 * (lam + H))


def random_sums(rng, nb, integer):
    if integer:
        g = rng.integers(-4, 5, nb).astype(float)
        h = rng.integers(0, 4, nb).astype(float)
    else:
        g, h = rng.normal(size=nb), rng.random(nb) * (rng.random(nb) < 0.8)
    empty = rng.random(nb) < 0.2
    g[empty], h[empty] = 0.0, 0.0
    return g, h


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 16), st.sampled_from([0.5, 1.0, 4.0]), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_best_interval_is_the_best_of_all_intervals(nb, lam, integer, seed):
    """Every interval of bins but all of them (not a condition)."""
    g, h = random_sums(np.random.default_rng(seed), nb, integer)
    got, lo, hi = kernels.best_interval(g, h, nb, 10.0, lam, np.empty((2, nb + 1), np.int64),
                                        np.empty((2, nb + 1)))
    expected = max([value(g[s:t + 1].sum(), h[s:t + 1].sum(), 10.0, lam)
                    for s in range(nb) for t in range(s, nb) if (s, t) != (0, nb - 1)],
                   default=0.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    if integer:
        assert got == expected
    if nb >= 2:
        assert 0 <= lo <= hi < nb and (lo, hi) != (0, nb - 1)
        np.testing.assert_allclose(value(g[lo:hi + 1].sum(), h[lo:hi + 1].sum(), 10.0, lam),
                                   got, rtol=1e-12, atol=1e-15)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 16), st.sampled_from([0.5, 1.0, 4.0]), st.booleans(),
       st.sampled_from([0.0, 0.01, 0.3, 3.0]), st.integers(0, 2**32 - 1))
def test_best_priced_interval_is_the_best_of_all_intervals_less_their_price(nb, lam, integer,
                                                                             extra, seed):
    """Every interval but all bins, less ``extra`` when it has two thresholds
    (neither end at the first or last bin)."""
    g, h = random_sums(np.random.default_rng(seed), nb, integer)
    scale = max([value(g.sum(), h.sum(), 10.0, lam)] + list(np.abs(g)))
    extra *= scale
    got, raw, lo, hi = kernels.best_priced_interval(
        g, h, nb, 10.0, lam, extra, np.empty((2, nb + 1), np.int64), np.empty((2, nb + 1)))
    priced = {(s, t): value(g[s:t + 1].sum(), h[s:t + 1].sum(), 10.0, lam)
              - (extra if 0 < s and t < nb - 1 else 0.0)
              for s in range(nb) for t in range(s, nb) if (s, t) != (0, nb - 1)}
    if nb < 2:
        assert (got, raw, lo, hi) == (0.0, 0.0, -1, -1)
        return
    np.testing.assert_allclose(got, max(priced.values()), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(priced[lo, hi], got, rtol=1e-12, atol=1e-12)
    assert raw == value(g[lo:hi + 1].sum(), h[lo:hi + 1].sum(), 10.0, lam) or np.isclose(
        raw, value(g[lo:hi + 1].sum(), h[lo:hi + 1].sum(), 10.0, lam), rtol=1e-12, atol=1e-15)
    if extra == 0.0:
        assert (got, lo, hi) == kernels.best_interval(g, h, nb, 10.0, lam,
                                                      np.empty((2, nb + 1), np.int64),
                                                      np.empty((2, nb + 1)))


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 9), st.sampled_from([0.5, 1.0, 4.0]), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_best_set_is_the_best_of_all_expressible_sets(nb, lam, integer, seed):
    """Every nonempty proper set of categories (all of them for one category)."""
    g, h = random_sums(np.random.default_rng(seed), nb, integer)
    sets = [s for size in range(1, nb + 1) for s in itertools.combinations(range(nb), size)
            if size < nb or nb == 1]
    expected = max(value(g[list(s)].sum(), h[list(s)].sum(), 10.0, lam) for s in sets)
    order = np.empty(nb, np.int64)
    got, kind, size = kernels.best_set(g, h, nb, 10.0, lam, np.empty(nb), order)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
    if integer:
        assert got == expected
    members = np.empty(nb, np.bool_)
    kernels.set_members(kind, size, order, nb, members)
    assert 0 < members.sum() and (members.sum() < nb or nb == 1)
    np.testing.assert_allclose(value(g[members].sum(), h[members].sum(), 10.0, lam), got,
                               rtol=1e-12, atol=1e-15)


def limited_problem(problem, limit, lam):
    problem.objective, problem.max_rule_length = 2, limit
    problem.reg_lambda = lam
    return problem


@settings(max_examples=300, deadline=None)
@given(binned_problems(integer_stats=True, **SMALL), st.integers(1, 2),
       st.sampled_from([0.01, 1.0, 100.0]), st.booleans(), st.sampled_from([1, 2]))
def test_pair_search_equals_brute_force(problem, limit, lam, seeded, n_jobs):
    """Exact against every conjunction on at most ``limit`` columns: numeric
    and nominal columns, ties, missing bins; with or without the greedy
    seed; one thread or two."""
    problem = limited_problem(problem, limit, lam)
    assert pair_module.applies(problem)
    expected = brute_force(problem)
    # Threads from the start (a search this small would end serially).
    serial, pair_module.SERIAL_SECONDS = pair_module.SERIAL_SECONDS, 0.0
    try:
        result = optimal_search(problem, seed_greedy=seeded, n_jobs=n_jobs)
    finally:
        pair_module.SERIAL_SECONDS = serial
    if n_jobs == 2 and result.stats["pairs"] > 1:
        assert result.stats["threads"] == 2
    assert result.value == expected
    assert_consistent(problem, result)
    assert result.stats["certified"] and result.stats["certified_ratio"] == 1.0


@settings(max_examples=100, deadline=None)
@given(binned_problems(max_rows=30, max_features=5), st.sampled_from([0.01, 1.0]))
def test_pair_search_equals_brute_force_with_real_sums(problem, lam):
    """Real-valued statistics: equal up to rounding."""
    problem = limited_problem(problem, 2, lam)
    expected = brute_force(problem)
    result = optimal_search(problem)
    np.testing.assert_allclose(result.value, expected, rtol=1e-9, atol=1e-12)
    assert_consistent(problem, result)


@settings(max_examples=50, deadline=None)
@given(binned_problems(integer_stats=True, max_rows=30, max_features=5))
def test_a_stopped_search_reports_an_honest_bound(problem):
    """Stopped before the pairs: its value is at least the best single
    condition's, and its upper bound is at least the optimum."""
    problem = limited_problem(problem, 2, 1.0)
    expected = brute_force(problem)
    conditions, got, stats = pair_module.pair_search(problem, deadline=0.0)
    assert got <= expected <= stats["upper_bound"] + 1e-12
    problem.max_rule_length = 1
    assert got >= brute_force(problem)
    if not stats["certified"]:
        assert stats["certified_ratio"] <= 1.0


@settings(max_examples=100, deadline=None)
@given(binned_problems(integer_stats=True, max_rows=30, max_features=5))
def test_the_optimal_search_stopped_at_once_reports_an_honest_bound(problem):
    """Stopped before the pairs by ``optimal_search``'s time limit, the
    pairs left are bounded by the tight bound of all rows: at least the
    optimum (computed on rows in ratio order; on rows in their own order
    it was lower)."""
    problem = limited_problem(problem, 2, 1.0)
    expected = brute_force(problem)
    result = optimal_search(problem, time_limit=1e-9)
    assert result.stats["upper_bound"] >= expected - 1e-12 * max(1.0, expected)
    if result.stats["certified_ratio"] == 1.0:
        assert result.value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def pair_scratch(B):
    """search_pair's SCRATCH arrays for B bins."""
    return (np.empty((6, B)), np.empty((2, B + 1), np.int64), np.empty((2, B + 1)),
            np.empty(B), np.empty(B, np.int64))


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 7), st.integers(1, 7), st.booleans(), st.booleans(),
       st.sampled_from([0.0, 0.5]), st.sampled_from(["integer", "real", "signed_h0"]),
       st.data())
def test_every_node_bound_is_admissible(Bc, Bf, c_nominal, f_nominal, extra, stats, data):
    """The bound ``search_pair`` gives a range of conditions on c (the bound
    its halves are pushed with) is at least the value, less its price, of
    every pair of a condition of the range and a condition on f;
    statistics integer, real, or with rows of h = 0."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = 40
    xc, xf = rng.integers(0, Bc + 1, n), rng.integers(0, Bf + 1, n)
    if stats == "integer":
        g, h = rng.integers(-4, 5, n).astype(float), rng.integers(0, 4, n).astype(float)
    else:
        g, h = rng.normal(size=n) * rng.exponential(size=n), rng.exponential(size=n)
        if stats == "signed_h0":
            h[rng.random(n) < 0.2] = 0.0
    lam, n2 = 1.0, 2.0 * n
    position = np.arange(Bc + 1, dtype=np.int64)
    cum, ratio_max = np.empty((4, Bc + 1, Bf)), np.empty((2, Bc))
    kernels.pair_grid(xc, xf, position, Bc, Bf, g, h, cum, ratio_max)
    if c_nominal:
        nxt = data.draw(st.integers(0, Bc - 1))
        mask = data.draw(st.integers(0, 2**nxt - 1))
        node = (nxt, mask, 0, 0)
        conditions = [{p for p in range(Bc) if (mask | rest << nxt) >> p & 1}
                      for rest in range(2**(Bc - nxt))]
        conditions = [A for A in conditions if A and (len(A) < Bc or Bc == 1)]
    else:
        s0 = data.draw(st.integers(-1, Bc - 2))
        s1 = data.draw(st.integers(s0, Bc - 2))
        t0 = data.draw(st.integers(s0 + 1, Bc - 1))
        t1 = data.draw(st.integers(max(t0, s1 + 1), Bc - 1))
        node = (s0, s1, t0, t1)
        conditions = [set(range(s + 1, t + 1)) for s in range(s0, s1 + 1)
                      for t in range(max(t0, s + 1), t1 + 1) if (s, t) != (-1, Bc - 1)]
    if not expressible(Bf, f_nominal):
        return  # f has no condition: the search never pairs such a column
    both = (xc < Bc) & (xf < Bf)

    def price(members, B, nominal):
        return extra if not nominal and min(members) > 0 and max(members) < B - 1 else 0.0

    expected = -np.inf
    for A, J in itertools.product(conditions, expressible(Bf, f_nominal)):
        rows = both & np.isin(xc, list(A)) & np.isin(xf, list(J))
        expected = max(expected, value(g[rows].sum(), h[rows].sum(), n2, lam)
                       - price(A, Bc, c_nominal) - price(J, Bf, f_nominal))
    stack = np.zeros((4 * (Bc + 2), 4), np.int64)
    stack[0] = node
    bounds = np.full(len(stack), np.inf)
    state = np.zeros(kernels.N_STATE, np.int64)
    state[kernels.TOP] = 1
    best = np.array([-np.inf, 0.0, np.nan])
    B = max(Bc, Bf) + 1
    kernels.search_pair(cum, ratio_max, Bc, Bf, c_nominal, f_nominal, n2, lam, extra, stack,
                        bounds, state, best, np.array([-np.inf, 0.0]), 1, np.zeros(Bc, np.bool_),
                        np.zeros(Bf, np.bool_), *pair_scratch(B))
    if state[kernels.LEAVES]:  # a single condition, solved exactly
        assert best[0] == pytest.approx(expected, rel=1e-12, abs=1e-12) or not conditions
        return
    if state[kernels.TOP] == 0:  # no half to push (no condition), or pruned
        assert not conditions or expected <= -np.inf or state[kernels.PRUNED] == 0
        return
    assert bounds[0] >= expected - 1e-12 * max(1.0, abs(expected))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.booleans(), st.integers(0, 2**32 - 1))
def test_pair_grid_ratios_equal_numpy(Bc, Bf, zero_h, seed):
    """``pair_grid``'s largest ``|g| / h`` per position of c over its cells of
    each sign (inf at h = 0, 0 for none) against np.add.at over the cells."""
    rng = np.random.default_rng(seed)
    n = 40
    xc, xf = rng.integers(0, Bc + 1, n), rng.integers(0, Bf + 1, n)
    g, h = rng.normal(size=n), rng.exponential(size=n)
    if zero_h:
        h[rng.random(n) < 0.3] = 0.0
    position = np.append(rng.permutation(Bc), Bc).astype(np.int64)
    cum, ratio_max = np.empty((4, Bc + 1, Bf)), np.empty((2, Bc))
    kernels.pair_grid(xc, xf, position, Bc, Bf, g, h, cum, ratio_max)
    both = (xc < Bc) & (xf < Bf)
    G, H = np.zeros((Bc, Bf)), np.zeros((Bc, Bf))
    np.add.at(G, (position[xc[both]], xf[both]), g[both])
    np.add.at(H, (position[xc[both]], xf[both]), h[both])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(H > 0, np.abs(G) / H, np.inf)
    for side, sign in enumerate((1.0, -1.0)):
        expected = np.where(sign * G > 0, ratio, 0.0).max(axis=1)
        np.testing.assert_allclose(ratio_max[side], expected, rtol=1e-9)


def test_a_node_bound_keeps_the_inner_rows_alone():
    """The cells between inner and outer may all weigh more in h than they
    add in g: the bound then needs the inner rows alone, ``(A_G, A_H)``
    (here the condition ``0 < x_c <= 1``, value 1 / n2, against about
    0.093 / n2 with the cells' positive or negative parts)."""
    xc = np.array([1, 0, 2], np.int64)
    xf = np.zeros(3, np.int64)
    g, h = np.array([1.0, 0.01, -0.01]), np.array([0.0, 10.0, 10.0])
    Bc, Bf, n2, lam = 3, 1, 6.0, 1.0
    cum, ratio_max = np.empty((4, Bc + 1, Bf)), np.empty((2, Bc))
    kernels.pair_grid(xc, xf, np.arange(Bc + 1, dtype=np.int64), Bc, Bf, g, h, cum, ratio_max)
    stack = np.zeros((4 * (Bc + 2), 4), np.int64)
    stack[0] = (-1, 0, 1, 2)
    bounds = np.full(len(stack), np.inf)
    state = np.zeros(kernels.N_STATE, np.int64)
    state[kernels.TOP] = 1
    kernels.search_pair(cum, ratio_max, Bc, Bf, False, True, n2, lam, 0.0, stack, bounds, state,
                        np.array([0.0, 0.0, np.nan]), np.zeros(2), 1, np.zeros(Bc, np.bool_),
                        np.zeros(Bf, np.bool_), *pair_scratch(Bc + 1))
    assert state[kernels.TOP] == 2 and bounds[0] >= value(1.0, 0.0, n2, lam)


def expressible(B, nominal):
    """Every condition's bins: nonempty proper sets of categories (all of
    one), or intervals of bins but all of them."""
    if nominal:
        return [set(s) for k in range(1, B + 1) for s in itertools.combinations(range(B), k)
                if k < B or B == 1]
    return [set(range(s, t + 1)) for s in range(B) for t in range(s, B) if (s, t) != (0, B - 1)]


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.booleans(), st.booleans(),
       st.sampled_from([0.0, 0.0, 0.5, 5.0]), st.integers(0, 2**32 - 1))
def test_range_bound_is_admissible(Bc, Bf, c_nominal, f_nominal, extra, seed):
    """The bound of the first node of a pair is at least the best pair of
    conditions, computed over every condition on c (``search_pair`` never
    prunes the optimum: checked by running it from best = 0, or from
    below every value when numeric intervals of two thresholds pay
    ``extra``)."""
    rng = np.random.default_rng(seed)
    n = 40
    xc, xf = rng.integers(0, Bc + 1, n), rng.integers(0, Bf + 1, n)  # Bc, Bf: missing
    g, h = rng.integers(-4, 5, n).astype(float), rng.integers(0, 4, n).astype(float)
    lam, n2 = 1.0, 2.0 * n
    position = np.arange(Bc + 1, dtype=np.int64)
    cum = np.empty((4, Bc + 1, Bf))
    ratio_max = np.empty((2, Bc))
    kernels.pair_grid(xc, xf, position, Bc, Bf, g, h, cum, ratio_max)
    both = (xc < Bc) & (xf < Bf)
    c_sets, f_sets = expressible(Bc, c_nominal), expressible(Bf, f_nominal)
    def price(members, B, nominal):
        return extra if not nominal and min(members) > 0 and max(members) < B - 1 else 0.0

    expected = 0.0 if extra == 0.0 else -np.inf
    for A, J in itertools.product(c_sets, f_sets):
        rows = both & np.isin(xc, list(A)) & np.isin(xf, list(J))
        expected = max(expected, value(g[rows].sum(), h[rows].sum(), n2, lam)
                       - price(A, Bc, c_nominal) - price(J, Bf, f_nominal))
    if c_nominal and Bc > 62:
        pytest.skip("not branched on")
    stack = np.empty((4 * (Bc + 2), 4), np.int64)
    stack[0] = (0, 0, 0, 0) if c_nominal else (-1, Bc - 2, 0, Bc - 1)
    bounds = np.full(len(stack), np.inf)
    state = np.zeros(kernels.N_STATE, np.int64)
    state[kernels.TOP] = 0 if (not c_nominal and Bc < 2) else 1
    start = 0.0 if extra == 0.0 else -np.inf
    best = np.array([start, 0.0, np.nan])
    B = max(Bc, Bf) + 1
    in_c, in_f = np.zeros(Bc, np.bool_), np.zeros(Bf, np.bool_)
    status = kernels.search_pair(cum, ratio_max, Bc, Bf, c_nominal, f_nominal, n2, lam, extra,
                                 stack, bounds, state, best, np.array([start, 0.0]), 10**6, in_c,
                                 in_f, *pair_scratch(B))
    assert status == kernels.DONE
    if not c_sets or not f_sets:
        return
    assert best[0] == pytest.approx(expected, rel=1e-12, abs=1e-12)
    if extra == 0.0:
        assert best[0] == expected
    if best[1]:
        rows = both & in_c[np.minimum(xc, Bc - 1)] & (xc < Bc) & in_f[np.minimum(xf, Bf - 1)]
        assert value(g[rows].sum(), h[rows].sum(), n2, lam) == best[2]
        members_c = set(np.flatnonzero(in_c))
        assert best[0] == pytest.approx(
            best[2] - price(members_c, Bc, c_nominal)
            - price(set(np.flatnonzero(in_f)), Bf, f_nominal), rel=1e-12, abs=1e-12)


def values_of_every_query(problem):
    """The objective value of every query within the length limit (NaN
    where its sums are NaN): every conjunction of conditions on at most
    ``max_rule_length`` columns, as extents of the naive condition masks."""
    rows = problem.rows
    conditions = naive.candidates(problem.n_bins, problem.is_nominal)
    masks = [naive.condition_mask(problem.X_binned, *c, problem.n_bins)[rows] for c in conditions]
    extents = {(tuple(np.ones(len(rows), bool)), frozenset())}
    frontier = list(extents)
    while frontier:
        previous, frontier = frontier, []
        for extent, columns in previous:
            for mask, condition in zip(masks, conditions):
                state = (tuple(np.array(extent) & mask), columns | {condition[0]})
                if len(state[1]) <= problem.max_rule_length and state not in extents:
                    extents.add(state)
                    frontier.append(state)
    matrix = np.array([extent for extent, _ in extents], dtype=bool)
    # Sums of the rows in each extent (not a product: 0 * NaN is NaN).
    sums = [np.where(matrix, a[rows], 0.0).sum(axis=1) for a in (problem.g, problem.h, problem.c)]
    with np.errstate(invalid="ignore"):
        return naive.objective_value(naive.NAMES[problem.objective], *sums, problem.n_total,
                                     problem.reg_lambda)


@settings(max_examples=200, deadline=None)
@given(binned_problems(integer_stats=True, max_rows=20, max_features=3), st.integers(1, 2),
       st.data())
def test_nan_objectives_are_never_chosen(problem, limit, data):
    """NaN statistics (NaN objectives of the queries that hold them) never
    make the search fail or return a NaN value for a query: it returns a
    query whose value is a number, its own by the naive reference and at
    most the best such value, or the empty query (value NaN) when it finds
    none. (It used to raise IndexError when no condition had a number.)"""
    problem = limited_problem(problem, limit, 1.0)
    nan_rows = data.draw(st.lists(st.sampled_from(list(problem.rows)), min_size=1))
    problem.g = problem.g.copy()
    problem.g[nan_rows] = np.nan
    conditions, value, _ = pair_module.pair_search(problem)
    values = values_of_every_query(problem)
    if not conditions:
        assert np.isnan(value) or value == values_of_every_query(limited_problem(problem, 0, 1.0))[0]
        return
    assert not np.isnan(value)
    mask = np.ones(len(problem.g), bool)
    for condition in conditions:
        mask &= naive.condition_mask(problem.X_binned, *condition, problem.n_bins)
    assert value == value_of(problem, problem.rows[mask[problem.rows]])
    assert value <= np.nanmax(values)


def priced_states(problem):
    """Every ``(extent, keys)`` of a conjunction within the length limit
    (distinct columns), keys ``(column, side)``: a numeric column's ``<=``
    and ``>`` are two sides (its thresholds), a nominal column one."""
    return conjunction_states(
        problem, side=lambda cond: -1 if problem.is_nominal[cond[0]] else cond[1])


def brute_force_penalised(problem, cost):
    """Largest ``objective - cost * conditions`` over all conjunctions within
    the length limit, a numeric column's thresholds each a condition (an
    interval two), a nominal column's set one."""
    rows = problem.rows
    states = list(priced_states(problem))
    extents = np.array([[(e >> i) & 1 for i in range(len(rows))] for e, _ in states], dtype=float)
    sums = (extents @ a[rows] for a in (problem.g, problem.h, problem.c))
    values = naive.objective_value(naive.NAMES[problem.objective], *sums, problem.n_total,
                                   problem.reg_lambda)
    return float(np.max(values - cost * np.array([len(keys) for _, keys in states])))


@settings(max_examples=200, deadline=None)
@given(binned_problems(integer_stats=True, **SMALL), st.integers(1, 2),
       st.sampled_from([0.01, 1.0, 100.0]), st.sampled_from([0.0, 0.05, 0.5, 5.0]),
       st.booleans())
def test_pair_search_with_a_condition_cost_equals_brute_force(problem, limit, lam, scale,
                                                              seeded):
    """The query of largest objective minus a cost per threshold of a
    numeric column and per nominal column, against every conjunction; its
    reported value is its objective."""
    problem = limited_problem(problem, limit, lam)
    cost = scale * brute_force(problem)
    expected = brute_force_penalised(problem, cost)
    from rulebook.optimal import _greedy_pair_seed
    seed = _greedy_pair_seed(problem, seeded)  # the greedy query, as the learner seeds
    conditions, value, stats = pair_module.pair_search(problem, seed=seed, condition_cost=cost)
    priced = sum(1 for c in conditions if not problem.is_nominal[c[0]]) + len(
        {c[0] for c in conditions if problem.is_nominal[c[0]]})
    assert priced == pair_module.priced_conditions(conditions)
    assert value - cost * priced == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert value == pytest.approx(value_of(problem, extent_of(problem, conditions)), rel=1e-12,
                                  abs=1e-12)
    assert stats["certified"] and stats["certified_ratio"] == 1.0
    assert stats["condition_cost"] == cost


def test_condition_cost_is_a_factor_of_the_noise_level():
    """``factor * phi ln(P) / n``: phi = sum g^2 / sum h, P the propositions."""
    from rulebook.search import SearchProblem
    rng = np.random.default_rng(0)
    X = np.asfortranarray(np.column_stack([rng.integers(0, 5, 40), rng.integers(0, 3, 40)]),
                          dtype=np.uint16)
    g, h = rng.normal(size=40), np.full(40, 2.0)
    problem = SearchProblem(X_binned=X, n_bins=np.array([5, 3]),
                            is_nominal=np.array([False, True]), g=g, h=h, c=np.ones(40),
                            rows=np.arange(40), reg_lambda=1.0, objective=2, max_rule_length=2)
    P = 2 * 4 + 3
    expected = 0.25 * (g @ g / 80.0) * np.log(P) / problem.n_total
    assert pair_module.condition_cost_of(problem, 0.25) == pytest.approx(expected, rel=1e-12)
    assert pair_module.condition_cost_of(problem, 0.0) == 0.0


def test_auto_condition_cost_is_a_quarter_of_the_noise_level_for_two_conditions_only():
    from rulebook import OptimalLearner
    from rulebook.optimal import AUTO_CONDITION_COST
    from rulebook.search import SearchProblem
    rng = np.random.default_rng(1)
    X = np.asfortranarray(rng.integers(0, 6, size=(60, 3)), dtype=np.uint16)
    problem = SearchProblem(X_binned=X, n_bins=np.array([6, 6, 6]),
                            is_nominal=np.array([False, False, False]), g=rng.normal(size=60),
                            h=np.ones(60), c=np.ones(60), rows=np.arange(60), reg_lambda=1.0,
                            objective=2, max_rule_length=2)
    assert AUTO_CONDITION_COST == 0.25
    result = OptimalLearner().search(problem)
    assert result.stats["condition_cost"] == pair_module.condition_cost_of(problem, 0.25) > 0
    assert optimal_search(problem).stats["condition_cost"] == 0.0  # the function's default
    problem.max_rule_length = 3  # the general search: "auto" is 0, a number is refused
    assert "condition_cost" not in OptimalLearner().search(problem).stats
    with pytest.raises(ValueError, match="condition_cost=0.5 is supported by the search of rules "
                                         "of at most 2 conditions"):
        OptimalLearner(condition_cost=0.5).search(problem)
    for bad in (-1.0, np.nan, "fast", True):
        with pytest.raises(ValueError, match="condition_cost must be a number >= 0 or 'auto'"):
            OptimalLearner(condition_cost=bad)
