"""Kernels of the branch and bound's subtree bounds and critical indices,
against plain-NumPy references (``rulebook._bnb_kernels``)."""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import _bnb_kernels as bnb
from rulebook._search_kernels import EQ, GT, LE, NE
from rulebook.optimal import ratio_order

import naive
from test_bounds import problems_with_extent


def pack(satisfied):
    """Bitsets (rows, W) uint64 of a boolean matrix (rows, n), bit i = column i."""
    rows, n = satisfied.shape
    bits = np.zeros((rows, max(1, (n + 63) // 64)), np.uint64)
    packed = np.packbits(satisfied, axis=1, bitorder="little")
    bits.view(np.uint8)[:, : packed.shape[1]] = packed
    return bits


def random_propositions(seed, P, n):
    rng = np.random.default_rng(seed)
    return rng.random((P, n)) < rng.random()


def objective(problem, rows):
    return float(naive.objective_value(
        naive.NAMES[problem.objective], problem.g[rows].sum(), problem.h[rows].sum(),
        problem.c[rows].sum(), problem.n_total, problem.reg_lambda))


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 140), st.integers(1, 150), st.integers(0, 2**32 - 1))
def test_row_proposition_bits_is_the_transpose(P, n, seed):
    satisfied = random_propositions(seed, P, n)
    row_props = np.empty((n, (P + 63) // 64), np.uint64)
    bnb.row_proposition_bits(pack(satisfied), n, row_props)
    np.testing.assert_array_equal(row_props, pack(satisfied.T))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 200), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_proposition_bits_match_the_conditions(n, d, seed):
    """Each proposition's bitset over positions is its binned condition."""
    rng = np.random.default_rng(seed)
    n_bins = rng.integers(1, 9, d)
    # Values in 0..n_bins (n_bins: missing), some features without missing.
    X = np.column_stack([rng.integers(0, nb + (f % 2), n) for f, nb in enumerate(n_bins)])
    X = np.asfortranarray(X.astype(np.uint16))
    props = [(f, op, k) for f in range(d) for op in range(4) for k in range(n_bins[f])]
    pick = rng.permutation(len(props))[: rng.integers(1, len(props) + 1)]
    pf, pop, pb = (np.array([props[i][j] for i in pick], np.int64) for j in range(3))
    bits = np.full((len(pick), (n + 63) // 64), np.uint64(12345))
    bnb.proposition_bits(X, n_bins.astype(np.int64), pf, pop, pb, bits)
    expected = np.array([naive.condition_mask(X, f, op, k, n_bins)
                         for f, op, k in zip(pf, pop, pb)])
    np.testing.assert_array_equal(bits, pack(expected))



@settings(max_examples=100, deadline=None)
@given(st.integers(1, 100), st.integers(0, 8), st.integers(0, 2**32 - 1))
def test_proposition_bits_follow_satisfies_for_every_bin_index(n, nb, seed):
    """The kernel's contract is ``_search_kernels._satisfies`` on the codes,
    for any bin index: below 0, up to the missing bin ``nb`` and past it
    (``x <= k`` with ``k >= nb`` then holds the missing rows too). The
    search only builds indices below ``nb``; this pins the other branches."""
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, nb + 1, (n, 1)).astype(np.uint16))
    props = [(0, op, k) for op in (LE, GT, EQ, NE) for k in range(-1, nb + 2)]
    pf, pop, pb = (np.array([prop[j] for prop in props], np.int64) for j in range(3))
    bits = np.full((len(props), (n + 63) // 64), np.uint64(12345))
    bnb.proposition_bits(X, np.array([nb], np.int64), pf, pop, pb, bits)
    b = X[:, 0].astype(np.int64)
    satisfies = {LE: lambda k: b <= k, GT: lambda k: (k < b) & (b < nb),
                 EQ: lambda k: b == k, NE: lambda k: (b != k) & (b != nb)}
    expected = np.array([satisfies[op](k) for _, op, k in props])
    np.testing.assert_array_equal(bits, pack(expected))

@settings(max_examples=200, deadline=None)
@given(st.integers(1, 140), st.integers(1, 150), st.integers(0, 2**32 - 1), st.data())
def test_critical_index_from_row_sets_matches_its_definition(P, n, seed, data):
    """crt(q p_a) = min {j < a : p_j in clo(q p_a), not in clo(q)}, else a
    (eq. 3.7), for the closure over all columns and for the closure
    restricted to the query's columns (under a length limit)."""
    satisfied = random_propositions(seed, P, n)
    rng = np.random.default_rng(seed + 1)
    # A node q: all rows, or the rows of one or two propositions.
    node = np.ones(n, bool)
    for j in rng.integers(0, P, data.draw(st.integers(0, 2))):
        node &= satisfied[j]
    a = data.draw(st.integers(0, P - 1))
    child = node & satisfied[a]
    if not child.any():
        return  # the kernel only sees non-empty refinements
    bits, row_props = pack(satisfied), pack(satisfied.T)
    ext = pack(node[None])[0]
    node_implied = np.empty(row_props.shape[1], np.uint64)
    bnb._node_implications(ext, bits, P, node_implied)
    implied = [not (node & ~satisfied[j]).any() for j in range(P)]
    np.testing.assert_array_equal(node_implied, pack(np.array(implied)[None])[0])
    # Closures over all columns (no length limit), or restricted to q's
    # columns and a's (each proposition on a random one of 3 columns).
    column = rng.integers(0, 3, P)
    limited = data.draw(st.booleans())
    q_columns = set(rng.integers(0, 3, data.draw(st.integers(0, 2)))) if limited else {0, 1, 2}
    a_columns = q_columns | {column[a]}
    qcols = pack(np.array([column[j] in q_columns for j in range(P)])[None])[0]
    acols = pack(np.array([column[j] in a_columns for j in range(P)])[None])[0]
    got = bnb._critical_index_rows(pack(child[None])[0], a, row_props, node_implied, qcols, acols,
                                   np.empty(row_props.shape[1], np.uint64))
    expected = next((j for j in range(a)
                     if not (child & ~satisfied[j]).any() and column[j] in a_columns
                     and not (implied[j] and column[j] in q_columns)), a)
    assert got == expected


def positions_problem(problem_extent, seed, n_codes, dense_bits=0):
    """Statistics in position (ratio) order, an extent bitset, random codes
    (with ``dense_bits``: that many bits, each set with probability 0.8, so
    that long extensions still have rows)."""
    problem, extent = problem_extent
    order = ratio_order(problem)
    rank = np.empty(len(problem.g), np.int64)
    rank[order] = np.arange(len(order))
    positions = np.sort(rank[extent])
    n = len(order)
    ext = np.zeros(max(1, (n + 63) // 64), np.uint64)
    for p in positions:
        ext[p >> 6] |= np.uint64(1) << np.uint64(p & 63)
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes, n).astype(np.uint64)
    if dense_bits:
        set_bits = rng.random((n, dense_bits)) < 0.8
        codes = (set_bits << np.arange(dense_bits)).sum(axis=1).astype(np.uint64)
    stats = (problem.g[order], problem.h[order], problem.c[order])
    return problem, order, positions, ext, codes, stats


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=True), st.integers(1, 6), st.integers(0, 2**32 - 1),
       st.booleans())
def test_code_class_bound_is_the_maximum_over_unions_of_classes(problem_extent, n_codes, seed,
                                                                 direct):
    """The subtree bound: Theorem 3.1 with the classes of equal code as items."""
    problem, order, positions, ext, codes, stats = positions_problem(problem_extent, seed,
                                                                    n_codes)
    if problem.objective == 2 and problem.reg_lambda == 0.0:
        return  # not used there (the h == 0 special case)
    members = [order[positions[codes[positions] == k]] for k in range(n_codes)]
    members = [m for m in members if len(m)]
    best = 0.0
    for mask in range(1, 2 ** len(members)):
        best = max(best, objective(problem, np.concatenate(
            [m for i, m in enumerate(members) if mask >> i & 1])))
    n = len(order)
    T = 8 if direct else 4  # hashed: a table smaller than the codes, so probing is tested
    if not direct:
        codes = codes * np.uint64(0x10001)  # large, colliding codes
    scratch = (np.zeros(T, np.uint64), np.zeros(T, np.int64), np.zeros(T, np.int64),
               np.zeros(1, np.int64), *stats, problem.objective, problem.n_total,
               problem.reg_lambda, np.empty(n), np.empty(n), np.empty(n, np.int64), np.empty(n))
    full = np.full(len(ext), np.uint64(0xFFFFFFFFFFFFFFFF))
    got = bnb._code_class_bound(ext, full[None, :], 0, codes, direct, min(len(members) + 1, T // 2 + 1),
                                *scratch)
    if len(members) <= T // 2:
        assert got == best
    # Given up (no bound) once the extent spans more classes than allowed,
    # or than half the table holds (asked for more, it must not probe a full
    # table forever: seen with 5 classes in 4 slots).
    if members:
        assert bnb._code_class_bound(ext, full[None, :], 0, codes, direct, len(members) - 1,
                                     *scratch) == np.inf


def _new_columns(S, col_bit):
    """How many new columns (distinct nonzero bits of col_bit) the entries of S add."""
    cols = 0
    for i, bit in enumerate(col_bit):
        if S >> i & 1:
            cols |= int(bit)
    return bin(cols).count("1")


@settings(max_examples=300, deadline=None)
@given(problems_with_extent(integer_stats=True), st.integers(1, 5), st.integers(1, 5),
       st.integers(0, 2**32 - 1), st.sampled_from([None, 0.0, 0.5, 1.0 - 1e-12, 1.0, 2.0]),
       st.lists(st.integers(-1, 3), min_size=5, max_size=5))
def test_solve_subtree_matches_enumeration_of_every_extension(problem_extent, n_list, allowed,
                                                              seed, incumbent, columns):
    """The best S (adding at most ``allowed`` new columns; entry i's column
    ``columns[i]``, -1 for one already constrained) of rows whose code
    contains S, whenever its value exceeds the incumbent (``incumbent``
    times the optimum; None: -inf); otherwise the kernel may report
    nothing. ``allowed >= n_list`` means no limit."""
    problem, order, positions, ext, codes, stats = positions_problem(
        problem_extent, seed, 2 ** n_list, dense_bits=n_list if seed % 2 else 0)
    if problem.objective == 2 and problem.reg_lambda == 0.0:
        return
    col_bit = np.array([0 if c < 0 else 1 << c for c in columns], np.int64)
    best, arg = 0.0, 0
    for S in range(1, 2 ** n_list):
        if allowed < n_list and _new_columns(S, col_bit) > allowed:
            continue
        rows = order[positions[(codes[positions] & np.uint64(S)) == np.uint64(S)]]
        value = objective(problem, rows) if len(rows) else 0.0
        if value > best:
            best, arg = value, S
    full = np.full(len(ext), np.uint64(0xFFFFFFFFFFFFFFFF))
    size = 1 << bnb.EXACT_MAX_LIST
    incumbent = -np.inf if incumbent is None else incumbent * best
    value, found = bnb._solve_subtree(ext, full[None, :], 0, codes, n_list, allowed, col_bit,
                                      incumbent,
                                      np.empty(size), np.empty(size), *stats, problem.objective,
                                      problem.n_total, problem.reg_lambda)
    if best <= incumbent and found == 0:
        assert value == 0.0  # nothing better than the incumbent: may say so
        return
    assert value == best
    if best > 0:
        assert found > 0 and (allowed >= n_list or _new_columns(found, col_bit) <= allowed)
        rows = order[positions[(codes[positions] & np.uint64(found)) == np.uint64(found)]]
        assert objective(problem, rows) == best


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_superset_sums_are_sums_over_supersets(n_list, seed):
    """The zeta transform against summing over every superset, axis by axis."""
    z = np.random.default_rng(seed).integers(-50, 50, 1 << n_list).astype(np.float64)
    expected = z.reshape((2,) * n_list) if n_list else z.copy()
    for axis in range(n_list):  # bit n_list - 1 - axis of the index
        expected = np.flip(np.cumsum(np.flip(expected, axis), axis), axis)
    out = z.copy()
    bnb._superset_sums(out, n_list)
    np.testing.assert_array_equal(out, expected.reshape(-1))


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 9), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2]),
       st.sampled_from([0.0, 0.5, 3.0]), st.booleans(), st.data())
