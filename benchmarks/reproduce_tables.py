"""Reproduce Table 1 of Boley et al. (2021) and Table 5 of Yang et al. (2024).

Both protocols on every dataset of ``shared/datasets`` (and the Friedman
generators) that the papers used, printed beside the papers' numbers:

* **boley** -- five random 80/20 splits; models of 1 to 10 rules; the mean
  test score over those sizes (area under the score-against-rules curve
  divided by 10; ROC AUC for classification, R^2 for regression) for
  RuleFit, greedy and optimal rule boosting (and orthogonal, when available).
* **yang** -- the same splits; test risk normalised by the intercept-only
  model's, averaged over the complexity levels 1 to 50 (complexity = rules
  plus conditions), for greedy, optimal and orthogonal boosting.

One boosting run per learner and split serves both protocols (stagewise
boosting's first 10 rounds are the 10-rule model). Results are written after
every dataset, so an interrupted or partial run still leaves CSVs and tables.

Run from the repository root::

    python benchmarks/reproduce_tables.py --quick            # smoke run, about a minute
    python benchmarks/reproduce_tables.py                    # everything (up to an hour)
    python benchmarks/reproduce_tables.py --table boley --datasets titanic iris
    python benchmarks/reproduce_tables.py --datasets boston --merge   # add to earlier results

See benchmarks/README.md for the settings and how they differ from the papers'.
"""

import argparse
import ast
import dataclasses
import datetime
import json
import os
import platform
import subprocess
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import paper_results  # sibling module; benchmarks/ is sys.path[0] when run as a script

import rulebook
from rulebook import (
    OptimalLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    RuleFitClassifier,
    RuleFitRegressor,
)
from rulebook.compare import area_under_complexity_curve, area_under_rules_curve, compare_learners
from rulebook.datasets import DATASETS, load_dataset, make_friedman1, make_friedman2, make_friedman3
from rulebook.learners import get_learner

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "datasets"
DEFAULT_OUT = HERE / "results" / "reproduction"

TABLES = ("boley", "yang")
LEARNERS = ("rulefit", "rulefit_linear", "greedy", "optimal", "orthogonal")
# RuleFit without and with its linear terms (Friedman and Popescu 2008,
# Section 5): the papers' ``rf`` column is without them.
RULEFITS = ("rulefit", "rulefit_linear")
# Which learners each protocol reports.
PROTOCOL_LEARNERS = {"boley": ("rulefit", "rulefit_linear", "greedy", "optimal", "orthogonal"),
                     "yang": ("greedy", "optimal", "orthogonal")}
BOLEY_RULES = 10          # Boley et al., Section 4: 1 to 10 rules
YANG_MAX_COMPLEXITY = 50  # Yang et al., Section 4: complexity up to 50
# Complexity is rules plus conditions, at least 2 per rule: 25 rounds always
# reach complexity 50.
YANG_RULES = YANG_MAX_COMPLEXITY // 2
GREEDY_REG_LAMBDA = 0.001  # shared/datasets/README.md: "Greedy learner lambda=0.001"
DEFAULT_TIME_LIMIT = 2.0   # seconds per optimal/orthogonal boosting round
# The orthogonal learner's search: None keeps the preset's (branch and bound
# with a node budget, Yang et al.'s COB_B; see OrthogonalLearner).
ORTHOGONAL_SEARCH = None
QUICK = {"datasets": ["iris", "diabetes"], "splits": 2, "boley_rules": 3, "yang_rules": 4}

# Settings of datasets that are generated, not loaded (shared/datasets/README.md).
GENERATORS = {"friedman1": make_friedman1, "friedman2": make_friedman2, "friedman3": make_friedman3}
GENERATOR_SETTINGS = {"friedman1": (2.0, 6), "friedman2": (2.0, 10), "friedman3": (2.0, 10)}
# Datasets the papers give no lambda or propositions for (Yang et al. chose
# lambda by cross-validation per model size): our choice, the most common
# setting of Boley et al.'s Table 1.
FALLBACK_REG_LAMBDA = 2.0
FALLBACK_PROPOSITIONS = 10


@dataclasses.dataclass(frozen=True)
class Settings:
    """How one dataset is fitted.

    Attributes
    ----------
    name : str
    task : {"binary", "regression", "poisson"}
    reg_lambda : float
        Of the optimal and orthogonal learners (the greedy one uses
        :data:`GREEDY_REG_LAMBDA`).
    propositions : int or dict of str to int
        Propositions per numeric column as in Boley et al. (k propositions:
        k/2 equal-frequency cut points, each giving ``x <= c`` and ``x > c``).
    from_paper : bool
        Whether ``reg_lambda`` and ``propositions`` are the paper's.
    """

    name: str
    task: str
    reg_lambda: float
    propositions: object
    from_paper: bool


