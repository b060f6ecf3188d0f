"""Rule boosting on Dask (issue 22): time, memory and traffic of a distributed greedy fit.

For synthetic binary classification and regression tables of ``--rows``
rows (default 10^5 and 10^6) x ``--features`` numeric columns (default 20),
generated lazily per partition by ``dask.dataframe.from_map`` (each
partition from its own seed, never materialised on the client), each size
and task runs in a fresh child process that starts a ``LocalCluster`` of
``--workers`` worker processes (default 2) with one thread each (numba
too: ``NUMBA_NUM_THREADS=1`` in the workers only) and fits
``rulebook.dask.RuleBoostingClassifier`` / ``RuleBoostingRegressor`` with
10 rules of each of ``--learners`` (default greedy; ``optimal`` and
``orthogonal`` run on the atoms merged on the client), everything else at
its default. After an untimed warm-up fit on 5,000 rows (the workers
compile or load numba's kernels), the peaks of every process are reset
(``/proc/self/clear_refs``), and it prints:

* *fit_s*: the wall time of ``fit``; *bin_s* the part of it before the
  first round (the two passes over the generated data: sketch and
  categories, then bin codes), *rounds_s* the rest;
* *worker_peak_mib*: each worker process's peak resident memory during the
  fit (``VmHWM``; *worker_peak_binning_mib* and *worker_peak_rounds_mib*
  its peaks before the first round and during the rounds), beside its resident memory before it
  (*worker_base_mib*: Python, pandas, Dask, numba's kernels) and what it
  keeps of its partitions (*held_mib_per_worker*: the shards' bin codes,
  targets and weights, measured on the workers); *peak_above_base_and_held_mib*
  is peak - base - held: what the fit takes beyond the binned partitions;
* *client_peak_mib*: the client process's peak during the distributed fit;
* *bytes_per_round*: bytes of task results the workers sent (to one another
  and to the client: ``Worker.transfer_outgoing_bytes_total``) during the
  boosting rounds, per round; *binning_bytes* those of the two passes;
  *round_trips_per_round*: the client's gathers per round;
* for sizes up to ``--in-memory-max`` rows (default 10^6): the table
  computed on the client and the in-memory estimator fitted on it (numba
  on both cores), its *in_memory_fit_s*, the *ratio* distributed / in
  memory, and whether both fits chose the same rules (they need not: the
  distributed bins are approximate quantiles once a partition has more
  than 2048 distinct values in a column), with the final training loss of
  each.

Prints, never asserts; times on a shared machine are noisy, memory is the
main figure. ``--rows 10000000 100000000`` asks for 10^7 and 10^8 rows
(10^8 x 20 columns is 16 GB of float64 generated, 2 GB of bin codes kept).

Usage::

    python benchmarks/bench_dask.py
    python benchmarks/bench_dask.py --rows 10000000 --tasks regression
"""

import argparse
import json
import subprocess
import sys
import time

import numpy as np
import pandas as pd

PARTITION_ROWS = 250_000


def make_partition(seed, rows, features, task):
    """One partition: ``rows`` x ``features`` standard normal columns and a
    target of a few rule-like effects (and noise), from ``seed``."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, features))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(features)])
    signal = (X[:, 0] > 0.5) * 1.2 - (X[:, 1] < -0.3) * (X[:, 2] > 0) * 1.5 + 0.4 * X[:, 3]
    if task == "classification":
        frame["y"] = (rng.random(rows) < 1.0 / (1.0 + np.exp(-(signal - 0.2)))).astype(np.int64)
    else:
        frame["y"] = signal + rng.normal(scale=0.7, size=rows)
    return frame


def lazy_table(rows, features, task, partition_rows=None, seed=0, workers=2):
    """``(X, y)``: Dask collections whose partitions are generated on the workers.

    Partitions of ``PARTITION_ROWS`` rows, or fewer so that every worker
    has at least two.
    """
    import dask.dataframe as dd

    if partition_rows is None:
        partition_rows = min(PARTITION_ROWS, -(-rows // (2 * workers)))
    sizes = [min(partition_rows, rows - start) for start in range(0, rows, partition_rows)]
    seeds = [seed * 100_003 + k for k in range(len(sizes))]
    frame = dd.from_map(make_partition, seeds, sizes, features=features, task=task,
                        meta=make_partition(0, 0, features, task), enforce_metadata=False)
    return frame[[f"x{j}" for j in range(features)]], frame["y"]


def _status(field):
    """A field of /proc/self/status in bytes (``VmHWM``: the peak resident memory)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def _peak(dask_worker=None):
    return _status("VmHWM")


