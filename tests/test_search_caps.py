"""Memory caps of the searches (issue 26, defect 5).

The optimal learner's branch and bound keeps its open list, records and
augmentation lists within ``memory_limit``: it reclaims what no open query
reaches (exact) and else drops the open queries of smallest bound (anytime,
honest certificate). The orthogonal branch and bound stops, as at its node
budget, before an expansion that could exceed its ``memory_limit``.
"""

import time

import numpy as np
import pandas as pd
import pytest
from conftest import binned_problems
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_optimal import ORDERS, SMALL, assert_consistent, brute_force

from rulebook import OptimalLearner, OrthogonalLearner, RuleBoostingRegressor
from rulebook import _bnb_pools as pools
from rulebook import _orthogonal_bnb_kernels as obnb
from rulebook.bnb_search import _BranchAndBound
from rulebook.optimal import optimal_search
from rulebook.orthogonal import ChannelProblem, OrthogonalBasis, branch_and_bound
from rulebook.search import SearchProblem

TOL = 1e-9


def _noise_problem(n=300, d=6, bins=8, limit=None, seed=0):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, bins, (n, d)).astype(np.uint16))
    g = rng.normal(size=n)
    return SearchProblem(X, np.full(d, bins), np.zeros(d, bool), g, np.ones(n), np.ones(n),
                         np.arange(n), 1.0, 2, max_rule_length=limit)


def _same_search(a, b):
    assert a.conditions == b.conditions
    assert a.value == b.value
    np.testing.assert_array_equal(a.rows, b.rows)
    timing = ("search_time", "trace")
    assert ({k: v for k, v in a.stats.items() if k not in timing}
            == {k: v for k, v in b.stats.items() if k not in timing})


# -- the optimal learner -------------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("limit", [None, 3])
def test_a_tiny_cap_gives_an_honest_uncertified_result(order, limit):
    problem = _noise_problem(limit=limit)
    exact = optimal_search(problem, order=order)
    assert exact.stats["certified"] and exact.stats["nodes_dropped"] == 0
    capped = optimal_search(problem, order=order, memory_limit=0.01)
    stats = capped.stats
    assert_consistent(problem, capped)
    assert stats["nodes_dropped"] > 0
    assert not stats["certified"]
    assert capped.value <= exact.value * (1 + TOL)
    assert stats["upper_bound"] >= exact.value * (1 - TOL)
    assert 0 < stats["certified_ratio"] < 1
    # What the ratio promises: the optimum is at most value / ratio.
    assert capped.value / stats["certified_ratio"] >= exact.value * (1 - TOL)


