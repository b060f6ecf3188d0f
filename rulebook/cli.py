"""The ``rulebook`` command: the main job from a terminal.

    rulebook fit titanic
    rulebook fit data.csv --target price --rules 10
    rulebook datasets
    rulebook compare titanic --rules 10 --report report.html

``fit`` holds out 20% of the rows, fits the chosen learner, prints the
ensemble, the test score after 0, 1, ..., k rules (ROC AUC, R^2 or mean
Poisson deviance) and the fit time. ``compare`` does the same for every
available learner on one split, prints their test scores side by side and can
write a self-contained HTML report (:mod:`rulebook.report`).
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import mean_poisson_deviance, r2_score, roc_auc_score
from sklearn.model_selection import train_test_split

from .datasets import DATASETS, list_datasets, load_dataset
from .estimators import RuleBoostingClassifier, RuleBoostingRegressor
from .learners import LEARNERS

TASKS = ("binary", "regression", "poisson")


def main(argv=None):
    """Entry point of the console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "datasets":
            with pd.option_context("display.width", 200, "display.max_colwidth", 60):
                print(list_datasets()[["name", "task", "target", "n_rows", "n_columns", "shipped"]]
                      .to_string(index=False))
            return 0
        if args.command == "compare":
            return _compare(args)
        return _fit(args)
    except (ValueError, TypeError, FileNotFoundError) as error:
        print(f"rulebook: error: {error}", file=sys.stderr)
        return 2


def _parser():
    parser = argparse.ArgumentParser(prog="rulebook", description="Gradient rule boosting.")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit a rule ensemble on a dataset or CSV file")
    fit.add_argument("data", help="a bundled dataset's name (see 'rulebook datasets') or a CSV path")
    fit.add_argument("--target", help="target column (required for CSV files)")
    fit.add_argument("--task", choices=TASKS, help="default: the dataset's, or inferred from the target")
    fit.add_argument("--learner", default="greedy", choices=sorted(LEARNERS))
    fit.add_argument("--rules", type=int, default=10, help="number of rules (default 10)")
    fit.add_argument("--reg-lambda", type=float, default=None,
                     help="rule weight regularisation (default: the paper's for bundled data, else 1)")
    fit.add_argument("--max-bins", type=int, default=None,
                     help="equal-frequency bins per numeric column (default 255; 8 for the optimal learner, whose exact search grows fast with the number of bins)")
    fit.add_argument("--seed", type=int, default=0, help="seed of the 80/20 split")
    fit.add_argument("--data-home", help="directory of the benchmark CSVs for non-bundled datasets")
    fit.add_argument("--time-limit", type=float, default=10.0,
                     help="seconds per boosting round for the optimal learner; when reached, the "
                          "best rule found is used and reported as not certified (default 10)")
    compare = commands.add_parser(
        "compare", help="fit every available learner and compare them (optionally an HTML report)")
    compare.add_argument("data", help="a bundled dataset's name (see 'rulebook datasets') or a CSV path")
    compare.add_argument("--target", help="target column (required for CSV files)")
    compare.add_argument("--task", choices=TASKS, help="default: the dataset's, or inferred from the target")
    compare.add_argument("--learners", nargs="+", metavar="LEARNER",
                         help=f"default: every available one ({', '.join(sorted(LEARNERS))})")
    compare.add_argument("--rules", type=int, default=10, help="number of rules (default 10)")
    compare.add_argument("--reg-lambda", type=float, default=None,
                         help="rule weight regularisation (default: the paper's for bundled data, else 1)")
    compare.add_argument("--max-bins", type=int, default=None,
                         help="equal-frequency bins per numeric column (default 255; 8 for the optimal learner, whose exact search grows fast with the number of bins)")
    compare.add_argument("--seed", type=int, default=0, help="seed of the 80/20 split")
    compare.add_argument("--data-home", help="directory of the benchmark CSVs for non-bundled datasets")
    compare.add_argument("--time-limit", type=float, default=10.0,
                     help="seconds per boosting round for the optimal learner; when reached, the "
                          "best rule found is used and reported as not certified (default 10)")
    compare.add_argument("--report", metavar="HTML", help="write a self-contained HTML report here")
    commands.add_parser("datasets", help="list the known datasets")
    return parser


def _fit(args):
    X, y, task, name, reg_lambda = _load(args)
    reg_lambda = args.reg_lambda if args.reg_lambda is not None else reg_lambda
    stratify = y if task == "binary" else None
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, random_state=args.seed, stratify=stratify)
    params = dict(n_rules=args.rules, learner=_learner(args.learner, args), reg_lambda=reg_lambda,
                  max_bins=_max_bins(args.learner, args))
    if task == "binary":
        model = RuleBoostingClassifier(**params)
    else:
        model = RuleBoostingRegressor(loss="poisson" if task == "poisson" else "squared", **params)
    print(f"{name}: {task}, target {y.name!r}, {len(X)} rows, {X.shape[1]} features; "
          f"train {len(X_train)} / test {len(X_test)} (seed {args.seed})")
    print(f"learner {args.learner}, {args.rules} rules, reg_lambda {reg_lambda:g}\n")
    started = time.perf_counter()
    model.fit(X_train, y_train)
    seconds = time.perf_counter() - started
    print(model.ensemble_, end="\n\n")
    _print_certificate(model)
    print(_score_table(model, X_test, y_test, task).to_string(index=False), end="\n\n")
    print(f"fit time: {seconds:.3f} s (the first fit in a fresh environment includes "
          "numba compilation, cached afterwards)")
    return 0


