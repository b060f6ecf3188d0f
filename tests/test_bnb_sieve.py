"""The subtree solves' filters (``rulebook._bnb_subtrees``) against plain
NumPy: the gradient floors of a child's rows and the sieve of a node's
children. Both only decide which solves to skip, so each is checked to be
admissible: no set whose value beats the incumbent is ever skipped."""

import itertools

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st
from test_bounds import problems_with_extent
from test_subtree_kernels import objective, positions_problem

from rulebook import _bnb_subtrees as subtrees
from rulebook._bnb_layout import EXACT_ROWS_FACTOR, SIEVE_MAX_LIST


def weights(problem, stats):
    """The weight W the objective reads: C (code 1), else H."""
    return stats[2] if problem.objective == 1 else stats[1]


def threshold(problem, best):
    """t of ``_any_above``: value > best iff G^2 > t (lam + W) (code 0: G^2 > t)."""
    n = problem.n_total
    return (2.0 * n * best if problem.objective == 2 else best * best) * (1.0 - 1e-9)


def floors_reference(g, w, lam, t):
    """The starts of the first pieces of the fractional-knapsack prefix curves
    (the positive rows forward, the negative rows backward, in ratio order)
    whose ends satisfy G^2 > t (lam + W); inf where none does."""
    out = []
    for gs, ws in ((g[g > 0], w[g > 0]), (-g[g < 0][::-1], w[g < 0][::-1])):
        G = np.concatenate([[0.0], np.cumsum(gs)])
        W = np.concatenate([[0.0], np.cumsum(ws)])
        crossing = np.flatnonzero(G[1:] ** 2 > t * (lam + W[1:]))
        out.append(G[crossing[0]] if len(crossing) else np.inf)
    return tuple(out)


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=True), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]))
def test_gradient_floors_admit_every_set_above_the_threshold(problem_extent, seed, fraction):
    """Every subset of the extent's rows with G^2 > t (lam + W) has
    G >= lo_pos or -G >= lo_neg; the floors are those of the reference."""
    problem, order, positions, ext, _, stats = positions_problem(problem_extent, seed, 2)
    if problem.objective == 0 or not len(positions):
        return
    gp, hp, cp = stats
    lam = problem.reg_lambda if problem.objective == 2 else 0.0
    g, w = gp[positions], weights(problem, stats)[positions]
    values = [objective(problem, order[positions[list(S)]])
              for k in range(1, len(positions) + 1)
              for S in itertools.combinations(range(len(positions)), k)]
    best = fraction * max(values)
    if best <= 0.0:
        return
    t = threshold(problem, best)
    full = np.full(len(ext), np.uint64(0xFFFFFFFFFFFFFFFF))
    lo_pos, lo_neg = subtrees._gradient_floors(ext, full[None, :], 0, gp, hp, cp,
                                               problem.objective, lam, t)
    assert (lo_pos, lo_neg) == floors_reference(g, w, lam, t)
    event(f"finite floors: {int(lo_pos < np.inf) + int(lo_neg < np.inf)}")
    for k in range(1, len(positions) + 1):
        for S in itertools.combinations(range(len(positions)), k):
            G, W = g[list(S)].sum(), w[list(S)].sum()
            if G * G > t * (lam + W):
                assert G >= lo_pos or -G >= lo_neg


def sieve_case(problem_extent, seed, n_entries):
    """A node (the extent) with a list of n_entries random propositions over
    its rows; every child a candidate of the sieve."""
    problem, order, positions, ext, codes, stats = positions_problem(
        problem_extent, seed, 2, dense_bits=n_entries)
    n = len(order)
    # Entry i from the end is satisfied by the rows whose random code has bit i.
    bits = np.zeros((n_entries, len(ext)), np.uint64)
    for i in range(n_entries):
        for p in range(n):
            if codes[p] >> np.uint64(i) & np.uint64(1):
                bits[n_entries - 1 - i, p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    aug_a = np.arange(n_entries, dtype=np.int64)
    return problem, order, positions, ext, codes, stats, bits, aug_a


@settings(max_examples=200, deadline=None)
@given(problems_with_extent(integer_stats=True), st.integers(2, SIEVE_MAX_LIST + 1),
       st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 0.8, 1.0, 1.5]))
