"""The boosting loop over a cluster's partitions (greedy learner, stagewise weights).

The same loop as :func:`rulebook.boosting.fit_boosting`, its arrays of
rows replaced by futures of per-partition arrays: the intercept from sums
over partitions, then per round the workers' gradients, the greedy search
on a :class:`~rulebook.dask._search.DistributedProblem`, the rule weight
from sums over the rule's extent and the workers' raw scores updated. The
client holds the model, the round's histograms and a few floats per
partition; the rows stay on the workers.

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
from . import _client, _partitions
from ._search import DistributedProblem, Extent, shortened


@dataclass
class DistributedSetup:
    """Everything fixed for one distributed fit.

    ``shards`` are futures of :class:`~rulebook.dask._partitions.Shard`;
    ``binner`` a :class:`~rulebook.binning.Binner` with ``features_`` set;
    ``learner`` a :class:`~rulebook.greedy.GreedyLearner` (the other
    learners run on merged atoms, :mod:`rulebook.dask._atoms`).
    """

    client: object
    shards: list
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
        self.setup, self.client = setup, setup.client
        totals = self._sum(_client.each(self.client, _partitions.totals, setup.shards))
        self.total_weight, self.n_active = float(totals[0]), int(totals[3])
        self.intercept = baseline(setup.loss, totals)
        self.raw = _client.each(self.client, _partitions.initial_raw, setup.shards,
                                args=(self.intercept,))
        roots = _client.each(self.client, _partitions.root_rows, setup.shards)
        self.root = Extent(roots, self.n_active)
        self.rules = []

    def _sum(self, futures):
        return _client.reduce(self.client, futures, _partitions.add_arrays)

    def gradients(self, raw):
        return _client.each(self.client, _partitions.gradients, self.setup.shards, raw,
                            args=(self.setup.loss,))

    def problem(self, gh):
        setup, binner = self.setup, self.setup.binner
        return DistributedProblem(self.client, setup.shards, gh, Extent(self.root.parts, self.n_active),
                                  self.total_weight, binner.n_bins_, binner.is_nominal_,
                                  float(setup.reg_lambda), search_code(setup.objective),
                                  setup.max_rule_length or 0)

    def search(self, problem):
        """The round's query: the greedy search on the partitions' summed histograms."""
        result = greedy_search(problem)
        return shortened(problem, result) if self.setup.learner.shorten else result

    def train_loss(self, raw):
        """The training loss of the model of ``raw``, as a callable: its sums
        are left to run while the rounds go on and read at the end."""
        parts = _client.each(self.client, _partitions.total_loss, self.setup.shards, raw,
                             args=(self.setup.loss,))
        return lambda: float(self._sum(parts)[0]) / self.total_weight

    def rule_weight(self, extent, G, H, raw):
        """``weight_updates._rule_weight`` over an extent spread over partitions."""
        setup = self.setup
        if setup.objective == "second_order":
            weight = second_order_weight(G, H, setup.reg_lambda)
            if setup.loss.name == "squared":
                return weight
            parts = _client.each(self.client, _partitions.extent_losses, setup.shards, raw,
                                 extent.parts, args=(setup.loss, (weight, 0.0)))
            with_weight, without = self._sum(parts)
            if with_weight + 0.5 * setup.reg_lambda * weight**2 <= without:
                return weight
        # losses.newton_rule_weight itself (its bracketing and Brent search),
        # its derivative summed over the partitions: the loss it is given
        # returns that sum as its one "gradient", at raw score 0 + w = w.
        summed = _SummedDerivative(self, extent, raw)
        return newton_rule_weight(summed, None, 0.0, None, setup.reg_lambda)


class _SummedDerivative:
    """A stand-in loss for :func:`rulebook.losses.newton_rule_weight`: its
    ``gradient_hessian`` at ``w`` is ``sum g_i(raw_i + w)`` over an extent."""

    def __init__(self, fit, extent, raw):
        self.fit, self.extent, self.raw = fit, extent, raw

    def gradient_hessian(self, y, weight, sample_weight):
        fit = self.fit
        parts = _client.each(fit.client, _partitions.extent_derivative, fit.setup.shards, self.raw,
                             self.extent.parts, args=(fit.setup.loss, float(weight)))
        return fit._sum(parts), None


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
    raw = fit.raw
    history = [_record(0, "(intercept)", fit.intercept, np.nan, fit.train_loss(raw), 1.0, 0, 0,
                       time.perf_counter() - started, {"intercept": fit.intercept, "weights": ()})]
    for t in range(1, setup.n_rules + 1):
        check_interrupt()
        start = time.perf_counter()
        gh = fit.gradients(raw)
        if t == 1:
            gradient_scale = float(fit._sum(_client.each(fit.client, _partitions.absolute_gradient_sum, gh))[0])
        problem = fit.problem(gh)
        result = fit.search(problem)
        if not result.conditions and result.value > 0:
            raw, gh, problem, result = _shift_intercept(fit, problem, raw, gh, result)
        G, H, C = problem.sums(result.rows)
        if abs(G) <= _STOP_TOLERANCE * gradient_scale or not result.value > 0 or not result.conditions:
            warnings.warn(f"boosting stopped after {t - 1} rules: {_stop_reason(result)}.",
                          UserWarning, stacklevel=user_stacklevel())
            break
        query = Query(tuple(setup.binner.proposition(*c) for c in result.conditions))
        coverage = C / fit.total_weight
        weight = fit.rule_weight(result.rows, G, H, raw)
        raw = _client.each(fit.client, _partitions.add_weight, raw, result.rows.parts, args=(weight,))
        fit.rules.append(Rule(query, weight, coverage))
        complexity = len(fit.rules) + sum(len(r) for r in fit.rules)
        stats = {**result.stats, "intercept": float(fit.intercept),
                 "weights": tuple(float(r.weight) for r in fit.rules)}
        history.append(_record(t, str(query), weight, result.value, fit.train_loss(raw), coverage,
                               len(query), complexity, time.perf_counter() - start, stats))
        if setup.progress is not None:
            setup.progress.update(1)
    for record in history:
        record["train_loss"] = record["train_loss"]()
    return fit.intercept, fit.rules, _history_frame(history)


def _shift_intercept(fit, problem, raw, gh, result):
    """A round whose best query is the empty one: the intercept moves by its
    weight and the round searches again (as the in-memory loop does); the
    shift is kept only if the new search finds a rule."""
    G, H, _ = problem.sums(problem.rows)
    weight = fit.rule_weight(problem.rows, G, H, raw)
    shifted = _client.each(fit.client, _partitions.shift, raw, args=(weight,))
    gh2 = fit.gradients(shifted)
    retry_problem = fit.problem(gh2)
    retry = fit.search(retry_problem)
    if not retry.conditions:
        return raw, gh, problem, result
    retry.stats = {**retry.stats, "intercept_shift": float(weight)}
    fit.intercept += weight
    return shifted, gh2, retry_problem, retry


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
