"""The tight bound of Theorem 3.1 against the maximum over all subsets."""

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rulebook import _bound_kernels as kernels
from rulebook.objectives import _objective
from rulebook.optimal import ratio_order
from rulebook.search import SearchProblem

import naive
from conftest import binned_problems


def subset_maximum(problem, extent):
    """max {obj(J) : J subset of extent}, by enumerating every subset."""
    m = len(extent)
    subsets = ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1).astype(float)
    g, h, c = (subsets @ a[extent] for a in (problem.g, problem.h, problem.c))
    values = naive.objective_value(naive.NAMES[problem.objective], g, h, c, problem.n_total,
                                   problem.reg_lambda)
    return float(np.max(values))


def kernel_bound(problem, extent):
    return kernels.bound(extent, len(extent), problem.g, problem.h, problem.c,
                         problem.objective, problem.n_total, problem.reg_lambda)


@st.composite
def problems_with_extent(draw, integer_stats):
    """A problem and a sub-extent of its rows, in the search's row order."""
    problem = draw(binned_problems(max_rows=11, integer_stats=integer_stats))
    order = ratio_order(problem)
    keep = np.array(draw(st.lists(st.booleans(), min_size=len(order), max_size=len(order))))
    return problem, order[keep]


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=True))
def test_bound_is_tight_with_exact_sums(problem_extent):
    """Integer statistics: every sum is exact, so equality is exact."""
    problem, extent = problem_extent
    assert kernel_bound(problem, extent) == subset_maximum(problem, extent)


