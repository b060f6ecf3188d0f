"""The gradient rule boosting loop (Boley et al. 2021, Section 2).

    bin once -> fit the intercept (background rule) -> for each round:
    gradients -> base learner -> rule weight -> update raw scores.

Stagewise (``weight_update="stagewise"``): a rule's weight is fixed when
it is added. Corrective (``"corrective"``, Yang et al. 2024, eq. 7): after
each rule the intercept and all weights are re-fitted jointly
(:mod:`rulebook.corrective`). A learner whose ``objective`` is
``"orthogonal"`` also gets the orthonormal basis of the selected queries
(:mod:`rulebook.orthogonal`, Algorithm 1 of Yang et al. 2024).
"""

import time
import warnings
from contextlib import nullcontext
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ._progress import reporting, set_status
from .corrective import corrective_weights
from .losses import newton_rule_weight
from .objectives import OBJECTIVES, ORTHOGONAL, second_order_weight
from .optimal import OptimalLearner, shorten_conditions
from .orthogonal import ChannelProblem, OrthogonalBasis
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
    weight_update: str = "stagewise"
    allowed: object = None  # SearchProblem.allowed: the propositions searched


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
    state = _WeightState(setup) if setup.weight_update == "corrective" else None
    basis = OrthogonalBasis(weights, setup.n_rules) if _is_orthogonal(setup) else None
    history = [_record(0, "(intercept)", intercept, np.nan, loss.loss(y, raw, weights),
                       1.0, 0, 0, time.perf_counter() - started, {"intercept": intercept,
                                                                  "weights": ()})]
    rules = []
    for t in range(1, setup.n_rules + 1):
        start = time.perf_counter()
        g, h = loss.gradient_hessian(y, raw, weights)
        problem = _problem(setup, g, h, rows)
        with _round_progress(setup.progress, t):
            result = _shortened(setup, problem, _search(setup, problem, basis))
        G = float(g[result.rows].sum())
        # Orthogonal: the projected gradient's sum decides (g^T q itself is
        # ~0 for a query in the span of the rules after a corrective re-fit).
        progress = abs(G) if basis is None else result.value
        if progress <= _STOP_TOLERANCE * np.abs(g).sum() or not result.value > 0:
            warnings.warn(
                f"boosting stopped after {t - 1} rules: no query reduces the loss "
                "(the training data is fitted as well as rules can fit it).",
                UserWarning,
                stacklevel=3,
            )
            break
        query = Query(tuple(setup.binner.proposition(*c) for c in result.conditions))
        coverage = float(weights[result.rows].sum() / weights.sum())
        if state is None:
            weight = _rule_weight(setup, result.rows, G, h, raw)
            raw[result.rows] += weight
            rules.append(Rule(query, weight, coverage))
        else:
            intercept, rules, raw = state.add(result.rows, Rule(query, 0.0, coverage), rules)
            weight = rules[-1].weight
            result.stats = {**result.stats, "refit_iterations": state.n_iter}
        if basis is not None:
            basis.add(_indicator(len(y), result.rows))
        complexity = len(rules) + sum(len(r) for r in rules)
        # The whole model after this round: a corrective update changes every
        # weight, so the model of round t is not the first t rules of the
        # final one (RuleBoosting*.staged_ensembles reads these).
        stats = {**result.stats, "intercept": float(intercept),
                 "weights": tuple(float(r.weight) for r in rules)}
        history.append(_record(t, str(query), weight, result.value, loss.loss(y, raw, weights),
                               coverage, len(query), complexity,
                               time.perf_counter() - start, stats))
        if setup.progress is not None:
            setup.progress.update(1)
    return intercept, rules, _history_frame(history)


def _round_progress(bar, t):
    """Within the block, a long search shows its progress after the bar.

    E.g. ``round 3: 12k nodes, best 0.0131, certified >= 0.42``: the
    certified ratio ``best / upper bound`` only rises as the search goes
    on, so it is an honest estimate of how far the round is from its end
    (1.0: proven optimal), where a time estimate would not be.
    """
    if bar is None or getattr(bar, "disable", False):
        return nullcontext()
    bar.set_postfix_str(f"round {t}", refresh=False)  # drawn by the next update

    def show(nodes, best, certified_ratio, threads):
        on = f" on {threads} threads" if threads > 1 else ""
        set_status(bar, f"round {t}: {_count(nodes)} nodes{on}, best {best:.4g}, "
                        f"certified \u2265 {certified_ratio:.2f}")

    return reporting(show)


