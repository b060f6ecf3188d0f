"""A cost per threshold in the exact two-condition search with several
outputs (``rulebook.multi_output_search``'s ``condition_cost``: an interval
``a < x <= b`` pays twice, ``x <= t`` and a nominal set once), against
enumeration of every query of at most two conditions, for complete and
single-output heads; its noise level against its definition."""

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multi_output_search import (
    brute_force,
    column_conditions,
    extent_value,
    multi_output_problems,
)

from rulebook import _box_kernels as kernels
from rulebook import multi_output_search as mos
from rulebook._search_kernels import EQ, GT, LE
from rulebook.optimal import _greedy_pair_seed
from rulebook.pair_search import priced_conditions
from rulebook.search import MultiOutputProblem


def priced_column_conditions(problem, f):
    """``column_conditions(problem, f)`` with each condition's thresholds:
    two for an interval of bins that neither starts at the first nor ends
    at the last, else one (a nominal set: one)."""
    masks = column_conditions(problem, f)
    nb = int(problem.n_bins[f])
    if problem.is_nominal[f]:
        return [(mask, 1) for mask in masks]
    spans = [(lo, hi) for lo in range(nb) for hi in range(lo, nb) if (lo, hi) != (0, nb - 1)]
    return [(mask, 1 + (lo > 0 and hi < nb - 1)) for mask, (lo, hi) in zip(masks, spans)]


def mask_value(problem):
    """The head's value of the problem's rows in a mask over all rows."""
    rows = np.zeros(len(problem.c), bool)
    rows[problem.rows] = True

    def value(mask):
        m = mask & rows
        return mos.head_value(problem.g[m].sum(axis=0), problem.h[m].sum(axis=0),
                              problem.n_total, problem.reg_lambda, problem.single_head)

    return value


def brute_force_penalised(problem, cost):
    """Largest ``value - cost * thresholds`` over the root and every query
    of at most ``max_rule_length`` conditions."""
    value = mask_value(problem)
    per_column = [priced_column_conditions(problem, f) for f in range(problem.n_features)]
    best = value(np.ones(len(problem.c), bool))
    for conditions in per_column:
        for a, price in conditions:
            best = max(best, value(a) - price * cost)
    if problem.max_rule_length == 2:
        for i, j in itertools.combinations(range(problem.n_features), 2):
            for a, price_a in per_column[i]:
                for b, price_b in per_column[j]:
                    best = max(best, value(a & b) - (price_a + price_b) * cost)
    return best


def n_columns(conditions):
    return len({c[0] for c in conditions})


def test_priced_conditions_of_the_enumeration():
    """The enumeration's prices are those the search charges its queries
    (``priced_conditions`` of their propositions), on a numeric column of
    four bins: ``x <= t`` and ``x > t`` once, ``a < x <= b`` twice."""
    problem = MultiOutputProblem(
        X_binned=np.arange(4, dtype=np.uint16).reshape(4, 1).copy(order="F"),
        n_bins=np.array([4]), is_nominal=np.array([False]), g=np.ones((4, 2)),
        h=np.ones((4, 2)), c=np.ones(4), rows=np.arange(4), reg_lambda=1.0, objective=2,
        max_rule_length=1, single_head=False)
    prices = [price for _, price in priced_column_conditions(problem, 0)]
    # (lo, hi): (0,0) (0,1) (0,2) (1,1) (1,2) (1,3) (2,2) (2,3) (3,3)
    assert prices == [1, 1, 1, 2, 2, 1, 2, 1, 1]
    assert priced_conditions([(0, LE, 2), (0, GT, 0)]) == 2
    assert priced_conditions([(0, LE, 2), (1, EQ, 0), (1, EQ, 1)]) == 2

def with_limit(problem, limit):
    """The problem with another length limit (most draws: two, where a
    pair and a single condition compete)."""
    problem.max_rule_length = limit
    return problem


