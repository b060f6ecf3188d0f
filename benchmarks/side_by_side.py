"""Time two commits of rulebook side by side with the same benchmark scripts.

A refactor should not slow a fit down. This script checks out ``--base`` in a
temporary git worktree and runs this checkout's benchmark scripts twice per
round, once with each package on ``PYTHONPATH`` (the order alternates between
rounds, so a drift in machine load falls on both). It then prints, per
benchmark and dataset, the median time of each commit, the ratio head/base,
and the noise: how much the same commit's time moved between rounds.

Benchmarks (``--benches``):

``greedy``
    ``bench_greedy.py --skip-boomer --skip-compile-time``: 10 greedy rules,
    median of ``--repeat`` fits per dataset.
``optimal``
    ``bench_optimal.py --no-realkd --no-fastogb``: 10 optimal rules at the
    paper's settings, no time limit, one fit per dataset in a child process.
    The objectives of both commits are compared too: a refactor must find the
    same rules.
``yang``
    ``reproduce_tables.py --table yang --learners orthogonal``: the Yang et al.
    protocol for the orthogonal learner (fit seconds summed over the splits).

Usage::

    python benchmarks/side_by_side.py --base 4b55018
    python benchmarks/side_by_side.py --base HEAD~3 --benches greedy --rounds 3

Nothing here asserts a speed: the script prints figures and a verdict per
benchmark (``slower`` only when the geometric-mean ratio exceeds 1 by more
than the noise and by more than 5%).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
THRESHOLD = 0.05  # a slowdown below 5% is not reported, whatever the noise


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="git commit to compare against")
    parser.add_argument("--head", default="HEAD",
                        help="git commit to time (default HEAD; uncommitted changes are ignored)")
    parser.add_argument("--benches", nargs="+", choices=("greedy", "optimal", "yang"),
                        default=["greedy", "optimal", "yang"])
    parser.add_argument("--rounds", type=int, default=2, help="runs of each commit (default 2)")
    parser.add_argument("--repeat", type=int, default=5, help="greedy: timed fits per dataset")
    parser.add_argument("--splits", type=int, default=5, help="yang: splits (default 5)")
    parser.add_argument("--threads", type=int, default=1, help="numba threads (default 1)")
    parser.add_argument("--datasets", nargs="+", help="passed on to every benchmark")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "side_by_side")
    parser.add_argument("--report-only", action="store_true",
                        help="run nothing: summarise the runs already under --out")
    return parser.parse_args()


def bench_command(bench, args, out):
    """The command line of one benchmark run writing its table under ``out``."""
    datasets = ["--datasets", *args.datasets] if args.datasets else []
    if bench == "greedy":
        return ["bench_greedy.py", "--skip-boomer", "--skip-compile-time", "--threads",
                str(args.threads), "--repeat", str(args.repeat), "--csv", str(out / "greedy.csv"),
                *datasets]
    if bench == "optimal":
        return ["bench_optimal.py", "--no-realkd", "--no-fastogb", "--threads", str(args.threads),
                "--csv", str(out / "optimal.csv"), *datasets]
    return ["reproduce_tables.py", "--table", "yang", "--learners", "orthogonal", "--splits",
            str(args.splits), "--out", str(out / "yang"), *datasets]


def run_bench(bench, args, tree, out):
    """Run one benchmark with the package of ``tree``; its output goes to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_NUM_THREADS": str(args.threads)}
    command = [sys.executable, str(HERE / bench_command(bench, args, out)[0]),
               *bench_command(bench, args, out)[1:]]
    with open(out / f"{bench}.txt", "w") as log:
        code = subprocess.run(command, check=False, env=env, stdout=log, stderr=subprocess.STDOUT,
                              cwd=tempfile.gettempdir()).returncode
    if code:
        sys.exit(f"{bench} failed with the package of {tree} (exit {code}); see {out / bench}.txt")


