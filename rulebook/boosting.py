"""The gradient rule boosting loop (Boley et al. 2021, Section 2).

    bin once -> fit the intercept (background rule), and the linear base
    terms with it if any -> for each round: gradients -> base learner ->
    rule weight -> update raw scores.

The loop knows neither the learner nor the weight update it runs. The
learner is seen through :class:`rulebook.search.LearnerRounds` (each
round's query; a learner with per-fit state brings its own); the weights
through :mod:`rulebook.weight_updates` (stagewise, Boley et al. 2021, eq. 2.2, or
corrective, Yang et al. 2024, eq. 7).
"""

import time
import warnings
from contextlib import nullcontext
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ._progress import check_interrupt, reporting, set_status
from .corrective import corrective_weights
from .objectives import search_code
from .rules import Query, Rule
from .search import MultiOutputProblem, SearchProblem, start_rounds
from .weight_updates import StagewiseUpdate, weight_update

# A round whose gradient sum over the chosen extent is this small relative
# to the total absolute gradient of the first round cannot reduce the loss:
# boosting stops. Relative to the first round's, not the current round's:
# once the rules fit the target exactly, the gradient left is rounding
# noise, and the best extent of that noise holds a large share of it (the
# fit went on adding rules that fit noise of 1e-16).
_STOP_TOLERANCE = 1e-12
# Rounds between root histograms built directly from every row: in between
# each round's is the last one's plus the change on the last rule's extent
# (SearchProblem.root_histograms), whose rounding would otherwise add up
# over a long fit.
ROOT_REBUILD_ROUNDS = 16
# Rows from which the root histograms follow from the last round's. Below,
# a direct pass costs a millisecond or less; and its sums are those of the
# rows in order, so that two propositions with the same extent tie exactly
# and the first feature wins (the update's rounding would break such ties
# at random: scikit-learn's sample-weight equivalence check saw it).
ROOT_UPDATE_MIN_ROWS = 65_536
# Rows from which histograms are built from a row-major copy of the binned
# table (SearchProblem.X_rows): most passes are over a scattered part of
# the rows (an extent, the last rule's), where the column-major table costs
# a cache miss per row and feature and the row-major one a miss per row
# (10^6 x 20: 2% of the rows 10 -> 5 ms, all rows 62 -> 41 ms). The copy is
# 2 bytes a cell, made once per fit.
ROW_MAJOR_MIN_ROWS = 65_536


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
    # (n, p) float64 values of fixed base terms at unit weight (linear terms,
    # ``include_linear``), fitted with the intercept before the first round.
    base_columns: object = None
    # With several outputs: "complete" (a weight per output) or "single"
    # (a weight for the one output where the rule helps most) heads.
    head: str = "complete"
    # X_binned row-major, for histogram passes over tall tables (set by
    # fit_boosting; see ROW_MAJOR_MIN_ROWS).
    X_rows: object = None
    # SearchProblem.gradient_spread (set by a Dask fit on atoms).
    gradient_spread: float = 0.0