@settings(max_examples=300, deadline=None)
@given(multi_output_problems(integer_stats=True, max_features=4),
       st.sampled_from([0.0, 0.02, 0.1, 0.3, 1.0, 5.0]), st.booleans(), st.sampled_from([1, 2]),
       st.sampled_from([1, 2, 2, 2]))
def test_search_with_a_condition_cost_equals_brute_force(problem, scale, seeded, n_jobs, limit):
    """The query of largest value less the cost of its columns, against
    every query of at most two conditions (both heads, 1-4 outputs, seeded
    by greedy or not, one or two threads); its reported value is its
    objective, and the finished search is certified."""
    problem = with_limit(problem, limit)
    cost = scale * brute_force(problem)
    expected = brute_force_penalised(problem, cost)
    seed = _greedy_pair_seed(problem, seeded)  # the greedy query, as the learner seeds
    from rulebook import pair_search

    saved = pair_search.SERIAL_SECONDS
    pair_search.SERIAL_SECONDS = 0.0 if n_jobs > 1 else saved  # the pool from the first box
    try:
        conditions, value, stats = mos.multi_output_search(problem, seed=seed, n_jobs=n_jobs,
                                                           condition_cost=cost)
    finally:
        pair_search.SERIAL_SECONDS = saved
    assert value - cost * priced_conditions(conditions) == pytest.approx(expected, rel=1e-9,
                                                                        abs=1e-12)
    assert extent_value(problem, conditions) == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert n_columns(conditions) <= problem.max_rule_length
    assert stats["certified"] and stats["certified_ratio"] == 1.0
    assert stats["condition_cost"] == cost


@st.composite
def wide_problems(draw):
    """Two or three numeric columns of 6-12 bins, 40-80 rows of integer
    statistics, 1-3 outputs: ranges of c long enough that a node may hold
    one-sided and two-sided intervals at once."""
    n, d, K = draw(st.integers(40, 80)), draw(st.integers(2, 3)), draw(st.integers(1, 3))
    n_bins = np.array([draw(st.integers(6, 12)) for _ in range(d)], np.int64)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = np.asfortranarray(np.column_stack([rng.integers(0, b + 1, n) for b in n_bins])
                          .astype(np.uint16))
    g = rng.integers(-4, 5, (n, K)).astype(float)
    # A pocket of signal in the middle of columns 0 and 1, for every
    # output: intervals compete with one-sided conditions.
    shift = draw(st.sampled_from([0.0, 2.0, 4.0]))
    for j in (0, 1):
        g[(X[:, j] > 1) & (X[:, j] < n_bins[j] - 2)] += shift
    return MultiOutputProblem(
        X_binned=X, n_bins=n_bins, is_nominal=np.zeros(d, bool), g=g,
        h=rng.integers(1, 4, (n, K)).astype(float), c=np.ones(n), rows=np.arange(n),
        reg_lambda=1.0, objective=2, max_rule_length=2, single_head=draw(st.booleans()))


@settings(max_examples=100, deadline=None)
@given(wide_problems(), st.sampled_from([0.01, 0.05, 0.2, 0.5]))
def test_search_prices_thresholds_exactly_on_wider_columns(problem, scale):
    """As above on columns of 6-12 bins (ranges of c that hold both kinds of
    interval): the query of largest value less its thresholds' cost."""
    cost = scale * brute_force(problem)
    expected = brute_force_penalised(problem, cost)
    conditions, value, stats = mos.multi_output_search(problem, condition_cost=cost)
    assert value - cost * priced_conditions(conditions) == pytest.approx(expected, rel=1e-9,
                                                                        abs=1e-12)
    assert stats["certified"]