@settings(max_examples=100, deadline=None)
@given(binned_problems(**SMALL), st.sampled_from([1e-5, 1e-4, 1e-3]), st.sampled_from(ORDERS))
def test_capped_search_certificate_is_true(problem, memory_limit, order):
    expected = brute_force(problem)
    result = optimal_search(problem, order=order, memory_limit=memory_limit)
    stats = result.stats
    assert_consistent(problem, result)
    assert result.value <= expected * (1 + TOL) + 1e-12
    assert stats["upper_bound"] >= expected * (1 - TOL) - 1e-12
    if stats["certified_ratio"] > 0:
        assert result.value / stats["certified_ratio"] >= expected * (1 - TOL) - 1e-12
    if stats["certified"]:
        np.testing.assert_allclose(result.value, expected, rtol=TOL, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(binned_problems(integer_stats=True, **SMALL), st.sampled_from(ORDERS))
def test_a_cap_never_reached_changes_nothing(problem, order):
    uncapped = optimal_search(problem, order=order)
    _same_search(optimal_search(problem, order=order, memory_limit=256), uncapped)
    assert uncapped.value == brute_force(problem)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("limit", [None, 2])
def test_reclaiming_unreachable_records_keeps_the_search_exact(order, limit):
    """Compaction alone (no open query dropped) in the middle of a search:
    the rest of the search makes the same decisions as without it."""
    problem = _noise_problem(n=200, d=5, limit=limit, seed=3)

    def searched(compact_after):
        search = _BranchAndBound(problem, order, 1.0, time.perf_counter())
        search.run(compact_after, None)
        if compact_after is not None:
            before = search._n_open()
            search.open, search.rec, search.rec_ext, search.aug = pools.compact(
                search.open, search.rec, search.rec_ext, search.aug, search.istate,
                search.order, len(search.props), search.store_ext)
            assert search._n_open() == before
            search.run(None, None)
        return search

    plain = searched(None)
    for k in (1, 7, 50, 400):
        compacted = searched(k)
        assert compacted.best_value == plain.best_value
        assert compacted.best_query() == plain.best_query()
        assert compacted.n_expanded == plain.n_expanded
        np.testing.assert_array_equal(compacted.counters, plain.counters)


def test_compact_keeps_only_what_open_queries_reach():
    # Records: 0 root; 1, 2 children of 0; 3 child of 1; 4 child of 3.
    parent = np.array([-1, 0, 0, 1, 3])
    assert pools.live_records(parent, np.array([3]), -1).tolist() == [1, 1, 0, 1, 0]
    assert pools.live_records(parent, np.array([], np.int64), 4).tolist() == [1, 1, 0, 1, 1]
    assert pools.live_records(parent, np.array([2, 2]), -1).tolist() == [1, 0, 1, 0, 0]


def test_drop_open_keeps_the_largest_bounds():
    bounds = np.array([5.0, 1.0, 3.0, 3.0, 4.0])
    ties = np.array([0, 1, 2, 3, 4])
    for order in (0, 2):  # best-first: sorted (a heap); depth-first: in order
        open_ = [bounds.copy(), ties.copy(), np.arange(5), np.arange(5)]
        istate = np.zeros(11, np.int64)
        istate[pools.N_OPEN] = 5
        top, dropped = pools.drop_open(open_, istate, order, 3)
        assert (top, dropped) == (3.0, 2)
        kept = open_[1][:3].tolist()
        assert kept == ([0, 4, 2] if order == 0 else [0, 2, 4])
        assert istate[pools.N_OPEN] == 3


def test_parallel_capped_search_is_honest():
    # Small enough for the exact search (2 s; 600 x 8 x 12 took 250 s), large
    # enough that the tiny cap drops queries (365 here) and the certificate
    # is withheld.
    problem = _noise_problem(n=400, d=6, bins=10, seed=5)
    exact = optimal_search(problem, n_jobs=1)
    capped = optimal_search(problem, n_jobs=2, memory_limit=0.02)
    assert capped.value <= exact.value * (1 + TOL)
    assert capped.stats["upper_bound"] >= exact.value * (1 - TOL)
    if capped.stats["nodes_dropped"] and capped.value < exact.value:
        assert not capped.stats["certified"]


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), "256", True])
def test_memory_limit_is_validated(value):
    with pytest.raises(ValueError, match="memory_limit"):
        OptimalLearner(memory_limit=value)
    with pytest.raises(ValueError, match="memory_limit"):
        OrthogonalLearner(memory_limit=value)


def test_memory_limit_defaults():
    assert OptimalLearner().memory_limit == 256
    assert OrthogonalLearner().memory_limit == 1024
    assert OptimalLearner(memory_limit=None).memory_limit is None
    with pytest.raises(ValueError, match="memory_limit"):
        optimal_search(_noise_problem(n=20), memory_limit=0)


# -- the orthogonal branch and bound -------------------------------------------
def _channels(n=400, d=5, bins=10, seed=0):
    problem = _noise_problem(n=n, d=d, bins=bins, seed=seed)
    return ChannelProblem.orthogonal(problem, OrthogonalBasis(problem.c, 0), 1e-3)