def _compare(args):
    """``rulebook compare``: every learner on one split; ensembles, score table, report."""
    from .report import write_report

    learners = args.learners or list(LEARNERS)
    unknown = [name for name in learners if name not in LEARNERS]
    if unknown:
        raise ValueError(f"learner(s) {unknown} not available; valid learners are {sorted(LEARNERS)}.")
    X, y, task, name, reg_lambda = _load(args)
    reg_lambda = args.reg_lambda if args.reg_lambda is not None else reg_lambda
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.2, random_state=args.seed, stratify=y if task == "binary" else None)
    split = (f"{name}: {task}, target {y.name!r}, {len(X)} rows, {X.shape[1]} features; "
             f"train {len(X_train)} / test {len(X_test)} (seed {args.seed})")
    print(split)
    print(f"learners {', '.join(learners)}, {args.rules} rules, reg_lambda {reg_lambda:g}\n")
    models, seconds, tables = {}, {}, []
    for learner in learners:
        params = dict(n_rules=args.rules, learner=_learner(learner, args), reg_lambda=reg_lambda,
                      max_bins=_max_bins(learner, args))
        model = (RuleBoostingClassifier(**params) if task == "binary" else
                 RuleBoostingRegressor(loss="poisson" if task == "poisson" else "squared", **params))
        started = time.perf_counter()
        models[learner] = model.fit(X_train, y_train)
        seconds[learner] = time.perf_counter() - started
        print(f"== {learner} ({seconds[learner]:.3f} s)\n{model.ensemble_}\n")
        _print_certificate(model)
        table = _score_table(model, X_test, y_test, task).set_index("rules")
        metric = table.columns[-1]
        tables.append(table.set_axis([f"complexity {learner}", learner], axis=1))
    scores = pd.concat(tables, axis=1).reset_index()
    print(f"{metric} by number of rules:")
    print(scores.to_string(index=False), end="\n\n")
    print("fit time: " + ", ".join(f"{k} {v:.3f} s" for k, v in seconds.items()))
    if args.report:
        notes = [split, "fit time: " + ", ".join(f"{k} {v:.3f} s" for k, v in seconds.items())]
        path = write_report(args.report, models, X_test, y_test, title=f"rulebook compare {name}",
                            scores=scores, notes=notes)
        print(f"report written to {path}")
    return 0


def _max_bins(name, args):
    """``--max-bins``, else 255, or 8 for the optimal learner: its exact
    search grows fast with the bins (titanic, 10 rules: 1.3 s with 8 bins,
    all rounds certified; over 90 s with 255, most rounds stopped by the
    time limit)."""
    if args.max_bins is not None:
        return args.max_bins
    return 8 if name == "optimal" else 255


def _learner(name, args):
    """The learner object: the optimal learner gets the per-round time limit."""
    if name == "optimal":
        from .optimal import OptimalLearner

        return OptimalLearner(time_limit=args.time_limit)
    return name


def _print_certificate(model):
    """For searches with a certificate: in how many rounds optimality was proven."""
    history = model.history_
    if "certified" in history.columns:
        rounds = history.iloc[1:]
        certified = int(rounds["certified"].astype(bool).sum())
        worst = float(rounds["certified_ratio"].min()) if len(rounds) else 1.0
        print(f"optimality certified in {certified} of {len(rounds)} rounds "
              f"(smallest certified ratio {worst:.3f})\n")


def _load(args):
    """(X, y, task, display name, default reg_lambda) of a dataset or CSV."""
    if args.data in DATASETS and not Path(args.data).is_file():
        info = DATASETS[args.data]
        if args.target and args.target != info.target:
            raise ValueError(f"dataset {args.data!r} has target {info.target!r}; drop --target.")
        X, y = load_dataset(args.data, data_home=args.data_home)
        return X, y, args.task or info.task, args.data, info.paper_reg_lambda or 1.0
    path = Path(args.data)
    if not path.is_file():
        raise FileNotFoundError(
            f"{args.data!r} is neither a bundled dataset ({', '.join(sorted(DATASETS))}) nor a file.")
    frame = pd.read_csv(path)
    if not args.target:
        raise ValueError(f"--target is required for a CSV file; columns are {list(frame.columns)}.")
    if args.target not in frame.columns:
        raise ValueError(f"--target {args.target!r} is not a column of {path.name}; "
                         f"columns are {list(frame.columns)}.")
    frame = frame.dropna(subset=[args.target])
    y = frame[args.target]
    task = args.task or ("binary" if y.nunique() == 2 else "regression")
    return frame.drop(columns=[args.target]), y, task, path.name, 1.0


def _score_table(model, X_test, y_test, task):
    """Test score of the first k rules, for k = 0 .. number of rules."""
    rows = []
    for k in range(len(model.ensemble_) + 1):
        ensemble = model.ensemble_[:k]
        raw = ensemble.decision_function(X_test)
        if task == "binary":
            positive = np.asarray(y_test == model.classes_[1])
            score = roc_auc_score(positive, raw) if 0 < positive.sum() < len(positive) else np.nan
            label = "test ROC AUC"
        elif task == "poisson":
            score, label = mean_poisson_deviance(y_test, ensemble.predict(X_test)), "test Poisson deviance"
        else:
            score, label = r2_score(y_test, raw), "test R^2"
        rows.append({"rules": k, "complexity": ensemble.complexity, label: round(float(score), 4)})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    sys.exit(main())