@settings(max_examples=150, deadline=None)
@given(wide_problems(), st.sampled_from([0.02, 0.1, 0.5]), st.data())
def test_priced_bounds_of_a_range_are_admissible(problem, scale, data):
    """A range of c's intervals with f free: ``free_bound`` (a single-output
    head's, pricing f's intervals) and ``joint_bound`` (a complete head's),
    less the range's least price on c as ``search_boxes`` takes it, bound
    ``value - extra * intervals`` of every pair in the range; with c's
    condition fixed both are that value's maximum over f's conditions."""
    from rulebook.multi_output_search import _Boxes

    extra = scale * brute_force(problem)
    boxes = _Boxes(problem)
    pair = boxes.start(0, 1)
    value = mask_value(problem)

    nb, nbf = int(problem.n_bins[0]), int(problem.n_bins[1])
    s0 = data.draw(st.integers(-1, nb - 2))
    s1 = data.draw(st.integers(s0, nb - 2))
    t0 = data.draw(st.integers(s0 + 1, nb - 1))
    t1 = data.draw(st.integers(max(t0, s1 + 1), nb - 1))
    node = np.array((s0, s1, t0, t1, kernels.FREE, 0, 0, 0), np.int64)
    least = extra * (s0 >= 0 and t1 < nb - 1)  # every interval of the range has two thresholds
    x = problem.X_binned[:, 0]
    f_conditions = priced_column_conditions(problem, 1)

    def best_in(s_lo, s_hi, t_lo, t_hi):
        best = -np.inf
        for s_ in range(s_lo, s_hi + 1):
            for t_ in range(max(t_lo, s_ + 1), t_hi + 1):
                if (s_, t_) == (-1, nb - 1):
                    continue
                a = (x > s_) & (x <= t_)
                price_c = 1 + (s_ >= 0 and t_ < nb - 1)
                for b, price_f in f_conditions:
                    best = max(best, value(a & b) - extra * (price_c + price_f - 2))
        return best

    best = best_in(s0, s1, t0, t1)
    cand = np.zeros(8, np.int64)
    if problem.single_head:
        bound, stopped = kernels.free_bound(pair.S, boxes.K, pair.Bc, pair.Bf, False, False,
                                            node, boxes.n2, boxes.lam, True, boxes.segs,
                                            *boxes.scratch, pair.ratio_max, np.inf, extra)
    else:
        wk = np.empty((4, boxes.K, pair.Bf + 1))
        bound, stopped = kernels.joint_bound(pair.S, boxes.K, pair.Bc, pair.Bf, False, node,
                                             boxes.n2, boxes.lam, boxes.segs, wk, cand, np.inf,
                                             extra)
    assert not stopped
    bounds = [bound]
    if not problem.single_head:
        # A complete head's free bound, each output's own best condition on
        # f summed, prices no interval on f (the price is paid once).
        free, stopped = kernels.free_bound(pair.S, boxes.K, pair.Bc, pair.Bf, False, False,
                                           node, boxes.n2, boxes.lam, False, boxes.segs,
                                           *boxes.scratch, pair.ratio_max, np.inf, extra)
        assert not stopped
        bounds.append(free)
    if best > -np.inf:
        for bound_ in bounds:
            assert best <= bound_ - least + 1e-9 * max(1.0, abs(bound_))
    # c fixed to one of the range's intervals: the bound is that pair's best.
    s_ = data.draw(st.integers(s0, s1))
    t_ = data.draw(st.integers(max(t0, s_ + 1), t1))
    if (s_, t_) == (-1, nb - 1):
        return
    fixed = np.array((s_, s_, t_, t_, kernels.FREE, 0, 0, 0), np.int64)
    if problem.single_head:
        exact, _ = kernels.free_bound(pair.S, boxes.K, pair.Bc, pair.Bf, False, False, fixed,
                                      boxes.n2, boxes.lam, True, boxes.segs, *boxes.scratch,
                                      pair.ratio_max, np.inf, extra)
    else:
        exact, _ = kernels.joint_bound(pair.S, boxes.K, pair.Bc, pair.Bf, False, fixed, boxes.n2,
                                       boxes.lam, boxes.segs, wk, cand, np.inf, extra)
    price_c = extra * (s_ >= 0 and t_ < nb - 1)
    # Each f condition's value less its price, at least 0 (the kernels'
    # start: an empty f interval is worth 0).
    expected = max([value(((x > s_) & (x <= t_)) & b) - extra * (price_f - 1)
                    for b, price_f in f_conditions] + [0.0])
    assert exact == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert nbf >= 6 and price_c >= 0