@pytest.mark.parametrize("memory_limit", [0.01, 0.05, 0.2, 0.5])
def test_orthogonal_cap_stops_like_a_node_budget(memory_limit):
    """Stopped by memory after k expansions, the kernel has seen a prefix
    of what the node budget k sees: a value at most that one's, the same
    query when it stopped before an expansion (the check beside max_nodes)."""
    channels = _channels()
    capped = branch_and_bound(channels, max_nodes=2000, memory_limit=memory_limit)
    assert capped.stats["memory_exhausted"] and capped.stats["budget_exhausted"]
    budget = branch_and_bound(channels, max_nodes=capped.stats["n_nodes"])
    assert capped.value <= budget.value
    assert capped.value == pytest.approx(channels.value(capped.rows), rel=1e-9, abs=1e-12)
    if capped.stats["n_refinements"] == budget.stats["n_refinements"] and (
            capped.stats["n_pruned"] == budget.stats["n_pruned"]):
        assert (capped.conditions, capped.value) == (budget.conditions, budget.value)


def test_orthogonal_cap_never_reached_changes_nothing():
    channels = _channels()
    capped = branch_and_bound(channels, max_nodes=300, memory_limit=256)
    plain = branch_and_bound(channels, max_nodes=300)
    assert not capped.stats.pop("memory_exhausted")
    _same_search(capped, plain)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50), st.integers(1, 4096),
       st.integers(1, 300),
       st.integers(0, 10**5), st.integers(1, 2000), st.integers(0, 60), st.integers(0, 10**5),
       st.lists(st.integers(1, 5000), min_size=6, max_size=6), st.integers(10, 17),
       st.sampled_from([1, 51, 64, 100, 5000, obnb._UNLIMITED]))
def test_pool_projections_match_numpy(n_exp, n_hist, n_bits, hsize, n_words, n_order_used,
                                      n_ref_max, heap_size, n_entries, caps, log_slots,
                                      max_nodes):
    """The compiled projections against growing real arrays with ``_grow``
    and a table with ``_rehash``."""
    node_cap = max_nodes
    unlimited = obnb._UNLIMITED
    ei, hist_pool, bit_pool, order_pool, heap, entries = (
        np.empty((caps[0], obnb.EI_COLUMNS), np.int64), np.empty((1 + caps[1] % 64, 1, 1, hsize)),
        np.empty((1 + caps[2] % 64, n_words), np.int64),
        np.empty(caps[3], np.int64), np.empty(obnb.HEAP_FIELDS * caps[4]),
        np.empty((caps[5], 3), np.int64))
    slots = obnb._empty_table(1 << log_slots)
    table = slots.nbytes
    got = obnb._next_expansion_bytes(n_exp, n_hist, n_bits, hsize, n_order_used, n_ref_max,
                                     heap_size, ei, hist_pool, bit_pool, order_pool, heap, slots, entries,
                                     max_nodes)
    expected = (obnb._grow_table(ei, n_exp + 1, node_cap).shape[0] * (obnb.EI_COLUMNS + 1) * 8
                + obnb._grow_hists(hist_pool, n_hist + 1, node_cap).nbytes
                + obnb._grow_table(bit_pool, n_bits + 1, node_cap).nbytes
                + 2 * obnb._grow(order_pool, n_order_used + n_ref_max, unlimited).nbytes
                + obnb._grow(heap, obnb.HEAP_FIELDS * (heap_size + 1), unlimited).nbytes
                + entries.nbytes + table)
    assert got == expected
    n_keys = min(n_entries, len(slots) // 2)  # the table is at most half full
    got = obnb._next_pop_bytes(n_entries, n_keys, ei, hist_pool, bit_pool, order_pool, heap,
                               slots, entries)
    if 2 * (n_keys + 1) > len(slots):
        table = obnb._rehash(slots).nbytes
    expected = (ei.shape[0] * (obnb.EI_COLUMNS + 1) * 8 + hist_pool.nbytes + bit_pool.nbytes
                + 2 * order_pool.nbytes + heap.nbytes
                + obnb._grow_table(entries, n_entries + 1, unlimited).nbytes + table)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 300), max_size=120, unique=True), st.integers(0, 3))