def test_best_interval_is_the_best_of_every_interval_of_the_column(nb, seed, code, reg_lambda,
                                                                    integer, data):
    """``_best_interval`` (the convex hull of prefix sums, under a length
    limit) against every ``x <= t``, ``x > s`` and ``s < x <= t`` of the
    column's entries. Each bin holds 0 to 3 rows; integer gradients make
    ties and collinear hull points exact."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, 4, nb)
    if integer:
        g = np.array([rng.integers(-4, 5, k).sum() for k in rows], float)
    else:
        g = np.array([rng.normal(size=k).sum() for k in rows])
    h = np.array([rng.integers(1, 4, k).sum() for k in rows], float)
    sums = np.array([g, h, rows.astype(float)])
    # The column's propositions in list order: <= by ascending t, then > by
    # descending s; the entries are a subset of them, in that order.
    props = [(0, t) for t in range(nb - 1)] + [(1, s) for s in range(nb - 2, -1, -1)]
    keep = data.draw(st.lists(st.booleans(), min_size=len(props), max_size=len(props)))
    entries = np.array([i for i, k in enumerate(keep) if k], np.int64)
    if len(entries) == 0:
        return
    pop = np.array([LE if op == 0 else GT for op, _ in props], np.int64)
    pb = np.array([k for _, k in props], np.int64)
    n_total = float(rows.sum()) or 1.0

    def value(lo, hi):  # bins lo..hi-1
        G, H, C = sums[:, lo:hi].sum(axis=1)
        return float(naive.objective_value(naive.NAMES[code], G, H, C, n_total, reg_lambda))

    best = -np.inf
    for i in entries:
        best = max(best, value(0, pb[i] + 1) if pop[i] == LE else value(pb[i] + 1, nb))
        for j in entries:
            if pop[i] == LE and pop[j] == GT and pb[j] < pb[i]:
                best = max(best, value(pb[j] + 1, pb[i] + 1))
    hull = np.empty((4, nb), np.int64)
    aug_a = np.arange(len(props), dtype=np.int64)
    got, first, second = bnb._best_interval(
        sums.copy(), nb, pop, pb, aug_a, np.full(len(props), np.inf), entries, 0,
        len(entries), code, n_total, reg_lambda, 1.0, -np.inf, hull)
    np.testing.assert_allclose(got, best, rtol=1e-12, atol=1e-12)
    # The returned propositions are an interval of that value.
    chosen = [first] if second < 0 else [first, second]
    lo = max([pb[p] + 1 for p in chosen if pop[p] == GT], default=0)
    hi = min([pb[p] + 1 for p in chosen if pop[p] == LE], default=nb)
    np.testing.assert_allclose(value(lo, hi), best, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 130), st.integers(1, 3), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_column_sums_overwrite_whatever_the_buffer_held(n, d, nb, seed):
    """``_column_sums`` sets ``sums[:, :nb]`` to the sums of g, h and c per
    non-missing bin of the extent's rows. The solve of a node's columns
    reuses one buffer for every column and node, left holding the previous
    column's prefix sums (``_best_interval``): nothing may carry over."""
    rng = np.random.default_rng(seed)
    Xp = rng.integers(0, nb + 1, (n, d)).astype(np.uint16)  # code nb: the missing bin
    g, h, c = rng.normal(size=n), rng.random(n), rng.integers(0, 3, n).astype(float)
    in_extent = rng.random(n) < 0.7
    f = int(rng.integers(d))
    # Stale values, and a guard row below: a write past the buffer lands in
    # memory the test owns.
    sums = np.full((4, nb + 1), 7.5)[:3]
    bnb._column_sums(pack(in_extent[None, :])[0], Xp, f, nb, g, h, c, sums)
    for i, a in enumerate((g, h, c)):
        expected = np.bincount(Xp[in_extent, f], weights=a[in_extent], minlength=nb + 1)[:nb]
        np.testing.assert_allclose(sums[i, :nb], expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 2]),
       st.sampled_from([0.0, 0.5, 3.0]), st.data())