def imported_from(tree):
    """Where ``import rulebook`` resolves with ``tree`` on PYTHONPATH (a sanity check)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([sys.executable, "-c", "import rulebook; print(rulebook.__file__)"],
                          env=env, capture_output=True, text=True, check=True,
                          cwd=tempfile.gettempdir()).stdout.strip()


def read_times(bench, out):
    """Seconds per dataset of one run, a Series."""
    if bench == "greedy":
        table = pd.read_csv(out / "greedy.csv")
        return table.set_index("dataset")["rulebook ms"] / 1e3
    if bench == "optimal":
        table = pd.read_csv(out / "optimal.csv")
        return table.set_index("dataset")["rb s"]
    curves = pd.read_csv(out / "yang" / "curves.csv")
    fits = curves.groupby(["dataset", "split"])["fit_time"].max()
    return fits.groupby("dataset").sum()


def summarise(bench, runs):
    """Per dataset: median seconds of each commit, head/base, and the noise of each commit."""
    frames = {side: pd.concat(times, axis=1) for side, times in runs.items()}
    rows = pd.DataFrame({"base s": frames["base"].median(axis=1),
                         "head s": frames["head"].median(axis=1)})
    rows["head/base"] = rows["head s"] / rows["base s"]
    # Noise: the largest round-to-round ratio of either commit with itself.
    spread = {side: frame.max(axis=1) / frame.min(axis=1) for side, frame in frames.items()}
    rows["noise"] = pd.concat(spread, axis=1).max(axis=1) - 1
    rows = rows.dropna()
    geo = math.exp(rows["head/base"].map(math.log).mean())
    noise = math.exp(rows["noise"].map(math.log1p).mean()) - 1
    verdict = "slower" if geo - 1 > max(noise, THRESHOLD) else "no slowdown beyond noise"
    return rows, geo, noise, verdict


def main():
    args = parse_args()
    if args.report_only:
        args.out = args.out.resolve()
        report(args, collect(args), args.base, args.head)
        return
    base_sha = subprocess.run(["git", "rev-parse", "--short", args.base], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout.strip()
    head_sha = subprocess.run(["git", "rev-parse", "--short", args.head], cwd=REPO, check=True,
                              capture_output=True, text=True).stdout.strip()
    args.out = args.out.resolve()
    # Both commits in worktrees of their own: the working tree may change
    # while the benchmarks run.
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"base": Path(tmp) / "base", "head": Path(tmp) / "head"}
        for side, sha in (("base", base_sha), ("head", head_sha)):
            subprocess.run(["git", "worktree", "add", "--detach", str(trees[side]), sha],
                           cwd=REPO, check=True, capture_output=True)
        try:
            for side, tree in trees.items():
                print(f"{side}: {base_sha if side == 'base' else head_sha} "
                      f"-> {imported_from(tree)}", flush=True)
            for round_ in range(args.rounds):
                order = ("base", "head") if round_ % 2 == 0 else ("head", "base")
                for bench in args.benches:
                    for side in order:
                        out = args.out / f"{side}{round_}"
                        run_bench(bench, args, trees[side], out)
                        print(f"  round {round_ + 1}: {bench} with {side} done", flush=True)
        finally:
            for tree in trees.values():
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], check=False,
                               cwd=REPO, capture_output=True)
    report(args, collect(args), base_sha, head_sha)


def collect(args):
    """Seconds per dataset of every finished run under ``args.out``, by benchmark and commit."""
    runs = {}
    for bench in args.benches:
        for side in ("base", "head"):
            for out in sorted(args.out.glob(f"{side}[0-9]*")):
                try:
                    times = read_times(bench, out)
                except FileNotFoundError:
                    continue  # this round did not get to this benchmark
                runs.setdefault(bench, {"base": [], "head": []})[side].append(times)
    return {bench: sides for bench, sides in runs.items() if sides["base"] and sides["head"]}


def same_nodes(args):
    """Whether both commits' optimal searches expanded the same number of nodes everywhere."""
    found = {}
    for side in ("base", "head"):
        for round_ in range(args.rounds):
            log = args.out / f"{side}{round_}" / "optimal.csv"
            if log.exists():
                found.setdefault(side, pd.read_csv(log).set_index("dataset"))
    if len(found) < 2 or "rb nodes" not in found["base"]:
        return None
    return (found["base"]["rb nodes"] == found["head"]["rb nodes"]).all()


def report(args, runs, base_sha, head_sha):
    rounds = {bench: min(len(sides["base"]), len(sides["head"])) for bench, sides in runs.items()}
    lines = [(f"side by side: base {base_sha}, head {head_sha}, rounds per benchmark {rounds}, "
              f"{args.threads} numba thread(s)")]
    for bench, sides in runs.items():
        rows, geo, noise, verdict = summarise(bench, sides)
        lines += ["", f"{bench}: geometric-mean head/base {geo:.3f}, noise {noise:.1%}: {verdict}",
                  rows.to_string(float_format=lambda value: f"{value:.3f}")]
    if "optimal" in runs:
        same = same_nodes(args)
        answer = "unknown" if same is None else "yes" if same else "NO"
        lines += ["", f"optimal: same search nodes expanded by both commits everywhere: {answer}"]
    text = "\n".join(lines)
    print("\n" + text)
    (args.out / "summary.txt").write_text(text + "\n")
    (args.out / "run.json").write_text(json.dumps(vars(args), default=str, indent=1))


if __name__ == "__main__":
    main()
