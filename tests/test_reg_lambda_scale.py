"""``reg_lambda`` is measured against the Hessian, not the target's scale.

Issue 21 asked for a default that behaves alike on a target in dollars and
one in thousands of dollars. For the squared loss the gradient scales with
the target and the Hessian does not, so every objective is scaled by the
same factor squared and every rule weight by the factor: the default
already does. This pins it down for every learner.
"""

import numpy as np
import pytest

from rulebook import RuleBoostingRegressor
from rulebook.datasets import load_used_cars


@pytest.mark.parametrize("learner", ["greedy", "optimal", "orthogonal"])
@pytest.mark.parametrize("include_linear", [False, True])
def test_a_rescaled_target_gives_the_same_rules_and_scaled_weights(learner, include_linear):
    X, y = load_used_cars()
    fits = [RuleBoostingRegressor(n_rules=5, learner=learner, include_linear=include_linear,
                                  verbose=0).fit(X, y * scale) for scale in (1.0, 1e-3)]
    dollars, thousands = (fit.ensemble_ for fit in fits)
    assert [r.query for r in dollars.rules] == [r.query for r in thousands.rules]
    np.testing.assert_allclose([r.weight * 1e-3 for r in dollars.rules],
                               [r.weight for r in thousands.rules], rtol=1e-9)
    np.testing.assert_allclose(fits[0].predict(X) * 1e-3, fits[1].predict(X), rtol=1e-9)