def test_best_category_set_is_the_best_condition_of_the_column(nb, seed, code, reg_lambda,
                                                              data):
    """``_best_category_set`` (ratio prefixes and "all but one", under a
    length limit) against every condition its entries make on a nominal
    column: ``x == v`` for an ``==`` entry, and every category but a
    nonempty set S of ``!=`` entries (the categories without one always
    kept). The returned propositions make a condition of that value."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 4, nb).astype(float)  # rows per category: 0 to 3
    g = np.array([rng.integers(-4, 5, int(k)).sum() for k in c], float)
    # A Hessian of at least 1 a row: every loss has h > 0 on a row of
    # positive weight (squared 2 s, logistic p (1 - p) s, Poisson mu s).
    # With h = 0 rows, reg_lambda = 0 and a kept category of H = 0, the
    # objective (0 at H = 0, not the limit +inf) stops being convex in
    # (G, H), and the ratio-prefix sets need not hold its maximum (found by
    # hypothesis in session 20: nb=6, seed=65534, code=2, entries [6, 10, 11]).
    h = np.array([rng.integers(1, 4, int(k)).sum() for k in c], float)
    sums = np.zeros((3, nb + 1))
    sums[:, :nb] = g, h, c
    props = [(EQ, k) for k in range(nb)] + [(NE, k) for k in range(nb)]
    keep = data.draw(st.lists(st.booleans(), min_size=2 * nb, max_size=2 * nb))
    entries = np.array(data.draw(st.permutations([i for i, k in enumerate(keep) if k])), np.int64)
    if len(entries) == 0:
        return
    pop = np.array([op for op, _ in props], np.int64)
    pb = np.array([k for _, k in props], np.int64)
    n_total = float(c.sum()) or 1.0

    def value(categories):
        G, H, C = sums[:, sorted(categories)].sum(axis=1)
        return float(naive.objective_value(naive.NAMES[code], G, H, C, n_total, reg_lambda))

    ne = [int(pb[i]) for i in entries if pop[i] == NE]
    kept_always = set(range(nb)) - set(ne)
    best = max([value({pb[i]}) for i in entries if pop[i] == EQ], default=-np.inf)
    for size in range(1, len(ne) + 1):
        for dropped in itertools.combinations(ne, size):
            best = max(best, value(kept_always | (set(ne) - set(dropped))))
    order = np.empty(nb + 1, np.int64)
    got, first, n_set = bnb._best_category_set(
        sums, nb, pop, pb, np.arange(len(props), dtype=np.int64), entries, 0, len(entries),
        code, n_total, reg_lambda, np.empty(nb + 1), order)
    np.testing.assert_allclose(got, best, rtol=1e-12, atol=1e-12)
    if n_set == 0:
        assert pop[first] == EQ
        chosen = {pb[first]}
    else:
        assert first == order[0] and all(pop[order[:n_set]] == NE)
        chosen = set(range(nb)) - {int(k) for k in pb[order[:n_set]]}
    np.testing.assert_allclose(value(chosen), best, rtol=1e-12, atol=1e-12)