@settings(max_examples=200, deadline=None)
@given(multi_output_problems(max_features=4), st.sampled_from([0.05, 0.3, 1.0]))
def test_a_stopped_search_with_a_cost_bounds_the_penalised_optimum(problem, scale):
    """Stopped at once, the search's upper bound is at least the best
    penalised value of enumeration, and its query's penalised value at most
    that (an honest certified ratio)."""
    cost = scale * brute_force(problem)
    expected = brute_force_penalised(problem, cost)
    conditions, value, stats = mos.multi_output_search(problem, deadline=time.perf_counter(),
                                                       condition_cost=cost)
    penalised = value - cost * priced_conditions(conditions)
    assert penalised <= expected + 1e-9 * max(1.0, abs(expected))
    assert stats["upper_bound"] >= expected - 1e-9 * max(1.0, abs(expected))


@settings(max_examples=100, deadline=None)
@given(multi_output_problems())
def test_a_zero_cost_is_the_plain_search(problem):
    """``condition_cost=0`` returns the plain search's query and value, to the bit."""
    plain = mos.multi_output_search(problem)
    priced = mos.multi_output_search(problem, condition_cost=0.0)
    assert plain[0] == priced[0] and plain[1] == priced[1]
    assert priced[2]["condition_cost"] == 0.0


def test_threads_stopped_with_a_cost_report_an_honest_bound(monkeypatch):
    """Two threads stopped by the deadline: the upper bound (penalised) is
    at least the finished search's best penalised value, which one thread
    finds too."""
    from rulebook import pair_search

    monkeypatch.setattr(pair_search, "SERIAL_SECONDS", 0.0)
    for single in (False, True):
        problem = noise_problem(1, 1000, 8, 40, 3, single, np.ones(3), 2)
        problem.g[problem.X_binned[:, 0] < 10, 0] += 1.0  # some signal
        cost = mos.condition_cost_of(problem, 1.0)
        conditions, value, full = mos.multi_output_search(problem, n_jobs=2,
                                                          condition_cost=cost)
        best = value - cost * priced_conditions(conditions)
        assert full["certified"]
        one, value_one, _ = mos.multi_output_search(problem, n_jobs=1, condition_cost=cost)
        assert value_one - cost * priced_conditions(one) == pytest.approx(best, rel=1e-12)
        conditions, value, stopped = mos.multi_output_search(
            problem, deadline=time.perf_counter() + 0.05, n_jobs=2, condition_cost=cost)
        assert stopped["upper_bound"] >= best * (1 - 1e-12)
        assert value - cost * priced_conditions(conditions) <= best * (1 + 1e-12)


def noise_problem(seed, n, d, n_bins, K, single, scales, limit):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, n_bins, (n, d)).astype(np.uint16))
    g = rng.normal(size=(n, K)) * scales
    g -= g.mean(axis=0)
    return MultiOutputProblem(
        X_binned=X, n_bins=np.full(d, n_bins), is_nominal=np.zeros(d, bool),
        g=np.ascontiguousarray(g), h=np.ones((n, K)), c=np.ones(n), rows=np.arange(n),
        reg_lambda=1e-6, objective=2, max_rule_length=limit, single_head=single)