@example([0, 63, 64, 127, 300], 0)
@example(list(range(64, 200)), 1)  # full words: read 64 rows at once
def test_an_extent_kept_as_a_bitset_comes_back_ascending(rows, extra_words):
    """Expansions keep their rows as bitsets (``_store_rows`` / ``_load_rows``):
    the same rows come back, ascending, whatever stood in the words before;
    bit 63 (the int64 sign bit) included."""
    rows = np.array(sorted(rows), np.intp)
    n_words = 301 // 64 + 1 + extra_words
    bits = np.full(n_words, -1, np.int64)  # stale bits from an earlier use
    obnb._store_rows(rows, len(rows), bits)
    out = np.full(n_words * 64, -7, np.intp)
    k = obnb._load_rows(bits, out)
    np.testing.assert_array_equal(out[:k], rows)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 300), max_size=200, unique=True),
       st.lists(st.integers(0, 300), max_size=200, unique=True))
@example(list(range(256)), list(range(64, 128)))
def test_the_difference_of_two_bitsets_is_numpys(rows, minus):
    # _load_difference: the rows of one extent not in another (a node's
    # rows its parent's condition removed), ascending.
    n_words = 301 // 64 + 1
    bits, other = np.zeros(n_words, np.int64), np.zeros(n_words, np.int64)
    obnb._store_rows(np.array(sorted(rows), np.intp), len(rows), bits)
    obnb._store_rows(np.array(sorted(minus), np.intp), len(minus), other)
    out = np.full(n_words * 64, -7, np.intp)
    k = obnb._load_difference(bits, other, out)
    np.testing.assert_array_equal(out[:k], np.setdiff1d(rows, minus))


@pytest.mark.parametrize("size, needed, cap, expected", [
    (200, 150, 300, 200),       # room enough: the same array
    (200, 201, 300, 300),       # doubling stops at the cap
    (200, 201, 10**6, 400),     # below the cap: doubled
    (200, 350, 300, 350),       # the need wins over the cap
    (64, 65, 65, 65),
])
def test_pools_grow_by_doubling_up_to_their_cap(size, needed, cap, expected):
    a = np.arange(size, dtype=np.float64)
    b = obnb._grow(a, needed, cap)
    assert b.shape == (expected,)
    assert obnb._grown(size, needed, cap) == expected
    np.testing.assert_array_equal(b[:size], a)
    table = obnb._grow_table(np.arange(2 * size).reshape(size, 2), needed, cap)
    assert table.shape == (expected, 2)


@pytest.mark.parametrize("size, needed, cap, expected", [(3, 2, 10, 3), (3, 4, 5, 5), (3, 4, 100, 6)])
def test_the_histogram_pool_grows_by_expansions_and_keeps_them(size, needed, cap, expected):
    pool = np.random.default_rng(0).normal(size=(size, 2, 3, 4))
    bigger = obnb._grow_hists(pool, needed, cap)
    assert bigger.shape == (expected, 2, 3, 4)
    np.testing.assert_array_equal(bigger[:size], pool)


def test_orthogonal_learner_reports_the_memory_stop():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    y = 2.0 * (X["a"] > 0) + X["b"] + rng.normal(size=300)
    model = RuleBoostingRegressor(n_rules=2, learner=OrthogonalLearner(memory_limit=0.25),
                                  verbose=0).fit(X, y)
    assert model.history_["memory_exhausted"].any()


def test_a_memory_limit_too_small_for_any_query_says_so():
    # Too small for the root's first scan: no rule, and the warning names
    # the memory limit instead of saying that no query reduces the loss.
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    y = 2.0 * (X["a"] > 0) + X["b"] + rng.normal(size=300)
    with pytest.warns(UserWarning, match="memory_limit stopped its search") as record:
        RuleBoostingRegressor(n_rules=2, learner=OrthogonalLearner(memory_limit=0.03),
                              verbose=0).fit(X, y)
    assert not any("no query reduces the loss" in str(w.message) for w in record)
