"""``GreedyLearner(condition_cost=...)``: a refinement after the first is kept
only if it gains more than the round's price (noise levels per threshold),
against naive greedy refinement by explicit masks."""

import json

import naive
import numpy as np
import pytest
from conftest import binned_problems
from hypothesis import given, settings
from hypothesis import strategies as st
from test_multiclass import multi_problems

from rulebook import (
    GreedyLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    load_model,
    multi_output_search,
    pair_search,
)
from rulebook.datasets import load_diabetes, load_emotions
from rulebook.greedy import greedy_search

# Prices as fractions of the unpriced path's gain after its first
# proposition: 0 (no price), small ones that cut the last steps, and one
# larger than any step (only the first proposition is left).
FRACTIONS = st.sampled_from([0.0, 0.01, 0.1, 0.3, 0.6, 2.0])


def _price(problem, fraction):
    """``fraction`` of what the unpriced path gains after its first proposition."""
    gain = greedy_search(problem).value - greedy_search(problem, 1).value
    return fraction * max(gain, 0.0)


@settings(max_examples=300, deadline=None)
@given(binned_problems(integer_stats=True), FRACTIONS)
def test_priced_greedy_equals_naive(problem, fraction):
    unpriced = greedy_search(problem, None, 0.0)
    price = _price(problem, fraction)
    result = greedy_search(problem, None, price)
    conditions, value, rows = naive.greedy(
        problem.X_binned, problem.rows, problem.g, problem.h, problem.c, problem.n_bins,
        problem.is_nominal, problem.objective, problem.reg_lambda, problem.max_rule_length,
        price=price)
    assert result.conditions == conditions
    assert result.value == value
    np.testing.assert_array_equal(result.rows, rows)
    # The first proposition is free, and a price only shortens the path.
    assert len(result.conditions) >= min(1, len(unpriced.conditions))
    assert result.conditions == unpriced.conditions[:len(result.conditions)]


@settings(max_examples=200, deadline=None)
@given(multi_problems(integer_stats=True), FRACTIONS)
def test_priced_greedy_of_several_outputs_equals_naive(problem, fraction):
    price = _price(problem, fraction)
    result = greedy_search(problem, None, price)
    conditions, value, rows = naive.greedy_multi(
        problem.X_binned, problem.rows, problem.g, problem.h, problem.c, problem.n_bins,
        problem.is_nominal, problem.reg_lambda, problem.max_rule_length,
        single=problem.single_head, price=price)
    assert result.conditions == conditions
    np.testing.assert_allclose(result.value, value, rtol=1e-12)
    np.testing.assert_array_equal(np.sort(result.rows), np.sort(rows))


class _Recorder(GreedyLearner):
    """Records each round's problem and price (the learner's own search)."""

    def search(self, problem):
        self.seen.append((problem, self.refinement_price(problem)))
        return super().search(problem)


@pytest.mark.parametrize("make, module", [
    (lambda: (RuleBoostingRegressor, *load_diabetes()), pair_search),
    (lambda: (RuleBoostingClassifier, *load_emotions()), multi_output_search),
])
def test_the_price_is_the_noise_level_of_the_round(make, module):
    estimator, X, y = make()
    learner = _Recorder(condition_cost=0.25)
    object.__setattr__(learner, "seen", [])
    estimator(n_rules=3, learner=learner, verbose=0).fit(X, y)
    assert len(learner.seen) == 3
    for problem, price in learner.seen:
        assert price > 0
        assert price == module.condition_cost_of(problem, 0.25)


def test_a_price_gives_shorter_rules_and_zero_changes_nothing():
    X, y = load_diabetes()
    plain = RuleBoostingRegressor(verbose=0).fit(X, y)
    zero = RuleBoostingRegressor(learner=GreedyLearner(condition_cost=0.0), verbose=0).fit(X, y)
    priced = RuleBoostingRegressor(learner=GreedyLearner(condition_cost=1.0), verbose=0).fit(X, y)
    np.testing.assert_array_equal(plain.predict(X), zero.predict(X))
    thresholds = [len(r.query) for r in priced.ensemble_.rules]
    assert sum(thresholds) < sum(len(r.query) for r in plain.ensemble_.rules)


@pytest.mark.parametrize("cost", [-0.1, float("nan"), float("inf"), "auto", None, True])
def test_invalid_condition_cost_is_refused(cost):
    with pytest.raises(ValueError, match="condition_cost must be a finite number >= 0"):
        GreedyLearner(condition_cost=cost)


def test_a_price_needs_the_second_order_objective():
    X, y = load_diabetes()
    model = RuleBoostingRegressor(learner=GreedyLearner(condition_cost=0.25),
                                  objective="gradient_sum", verbose=0)
    with pytest.raises(ValueError, match="condition_cost > 0 needs the second-order objective"):
        model.fit(X, y)


def test_condition_cost_survives_a_model_file(tmp_path):
    X, y = load_diabetes()
    model = RuleBoostingRegressor(n_rules=3, learner=GreedyLearner(condition_cost=0.25),
                                  verbose=0).fit(X, y)
    path = tmp_path / "model.json"
    model.to_json(path)
    again = load_model(path)
    assert again.learner == GreedyLearner(condition_cost=0.25)
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    # A file written before the option existed loads with the price off.
    data = json.loads(path.read_text())
    del data["params"]["learner"]["options"]["condition_cost"]
    path.write_text(json.dumps(data))
    assert load_model(path).learner.condition_cost == 0.0