def fit_boosting(setup):
    """Run boosting; return the intercept, the rules, the history and the base weights.

    Returns
    -------
    intercept : float, or ndarray of shape (K,) with several outputs
    rules : list of Rule
    history : DataFrame
        One row per boosting round, round 0 being the intercept (and the
        base terms) alone.
    base_weights : ndarray of shape (p,), float64
        The weights of ``setup.base_columns`` (empty without them).
    """
    started = time.perf_counter()
    # Not for learners that never build histograms of the search problem
    # (the orthogonal learner scores its own channels): 2 bytes a cell saved.
    if (setup.X_rows is None and len(setup.X_binned) >= ROW_MAJOR_MIN_ROWS
            and isinstance(setup.X_binned, np.ndarray)  # not sparse codes
            and getattr(setup.learner, "uses_row_major_bins", True)):
        setup = replace(setup, X_rows=np.ascontiguousarray(setup.X_binned))
    y, weights, loss = setup.y, setup.sample_weight, setup.loss
    intercept, base_weights, raw = fit_base(setup)
    rows = np.flatnonzero(weights > 0)
    rounds = start_rounds(setup.learner, weights, setup.n_rules, setup.base_columns)
    update = weight_update(setup, base_weights)
    history = [_record(0, "(intercept)", _plain(intercept), np.nan, loss.loss(y, raw, weights),
                       1.0, 0, 0, time.perf_counter() - started,
                       _model_stats(intercept, [], update))]
    rules = []
    train_loss = history[0]["train_loss"]
    previous = None  # the last round's problem and its rule's extent, if only there raw changed
    for t in range(1, setup.n_rules + 1):
        check_interrupt()  # a Ctrl-C swallowed by a callback (_progress.interrupts_kept)
        start = time.perf_counter()
        if previous is None:
            g, h = loss.gradient_hessian(y, raw, weights)
            problem = _problem(setup, g, h, rows)
        else:
            problem = _next_problem(setup, raw, *previous, rebuild=t % ROOT_REBUILD_ROUNDS == 0)
            g, h = problem.g, problem.h
        if t == 1:
            gradient_scale = float(np.abs(g).sum())
        previous = None
        with _round_progress(setup.progress, t):
            result = rounds.search(problem)
            if not result.conditions and result.value > 0:
                # The best query is the empty one: a shift of the intercept,
                # not a rule. The intercept takes it; the round searches again.
                shifted = update.shift_intercept(rows, intercept, raw, g, h)
                g2, h2 = loss.gradient_hessian(y, shifted[1], weights)
                retry_problem = _problem(setup, g2, h2, rows)
                retry = rounds.search(retry_problem)
                if retry.conditions:
                    retry.stats = {**retry.stats, "intercept_shift": _plain(shifted[0] - intercept)}
                    (intercept, raw), (g, h) = shifted, (g2, h2)
                    problem, result = retry_problem, retry
        progress = rounds.progress(problem, result)
        if (progress <= _STOP_TOLERANCE * gradient_scale or not result.value > 0
                or not result.conditions):
            warnings.warn(
                f"boosting stopped after {t - 1} rules: {_stop_reason(result)}.",
                UserWarning,
                stacklevel=4,  # the line that called the estimator's fit
            )
            break
        query = Query(tuple(setup.binner.proposition(*c) for c in result.conditions))
        coverage = float(weights[result.rows].sum() / weights.sum())
        local = isinstance(update, StagewiseUpdate)  # raw changes on the rule's extent only
        # Unless the intercept moved this round: then every raw score did.
        moved = "intercept_shift" in result.stats
        before = _extent_loss(loss, y, raw, weights, result.rows) if local and not moved else None
        intercept, rules, raw, update_stats = update.add(
            result.rows, Rule(query, 0.0, coverage), rules, intercept, raw, g, h)
        weight = rules[-1].weight
        result.stats = {**result.stats, **update_stats}
        rounds.added(result.rows)
        if before is not None and t % ROOT_REBUILD_ROUNDS:
            # The extent's share of the loss changed, the rest did not: a
            # pass over the extent instead of every row (rounding aside, the
            # same number; a direct pass every ROOT_REBUILD_ROUNDS rounds).
            change = _extent_loss(loss, y, raw, weights, result.rows) - before
            train_loss = train_loss + change / weights.sum()
        else:
            train_loss = loss.loss(y, raw, weights)
        if local:
            previous = (problem, result.rows)
        complexity = len(rules) + sum(len(r) for r in rules)
        # The whole model after this round: a corrective update changes every
        # weight, so the model of round t is not the first t rules of the
        # final one (RuleBoosting*.staged_ensembles reads these).
        stats = {**result.stats, **_model_stats(intercept, rules, update)}
        history.append(_record(t, str(query), weight, result.value, train_loss,
                               coverage, len(query), complexity,
                               time.perf_counter() - start, stats))
        if setup.progress is not None:
            setup.progress.update(1)
    return intercept, rules, _history_frame(history), update.base_weights


def _next_problem(setup, raw, problem, changed, rebuild):
    """The round's problem after a rule that changed the raw scores of ``changed`` only.

    The gradients and Hessians of those rows are computed anew, the others
    kept from ``problem`` (the last round's): element by element the same
    numbers as a pass over every row. Unless ``rebuild``, the root
    histograms follow from the last round's (``SearchProblem.root_update``).
    """
    y, weights = setup.y, setup.sample_weight
    g_changed, h_changed = setup.loss.gradient_hessian(y[changed], raw[changed], weights[changed])
    g, h = problem.g.copy(), problem.h.copy()
    g[changed], h[changed] = g_changed, h_changed
    following = _problem(setup, g, h, problem.rows)
    built = problem.built_root_histograms
    if not rebuild and built is not None and len(problem.rows) >= ROOT_UPDATE_MIN_ROWS:
        dg, dh = np.zeros_like(g), np.zeros_like(h)
        dg[changed] = g_changed - problem.g[changed]
        dh[changed] = h_changed - problem.h[changed]
        following.root_update = (built, changed, dg, dh)
    else:
        following.reuse_memory(problem)  # the last round's problem is dropped
    return following


