"""Does boosting gain from linear terms? ``include_linear=True`` against the default.

Issue 21, item 1 ("decide with a measurement whether it helps on the
shared datasets and document the result either way"). For every dataset of
``shared/datasets`` (the registry) plus friedman1-3 and noisy parity (as
``bench_defaults.py`` loads them, with the papers' ``reg_lambda`` where they
give one), 5 random 80/20 splits (seeded, stratified for binary tasks), per
learner: the estimator with ``n_rules=10`` and every other parameter at its
default, once without and once with ``include_linear=True``.

Printed per dataset and learner: the test score (ROC AUC, R^2, or mean
Poisson deviance: lower is better) after 10 rules and its mean over 1..10
rules, for both; the wins of the linear terms (splits where they score at
least as well at 10 rules); the number of terms; and the fit times. The end
prints, per learner, on how many datasets the terms' mean test score at 10
rules is at least the default's, and their median change.

Everything runs serially in this process after one untimed warm-up fit per
learner and setting (numba's compile time is not counted).

Run from the repository root::

    python benchmarks/bench_linear_terms.py --quick                # 2 datasets, 2 splits
    python benchmarks/bench_linear_terms.py                        # greedy and orthogonal
    python benchmarks/bench_linear_terms.py --learners optimal --datasets titanic boston
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cv  # noqa: E402 (at_least: the same comparison of scores)
import bench_defaults as defaults  # noqa: E402 (the same datasets, splits and scores)

QUICK = ["titanic", "boston"]


def fit_scores(case, learner, n_rules, include_linear, train, test):
    """(score after n_rules, mean score over 1..n_rules, terms, fit seconds) of one split."""
    model = defaults.make_estimator(case, learner, n_rules).set_params(
        include_linear=include_linear)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(case.X.iloc[train], case.y[train])
    seconds = time.perf_counter() - start
    X_test, y_test = case.X.iloc[test], case.y[test]
    staged = [defaults.score(case.task, e, X_test, y_test) for e in defaults.staged(model)]
    return staged[-1], float(np.mean(staged)), len(model.ensemble_.terms), seconds


def run_dataset(name, learner, args):
    case = defaults.load_case(name, args.data_home, args.seed)
    rows = []
    for split, (train, test) in enumerate(defaults.make_splits(case, args.splits, args.seed)):
        row = {"dataset": name, "task": case.task, "learner": learner, "split": split}
        for label, include in (("default", False), ("linear", True)):
            final, mean, terms, seconds = fit_scores(case, learner, args.rules, include,
                                                     train, test)
            row.update({label: final, f"{label} 1..k": mean, f"{label} s": seconds})
        row["terms"] = terms
        rows.append(row)
    return pd.DataFrame(rows)


def summarise(raw):
    out = []
    for (name, learner), group in raw.groupby(["dataset", "learner"], sort=False):
        task = group["task"].iloc[0]
        default, linear = group["default"].mean(), group["linear"].mean()
        wins = sum(bench_cv.at_least(task, a, b) for a, b in zip(group["linear"], group["default"]))
        out.append({
            "dataset": name, "learner": learner, "metric": defaults.METRICS[task],
            "default": default, "linear": linear,
            "default 1..k": group["default 1..k"].mean(), "linear 1..k": group["linear 1..k"].mean(),
            "linear wins": f"{wins}/{len(group)}",
            "linear >= default": bench_cv.at_least(task, linear, default),
            "change": (default - linear) if task == "poisson" else (linear - default),
            "terms": group["terms"].median(),
            "default s": group["default s"].mean(), "linear s": group["linear s"].mean(),
        })
    return pd.DataFrame(out).set_index(["dataset", "learner"])


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=None)
    parser.add_argument("--learners", nargs="+", default=["greedy", "orthogonal"],
                        choices=defaults.LEARNERS)
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
    print(f"bench_linear_terms: learners={args.learners}, {args.splits} splits, "
          f"{args.rules} rules, datasets: {len(names)}")
    warm = defaults.load_case("titanic", args.data_home, args.seed)
    for learner in args.learners:  # compile, untimed
        for include in (False, True):
            fit_scores(warm, learner, 2, include, np.arange(len(warm.y)), np.arange(50))
    frames = []
    for name in names:
        for learner in args.learners:
            frame = run_dataset(name, learner, args)
            frames.append(frame)
            print(summarise(frame).to_string(header=len(frames) == 1, float_format="%.4g"),
                  flush=True)
    raw = pd.concat(frames, ignore_index=True)
    if args.csv:
        raw.to_csv(args.csv, index=False)
    table = summarise(raw)
    print()
    print(table.to_string(float_format="%.4g"))
    print()
    for learner, group in table.groupby(level="learner", sort=False):
        wins = int(group["linear >= default"].sum())
        print(f"{learner}: linear terms' mean test score after {args.rules} rules >= the "
              f"default's on {wins}/{len(group)} datasets; median change "
              f"{group['change'].median():+.4g} (positive: better); fit time "
              f"{group['linear s'].sum() / group['default s'].sum():.2f}x")


if __name__ == "__main__":
    main()