def _count(n):
    """``n`` in at most four characters and a suffix: 950, 12k, 3.4M."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.2g}{suffix}" if n < 10 * size else f"{n / size:.0f}{suffix}"
    return str(int(n))


def _history_frame(records):
    """The records as a DataFrame indexed by ``round``; keys missing from a
    record (round 0 has no search statistics) are NaN.

    Column by column: ``DataFrame(records).set_index("round")`` gives the same
    frame in about twice the time, a few percent of a small fit.
    """
    names = list(dict.fromkeys(name for record in records for name in record))
    names.remove("round")
    index = pd.Index([record["round"] for record in records], name="round")
    return pd.DataFrame({name: [record.get(name, np.nan) for record in records]
                         for name in names}, index=index)


def _is_orthogonal(setup):
    return getattr(setup.learner, "objective", None) == ORTHOGONAL


def _search(setup, problem, basis):
    """Run the learner; the orthogonal one on channels of the current basis.

    With ``reg_lambda > 0`` the re-fitted gradient need not be orthogonal to
    the selected queries (Proposition 4 of Yang et al. holds for
    ``reg_lambda = 0``) and can even lie in their span: every ``obj_ogb``
    is then 0 although a new rule still lowers the regularised risk
    wherever ``q^T g != 0`` (seen on breast_cancer after 8 rules). Such a
    round falls back to the gradient-boosting objective ``|g^T q| / ||q||``
    (``history_`` column ``objective_fallback``) instead of stopping.
    """
    if basis is None:
        return setup.learner.search(problem)
    channels = ChannelProblem.orthogonal(problem, basis, setup.learner.epsilon)
    result = setup.learner.search_channels(channels)
    if result.value > _STOP_TOLERANCE * np.abs(problem.g).sum():
        return result
    problem.objective = OBJECTIVES["gradient_boosting"]
    result = setup.learner.search_channels(ChannelProblem.standard(problem))
    result.stats = {**result.stats, "objective_fallback": True}
    return result


def _indicator(n, rows):
    q = np.zeros(n)
    q[rows] = 1.0
    return q


class _WeightState:
    """Query matrix and weights of the corrective update (Yang et al. 2024, eq. 7).

    Each re-fit is warm-started from the previous round's intercept and
    weights, the new rule's weight starting at 0.
    """

    def __init__(self, setup):
        self.setup = setup
        # Column-major: a round writes one column, which is then contiguous.
        # Row-major, writing a column touched one page per row of a matrix
        # that np.zeros maps lazily: 11 s in one uninterruptible statement
        # for the first rule of 5000 on 10^5 rows (and all of its 4 GB).
        self.Q = np.zeros((len(setup.y), setup.n_rules), order="F")
        self.t = 0
        self.n_iter = 0

    def add(self, rows, rule, rules):
        """Re-fit with the new rule; return ``(intercept, rules, raw)``."""
        setup = self.setup
        self.Q[rows, self.t] = 1.0
        self.t += 1
        Q = self.Q[:, :self.t]
        previous = np.array([r.weight for r in rules] + [0.0])
        start = (getattr(self, "intercept", setup.loss.baseline(setup.y, setup.sample_weight)),
                 previous)
        fit = corrective_weights(setup.loss, setup.y, Q, setup.sample_weight, setup.reg_lambda,
                                 start=start)
        self.intercept, self.n_iter = fit.intercept, fit.n_iter
        rules = [replace(r, weight=float(w)) for r, w in zip(list(rules) + [rule], fit.weights)]
        return fit.intercept, rules, fit.intercept + Q @ fit.weights


def _shortened(setup, problem, result):
    """``result`` with an approximately shortest query of the same extent.

    The optimal learner shortens its own queries; the others' (greedy and
    orthogonal refinement add conditions that later ones can make redundant
    on the training data) are shortened here, unless the learner says
    ``shorten=False``. Same rows, so the same weight and objective.
    """
    if isinstance(setup.learner, OptimalLearner) or not getattr(setup.learner, "shorten", True):
        return result
    return replace(result, conditions=shorten_conditions(problem, result.conditions, result.rows))


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
        # The orthogonal objective is scored on channels (rulebook.orthogonal),
        # never through this code; it is the gradient-boosting one there.
        objective=OBJECTIVES.get(setup.objective, OBJECTIVES["gradient_boosting"]),
        max_rule_length=setup.max_rule_length or 0,
        allowed=setup.allowed,
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
