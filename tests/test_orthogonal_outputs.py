"""The orthogonal objective of several outputs (rulebook.orthogonal_outputs).

Checked against its definition written directly in NumPy: the projected
gradient of each output and the orthogonal part of each query's indicator
vector, from the basis matrix, for every proposition of random problems;
and the searches on it against enumeration.
"""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rulebook._orthogonal_kernels import REDUNDANT
from rulebook.orthogonal import (
    ChannelProblem,
    OrthogonalBasis,
    beam_search,
    greedy_search,
)
from rulebook.orthogonal_outputs import OutputChannelProblem, output_branch_and_bound
from rulebook.search import MultiOutputProblem, SearchProblem

EPSILON = 1e-3


@st.composite
def problems(draw):
    """A problem of several outputs, weighted rows, and a basis of the
    intercept and a few random queries."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, d, m = draw(st.integers(4, 25)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    n_bins = rng.integers(1, 5, d)
    is_nominal = rng.random(d) < 0.3
    # Codes 0..n_bins[j], the last the missing bin.
    X = np.asfortranarray(np.column_stack([rng.integers(0, nb + 1, n) for nb in n_bins])
                          .astype(np.uint16))
    c = rng.choice([0.0, 1.0, 1.0, 2.5], n)
    if c.sum() == 0:
        c[0] = 1.0
    g = rng.normal(size=(n, m)) * c[:, None]
    if draw(st.booleans()):  # integer gradients: ties
        g = np.round(g)
    problem = MultiOutputProblem(
        X_binned=X, n_bins=n_bins.astype(np.int64), is_nominal=is_nominal,
        g=np.ascontiguousarray(g), h=np.ones((n, m)) * c[:, None], c=c,
        rows=np.flatnonzero(c > 0), reg_lambda=1.0, objective=2,
        max_rule_length=draw(st.sampled_from([1, 2, 3])), single_head=draw(st.booleans()))
    basis = OrthogonalBasis(c, 4)
    for _ in range(draw(st.integers(0, 3))):
        basis.add((rng.random(n) < 0.5).astype(float))
    return problem, basis


def direct_value(problem, basis, rows):
    """The head's orthogonal objective of the extent ``rows``, from the definitions."""
    s, O = problem.c, basis.O
    q = np.zeros(len(s))
    q[rows] = 1.0
    q_perp = q - O @ (O.T @ (s * q))
    norm_sq = float(s @ q_perp**2)
    if s @ q <= 0 or norm_sq <= REDUNDANT * float(s @ q):
        per_output = np.zeros(problem.g.shape[1])
    else:
        # g = s d; d_perp = d - O O^T (s d); g_k,perp^T q = sum_i s_i d_perp,i q_i.
        d = np.divide(problem.g, s[:, None], out=np.zeros_like(problem.g), where=s[:, None] > 0)
        d_perp = d - O @ (O.T @ (s[:, None] * d))
        per_output = np.abs((s * q) @ d_perp) / (np.sqrt(norm_sq) + EPSILON)
    return per_output.max() if problem.single_head else np.sqrt(np.sum(per_output**2))


def n_positions(n_bins, nominal):
    """Positions of a feature's propositions in a scan's row (the kernels' order)."""
    if nominal:
        return 2 * n_bins if n_bins > 2 else n_bins
    return 2 * (n_bins - 1)


def propositions(problem, rows):
    """(j, p, condition, kept rows) of every proposition of the scan."""
    channels = OutputChannelProblem.orthogonal(problem, OrthogonalBasis(problem.c, 0), EPSILON)
    for j in range(problem.X_binned.shape[1]):
        for p in range(n_positions(int(problem.n_bins[j]), bool(problem.is_nominal[j]))):
            condition = channels.condition(j, p)
            yield j, p, condition, problem.split(rows, condition)[0]


@settings(max_examples=200, deadline=None)
@given(problems())
def test_every_propositions_value_is_the_definitions(case):
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    rows = problem.rows
    values = channels.values(channels.histograms(rows), len(rows))
    assert channels.value(rows) == pytest.approx(direct_value(problem, basis, rows), abs=1e-9)
    expected = np.full(values.shape, -np.inf)
    for j, p, _, kept in propositions(problem, rows):
        if not 0 < len(kept) < len(rows):
            continue
        expected[j, p] = direct_value(problem, basis, kept)
        assert values[j, p] == pytest.approx(direct_value(problem, basis, kept), rel=1e-9,
                                             abs=1e-9), (j, p)
        assert channels.value(kept) == pytest.approx(values[j, p], rel=1e-9, abs=1e-9)
    np.testing.assert_array_equal(np.isfinite(values), np.isfinite(expected))


