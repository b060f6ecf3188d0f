"""Peak resident memory of a default fit, per learner, next to the binned data's size.

Issue 26, defect 5 (bounded memory). For each learner (greedy, optimal,
orthogonal, RuleFit) with **default settings** (``n_rules=10``,
``verbose=0``; nothing else set), each table (``noise``: random normal
features and a random binary target; ``real``: the 30 numeric columns of
breast cancer, rows drawn with replacement and jittered by 1% so that they
stay distinct, as in a larger sample of the same population) and each row
count (10^3, 10^4, 10^5; 30 columns), one fit runs in a fresh child process.
The child loads the data, makes one untimed warm-up fit on 200 rows (so the
numba kernels are compiled or loaded from numba's cache before anything is
measured), records its resident memory (*base*), fits, and reports its own
peak resident memory (``resource.getrusage(RUSAGE_SELF).ru_maxrss``: the
whole process, so it includes Python, NumPy, numba and the compiled
kernels). The parent samples the child's RSS (psutil) every 0.1 s.

Printed per fit: the binned data's size (``rows x columns x 2`` bytes,
uint16 bins), base and peak RSS, peak minus base (what the fit added) and
the fit time. The target of issue 26: peak RSS <= 1 GiB for every learner
at 10^5 x 30.

``--growth`` shows whether a search's memory stops growing: it fits
``n_rules=3`` on 2,000 x 30 noise with the optimal learner's general
branch and bound without a time limit (``max_rule_length=None``,
``OptimalLearner(time_limit=None)``: before the search caps, the issue's
"still searching at 300 s, 383 -> 831 MiB") and prints the child's RSS
every few seconds until ``--growth-seconds`` (then stops the child).

Run from the repository root::

    python benchmarks/bench_memory.py                       # the table (several minutes)
    python benchmarks/bench_memory.py --rows 1000 10000 --learners greedy optimal
    python benchmarks/bench_memory.py --growth --growth-seconds 300
    python benchmarks/bench_memory.py --growth --memory-limit 32   # a cap reached sooner
    python benchmarks/bench_memory.py --growth --memory-limit none # no cap: grows
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

try:
    import psutil
except ImportError:  # peak RSS still comes from the child's getrusage
    psutil = None

LEARNERS = ("greedy", "optimal", "orthogonal", "rulefit")
TABLES = ("noise", "real")
ROWS = (1_000, 10_000, 100_000)
N_COLUMNS = 30
MIB = 1024.0 * 1024.0
DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def make_table(kind, n_rows, seed=0):
    """``(X, y)``: ``n_rows`` x 30 noise or breast cancer, resampled and jittered."""
    rng = np.random.default_rng(seed)
    if kind == "noise":
        X = pd.DataFrame(rng.normal(size=(n_rows, N_COLUMNS)),
                         columns=[f"x{j}" for j in range(N_COLUMNS)])
        return X, pd.Series(rng.integers(0, 2, n_rows), name="y")
    frame = pd.read_csv(_data_home() / "breast_cancer.csv")
    y_all = frame.pop("y").to_numpy()
    X_all = frame.iloc[:, :N_COLUMNS].to_numpy(dtype=float)
    take = rng.integers(0, len(X_all), n_rows)
    X = X_all[take] * (1.0 + 0.01 * rng.normal(size=(n_rows, X_all.shape[1])))
    return (pd.DataFrame(X, columns=frame.columns[:N_COLUMNS]),
            pd.Series(y_all[take], name="y"))


def _data_home():
    return Path(os.environ.get("RULEBOOK_DATA_HOME", DATA_HOME))


def make_estimator(learner, growth=None):
    """The learner's estimator with default settings (``verbose=0``).

    ``growth``: the ``--growth`` fit, with this ``memory_limit`` ("default":
    the learner's default).
    """
    from rulebook import OptimalLearner, RuleBoostingClassifier, RuleFitClassifier
    if learner == "rulefit":
        return RuleFitClassifier(random_state=0)
    if growth is not None:
        limit = {} if growth == "default" else {"memory_limit": _limit(growth)}
        return RuleBoostingClassifier(n_rules=3, learner=OptimalLearner(time_limit=None, **limit),
                                      max_rule_length=None, verbose=0)
    return RuleBoostingClassifier(learner=learner, verbose=0)


def _limit(text):
    return None if text == "none" else float(text)


def _rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(learner, kind, n_rows, growth):
    """Fit once in this process; print a JSON line with the memory figures."""
    X, y = make_table(kind, n_rows)
    warm_X, warm_y = make_table(kind, 200, seed=1)
    make_estimator(learner).fit(warm_X, warm_y)  # compile / load the kernels
    base = _rss()
    print(json.dumps({"base": base}), flush=True)
    started = time.perf_counter()
    make_estimator(learner, growth).fit(X, y)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    print(json.dumps({"base": base, "peak": peak, "seconds": seconds}), flush=True)


def run_child(learner, kind, n_rows, timeout, growth=None, every=0.1, on_sample=None):
    """Run :func:`child` in a fresh process; its figures and RSS samples."""
    cmd = [sys.executable, __file__, "--child", learner, kind, str(n_rows)]
    if growth is not None:
        cmd += ["--memory-limit", growth]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    watched = psutil.Process(proc.pid) if psutil is not None else None
    started, samples, sampled_peak = time.perf_counter(), [], 0
    timed_out = False
    while proc.poll() is None:
        elapsed = time.perf_counter() - started
        if elapsed > timeout:
            proc.kill()  # the child we started, by its pid
            timed_out = True
            break
        if watched is not None:
            try:
                rss = watched.memory_info().rss
            except psutil.Error:
                break
            sampled_peak = max(sampled_peak, rss)
            samples.append((elapsed, rss))
            if on_sample is not None:
                on_sample(elapsed, rss)
        time.sleep(every)
    out, _ = proc.communicate()
    figures = {}
    for line in out.splitlines():
        if line.startswith("{"):
            figures.update(json.loads(line))
    figures["sampled_peak"] = sampled_peak
    figures["timed_out"] = timed_out
    figures["samples"] = samples
    return figures


def table(args):
    print(f"{'learner':<11}{'table':<6}{'rows':>8}{'binned MiB':>11}{'base MiB':>10}"
          f"{'peak MiB':>10}{'fit adds':>10}{'fit s':>8}")
    worst = {}
    for n_rows in args.rows:
        for kind in args.tables:
            binned = n_rows * N_COLUMNS * 2 / MIB
            for learner in args.learners:
                f = run_child(learner, kind, n_rows, args.timeout)
                peak = max(f.get("peak", 0), f["sampled_peak"]) / MIB
                base = f.get("base", 0) / MIB
                seconds = f.get("seconds")
                shown = "timeout" if f["timed_out"] else (
                    f"{seconds:.1f}" if seconds is not None else "failed")
                print(f"{learner:<11}{kind:<6}{n_rows:>8}{binned:>11.2f}{base:>10.0f}"
                      f"{peak:>10.0f}{peak - base:>10.0f}{shown:>8}", flush=True)
                if n_rows == max(args.rows):
                    worst[learner] = max(worst.get(learner, 0.0), peak)
    print(f"\ntarget: peak RSS <= 1024 MiB for every learner at {max(args.rows)} x {N_COLUMNS}")
    for learner, peak in worst.items():
        print(f"  {learner:<11}{peak:>8.0f} MiB  {'ok' if peak <= 1024 else 'OVER'}")


def growth(args):
    print(f"optimal, time_limit=None, max_rule_length=None, memory_limit={args.memory_limit}, "
          f"3 rules, 2000 x 30 noise")
    print(f"{'seconds':>8}{'RSS MiB':>10}")
    shown = [-np.inf]

    def show(elapsed, rss):
        if elapsed >= shown[0] + args.growth_every:
            shown[0] = elapsed
            print(f"{elapsed:>8.1f}{rss / MIB:>10.0f}", flush=True)

    f = run_child("optimal", "noise", 2000, args.growth_seconds, growth=args.memory_limit,
                  on_sample=show)
    state = "stopped at the time given" if f["timed_out"] else (
        f"finished in {f.get('seconds', float('nan')):.1f} s")
    print(f"child {state}; sampled peak {f['sampled_peak'] / MIB:.0f} MiB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=LEARNERS)
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    parser.add_argument("--rows", nargs="+", type=int, default=list(ROWS))
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds before a child is stopped (default 900)")
    parser.add_argument("--growth", action="store_true",
                        help="RSS over time of an optimal search without a time limit")
    parser.add_argument("--growth-seconds", type=float, default=120.0)
    parser.add_argument("--growth-every", type=float, default=5.0)
    parser.add_argument("--memory-limit", default="default",
                        help="OptimalLearner memory_limit of --growth in MiB, 'none' for no "
                             "cap (default: the learner's default)")
    parser.add_argument("--child", nargs=3, metavar=("LEARNER", "TABLE", "ROWS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        limit = args.memory_limit if "--memory-limit" in (argv or sys.argv) else None
        child(args.child[0], args.child[1], int(args.child[2]), limit)
    elif args.growth:
        growth(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
