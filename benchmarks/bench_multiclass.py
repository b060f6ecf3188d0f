"""Multi-class fits of the greedy, optimal and orthogonal learners, with scikit-learn's
histogram gradient boosting beside them for context (issue 20).

On iris, wine and digits (scikit-learn's copies): 5 random 2:1 splits
(seeded, stratified), ``RuleBoostingClassifier`` with 10 and 50 rules and
every other parameter at its default (the greedy learner, complete heads),
the same with ``head="single"``, and the optimal learner with 10 rules
(complete and single heads; its default budget of 2 s a round, so a round
that the budget stops is anytime), the orthogonal learner with 10 rules
(complete and single heads; corrective weights, its default node budget),
and ``HistGradientBoostingClassifier``
at its defaults (100 trees of up to 31 leaves per class: a far larger
model, shown as a ceiling, not a rival). Printed per dataset and model: the
mean fit time, test accuracy and test log loss over the splits. One untimed
warm-up fit first, so numba's compile time is not counted.

Run from the repository root::

    python benchmarks/bench_multiclass.py
    python benchmarks/bench_multiclass.py --splits 2
    python benchmarks/bench_multiclass.py --models "rulebook optimal, 10 rules"
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split

from rulebook import RuleBoostingClassifier

DATASETS = {"iris": load_iris, "wine": load_wine, "digits": load_digits}


def models():
    return {
        "rulebook greedy, 10 rules": lambda: RuleBoostingClassifier(n_rules=10, verbose=0),
        "rulebook greedy, 50 rules": lambda: RuleBoostingClassifier(n_rules=50, verbose=0),
        "rulebook greedy single head, 10 rules": lambda: RuleBoostingClassifier(
            n_rules=10, head="single", verbose=0),
        "rulebook optimal, 10 rules": lambda: RuleBoostingClassifier(
            n_rules=10, learner="optimal", verbose=0),
        "rulebook optimal single head, 10 rules": lambda: RuleBoostingClassifier(
            n_rules=10, learner="optimal", head="single", verbose=0),
        "rulebook orthogonal, 10 rules": lambda: RuleBoostingClassifier(
            n_rules=10, learner="orthogonal", verbose=0),
        "rulebook orthogonal single head, 10 rules": lambda: RuleBoostingClassifier(
            n_rules=10, learner="orthogonal", head="single", verbose=0),
        "HistGradientBoosting": lambda: HistGradientBoostingClassifier(random_state=0),
    }


def run(splits, chosen=None):
    rows = []
    for name, loader in DATASETS.items():
        X, y = loader(return_X_y=True, as_frame=True)
        for label, make in models().items():
            if chosen and label not in chosen:
                continue
            make().fit(X, y)  # warm-up: compiling is not timed
            for seed in range(splits):
                X_train, X_test, y_train, y_test = train_test_split(
                    X, y, test_size=1 / 3, random_state=seed, stratify=y)
                start = time.perf_counter()
                model = make().fit(X_train, y_train)
                seconds = time.perf_counter() - start
                proba = model.predict_proba(X_test)
                certified = (f"{int(model.history_['certified'].iloc[1:].sum())}"
                             f"/{len(model.history_) - 1}"
                             if "certified" in getattr(model, "history_", {}) else "-")
                rows.append({"dataset": name, "model": label, "fit_s": seconds,
                             "certified": certified,
                             "accuracy": accuracy_score(y_test, model.predict(X_test)),
                             "log_loss": log_loss(y_test, proba, labels=model.classes_)})
    frame = pd.DataFrame(rows)
    table = frame.drop(columns="certified").groupby(["dataset", "model"], sort=False).mean()
    # Rounds certified optimal, summed over the splits ("-": not recorded).
    table["certified"] = frame.groupby(["dataset", "model"], sort=False)["certified"].agg(
        lambda c: "-" if (c == "-").all() else
        f"{sum(int(v.split('/')[0]) for v in c)}/{sum(int(v.split('/')[1]) for v in c)}")
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--models", nargs="+", choices=list(models()),
                        help="the models to run (default: all)")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # boosting stopped early
        table = run(args.splits, args.models)
    with pd.option_context("display.width", 160, "display.max_columns", None,
                           "display.precision", 3):
        print(table)
    return table


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