@settings(max_examples=200, deadline=None)
@given(problems_with_extent(integer_stats=False))
def test_bound_is_tight_with_real_statistics(problem_extent):
    problem, extent = problem_extent
    np.testing.assert_allclose(kernel_bound(problem, extent), subset_maximum(problem, extent),
                               rtol=1e-9, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(binned_problems(max_rows=30, max_features=3))
def test_bound_is_admissible_for_refinements(problem):
    """bnd(I(q)) >= obj(q p) and >= obj(q p p') for all propositions p, p'."""
    candidates = naive.candidates(problem.n_bins, problem.is_nominal)
    masks = [naive.condition_mask(problem.X_binned, *cond, problem.n_bins)[problem.rows]
             for cond in candidates]
    order = ratio_order(problem)
    name = naive.NAMES[problem.objective]
    for q in [np.ones(len(problem.rows), bool)] + masks:
        in_q = np.isin(order, problem.rows[q])
        bound = kernel_bound(problem, order[in_q])
        for p in masks:
            for p2 in [np.ones_like(p)] + masks:
                sub = problem.rows[q & p & p2]
                value = naive.objective_value(name, problem.g[sub].sum(), problem.h[sub].sum(),
                                              problem.c[sub].sum(), problem.n_total,
                                              problem.reg_lambda)
                assert bound >= value * (1 - 1e-9) - 1e-12


def _problem(g, h, reg_lambda, objective=2):
    n = len(g)
    X = np.zeros((n, 1), np.uint16, order="F")
    return SearchProblem(X, np.array([1]), np.array([False]), np.asarray(g, float),
                         np.asarray(h, float), np.ones(n), np.arange(n), reg_lambda, objective)


def test_zero_hessian_rows_without_regularisation():
    """lambda = 0 and a row with h = 0: the optimum {0, 2} is neither a prefix
    nor a suffix of the ratio order; the bound still finds it."""
    problem = _problem(g=[100.0, 2.0, 0.99], h=[0.0, 2.0, 1.0], reg_lambda=0.0)
    order = ratio_order(problem)
    np.testing.assert_array_equal(order, [0, 1, 2])
    expected = 100.99 ** 2 / (2 * 3 * 1.0)
    assert subset_maximum(problem, order) == expected
    assert kernel_bound(problem, order) == expected
    # The sign of the single h > 0 row may even oppose the h = 0 rows.
    problem = _problem(g=[100.0, -1.0], h=[0.0, 0.01], reg_lambda=0.0)
    order = ratio_order(problem)
    np.testing.assert_allclose(kernel_bound(problem, order), subset_maximum(problem, order))
    assert subset_maximum(problem, order) > 0


def test_zero_hessian_rows_of_negative_gradients_without_regularisation():
    """The mirror image (gradients negated) of the case above: the objective
    reads G only squared, so the bound and the optimum are the same, now a
    set of negative gradients."""
    problem = _problem(g=[-100.0, -2.0, -0.99], h=[0.0, 2.0, 1.0], reg_lambda=0.0)
    order = ratio_order(problem)
    expected = 100.99 ** 2 / (2 * 3 * 1.0)
    assert subset_maximum(problem, order) == expected
    assert kernel_bound(problem, order) == expected


def test_zero_hessian_singletons_with_unequal_sample_weights():
    """The cases above with a light h = 0 row (weight 0.5): the objective
    reads the weights only through C > 0, so the optimum is the same set,
    over twice n = 2.5."""
    for sign in (1.0, -1.0):
        g = sign * np.array([100.0, 2.0, 0.99])
        problem = SearchProblem(np.zeros((3, 1), np.uint16, order="F"), np.array([1]),
                                np.array([False]), g, np.array([0.0, 2.0, 1.0]),
                                np.array([0.5, 1.0, 1.0]), np.arange(3), 0.0, 2)
        order = ratio_order(problem)
        expected = 100.99 ** 2 / (2 * 2.5 * 1.0)
        assert subset_maximum(problem, order) == expected
        assert kernel_bound(problem, order) == expected


def test_ratio_order_is_descending_with_infinite_ratios_at_the_ends():
    problem = _problem(g=[1.0, -3.0, 0.0, 2.0, 5.0, -1.0, 0.0],
                       h=[1.0, 0.0, 0.0, 1.0, 0.0, 4.0, 2.0], reg_lambda=1.0)
    np.testing.assert_array_equal(ratio_order(problem), [4, 3, 0, 2, 6, 5, 1])
    # The gradient-boosting objective orders by g / c instead.
    problem.objective = 1
    problem.c = np.array([1.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(ratio_order(problem), [4, 0, 3, 2, 6, 5, 1])


def test_gradient_sum_bound_is_the_larger_one_sided_sum():
    problem = _problem(g=[1.0, -3.0, 2.0, -0.5], h=[1.0] * 4, reg_lambda=0.0, objective=0)
    assert kernel_bound(problem, np.arange(4)) == 3.5
    assert kernel_bound(problem, np.arange(0)) == 0.0


def evaluate_child(problem, extent):
    """Run ``_evaluate_child`` on ``extent`` laid out in positions of the ratio order."""
    from rulebook import _bnb_kernels as bnb

    order = ratio_order(problem)
    rank = np.empty(problem.g.shape[0], np.int64)
    rank[order] = np.arange(len(order))
    positions = np.sort(rank[extent])
    n = len(order)
    W = max(1, (n + 63) // 64)
    ext = np.zeros(W, np.uint64)
    for p in positions:
        ext[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    full = np.full(W, np.uint64(0xFFFFFFFFFFFFFFFF))
    gp, hp, cp = problem.g[order], problem.h[order], problem.c[order]
    out_ext, out_rows, sums = np.empty(W, np.uint64), np.empty(n, np.int64), np.empty(3)
    m, bnd = bnb._evaluate_child(ext, full[None, :], 0, out_ext, bnb.negative_start(gp), gp, hp,
                                 cp, problem.objective, problem.n_total, problem.reg_lambda, sums,
                                 out_rows)
    return m, out_ext, ext, sums, bnd, order


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=False))
def test_fused_child_evaluation_equals_bound_and_sums(problem_extent):
    """The search loop's one-pass evaluation: extent, sums and bound."""
    problem, extent = problem_extent
    m, out_ext, ext, sums, bnd, order = evaluate_child(problem, extent)
    assert m == len(extent)
    np.testing.assert_array_equal(out_ext, ext)
    G, H, C = problem.g[extent].sum(), problem.h[extent].sum(), problem.c[extent].sum()
    # The sums the objective reads: H only for the second-order objective
    # (code 2), which reads C only as "C > 0"; the others read G and C.
    read = [0, 1] if problem.objective == 2 else [0, 2]
    np.testing.assert_allclose(sums[read], np.array([G, H, C])[read], rtol=1e-12, atol=1e-12)
    assert (sums[2] > 0) == (C > 0)
    value = _objective(problem.objective, *sums, problem.n_total, problem.reg_lambda)
    expected = naive.objective_value(naive.NAMES[problem.objective], G, H, C, problem.n_total,
                                     problem.reg_lambda)
    assert np.isclose(value, expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(bnd, subset_maximum(problem, extent), rtol=1e-9, atol=1e-12)


def prefix_suffix_maximum(objective, g, h, c, n_total, reg_lambda):
    """Theorem 3.1 in NumPy: the best prefix or suffix of rows in ratio order."""
    if len(g) == 0:
        return 0.0
    name = naive.NAMES[objective]
    pre = [np.cumsum(a) for a in (g, h, c)]
    suf = [np.cumsum(a[::-1]) for a in (g, h, c)]
    values = [naive.objective_value(name, *sums, n_total, reg_lambda) for sums in (pre, suf)]
    return max(0.0, float(np.max(np.concatenate(values))))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.sampled_from([0, 1, 2]), st.sampled_from([0.0, 0.5, 30.0]),
       st.integers(0, 2**32 - 1))
def test_child_evaluation_on_many_words(n, objective, reg_lambda, seed):
    """Extents over several 64-bit words: the forward (positive gradients)
    and backward (negative gradients) walks meet inside a word or at a word
    boundary; sums and bound match NumPy."""
    from rulebook import _bnb_kernels as bnb

    rng = np.random.default_rng(seed)
    # Gradients with ties and zeros; some h == 0 only where lambda > 0 (at
    # lambda == 0 the kernel defers to ``bound``, tested above).
    g = rng.choice([-2.0, -0.5, 0.0, 0.25, 1.0], n) * rng.uniform(0.5, 1.5, n)
    h = rng.uniform(0.1, 2.0, n) * (rng.random(n) > (0.2 if reg_lambda > 0 else 0.0))
    problem = _problem(g=g, h=h, reg_lambda=reg_lambda, objective=objective)
    problem.c = rng.uniform(0.5, 2.0, n)
    extent = np.flatnonzero(rng.random(n) < rng.uniform(0.05, 1.0))
    m, out_ext, ext, sums, bnd, order = evaluate_child(problem, extent)
    assert m == len(extent)
    np.testing.assert_array_equal(out_ext, ext)
    weight = problem.h if objective == 2 else problem.c
    np.testing.assert_allclose(sums[:2], [g[extent].sum(), weight[extent].sum()],
                               rtol=1e-12, atol=1e-12)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    rows = order[np.sort(rank[extent])]  # the extent in ratio order
    if objective == 0:
        expected = max(g[rows][g[rows] > 0].sum(), -g[rows][g[rows] < 0].sum())
    else:
        expected = prefix_suffix_maximum(objective, g[rows], problem.h[rows], problem.c[rows],
                                         problem.n_total, reg_lambda)
    np.testing.assert_allclose(bnd, expected, rtol=1e-12, atol=1e-12)


def ratio_order_reference(problem):
    """``ratio_order`` in NumPy: the ratio descending, then the sign of g
    (for ratios that underflow to 0), then row order."""
    rows = problem.rows
    g = problem.g[rows]
    w = (problem.c if problem.objective == 1 else problem.h)[rows]
    key = np.zeros(len(rows))
    with np.errstate(over="ignore", under="ignore"):
        np.divide(g, w, out=key, where=w > 0)
    np.clip(key, -np.finfo(float).max, np.finfo(float).max, out=key)
    zero = (w <= 0) & (g != 0)
    key[zero] = np.copysign(np.inf, g[zero])
    return rows[np.lexsort((-np.sign(g), -key))]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 60), st.sampled_from([1, 2]), st.integers(0, 2**32 - 1))
def test_ratio_order_matches_numpy(n, objective, seed):
    """Ties, zeros, h == 0, ratios that overflow and ratios that underflow."""
    rng = np.random.default_rng(seed)
    g = rng.choice([0.0, 1.0, -1.0, 2.5, 1e-300, -1e-300, 1e300, -1e300], n)
    h = rng.choice([0.0, 1.0, 0.5, 1e-300, 1e300], n)
    problem = _problem(g=g, h=h, reg_lambda=1.0, objective=objective)
    problem.c = rng.choice([0.5, 1.0, 1e300], n)
    problem.rows = np.sort(rng.choice(n, rng.integers(0, n + 1), replace=False)).astype(np.intp)
    order = ratio_order(problem)
    np.testing.assert_array_equal(order, ratio_order_reference(problem))
    signs = np.sign(problem.g[order])
    assert np.all(np.diff(signs) <= 0)  # positive, zero, negative


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 200), st.integers(0, 2**32 - 1))
def test_negative_start_is_the_first_negative_gradient(n, seed):
    """Binary search over gradients that are positive, zero, then negative."""
    from rulebook import _bnb_kernels as bnb

    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, rng.dirichlet(np.ones(3)))
    gp = np.concatenate([rng.uniform(0.1, 2.0, counts[0]), np.zeros(counts[1]),
                         -rng.uniform(0.1, 2.0, counts[2])])
    expected = int(np.flatnonzero(gp < 0)[0]) if (gp < 0).any() else n
    assert bnb.negative_start(gp) == expected