def _reset_peak(dask_worker=None):
    """Set the process's peak resident memory to its current one (Linux:
    ``clear_refs`` 5), so that the peak is the fit's, not the warm-up's."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        pass


def _resident(dask_worker=None):
    return _status("VmRSS")


def _sent(dask_worker):
    return dask_worker.transfer_outgoing_bytes_total


def _counting_gathers(client):
    """Count the client's gathers (each one round trip to the workers)."""
    counter = {"n": 0}
    gather = client.gather

    def counted(*args, **kwargs):
        counter["n"] += 1
        return gather(*args, **kwargs)

    client.gather = counted
    return counter


def run_one(rows, task, features, workers, in_memory_max, n_rules, learner="greedy",
            partition_rows=None):
    """Fit one size and task on a fresh cluster; returns the figures."""
    import logging

    from distributed import Client, LocalCluster

    import rulebook
    import rulebook.dask as rdask
    from rulebook.dask import _estimators, _partitions

    estimator = rdask.RuleBoostingClassifier if task == "classification" else rdask.RuleBoostingRegressor
    # One thread per worker, numba's too (NUMBA_NUM_THREADS in the worker
    # processes only: the in-memory fit below uses both cores).
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR,
                           env={"NUMBA_NUM_THREADS": "1"})
    client = Client(cluster)
    estimator(n_rules=2, learner=learner, verbose=0).fit(*lazy_table(5000, features, task, 2500,
                                                                    seed=1))
    marks = {}
    gathers = _counting_gathers(client)

    def marked(fit):
        # The end of binning: the distributed loop or the fit on atoms starts.
        def start(setup, *args):
            marks["boosting"] = (time.perf_counter(), sum(client.run(_sent).values()),
                                 gathers["n"])
            # The binning's peak, then the rounds' apart (the peak is reset).
            marks["binning_peaks"] = dict(sorted(client.run(_peak).items()))
            client.run(_reset_peak)
            if hasattr(setup, "workers"):  # what each worker keeps of its partitions
                held = setup.workers.run(_partitions.held_bytes)
                by_worker = dict(zip(setup.workers.addresses, client.gather(held)))
                marks["held"] = [float(by_worker.get(w, [0])[0]) for w in
                                 sorted(client.scheduler_info()["workers"])]
                gathers["n"] -= 1
                # Where the bundles are: one per worker, or shards moved.
                hosts = client.who_has(setup.workers.bundles)
                marks["bundle_hosts"] = len({min(v) for v in hosts.values() if v})
            return fit(setup, *args)
        return start

    _estimators.fit_boosting = marked(_estimators.fit_boosting)
    _estimators.fit_on_atoms = marked(_estimators.fit_on_atoms)
    X, y = lazy_table(rows, features, task, partition_rows, workers=workers)
    client.run(_reset_peak)
    _reset_peak()
    base = [round(v / 2**20) for v in dict(sorted(client.run(_resident).items())).values()]
    sent0 = sum(client.run(_sent).values())
    started = time.perf_counter()
    model = estimator(n_rules=n_rules, learner=learner, verbose=0).fit(X, y)
    seconds = time.perf_counter() - started
    sent1, trips = sum(client.run(_sent).values()), gathers["n"]
    rounds = max(1, len(model.ensemble_))
    rounds_peaks = list(dict(sorted(client.run(_peak).items())).values())
    binning_peaks = list(marks.get("binning_peaks", {}).values()) or [0] * len(rounds_peaks)
    peaks = [round(max(b, r) / 2**20) for b, r in zip(binning_peaks, rounds_peaks)]
    figures = {
        "task": task, "learner": learner, "rows": rows, "features": features, "partitions": X.npartitions,
        "workers": workers, "rules": len(model.ensemble_), "fit_s": round(seconds, 2),
        "bin_s": round(marks["boosting"][0] - started, 2),
        "rounds_s": round(seconds - (marks["boosting"][0] - started), 2),
        "worker_base_mib": base,
        "worker_peak_mib": peaks,
        "worker_peak_binning_mib": [round(v / 2**20) for v in binning_peaks],
        "worker_peak_rounds_mib": [round(v / 2**20) for v in rounds_peaks],
        "held_mib_per_worker": [round(v / 2**20) for v in marks.get("held", [])],
        "workers_holding_bundles": marks.get("bundle_hosts"),
        "peak_above_base_and_held_mib": [p - b - round(h / 2**20) for p, b, h in
                                         zip(peaks, base, marks.get("held", [0] * len(peaks)))],
        "client_peak_mib": round(_peak() / 2**20),
        "binning_bytes": int(marks["boosting"][1] - sent0),
        "bytes_per_round": int((sent1 - marks["boosting"][1]) / rounds),
        "round_trips_per_round": round((trips - marks["boosting"][2]) / rounds, 1),
        "train_loss": round(float(model.history_["train_loss"].iloc[-1]), 5),
    }
    client.close()
    cluster.close()
    if rows <= in_memory_max:
        frame_X, frame_y = X.compute(scheduler="sync"), y.compute(scheduler="sync")
        in_memory = (rulebook.RuleBoostingClassifier if task == "classification"
                     else rulebook.RuleBoostingRegressor)(n_rules=n_rules, learner=learner,
                                                          verbose=0)
        in_memory.fit(frame_X.iloc[:5000], frame_y.iloc[:5000])  # kernels compiled or loaded
        started = time.perf_counter()
        in_memory.fit(frame_X, frame_y)
        figures["in_memory_fit_s"] = round(time.perf_counter() - started, 2)
        figures["ratio"] = round(seconds / figures["in_memory_fit_s"], 2)
        figures["in_memory_train_loss"] = round(float(in_memory.history_["train_loss"].iloc[-1]), 5)
        figures["same_rules"] = ([str(r.query) for r in model.ensemble_]
                                 == [str(r.query) for r in in_memory.ensemble_])
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rules", type=int, default=10)
    parser.add_argument("--tasks", nargs="+", default=["classification", "regression"],
                        choices=["classification", "regression"])
    parser.add_argument("--in-memory-max", type=int, default=1_000_000)
    parser.add_argument("--learners", nargs="+", default=["greedy"],
                        choices=["greedy", "optimal", "orthogonal"])
    parser.add_argument("--partition-rows", type=int, default=None,
                        help=f"rows per partition (default {PARTITION_ROWS:,}, fewer for "
                             f"small tables so that each worker gets two)")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # the child: one size and task
        print(json.dumps(run_one(args.rows[0], args.tasks[0], args.features, args.workers,
                                 args.in_memory_max, args.rules, args.learners[0],
                                 args.partition_rows)), flush=True)
        return
    results = []
    runs = [(rows, task, learner) for rows in args.rows for task in args.tasks
            for learner in args.learners]
    for rows, task, learner in runs:
        command = [sys.executable, __file__, "--one", "--rows", str(rows), "--tasks", task,
                   "--learners", learner, "--features", str(args.features),
                   "--workers", str(args.workers), "--rules", str(args.rules),
                   "--in-memory-max", str(args.in_memory_max)]
        if args.partition_rows:
            command += ["--partition-rows", str(args.partition_rows)]
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        if done.returncode or not lines:
            print(f"{task} {learner} {rows}: failed\n{done.stderr[-2000:]}", flush=True)
            continue
        results.append(json.loads(lines[-1]))
        print(lines[-1], flush=True)
    if results:
        table = pd.DataFrame(results).set_index(["task", "learner", "rows"])
        with pd.option_context("display.width", 200, "display.max_columns", 30):
            print(table)


if __name__ == "__main__":
    main()
