"""Risk against complexity, and fit time, of the greedy, optimal and orthogonal learners.

The protocol of Yang et al. (2024), Section 4, at a fixed ``reg_lambda``:
random 80/20 train/test splits; for each learner one boosting fit per split
with enough rules to pass complexity 50 (complexity = rules + conditions);
train and test risk normalised by the intercept-only model's, averaged over
the complexity levels 1..50 (:func:`rulebook.compare.area_under_complexity_curve`);
the median fit time per learner. Then the issue's targets, printed, never
asserted:

* time: orthogonal <= 3 x optimal on at least 80% of the datasets;
* risk: orthogonal's mean test risk over complexities 1-50 below both
  others' on most datasets (the paper: 23 of 34).

Run from the repository root::

    python benchmarks/bench_orthogonal.py --quick          # 3 small datasets, 1 split, ~1 min
    python benchmarks/bench_orthogonal.py                  # every dataset, 5 splits (long)
    python benchmarks/bench_orthogonal.py --datasets titanic insurance --splits 3
    python benchmarks/bench_orthogonal.py --learners greedy orthogonal orthogonal_beam orthogonal_bnb
    FASTOGB_PYTHON=~/fastogb-venv/bin/python python benchmarks/bench_orthogonal.py --learners orthogonal

fastogb (PyPI, by an author of the paper) runs side by side as the learner
``fastogb_ogb`` when its interpreter is found (``--fastogb-python``, env
``FASTOGB_PYTHON``; ``--no-fastogb`` to leave it out; skipped with a note
when not installed): ``GeneralRuleBoostingEstimator(search="ogb",
objective_function=OrthogonalBoostingObjective,
weight_update_method=FullyCorrective(), include_default_rule=True)`` with
the same ``reg_lambda``, on the same splits, its risks computed here with
rulebook's losses. The end then prints the issue's target: rulebook's
``orthogonal`` faster than fastogb on every dataset at equal or lower test
risk.

See benchmarks/README.md for the settings.
"""

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

import _fastogb  # sibling module; benchmarks/ is sys.path[0] when run as a script

from rulebook import (
    OptimalLearner,
    OrthogonalLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
)
from rulebook.compare import area_under_complexity_curve, compare_learners
from rulebook.datasets import list_datasets, load_dataset
from rulebook.losses import get_loss