@settings(max_examples=200, deadline=None)
@given(codes=st.lists(st.integers(0, 4), min_size=1, max_size=12), nb=st.integers(1, 4),
       op=st.sampled_from([kernels.LE, kernels.GT, kernels.EQ, 3]), k=st.integers(0, 3))
def test_implies_is_every_row_satisfying_the_proposition(codes, nb, op, k):
    # ``_implies`` decides from per-bin counts and the occupied range alone
    # whether a whole extent satisfies (op, k); the rows say it directly.
    # Propositions that exist: thresholds k < nb - 1, categories k < nb.
    assume(k < (nb - 1 if op in (kernels.LE, kernels.GT) else nb))
    column = np.minimum(np.array(codes), nb)  # code nb is the missing bin
    counts = np.bincount(column, minlength=nb + 1).astype(np.int64)
    present = column[column < nb]
    lo, hi = (present.min(), present.max()) if present.size else (nb, -1)
    expected = naive.condition_mask(column[:, None], 0, op, k, np.array([nb])).all()
    assert kernels._implies(counts, nb, len(column), lo, hi, op, k) == expected


@settings(max_examples=60, deadline=None)
@given(problem=binned_problems(max_rows=20, max_features=3), data=st.data())
def test_implied_by_node_matches_the_condition_masks(problem, data):
    from rulebook import _bnb_extents as extents
    from rulebook.proposition_space import _PropositionSpace

    space = _PropositionSpace.of(problem)
    pf, pop, pb = space.feature, space.op, space.bin
    rows = np.array(data.draw(st.lists(st.sampled_from(list(problem.rows)), min_size=1,
                                       unique=True)), dtype=np.intp)
    X = problem.X_binned
    counts = np.zeros((X.shape[1], int(problem.n_bins.max()) + 1), dtype=np.int64)
    lo_hi = np.zeros((X.shape[1], 2), dtype=np.int64)
    implied = np.zeros(len(pf), dtype=np.bool_)
    extents._implied_by_node(X, rows, len(rows), problem.n_bins, pf, pop, pb, counts, lo_hi,
                             implied)
    for p in range(len(pf)):
        mask = naive.condition_mask(X, pf[p], pop[p], pb[p], problem.n_bins)
        assert implied[p] == mask[rows].all(), p


