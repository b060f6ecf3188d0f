"""``OrthogonalLearner(length_penalty=...)``: the searches score a query of
``c`` conditions by ``obj_ogb * f(c)`` (:func:`rulebook.orthogonal.length_factors`).

Checked against NumPy references: the exhaustive branch and bound against
brute-force enumeration of every conjunction with its number of columns,
greedy refinement against a plain greedy loop over the binned conditions.
"""

import itertools

import naive
import numpy as np
import pytest
import test_orthogonal_outputs
from conftest import binned_problems
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_orthogonal import _random_basis, column_extents

from rulebook import OrthogonalLearner, RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.datasets import load_used_cars
from rulebook.orthogonal import (
    LENGTH_PENALTIES,
    ChannelProblem,
    beam_search,
    branch_and_bound,
    greedy_search,
    length_factors,
)
from rulebook.orthogonal_outputs import OutputChannelProblem, output_branch_and_bound


def _value_of(problem, Q, epsilon):
    def direct(sub):
        q = np.zeros(len(problem.g))
        q[sub] = 1.0
        return naive.orthogonal_objective(problem.g, problem.c, Q, q, epsilon)
    return direct


def _column_extents(problem):
    """Per column, every non-trivial extent its propositions' conjunctions give."""
    every = np.ones(len(problem.g), bool)
    return {column: [e for e in extents if not np.array_equal(e, every)]
            for column, extents in column_extents(problem).items()}


def _brute_force_score(problem, value_of, factor, max_length):
    """Best ``value * factor[c]`` over every conjunction of ``c <= max_length``
    columns (a column's interval is one condition), the empty one included."""
    extents, rows = _column_extents(problem), problem.rows
    best = value_of(rows) * factor[0]
    for length in range(1, max_length + 1):
        for columns in itertools.combinations(sorted(extents), length):
            for parts in itertools.product(*(extents[c] for c in columns)):
                sub = rows[np.logical_and.reduce(parts)[rows]]
                if len(sub):
                    best = max(best, value_of(sub) * factor[min(length, len(factor) - 1)])
    return best


def _columns(conditions):
    return len({c[0] for c in conditions})


@settings(max_examples=80, deadline=None)
@given(problem=binned_problems(max_rows=12, max_features=3), seed=st.integers(0, 2**16),
       t=st.integers(0, 3), epsilon=st.sampled_from([1e-3, 1.0]))
def test_exhaustive_scored_branch_and_bound_equals_brute_force(problem, seed, t, epsilon):
    problem.max_rule_length = 2
    basis, Q = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, epsilon)
    factor = length_factors("complexity")
    result = branch_and_bound(channels, bound="none", length_factor=factor)
    value_of = _value_of(problem, Q, epsilon)
    expected = _brute_force_score(problem, value_of, factor, 2)
    score = result.value * factor[_columns(result.conditions)]
    np.testing.assert_allclose(score, expected, rtol=1e-7, atol=1e-9)
    # The value returned is the query's own objective, not its score.
    np.testing.assert_allclose(result.value, value_of(result.rows), rtol=1e-7, atol=1e-9)
    # The heuristic bound, scaled, never beats the exhaustive search's score.
    heuristic = branch_and_bound(channels, length_factor=factor)
    assert heuristic.value * factor[_columns(heuristic.conditions)] <= score + 1e-9


def _naive_scored_greedy(problem, value_of, factor, limit):
    """Greedy refinement by score over the binned conditions, and whether
    some step had a near tie (where rounding may pick either)."""
    rows, conditions = problem.rows, ()
    score, near_tie = value_of(rows) * factor[0], False
    while len(rows) > 1:
        used = {c[0] for c in conditions}
        scored = []
        for c in naive.candidates(problem.n_bins, problem.is_nominal):
            if len(used) >= limit and c[0] not in used:
                continue
            sub = rows[naive.condition_mask(problem.X_binned, *c, problem.n_bins)[rows]]
            if 0 < len(sub) < len(rows):
                k = min(len(used | {c[0]}), len(factor) - 1)
                scored.append((value_of(sub) * factor[k], c, sub))
        if not scored:
            break
        top = max(scored, key=lambda item: item[0])
        gap = 1e-7 * max(1.0, abs(top[0]))
        # Another extent scoring within rounding of the best (a query and
        # its complement tie once the intercept is in the basis).
        near_tie |= any(top[0] - s < gap and not np.array_equal(sub, top[2])
                        for s, _, sub in scored)
        near_tie |= abs(top[0] - score) < gap
        if not top[0] > score:
            break
        score, conditions, rows = top[0], conditions + (top[1],), top[2]
    return score, rows, near_tie


@settings(max_examples=80, deadline=None)
@given(problem=binned_problems(max_rows=15, max_features=3), seed=st.integers(0, 2**16),
       t=st.integers(0, 3))