QUICK = ["titanic", "used_cars", "ships"]
FASTOGB = "fastogb_ogb"  # fastogb's orthogonal boosting, as a learner of the tables
# rulebook's numeric resolution: max_bins=255 equal-frequency bins; fastogb's
# max_col_attr=k gives k/2 equal-frequency thresholds, each x <= c and x >= c.
FASTOGB_MAX_COL_ATTR = 2 * 255
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
# What each learner name of the table means (all at the same reg_lambda).
LEARNERS = {
    "greedy": {"learner": "greedy"},
    "optimal": {"learner": OptimalLearner(time_limit=None)},  # exact, as before the 2 s default
    # The optimal learner stopped after 2 s per rule (anytime), as in
    # reproduce_tables.py; for datasets where the exact search takes minutes.
    "optimal_2s": {"learner": OptimalLearner(time_limit=2.0)},
    "orthogonal": {"learner": "orthogonal"},
    # The preset of session 22 (complexity penalty, eq. 14's denominator).
    "orthogonal_no_ridge": {"learner": OrthogonalLearner(ridge="none")},
    # The preset before session 22: no length penalty (the paper's COB_B).
    "orthogonal_plain": {"learner": OrthogonalLearner(length_penalty="none", ridge="none")},
    "orthogonal_greedy": {"learner": OrthogonalLearner(strategy="greedy", length_penalty="none",
                                                       ridge="none")},
    "orthogonal_beam": {"learner": OrthogonalLearner(strategy="beam", length_penalty="none",
                                                     ridge="none")},
    # Complexity-aware searches (session 22): each round's query maximises
    # obj_ogb^2 / (1 + conditions), risk reduction per unit of complexity
    # (orthogonal_complexity was the preset in session 22). The names of
    # this table keep what they measured: ridge="none" where it is not named.
    "orthogonal_complexity": {"learner": OrthogonalLearner(length_penalty="complexity",
                                                           ridge="none")},
    "orthogonal_greedy_complexity": {
        "learner": OrthogonalLearner(strategy="greedy", length_penalty="complexity",
                                     ridge="none")},
    # The same two at the estimators' max_rule_length="auto" (2 conditions),
    # what a user gets by default (the others: no limit, the paper's setting).
    "orthogonal_auto_length": {"learner": OrthogonalLearner(length_penalty="none", ridge="none"),
                               "max_rule_length": "auto"},
    "orthogonal_complexity_auto_length": {
        "learner": OrthogonalLearner(length_penalty="complexity", ridge="none"),
        "max_rule_length": "auto"},
    # The regularised objective (session 23): |g_perp^T q| / sqrt(||q_perp||^2
    # + reg_lambda / kappa), the risk reduction of the ridge-penalised
    # corrective step (rulebook.orthogonal.ridge_term), with the preset's
    # length penalty (the preset since session 23); greedy, and at
    # max_rule_length="auto", likewise.
    "orthogonal_ridge": {"learner": OrthogonalLearner(ridge="reg_lambda")},
    "orthogonal_greedy_ridge": {
        "learner": OrthogonalLearner(strategy="greedy", length_penalty="complexity",
                                     ridge="reg_lambda")},
    "orthogonal_ridge_auto_length": {"learner": OrthogonalLearner(ridge="reg_lambda"),
                                     "max_rule_length": "auto"},
    # Beam search (width 5) with the preset's penalties: between greedy
    # refinement and the branch and bound (session 23; not the preset).
    "orthogonal_beam_ridge": {"learner": OrthogonalLearner(strategy="beam")},
    "orthogonal_beam_ridge_auto_length": {"learner": OrthogonalLearner(strategy="beam"),
                                          "max_rule_length": "auto"},
    # The preset is branch and bound with 300 node expansions per rule;
    # this is the earlier budget, for comparison.
    "orthogonal_bnb": {"learner": OrthogonalLearner(strategy="branch_and_bound", max_nodes=2000,
                                                    length_penalty="none", ridge="none")},
    "corrective_gb": {"learner": "greedy", "objective": "gradient_boosting",
                          "weight_update": "corrective"},
}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", help="registry names (default: all)")
    parser.add_argument("--learners", nargs="+", default=["greedy", "optimal", "orthogonal"],
                        choices=sorted(LEARNERS))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--rules", type=int, default=25,
                        help="boosting rounds per fit; enough to pass complexity 50 unless "
                             "rules are very short")
    parser.add_argument("--max-complexity", type=int, default=50)
    parser.add_argument("--reg-lambda", type=float, default=1.0)
    parser.add_argument("--quick", action="store_true",
                        help=f"datasets {QUICK}, 1 split, 12 rules, complexity up to 25")
    parser.add_argument("--out", type=Path, help="CSV of the per-dataset table")
    parser.add_argument("--out-splits", type=Path,
                        help="CSV of the per-split figures (dataset, learner, split, test and "
                             "train risk over complexities, fit time), appended per dataset: "
                             "for paired differences between learners")
    parser.add_argument("--data-home", type=Path, default=SHARED)
    parser.add_argument("--no-fastogb", action="store_true", help="leave fastogb out")
    parser.add_argument("--fastogb-python", default=None,
                        help="interpreter with fastogb installed (env FASTOGB_PYTHON; default "
                             "~/fastogb-venv/bin/python or /work/venv-fastogb/bin/python)")
    parser.add_argument("--fastogb-timeout", type=float, default=600.0,
                        help="seconds per dataset (all splits) before fastogb is stopped")
    parser.add_argument("--fastogb-beam-width", type=int, default=None,
                        help="beam width of fastogb's ogb search (default: fastogb's, 1)")
    parser.add_argument("--fastogb-length-regularisation", action="store_true",
                        help="fastogb's OrthogonalBoostingObjective(length_regularisation=True): "
                             "reg * (length + 1) added to ||q_perp||^2 in its objective")
    parser.add_argument("--fastogb-cache", type=Path, default=None,
                        help="JSON file of fastogb's per-split results: read for a dataset "
                             "and settings already in it, else fastogb runs and its result "
                             "is added (to compare rulebook variants without rerunning it)")
    args = parser.parse_args()
    if not args.no_fastogb:
        args.fastogb_python = args.fastogb_python or _fastogb.default_python()
    if args.quick:
        args.datasets = args.datasets or QUICK
        args.splits, args.rules, args.max_complexity = 1, 12, 25
    return args


def estimator(task, params, n_rules, reg_lambda):
    # The paper's setting (as fastogb's): no rule-length limit, whatever the
    # estimators' default; a learner entry may still set one.
    kwargs = dict(n_rules=n_rules, reg_lambda=reg_lambda, verbose=0, max_rule_length=None)
    kwargs.update(params)
    if task == "binary":
        return RuleBoostingClassifier(**kwargs)
    return RuleBoostingRegressor(loss="poisson" if task == "poisson" else "squared", **kwargs)


