"""The greedy learner against naive greedy refinement by explicit masks."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.greedy import greedy_search

import naive
from conftest import binned_problems


def _naive(problem, max_steps=None):
    return naive.greedy(problem.X_binned, problem.rows, problem.g, problem.h, problem.c,
                        problem.n_bins, problem.is_nominal, problem.objective,
                        problem.reg_lambda, problem.max_rule_length, max_steps)


@settings(max_examples=300, deadline=None)
@given(binned_problems(integer_stats=True))
def test_greedy_equals_naive_with_exact_sums(problem):
    result = greedy_search(problem)
    conditions, value, rows = _naive(problem)
    assert result.conditions == conditions
    assert result.value == value
    np.testing.assert_array_equal(result.rows, rows)


@settings(max_examples=300, deadline=None)
@given(binned_problems(integer_stats=True), st.integers(0, 3))
def test_greedy_with_a_refinement_limit_equals_naive(problem, max_steps):
    """``max_refinements`` (the greedy learner's ``max_rule_length`` steps)
    stops the path after that many propositions: the naive path cut there."""
    result = greedy_search(problem, max_steps)
    conditions, value, rows = _naive(problem, max_steps)
    assert result.conditions == conditions
    assert len(result.conditions) <= max_steps
    assert result.value == value
    np.testing.assert_array_equal(result.rows, rows)
    steps = result.stats["n_steps"]
    assert steps == len(result.conditions) + (len(result.rows) > 1
                                              and len(result.conditions) < max_steps)


def test_greedy_learner_counts_refinements_when_asked():
    """``GreedyLearner(count_refinements=True)`` refines at most
    ``max_rule_length`` times; by default only the columns are limited."""
    from rulebook.greedy import GreedyLearner

    class _Problem:
        max_rule_length = 2

    assert GreedyLearner().max_refinements(_Problem()) is None
    assert GreedyLearner(count_refinements=True).max_refinements(_Problem()) == 2
    _Problem.max_rule_length = 0  # unlimited
    assert GreedyLearner(count_refinements=True).max_refinements(_Problem()) is None


def test_counted_refinements_give_rules_of_at_most_two_propositions():
    """On emotions, every rule of ``count_refinements=True`` holds at most
    ``max_rule_length`` propositions (thresholds), and the model round-trips
    through JSON with the option."""
    import warnings

    from rulebook import RuleBoostingClassifier, load_model
    from rulebook.datasets import load_emotions
    from rulebook.greedy import GreedyLearner

    X, Y = load_emotions()
    model = RuleBoostingClassifier(n_rules=5, verbose=0,
                                   learner=GreedyLearner(count_refinements=True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X.iloc[:200], Y.iloc[:200])
    for rule in model.ensemble_.rules:
        assert 1 <= len(rule.query.propositions) <= 2
    again = load_model(model.to_json())
    assert again.learner.count_refinements
    np.testing.assert_array_equal(again.predict(X.iloc[200:]), model.predict(X.iloc[200:]))


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_greedy_result_is_consistent(problem):
    """Real statistics: the reported extent and value are those of the query,
    the value never decreases along the path, and the length limit holds."""
    result = greedy_search(problem)
    mask = np.ones(len(problem.g), bool)
    for condition in result.conditions:
        mask &= naive.condition_mask(problem.X_binned, *condition, problem.n_bins)
    np.testing.assert_array_equal(result.rows, problem.rows[mask[problem.rows]])
    value, atol = naive.value_with_rounding_error(problem, result.rows)
    np.testing.assert_allclose(result.value, value, rtol=1e-9, atol=atol)
    root = naive.objective_value(naive.NAMES[problem.objective], problem.g[problem.rows].sum(),
                                 problem.h[problem.rows].sum(), problem.c[problem.rows].sum(),
                                 problem.n_total, problem.reg_lambda)
    assert result.value >= root - 1e-12
    if problem.max_rule_length:
        assert len({c[0] for c in result.conditions}) <= problem.max_rule_length


@settings(max_examples=200, deadline=None)
@given(binned_problems())
def test_greedy_effort_is_one_pass_per_step_scoring_every_proposition(problem):
    """``stats``: one histogram pass per added condition plus the last one that
    found no improvement (none when one row is left), and every pass scores
    all propositions of the space, so ``n_refinements`` is the same count
    per pass and at least the number of propositions."""
    from rulebook.proposition_space import _PropositionSpace

    result = greedy_search(problem)
    steps, scored = result.stats["n_steps"], result.stats["n_refinements"]
    assert steps == len(result.conditions) + (len(result.rows) > 1)
    if steps == 0:
        assert scored == 0
    else:
        assert scored % steps == 0
        assert scored // steps >= len(_PropositionSpace._build(problem))
