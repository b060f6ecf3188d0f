"""What a new user gets: greedy, optimal and orthogonal rule boosting at the estimators' defaults.

The "Done when" of issue 23. For every dataset of ``shared/datasets`` (the
registry, ``rulebook.datasets.DATASETS``) plus friedman1-3 and noisy parity
(generated), fits ``RuleBoostingClassifier`` / ``RuleBoostingRegressor``
(``loss="poisson"`` for the count tasks) with the **default parameters**:
only ``learner`` and the paper's ``reg_lambda`` (Boley et al. 2021, Table 1;
the estimator's default where the paper has none) are set, plus ``n_rules``
and ``verbose=0`` (which only silences the progress bar). 5 random 80/20
splits (seeded, stratified for binary tasks; the same splits for every
learner), 10 rules. Per dataset and learner it prints:

* fit time, median and max over the splits (``.fit`` on the training
  DataFrame: validation, binning and every round);
* rounds certified optimal (``history_["certified"]``, where the learner
  records it) and the smallest ``certified_ratio``;
* the test score after 1..10 rules, each from the model after that round
  (``staged_ensembles()``, which also holds for corrective weight updates),
  and its mean over 1..10: ROC AUC (binary), R^2 (regression), mean
  Poisson deviance (counts; *lower is better*);
* complexity at 10 rules (``ensemble_.complexity``: rules + conditions).

The end prints a summary table and the issue's targets, never asserted:
optimal every fit <= 30 s, median <= 2 s, >= 90% of rounds certified;
optimal's mean score >= greedy's on >= 80% of the datasets; optimal's
complexity at 10 rules <= greedy's.

Timings are honest on a small machine: everything runs serially. Each
(dataset, learner) pair runs in a fresh child process, one after the other
(never two at once), so that a fit over ``--time-per-fit-limit`` can be
stopped (numba kernels cannot be interrupted from Python) and the run goes
on. In each child, one untimed warm-up fit compiles the numba kernels or
loads them from numba's cache before anything is timed: the same estimator
on the first split's training rows, with the optimal search capped at 20
node expansions per round.

Run from the repository root::

    python benchmarks/bench_defaults.py --quick                  # smoke run: 1 split, 3 rules
    python benchmarks/bench_defaults.py                          # everything (long)
    python benchmarks/bench_defaults.py --datasets titanic friedman1 --splits 2
    python benchmarks/bench_defaults.py --learners greedy optimal --csv defaults.csv

See benchmarks/README.md for the settings.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, fields, replace
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
LEARNERS = ("greedy", "optimal", "orthogonal")
QUICK = ["iris", "diabetes"]
# Generated problems: generator of rulebook.datasets (it wraps
# sklearn.datasets.make_friedman1/2/3), arguments, task, the paper's
# reg_lambda. friedman1-3: paper 1's n (2000 rows of 10 features, 10000 and
# 5000 rows of 4) and noise 0.1 (the papers state none; the generators'
# default, from the orthogonal-boosting authors' experiment code). Noisy
# parity: d = 3, n = 1000, sigma = 0.5 (Fig. 1 states neither n nor sigma;
# as bench_optimal.py), labels -1/+1 with +1 the positive class.
GENERATED = {
    "friedman1": ("make_friedman1", {"n_samples": 2000, "noise": 0.1}, "regression", 2.0),
    "friedman2": ("make_friedman2", {"n_samples": 10000, "noise": 0.1}, "regression", 2.0),
    "friedman3": ("make_friedman3", {"n_samples": 5000, "noise": 0.1}, "regression", 2.0),
    "noisy_parity": ("make_noisy_parity", {"n_samples": 1000, "n_features": 3, "noise": 0.5},
                     "binary", 10.0),
}
METRICS = {"binary": "roc_auc", "regression": "r2", "poisson": "poisson_deviance"}
TARGETS = {"max_seconds": 30.0, "median_seconds": 2.0, "certified": 0.9, "score_share": 0.8}
# Warm-up node budget per round of the optimal search: enough to run its kernels.
WARMUP_MAX_NODES = 20
# Scores within this relative distance count as equal (identical models).
SCORE_RTOL = 1e-9


# -- data -----------------------------------------------------------------------
@dataclass
class Case:
    name: str
    X: pd.DataFrame
    y: np.ndarray  # binary: 1 = positive class, 0 = other; else the target
    task: str
    reg_lambda: float | None  # None: the estimator's default


def load_case(name, data_home, seed):
    """The dataset as a user loads it: NaN kept (rulebook handles it natively)."""
    from rulebook import datasets

    if name in GENERATED:
        maker, kwargs, task, reg_lambda = GENERATED[name]
        X, y = getattr(datasets, maker)(**kwargs, random_state=seed)
        y = (y > 0).astype(np.int64) if task == "binary" else y.astype(np.float64)
        return Case(name, X, y.to_numpy(), task, reg_lambda)
    info = datasets.DATASETS[name]
    X, y = datasets.load_dataset(name, data_home=data_home)
    if info.task == "binary":
        # Multi-class sources (iris, wine, digits5) are one class against the
        # rest, the positive class of shared/datasets/README.md.
        y = (y == info.positive).astype(np.int64)
    reg_lambda = None if info.paper_reg_lambda is None else float(info.paper_reg_lambda)
    return Case(name, X, y.to_numpy(), info.task, reg_lambda)


def all_names():
    from rulebook.datasets import DATASETS

    return list(DATASETS) + list(GENERATED)


def make_splits(case, n_splits, seed):
    """Random 80/20 splits, as ``rulebook.compare.compare_learners`` makes them."""
    from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

    splitter = (StratifiedShuffleSplit if case.task == "binary" else ShuffleSplit)(
        n_splits=n_splits, test_size=0.2, random_state=seed)
    return list(splitter.split(np.zeros((len(case.y), 1)), case.y))


# -- the child: fits and scores ----------------------------------------------------
def make_estimator(case, learner, n_rules):
    from rulebook import RuleBoostingClassifier, RuleBoostingRegressor

    kwargs = dict(n_rules=n_rules, learner=learner, verbose=0)
    if case.reg_lambda is not None:
        kwargs["reg_lambda"] = case.reg_lambda
    if case.task == "binary":
        return RuleBoostingClassifier(**kwargs)
    if case.task == "poisson":
        return RuleBoostingRegressor(loss="poisson", **kwargs)
    return RuleBoostingRegressor(**kwargs)


def warm_up(estimator, X, y):
    """Untimed fit that compiles (or loads) the kernels the timed fits use."""
    from rulebook.learners import resolve_learner

    learner, _, _ = resolve_learner(estimator.learner, estimator.objective, estimator.search,
                                    estimator.weight_update)
    names = {f.name for f in fields(learner)} if hasattr(learner, "__dataclass_fields__") else ()
    if "max_nodes" in names and getattr(learner, "max_nodes", None) is None:
        # The default optimal search may take long; a small node budget runs
        # the same kernels. A learner object replaces the name only when the
        # estimator has no search= of its own (resolve_learner forbids both).
        learner = replace(learner, max_nodes=WARMUP_MAX_NODES)
        if estimator.search is None:
            estimator = estimator.set_params(learner=learner)
    estimator.fit(X, y)


def staged(model):
    """The model after rounds 1, 2, ...; ``ensemble_[:k]`` if the estimator predates staging."""
    if hasattr(model, "staged_ensembles"):
        return list(model.staged_ensembles())[1:]
    return [model.ensemble_[:k] for k in range(1, len(model.ensemble_) + 1)]


def score(task, ensemble, X, y):
    from sklearn.metrics import mean_poisson_deviance, r2_score, roc_auc_score

    if task == "binary":
        return float(roc_auc_score(y, ensemble.decision_function(X)))
    if task == "poisson":
        return float(mean_poisson_deviance(y, ensemble.predict(X)))
    return float(r2_score(y, ensemble.predict(X)))


def certification(history):
    """``(rounds, certified rounds, smallest certified ratio)``; NaN where not recorded."""
    rounds = history.iloc[1:]  # round 0 is the intercept
    if "certified" not in rounds:
        return len(rounds), np.nan, np.nan
    certified = int(rounds["certified"].fillna(False).astype(bool).sum())
    ratio = float(rounds["certified_ratio"].min()) if "certified_ratio" in rounds and len(rounds) else np.nan
    return len(rounds), certified, ratio


def fit_split(case, estimator, train, test, n_rules):
    X_train, X_test = case.X.iloc[train], case.X.iloc[test]
    start = time.perf_counter()
    model = estimator.fit(X_train, case.y[train])
    seconds = time.perf_counter() - start
    scores = [score(case.task, e, X_test, case.y[test]) for e in staged(model)[:n_rules]]
    # A fit that stopped early keeps its last model (as area_under_rules_curve).
    scores += [scores[-1] if scores else np.nan] * (n_rules - len(scores))
    rounds, certified, ratio = certification(model.history_)
    return {"status": "ok", "fit_s": seconds, "rounds": rounds, "certified": certified,
            "min_ratio": ratio, "complexity": int(model.ensemble_.complexity),
            "mean_score": float(np.mean(scores)),
            **{f"score_{k}": s for k, s in enumerate(scores, start=1)}}


def child_main(config_json, out_path):
    """Child process: warm up, then one timed fit per split, one JSON line per event."""
    import warnings

    from sklearn.base import clone

    config = json.loads(config_json)
    case = load_case(config["dataset"], config["data_home"], config["seed"])
    splits = make_splits(case, config["splits"], config["seed"])
    estimator = make_estimator(case, config["learner"], config["rules"])
    with open(out_path, "w", buffering=1) as out, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # early stops are expected, and reported
        out.write(json.dumps({"event": "start", "split": -1, "time": time.time()}) + "\n")
        train = splits[0][0]
        warm_up(clone(estimator), case.X.iloc[train], case.y[train])
        for split, (train, test) in enumerate(splits):
            out.write(json.dumps({"event": "start", "split": split, "time": time.time()}) + "\n")
            row = fit_split(case, clone(estimator), train, test, config["rules"])
            out.write(json.dumps({"event": "row", "split": split, **row}) + "\n")


# -- the parent: one child per (dataset, learner), serially ------------------------
def watch(command, env, out_path, limit):
    """Run the child; stop it when one fit (or the warm-up) passes ``limit`` seconds.

    Returns ``(events, status, stderr tail)``; ``status`` is "finished",
    "error", "timeout" (the split that was running is the last "start").
    """
    with tempfile.TemporaryFile("w+") as err:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env)
        status = None
        while status is None:
            try:
                child.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
            events = read_events(out_path)
            if child.returncode is not None:
                status = "finished" if child.returncode == 0 else "error"
            elif limit and events and events[-1]["event"] == "start" \
                    and time.time() - events[-1]["time"] > limit:
                child.kill()  # our own child, by its handle
                child.wait()
                status = "timeout"
        err.seek(0)
        return read_events(out_path), status, err.read()[-3000:]


def read_events(path):
    if not Path(path).exists():
        return []
    lines = Path(path).read_text().splitlines()
    # The last line may be half written while the child runs.
    return [json.loads(line) for line in lines if line.endswith("}")]


def run_pair(args, name, learner):
    """Rows (one per split) of one learner on one dataset; stopped splits marked."""
    config = {"dataset": name, "learner": learner, "splits": args.splits, "rules": args.rules,
              "seed": args.seed, "data_home": str(args.data_home)}
    env = {**os.environ, "NUMBA_NUM_THREADS": str(args.threads)}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "events.jsonl"
        command = [sys.executable, __file__, "--child", json.dumps(config), str(out)]
        events, status, stderr = watch(command, env, out, args.time_per_fit_limit)
    rows = {e["split"]: e for e in events if e["event"] == "row"}
    started = [e["split"] for e in events if e["event"] == "start"]
    stopped = started[-1] if status != "finished" and started else None
    if status == "error":
        print(f"  {learner} failed on {name}:\n{stderr}", file=sys.stderr)
    result = []
    for split in range(args.splits):
        if split in rows:
            row = {k: v for k, v in rows[split].items() if k not in ("event", "split")}
        elif split == stopped:  # this fit was stopped (timeout) or crashed (error)
            row = {"status": status, "fit_s": np.inf if status == "timeout" else np.nan}
        elif stopped is None or stopped == -1:  # before any fit: import, data or warm-up
            row = {"status": f"warm-up {status}"}
        else:  # after a stopped fit: skipped, the next ones would not be faster
            row = {"status": "not run"}
        result.append({"dataset": name, "learner": learner, "split": split, **row})
    return result


# -- output -------------------------------------------------------------------------
def dataset_table(frame, rules):
    """One row per learner: times, certification, mean scores by size, complexity."""
    rows = []
    for learner, group in frame.groupby("learner", sort=False):
        done = group[group["status"] == "ok"]
        seconds = group["fit_s"].astype(float)
        row = {"learner": learner,
               "fits": f"{len(done)}/{len(group)}",
               "median s": seconds.median() if seconds.notna().any() else np.nan,
               "max s": seconds.max() if seconds.notna().any() else np.nan}
        certified = done["certified"].astype(float)
        row["certified"] = (f"{int(certified.sum())}/{int(done['rounds'].sum())}"
                            if certified.notna().any() else "-")
        row["min ratio"] = done["min_ratio"].astype(float).min()
        for k in range(1, rules + 1):
            row[f"@{k}"] = done[f"score_{k}"].mean()
        row["mean"] = done["mean_score"].mean()
        row["cx@10" if rules == 10 else f"cx@{rules}"] = done["complexity"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def print_dataset(frame, case_info, rules):
    table = dataset_table(frame, rules)
    name, task, n, d, reg_lambda, seconds = case_info
    lam = "default" if reg_lambda is None else f"{reg_lambda:g}"
    print(f"\n{name}: {task}, {n} x {d}, reg_lambda {lam}, metric {METRICS[task]}"
          f"{' (lower is better)' if task == 'poisson' else ''}  [{seconds:.0f} s]")
    formats = {c: "{:.3f}".format for c in table.columns if c.startswith("@") or c == "mean"}
    formats.update({"median s": "{:.3f}".format, "max s": "{:.3f}".format,
                    "min ratio": "{:.3f}".format, table.columns[-1]: "{:.1f}".format})
    print(table.to_string(index=False, formatters=formats, na_rep="-"))
    for learner, group in frame[frame["status"] != "ok"].groupby("learner", sort=False):
        print(f"  {learner}: " + ", ".join(f"split {s} {status}" for s, status
                                           in zip(group["split"], group["status"])))


def summary_table(raw):
    """Per dataset: each learner's mean score and complexity; optimal's times and certification."""
    rows = []
    for name, frame in raw.groupby("dataset", sort=False):
        done = frame[frame["status"] == "ok"]
        row = {"dataset": name, "metric": METRICS[frame["task"].iloc[0]]}
        for learner in frame["learner"].unique():
            part = done[done["learner"] == learner]
            row[f"{learner} score"] = part["mean_score"].mean() if len(part) else np.nan
        for learner in frame["learner"].unique():
            part = done[done["learner"] == learner]
            row[f"{learner} cx"] = part["complexity"].mean() if len(part) else np.nan
        optimal = frame[frame["learner"] == "optimal"]
        if len(optimal):
            seconds = optimal["fit_s"].astype(float)
            row["opt median s"], row["opt max s"] = seconds.median(), seconds.max()
            ok = optimal[optimal["status"] == "ok"]
            rounds = ok["rounds"].sum()
            row["opt certified"] = ok["certified"].astype(float).sum() / rounds if rounds else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


def print_targets(raw, table, rules):
    verdict = lambda ok: "met" if ok else "NOT MET"  # noqa: E731
    optimal = raw[raw["learner"] == "optimal"]
    if optimal.empty:
        return
    # A stopped or failed fit counts as slower than any finished one.
    seconds = optimal["fit_s"].astype(float).fillna(np.inf)
    slow = sorted(set(optimal.loc[seconds > TARGETS["max_seconds"], "dataset"]))
    print(f"\noptimal: every fit <= {TARGETS['max_seconds']:.0f} s: {verdict(not slow)} "
          f"(max {seconds.max():.2f} s on {optimal.loc[seconds.idxmax(), 'dataset']}"
          f"{'; over on ' + ', '.join(slow) if slow else ''})")
    median = seconds.median()
    print(f"optimal: median fit time {median:.3f} s over {len(seconds)} fits (stopped or skipped "
          f"ones count as slower than any; target <= {TARGETS['median_seconds']:.0f} s: "
          f"{verdict(median <= TARGETS['median_seconds'])})")
    ok = optimal[optimal["status"] == "ok"]
    rounds, certified = ok["rounds"].sum(), ok["certified"].astype(float).sum()
    share = certified / rounds if rounds else np.nan
    low = table.loc[table["opt certified"] < TARGETS["certified"], "dataset"].tolist()
    print(f"optimal: rounds certified {int(certified)}/{int(rounds)} = {share:.1%} of the rounds of "
          f"finished fits (target >= {TARGETS['certified']:.0%}: "
          f"{verdict(share >= TARGETS['certified'])}){'; below on ' + ', '.join(low) if low else ''}")
    if "greedy score" not in table:
        return
    print_score_target(table, verdict, rules)
    both = table[["optimal cx", "greedy cx"]].dropna()
    worse = table.loc[table["optimal cx"] > table["greedy cx"], "dataset"].tolist()
    print(f"optimal: complexity at {rules} rules <= greedy's on {len(both) - len(worse)}/{len(both)} "
          f"datasets (target: every dataset: {verdict(not worse and len(both) == len(table))}; "
          f"mean {both['optimal cx'].mean():.1f} vs {both['greedy cx'].mean():.1f})"
          f"{'; above on ' + ', '.join(worse) if worse else ''}")


def print_score_target(table, verdict, rules):
    """optimal's mean score >= greedy's (for the deviance, <=) on >= 80% of the datasets."""
    lower = table["metric"] == "poisson_deviance"
    opt, grd = table["optimal score"], table["greedy score"]
    close = np.isclose(opt, grd, rtol=SCORE_RTOL, atol=0.0)
    at_least = close | np.where(lower, opt < grd, opt > grd)
    # A dataset where optimal has no finished fit is not met.
    at_least &= opt.notna()
    share = at_least.mean()
    below = table.loc[~at_least, "dataset"].tolist()
    print(f"optimal: mean score over 1..{rules} rules at least greedy's on {int(at_least.sum())}/"
          f"{len(table)} datasets = {share:.0%} (target >= {TARGETS['score_share']:.0%}: "
          f"{verdict(share >= TARGETS['score_share'])}){'; not on ' + ', '.join(below) if below else ''}")


def print_summary(raw, rules):
    table = summary_table(raw)
    print(f"\nSummary: mean test score over 1..{rules} rules (roc_auc, r2: higher is better; "
          f"poisson_deviance: lower), complexity at {rules} rules, optimal's fit times and share "
          "of rounds certified")
    formats = {c: "{:.4f}".format for c in table.columns if c.endswith(" score")}
    formats.update({c: "{:.1f}".format for c in table.columns if c.endswith(" cx")})
    formats.update({"opt median s": "{:.3f}".format, "opt max s": "{:.3f}".format,
                    "opt certified": "{:.0%}".format})
    print(table.to_string(index=False, formatters=formats, na_rep="-"))
    print_targets(raw, table, rules)


def cpu_name():
    lines = Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []
    names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
    return names[0] if names else platform.processor() or platform.machine()


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", help="names (default: every registry dataset, "
                        f"then {', '.join(GENERATED)})")
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=LEARNERS)
    parser.add_argument("--splits", type=int, default=None, help="random 80/20 splits (default 5)")
    parser.add_argument("--rules", type=int, default=None, help="rules per fit (default 10)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {' '.join(QUICK)}, 1 split, 3 rules, 60 s per fit")
    parser.add_argument("--time-per-fit-limit", type=float, default=None,
                        help="seconds after which a fit (or the warm-up) is stopped and the "
                             "learner's remaining splits on that dataset are skipped; 0 for none "
                             "(default 120; --quick 60)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(), help="numba threads")
    parser.add_argument("--seed", type=int, default=0, help="seed of the splits and generated data")
    parser.add_argument("--data-home", type=Path, default=SHARED)
    parser.add_argument("--csv", type=Path, help="write the raw rows (one per dataset, learner, split)")
    args = parser.parse_args()
    args.splits = args.splits or (1 if args.quick else 5)
    args.rules = args.rules or (3 if args.quick else 10)
    if args.time_per_fit_limit is None:
        args.time_per_fit_limit = 60.0 if args.quick else 120.0
    return args


def print_header(args, names):
    versions = ", ".join(f"{p} {metadata.version(p)}" for p in ["rulebook", "numba", "numpy",
                                                                 "scikit-learn"])
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores; numba threads {args.threads}; "
          f"python {platform.python_version()}, {versions}")
    load = os.getloadavg()[0]
    if load > 0.5:
        print(f"WARNING: 1-minute load average is {load:.2f}: timings are under load")
    print(f"{len(names)} datasets, learners {', '.join(args.learners)}, {args.splits} random 80/20 "
          f"split(s) (seed {args.seed}), {args.rules} rules; estimators' defaults with only "
          "learner and the paper's reg_lambda set.\nSerial: one child process per dataset and "
          "learner, one after the other; in each, an untimed warm-up fit (optimal: "
          f"{WARMUP_MAX_NODES} nodes per round) compiles or loads the numba kernels first. "
          f"Fits over {args.time_per_fit_limit:g} s are stopped (0: no limit).")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_main(*sys.argv[2:])
        return
    args = parse_args()
    names = args.datasets or (QUICK if args.quick else all_names())
    print_header(args, names)
    raw = []
    for name in names:
        started = time.perf_counter()
        case = load_case(name, args.data_home, args.seed)
        rows = []
        for learner in args.learners:
            print(f"  running {name} / {learner} ...", file=sys.stderr, flush=True)
            rows += run_pair(args, name, learner)
        frame = pd.DataFrame(rows).assign(task=case.task, reg_lambda=case.reg_lambda,
                                          metric=METRICS[case.task])
        for column in ["fit_s", "rounds", "certified", "min_ratio", "complexity", "mean_score",
                       *(f"score_{k}" for k in range(1, args.rules + 1))]:
            if column not in frame:
                frame[column] = np.nan
        print_dataset(frame, (name, case.task, *case.X.shape, case.reg_lambda,
                              time.perf_counter() - started), args.rules)
        raw.append(frame)
        if args.csv:  # after every dataset, so that a long run keeps what it measured
            pd.concat(raw, ignore_index=True).to_csv(args.csv, index=False)
    print_summary(pd.concat(raw, ignore_index=True), args.rules)


if __name__ == "__main__":
    main()