def dataset_settings(name):
    """The paper's settings for a dataset (or our fallback).

    Parameters
    ----------
    name : str
        A :data:`rulebook.datasets.DATASETS` name or ``"friedman1"`` to
        ``"friedman3"``.

    Returns
    -------
    Settings

    Raises
    ------
    ValueError
        For an unknown dataset name.
    """
    if name in GENERATORS:
        reg_lambda, propositions = GENERATOR_SETTINGS[name]
        return Settings(name, "regression", reg_lambda, propositions, True)
    if name not in DATASETS:
        known = sorted(set(DATASETS) | set(GENERATORS))
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(known)}.")
    info = DATASETS[name]
    from_paper = info.paper_reg_lambda is not None
    reg_lambda = info.paper_reg_lambda if from_paper else FALLBACK_REG_LAMBDA
    propositions = info.paper_propositions or FALLBACK_PROPOSITIONS
    return Settings(name, info.task, float(reg_lambda), propositions,
                    from_paper and info.paper_propositions is not None)


def load(name, data_home=SHARED):
    """``(X, y)`` of a dataset as the papers used it (rows with NaN dropped).

    Boley et al. drop rows with missing values (titanic: 1043 rows,
    demographics: 6876, videogames: 16327); Yang et al. drop blank rows of
    covid_vic. The Friedman problems are drawn with ``random_state=0`` and
    the papers' sizes (the generators' defaults).
    """
    if name in GENERATORS:
        return GENERATORS[name](random_state=0)
    return load_dataset(name, data_home=data_home, dropna=True)


# Learners that search exactly the paper's propositions (estimator option
# ``propositions=``); the others get equal-frequency bins of the same size.
PAPER_PROPOSITION_LEARNERS = ("greedy", "optimal")


