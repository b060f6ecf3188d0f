"""The gradient rule boosting loop (Boley et al. 2021, Section 2).

    bin once -> fit the intercept (background rule) -> for each round:
    gradients -> base learner -> rule weight -> update raw scores.

Stagewise: a rule's weight is fixed when it is added. The orthogonal
learner's corrective re-fit plugs in as another weight update.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .losses import newton_rule_weight
from .objectives import OBJECTIVES, second_order_weight
from .rules import Query, Rule
from .search import SearchProblem

# A round whose gradient sum over the chosen extent is this small relative
# to the total absolute gradient cannot reduce the loss: boosting stops.
_STOP_TOLERANCE = 1e-12


@dataclass
class BoostingSetup:
    """Everything fixed for one fit.

    ``learner`` is the base learner (:mod:`rulebook.learners`);
    ``binner`` maps its binned conditions to propositions.
    """

    X_binned: np.ndarray
    binner: object
    y: np.ndarray
    sample_weight: np.ndarray
    loss: object
    learner: object
    objective: str
    reg_lambda: float
    n_rules: int
    max_rule_length: int = 0
    progress: object = None


def fit_boosting(setup):
    """Run boosting; return the intercept, the rules and the history.

    Returns
    -------
    intercept : float
    rules : list of Rule
    history : DataFrame
        One row per boosting round, round 0 being the intercept alone.
    """
    started = time.perf_counter()
    y, weights, loss = setup.y, setup.sample_weight, setup.loss
    intercept = loss.baseline(y, weights)
    raw = np.full(len(y), intercept)
    rows = np.flatnonzero(weights > 0)
    history = [_record(0, "(intercept)", intercept, np.nan, loss.loss(y, raw, weights),
                       1.0, 0, 0, time.perf_counter() - started, {})]
    rules = []
    for t in range(1, setup.n_rules + 1):
        start = time.perf_counter()
        g, h = loss.gradient_hessian(y, raw, weights)
        result = setup.learner.search(_problem(setup, g, h, rows))
        G = float(g[result.rows].sum())
        if abs(G) <= _STOP_TOLERANCE * np.abs(g).sum() or not result.value > 0:
            warnings.warn(
                f"boosting stopped after {t - 1} rules: no query reduces the loss "
                "(the training data is fitted as well as rules can fit it).",
                UserWarning,
                stacklevel=3,
            )
            break
        weight = _rule_weight(setup, result.rows, G, h, raw)
        raw[result.rows] += weight
        query = Query(tuple(setup.binner.proposition(*c) for c in result.conditions))
        coverage = float(weights[result.rows].sum() / weights.sum())
        rule = Rule(query, weight, coverage)
        rules.append(rule)
        complexity = len(rules) + sum(len(r) for r in rules)
        history.append(_record(t, str(query), weight, result.value, loss.loss(y, raw, weights),
                               coverage, len(query), complexity,
                               time.perf_counter() - start, result.stats))
        if setup.progress is not None:
            setup.progress.update(1)
    return intercept, rules, pd.DataFrame(history).set_index("round")


def _problem(setup, g, h, rows):
    return SearchProblem(
        X_binned=setup.X_binned,
        n_bins=setup.binner.n_bins_,
        is_nominal=setup.binner.is_nominal_,
        g=g,
        h=h,
        c=setup.sample_weight,
        rows=rows,
        reg_lambda=float(setup.reg_lambda),
        objective=OBJECTIVES[setup.objective],
        max_rule_length=setup.max_rule_length or 0,
    )


def _rule_weight(setup, rows, G, h, raw):
    """Closed form for the second-order objective (eq. 2.2), else exact 1-D.

    The closed form is one Newton step from 0; for the logistic and Poisson
    losses it can overshoot far from the optimum (seen on the ships counts),
    and then it is replaced by the exact minimiser of the regularised loss on
    the extent, so that no rule makes the training loss worse.
    """
    args = (setup.loss, setup.y[rows], raw[rows], setup.sample_weight[rows], setup.reg_lambda)
    if setup.objective == "second_order":
        weight = second_order_weight(G, float(h[rows].sum()), setup.reg_lambda)
        if setup.loss.name == "squared" or _extent_loss(weight, *args) <= _extent_loss(0.0, *args):
            return weight
    return newton_rule_weight(*args)


def _extent_loss(weight, loss, y, raw, sample_weight, reg_lambda):
    """Regularised loss of the extent's rows with ``weight`` added."""
    return loss.loss(y, raw + weight, sample_weight) * sample_weight.sum() + 0.5 * reg_lambda * weight**2


def _record(t, rule, weight, objective, train_loss, coverage, length, complexity, seconds, stats):
    return {
        "round": t,
        "rule": rule,
        "weight": weight,
        "objective": objective,
        "train_loss": train_loss,
        "coverage": coverage,
        "length": length,
        "complexity": complexity,
        "time": seconds,
        **stats,
    }
