"""RuleFit's L1 fit on the sparse rule matrix, against scikit-learn on the dense one."""

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.linear_model import Lasso, LogisticRegression
from test_rulefit_rules import tree_queries

from rulebook.datasets import load_titanic
from rulebook.losses import get_loss
from rulebook.rulefit_path import _L1Fitter
from rulebook.rulefit_rules import _candidate_rules


@pytest.fixture(scope="module")
def titanic_matrix():
    """Titanic's candidate rules (some stored complemented), unequal weights."""
    X, y = load_titanic()
    y = np.where(y == 1, 1.0, -1.0)
    weights = np.random.default_rng(0).choice([1.0, 2.5], size=len(X))
    _, Z = _candidate_rules(tree_queries(X, y, weights, n_estimators=300), X, weights)
    assert Z.flipped.any()
    return Z, Z.columns(np.arange(Z.shape[1])).toarray(), y, weights


def test_lasso_on_complemented_columns_is_the_lasso_on_the_rule_matrix(titanic_matrix):
    """With an unpenalised intercept, a complemented column is the same L1 problem.

    ``b' + w' (1 - z) = (b' + w') - w' z`` with the same ``|w'|``: the
    stored problem's solution, mapped back, is the lasso's on ``Z`` itself.
    """
    Z, dense, y, weights = titanic_matrix
    target = y + np.random.default_rng(1).normal(scale=0.5, size=len(y))
    fitter = _L1Fitter(Z, target, weights, get_loss("squared"), 0)
    fitter.model.set_params(tol=1e-12, max_iter=100_000)  # both fits to rounding
    alpha_max = fitter.alpha_max()
    for alpha in alpha_max * np.array([0.5, 0.1, 0.02]):
        point = fitter.fit(alpha)
        reference = Lasso(alpha=alpha, tol=1e-12, max_iter=100_000).fit(dense, target, sample_weight=weights)
        assert point.n_rules > 0
        np.testing.assert_array_equal(point.coef != 0, reference.coef_ != 0)
        np.testing.assert_allclose(point.coef, reference.coef_, atol=1e-9 * np.abs(reference.coef_).max())
        assert point.intercept == pytest.approx(reference.intercept_, abs=1e-9)
    # alpha_max is the smallest strength giving no rule (KKT at the intercept).
    assert fitter.fit(alpha_max * (1 + 1e-9)).n_rules == 0
    assert fitter.fit(alpha_max * 0.99).n_rules > 0


def _objective(dense, y01, weights, alpha, intercept, coef):
    """liblinear's problem per unit weight: mean logistic loss + alpha (sum |w| + |b| / 100)."""
    raw = intercept + dense @ coef
    loss = np.average(np.logaddexp(0.0, -(2 * y01 - 1) * raw), weights=weights)
    return loss + alpha * (np.abs(coef).sum() + abs(intercept) / 100.0)


def test_logistic_working_sets_solve_the_problem_over_all_rules(titanic_matrix):
    """liblinear sees a working set; the result solves the problem on every rule.

    Strengths as the path visits them (down a grid, then bisected). The
    rules left out satisfy the zero-weight optimality condition, and the
    objective is that of liblinear on the dense matrix at a tight
    tolerance, to liblinear's default path tolerance.
    """
    Z, dense, y, weights = titanic_matrix
    fitter = _L1Fitter(Z, y, weights, get_loss("logistic"), 0)
    widths = []
    fit = fitter.model.fit

    def recording_fit(X, *args, **kwargs):
        widths.append(X.shape[1])
        return fit(X, *args, **kwargs)

    fitter.model.fit = recording_fit
    alpha_max = fitter.alpha_max()
    y01 = (y > 0).astype(float)
    # Down the path's grid, then back up between two of its points (a bisection).
    steps = [1, 2, 4, 6, 8, 10, 9.5, 12]
    for alpha in alpha_max * 10.0 ** (-np.array(steps) / 20):
        point = fitter.fit(alpha)
        raw = point.intercept + dense @ point.coef
        gradient = dense.T @ (weights * (y01 - expit(raw))) / weights.sum()
        assert (np.abs(gradient[point.coef == 0]) <= alpha).all()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = LogisticRegression(
                l1_ratio=1.0, solver="liblinear", intercept_scaling=100.0, tol=1e-12, max_iter=10_000,
                C=1.0 / (alpha * weights.sum()), random_state=0,
            ).fit(dense, y01, sample_weight=weights)
        best = _objective(dense, y01, weights, alpha, reference.intercept_[0], reference.coef_[0])
        found = _objective(dense, y01, weights, alpha, point.intercept, point.coef)
        assert best <= found <= best + 1e-8
        assert point.n_rules == np.count_nonzero(reference.coef_)
    # Working sets: liblinear never saw more than a fraction of the rules.
    assert max(widths) < Z.shape[1] / 4