def binning_params(settings, learner="optimal"):
    """Estimator parameters that realise the paper's propositions.

    The one place that decides the binning. The greedy and optimal learners
    get ``propositions=`` (Boley et al.'s propositionalisation: ``k`` per
    numeric column are ``k/2`` equal-frequency thresholds ``c``, each giving
    ``x <= c`` and ``x >= c``; ``x == c`` per category). Learners that cannot
    restrict their search to those (the orthogonal one), and estimators
    without the option, get ``max(k) // 2 + 1`` equal-frequency bins per
    numeric column, i.e. ``max(k) / 2`` cut points with ``k`` the largest
    count over the columns, and ``x <= t``, ``x > t``, ``x == c``,
    ``x != c``.
    """
    propositions = settings.propositions
    if learner in PAPER_PROPOSITION_LEARNERS and _estimator_takes("propositions"):
        return {"propositions": propositions}
    largest = max(propositions.values()) if isinstance(propositions, dict) else propositions
    return {"max_bins": max(2, int(largest) // 2 + 1)}


def _estimator_takes(parameter):
    return parameter in RuleBoostingRegressor().get_params()


def orthogonal_learner(time_limit, strategy=ORTHOGONAL_SEARCH, options=None):
    """The registered orthogonal learner, or None while it does not exist.

    Parameters
    ----------
    time_limit : float or None
        Set like the optimal learner's if the learner has that option.
    strategy : str or None, default=ORTHOGONAL_SEARCH
        Its search strategy (``"greedy"``, ``"beam"``,
        ``"branch_and_bound"``) if it has that option; None keeps the
        learner's default. Yang et al.'s COB_B is branch and bound, COB_G
        greedy.
    options : dict or None
        Further fields of the learner to set (e.g. ``{"max_nodes": 500}``);
        the learner's defaults otherwise, but ``length_penalty="none"``
        and ``ridge="none"`` (the paper's objective, eq. 14).
    """
    try:
        learner = get_learner("orthogonal")
    except ValueError:
        return None
    fields = {field.name for field in dataclasses.fields(learner)} if dataclasses.is_dataclass(learner) else set()
    updates = {}
    if time_limit is not None and "time_limit" in fields:
        updates["time_limit"] = time_limit
    if strategy is not None and "strategy" in fields:
        updates["strategy"] = strategy
    if "length_penalty" in fields:
        # The paper's objective (Yang et al. 2024, eq. 14), not the
        # package's default, which divides by the rule's complexity.
        updates["length_penalty"] = "none"
    if "ridge" in fields:
        # Nor the regularised step's denominator (the default since session 23).
        updates["ridge"] = "none"
    updates.update(options or {})
    return dataclasses.replace(learner, **updates) if updates else learner


def make_learners(settings, names=LEARNERS, time_limit=DEFAULT_TIME_LIMIT,
                  orthogonal_search=ORTHOGONAL_SEARCH, orthogonal_options=None):
    """Unfitted estimators, by learner name, for one dataset.

    Parameters
    ----------
    settings : Settings
    names : sequence of str, default=LEARNERS
        Subset of ``"rulefit"``, ``"rulefit_linear"`` (RuleFit with
        ``include_linear=True``), ``"greedy"``, ``"optimal"``,
        ``"orthogonal"``.
    time_limit : float > 0 or None
        Seconds per boosting round of the optimal (and orthogonal) learner;
        a round stopped by it keeps the best rule found, not certified
        optimal.
    orthogonal_search : str or None, default=ORTHOGONAL_SEARCH
        Search strategy of the orthogonal learner (see
        :func:`orthogonal_learner`).
    orthogonal_options : dict or None
        Further fields of the orthogonal learner (see :func:`orthogonal_learner`).

    Returns
    -------
    dict of {str: estimator}
        Learners that cannot run are left out: ``"orthogonal"`` while it is
        not registered, RuleFit for Poisson data (no Poisson RuleFit).

    Raises
    ------
    ValueError
        For an unknown learner name or a non-positive ``time_limit``.
    """
    unknown = sorted(set(names) - set(LEARNERS))
    if unknown:
        raise ValueError(f"unknown learners {unknown}; valid: {', '.join(LEARNERS)}.")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds or None; got {time_limit!r}.")
    binary = settings.task == "binary"
    Boosting = RuleBoostingClassifier if binary else RuleBoostingRegressor
    loss = {} if binary else {"loss": "poisson" if settings.task == "poisson" else "squared"}
    # The papers' rules have no length limit (the estimators' default is 2
    # conditions, unless propositions= is given).
    common = dict(verbose=0, max_rule_length=None, **loss)
    learners = {}
    RuleFit = RuleFitClassifier if binary else RuleFitRegressor
    for name, include_linear in (("rulefit", False), ("rulefit_linear", True)):
        if name in names and settings.task != "poisson":
            learners[name] = RuleFit(max_rules=BOLEY_RULES, include_linear=include_linear)
    if "greedy" in names:
        learners["greedy"] = Boosting(learner="greedy", reg_lambda=GREEDY_REG_LAMBDA,
                                      **binning_params(settings, "greedy"), **common)
    if "optimal" in names:
        # The paper's plain objective (its propositions use the general
        # search, where condition_cost="auto" is 0 anyway).
        learners["optimal"] = Boosting(learner=OptimalLearner(time_limit=time_limit,
                                                              condition_cost=0),
                                       reg_lambda=settings.reg_lambda,
                                       **binning_params(settings, "optimal"), **common)
    orthogonal = orthogonal_learner(time_limit, orthogonal_search, orthogonal_options) if "orthogonal" in names else None
    if orthogonal is not None:
        learners["orthogonal"] = Boosting(learner=orthogonal, reg_lambda=settings.reg_lambda,
                                          **binning_params(settings, "orthogonal"), **common)
    return learners


def run_dataset(name, *, tables=TABLES, learners=LEARNERS, n_splits=5, boley_rules=BOLEY_RULES,
                yang_rules=YANG_RULES, time_limit=DEFAULT_TIME_LIMIT, orthogonal_search=ORTHOGONAL_SEARCH,
                orthogonal_options=None, data_home=SHARED, random_state=0, log=print):
    """Curves of every learner on one dataset: one row per learner, split and model size.

    RuleFit is fitted with ``max_rules=boley_rules``; the boosting learners
    once per split with as many rounds as the protocols need
    (``boley_rules`` for Boley et al., ``yang_rules`` for Yang et al.).
    All learners see the same splits. A learner that fails is reported
    through ``log`` and left out; the others still run.

    Parameters
    ----------
    name : str
        Dataset name (see :func:`dataset_settings`).
    tables : sequence of {"boley", "yang"}
    learners : sequence of str
    n_splits : int >= 1
    boley_rules, yang_rules : int >= 1
    time_limit : float or None
        Per boosting round of the optimal and orthogonal learners.
    orthogonal_search : str or None
        Search strategy of the orthogonal learner.
    orthogonal_options : dict or None
        Further fields of the orthogonal learner.
    data_home : path
    random_state : int
        Seeds the splits (and RuleFit).
    log : callable
        Receives progress lines.

    Returns
    -------
    DataFrame
        The columns of :func:`rulebook.compare.compare_learners` (with
        ``return_risk=True``) plus ``dataset``, ``task``, ``certified``
        (whether the round that added the row's last rule was proved
        optimal; missing for greedy and RuleFit and for the intercept),
        ``reg_lambda``, ``binning`` and ``time_limit``.

    Raises
    ------
    ValueError
        Unknown dataset, table or learner; ``n_splits`` or a rule count < 1.
    """
    bad = sorted(set(tables) - set(TABLES))
    if bad or not tables:
        raise ValueError(f"tables must be a non-empty subset of {TABLES}; got {list(tables)}.")
    for label, value in (("n_splits", n_splits), ("boley_rules", boley_rules), ("yang_rules", yang_rules)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{label} must be an int >= 1; got {value!r}.")
    settings = dataset_settings(name)
    wanted = [n for n in learners if any(n in PROTOCOL_LEARNERS[t] for t in tables)]
    estimators = make_learners(settings, wanted, time_limit, orthogonal_search, orthogonal_options)
    X, y = load(name, data_home)
    rounds = max(boley_rules if "boley" in tables else 0, yang_rules if "yang" in tables else 0)
    frames = []
    for learner, estimator in estimators.items():
        start = time.perf_counter()
        try:
            with warnings.catch_warnings():
                # Reported below, once per learner, instead of once per split.
                warnings.filterwarnings("ignore", message="boosting stopped after")
                frame = compare_learners(
                    X, y, {learner: estimator}, task=settings.task, n_splits=n_splits,
                    max_rules=boley_rules if learner in RULEFITS else rounds,
                    random_state=random_state, return_risk=True, history_columns=("certified",))
        except Exception as error:  # noqa: BLE001 (keep the other learners' results)
            log(f"  {learner}: FAILED ({type(error).__name__}: {error})")
            log("    " + traceback.format_exc().strip().splitlines()[-2].strip())
            continue
        elapsed = time.perf_counter() - start
        uncertified = _uncertified(frame)
        note = f", {uncertified} rounds not certified optimal" if uncertified else ""
        if learner not in RULEFITS:
            short = frame.groupby("split").n_rules.max()
            short = short[short < rounds]
            if len(short):
                note += (f", stopped early on {len(short)} splits (at {short.min()}-{short.max()} rules: "
                         "no rule reduces the training loss)")
        log(f"  {learner}: {n_splits} splits in {elapsed:.1f} s{note}")
        frames.append(frame)
    if not frames:
        return pd.DataFrame()
    curves = pd.concat(frames, ignore_index=True)
    binning = {learner: ("" if learner in RULEFITS else
                         "; ".join(f"{k}={v}" for k, v in binning_params(settings, learner).items()))
               for learner in curves.learner.unique()}
    reg_lambda = np.where(curves.learner == "greedy", GREEDY_REG_LAMBDA,
                          np.where(curves.learner.isin(RULEFITS), np.nan, settings.reg_lambda))
    curves.insert(0, "dataset", name)
    curves.insert(1, "task", settings.task)
    return curves.assign(reg_lambda=reg_lambda, binning=curves.learner.map(binning), time_limit=time_limit)


def _uncertified(frame):
    if "certified" not in frame:
        return 0
    rounds = frame.loc[frame.n_rules > 0, "certified"]
    return int((rounds.notna() & ~rounds.astype("boolean").fillna(True)).sum())


# -- summaries -------------------------------------------------------------------
def boley_summary(curves, max_rules=BOLEY_RULES):
    """Table 1 of Boley et al.: ours beside the paper's, one row per dataset.

    Parameters
    ----------
    curves : DataFrame
        Output of :func:`run_dataset` (one or several datasets).
    max_rules : int, default=10

    Returns
    -------
    DataFrame
        ``dataset``, ``task``, ``metric``, per learner ``<learner>`` (our
        mean score over 1..max_rules rules, NaN when not run), per paper
        learner ``paper_rf``, ``paper_grd``, ``paper_opt`` (NaN when the
        paper has no row), ``<learner>_time`` (mean seconds per fit),
        ``optimal_uncertified`` (optimal rounds 1..max_rules stopped by the
        time limit, over all splits) and ``opt_ge_grd`` (our optimal is at
        least as good as our greedy: AUC >=, or deviance <= for Poisson
        data; missing unless both ran) and ``opt_minus_grd`` (by how much;
        positive when optimal is better).
    """
    rows = []
    for dataset, frame in curves.groupby("dataset", sort=False):
        frame = frame[frame.learner.isin(PROTOCOL_LEARNERS["boley"])]
        area = area_under_rules_curve(frame, max_rules=max_rules) if len(frame) else pd.Series(dtype=float)
        row = {"dataset": dataset, "task": frame.task.iloc[0], "metric": frame.metric.iloc[0]}
        for learner in PROTOCOL_LEARNERS["boley"]:
            row[learner] = area.get(learner, np.nan)
        paper = paper_results.BOLEY_TABLE1.get(dataset)
        for key in ("rf", "grd", "opt"):
            row[f"paper_{key}"] = paper.auc[key] if paper else np.nan
        for learner in PROTOCOL_LEARNERS["boley"]:
            row[f"{learner}_time"] = _mean_fit_time(frame, learner)
        within = frame[(frame.learner == "optimal") & (frame.n_rules <= max_rules)]
        row["optimal_uncertified"] = _uncertified(within) if len(within) else np.nan
        both = not (np.isnan(row["optimal"]) or np.isnan(row["greedy"]))
        # Poisson deviance: lower is better.
        at_least_as_good = (row["optimal"] <= row["greedy"] if row["metric"] == "poisson_deviance"
                            else row["optimal"] >= row["greedy"])
        row["opt_ge_grd"] = bool(at_least_as_good) if both else pd.NA
        sign = -1.0 if row["metric"] == "poisson_deviance" else 1.0
        row["opt_minus_grd"] = sign * (row["optimal"] - row["greedy"]) if both else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def yang_summary(curves, max_complexity=YANG_MAX_COMPLEXITY):
    """Table 5 of Yang et al.: normalised test risk over complexity 1..50, ours beside theirs.

    Two normalisations (see :func:`rulebook.compare.compare_learners`):
    by the intercept-only model's risk, as the paper's text says, and by
    the risk of the raw score 0, which is what the paper's published
    analysis code divides by; the second is the one to hold against the
    paper's figures.

    Returns
    -------
    DataFrame
        ``dataset``, ``task``, per learner ``<learner>`` (our mean
        offset-normalised test risk; lower is better), ``<learner>_zero``
        (zero-normalised) and ``<learner>_max_complexity`` (largest
        complexity reached, mean over splits: below ``max_complexity`` the
        last model's risk was carried forward), and the paper's test risks
        ``paper_SGB`` (greedy, gradient-boosting objective), ``paper_SXB``
        (branch and bound, the objective of Boley et al.: our optimal),
        ``paper_COB_G`` and ``paper_COB_B`` (orthogonal, greedy and
        branch-and-bound search); NaN where the paper has none.
    """
    rows = []
    for dataset, frame in curves.groupby("dataset", sort=False):
        frame = frame[frame.learner.isin(PROTOCOL_LEARNERS["yang"])]
        row = {"dataset": dataset, "task": frame.task.iloc[0] if len(frame) else ""}
        for suffix, value in (("", "normalised_risk"), ("_zero", "zero_normalised_risk")):
            area = (area_under_complexity_curve(frame, max_complexity=max_complexity, value=value)
                    if len(frame) else pd.Series(dtype=float))
            for learner in PROTOCOL_LEARNERS["yang"]:
                row[f"{learner}{suffix}"] = area.get(learner, np.nan)
        for learner in PROTOCOL_LEARNERS["yang"]:
            reached = frame[frame.learner == learner].groupby("split").complexity.max()
            row[f"{learner}_max_complexity"] = reached.mean() if len(reached) else np.nan
        paper = paper_results.YANG_TABLE5.get(dataset)
        for method in ("SGB", "SXB", "COB_G", "COB_B"):
            value = paper.test_risk[method] if paper else None
            row[f"paper_{method}"] = np.nan if value is None else value
        rows.append(row)
    return pd.DataFrame(rows)


def orthogonal_targets(curves, max_complexity=YANG_MAX_COMPLEXITY):
    """The issue's two targets for the orthogonal learner, per dataset.

    Returns
    -------
    DataFrame
        ``dataset``; ``optimal_time``, ``orthogonal_time`` (seconds of
        fitting, summed over splits; evaluation not included) and their
        ``time_ratio``; ``time_ok`` (ratio <= 3); ``risk_win`` (orthogonal
        mean offset-normalised test risk over complexities
        1..``max_complexity`` below both greedy's and optimal's).
    """
    summary = yang_summary(curves, max_complexity).set_index("dataset")
    per_split = curves.groupby(["dataset", "learner", "split"]).fit_time.first()
    times = per_split.groupby(["dataset", "learner"]).sum().unstack()
    rows = []
    for dataset in summary.index:
        if not {"optimal", "orthogonal"} <= set(times.columns) or dataset not in times.index:
            continue
        optimal, orthogonal = times.loc[dataset, "optimal"], times.loc[dataset, "orthogonal"]
        risk = summary.loc[dataset]
        rows.append({"dataset": dataset, "optimal_time": optimal, "orthogonal_time": orthogonal,
                     "time_ratio": orthogonal / optimal, "time_ok": orthogonal <= 3 * optimal,
                     "risk_win": risk.orthogonal < min(risk.greedy, risk.optimal)})
    return pd.DataFrame(rows)


def format_targets(targets):
    """One line per dataset and the two counts, as text."""
    lines = [f"{'dataset':<20} {'optimal s':>9} {'orthogonal s':>12} {'ratio':>6}  risk below both"]
    for row in targets.itertuples():
        lines.append(f"{row.dataset:<20} {row.optimal_time:9.2f} {row.orthogonal_time:12.2f} "
                     f"{row.time_ratio:6.2f}  {'yes' if row.risk_win else 'no'}")
    n = len(targets)
    lines.append(f"orthogonal fit time <= 3 x optimal on {int(targets.time_ok.sum())} of {n} "
                 f"(target: >= 80%); orthogonal test risk below greedy and optimal on "
                 f"{int(targets.risk_win.sum())} of {n} (target: most)")
    return "\n".join(lines)


def _mean_fit_time(frame, learner):
    times = frame.loc[frame.learner == learner].groupby("split").fit_time.first()
    return float(times.mean()) if len(times) else np.nan


def boley_count(summary):
    """``(k, n)``: our optimal AUC >= our greedy AUC on k of the n Table 1 datasets run."""
    table1 = summary[summary.dataset.isin(paper_results.BOLEY_TABLE1)
                     & summary.opt_ge_grd.notna()]
    return int(table1.opt_ge_grd.astype(bool).sum()), len(table1)


# -- printing --------------------------------------------------------------------
def _fmt(value, digits=3):
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def format_boley(summary, orthogonal_available):
    """Text table: our AUC (paper's) per learner and dataset."""
    header = (f"{'dataset':<20} {'metric':<8} {'rulefit':>15} {'rf+linear':>9} {'greedy':>15} "
              f"{'optimal':>15} {'orthogonal':>13} {'opt>=grd':>15} {'uncert.':>7}  "
              "times rf/rf+lin/grd/opt (s)")
    lines = [header]
    for row in summary.itertuples():
        cells = []
        for ours, paper in (("rulefit", "paper_rf"), ("greedy", "paper_grd"), ("optimal", "paper_opt")):
            cells.append(f"{_fmt(getattr(row, ours))} ({_fmt(getattr(row, paper))})")
        orthogonal = _fmt(row.orthogonal) if orthogonal_available else "not available"
        flag = "" if pd.isna(row.opt_ge_grd) else \
            f"{'yes' if row.opt_ge_grd else 'NO'} ({row.opt_minus_grd:+.4f})"
        uncertified = "" if pd.isna(row.optimal_uncertified) else str(int(row.optimal_uncertified))
        times = "/".join(_fmt(getattr(row, f"{l}_time"), 1)
                         for l in ("rulefit", "rulefit_linear", "greedy", "optimal"))
        lines.append(f"{row.dataset:<20} {row.metric:<8} {cells[0]:>15} "
                     f"{_fmt(row.rulefit_linear):>9} {cells[1]:>15} {cells[2]:>15} "
                     f"{orthogonal:>13} {flag:>15} {uncertified:>7}  {times}")
    return "\n".join(lines)


def format_yang(summary, orthogonal_available):
    """Text table: our normalised test risks (offset / zero) beside the paper's SGB / SXB / COB."""
    header = (f"{'dataset':<20} {'greedy (SGB)':>21} {'optimal (SXB)':>21} "
              f"{'orthogonal (COB_G/COB_B)':>27}  max complexity grd/opt/orth")
    lines = [header]
    for row in summary.itertuples():
        greedy = f"{_fmt(row.greedy)}/{_fmt(row.greedy_zero)} ({_fmt(row.paper_SGB)})"
        optimal = f"{_fmt(row.optimal)}/{_fmt(row.optimal_zero)} ({_fmt(row.paper_SXB)})"
        paper_cob = f"{_fmt(row.paper_COB_G)}/{_fmt(row.paper_COB_B)}"
        orthogonal = (f"{_fmt(row.orthogonal)}/{_fmt(row.orthogonal_zero)} ({paper_cob})"
                      if orthogonal_available else f"n/a ({paper_cob})")
        reached = "/".join(_fmt(getattr(row, f"{l}_max_complexity"), 0)
                           for l in ("greedy", "optimal", "orthogonal"))
        lines.append(f"{row.dataset:<20} {greedy:>21} {optimal:>21} {orthogonal:>27}  {reached}")
    return "\n".join(lines)


# -- running ---------------------------------------------------------------------
def default_datasets(tables):
    """Every dataset available here that the chosen tables report, in table order."""
    names = []
    if "boley" in tables:
        names += [row.name for row in paper_results.BOLEY_TABLE1.values() if row.name]
    if "yang" in tables:
        names += [row.name for row in paper_results.YANG_TABLE5.values() if row.name]
    return list(dict.fromkeys(names))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", choices=("boley", "yang", "both"), default="both")
    parser.add_argument("--datasets", nargs="+", help="dataset names (default: every dataset of "
                        "the chosen tables that is in shared/datasets, plus friedman1-3)")
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=list(LEARNERS))
    parser.add_argument("--splits", type=int, default=5, help="random 80/20 splits (default 5)")
    parser.add_argument("--time-limit", type=float, default=DEFAULT_TIME_LIMIT,
                        help="seconds per optimal/orthogonal boosting round; a round it stops "
                             f"is not certified optimal (default {DEFAULT_TIME_LIMIT}; 0: none)")
    parser.add_argument("--orthogonal-search", choices=("greedy", "beam", "branch_and_bound"),
                        default=ORTHOGONAL_SEARCH, help="search of the orthogonal learner (default: the "
                        "preset's, branch_and_bound: Yang et al.'s COB_B; greedy is their COB_G)")
    parser.add_argument("--orthogonal-options", nargs="+", default=[], metavar="FIELD=VALUE",
                        help="further fields of the orthogonal learner, e.g. max_nodes=500 "
                        "bound=none (default: the learner's own)")
    parser.add_argument("--boley-rules", type=int, default=BOLEY_RULES)
    parser.add_argument("--yang-rules", type=int, default=YANG_RULES,
                        help=f"boosting rounds for the Yang protocol (default {YANG_RULES}, "
                             f"enough for complexity {YANG_MAX_COMPLEXITY})")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {' and '.join(QUICK['datasets'])}, {QUICK['splits']} splits, "
                             f"{QUICK['boley_rules']}/{QUICK['yang_rules']} rules; writes to <out>/quick")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="directory for the CSV files")
    parser.add_argument("--merge", action="store_true",
                        help="keep the other datasets' rows of an earlier curves.csv in --out")
    parser.add_argument("--data-home", type=Path, default=SHARED)
    parser.add_argument("--seed", type=int, default=0, help="seeds the splits")
    args = parser.parse_args(argv)
    if args.quick:
        args.datasets = args.datasets or QUICK["datasets"]
        args.splits, args.boley_rules, args.yang_rules = QUICK["splits"], QUICK["boley_rules"], QUICK["yang_rules"]
        args.out = args.out.parent / "quick" if args.out == DEFAULT_OUT else args.out / "quick"
    if args.splits < 1 or args.boley_rules < 1 or args.yang_rules < 1:
        parser.error("--splits, --boley-rules and --yang-rules must be >= 1")
    if args.time_limit < 0:
        parser.error("--time-limit must be >= 0 (0: no limit)")
    args.tables = TABLES if args.table == "both" else (args.table,)
    args.datasets = args.datasets or default_datasets(args.tables)
    try:
        args.orthogonal_options = dict(_parse_option(item) for item in args.orthogonal_options)
    except ValueError as error:
        parser.error(str(error))
    for name in args.datasets:
        try:
            dataset_settings(name)
        except ValueError as error:
            parser.error(str(error))
    return args


