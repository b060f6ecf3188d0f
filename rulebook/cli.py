"""The ``rulebook`` command: the main job from a terminal.

    rulebook fit titanic
    rulebook fit data.csv --target price --rules 10
    rulebook datasets
    rulebook compare titanic --rules 10 --report report.html

``fit`` holds out 20% of the rows, fits the chosen learner, prints the
ensemble, the test score of the model after each boosting round 0, 1, ..., k
(ROC AUC, R^2 or mean Poisson deviance) and the fit time. ``compare`` does
the same for every available learner on one split, prints their test scores
side by side and can write a self-contained HTML report
(:mod:`rulebook.report`).

The estimators get only the options the user gave as flags, so a flag left
out means the library's default (shown in ``--help``). The one exception is
``--reg-lambda`` for a bundled dataset, which defaults to the value the
papers used for it.
"""

import argparse
import dataclasses
import inspect
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from numba.core import event as numba_event
from scipy.stats import rankdata
from sklearn.metrics import mean_poisson_deviance, r2_score
from sklearn.model_selection import train_test_split

from ._canonical import escape_unsafe
from ._config import CACHE
from .datasets import DATASETS, list_datasets, load_dataset
from .estimators import RuleBoostingClassifier, RuleBoostingRegressor
from .learners import LEARNERS
from .losses import get_loss
from .optimal import OptimalLearner

TASKS = ("binary", "multiclass", "regression", "poisson")
# Tasks fitted by the classifier, whose splits are stratified.
_CLASSIFICATION = ("binary", "multiclass")
# Distinct target values shown in an error message before "…".
_SHOWN_VALUES = 5
# Most rules a command fits (--rules). Each command scores the model after
# every round and prints every rule: with 100,000 rules the fit alone would
# run for hours and its history (every round's weights) outgrow the memory,
# and an ensemble of over a thousand rules is no longer read. Boosting stops
# earlier by itself when no rule lowers the training loss.
MAX_RULES = 1000
# Exit status after Ctrl-C: 128 + SIGINT, as shells report it.
_INTERRUPTED = 130

_LEARNER_HELP = (
    "how each rule's conditions are chosen: greedy (adds the best condition one at a time; "
    "fast), optimal (exact branch-and-bound search for the best rule; slower, see "
    "--time-limit), orthogonal (corrective orthogonal boosting: every round re-fits all rule "
    "weights)")


def main(argv=None):
    """Entry point of the console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0 on success, 2 on an error, which is printed to
        standard error without a traceback, 130 after Ctrl-C. Invalid flag
        values exit with code 2 from :mod:`argparse` (``SystemExit``).
        Warnings print to standard error as ``rulebook: warning: ...``.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _print_warning
        try:
            return _run(args)
        except (ValueError, TypeError, FileNotFoundError) as error:
            print(f"rulebook: error: {_printable(str(error))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("\nrulebook: interrupted", file=sys.stderr)
            return _INTERRUPTED


def _run(args):
    if args.command == "datasets":
        with pd.option_context("display.width", 200, "display.max_colwidth", 60):
            print(list_datasets()[["name", "task", "target", "n_rows", "n_columns", "shipped"]]
                  .to_string(index=False))
        return 0
    _check_rules(args.rules)
    if args.command == "compare":
        return _compare(args)
    return _fit(args)


def _print_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings as one line each, like errors: no source path, no code line."""
    print(f"rulebook: warning: {_printable(str(message))}", file=sys.stderr)


def _check_rules(n_rules):
    """``--rules``: 1 to :data:`MAX_RULES`."""
    if not 1 <= n_rules <= MAX_RULES:
        raise ValueError(
            f"--rules must be from 1 to {MAX_RULES}; got {n_rules}. (From Python, "
            "RuleBoostingClassifier/RuleBoostingRegressor(n_rules=...) fit larger ensembles.)")


# -- the command line -----------------------------------------------------------
def _library_default(name):
    """The estimators' default for parameter ``name`` (the CLI never overrides it)."""
    return inspect.signature(RuleBoostingRegressor).parameters[name].default