def test_scored_greedy_equals_a_naive_greedy(problem, seed, t):
    basis, Q = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, 1e-3)
    factor = length_factors("complexity")
    value_of = _value_of(problem, Q, 1e-3)
    expected, rows, near_tie = _naive_scored_greedy(problem, value_of, factor,
                                                    problem.max_rule_length or np.inf)
    assume(not near_tie)
    result = greedy_search(channels, factor)
    np.testing.assert_allclose(result.value * factor[_columns(result.conditions)], expected,
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(np.sort(result.rows), np.sort(rows))


@settings(max_examples=40, deadline=None)
@given(problem=binned_problems(max_rows=20, max_features=3), seed=st.integers(0, 2**16),
       t=st.integers(0, 3))
def test_all_ones_factor_is_the_plain_search(problem, seed, t):
    basis, _ = _random_basis(problem, seed, t)
    channels = ChannelProblem.orthogonal(problem, basis, 1e-3)
    ones = length_factors("none")
    for plain, scored in [(greedy_search(channels), greedy_search(channels, ones)),
                          (beam_search(channels, 3), beam_search(channels, 3, ones)),
                          (branch_and_bound(channels, max_nodes=50),
                           branch_and_bound(channels, max_nodes=50, length_factor=ones))]:
        assert plain.conditions == scored.conditions
        assert plain.value == scored.value
        assert plain.stats == scored.stats


def test_length_factors():
    np.testing.assert_array_equal(length_factors("none"), 1.0)
    factor = length_factors("complexity")
    np.testing.assert_allclose(factor[:4], 1 / np.sqrt([1, 2, 3, 4]), rtol=1e-15)
    assert np.all(np.diff(factor) < 0) and factor[-1] > 0
    assert set(LENGTH_PENALTIES) == {"none", "complexity"}


@pytest.mark.parametrize("value", ["ric", None, 1.0])
def test_bad_length_penalty_raises_naming_it(value):
    with pytest.raises(ValueError, match="length_penalty="):
        OrthogonalLearner(length_penalty=value)


@pytest.mark.parametrize("strategy", ["greedy", "beam", "branch_and_bound"])
def test_complexity_penalty_gives_rules_no_longer_on_average(strategy):
    X, y = load_used_cars()
    lengths = {}
    for penalty in ("none", "complexity"):
        model = RuleBoostingRegressor(
            n_rules=8, verbose=0, max_rule_length=None,
            learner=OrthogonalLearner(strategy=strategy, length_penalty=penalty)).fit(X, y)
        lengths[penalty] = model.history_["length"].iloc[1:].mean()
    assert lengths["complexity"] <= lengths["none"]


def best_scored_output_value(problem, value_of, factor):
    """Brute force of a scored search with several outputs: the largest
    ``value_of(rows) * factor[c]`` over the root (``c = 0``) and every
    non-empty conjunction of the problem's propositions
    (``test_orthogonal_outputs.propositions``) on at most
    ``max_rule_length`` columns ``c``."""
    props = list(test_orthogonal_outputs.propositions(problem, problem.rows))
    best = value_of(problem.rows) * factor[0]
    for size in range(1, len(props) + 1):
        for combo in itertools.combinations(props, size):
            columns = len({j for j, _, _, _ in combo})
            if columns > problem.max_rule_length:
                continue
            rows = problem.rows
            for _, _, condition, _ in combo:
                rows = problem.split(rows, condition)[0]
            if len(rows):
                best = max(best, value_of(rows) * factor[columns])
    return best


@settings(max_examples=100, deadline=None)
@given(test_orthogonal_outputs.small_problems())
def test_exhaustive_scored_output_branch_and_bound_equals_brute_force(case):
    problem, basis = case
    outputs = test_orthogonal_outputs
    channels = OutputChannelProblem.orthogonal(problem, basis, outputs.EPSILON)
    factor = length_factors("complexity")
    result = output_branch_and_bound(channels, bound="none", length_factor=factor)
    expected = best_scored_output_value(
        problem, lambda rows: outputs.direct_value(problem, basis, rows), factor)
    score = result.value * factor[_columns(result.conditions)]
    assert score == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert result.value == pytest.approx(outputs.direct_value(problem, basis, result.rows),
                                         rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("strategy", ["greedy", "branch_and_bound"])
def test_several_outputs_take_the_length_penalty(strategy):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    Y = (X[:, :2] + X[:, 2:] * X[:, :2] + 0.5 * rng.normal(size=(200, 2)) > 0).astype(int)
    lengths = {}
    for penalty in ("none", "complexity"):
        model = RuleBoostingClassifier(
            n_rules=6, verbose=0, max_rule_length=None,
            learner=OrthogonalLearner(strategy=strategy, length_penalty=penalty)).fit(X, Y)
        lengths[penalty] = model.history_["length"].iloc[1:].mean()
    assert lengths["complexity"] <= lengths["none"]
