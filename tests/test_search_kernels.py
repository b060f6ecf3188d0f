"""The search kernels against their NumPy twins in ``naive.py``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _search_kernels as kernels

import naive
from conftest import binned_problems


def _hist(problem, build, per_pass=1):
    hist = np.empty((problem.n_features, int(problem.n_bins.max()) + 1, 4))
    build(problem.X_binned, problem.rows, problem.g, problem.h, problem.c, per_pass, hist)
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
@given(binned_problems(), st.integers(1, 7))
def test_parallel_histograms_and_scans_equal_serial_bitwise(problem, per_pass):
    # Whatever the features per pass, serial or in parallel: the same bits.
    serial = _hist(problem, kernels.build_histograms_serial)
    for build in (kernels.build_histograms_serial, kernels.build_histograms_parallel):
        np.testing.assert_array_equal(_hist(problem, build, per_pass), serial)
    parallel = _hist(problem, kernels.build_histograms_parallel)
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


@pytest.mark.parametrize("min_work, build, scan", [(31, "serial", "serial"),
                                                   (30, "parallel", "serial"),
                                                   (15, "parallel", "parallel"),
                                                   (14, "parallel", "parallel")])
def test_kernels_go_parallel_from_parallel_min_work(min_work, build, scan, monkeypatch):
    """Threads only pay off on large nodes (``RULEBOOK_PARALLEL_MIN_WORK``):
    histograms are built in parallel from rows x features >= the minimum,
    scanned in parallel from features x (max bins + 1) >= it. Here 10 rows
    x 3 features = 30, and 3 features x 5 = 15."""
    from rulebook import search

    calls = []

    def spy(name, kernel):
        def run(*args):
            calls.append(name)
            return kernel(*args)

        return run

    for name in ("build_histograms_serial", "build_histograms_parallel",
                 "scan_histograms_serial", "scan_histograms_parallel"):
        monkeypatch.setattr(kernels, name, spy(name, getattr(kernels, name)))
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", min_work)
    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.integers(0, 5, size=(10, 3)).astype(np.uint16))
    problem = search.SearchProblem(X, np.full(3, 4, np.int64), np.zeros(3, bool),
                                   rng.normal(size=10), np.ones(10), np.ones(10), np.arange(10),
                                   1.0, 2)
    problem.best_refinements(problem.histograms(problem.rows), 10)
    assert calls == [f"build_histograms_{build}", f"scan_histograms_{scan}"]

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


# --- query shortening: greedy set cover and redundant propositions ---------

def _naive_greedy_cover(problem, space, inside, max_chosen):
    """Boley et al. (2021, end of Section 3.2) with masks: among the
    propositions the extent implies, take the one keeping the fewest rows
    outside the extent (the first on ties) until none is left; -1 if
    ``max_chosen`` choices do not get there."""
    rows = problem.rows
    masks = [naive.condition_mask(problem.X_binned, *space.condition(p), problem.n_bins)
             for p in range(len(space))]
    implied = [p for p in space.searched if masks[p][rows[inside[rows]]].all()]
    outside = rows[~inside[rows]]
    chosen = []
    while len(outside) and len(chosen) < max_chosen and implied:
        counts = [int(masks[p][outside].sum()) for p in implied]
        best = implied[int(np.argmin(counts))]  # argmin: the first on ties
        chosen.append(best)
        outside = outside[masks[best][outside]]
    return chosen if len(outside) == 0 else -1


def _extent(problem, space, props):
    mask = np.ones(len(problem.X_binned), bool)
    for p in props:
        mask &= naive.condition_mask(problem.X_binned, *space.condition(p), problem.n_bins)
    return problem.rows[mask[problem.rows]]


@st.composite
def _problems_with_a_query(draw):
    from rulebook.proposition_space import _PropositionSpace

    problem = draw(binned_problems(max_rows=25))
    space = _PropositionSpace._build(problem)
    if len(space) == 0:
        return problem, space, ()
    props = draw(st.lists(st.integers(0, len(space) - 1), min_size=1, max_size=4, unique=True))
    return problem, space, tuple(sorted(props))


@settings(max_examples=300, deadline=None)
@given(_problems_with_a_query(), st.integers(1, 4), st.booleans())
def test_greedy_cover_matches_a_naive_set_cover_and_keeps_the_extent(case, max_chosen, counted):
    """With or without the root's per-bin counts (``counted``: the first
    step from them, the rows outside listed only when a later step needs
    them)."""
    problem, space, props = case
    extent = _extent(problem, space, props)
    inside = np.zeros(len(problem.X_binned), bool)
    inside[extent] = True
    chosen = np.full(max_chosen, -7, np.int64)
    root_counts = (problem.root_histograms()[:, :, kernels.N].astype(np.int64) if counted
                   else np.zeros((0, 0), np.int64))
    k = kernels.greedy_cover(problem.X_binned, problem.rows, np.asarray(extent, np.intp), inside,
                             space.feature, space.op, space.bin, problem.n_bins, space.searched,
                             max_chosen, root_counts, chosen)
    expected = _naive_greedy_cover(problem, space, inside, max_chosen)
    if expected == -1:
        assert k == -1
    else:
        assert chosen[:k].tolist() == expected
        # A cover of the rows outside the extent by implied propositions: the
        # chosen query selects exactly the extent.
        np.testing.assert_array_equal(_extent(problem, space, chosen[:k]), extent)


def test_greedy_cover_finds_the_single_proposition_of_a_two_proposition_extent():
    # x <= 0 and x <= 1 select the rows with x = 0: x <= 0 alone does too.
    X = np.array([[0], [0], [1], [2], [3]], dtype=np.uint16, order="F")
    from rulebook.search import SearchProblem
    from rulebook.proposition_space import _PropositionSpace

    problem = SearchProblem(X, np.array([4]), np.array([False]), np.zeros(5), np.ones(5),
                            np.ones(5), np.arange(5), 0.0, 0)
    space = _PropositionSpace._build(problem)
    le0, le1 = space.numbers([(0, kernels.LE, 0), (0, kernels.LE, 1)])
    inside = np.array([True, True, False, False, False])
    chosen = np.empty(1, np.int64)
    k = kernels.greedy_cover(X, problem.rows, np.array([0, 1]), inside, space.feature, space.op,
                             space.bin, problem.n_bins, space.searched, 1,
                             np.zeros((0, 0), np.int64), chosen)
    assert (k, int(chosen[0])) == (1, le0)
    keep = np.empty(2, bool)
    kernels.redundant(X, problem.rows, space.feature, space.op, space.bin, problem.n_bins,
                      np.array([le0, le1]), 2, keep)
    assert keep.tolist() == [True, False]  # x <= 1 is implied by x <= 0


@settings(max_examples=300, deadline=None)
@given(_problems_with_a_query())
def test_redundant_drops_propositions_last_first_while_the_extent_stays(case):
    problem, space, props = case
    count = len(_extent(problem, space, props))
    keep = np.zeros(len(props), bool)
    kernels.redundant(problem.X_binned, problem.rows, space.feature, space.op, space.bin,
                      problem.n_bins, np.array(props, np.int64), count, keep)
    expected = [True] * len(props)
    for i in reversed(range(len(props))):
        others = [p for j, p in enumerate(props) if j != i and expected[j]]
        if len(_extent(problem, space, others)) == count:
            expected[i] = False
    assert keep.tolist() == expected
    kept = [p for p, k in zip(props, keep) if k]
    np.testing.assert_array_equal(_extent(problem, space, kept), _extent(problem, space, props))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=8), st.integers(0, 3),
       st.integers(0, 9))
def test_count_satisfying_from_prefix_sums_matches_a_sum_over_bins(counts, op, bin_index):
    """The greedy cover's count of a proposition's rows from two prefix sums
    against the sum of the per-bin counts where ``_satisfies`` holds (the
    missing bin last; bin indices past it too)."""
    n_bins = len(counts) - 1
    counts = np.array([counts], np.int64)
    prefix = np.zeros_like(counts)
    kernels._prefix_counts(counts, np.array([n_bins]), np.ones(1, bool), prefix)
    expected = sum(int(counts[0, b]) for b in range(n_bins + 1)
                   if kernels._satisfies.py_func(b, op, bin_index, n_bins))
    assert kernels._count_satisfying.py_func(counts, prefix, 0, op, bin_index, n_bins) == expected


@settings(max_examples=100, deadline=None)
@given(binned_problems())
def test_refined_histograms_equal_child_histograms_bitwise_and_leave_the_root(problem):
    """The greedy search's histograms in reused memory: the root's shared
    (not copied, never modified), children the same bits as
    ``child_histograms``, whether they overwrite the parent or not."""
    root, owned = problem.search_histograms(problem.rows)
    assert root is problem.root_histograms() and not owned
    before = root.copy()
    for condition in naive.candidates(problem.n_bins, problem.is_nominal)[:6]:
        kept, removed = problem.split(problem.rows, condition)
        expected = problem.child_histograms(root, kept, removed)
        np.testing.assert_array_equal(problem.refined_histograms(root, kept, removed, False),
                                      expected)
        parent = root.copy()
        child = problem.refined_histograms(parent, kept, removed, True)
        np.testing.assert_array_equal(child, expected)
    np.testing.assert_array_equal(root, before)


@settings(max_examples=200, deadline=None)
@given(binned_problems(), st.integers(0, 2**32 - 1))
def test_proposition_numbers_from_bin_counts_equal_the_spaces(problem, seed):
    """Shortening's proposition numbers against ``_PropositionSpace.numbers``
    on every condition of the space and on conditions outside it."""
    from rulebook.proposition_space import _PropositionSpace
    from rulebook.shortening import proposition_numbers

    space = _PropositionSpace._build(problem)
    every = [space.condition(p) for p in range(len(space))]
    assert proposition_numbers(problem.n_bins, problem.is_nominal, every) == tuple(range(len(space)))
    rng = np.random.default_rng(seed)
    for _ in range(20):
        condition = (int(rng.integers(problem.n_features)), int(rng.integers(4)),
                     int(rng.integers(-1, int(problem.n_bins.max()) + 2)))
        assert (proposition_numbers(problem.n_bins, problem.is_nominal, [condition])
                == space.numbers([condition]))


@settings(max_examples=200, deadline=None)
@given(binned_problems(), st.integers(0, 2**32 - 1), st.booleans())
def test_shortenings_space_equals_the_proposition_space(problem, seed, masked):
    """Shortening's proposition space (NumPy) against ``_PropositionSpace``'s
    build: the same propositions in the same order, the same searched ones."""
    from rulebook.proposition_space import _PropositionSpace
    from rulebook.shortening import _space_of

    if masked:
        problem.allowed = np.random.default_rng(seed).random(problem.allowed_mask.shape) < 0.5
    expected = _PropositionSpace._build(problem)
    got = _space_of(problem)
    for name in ("feature", "op", "bin", "searched"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
