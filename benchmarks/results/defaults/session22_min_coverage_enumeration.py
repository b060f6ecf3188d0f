import os
import numpy as np
from hypothesis import given, settings, strategies as st
import naive
from conftest import binned_problems
from test_optimal import SMALL
from rulebook import pair_search as pm
from test_pair_search import limited_problem


def brute(problem, m):
    rows = problem.rows
    weights = 1 << np.arange(len(rows), dtype=object)
    cands = naive.candidates(problem.n_bins, problem.is_nominal)
    masks = [naive.condition_mask(problem.X_binned, *cond, problem.n_bins)[rows] for cond in cands]
    props = [(int(np.sum(weights[mask])), cond[0]) for mask, cond in zip(masks, cands)]
    start = ((1 << len(rows)) - 1, frozenset())
    seen, frontier = {start}, [start]
    while frontier:
        previous, frontier = frontier, []
        for extent, columns in previous:
            for prop, column in props:
                state = (extent & prop, columns | {column})
                if len(state[1]) <= problem.max_rule_length and state not in seen:
                    seen.add(state)
                    frontier.append(state)
    extents = {extent for extent, _ in seen}
    E = np.array([[(e >> i) & 1 for i in range(len(rows))] for e in extents], dtype=float)
    G, H, C = (E @ a[rows] for a in (problem.g, problem.h, problem.c))
    v = G * G / (2 * problem.n_total * (problem.reg_lambda + H))
    keep = (C >= m) | (C == C.max())
    return float(np.max(v[keep]))


@settings(max_examples=200, deadline=None)
@given(binned_problems(integer_stats=True, max_rows=12, max_features=4), st.integers(1, 2),
       st.sampled_from([0.01, 1.0, 100.0]), st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0]), st.booleans())
def test_cov(problem, limit, lam, m, nominal_ok):
    if not nominal_ok:
        problem.is_nominal[:] = False
    problem = limited_problem(problem, limit, lam)
    os.environ["RULEBOOK_MIN_COVERAGE"] = str(m)
    try:
        q, v, stats = pm.pair_search(problem)
    finally:
        del os.environ["RULEBOOK_MIN_COVERAGE"]
    exp = brute(problem, m)
    if problem.is_nominal.any():
        assert v <= exp + 1e-9  # heuristic on nominal
    else:
        assert abs(v - exp) <= 1e-9 * max(1, abs(exp)), (v, exp)
    rows = problem.rows
    for cond in q:
        rows = rows[naive.condition_mask(problem.X_binned, *cond, problem.n_bins)[rows]]
    if q:
        assert problem.c[rows].sum() >= m
