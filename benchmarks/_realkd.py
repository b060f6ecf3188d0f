"""Run the paper's reference implementation (``realkd==0.2.1``) as an outside peer.

Like ``_boomer.py`` this module has two halves:

* ``write_frame`` / ``read_frame`` / ``run`` are called by ``bench_optimal.py``
  in rulebook's interpreter: they pass a DataFrame to a child process as JSON
  (exact for float64: JSON keeps ``repr``) and start the child with a time
  limit and a memory cap, watching its peak resident memory from outside.
* ``main`` runs in the child, under an interpreter that has realkd installed
  (its own virtualenv: realkd 0.2.1 pins nothing usable and needs only
  numpy, pandas, scikit-learn, bitarray, sortednp, sortedcontainers). It
  needs nothing from rulebook.

The child fits realkd's rule boosting the way ``RuleBoostingEstimator`` with
``XGBRuleEstimator(search="exhaustive")`` does, spelled out so that the
search object of each round (and so its pruning counters) stays in hand:
per round ``GradientBoostingObjective(data, target, scores, loss, reg)``,
``Context.from_df(obj.data, max_col_attr=..., discretization=pandas.qcut)``,
``CoreQueryTreeSearch(ctx, obj, obj.bound, order="bestboundfirst", apx=1.0,
max_depth=None).run()``, ``obj.opt_weight(q)`` -- the same calls, in the
same order, with the same arguments as ``GradientBoostingObjective.search``
and ``XGBRuleEstimator.fit``. Round 0 is realkd's documented "offset rule"
(``XGBRuleEstimator(query=Conjunction([]))``), the counterpart of rulebook's
intercept, so both models are an intercept plus ``n_rules`` searched rules.

Each finished round is written at once as one JSON line (time, nodes,
counters, peak memory, the rule's weight, extent and objective value), so a
run stopped by the time limit still reports the rounds it completed.

References
----------
Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short than
greedy: interpretable models through optimal rule boosting. SDM.
realkd 0.2.1, https://pypi.org/project/realkd/ (the paper's code).
"""

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

# realkd's seven pruning counters (attributes of CoreQueryTreeSearch).
COUNTERS = ("rec_crit_hits", "crit_hits", "del_bnd_hits", "clo_hits", "non_lexmin_hits",
            "bnd_post_children_hits", "bnd_immediate_hits")


# -- both interpreters ---------------------------------------------------------
def write_frame(path, X, y):
    """Write ``X`` (numeric, string and object columns) and ``y`` as JSON."""
    columns = []
    for name in X.columns:
        column = X[name]
        values = [None if pd.isna(v) else (v.item() if isinstance(v, np.generic) else v)
                  for v in column.tolist()]
        columns.append({"name": str(name), "dtype": str(column.dtype), "values": values})
    target = [v.item() if isinstance(v, np.generic) else v for v in pd.Series(y).tolist()]
    Path(path).write_text(json.dumps({"columns": columns, "y": target}))


def read_frame(path):
    """Inverse of ``write_frame``: ``(X, y)`` with the original dtypes (missing -> NaN)."""
    data = json.loads(Path(path).read_text())
    frame = {}
    for column in data["columns"]:
        values = [np.nan if v is None else v for v in column["values"]]
        dtype = column["dtype"]
        if dtype not in ("float64", "int64", "bool", "object", "str"):
            dtype = "object"
        frame[column["name"]] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(frame), pd.Series(data["y"], name="y")