def _extent_loss(loss, y, raw, weights, rows):
    """The loss of ``rows`` summed with the sample weights (not their mean)."""
    w = weights[rows]
    return loss.loss(y[rows], raw[rows], w) * w.sum()


def fit_base(setup):
    """The model before the first rule: ``(intercept, base_weights, raw)``.

    The intercept is the loss's baseline; with base columns ``B`` (linear
    terms), the intercept and their weights ``b`` minimise the regularised
    risk ``sum_i s_i l(y_i, b_0 + (B b)_i) + reg_lambda/2 ||b||^2`` jointly
    (:func:`rulebook.corrective.corrective_weights`), as the background rule
    and the linear terms are fitted before any rule in the orthogonal
    boosting authors' newer code.
    """
    y, weights, loss = setup.y, setup.sample_weight, setup.loss
    intercept = loss.baseline(y, weights)
    B = setup.base_columns
    if np.ndim(intercept):  # one per output: raw scores of shape (n, K)
        if B is not None and B.shape[1]:
            raise ValueError("base columns (linear terms) with several outputs are not supported.")
        return intercept, np.empty(0), np.tile(intercept, (len(y), 1))
    if B is None or B.shape[1] == 0:
        return intercept, np.empty(0), np.full(len(y), intercept)
    fit = corrective_weights(loss, y, B, weights, setup.reg_lambda,
                             start=(intercept, np.zeros(B.shape[1])))
    return fit.intercept, fit.weights, fit.intercept + B @ fit.weights


def _stop_reason(result):
    """Why a round found no rule, for the warning that ends the fit."""
    if not result.conditions and result.stats.get("memory_exhausted"):
        # Not the data's doing: the search was stopped before it scored a
        # single refinement (a memory_limit too small for the root's).
        return ("the learner's memory_limit stopped its search before it found a query; "
                "raise the learner's memory_limit (or set it to None)")
    if not result.conditions and result.stats.get("condition_cost", 0.0) > 0:
        return ("no query's objective exceeds the cost of its conditions (the optimal "
                "learner's condition_cost: what is left looks like noise to it; "
                "OptimalLearner(condition_cost=0) searches the plain objective)")
    return ("no query reduces the loss (the training data is fitted as well as rules can "
            "fit it)")


def _model_stats(intercept, rules, update):
    """``history_``'s columns of the whole model after a round."""
    stats = {"intercept": _plain(intercept), "weights": tuple(_plain(r.weight) for r in rules)}
    if len(update.base_weights):
        stats["base_weights"] = tuple(float(w) for w in update.base_weights)
    return stats


def _plain(weight):
    """A weight as ``history_`` holds it: a float, or a tuple of floats (one per output)."""
    return float(weight) if np.ndim(weight) == 0 else tuple(float(w) for w in weight)


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
        if n >= 0.9995 * size:  # 999,999 is 1M, not 1000k
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


def _problem(setup, g, h, rows):
    # g, h of shape (n, K): several outputs, rules with the setup's head.
    if g.ndim == 1:
        return _single_output_problem(setup, g, h, rows)
    return MultiOutputProblem(
        X_binned=setup.X_binned, X_rows=setup.X_rows, n_bins=setup.binner.n_bins_,
        is_nominal=setup.binner.is_nominal_, g=g, h=h, c=setup.sample_weight, rows=rows,
        # The second-order objective: the only one of several outputs, and
        # the orthogonal learner's fallback with them (its own objective is
        # scored on channels, rulebook.orthogonal_outputs).
        reg_lambda=float(setup.reg_lambda), objective=search_code("second_order"),
        max_rule_length=setup.max_rule_length or 0, allowed=setup.allowed,
        single_head=setup.head == "single")


def _single_output_problem(setup, g, h, rows):
    return SearchProblem(
        X_binned=setup.X_binned,
        X_rows=setup.X_rows,
        n_bins=setup.binner.n_bins_,
        is_nominal=setup.binner.is_nominal_,
        g=g,
        h=h,
        c=setup.sample_weight,
        rows=rows,
        reg_lambda=float(setup.reg_lambda),
        objective=search_code(setup.objective),
        max_rule_length=setup.max_rule_length or 0,
        allowed=setup.allowed,
        gradient_spread=setup.gradient_spread,
    )


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
