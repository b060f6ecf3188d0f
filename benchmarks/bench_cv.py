"""Cross-validated ``reg_lambda`` and number of rules against the fixed default.

Issue 21, item 3. For every dataset of ``shared/datasets`` (the registry)
plus friedman1-3 and noisy parity (as ``bench_defaults.py`` loads them), 5
random 80/20 splits (seeded, stratified for binary tasks), one learner at a
time (default greedy):

* **default**: ``RuleBoostingClassifier`` / ``RuleBoostingRegressor``
  (``loss="poisson"`` for counts) with ``n_rules=10`` and every other
  parameter at its default (``reg_lambda=1``);
* **cv**: ``RuleBoostingClassifierCV`` / ``RuleBoostingRegressorCV`` with
  ``n_rules=10`` (so 1..10 rules are considered) and its defaults
  (``reg_lambdas=(0.1, 1, 10, 100)``, 5-fold inner cross-validation,
  ``selection="best"``), scored by the test metric below
  (``scoring="roc_auc"``, ``"r2"``, ``"neg_mean_poisson_deviance"``).

Both are fitted on the training rows and scored on the test rows: ROC AUC
(binary), R^2 (regression), mean Poisson deviance (counts; lower is
better). Printed per dataset: the mean test score of each, the wins of cv
over default (splits where cv is at least as good), the chosen
``reg_lambda`` and number of rules (medians), and the fit times (mean
seconds; cv's includes its 20 inner fits and the refit). The end prints on
how many datasets cv's mean score is at least the default's (the target:
most of them).

Everything runs serially in this process after one untimed warm-up fit per
learner (numba's compile time is not counted).

Run from the repository root::

    python benchmarks/bench_cv.py --quick                 # 2 datasets, 2 splits
    python benchmarks/bench_cv.py                         # everything (~20 min, greedy)
    python benchmarks/bench_cv.py --datasets titanic boston --learner optimal
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_defaults as defaults  # noqa: E402 (the same datasets and splits)

SCORINGS = {"binary": "roc_auc", "regression": "r2", "poisson": "neg_mean_poisson_deviance"}
QUICK = ["titanic", "boston"]


def make_pair(case, learner, n_rules):
    """(default estimator, CV estimator) for the task."""
    from rulebook import (RuleBoostingClassifier, RuleBoostingClassifierCV,
                          RuleBoostingRegressor, RuleBoostingRegressorCV)

    common = {"learner": learner, "verbose": 0}
    scoring = SCORINGS[case.task]
    if case.task == "binary":
        return (RuleBoostingClassifier(n_rules, **common),
                RuleBoostingClassifierCV(n_rules, scoring=scoring, **common))
    loss = {"loss": "poisson"} if case.task == "poisson" else {}
    return (RuleBoostingRegressor(n_rules, **loss, **common),
            RuleBoostingRegressorCV(n_rules, scoring=scoring, **loss, **common))


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X, y)
    return time.perf_counter() - start


def run_dataset(name, args):
    case = defaults.load_case(name, args.data_home, args.seed)
    rows = []
    for split, (train, test) in enumerate(defaults.make_splits(case, args.splits, args.seed)):
        X_train, y_train = case.X.iloc[train], case.y[train]
        X_test, y_test = case.X.iloc[test], case.y[test]
        default, cv = make_pair(case, args.learner, args.rules)
        row = {"dataset": name, "task": case.task, "split": split,
               "default_s": timed_fit(default, X_train, y_train),
               "cv_s": timed_fit(cv, X_train, y_train)}
        row["default"] = defaults.score(case.task, default.ensemble_, X_test, y_test)
        row["cv"] = defaults.score(case.task, cv.ensemble_, X_test, y_test)
        row["reg_lambda"], row["n_rules"] = cv.reg_lambda_, cv.n_rules_
        rows.append(row)
    return pd.DataFrame(rows)


def at_least(task, a, b):
    """Whether score ``a`` is at least as good as ``b`` (deviance: lower is better)."""
    tolerance = 1e-9 * max(1.0, abs(b))
    return a <= b + tolerance if task == "poisson" else a >= b - tolerance


def summarise(raw):
    out = []
    for name, group in raw.groupby("dataset", sort=False):
        task = group["task"].iloc[0]
        default, cv = group["default"].mean(), group["cv"].mean()
        out.append({
            "dataset": name, "metric": defaults.METRICS[task],
            "default": default, "cv": cv,
            "cv wins": f"{sum(at_least(task, c, d) for c, d in zip(group['cv'], group['default']))}"
                       f"/{len(group)}",
            "cv >= default": at_least(task, cv, default),
            "lambda": group["reg_lambda"].median(), "rules": group["n_rules"].median(),
            "default s": group["default_s"].mean(), "cv s": group["cv_s"].mean(),
        })
    return pd.DataFrame(out).set_index("dataset")


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--learner", default="greedy", choices=defaults.LEARNERS)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--rules", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-home", type=Path, default=defaults.SHARED)
    parser.add_argument("--csv", type=Path, default=None, help="write the per-split rows here")
    parser.add_argument("--quick", action="store_true")
    return parser.parse_args()


def main():
    args = parse_args()
    if args.quick:
        args.datasets, args.splits = args.datasets or QUICK, 2
    names = args.datasets or defaults.all_names()
    print(f"bench_cv: learner={args.learner}, {args.splits} splits, {args.rules} rules, "
          f"datasets: {len(names)}")
    warm = defaults.load_case("titanic", args.data_home, args.seed)
    timed_fit(make_pair(warm, args.learner, 2)[0], warm.X, warm.y)  # compile, untimed
    frames = []
    for name in names:
        frame = run_dataset(name, args)
        frames.append(frame)
        print(summarise(frame).to_string(header=len(frames) == 1, float_format="%.4g"), flush=True)
    raw = pd.concat(frames, ignore_index=True)
    if args.csv:
        raw.to_csv(args.csv, index=False)
    table = summarise(raw)
    print()
    print(table.to_string(float_format="%.4g"))
    wins = int(table["cv >= default"].sum())
    print(f"\ncv's mean test score >= the default's on {wins}/{len(table)} datasets "
          f"(target: most); cv costs {table['cv s'].sum() / table['default s'].sum():.1f}x "
          "the default's fit time in total")


if __name__ == "__main__":
    main()