def _parse_option(item):
    """``"max_nodes=500"`` to ``("max_nodes", 500)`` (values as Python literals)."""
    field, sep, value = item.partition("=")
    if not sep or not field:
        raise ValueError(f"--orthogonal-options takes FIELD=VALUE items; got {item!r}.")
    try:
        return field, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return field, value  # a bare word such as none: a string


def warm_up(name, learners, data_home=SHARED):
    """Compile every learner's kernels once, on a small slice, without a time limit.

    numba compiles a kernel at its first call; a time limit per boosting
    round would otherwise count that compilation (seconds, with a cold
    cache) against the first search, which can then stop before it has
    looked at a single rule. Returns the seconds it took.
    """
    start = time.perf_counter()
    settings = dataset_settings(name)
    X, y = load(name, data_home)
    rows = np.random.default_rng(0).permutation(len(y))[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for estimator in make_learners(settings, learners, time_limit=None).values():
            params = estimator.get_params()
            estimator.set_params(**{k: v for k, v in (("n_rules", 2), ("max_rules", 2)) if k in params})
            estimator.fit(X.iloc[rows], y.iloc[rows])
    return time.perf_counter() - start


def _has_option(learners, name, option="time_limit"):
    learner = learners[name].learner if name in learners else None
    return dataclasses.is_dataclass(learner) and option in {f.name for f in dataclasses.fields(learner)}


def _git_commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def write_results(out, curves, run_info):
    """Write curves.csv, boley.csv, yang.csv and run.json into ``out``; return the summaries."""
    out.mkdir(parents=True, exist_ok=True)
    curves.to_csv(out / "curves.csv", index=False)
    boley = boley_summary(curves, run_info["boley_rules"]) if len(curves) else pd.DataFrame()
    yang = yang_summary(curves) if len(curves) else pd.DataFrame()
    boley.to_csv(out / "boley.csv", index=False)
    yang.to_csv(out / "yang.csv", index=False)
    (out / "run.json").write_text(json.dumps(run_info, indent=2, default=str) + "\n")
    return boley, yang


def main(argv=None):
    args = parse_args(argv)
    time_limit = args.time_limit or None
    orthogonal_available = orthogonal_learner(None) is not None
    binning_mode = ("the paper's propositions (greedy, optimal); max_bins = max(k)//2 + 1 (orthogonal)"
                    if _estimator_takes("propositions") else "max_bins = max(k)//2 + 1")
    print(f"rulebook {rulebook.__version__} (commit {_git_commit()}), Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}")
    print(f"tables: {', '.join(args.tables)}; {len(args.datasets)} datasets; {args.splits} splits; "
          f"rules: {args.boley_rules} (Boley), {args.yang_rules} (Yang); time limit per optimal round: "
          f"{time_limit or 'none'} s; binning: {binning_mode}; greedy lambda={GREEDY_REG_LAMBDA}; "
          f"orthogonal search: {args.orthogonal_search or 'preset'} "
          f"{orthogonal_learner(None, args.orthogonal_search, args.orthogonal_options)}")
    if not orthogonal_available:
        print("orthogonal: not available (no learner registered as 'orthogonal')")
    if time_limit:
        rounds = max(args.boley_rules if "boley" in args.tables else 0,
                     args.yang_rules if "yang" in args.tables else 0)
        limited = [name for name in ("optimal", "orthogonal") if name in args.learners and
                   _has_option(make_learners(dataset_settings(args.datasets[0]), [name]), name)]
        bound = len(args.datasets) * args.splits * rounds * len(limited) * time_limit
        print(f"the time limit bounds the {'/'.join(limited) or 'no'} searches to {bound / 60:.0f} min "
              f"at most ({len(args.datasets)} datasets x {args.splits} splits x {rounds} rounds x "
              f"{time_limit:g} s x {len(limited)} learners)")
    if args.quick:
        print("QUICK smoke run: few rules and splits; the numbers are not comparable with the papers'.")
    previous = pd.DataFrame()
    if args.merge and (args.out / "curves.csv").exists():
        previous = pd.read_csv(args.out / "curves.csv")
        previous = previous[~previous.dataset.isin(args.datasets)]
    run_info = {
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick, "tables": list(args.tables), "splits": args.splits,
        "boley_rules": args.boley_rules, "yang_rules": args.yang_rules, "time_limit": time_limit,
        "greedy_reg_lambda": GREEDY_REG_LAMBDA, "binning": binning_mode,
        "orthogonal_available": orthogonal_available, "orthogonal_search": args.orthogonal_search,
        "orthogonal_options": args.orthogonal_options,
        "rulebook": rulebook.__version__,
        "commit": _git_commit(), "cpus": os.cpu_count(),
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"), "seed": args.seed,
    }
    # One dataset per task: the losses differ, and so may the kernels they use.
    firsts = {dataset_settings(name).task: name for name in reversed(args.datasets)}
    seconds = sum(warm_up(name, args.learners, args.data_home) for name in firsts.values())
    print(f"warm-up on {', '.join(firsts.values())} (compiling the kernels, not timed): {seconds:.1f} s",
          flush=True)
    start = time.perf_counter()
    frames = [previous] if len(previous) else []
    boley = yang = pd.DataFrame()
    for name in args.datasets:
        settings = dataset_settings(name)
        source = "paper" if settings.from_paper else "fallback"
        propositions = settings.propositions
        if isinstance(propositions, dict):
            propositions = f"{min(propositions.values())}-{max(propositions.values())} by column"
        print(f"\n{name} ({settings.task}; lambda={settings.reg_lambda:g}, propositions "
              f"{propositions} [{source}])", flush=True)
        try:
            curves = run_dataset(name, tables=args.tables, learners=args.learners, n_splits=args.splits,
                                 boley_rules=args.boley_rules, yang_rules=args.yang_rules,
                                 time_limit=time_limit, orthogonal_search=args.orthogonal_search,
                                 orthogonal_options=args.orthogonal_options,
                                 data_home=args.data_home,
                                 random_state=args.seed, log=lambda line: print(line, flush=True))
        except (OSError, ValueError) as error:
            print(f"  skipped: {error}")
            continue
        if len(curves):
            frames.append(curves)
        all_curves = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        run_info["total_seconds"] = round(time.perf_counter() - start, 1)
        run_info["finished_datasets"] = sorted(set(all_curves.dataset)) if len(all_curves) else []
        boley, yang = write_results(args.out, all_curves, run_info)
    total = time.perf_counter() - start
    print_report(args, boley, yang, orthogonal_available, total)
    if "yang" in args.tables and frames:
        targets = orthogonal_targets(pd.concat(frames, ignore_index=True))
        if len(targets):
            print("\nTargets of the orthogonal learner (issue 4):")
            print(format_targets(targets))


def print_report(args, boley, yang, orthogonal_available, total):
    """Print the tables, the optimal-vs-greedy count and the run time."""
    if "boley" in args.tables and len(boley):
        print(f"\nBoley et al. (2021), Table 1: mean test score over 1-{args.boley_rules} rules, "
              "ours (paper's: 1-10 rules)")
        print(format_boley(boley, orthogonal_available))
        k, n = boley_count(boley)
        target = int(np.ceil(17 / 20 * n)) if n else 0
        print(f"\noptimal AUC >= greedy AUC on {k} of {n} Table 1 datasets run "
              f"(the paper: 24 of 24; target: {target} of {n}) -> {'met' if n and k >= target else 'MISSED'}")
        uncertified = boley.optimal_uncertified.dropna().sum()
        if uncertified:
            print(f"{int(uncertified)} optimal rounds (of the first {args.boley_rules}, all splits) were "
                  f"stopped by the time limit and are not certified optimal")
    if "yang" in args.tables and len(yang):
        print(f"\nYang et al. (2024), Table 5: normalised test risk averaged over complexity 1-"
              f"{YANG_MAX_COMPLEXITY}; ours by the intercept-only model's risk / by the zero model's "
              "risk (paper's, which match the zero-model normalisation); lower is better")
        print(format_yang(yang, orthogonal_available))
    print(f"\nresults: {args.out}/curves.csv, boley.csv, yang.csv, run.json")
    print(f"total run time: {total:.1f} s ({total / 60:.1f} min)")


if __name__ == "__main__":
    sys.exit(main())