# -- rulebook's interpreter: start the child and watch it -----------------------
def _peak_rss_mb(pid):
    """Peak resident memory (VmHWM) of a live process, in MB, or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _rss_mb(pid):
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def run_watched(command, env, timeout, max_memory_mb, stdout, stderr):
    """Run ``command``, stopping it at ``timeout`` seconds or ``max_memory_mb`` resident MB.

    Returns ``(status, peak_mb, wall_seconds)``: status "finished", "error"
    (non-zero exit; "signal N" if killed by a signal), "timeout" or
    "memory"; ``peak_mb`` the child's VmHWM as last polled (every 0.5 s).
    """
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=stdout, stderr=stderr, env=env)
    status, peak = None, 0.0
    while status is None:
        try:
            child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        peak = max(peak, _peak_rss_mb(child.pid) or 0.0)
        if child.returncode is not None:
            code = child.returncode
            status = "finished" if code == 0 else (f"signal {-code}" if code < 0 else "error")
        elif time.perf_counter() - started > timeout:
            status = "timeout"
        elif (_rss_mb(child.pid) or 0.0) > max_memory_mb:
            status = "memory"
        if status in ("timeout", "memory"):
            child.kill()  # our own child, by its handle
            child.wait()
    return status, peak, time.perf_counter() - started


def run(python, X, y, config, timeout, max_memory_mb):
    """Fit realkd in a child process; return ``{"status", "rounds", "peak_mb", ...}``.

    Parameters
    ----------
    python : str
        Interpreter with realkd installed.
    X, y : DataFrame, Series
        ``y`` as realkd needs it: +-1 for the logistic loss.
    config : dict
        ``loss`` ("squared" or "logistic"), ``reg``, ``max_col_attr`` (int or
        dict), ``n_rules``.
    timeout : float
        Seconds of wall time before the child is killed.
    max_memory_mb : float
        Resident memory at which the child is killed (polled twice a second).

    Returns
    -------
    dict
        ``status`` (see ``run_watched``); ``rounds``: one dict per round the
        child completed (see ``main``); ``peak_mb``: the child's peak
        resident memory, also for a killed child; ``wall``: seconds until it
        ended; ``header``: realkd's propositions; ``stderr``: its tail.
    """
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.json", Path(tmp) / "rounds.jsonl"
        write_frame(data, X, y)
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1"}
        with open(Path(tmp) / "stderr.txt", "w") as err:
            status, peak, wall = run_watched(
                [python, __file__, str(data), json.dumps(config), str(out)], env, timeout,
                max_memory_mb, subprocess.DEVNULL, err)
        stderr = (Path(tmp) / "stderr.txt").read_text()
        lines = out.read_text().splitlines() if out.exists() else []
    records = [json.loads(line) for line in lines]
    header = records[0] if records and records[0].get("kind") == "header" else {}
    rounds = [r for r in records if r.get("kind") == "round"]
    if status == "finished" and rounds:
        # The child's own reading after its last round: the fit's peak (the
        # poll may also have seen the warm-up's when the mark was not reset).
        peak = rounds[-1]["maxrss_mb"]
    else:  # stopped: the last poll, or the child's last reading if higher
        peak = max([peak] + [r["maxrss_mb"] for r in rounds])
    return {"status": status, "rounds": rounds, "peak_mb": peak, "wall": wall,
            "header": header, "stderr": stderr[-4000:]}


# -- the child: realkd's interpreter ----------------------------------------------
def peak_rss_mb():
    """This process's peak resident memory in MB (VmHWM; ru_maxrss as fallback).

    Not ``ru_maxrss`` on Linux: the kernel carries a process's maximum over
    ``exec``, so a child started from a big parent reports the parent's
    size (the benchmark's parent holds numba and the data). ``VmHWM`` is
    the high-water mark of the process's own, new address space.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def rss_mb():
    """This process's resident memory now, in MB (VmRSS), or None off Linux."""
    return _rss_mb("self")


def start_of_fit_mb():
    """Resident MB at the start of a timed fit, with freed memory handed back
    and the peak reset; ``(mb, reset)``.

    Both children warm up before the timed fit (rulebook loads its kernels,
    realkd runs its code paths once). Memory the warm-up freed but kept
    would be reused by the fit and hide the fit's own memory, so first
    ``gc.collect()``, then glibc's ``malloc_trim(0)`` (returns the free
    pages of every arena to the kernel), then the kernel's high-water mark
    is reset (writing 5 to ``/proc/self/clear_refs``, Linux 4.0 and later).
    After that, ``peak_rss_mb() - mb`` is the peak memory the fit adds to a
    process that holds the interpreter, the library and the data.
    ``reset`` is False where the mark could not be reset: the peak then
    includes the warm-up's.
    """
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    try:
        Path("/proc/self/clear_refs").write_text("5")
        reset = True
    except OSError:
        reset = False
    mb = rss_mb()
    return (peak_rss_mb() if mb is None else mb), reset


def boost(X, y, config, search_params, out=None):
    """realkd's boosting: the offset rule and ``config["n_rules"]`` searched
    rules, one JSON line per round to ``out`` (None: no records)."""
    from realkd.rules import AdditiveRuleEnsemble, GradientBoostingObjective, Rule
    from realkd.search import Conjunction, Context, CoreQueryTreeSearch

    loss, reg = config["loss"], float(config["reg"])
    ensemble = AdditiveRuleEnsemble([])
    for t in range(config["n_rules"] + 1):
        start = time.perf_counter()
        scores = ensemble(X)
        obj = GradientBoostingObjective(X, y, predictions=scores, loss=loss, reg=reg)
        record = {"kind": "round", "round": t}
        if t == 0:
            q = Conjunction([])  # the offset rule (XGBRuleEstimator(query=Conjunction([])))
            search_seconds = context_seconds = 0.0
        else:
            context_start = time.perf_counter()
            ctx = Context.from_df(obj.data, **search_params)
            search_start = time.perf_counter()
            search = CoreQueryTreeSearch(ctx, obj, obj.bound, **search_params)
            q = search.run()
            search_seconds = time.perf_counter() - search_start
            context_seconds = search_start - context_start
            record.update({"popped": search.popped, "created": search.created,
                           "n_attributes": ctx.n,
                           **{name: getattr(search, name) for name in COUNTERS}})
        weight = obj.opt_weight(q)
        rule = Rule(q, weight)
        ensemble.append(rule)
        seconds = time.perf_counter() - start
        if out is None:
            continue
        # Not timed: what the parent needs to compare rounds.
        extent = np.flatnonzero(np.asarray(q(X), dtype=bool))
        value = obj(obj.data.loc[q].index.to_numpy()) if t else float("nan")
        record.update({"seconds": seconds, "search_seconds": search_seconds,
                       "context_seconds": context_seconds, "weight": float(weight),
                       "value": float(value), "query": str(q), "extent": extent.tolist(),
                       "maxrss_mb": peak_rss_mb()})
        out.write(json.dumps(record) + "\n")


def main(data_path, config_json, out_path):
    from collections import defaultdict

    from realkd.search import Context

    config = json.loads(config_json)
    X, y = read_frame(data_path)
    max_col_attr = config["max_col_attr"]
    if isinstance(max_col_attr, dict):
        # realkd indexes the dict by column; None (no limit) for any other.
        max_col_attr = defaultdict(lambda: None, max_col_attr)
    search_params = {"order": "bestboundfirst", "apx": 1.0, "max_depth": None,
                     "discretization": pd.qcut, "max_col_attr": max_col_attr}
    out = open(out_path, "w", buffering=1)  # line-buffered: rounds survive a kill

    # The propositions realkd builds from the data, for the parent to compare
    # with its own (not timed).
    ctx = Context.from_df(X, max_col_attr=max_col_attr, discretization=pd.qcut)
    attributes = [str(a) for a in ctx.attributes]
    del ctx
    # Untimed warm-up, as rulebook's: as many rounds, each searching only
    # single propositions (max_depth=1), so that code paths run once before
    # the timed fit.
    boost(X, y, config, {**search_params, "max_depth": 1})
    start_mb, reset = start_of_fit_mb()
    out.write(json.dumps({"kind": "header", "n_attributes": len(attributes),
                          "attributes": attributes, "start_mb": start_mb,
                          "peak_reset": reset}) + "\n")
    boost(X, y, config, search_params, out)
    out.close()


if __name__ == "__main__":
    main(*sys.argv[1:])