def run_dataset(name, task, args):
    X, y = load_dataset(name, data_home=args.data_home)
    learners = {key: estimator(task, LEARNERS[key], args.rules, args.reg_lambda)
                for key in args.learners}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # early stops are expected
        # Untimed warm-up: numba compilation (or cache loading) is not
        # part of a learner's fit time.
        sample = np.random.default_rng(0).permutation(len(y))[:300]
        for learner in learners.values():
            clone(learner).set_params(n_rules=2).fit(X.iloc[sample], np.asarray(y)[sample])
        frame = compare_learners(X, y, learners, task=task, n_splits=args.splits,
                                 max_rules=args.rules, return_risk=True,
                                 return_train_score=True)
    if args.fastogb_version:
        frame = pd.concat([frame, run_fastogb(name, X, y, task, args)], ignore_index=True)
    test = area_under_complexity_curve(frame, args.max_complexity, "normalised_risk")
    train = area_under_complexity_curve(frame, args.max_complexity, "train_normalised_risk")
    per_split = frame.groupby(["learner", "split"])["fit_time"].first()
    seconds = per_split.groupby("learner").median()
    if args.out_splits:
        splits = pd.DataFrame({
            "test_risk": area_under_complexity_curve(frame, args.max_complexity,
                                                     "normalised_risk", by_split=True),
            "train_risk": area_under_complexity_curve(frame, args.max_complexity,
                                                      "train_normalised_risk", by_split=True),
            "fit_time": per_split}).reset_index()
        splits.insert(0, "dataset", name)
        splits.to_csv(args.out_splits, mode="a", index=False,
                      header=not args.out_splits.exists())
    reached = frame.groupby("learner")["complexity"].max()
    rows = []
    for key in args.learners + ([FASTOGB] if FASTOGB in seconds.index else []):
        rows.append({"dataset": name, "task": task, "learner": key, "train_risk": train[key],
                     "test_risk": test[key], "fit_time": seconds[key],
                     "max_complexity_reached": int(reached[key])})
    return rows


def run_fastogb(name, X, y, task, args):
    """fastogb's orthogonal boosting on compare_learners' splits, as rows of its frame.

    With ``--fastogb-cache`` the child's result (fit times, complexities and
    raw scores per split) is read from the cache when the dataset and the
    settings match, else saved there after the run.
    """
    y_array = np.asarray(y)
    splitter = (StratifiedShuffleSplit if task == "binary" else ShuffleSplit)(
        n_splits=args.splits, test_size=0.2, random_state=0)  # compare_learners' splits
    splits = list(splitter.split(np.zeros((len(y_array), 1)), y_array))
    if task == "binary":  # +-1, the positive class is the classifier's classes_[1]
        y_array = np.where(y_array == np.unique(y_array)[1], 1.0, -1.0)
    loss_name = {"binary": "logistic", "regression": "squared", "poisson": "poisson"}[task]
    config = {"loss": loss_name, "reg": args.reg_lambda, "n_rules": args.rules,
              "max_col_attr": FASTOGB_MAX_COL_ATTR, "beam_width": args.fastogb_beam_width,
              "n_jobs": int(os.environ.get("NUMBA_NUM_THREADS", os.cpu_count()))}
    if args.fastogb_length_regularisation:  # (absent otherwise: the cache keys stay)
        config["objective_params"] = {"length_regularisation": True}
    key = json.dumps({"dataset": name, "splits": args.splits, "n_rows": len(y_array),
                      **{k: v for k, v in config.items() if k != "n_jobs"}}, sort_keys=True)
    cache = json.loads(args.fastogb_cache.read_text()) if (
        args.fastogb_cache and args.fastogb_cache.exists()) else {}
    if key in cache:
        result = cache[key]
        print(f"  fastogb: {len(result['splits'])} split(s) read from {args.fastogb_cache}")
    else:
        result = _fastogb.run_orthogonal(args.fastogb_python, X, pd.Series(y_array), splits,
                                         config, args.fastogb_timeout, 8000.0)
        if args.fastogb_cache:  # re-read: another run may have added datasets meanwhile
            cache = json.loads(args.fastogb_cache.read_text()) if (
                args.fastogb_cache.exists()) else {}
            cache[key] = result
            args.fastogb_cache.write_text(json.dumps(cache))
    if result["status"] != "finished":
        print(f"  fastogb {result['status']} after {len(result['splits'])} of {args.splits} "
              f"splits:\n{result['stderr'][-2000:]}", file=sys.stderr)
    loss, rows = get_loss(loss_name), []
    for record in result["splits"]:
        train, test = splits[record["split"]]
        # The intercept-only model of the training split, as compare_learners normalises.
        offset = loss.baseline(y_array[train].astype(np.float64), None)
        for k, complexity in enumerate(record["complexity"]):
            risks = {}
            for column, part, index in (("normalised_risk", "test", test),
                                        ("train_normalised_risk", "train", train)):
                target = y_array[index].astype(np.float64)
                risk = loss.loss(target, np.asarray(record[f"{part}_scores"][k]), None)
                reference = loss.loss(target, np.full(len(target), offset), None)
                risks[column] = risk / reference if reference > 0 else np.nan
            rows.append({"learner": FASTOGB, "split": record["split"], "n_rules": k,
                         "complexity": complexity, "fit_time": record["fit_time"], **risks})
    return pd.DataFrame(rows)


