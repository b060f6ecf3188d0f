"""The exact two-condition search with several outputs
(``rulebook.multi_output_search``, ``rulebook._box_kernels``) against
enumeration of every query of at most two conditions, for complete and
single-output heads."""

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _box_kernels as kernels
from rulebook._search_kernels import LE
from rulebook.multi_output_search import applies, head_value, multi_output_search
from rulebook.search import MultiOutputProblem


@st.composite
def multi_output_problems(draw, max_rows=30, max_features=3, integer_stats=False):
    """A random MultiOutputProblem: ties, missing bins, nominal columns, 1-4 outputs."""
    n = draw(st.integers(1, max_rows))
    d = draw(st.integers(1, max_features))
    K = draw(st.integers(1, 4))
    n_bins = np.array([draw(st.integers(1, 6)) for _ in range(d)], dtype=np.int64)
    is_nominal = np.array([draw(st.booleans()) for _ in range(d)], dtype=np.bool_)
    X = np.empty((n, d), dtype=np.uint16, order="F")
    for j in range(d):
        # Codes up to n_bins[j] inclusive: the last one is the missing bin.
        X[:, j] = draw(st.lists(st.integers(0, int(n_bins[j])), min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if integer_stats:
        g = rng.integers(-4, 5, (n, K)).astype(float)
        h = rng.integers(0, 4, (n, K)).astype(float)
    else:
        g = rng.normal(size=(n, K)) * 3
        h = rng.random((n, K)) * (rng.random((n, K)) < 0.9)
    c = rng.choice([0.0, 1.0, 1.0, 2.0], n)
    if c.sum() == 0:
        c[0] = 1.0
    g, h = g * c[:, None], h * c[:, None]
    return MultiOutputProblem(
        X_binned=X, n_bins=n_bins, is_nominal=is_nominal, g=np.ascontiguousarray(g),
        h=np.ascontiguousarray(h), c=c, rows=np.flatnonzero(c > 0),
        reg_lambda=draw(st.sampled_from([0.01, 1.0, 10.0])), objective=2,
        max_rule_length=draw(st.sampled_from([1, 2])), single_head=draw(st.booleans()))


def column_conditions(problem, f):
    """Every condition on column f as a mask over all rows (missing never in)."""
    x, nb = problem.X_binned[:, f].astype(int), int(problem.n_bins[f])
    if problem.is_nominal[f]:
        sets = [s for size in range(1, nb + 1) for s in itertools.combinations(range(nb), size)
                if size < nb or nb == 1]
    else:
        sets = [range(lo, hi + 1) for lo in range(nb) for hi in range(lo, nb)
                if (lo, hi) != (0, nb - 1)]
    return [np.isin(x, list(s)) for s in sets]


def brute_force(problem):
    """The best value over the root and all queries of at most max_rule_length conditions."""
    rows = np.zeros(len(problem.c), bool)
    rows[problem.rows] = True
    n_total = problem.n_total

    def value(mask):
        m = mask & rows
        return head_value(problem.g[m].sum(axis=0), problem.h[m].sum(axis=0), n_total,
                          problem.reg_lambda, problem.single_head)

    per_column = [column_conditions(problem, f) for f in range(problem.n_features)]
    best = value(np.ones(len(rows), bool))
    for conditions in per_column:
        for a in conditions:
            best = max(best, value(a))
    if problem.max_rule_length == 2:
        for i, j in itertools.combinations(range(problem.n_features), 2):
            for a in per_column[i]:
                for b in per_column[j]:
                    best = max(best, value(a & b))
    return best


def extent_value(problem, conditions):
    rows = problem.rows
    for condition in conditions:
        rows = problem.refine(rows, condition)
    return head_value(problem.g[rows].sum(axis=0), problem.h[rows].sum(axis=0),
                      problem.n_total, problem.reg_lambda, problem.single_head)


@settings(max_examples=250, deadline=None)
@given(multi_output_problems())
def test_search_finds_the_enumerated_optimum(problem):
    """Real-valued statistics: the optimum of enumeration, and the query
    returned has the value reported; the search certifies it."""
    assert applies(problem)
    conditions, value, stats = multi_output_search(problem)
    expected = brute_force(problem)
    np.testing.assert_allclose(value, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(extent_value(problem, conditions), value, rtol=1e-9, atol=1e-12)
    assert len({c[0] for c in conditions}) <= problem.max_rule_length
    assert stats["certified"] and stats["certified_ratio"] == 1.0


@settings(max_examples=250, deadline=None)
@given(multi_output_problems(integer_stats=True))
def test_search_is_exact_with_integer_statistics(problem):
    """Integer statistics make every sum exact: the values are equal."""
    conditions, value, _ = multi_output_search(problem)
    assert value == pytest.approx(brute_force(problem), rel=1e-12, abs=0)
    assert extent_value(problem, conditions) == pytest.approx(value, rel=1e-12, abs=0)


@settings(max_examples=150, deadline=None)
@given(multi_output_problems(), st.data())
def test_bounds_are_admissible(problem, data):
    """A column's root box bounds its every condition (``box_bound``); a
    pair's root, with f free, bounds every query of the pair
    (``free_bound``); with c's condition fixed, f's root range bounds every
    query with that condition on c (``box_bound``)."""
    from rulebook.multi_output_search import _Boxes

    boxes = _Boxes(problem)
    usable = [f for f in range(problem.n_features) if boxes.usable(f)]
    if not usable:
        return
    c = data.draw(st.sampled_from(usable))
    others = [f for f in usable if f != c]
    f = data.draw(st.sampled_from(others)) if others else None
    rows = np.zeros(len(problem.c), bool)
    rows[problem.rows] = True

    def value(mask):
        m = mask & rows
        return head_value(problem.g[m].sum(axis=0), problem.h[m].sum(axis=0), problem.n_total,
                          problem.reg_lambda, problem.single_head)

    def box_bound(box, node, nominal_f):
        return kernels.box_bound(box.S, boxes.K, box.Bc, box.Bf, bool(boxes.nominal[c]),
                                 nominal_f, node, boxes.n2, boxes.lam, boxes.single, boxes.segs,
                                 boxes.sums)

    single = boxes.start(c, None)
    bound = box_bound(single, single.stack[0].copy(), False)
    for a in column_conditions(problem, c):
        assert value(a) <= bound * (1 + 1e-9) + 1e-12
    if f is None:
        return
    pair = boxes.start(c, f)
    root = pair.stack[0].copy()
    bound, stopped = kernels.free_bound(pair.S, boxes.K, pair.Bc, pair.Bf,
                                        bool(boxes.nominal[c]), bool(boxes.nominal[f]), root,
                                        boxes.n2, boxes.lam, boxes.single, boxes.segs,
                                        *boxes.scratch, pair.ratio_max)
    assert not stopped
    for a in column_conditions(problem, c):
        for b in column_conditions(problem, f):
            assert value(a & b) <= bound * (1 + 1e-9) + 1e-12
    if not boxes.nominal[c] and int(problem.n_bins[c]) >= 3:
        # A range of c's intervals with f free, often with inner rows (where
        # the cells between inner and outer count with their Hessian): it
        # bounds every pair of one of its intervals and a condition on f.
        nb = int(problem.n_bins[c])
        s0 = data.draw(st.integers(-1, nb - 2))
        s1 = data.draw(st.integers(s0, nb - 2))
        t0 = data.draw(st.integers(s0 + 1, nb - 1))
        t1 = data.draw(st.integers(max(t0, s1 + 1), nb - 1))
        node = np.array((s0, s1, t0, t1, kernels.FREE, 0, 0, 0), np.int64)
        ranged, stopped = kernels.free_bound(
            pair.S, boxes.K, pair.Bc, pair.Bf, False, bool(boxes.nominal[f]), node, boxes.n2,
            boxes.lam, boxes.single, boxes.segs, *boxes.scratch, pair.ratio_max)
        assert not stopped
        x = problem.X_binned[:, c]
        for s_ in range(s0, s1 + 1):
            for t_ in range(max(t0, s_ + 1), t1 + 1):
                if (s_, t_) == (-1, nb - 1):
                    continue
                a = (x > s_) & (x <= t_)
                for b in column_conditions(problem, f):
                    assert value(a & b) <= ranged * (1 + 1e-9) + 1e-12
    if not problem.single_head and not boxes.nominal[f]:
        wk, cand = np.empty((4, boxes.K, pair.Bf + 1)), np.zeros(8, np.int64)
        joint, stopped = kernels.joint_bound(pair.S, boxes.K, pair.Bc, pair.Bf,
                                             bool(boxes.nominal[c]), root, boxes.n2, boxes.lam,
                                             boxes.segs, wk, cand, np.inf)
        assert not stopped
        for a in column_conditions(problem, c):
            for b in column_conditions(problem, f):
                assert value(a & b) <= joint * (1 + 1e-9) + 1e-12
    # c fixed to one condition (a bin of c by position), f's root range.
    nb = int(problem.n_bins[c])
    if boxes.nominal[c]:
        k = data.draw(st.integers(0, nb - 1))
        c_range, a = (nb, 1 << int(pair.pos_c[k]), 0, 0), problem.X_binned[:, c] == k
    else:
        lo = data.draw(st.integers(0, nb - 2))
        c_range, a = (lo - 1, lo - 1, lo, lo), problem.X_binned[:, c] == lo
    nbf = int(problem.n_bins[f])
    f_root = (0, 0, 0, 0) if boxes.nominal[f] else (-1, nbf - 2, 0, nbf - 1)
    bound = box_bound(pair, np.array(c_range + f_root, np.int64), bool(boxes.nominal[f]))
    for b in column_conditions(problem, f):
        assert value(a & b) <= bound * (1 + 1e-9) + 1e-12
    if not problem.single_head and not boxes.nominal[f]:
        # c fixed: the enumeration is the best interval on f, exactly.
        node = np.array(c_range + (kernels.FREE, 0, 0, 0), np.int64)
        joint, _ = kernels.joint_bound(pair.S, boxes.K, pair.Bc, pair.Bf, bool(boxes.nominal[c]),
                                       node, boxes.n2, boxes.lam, boxes.segs, wk, cand, np.inf)
        best = max([value(a & b) for b in column_conditions(problem, f)], default=0.0)
        np.testing.assert_allclose(joint, best, rtol=1e-9, atol=1e-12)




def numeric_problem(seed, n, d, K, bins):
    """A larger problem of numeric columns, normal gradients and unit Hessians."""
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, bins, (n, d)).astype(np.uint16))
    g, h = rng.normal(size=(n, K)), np.ones((n, K))
    return MultiOutputProblem(X_binned=X, n_bins=np.full(d, bins), is_nominal=np.zeros(d, bool),
                              g=g, h=h, c=np.ones(n), rows=np.arange(n), reg_lambda=1.0,
                              objective=2, max_rule_length=2)

@settings(max_examples=100, deadline=None)
@given(multi_output_problems(max_features=4))
def test_threads_find_the_enumerated_optimum(problem):
    """With several threads (the serial start cut to nothing, so that the
    pool takes the boxes from the first) the optimum of enumeration,
    certified, and the same value as one thread."""
    from rulebook import pair_search as module

    saved = module.SERIAL_SECONDS
    module.SERIAL_SECONDS = 0.0
    try:
        conditions, value, stats = multi_output_search(problem, n_jobs=3)
    finally:
        module.SERIAL_SECONDS = saved
    np.testing.assert_allclose(value, brute_force(problem), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(extent_value(problem, conditions), value, rtol=1e-9, atol=1e-12)
    assert stats["certified"] and stats["pairs_searched"] == stats["pairs"]
    assert 1 <= stats["threads"] <= 3


def test_threads_share_a_stopped_search_honestly(monkeypatch):
    """Threads stopped by the deadline report an upper bound at least the
    optimum, and every box is either finished or counted as open."""
    from rulebook import pair_search

    monkeypatch.setattr(pair_search, "SERIAL_SECONDS", 0.0)
    problem = numeric_problem(seed=1, n=2000, d=12, K=4, bins=120)
    _, best, full = multi_output_search(problem, n_jobs=2)
    assert full["certified"] and full["threads"] == 2
    _, one, _ = multi_output_search(problem, n_jobs=1)
    assert best == pytest.approx(one, rel=1e-12)
    _, value, stats = multi_output_search(problem, deadline=time.perf_counter() + 0.05,
                                          n_jobs=2)
    assert stats["upper_bound"] >= best * (1 - 1e-12)
    assert value <= best * (1 + 1e-12)
    if not stats["certified"]:
        assert stats["pairs_searched"] < stats["pairs"]


def test_seed_and_deadline_give_an_honest_anytime_answer():
    """A search stopped at once returns at least the seed, with a certified
    ratio that is value / upper bound and an upper bound at least the optimum."""
    problem = numeric_problem(seed=0, n=400, d=6, K=3, bins=40)
    _, best, _ = multi_output_search(problem)
    seed_value = extent_value(problem, [(0, LE, 10)])
    _, value, stats = multi_output_search(problem, deadline=0.0,
                                          seed=(seed_value, [(0, LE, 10)]))
    assert value >= seed_value
    assert stats["upper_bound"] >= best * (1 - 1e-12)
    assert stats["certified_ratio"] == pytest.approx(value / stats["upper_bound"])
    if not stats["certified"]:
        assert stats["pairs_searched"] < stats["pairs"]


@settings(max_examples=100, deadline=None)
@given(multi_output_problems(), st.data())
def test_box_grid_equals_numpy_prefix_sums(problem, data):
    """The kernel's 2-D prefix sums against np.add.at and np.cumsum."""
    d = problem.n_features
    c = data.draw(st.integers(0, d - 1))
    f = data.draw(st.integers(0, d - 1))
    Bc, Bf = int(problem.n_bins[c]), int(problem.n_bins[f])
    pos_c = np.append(np.random.default_rng(c).permutation(Bc), Bc).astype(np.int64)
    pos_f = np.append(np.arange(Bf), Bf).astype(np.int64)
    xc, xf = problem.X_binned[:, c].astype(np.int64), problem.X_binned[:, f].astype(np.int64)
    K = problem.g.shape[1]
    got, ratio_max = np.empty((4 * K, Bc + 1, Bf + 1)), np.empty((2, K, Bc))
    kernels.box_grid(xc, xf, pos_c, pos_f, Bc, Bf, problem.g, problem.h, got, ratio_max)
    cells = np.zeros((2 * K, Bc, Bf))
    inside = (xc < Bc) & (xf < Bf)
    for k in range(K):
        np.add.at(cells[k], (pos_c[xc[inside]], pos_f[xf[inside]]), problem.g[inside, k])
        np.add.at(cells[K + k], (pos_c[xc[inside]], pos_f[xf[inside]]), problem.h[inside, k])
    cells = np.concatenate([cells, np.maximum(cells[:K], 0.0), np.minimum(cells[:K], 0.0)])
    expected = np.zeros_like(got)
    expected[:, 1:, 1:] = cells.cumsum(axis=1).cumsum(axis=2)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)
    # Each position's largest |g| / h over its cells of each sign (inf at h = 0).
    g_cells, h_cells = cells[:K], cells[K:2 * K]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(h_cells > 0, np.abs(g_cells) / h_cells, np.inf)
    for side, sign in enumerate((1.0, -1.0)):
        mine = np.where(sign * g_cells > 0, ratio, 0.0).max(axis=2) if Bf else np.zeros((K, Bc))
        np.testing.assert_allclose(ratio_max[side], mine, rtol=1e-9)



@settings(max_examples=100, deadline=None)
@given(multi_output_problems(), st.data())
def test_column_sums_and_strength_equal_numpy(problem, data):
    """The compiled per-bin sums against np.add.at, and the column strength
    that orders the pairs against each output's best condition on the column
    found by enumeration of its conditions (summed, or the largest)."""
    f = data.draw(st.integers(0, problem.n_features - 1))
    nb, K = int(problem.n_bins[f]), problem.g.shape[1]
    x = problem.X_binned[:, f].astype(np.int64)
    G, H = np.empty((nb, K)), np.empty((nb, K))
    kernels.column_sums(x, problem.g, problem.h, nb, G, H)
    inside = x < nb
    expected_G, expected_H = np.zeros((nb, K)), np.zeros((nb, K))
    np.add.at(expected_G, x[inside], problem.g[inside])
    np.add.at(expected_H, x[inside], problem.h[inside])
    np.testing.assert_allclose(G, expected_G, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H, expected_H, rtol=1e-12, atol=1e-12)

    n2, lam, single = 2.0 * problem.n_total, float(problem.reg_lambda), problem.single_head
    B = nb + 1
    got = kernels.column_strength(
        x, problem.g, problem.h, nb, bool(problem.is_nominal[f]), n2, lam, single,
        np.empty((nb, K)), np.empty((nb, K)), np.empty(B), np.empty(B),
        np.empty((2, B + 1), np.int64), np.empty((2, B + 1)), np.empty(B),
        np.empty(B, np.int64))
    conditions = column_conditions(problem, f)
    terms = [max([0.0] + [float(problem.g[m, k].sum() ** 2 / (n2 * (lam + problem.h[m, k].sum())))
                          for m in conditions]) for k in range(K)]
    expected = max(terms) if single else sum(terms)
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)