@pytest.mark.parametrize("single", [False, True])
def test_condition_cost_is_a_factor_of_the_noise_level(single):
    """The formula of ``condition_cost_of``, written out: P propositions
    (two per cut of a numeric column, one per category of a nominal one),
    each output's dispersion with the rows' counts and the spread."""
    rng = np.random.default_rng(3)
    n, K = 40, 3
    c = rng.choice([1.0, 2.0], n)
    g = rng.normal(size=(n, K)) * c[:, None] * [1.0, 2.0, 0.5]
    h = rng.random((n, K)) * c[:, None]
    rows = np.arange(5, n)
    spread = np.array([0.5, 0.0, 1.0])
    problem = MultiOutputProblem(
        X_binned=np.zeros((n, 2), np.uint16, order="F"), n_bins=np.array([7, 4]),
        is_nominal=np.array([False, True]), g=g, h=h, c=c, rows=rows, reg_lambda=1.0,
        objective=2, max_rule_length=2, single_head=single, gradient_spread=spread)
    phi = np.array([((g[rows, k] ** 2 / c[rows]).sum() + spread[k]) / h[rows, k].sum()
                    for k in range(K)])
    P = 2 * 6 + 4
    level = phi.max() * np.log(P)
    if not single:
        level += (np.sqrt(2) - 1) * np.linalg.norm(phi) * np.sqrt(np.log(P))
    n_total = c[rows].sum()
    assert mos.condition_cost_of(problem, 0.25) == pytest.approx(0.25 * level / n_total,
                                                                 rel=1e-12)
    assert mos.condition_cost_of(problem, 0.0) == 0.0


@pytest.mark.parametrize("single,K,spread", [(True, 6, 1.0), (False, 6, 1.0),
                                             (False, 12, 4.0), (True, 12, 4.0)])
def test_noise_level_is_what_a_second_condition_adds_on_noise(single, K, spread):
    """On residuals without signal (8 columns of 32 bins, 1,000 rows), the
    best pair's objective exceeds the best single condition's by about the
    noise level (between half and twice it, over four draws)."""
    scales = np.geomspace(1.0, spread, K)
    rises, levels = [], []
    for seed in range(4):
        one = noise_problem(seed, 1000, 8, 32, K, single, scales, 1)
        two = noise_problem(seed, 1000, 8, 32, K, single, scales, 2)
        rises.append(mos.multi_output_search(two)[1] - mos.multi_output_search(one)[1])
        levels.append(mos.condition_cost_of(two, 1.0))
    assert 0.5 < np.mean(rises) / np.mean(levels) < 2.0


def test_optimal_learner_takes_a_cost_with_several_outputs():
    """``OptimalLearner(condition_cost=x)`` prices conditions with several
    outputs (x times the noise level); ``"auto"`` is
    ``AUTO_MULTI_OUTPUT_CONDITION_COST`` times it; longer rules are still
    refused."""
    from rulebook import OptimalLearner
    from rulebook.optimal import AUTO_MULTI_OUTPUT_CONDITION_COST

    problem = noise_problem(0, 200, 3, 8, 3, False, np.ones(3), 2)
    result = OptimalLearner(condition_cost=0.5, n_jobs=1, time_limit=None).search(problem)
    assert result.stats["condition_cost"] == mos.condition_cost_of(problem, 0.5) > 0
    auto = OptimalLearner(n_jobs=1, time_limit=None).search(problem)
    assert auto.stats["condition_cost"] == mos.condition_cost_of(
        problem, AUTO_MULTI_OUTPUT_CONDITION_COST)
    problem.max_rule_length = 3
    with pytest.raises(ValueError, match="searches rules of at most 2 conditions"):
        OptimalLearner(condition_cost=0.5).search(problem)


def test_a_fit_records_the_cost_of_each_round():
    """A multi-label fit with a cost: ``history_["condition_cost"]`` is each
    round's noise level times the factor, above 0."""
    from rulebook import OptimalLearner, RuleBoostingClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    Y = np.column_stack([X[:, 0] + rng.normal(size=150) > 0, X[:, 1] > 0.5]).astype(int)
    model = RuleBoostingClassifier(n_rules=3, learner=OptimalLearner(condition_cost=1.0,
                                                                       n_jobs=1),
                                   verbose=0).fit(X, Y)
    costs = model.history_["condition_cost"].iloc[1:]
    assert len(costs) >= 1 and (costs > 0).all()