@settings(max_examples=100, deadline=None)
@given(problems())
def test_one_output_is_the_papers_objective(case):
    # m = 1: the complete and the single head are eq. 14 itself, the
    # single-output ChannelProblem's values.
    problem, basis = case
    one = MultiOutputProblem(
        X_binned=problem.X_binned, n_bins=problem.n_bins, is_nominal=problem.is_nominal,
        g=np.ascontiguousarray(problem.g[:, :1]), h=np.ascontiguousarray(problem.h[:, :1]),
        c=problem.c, rows=problem.rows, reg_lambda=1.0, objective=2,
        single_head=problem.single_head)
    ours = OutputChannelProblem.orthogonal(one, basis, EPSILON)
    single = SearchProblem(
        X_binned=problem.X_binned, n_bins=problem.n_bins, is_nominal=problem.is_nominal,
        g=problem.g[:, 0].copy(), h=problem.h[:, 0].copy(), c=problem.c, rows=problem.rows,
        reg_lambda=1.0, objective=2)
    paper = ChannelProblem.orthogonal(single, basis, EPSILON)
    rows = problem.rows
    np.testing.assert_allclose(ours.values(ours.histograms(rows), len(rows)),
                               paper.values(paper.histograms(rows), len(rows)), rtol=1e-9,
                               atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_greedy_refines_by_the_best_proposition_each_step(case):
    # Greedy: from the root, the best strictly improving refinement by the
    # values of the definitions, until none improves (or the length limit).
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    result = greedy_search(channels)
    rows, value, used = problem.rows, direct_value(problem, basis, problem.rows), set()
    for condition in result.conditions:
        kept = problem.split(rows, condition)[0]
        new = direct_value(problem, basis, kept)
        assert new > value - 1e-9
        best = max((direct_value(problem, basis, k) for j, _, _, k in propositions(problem, rows)
                    if 0 < len(k) < len(rows)
                    and (len(used | {j}) <= problem.max_rule_length)), default=-np.inf)
        assert new == pytest.approx(best, rel=1e-9, abs=1e-9)
        rows, value = kept, new
        used.add(condition[0])
    np.testing.assert_array_equal(result.rows, rows)
    assert result.value == pytest.approx(value, rel=1e-9, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_a_wide_beam_keeps_every_improving_proposition(case):
    # Width beyond the number of propositions: every improving proposition
    # of the root is in the first level, so the result is at least the best
    # of them (and of the root); its value is its extent's, its conditions
    # on max_rule_length columns at most.
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    result = beam_search(channels, width=10_000)
    best = max([direct_value(problem, basis, problem.rows)]
               + [direct_value(problem, basis, rows) for _, _, _, rows in
                  propositions(problem, problem.rows) if 0 < len(rows) < len(problem.rows)])
    assert result.value >= best - 1e-9
    assert result.value == pytest.approx(direct_value(problem, basis, result.rows), rel=1e-9,
                                         abs=1e-9)
    assert len({c[0] for c in result.conditions}) <= problem.max_rule_length


def conjunction_values(problem, basis):
    """The value of every conjunction of propositions on at most
    ``max_rule_length`` features whose extent is non-empty (the root's too)."""
    props = list(propositions(problem, problem.rows))
    values = [direct_value(problem, basis, problem.rows)]
    for size in range(1, len(props) + 1):
        for combo in itertools.combinations(props, size):
            if len({j for j, _, _, _ in combo}) > problem.max_rule_length:
                continue
            rows = problem.rows
            for _, _, condition, _ in combo:
                rows = problem.split(rows, condition)[0]
            if len(rows):
                values.append(direct_value(problem, basis, rows))
    return values


@st.composite
def small_problems(draw):
    problem, basis = draw(problems())
    assume(sum(n_positions(int(b), bool(nom)) for b, nom in
               zip(problem.n_bins, problem.is_nominal)) <= 10)
    return problem, basis


@settings(max_examples=200, deadline=None)
@given(small_problems())
def test_exhaustive_branch_and_bound_finds_the_best_conjunction(case):
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    result = output_branch_and_bound(channels, bound="none")
    assert result.value == pytest.approx(max(conjunction_values(problem, basis)), rel=1e-9,
                                         abs=1e-9)
    assert result.value == pytest.approx(direct_value(problem, basis, result.rows), rel=1e-9,
                                         abs=1e-9)
    assert not result.stats["budget_exhausted"]


@settings(max_examples=100, deadline=None)
@given(problems(), st.integers(1, 5))
def test_the_heuristic_bound_and_a_budget_return_a_query_of_its_value(case, max_nodes):
    problem, basis = case
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    result = output_branch_and_bound(channels, max_nodes=max_nodes)
    assert result.stats["n_nodes"] <= max_nodes
    assert result.value == pytest.approx(direct_value(problem, basis, result.rows), rel=1e-9,
                                         abs=1e-9)
    assert len({c[0] for c in result.conditions}) <= problem.max_rule_length
    # Never below greedy's first step: the root's best proposition is seen.
    first = greedy_search(OutputChannelProblem.orthogonal(
        MultiOutputProblem(**{**{f: getattr(problem, f) for f in (
            "X_binned", "n_bins", "is_nominal", "g", "h", "c", "rows", "reg_lambda", "objective",
            "single_head")}, "max_rule_length": 1}), basis, EPSILON))
    if len(first.conditions) <= 1:
        assert result.value >= first.value - 1e-9


def test_a_memory_limit_stops_the_search_with_the_best_query_so_far():
    rng = np.random.default_rng(3)
    n, d, m = 300, 6, 3
    X = np.asfortranarray(rng.integers(0, 40, (n, d)).astype(np.uint16))
    problem = MultiOutputProblem(X_binned=X, n_bins=np.full(d, 40), is_nominal=np.zeros(d, bool),
                                 g=rng.normal(size=(n, m)), h=np.ones((n, m)), c=np.ones(n),
                                 rows=np.arange(n), reg_lambda=1.0, objective=2,
                                 max_rule_length=3)
    basis = OrthogonalBasis(problem.c, 0)
    channels = OutputChannelProblem.orthogonal(problem, basis, EPSILON)
    free = output_branch_and_bound(channels, max_nodes=50)
    capped = output_branch_and_bound(channels, max_nodes=50, memory_limit=1e-3)
    assert capped.stats["memory_exhausted"] and capped.stats["budget_exhausted"]
    assert not free.stats["memory_exhausted"]
    assert 1 <= capped.stats["n_nodes"] < free.stats["n_nodes"]
    assert capped.value == pytest.approx(direct_value(problem, basis, capped.rows), rel=1e-9)