def print_fastogb_target(table):
    """rulebook's orthogonal faster than fastogb's on every dataset, at equal or lower test risk."""
    if FASTOGB not in set(table["learner"]) or "orthogonal" not in set(table["learner"]):
        return
    wide = table.pivot(index="dataset", columns="learner")
    seconds, risk = wide["fit_time"], wide["test_risk"]
    both = seconds[[FASTOGB, "orthogonal"]].notna().all(axis=1)
    faster = seconds["orthogonal"] < seconds[FASTOGB]
    no_worse = risk["orthogonal"] <= risk[FASTOGB] * (1 + 1e-9)
    ok = both & faster & no_worse
    ratio = (seconds[FASTOGB] / seconds["orthogonal"])[both]
    print(f"fastogb orthogonal / rulebook orthogonal fit time: {ratio.min():.3g}x .. "
          f"{ratio.max():.3g}x; rulebook faster at equal or lower test risk on "
          f"{int(ok.sum())}/{len(ok)} datasets (target: every dataset: "
          f"{'met' if ok.all() else 'NOT MET'})"
          + ("" if ok.all() else "; not on " + ", ".join(ok.index[~ok])))


def print_targets(table, learners):
    optimal = "optimal" if "optimal" in learners else "optimal_2s"
    if not {"orthogonal", optimal, "greedy"} <= set(learners):
        return
    wide = table.pivot(index="dataset", columns="learner")
    ratio = wide["fit_time"]["orthogonal"] / wide["fit_time"][optimal]
    within = int((ratio <= 3).sum())
    print(f"\ntime  orthogonal / {optimal}: median {ratio.median():.3g}, <= 3 on "
          f"{within}/{len(ratio)} datasets ({within / len(ratio):.0%}; target >= 80%)")
    risk = wide["test_risk"]
    best = (risk["orthogonal"] < risk[optimal]) & (risk["orthogonal"] < risk["greedy"])
    print(f"risk  orthogonal's mean test risk below greedy's and optimal's on "
          f"{int(best.sum())}/{len(best)} datasets (target: most; paper 23/34)")
    train = wide["train_risk"]
    best_train = (train["orthogonal"] < train[optimal]) & (train["orthogonal"] < train["greedy"])
    print(f"      ... train risk below both on {int(best_train.sum())}/{len(best_train)}")


def main():
    args = parse_args()
    args.fastogb_version = None if args.no_fastogb else _fastogb.version(args.fastogb_python)
    if args.fastogb_version:
        print(f"fastogb {args.fastogb_version} under {args.fastogb_python}: learner {FASTOGB}, "
              f"max_col_attr={FASTOGB_MAX_COL_ATTR}, beam width "
              f"{args.fastogb_beam_width or 'fastogb default'}"
              + (", length_regularisation=True" if args.fastogb_length_regularisation else ""))
    elif not args.no_fastogb:
        print(f"NOTE: fastogb is not importable by {args.fastogb_python}: {FASTOGB} skipped "
              "(see benchmarks/README.md; --fastogb-python or FASTOGB_PYTHON)")
    registry = list_datasets().set_index("name")
    names = args.datasets or list(registry.index)
    print(f"rulebook bench_orthogonal: {len(names)} datasets, {args.splits} split(s), "
          f"{args.rules} rules, complexity 1..{args.max_complexity}, reg_lambda="
          f"{args.reg_lambda}, NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}")
    rows = []
    for name in names:
        started = time.perf_counter()
        try:
            rows += run_dataset(name, registry.loc[name, "task"], args)
        except Exception as error:  # noqa: BLE001 (report and go on: a benchmark, not a test)
            print(f"{name}: failed: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        part = pd.DataFrame(rows).query("dataset == @name")
        print(f"\n{name} ({time.perf_counter() - started:.1f} s)")
        print(part.drop(columns=["dataset", "task"]).to_string(index=False, float_format="%.4f"))
    if not rows:
        return
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print("\nmean test risk over complexities (normalised; lower is better)")
    print(table.pivot(index="dataset", columns="learner", values="test_risk")
          .to_string(float_format="%.4f"))
    print("\nmedian fit time (s)")
    print(table.pivot(index="dataset", columns="learner", values="fit_time")
          .to_string(float_format="%.3f"))
    print_targets(table, args.learners)
    print_fastogb_target(table)


if __name__ == "__main__":
    main()
