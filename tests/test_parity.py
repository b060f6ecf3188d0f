"""Noisy parity (Boley et al. 2021, Fig. 1): optimal rules recover it, greedy ones do not.

The paper's settings (shared/datasets/README.md): reg_lambda = 10 for the
optimal learner, 0.001 for the greedy one, 8 propositions per column (4
equal-frequency thresholds, each giving ``x <= c`` and ``x >= c``), and
``2^d`` rules. Test accuracy is averaged over five training samples: on a
single sample greedy can catch up by chance. The Bayes accuracy with the
generator's sigma = 0.5 is 0.955, 0.935 and 0.915 for d = 2, 3, 4, so 0.9 is
close to the best possible; greedy stays clearly below it here (about 0.8)
but, with these sample sizes and 2^d rules, well above chance.
See benchmarks/bench_parity.py for more samples and larger n.
"""

import numpy as np
import pytest
from sklearn.metrics import accuracy_score

from rulebook import RuleBoostingClassifier
from rulebook.datasets import make_noisy_parity

PROPOSITIONS = 8
SEEDS = (0, 1, 2, 3, 4)


def fit_both(X, y, d):
    common = dict(n_rules=2**d, propositions=PROPOSITIONS, verbose=0)
    optimal = RuleBoostingClassifier(learner="optimal", reg_lambda=10, **common)
    greedy = RuleBoostingClassifier(learner="greedy", reg_lambda=0.001, **common)
    return optimal.fit(X, y), greedy.fit(X, y)


@pytest.mark.parametrize("d, n", [(2, 300), (3, 600), (4, 2000)])
def test_optimal_rules_learn_noisy_parity(d, n):
    X_test, y_test = make_noisy_parity(n_samples=5000, n_features=d, random_state=100)
    scores = {"optimal": [], "greedy": []}
    for seed in SEEDS:
        X, y = make_noisy_parity(n_samples=n, n_features=d, random_state=seed)
        optimal, greedy = fit_both(X, y, d)
        assert optimal.history_["certified"].iloc[1:].all()
        scores["optimal"].append(accuracy_score(y_test, optimal.predict(X_test)))
        scores["greedy"].append(accuracy_score(y_test, greedy.predict(X_test)))
    mean_optimal, mean_greedy = np.mean(scores["optimal"]), np.mean(scores["greedy"])
    assert mean_optimal >= 0.9, scores
    assert mean_greedy <= mean_optimal - 0.05, scores
    # Per sample, optimal rules (optimal on the training data, round by
    # round) can lose a few test points: d = 2, seed 0 gives 0.9344 vs 0.9348.
    assert all(o >= g - 0.01 for o, g in zip(scores["optimal"], scores["greedy"])), scores


def test_first_optimal_rules_are_orthant_rules():
    """The 2^d risk-minimising rules are conjunctions of one sign condition per feature."""
    d = 3
    X, y = make_noisy_parity(n_samples=600, n_features=d, random_state=0)
    optimal, _ = fit_both(X, y, d)
    lengths = [len(rule.query) for rule in optimal.ensemble_.rules[:4]]
    assert lengths == [d] * 4, str(optimal.ensemble_)