def _loss_statistics(loss_name, rng, n, K):
    """g, h (n, K) of a loss at random targets and raw scores."""
    from rulebook.losses import OutputWiseLoss, get_loss

    raw = rng.normal(size=(n, K))
    w = np.ones(n)
    if loss_name == "multinomial":
        y = np.eye(K)[rng.integers(0, K, n)]
        return get_loss("multinomial").gradient_hessian(y, raw, w)
    if loss_name == "logistic":
        y = rng.choice([-1.0, 1.0], (n, K))
    elif loss_name == "poisson":
        y = rng.poisson(2.0, (n, K)).astype(float)
    else:
        y = rng.normal(size=(n, K)) * 2
    return OutputWiseLoss(get_loss(loss_name)).gradient_hessian(y, raw, w)


@pytest.mark.parametrize("single_head", [False, True], ids=["complete", "single"])
@pytest.mark.parametrize("loss_name", ["multinomial", "logistic", "squared", "poisson"])
@settings(max_examples=200, deadline=None)
@given(problem=multi_output_problems(max_rows=25), seed=st.integers(0, 2**32 - 1))
def test_search_is_optimal_for_each_loss_and_head(loss_name, single_head, problem, seed):
    """Each loss's gradients and Hessians (multinomial: 2-4 classes,
    label-wise logistic, squared, Poisson), each head kind: the optimum of
    enumeration."""
    from dataclasses import replace

    n, K = problem.g.shape
    K = max(K, 2) if loss_name == "multinomial" else K
    g, h = _loss_statistics(loss_name, np.random.default_rng(seed), n, K)
    c = problem.c[:, None]
    problem = replace(problem, g=np.ascontiguousarray(g * c), h=np.ascontiguousarray(h * c),
                      single_head=single_head)
    conditions, value, stats = multi_output_search(problem)
    np.testing.assert_allclose(value, brute_force(problem), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(extent_value(problem, conditions), value, rtol=1e-9, atol=1e-12)
    assert stats["certified"]


def test_progress_reports_what_the_progress_line_shows(monkeypatch):
    """A long search reports nodes, best value, certified ratio and threads
    (what the estimator's progress line formats), the ratio in [0, 1]."""
    from rulebook import _progress as progress
    from rulebook import multi_output_search as module

    monkeypatch.setattr(progress, "REPORT_INTERVAL", 0.0)
    monkeypatch.setattr(progress, "wants_reports", lambda: True)
    rng = np.random.default_rng(1)
    n, d, K = 300, 4, 3
    X = np.asfortranarray(rng.integers(0, 30, (n, d)).astype(np.uint16))
    problem = MultiOutputProblem(X_binned=X, n_bins=np.full(d, 30), is_nominal=np.zeros(d, bool),
                                 g=rng.normal(size=(n, K)), h=np.ones((n, K)), c=np.ones(n),
                                 rows=np.arange(n), reg_lambda=1.0, objective=2,
                                 max_rule_length=2)
    seen = []

    def show(nodes, best, certified_ratio, threads):
        seen.append((nodes, best, certified_ratio, threads))

    with progress.reporting(show):
        module.multi_output_search(problem)
    assert seen and all(0.0 <= ratio <= 1.0 and threads == 1 for _, _, ratio, threads in seen)