@settings(max_examples=80, deadline=None)
@given(problem=binned_problems(max_rows=20, max_features=3), data=st.data())
def test_critical_index_is_the_first_new_implied_proposition(problem, data):
    # crt(q p_a) = min {j < a : p_j in clo(q p_a), p_j not in clo(q)}, or a
    # (Boley et al. 2021, Section 3.2), with clo the propositions an extent
    # lies inside; here from the condition masks, without a length limit.
    from rulebook import _bnb_extents as extents
    from rulebook.proposition_space import _PropositionSpace

    space = _PropositionSpace.of(problem)
    pf, pop, pb = space.feature, space.op, space.bin
    assume(len(pf) > 0)
    X, n_bins = problem.X_binned, problem.n_bins
    masks = [naive.condition_mask(X, pf[p], pop[p], pb[p], n_bins) for p in range(len(pf))]
    q_rows = np.array(data.draw(st.lists(st.sampled_from(list(problem.rows)), min_size=1,
                                         unique=True)), dtype=np.intp)
    a = data.draw(st.integers(0, len(pf) - 1))
    child = q_rows[masks[a][q_rows]]
    assume(len(child) > 0)
    closure_q = np.array([mask[q_rows].all() for mask in masks])
    expected = next((j for j in range(a) if masks[j][child].all() and not closure_q[j]), a)

    words = (len(pf) + 63) // 64
    ones = np.full(words, np.iinfo(np.uint64).max, dtype=np.uint64)
    counts = np.zeros((X.shape[1], int(n_bins.max()) + 1), dtype=np.int64)
    lo_hi = np.zeros((X.shape[1], 2), dtype=np.int64)
    stamps = np.zeros(X.shape[1], dtype=np.int64)
    got = extents._critical_index(X, child, len(child), a, n_bins, pf, pop, pb, closure_q,
                                  counts, lo_hi, 1, stamps, ones, ones)
    assert got == expected