def test_sieve_flags_every_child_with_a_set_above_the_incumbent(problem_extent, n_entries, seed,
                                                                fraction):
    """Child j (list length L = kept - 1 - j) is flagged whenever some
    extension of it by a non-empty set of the entries after it beats the
    incumbent; the codes it builds are each row's entries from the end."""
    problem, order, positions, ext, _, stats, bits, aug_a = sieve_case(
        problem_extent, seed, n_entries)
    if problem.objective == 2 and problem.reg_lambda == 0.0:
        return  # no subtree bounds there (``_BranchAndBound``)
    if not len(positions):
        return
    kept = n_entries
    satisfied = [np.array([bool(bits[a, p >> 6] >> np.uint64(p & 63) & np.uint64(1))
                           for p in positions], bool) for a in aug_a]
    # The best value over every extension of every child, as the scale of
    # the incumbent.
    top = 0.0
    per_child = {}
    for j in range(kept - 1):
        L = kept - 1 - j
        values = []
        for k in range(1, L + 1):
            for S in itertools.combinations(range(j + 1, kept), k):
                rows = satisfied[j].copy()
                for i in S:
                    rows &= satisfied[i]
                values.append(objective(problem, order[positions[rows]]) if rows.any() else 0.0)
        per_child[L] = max(values)
        top = max(top, per_child[L])
    best = fraction * top
    sub_b = np.full(kept, np.inf)
    sub_m = np.full(kept, len(positions), np.int64)
    needs_bound = np.ones(kept, np.bool_)
    candidates = [L for L in per_child if (1 << L) <= EXACT_ROWS_FACTOR * len(positions)]
    got_codes = np.zeros(len(order), np.uint64)
    bit_prop = np.zeros(64, np.int64)
    size = 2 << SIEVE_MAX_LIST
    n_built, flagged = subtrees._sieve_subtrees(
        ext, bits, aug_a, sub_b, sub_m, needs_bound, 0, 0, kept, 1.0, best, got_codes,
        bit_prop, np.empty(size), np.empty(size), *stats, problem.objective, problem.n_total,
        problem.reg_lambda)
    event(f"sieved: {n_built > 0}, flagged: {flagged & ((1 << n_built) - 2) != 0}")
    if n_built == 0:
        assert flagged == -1  # nothing sieved: every child is solved
        assert len(candidates) < subtrees.SIEVE_MIN_CHILDREN or best <= 0.0
        return
    assert n_built == 1 + max(candidates)
    for L, value in per_child.items():
        if L >= n_built or value > best:
            assert (flagged >> L) & 1, (L, value, best)
    expected = sum((satisfied[kept - 1 - i].astype(np.uint64) << np.uint64(i))
                   for i in range(n_built))
    np.testing.assert_array_equal(got_codes[positions], expected)
    np.testing.assert_array_equal(bit_prop[:n_built], aug_a[::-1][:n_built])


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=False), st.integers(1, 6), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.5, 0.9, 1.0 - 1e-12, 1.0, 1.5]))
def test_single_precision_test_admits_every_set_above_the_incumbent(problem_extent, n_list, seed,
                                                                    fraction):
    """``_may_beat`` says yes whenever some set S of the subtree (rows whose
    code contains S) passes the solve's own test in double precision,
    G^2 > t (lam + W)."""
    problem, order, positions, ext, codes, stats = positions_problem(
        problem_extent, seed, 2 ** n_list, dense_bits=n_list if seed % 2 else 0)
    if problem.objective == 0 or (problem.objective == 2 and problem.reg_lambda == 0.0):
        return  # code 0 is not sent to it; no subtree bounds at lambda 0
    gp, w = stats[0], weights(problem, stats)
    lam = problem.reg_lambda if problem.objective == 2 else 0.0
    sums = []
    for S in range(1, 2 ** n_list):
        rows = positions[(codes[positions] & np.uint64(S)) == np.uint64(S)]
        sums.append((gp[rows].sum(), w[rows].sum(), objective(problem, order[rows])))
    best = fraction * max(value for _, _, value in sums)
    if best <= 0.0:
        return
    t = threshold(problem, best)
    full = np.full(len(ext), np.uint64(0xFFFFFFFFFFFFFFFF))
    zg = np.full(2 << SIEVE_MAX_LIST, np.nan)
    got = subtrees._may_beat(ext, full[None, :], 0, codes, n_list, best, zg, *stats,
                             problem.objective, problem.n_total, problem.reg_lambda)
    event(f"may beat: {got}")
    if any(G * G > t * (lam + W) for G, W, _ in sums):
        assert got
