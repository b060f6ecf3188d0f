"""The boosting loop over a cluster's partitions (greedy learner, stagewise weights).

The same loop as :func:`rulebook.boosting.fit_boosting`, its arrays of
rows replaced by state on the workers: the intercept from sums over
partitions, then per round the greedy search on a
:class:`~rulebook.dask._search.DistributedProblem` (whose tasks compute the
round's gradients where and when a search node needs them), the rule weight
from sums over the rule's extent, and the rule added to the model. The client holds the
model, the round's histograms and a few floats per worker; the rows stay
on the workers, which keep nothing of them but their binned partitions
(the raw scores are replayed from the rules where a task needs them:
:class:`~rulebook.dask._partitions.RawScores`).

The intercept, the rule weights, the stopping test and the history are
computed as in memory (the same closed forms and the same 1-D search), from
sums reduced over partitions: they agree with the in-memory fit to rounding
(the order of summation differs).
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._progress import check_interrupt
from .._validation import user_stacklevel
from ..boosting import _STOP_TOLERANCE, _stop_reason
from ..greedy import greedy_search
from ..losses import newton_rule_weight
from ..objectives import search_code, second_order_weight
from ..rules import Query, Rule
from ..weight_updates import past_minimiser
from . import _client, _partitions
from ._search import DistributedProblem, Extent, shortened


@dataclass
class DistributedSetup:
    """Everything fixed for one distributed fit.

    ``workers`` the binned partitions (:class:`~rulebook.dask._client.Workers`);
    ``binner`` a :class:`~rulebook.binning.Binner` with ``features_`` set;
    ``learner`` a :class:`~rulebook.greedy.GreedyLearner` (the other
    learners run on merged atoms, :mod:`rulebook.dask._atoms`).
    """

    workers: object
    binner: object
    loss: object
    learner: object
    objective: str
    reg_lambda: float
    n_rules: int
    max_rule_length: int = 0
    progress: object = None


class _Fit:
    """The state of the rounds: intercept, rules, raw scores on the workers."""

    def __init__(self, setup):
        self.setup, self.workers = setup, setup.workers
        totals = self.workers.sum(_partitions.totals)
        self.total_weight, self.n_active = float(totals[0]), int(totals[3])
        self.intercept = baseline(setup.loss, totals)
        self.scores = _partitions.RawScores(self.intercept, setup.binner.n_bins_)
        self.rules = []

    @property
    def n_bins(self):
        return self.setup.binner.n_bins_

    def problem(self, scores):
        setup, binner = self.setup, self.setup.binner
        return DistributedProblem(self.workers, scores, setup.loss, Extent((), self.n_active),
                                  self.total_weight, binner.n_bins_, binner.is_nominal_,
                                  float(setup.reg_lambda), search_code(setup.objective),
                                  setup.max_rule_length or 0)

    def search(self, problem):
        """The round's query: the greedy search on the partitions' summed histograms."""
        learner = self.setup.learner
        result = greedy_search(problem, learner.max_refinements(problem),
                               learner.refinement_price(problem))
        return shortened(problem, result) if learner.shorten else result

    def train_loss(self, scores):
        """The training loss of the model of ``scores``, as a callable: its sums
        are left to run while the rounds go on and read at the end."""
        parts = self.workers.run(_partitions.total_loss, scores, self.setup.loss)
        return lambda: float(_client.reduce(self.workers.client, parts,
                                            _partitions.add_results)[0]) / self.total_weight

    def rule_weight(self, extent, G, H, scores):
        """``weight_updates._rule_weight`` over an extent spread over partitions."""
        setup = self.setup
        if setup.objective == "second_order":
            weight = second_order_weight(G, H, setup.reg_lambda)
            if setup.loss.name == "squared":
                return weight
            derivative = self.workers.sum(
                _partitions.extent_derivative, scores, extent.terms, self.n_bins, setup.loss,
                weight)[0] + setup.reg_lambda * weight
            if not past_minimiser(weight, derivative):
                return weight
        # losses.newton_rule_weight itself (its bracketing and Brent search),
        # its derivative summed over the partitions: the loss it is given
        # returns that sum as its one "gradient", at raw score 0 + w = w.
        summed = _SummedDerivative(self, extent, scores)
        return newton_rule_weight(summed, None, 0.0, None, setup.reg_lambda)



class _SummedDerivative:
    """A stand-in loss for :func:`rulebook.losses.newton_rule_weight`: its
    ``gradient_hessian`` at ``w`` is ``sum g_i(raw_i + w)`` over an extent."""

    def __init__(self, fit, extent, scores):
        self.fit, self.extent, self.scores = fit, extent, scores

    def gradient_hessian(self, y, weight, sample_weight):
        fit = self.fit
        total = fit.workers.sum(_partitions.extent_derivative, self.scores, self.extent.terms,
                                fit.n_bins, fit.setup.loss, float(weight))
        return total, None


def baseline(loss, totals):
    """The intercept ``loss.baseline(y, s)`` from sums over partitions.

    ``totals`` is ``[sum s, sum s y, sum s [y > 0], rows]``. Every loss's
    baseline is a function of a weighted mean: of ``y`` (squared, Poisson)
    or of ``y > 0`` (logistic); ``loss.baseline`` is called on a table of
    one or two rows with that mean, so that its clipping applies as in
    memory.
    """
    weight, weighted_y, positive = totals[:3]
    if loss.name == "logistic":
        return loss.baseline(np.array([1.0, -1.0]), np.array([positive, weight - positive]))
    return loss.baseline(np.array([weighted_y / weight]), np.ones(1))


def fit_boosting(setup):
    """Run boosting over partitions; return the intercept, the rules and the history.

    Parameters
    ----------
    setup : DistributedSetup

    Returns
    -------
    intercept : float
    rules : list of rulebook.rules.Rule
    history : DataFrame
        As the in-memory estimators' ``history_``, round 0 the intercept.
    """
    started = time.perf_counter()
    fit = _Fit(setup)
    scores = fit.scores
    history = [_record(0, "(intercept)", fit.intercept, np.nan, fit.train_loss(scores), 1.0, 0, 0,
                       time.perf_counter() - started, {"intercept": fit.intercept, "weights": ()})]
    for t in range(1, setup.n_rules + 1):
        check_interrupt()
        start = time.perf_counter()
        problem = fit.problem(scores)
        result = fit.search(problem)
        if t == 1:  # the root's sums came with its histograms: sum |g| of the first round
            gradient_scale = problem.rows.abs_gradient
        if not result.conditions and result.value > 0:
            scores, problem, result = _shift_intercept(fit, problem, scores, result)
        G, H, C = problem.sums(result.rows)
        if abs(G) <= _STOP_TOLERANCE * gradient_scale or not result.value > 0 or not result.conditions:
            warnings.warn(f"boosting stopped after {t - 1} rules: {_stop_reason(result)}.",
                          UserWarning, stacklevel=user_stacklevel())
            break
        query = Query(tuple(setup.binner.proposition(*c) for c in result.conditions))
        coverage = C / fit.total_weight
        weight = fit.rule_weight(result.rows, G, H, scores)
        scores = scores.added(result.rows.terms, weight)
        fit.rules.append(Rule(query, weight, coverage))
        complexity = len(fit.rules) + sum(len(r) for r in fit.rules)
        stats = {**result.stats, "intercept": float(fit.intercept),
                 "weights": tuple(float(r.weight) for r in fit.rules)}
        history.append(_record(t, str(query), weight, result.value, fit.train_loss(scores),
                               coverage, len(query), complexity, time.perf_counter() - start,
                               stats))
        if setup.progress is not None:
            setup.progress.update(1)
    for record in history:
        record["train_loss"] = record["train_loss"]()
    return fit.intercept, fit.rules, _history_frame(history)


def _shift_intercept(fit, problem, scores, result):
    """A round whose best query is the empty one: the intercept moves by its
    weight and the round searches again (as the in-memory loop does); the
    shift is kept only if the new search finds a rule."""
    G, H, _ = problem.sums(problem.rows)
    weight = fit.rule_weight(problem.rows, G, H, scores)
    shifted = scores.shifted(weight)
    retry_problem = fit.problem(shifted)
    retry = fit.search(retry_problem)
    if not retry.conditions:
        return scores, problem, result
    retry.stats = {**retry.stats, "intercept_shift": float(weight)}
    fit.intercept += weight
    return shifted, retry_problem, retry


def _record(t, rule, weight, objective, train_loss, coverage, length, complexity, seconds, stats):
    return {"round": t, "rule": rule, "weight": weight, "objective": objective,
            "train_loss": train_loss, "coverage": coverage, "length": length,
            "complexity": complexity, "time": seconds, **stats}


def _history_frame(records):
    """The records as a DataFrame indexed by ``round`` (missing keys NaN)."""
    names = list(dict.fromkeys(name for record in records for name in record))
    names.remove("round")
    index = pd.Index([record["round"] for record in records], name="round")
    return pd.DataFrame({name: [record.get(name, np.nan) for record in records] for name in names},
                        index=index)