def _optimal_default(name):
    return {field.name: field.default for field in dataclasses.fields(OptimalLearner)}[name]


def _printable(text):
    """``text`` safe for a terminal: escape sequences, controls and bidi characters escaped.

    Line breaks are kept; text from the data (a CSV's column names and
    values) reaches the terminal only through this or through rule text,
    which escapes them itself (:func:`rulebook._canonical.escape_unsafe`).
    """
    return "\n".join(escape_unsafe(line) for line in text.split("\n"))


def _shown(value):
    return "none" if value is None else str(value)


def _positive_int_or_none(text):
    """``--max-rule-length``: an int >= 1, or "none" for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1 or 'none'; got {text!r}")
    return value


def _condition_cost(text):
    """``--condition-cost``: a factor >= 0 of the noise level, or "auto"."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        factor = float(text)
    except ValueError:
        factor = float("nan")
    if not (np.isfinite(factor) and factor >= 0):
        raise argparse.ArgumentTypeError(f"expected a number >= 0 or 'auto'; got {text!r}")
    return factor


def _time_limit(text):
    """``--time-limit``: seconds > 0, "auto" (the learner's default budget) or "none"."""
    word = text.strip().lower()
    if word == "none":
        return None
    if word == "auto":
        return "auto"
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not (np.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(
            f"expected seconds (a number > 0), 'auto' or 'none'; got {text!r}")
    return seconds


def _add_data_arguments(command):
    command.add_argument(
        "data", help="a bundled dataset's name (see 'rulebook datasets'), the name of another "
                     "known dataset together with --data-home, or the path of a CSV file")
    command.add_argument("--target", help="target column (required for CSV files)")
    command.add_argument(
        "--task", choices=TASKS,
        help="binary (two classes), multiclass (three or more), regression or poisson "
             "(counts); default: the dataset's, or for a CSV file binary if the target has "
             "two values, multiclass if it has more and is not numeric, else regression")
    command.add_argument(
        "--data-home", metavar="DIR",
        help="directory holding the CSV files of a known dataset that is not bundled "
             "(e.g. iris); 'rulebook datasets' lists them, with shipped=False")
    command.add_argument("--seed", type=int, default=0,
                         help="seed of the random 80/20 train/test split (default 0)")


def _add_model_arguments(command):
    """Estimator flags. Those with ``default=SUPPRESS`` are absent from the
    parsed arguments unless given, so the estimator keeps its own default."""
    command.add_argument("--rules", type=int, default=_library_default("n_rules"), metavar="N",
                         help=f"number of boosting rounds, i.e. rules, 1 to {MAX_RULES}; boosting "
                              "stops earlier when no rule lowers the training loss (default "
                              f"{_library_default('n_rules')})")
    command.add_argument(
        "--reg-lambda", type=float, default=argparse.SUPPRESS, metavar="LAMBDA",
        help="L2 regularisation of the rule weights (default: the value the papers used for "
             f"a bundled dataset, else the library's, {_library_default('reg_lambda')})")
    command.add_argument(
        "--max-bins", type=int, default=argparse.SUPPRESS, metavar="N",
        help="equal-frequency bins per numeric column; fewer bins make the optimal "
             f"learner's search much faster (default {_shown(_library_default('max_bins'))})")
    command.add_argument(
        "--max-rule-length", type=_positive_int_or_none, default=argparse.SUPPRESS,
        metavar="N|none",
        help="most conditions per rule, or 'none' for no limit "
             f"(default {_shown(_library_default('max_rule_length'))})")
    command.add_argument(
        "--time-limit", type=_time_limit, default=argparse.SUPPRESS,
        metavar="SECONDS|auto|none",
        help="time budget per boosting round of the optimal learner; when it runs out the "
             "best rule found so far is used and reported as not certified. 'auto' is the "
             "learner's default budget, 'none' no limit "
             f"(default {_shown(_optimal_default('time_limit'))})")
    command.add_argument(
        "--condition-cost", type=_condition_cost, default=argparse.SUPPRESS,
        metavar="FACTOR|auto",
        help="what a threshold costs the optimal learner's rule, in multiples of the noise "
             "level (an interval a < x <= b has two): a second condition or a second end "
             "must add that much objective; 0 searches the paper's plain objective, 'auto' "
             "is the learner's default "
             f"(default {_shown(_optimal_default('condition_cost'))})")


def _parser():
    parser = argparse.ArgumentParser(prog="rulebook", description="Gradient rule boosting.")
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("fit", help="fit a rule ensemble on a dataset or CSV file",
                              description="Fit a rule ensemble on 80% of the rows and print "
                                          "it with its test score after each rule.")
    _add_data_arguments(fit)
    fit.add_argument("--learner", default="greedy", choices=sorted(LEARNERS),
                     help=_LEARNER_HELP + " (default greedy)")
    _add_model_arguments(fit)
    compare = commands.add_parser(
        "compare", help="fit every available learner and compare them (optionally an HTML report)",
        description="Fit several learners on one 80/20 split and compare their test scores.")
    _add_data_arguments(compare)
    compare.add_argument("--learners", nargs="+", metavar="LEARNER",
                         help=f"the learners to compare (default: every available one, "
                              f"{', '.join(sorted(LEARNERS))})")
    _add_model_arguments(compare)
    compare.add_argument("--report", metavar="HTML", help="write a self-contained HTML report here")
    commands.add_parser("datasets", help="list the known datasets (shipped=True: bundled)",
                        description="List the known datasets; those with shipped=False load "
                                    "with --data-home.")
    return parser


# -- the commands ---------------------------------------------------------------
# Flags that configure the optimal learner (OptimalLearner's options).
_OPTIMAL_FLAGS = {"time_limit": "--time-limit", "condition_cost": "--condition-cost"}


def _optimal_flags(args):
    """The optimal learner's options given on the command line."""
    return {name: value for name, value in vars(args).items() if name in _OPTIMAL_FLAGS}


def _fit(args):
    for name in _optimal_flags(args):
        if args.learner != "optimal":
            raise ValueError(f"{_OPTIMAL_FLAGS[name]} applies only to --learner optimal; "
                             f"got --learner {args.learner}.")
    X, y, task, name, reg_lambda = _load(args)
    _check_target(y, task, args)
    X_train, X_test, y_train, y_test = _split(X, y, task, args.seed)
    model = _estimator(task, _estimator_params(args, args.learner, reg_lambda))
    print(f"{name}: {task}, target {y.name!r}, {len(X)} rows, {X.shape[1]} features; "
          f"train {len(X_train)} / test {len(X_test)} (seed {args.seed})")
    print(f"learner {args.learner}, {_settings(model)}\n")
    seconds, compiling = _timed_fit(model, X_train, y_train)
    print(model.ensemble_, end="\n\n")
    _print_certificate(model)
    print(_score_table(model, X_test, y_test, task).to_string(index=False), end="\n\n")
    print(_fit_time(seconds, compiling))
    return 0


def _compare(args):
    """``rulebook compare``: every learner on one split; ensembles, score table, report."""
    from .report import write_report

    learners = args.learners or list(LEARNERS)
    unknown = [name for name in learners if name not in LEARNERS]
    if unknown:
        raise ValueError(f"--learners: {', '.join(unknown)} not available; valid learners are "
                         f"{', '.join(sorted(LEARNERS))}.")
    for name in _optimal_flags(args):
        if "optimal" not in learners:
            raise ValueError(f"{_OPTIMAL_FLAGS[name]} applies only to the optimal learner, which "
                             "--learners leaves out.")
    X, y, task, name, reg_lambda = _load(args)
    _check_target(y, task, args)
    X_train, X_test, y_train, y_test = _split(X, y, task, args.seed)
    split = (f"{name}: {task}, target {y.name!r}, {len(X)} rows, {X.shape[1]} features; "
             f"train {len(X_train)} / test {len(X_test)} (seed {args.seed})")
    print(split)
    models, seconds, compiling, tables = {}, {}, 0.0, []
    for learner in learners:
        model = _estimator(task, _estimator_params(args, learner, reg_lambda))
        if not models:
            print(f"learners {', '.join(learners)}, {_settings(model)}\n")
        seconds[learner], compiled = _timed_fit(model, X_train, y_train)
        compiling += compiled
        models[learner] = model
        print(f"== {learner} ({seconds[learner]:.3f} s)\n{model.ensemble_}\n")
        _print_certificate(model)
        table = _score_table(model, X_test, y_test, task).set_index("rules")
        metric = table.columns[-1]
        tables.append(table.set_axis([f"complexity {learner}", learner], axis=1))
    scores = pd.concat(tables, axis=1).reset_index()
    print(f"{metric} by number of rules:")
    print(scores.to_string(index=False), end="\n\n")
    times = "fit time: " + ", ".join(f"{k} {v:.3f} s" for k, v in seconds.items())
    print(times + (f" ({_compile_remark(compiling)})" if compiling > 0 else ""))
    if args.report:
        path = write_report(args.report, models, X_test, y_test, title=f"rulebook compare {name}",
                            scores=scores, notes=[split, times])
        print(f"report written to {path}")
    return 0


# -- helpers --------------------------------------------------------------------
def _estimator_params(args, learner, reg_lambda):
    """Estimator parameters: the number of rules, the learner, and only the
    options the user gave (``reg_lambda`` also from the dataset)."""
    given = vars(args)
    params = {"n_rules": args.rules, "learner": learner}
    reg_lambda = given.get("reg_lambda", reg_lambda)
    if reg_lambda is not None:
        params["reg_lambda"] = reg_lambda
    for name in ("max_bins", "max_rule_length"):
        if name in given:
            params[name] = given[name]
    if learner == "optimal" and _optimal_flags(args):
        params["learner"] = OptimalLearner(**_optimal_flags(args))
    return params


def _split(X, y, task, seed):
    """The 80/20 train/test split, stratified for a classification task."""
    return train_test_split(X, y, test_size=0.2, random_state=seed,
                            stratify=y if task in _CLASSIFICATION else None)


def _estimator(task, params):
    if task in _CLASSIFICATION:
        return RuleBoostingClassifier(**params)
    return RuleBoostingRegressor(loss="poisson" if task == "poisson" else "squared", **params)


def _settings(model):
    """The options a fit uses, defaults included: "10 rules, reg_lambda 1, ..."."""
    text = (f"{model.n_rules} rules, reg_lambda {model.reg_lambda:g}, "
            f"max_bins {_shown(model.max_bins)}, max_rule_length {_shown(model.max_rule_length)}")
    learner = model.learner
    if isinstance(learner, OptimalLearner) or learner == "optimal":
        options = learner if isinstance(learner, OptimalLearner) else OptimalLearner()
        limit = options.time_limit
        text += f", time limit per round {_shown(limit)}" + (" s" if isinstance(limit, (int, float)) else "")
        text += f", condition cost {_shown(options.condition_cost)}"
    return text


def _timed_fit(model, X, y):
    """Fit; return (wall seconds, seconds spent compiling numba kernels).

    Compile time is measured with numba's event API: the dispatcher fires a
    ``"numba:compile"`` event around every real compilation, and not when
    it finds the signature already compiled or loads it from the on-disk
    cache. So the time is zero unless this fit really compiled; a wall-time
    guess would also count slow searches and machine load.
    """
    compile_seconds = []
    started = time.perf_counter()
    with numba_event.install_timer("numba:compile", compile_seconds.append):
        model.fit(X, y)
    return time.perf_counter() - started, sum(compile_seconds)


def _compile_remark(seconds):
    cached = ("a one-time cost: they are cached for later runs" if CACHE else
              "again in every new process: RULEBOOK_NUMBA_CACHE=0 turns the cache off")
    return f"of which {seconds:.3f} s compiling numba kernels, {cached}"


def _fit_time(seconds, compiling):
    remark = f" ({_compile_remark(compiling)})" if compiling > 0 else ""
    return f"fit time: {seconds:.3f} s{remark}"


def _print_certificate(model):
    """For searches with a certificate: in how many rounds optimality was proven."""
    history = model.history_
    if "certified" in history.columns:
        rounds = history.iloc[1:]
        certified = int(rounds["certified"].astype(bool).sum())
        worst = float(rounds["certified_ratio"].min()) if len(rounds) else 1.0
        print(f"optimality certified in {certified} of {len(rounds)} rounds "
              f"(smallest certified ratio {worst:.3f})\n")


def _bundled():
    """Names of the datasets whose files ship inside the package."""
    return sorted(name for name, info in DATASETS.items() if info.shipped)


def _load(args):
    """(X, y, task, display name, dataset's reg_lambda or None) of a dataset or CSV."""
    if args.data in DATASETS and not Path(args.data).is_file():
        info = DATASETS[args.data]
        if args.target and args.target != info.target:
            raise ValueError(f"dataset {args.data!r} has target {info.target!r}; drop --target.")
        if not info.shipped:
            _check_data_home(info, args.data_home)
        X, y = load_dataset(args.data, data_home=args.data_home)
        return X, y, args.task or info.task, args.data, info.paper_reg_lambda
    path = Path(args.data)
    if not path.is_file():
        raise FileNotFoundError(
            f"{args.data!r} is neither a bundled dataset ({', '.join(_bundled())}) nor a file; "
            "'rulebook datasets' lists every known dataset.")
    frame = pd.read_csv(path)
    if not args.target:
        raise ValueError(f"--target is required for a CSV file; columns are {list(frame.columns)}.")
    if args.target not in frame.columns:
        raise ValueError(f"--target {args.target!r} is not a column of {path.name}; "
                         f"columns are {list(frame.columns)}.")
    frame = frame.dropna(subset=[args.target])
    y = frame[args.target]
    return frame.drop(columns=[args.target]), y, args.task or _default_task(y), \
        _printable(path.name), None


def _default_task(y):
    """A CSV target's task: two values binary, more multiclass unless numeric."""
    if y.nunique() == 2:
        return "binary"
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    return "regression" if numeric else "multiclass"


def _check_data_home(info, data_home):
    """A dataset that does not ship needs ``--data-home`` with its files."""
    files = ", ".join(info.files)
    if data_home is None:
        raise ValueError(
            f"dataset {info.name!r} is not bundled with rulebook; download {files} "
            f"(source: {info.source}) and pass --data-home DIR, the directory holding "
            f"{'it' if len(info.files) == 1 else 'them'}. "
            f"Bundled datasets: {', '.join(_bundled())}.")
    directory = Path(data_home).expanduser()
    if not directory.is_dir():
        raise ValueError(f"--data-home {data_home!r} is not a directory.")
    missing = [f for f in info.files
               if not (directory / f).is_file() and not (directory / f"{f}.gz").is_file()]
    if missing:
        raise ValueError(f"--data-home {data_home!r} has no {', '.join(missing)} "
                         f"(plain or .gz), which dataset {info.name!r} needs.")


def _summary(values):
    """ "412 distinct values such as 0.13, 2.5, …" or "3 distinct values: a, b, c"."""
    distinct = pd.unique(values)
    try:
        distinct = np.sort(distinct)
    except TypeError:  # mixed types: keep the order of appearance
        pass
    shown = [f"{v:g}" if isinstance(v, (float, np.floating)) else _printable(str(v))
             for v in distinct[:_SHOWN_VALUES]]
    if len(distinct) > _SHOWN_VALUES:
        return f"{len(distinct)} distinct values such as {', '.join(shown)}, …"
    return f"{len(distinct)} distinct value{'s' if len(distinct) != 1 else ''}: {', '.join(shown)}"


def _check_target(y, task, args):
    """A readable error, naming the flag, for a target the task cannot use.

    Raises
    ------
    ValueError
        ``binary`` with other than two distinct values; ``regression`` or
        ``poisson`` with a non-numeric target; ``poisson`` with negative
        values.
    """
    what = f"target {y.name!r} has {_summary(y)}"
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    source = f"--task {task}" if args.task else f"task {task}"
    if task == "binary" and y.nunique() != 2:
        hint = (" For a numeric target use --task regression or --task poisson." if numeric
                and y.nunique() > _SHOWN_VALUES else " For three or more classes use --task "
                "multiclass" + (", for a numeric target --task regression." if numeric else "."))
        raise ValueError(f"{source} needs a target with exactly two classes; {what}.{hint}")
    if task == "multiclass" and y.nunique() < 3:
        raise ValueError(f"{source} needs a target with three or more classes; {what}. "
                         f"For two classes use --task binary.")
    if task in ("regression", "poisson") and not numeric:
        hint = (" For two classes use --task binary." if y.nunique() == 2 else
                " For classes use --task multiclass.")
        raise ValueError(f"{source} needs a numeric target; {what}.{hint}")
    if task == "poisson" and (y < 0).any():
        raise ValueError(f"{source} needs counts (values >= 0); {what}, "
                         f"{int((y < 0).sum())} of them negative.")


def _score_table(model, X_test, y_test, task):
    """Test score of the model after each boosting round ``k = 0 .. n_rules``.

    The model after round ``k`` comes from ``model.staged_ensembles()``: a
    corrective update (``learner="orthogonal"``, ``weight_update="corrective"``)
    re-fits every weight each round, so it is not ``ensemble_[:k]``.
    """
    # Which test rows each rule covers, computed once: the staged models
    # share the rules, so the raw score after round k is its intercept plus
    # its weights on the first k columns (scoring each staged model from the
    # data would take time quadratic in the number of rules).
    covered = model.ensemble_.query_matrix(X_test).astype(np.float64)
    inverse_link = get_loss(model.ensemble_.loss).inverse_link
    rows = []
    for k, ensemble in enumerate(model.staged_ensembles()):
        # One weight per rule, or one per rule and class (multiclass).
        outputs = np.size(ensemble.intercept)
        weights = np.array([rule.weight for rule in ensemble.rules],
                           dtype=np.float64).reshape(k, outputs)
        raw = ensemble.intercept + covered[:, :k] @ weights
        raw = raw[:, 0] if outputs == 1 else raw
        if task == "multiclass":
            # raw: one column per class (weights (k, K)); the most probable class.
            predicted = model.classes_[np.argmax(raw, axis=1)]
            score, label = np.mean(predicted == np.asarray(y_test)), "test accuracy"
        elif task == "binary":
            positive = np.asarray(y_test == model.classes_[1])
            score = _roc_auc(positive, raw) if 0 < positive.sum() < len(positive) else np.nan
            label = "test ROC AUC"
        elif task == "poisson":
            score, label = mean_poisson_deviance(y_test, inverse_link(raw)), "test Poisson deviance"
        else:
            score, label = r2_score(y_test, raw), "test R^2"
        rows.append({"rules": k, "complexity": ensemble.complexity, label: round(float(score), 4)})
    return pd.DataFrame(rows)


def _roc_auc(positive, raw):
    """ROC AUC as the Mann-Whitney statistic: ``roc_auc_score``'s value (a tie
    counts one half) without its input checks, which cost more than the
    score itself once per round of a long fit."""
    n_positive = int(positive.sum())
    n_negative = len(positive) - n_positive
    ranks = rankdata(raw)  # ties get their average rank
    return (ranks[positive].sum() - n_positive * (n_positive + 1) / 2) / (n_positive * n_negative)


if __name__ == "__main__":
    sys.exit(main())
