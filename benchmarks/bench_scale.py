"""A million rows on one machine: fit time, peak memory and predict time by table size.

The issue "A million rows on one machine". For binary classification data
from scikit-learn's ``make_classification`` (20 numeric features, 10 of
them informative, as a pandas DataFrame with named columns ``x0..x19``; the
same rows for every fitter) and each row count (10^4, 10^5, 10^6; 10^7
only with ``--ten-million`` and when the memory available allows it), each
fitter runs in a fresh child process:

* rulebook ``RuleBoostingClassifier(n_rules=10, learner=L, verbose=0)``
  for ``L`` in greedy, optimal, orthogonal, everything else at its default
  (``max_bins=255``, ``max_rule_length=2``; optimal: ``time_limit="auto"``;
  orthogonal: branch and bound, 300 nodes per rule, corrective weights);
* LightGBM, 10 boosting rounds of stumps: ``LGBMClassifier(n_estimators=10,
  num_leaves=2, max_bin=255, n_jobs=THREADS, verbose=-1)`` (fed the same
  DataFrame);
* BOOMER (``mlrl-boomer``), 10 rules plus its default rule, configured as
  rulebook's greedy learner by ``_boomer.boomer_params`` (as in
  ``bench_greedy.py``) with equal-frequency binning into at most 255 bins
  (BOOMER "binned"), fed a float32 Fortran array converted before the timer.

LightGBM and BOOMER are optional peers (``pip install lightgbm
mlrl-boomer``); each is skipped with a printed message when it is not
importable. mlrl-boomer 0.12.3 pins numpy < 2.4 and scikit-learn < 1.8, so
it usually lives in a virtualenv of its own (``benchmarks/requirements.txt``,
``benchmarks/README.md``): pass its interpreter with ``--boomer-python`` or
``BOOMER_PYTHON``; only numpy, scikit-learn and mlrl-boomer are needed there.

The child process (the approach of ``bench_memory.py``) loads the table
(generated once per size by the parent and saved to a temporary .npy file),
makes an untimed warm-up fit on 200,000 other rows and an untimed
prediction on them (so numba's kernels, serial and parallel, are compiled or loaded
from numba's cache, and LightGBM's and BOOMER's libraries are loaded,
before anything is timed), records its resident memory (*base*), fits
(timed: *fit s*, the whole ``fit`` call, binning included for all three),
records its peak resident memory (``VmHWM`` of
``/proc/self/status``: the whole process, so Python, the libraries, the
table and the compiled kernels count; not ``ru_maxrss`` as in
``bench_memory.py``, which on Linux starts a child at its parent's peak,
see :func:`_maxrss`; the parent also samples the child's RSS every 0.1 s
with psutil and keeps the larger), then times ``predict_proba`` on the
same rows (*predict s*). The training ROC AUC is printed as a sanity
check, not as a comparison of models. numba threads (``NUMBA_NUM_THREADS``), LightGBM's ``n_jobs`` and
BOOMER's ``num_preferred_threads`` are all ``--threads`` (default 2).

Printed: one line per fit as it ends, the fit-time and peak-RSS tables
(fitter x rows), and the ratios the issue's targets use, each next to its
target (printed, never asserted): at 10^6 rows, greedy fit / LightGBM fit
<= 1.5, greedy / BOOMER <= 1.0, orthogonal / greedy <= 10, peak RSS <= 1 GiB
for every rulebook learner, rulebook predict / LightGBM predict <= 2; and
the orthogonal learner's fit-time growth from 10^5 to 10^6 rows (about
linear: <= ~12x for 10x rows). A fit still running after ``--timeout``
seconds (default 600) is stopped and shows as "timeout"; a ratio with a
timed-out fit is then a bound (">=").

``--profile`` instead fits the greedy and orthogonal learners once each at
``--profile-rows`` (default 10^5) under cProfile, after a warm-up, in this
process, and prints the per-phase breakdown of the fit (binning,
gradients, histograms, scan, coverage update, shortening, weight update,
corrective re-fit, training loss for ``history_``) and of ``predict_proba``
on the same rows, from cProfile's cumulative times of the rulebook
functions that do each phase (grouped by :data:`PHASES`, by caller where a
function serves several phases), and the top functions by cumulative time.

Caveats. Wall-clock times on whatever else the machine runs: the figures in
``benchmarks/README.md`` were taken under ``nice -n 19`` on a shared 2-core
machine. The three libraries do different work: LightGBM fits 10 stumps
(one condition each) and bins on a 200,000-row sample by default
(``bin_construct_sample_cnt``), rulebook's rules have up to 2 conditions
and its binning reads every row, BOOMER's rules are unbounded in length.
The orthogonal learner's work per round does not fall with the rows (its
branch and bound expands up to 300 nodes whatever the size). cProfile
slows Python-level code more than the compiled kernels, and a numba
kernel's time is that of the Python function that calls it (the compiled
branch and bound is one phase: its histograms, scans and bounds cannot be
told apart from outside).

Run from the repository root::

    python benchmarks/bench_scale.py                          # 10^4, 10^5, 10^6 (tens of minutes)
    python benchmarks/bench_scale.py --rows 10000 --learners greedy lightgbm
    python benchmarks/bench_scale.py --boomer-python ~/boomer-venv/bin/python
    python benchmarks/bench_scale.py --ten-million            # adds 10^7 if memory allows
    python benchmarks/bench_scale.py --profile                # greedy + orthogonal at 10^5
    python benchmarks/bench_scale.py --profile --profile-rows 1000000 --profile-learners greedy
"""

import argparse
import json
import os
import queue
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

try:
    import psutil
except ImportError:  # peak RSS still comes from the child's getrusage
    psutil = None

RULEBOOK = ("greedy", "optimal", "orthogonal")
PEERS = ("lightgbm", "boomer")
FITTERS = RULEBOOK + PEERS
ROWS = (10_000, 100_000, 1_000_000)
TEN_MILLION = 10_000_000
N_FEATURES = 20
N_RULES = 10
# Rows of the warm-up fit: above every row threshold of a large fit's
# kernels (the binning's PARALLEL_MIN_ROWS, 200,000; the row-major bins and
# root updates, 65,536; the orthogonal search's root children, 65,536), so
# that all of them are loaded from numba's cache before the timed fit, as
# the warm-up intends. With 5,000 rows (before session 18) the kernels of
# tall tables were loaded inside the timed fit: +0.6 s for greedy at 10^6.
WARM_FIT_ROWS = 200_000
# x conditions: above PREDICT_MIN_WORK (the parallel predict kernel); the
# warm-up table has max(this, WARM_FIT_ROWS) rows.
WARM_PREDICT_ROWS = 50_000
MIB = 1024.0 * 1024.0
GIB_MIB = 1024.0
HERE = Path(__file__).resolve().parent
# Targets of the issue, printed next to the measured ratios (never asserted).
TARGETS = {
    "greedy_vs_lightgbm": 1.5,
    "greedy_vs_boomer": 1.0,
    "orthogonal_vs_greedy": 10.0,
    "peak_mib": GIB_MIB,
    "orthogonal_growth": 12.0,
    "predict_vs_lightgbm": 2.0,
}


# --------------------------------------------------------------------------
# data


def make_table(n_rows, seed):
    """``(X, y)``: float64 C-order (n_rows, 20) and int64 (n_rows,)."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=n_rows, n_features=N_FEATURES, n_informative=10,
                               n_redundant=4, random_state=seed)
    return np.ascontiguousarray(X), y.astype(np.int64)


def as_frame(X):
    import pandas as pd
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])], copy=False)


# --------------------------------------------------------------------------
# the fitters (imported in the child only)


def make_fitter(name, threads):
    """An unfitted estimator and the input it takes (``"frame"`` or ``"float32"``)."""
    if name in RULEBOOK:
        from rulebook import RuleBoostingClassifier
        return RuleBoostingClassifier(n_rules=N_RULES, learner=name, verbose=0), "frame"
    if name == "lightgbm":
        from lightgbm import LGBMClassifier
        return LGBMClassifier(n_estimators=N_RULES, num_leaves=2, max_bin=255, n_jobs=threads,
                              verbose=-1), "frame"
    if name == "boomer":
        import _boomer  # sibling module; benchmarks/ is sys.path[0] when run as a script
        from mlrl.boosting.learners import BoomerClassifier
        return BoomerClassifier(**_boomer.boomer_params("binary", N_RULES, threads,
                                                        binned=True)), "float32"
    raise ValueError(name)


def _input(kind, X):
    if kind == "frame":
        return as_frame(X)
    return np.asfortranarray(X, dtype=np.float32)


def _target(name, y):
    return y.astype(np.uint8) if name == "boomer" else y


def _rss():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _maxrss():
    """This process's peak resident memory, bytes: ``VmHWM``, else ``ru_maxrss``.

    Not ``ru_maxrss`` first: Linux keeps it across ``execve``, and a child
    started by ``subprocess`` (fork or vfork, then exec) begins with its
    parent's peak, here the parent's after it generated the table (measured:
    a parent that had peaked at 789 MiB started a bare ``python -c`` child
    with ``ru_maxrss`` 789 MiB and ``VmHWM`` 11 MiB). ``VmHWM`` belongs to
    the address space the exec created.
    """
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _say(**figures):
    print(json.dumps(figures), flush=True)


def _version(name):
    from importlib import metadata
    dist = {"lightgbm": "lightgbm", "boomer": "mlrl-boomer"}.get(name, "rulebook")
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"


def child(config):
    """One fitter at one size in this (fresh) process; JSON lines on stdout."""
    name, threads = config["fitter"], config["threads"]
    X = np.load(config["data"])
    y = np.load(config["target"])
    warm_X, warm_y = np.load(config["warm_data"]), np.load(config["warm_target"])
    warm_model, kind = make_fitter(name, threads)
    warm_model.fit(_input(kind, warm_X[:WARM_FIT_ROWS]), _target(name, warm_y[:WARM_FIT_ROWS]))
    warm_model.predict_proba(_input(kind, warm_X[:WARM_PREDICT_ROWS]))
    del warm_model, warm_X, warm_y
    data = _input(kind, X)
    if kind != "frame":
        del X  # the float32 copy is what the fitter sees
    target = _target(name, y)
    model, _ = make_fitter(name, threads)
    _say(base=_rss(), peak_before=_maxrss(), version=_version(name))
    started = time.perf_counter()
    model.fit(data, target)
    seconds = time.perf_counter() - started
    _say(fit=seconds, peak=_maxrss())
    started = time.perf_counter()
    proba = model.predict_proba(data)
    predict = time.perf_counter() - started
    from sklearn.metrics import roc_auc_score
    _say(predict=predict, auc=float(roc_auc_score(target, proba[:, 1])),
         rules=_n_rules(name, model))


def _n_rules(name, model):
    try:
        if name in RULEBOOK:
            return len(model.ensemble_.rules)
        if name == "boomer":
            return int(model.model_.get_num_used_rules()) - 1  # without the default rule
        return int(model.booster_.num_trees())
    except (AttributeError, TypeError, ValueError):  # a count is a nicety, never a failure
        return None


# --------------------------------------------------------------------------
# the parent


def run_child(python, config, timeout, every=0.1):
    """Run :func:`child` in a fresh process; its figures, sampled peak RSS and state.

    ``timeout`` applies to each phase separately: the start-up (loading the
    table, the warm-up), the fit, and the prediction. ``state`` is "ok",
    "timeout" (with the phase) or "failed" (with the child's last stderr line).
    """
    env = dict(os.environ, NUMBA_NUM_THREADS=str(config["threads"]),
               OMP_NUM_THREADS=str(config["threads"]))
    cmd = [python, str(Path(__file__).resolve()), "--child", json.dumps(config)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    lines, errors = queue.Queue(), []
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
    reader.start()
    error_reader = threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True)
    error_reader.start()
    watched = psutil.Process(proc.pid) if psutil is not None else None
    figures, sampled_peak, phase = {}, 0, "start-up"
    phase_started = time.perf_counter()
    state = "ok"
    while True:
        try:
            line = lines.get(timeout=every)
            if line.startswith("{"):
                new = json.loads(line)
                figures.update(new)
                if "base" in new:
                    phase, phase_started = "fit", time.perf_counter()
                elif "fit" in new:
                    phase, phase_started = "predict", time.perf_counter()
            continue
        except queue.Empty:
            pass
        if not reader.is_alive() and lines.empty():  # the child closed its stdout
            break
        if time.perf_counter() - phase_started > timeout:
            proc.kill()  # the child we started, by its pid
            proc.wait()
            state = f"timeout ({phase})"
            break
        if watched is not None and phase == "fit":
            try:
                sampled_peak = max(sampled_peak, watched.memory_info().rss)
            except psutil.Error:
                pass
    proc.wait()
    error_reader.join(timeout=10)
    if state == "ok" and proc.returncode != 0:
        state = "failed: " + (errors[-1].strip() if errors else f"exit code {proc.returncode}")
    figures["sampled_peak"] = sampled_peak
    figures["state"] = state
    return figures


def available(name, boomer_python):
    """None when ``name`` can run, else the message explaining why it is skipped."""
    if name == "lightgbm":
        import importlib.util
        if importlib.util.find_spec("lightgbm") is None:
            return "LightGBM skipped: lightgbm is not installed (pip install lightgbm)."
    if name == "boomer":
        check = subprocess.run([boomer_python, "-c", "import mlrl.boosting, sklearn"],
                               capture_output=True, text=True, check=False)
        if check.returncode != 0:
            return (f"BOOMER skipped: mlrl-boomer is not importable under {boomer_python} "
                    "(pip install mlrl-boomer, in a virtualenv of its own: --boomer-python "
                    "or BOOMER_PYTHON; see benchmarks/requirements.txt).")
    return None


def _memory_allows(n_rows):
    """10^7 x 20 float64 is 1.5 GiB; a fitter holds a few copies: ask for 10x."""
    need = n_rows * N_FEATURES * 8 * 10
    if psutil is not None:
        have = psutil.virtual_memory().available
    else:
        with open("/proc/meminfo") as meminfo:
            have = next(int(l.split()[1]) * 1024 for l in meminfo if l.startswith("MemAvailable"))
    return have >= need, need, have


def _header(args, fitters, boomer_python):
    import platform
    from importlib import metadata
    print(f"bench_scale.py: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, "
          f"{platform.node()}, {os.cpu_count()} cores, nice {os.nice(0)}, "
          f"--threads {args.threads}, --timeout {args.timeout:.0f} s")
    versions = []
    for dist in ("rulebook", "numpy", "pandas", "scikit-learn", "numba", "lightgbm"):
        try:
            versions.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            pass
    print("versions: " + ", ".join(versions)
          + (f"; BOOMER under {boomer_python}" if "boomer" in fitters else ""))
    try:
        head = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=False).stdout.strip()
        print(f"git HEAD {head}")
    except OSError:
        pass
    print(f"data: make_classification, {N_FEATURES} numeric features (10 informative, "
          f"4 redundant), random_state={args.seed}; {N_RULES} rules / boosting rounds")


def table(args):
    rows = list(args.rows)
    if any(n > ROWS[-1] for n in rows) and not args.ten_million:
        sys.exit("more than 10^6 rows only with --ten-million")
    if args.ten_million and TEN_MILLION not in rows:
        rows.append(TEN_MILLION)
    fitters = [f for f in FITTERS if f in args.learners]
    boomer_python = args.boomer_python
    _header(args, fitters, boomer_python)
    for name in list(fitters):
        message = available(name, boomer_python)
        if message:
            print(message)
            fitters.remove(name)
    print()
    print(f"{'fitter':<11}{'rows':>10}{'fit s':>10}{'base MiB':>10}{'peak MiB':>10}"
          f"{'fit adds':>10}{'predict s':>11}{'AUC':>7}{'rules':>6}  version", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
        warm_X, warm_y = make_table(max(WARM_FIT_ROWS, WARM_PREDICT_ROWS), args.seed + 1)
        warm = {"warm_data": str(Path(tmp) / "warm_X.npy"),
                "warm_target": str(Path(tmp) / "warm_y.npy")}
        np.save(warm["warm_data"], warm_X)
        np.save(warm["warm_target"], warm_y)
        for n_rows in rows:
            if n_rows > ROWS[-1]:
                ok, need, have = _memory_allows(n_rows)
                if not ok:
                    print(f"{n_rows} rows skipped: about {need / 2**30:.0f} GiB wanted, "
                          f"{have / 2**30:.1f} GiB available")
                    continue
            X, y = make_table(n_rows, args.seed)
            paths = {"data": str(Path(tmp) / "X.npy"), "target": str(Path(tmp) / "y.npy")}
            np.save(paths["data"], X)
            np.save(paths["target"], y)
            del X, y
            for name in fitters:
                python = boomer_python if name == "boomer" else sys.executable
                f = run_child(python, {"fitter": name, "threads": args.threads, **paths, **warm},
                              args.timeout)
                results[name, n_rows] = f
                _print_line(name, n_rows, f)
    _summary(args, fitters, rows, results)


def _peak(f):
    if "peak" not in f and not f.get("sampled_peak"):
        return None
    return max(f.get("peak", 0), f.get("sampled_peak", 0)) / MIB


def _cell(f, key, digits=2):
    if key in f:
        return f"{f[key]:.{digits}f}"
    state = f["state"]
    if state.startswith("timeout"):
        if key == "fit" and "fit" not in f and "(fit)" in state:
            return "timeout"
        if key == "predict" and "(predict)" in state:
            return "timeout"
        return "-"
    return "failed" if state.startswith("failed") else "-"


def _print_line(name, n_rows, f):
    peak = _peak(f)
    base = f.get("base", 0) / MIB
    peak_text = f"{peak:.0f}" if peak is not None else "-"
    adds = f"{peak - base:.0f}" if peak is not None and "base" in f else "-"
    auc = f"{f['auc']:.3f}" if "auc" in f else "-"
    rules = str(f.get("rules")) if f.get("rules") is not None else "-"
    print(f"{name:<11}{n_rows:>10}{_cell(f, 'fit'):>10}{base:>10.0f}{peak_text:>10}{adds:>10}"
          f"{_cell(f, 'predict'):>11}{auc:>7}{rules:>6}  {f.get('version', '')}", flush=True)
    if f["state"].startswith("failed"):
        print(f"  {name} at {n_rows} rows {f['state']}", flush=True)


def _fit_seconds(results, name, n_rows, timeout):
    """``(seconds, exact)``: a timed-out fit counts as ``timeout`` seconds, a lower bound."""
    f = results.get((name, n_rows))
    if f is None:
        return None, True
    if "fit" in f:
        return f["fit"], True
    if "(fit)" in f["state"]:
        return timeout, False
    return None, True


def _ratio(num, den, target, label):
    """One line: the ratio, its target, and whether it is met."""
    (a, a_exact), (b, b_exact) = num, den
    if a is None or b is None:
        print(f"  {label:<52}{'n/a':>10}   target <= {target:g}  (not measured)")
        return
    value = a / b
    if a_exact and b_exact:
        text, verdict = f"{value:.2f}", "met" if value <= target else "NOT met"
    elif not a_exact and b_exact:
        text = f">= {value:.2f}"
        verdict = "NOT met" if value > target else "unknown (timeout)"
    elif a_exact and not b_exact:
        text = f"<= {value:.2f}"
        verdict = "met" if value <= target else "unknown (timeout)"
    else:
        text, verdict = "?", "unknown (timeouts)"
    print(f"  {label:<52}{text:>10}   target <= {target:g}  {verdict}")


def _summary(args, fitters, rows, results):
    measured = [n for n in rows if any((name, n) in results for name in fitters)]
    if not measured:
        return
    print("\nfit seconds (wall clock)")
    print(f"{'fitter':<11}" + "".join(f"{n:>12}" for n in measured))
    for name in fitters:
        print(f"{name:<11}" + "".join(f"{_cell(results[name, n], 'fit'):>12}"
                                      if (name, n) in results else f"{'-':>12}" for n in measured))
    print("\npeak RSS MiB (whole child process: Python, libraries, the table, the fit)")
    print(f"{'fitter':<11}" + "".join(f"{n:>12}" for n in measured))
    for name in fitters:
        cells = []
        for n in measured:
            peak = _peak(results[name, n]) if (name, n) in results else None
            cells.append(f"{peak:>12.0f}" if peak is not None else f"{'-':>12}")
        print(f"{name:<11}" + "".join(cells))
    print("\npredict_proba seconds on the training rows")
    print(f"{'fitter':<11}" + "".join(f"{n:>12}" for n in measured))
    for name in fitters:
        print(f"{name:<11}" + "".join(f"{_cell(results[name, n], 'predict'):>12}"
                                      if (name, n) in results else f"{'-':>12}" for n in measured))

    at = 1_000_000 if 1_000_000 in measured else max(measured)
    t = lambda name, n=at: _fit_seconds(results, name, n, args.timeout)
    print(f"\nratios at {at} rows (targets of the issue; printed, not asserted)")
    _ratio(t("greedy"), t("lightgbm"), TARGETS["greedy_vs_lightgbm"], "greedy fit / LightGBM fit")
    _ratio(t("greedy"), t("boomer"), TARGETS["greedy_vs_boomer"], "greedy fit / BOOMER fit")
    _ratio(t("orthogonal"), t("greedy"), TARGETS["orthogonal_vs_greedy"],
           "orthogonal fit / greedy fit")
    if 100_000 in measured and at > 100_000:
        factor = at / 100_000
        target = TARGETS["orthogonal_growth"] * factor / 10
        for name in ("orthogonal", "greedy", "optimal"):
            _ratio(t(name), t(name, 100_000), target,
                   f"{name} fit growth, 10^5 -> {at} rows ({factor:g}x rows)")
    for name in ("greedy", "optimal", "orthogonal"):
        f = results.get((name, at), {})
        _ratio(_predict(f), _predict(results.get(("lightgbm", at), {})),
               TARGETS["predict_vs_lightgbm"], f"{name} predict / LightGBM predict")
    for name in RULEBOOK:
        if (name, at) not in results:
            continue
        peak = _peak(results[name, at])
        state = results[name, at]["state"]
        if peak is None:
            print(f"  {name + ' peak RSS MiB':<52}{'n/a':>10}   target <= {GIB_MIB:g}")
            continue
        partial = "" if "fit" in results[name, at] else " (at the timeout: a lower bound)"
        verdict = ("met" if peak <= GIB_MIB else "NOT met") if not partial else (
            "NOT met" if peak > GIB_MIB else f"unknown ({state})")
        print(f"  {name + ' peak RSS MiB':<52}{peak:>10.0f}   target <= {GIB_MIB:g}  "
              f"{verdict}{partial}")


def _predict(f):
    return (f["predict"], True) if "predict" in f else (None, True)


# --------------------------------------------------------------------------
# --profile


def _key(function):
    code = function.__code__
    return code.co_filename, code.co_firstlineno, code.co_name


def _phases():
    """``[(phase, [(function, callers or None, sign)])]``: a phase's seconds are the
    signed sum of the functions' cumulative times (only the calls from
    ``callers`` when given). Each function is counted in one phase only, so
    the phases add up to at most the fit (the rest is "other")."""
    from rulebook import (
        binning,
        boosting,
        corrective,
        estimators,
        greedy,
        losses,
        orthogonal,
        search,
        shortening,
        weight_updates,
    )
    loop = [boosting.fit_boosting]
    bnb = orthogonal.branch_and_bound
    return [
        ("binning (Binner.fit_transform)", [(binning.Binner.fit_transform, None, 1)]),
        ("gradients (loss.gradient_hessian in the loop)",
         [(losses.LogisticLoss.gradient_hessian, loop, 1)]),
        ("channels: projected gradient + basis (orthogonal)",
         [(orthogonal.ChannelProblem.orthogonal, None, 1)]),
        ("histograms (build + subtraction)",
         [(search.SearchProblem.histograms, None, 1),
          (search.SearchProblem.child_histograms, None, 1),
          (search.SearchProblem.histograms, [search.SearchProblem.child_histograms], -1),
          (orthogonal.ChannelProblem.histograms, None, 1)]),
        ("scan (best refinements)",
         [(search.SearchProblem.best_refinements, None, 1),
          (orthogonal.ChannelProblem.values, None, 1)]),
        ("atoms: merging equal rows (orthogonal)", [(orthogonal._atoms, None, 1)]),
        ("branch and bound kernel (hist+scan+bound, orthogonal)",
         [(bnb, None, 1), (orthogonal._atoms, [bnb], -1),
          (search.SearchProblem.refine, [bnb], -1)]),
        ("coverage update (split rows / extent / basis)",
         [(search.SearchProblem.split, [greedy.greedy_search, orthogonal._child], 1),
          (search.SearchProblem.refine, [bnb], 1),
          (orthogonal.OrthogonalRounds.added, None, 1)]),
        ("shortening (shortest equivalent query)", [(shortening.shortened, None, 1)]),
        ("rule weight + raw scores (stagewise)", [(weight_updates.StagewiseUpdate.add, None, 1)]),
        ("corrective re-fit (corrective_weights)",
         [(corrective.corrective_weights, [weight_updates.CorrectiveUpdate.add], 1)]),
        ("raw scores after the re-fit (corrective)",
         [(weight_updates.CorrectiveUpdate.add, None, 1),
          (corrective.corrective_weights, [weight_updates.CorrectiveUpdate.add], -1)]),
        ("training loss for history_", [(losses.LogisticLoss.loss, loop, 1)]),
        ("input checks (validate_data)",
         [(estimators.validate_data, None, 1)]),
    ]


def _predict_phases():
    from rulebook import _predict, _validation
    kernel = _predict._decision_function_kernel
    return [
        ("input checks (check_prediction_frame)", [(_validation.check_prediction_frame, None, 1)]),
        ("encode the used columns", [(_predict.encode, None, 1)]),
        ("scoring kernel (_score_rows)", [(kernel, None, 1), (_predict.encode, [kernel], -1)]),
        ("numpy path (small inputs)", [(_predict.decision_function_numpy, None, 1)]),
    ]


def _cumulative(stats, function, callers):
    entry = stats.stats.get(_key(function))
    if entry is None:
        return 0.0
    if callers is None:
        return entry[3]
    wanted = {_key(c) for c in callers}
    return sum(v[3] for k, v in entry[4].items() if k in wanted)


def _breakdown(stats, phases, total, title, other_label):
    print(f"  {title:<56}{'s':>8}{'%':>7}")
    accounted = 0.0
    for label, parts in phases:
        seconds = sum(sign * _cumulative(stats, fn, callers) for fn, callers, sign in parts)
        if seconds <= 0.0005:
            continue
        accounted += seconds
        print(f"  {label:<56}{seconds:>8.3f}{100 * seconds / total:>6.1f}%")
    other = total - accounted
    print(f"  {other_label:<56}{other:>8.3f}"
          f"{100 * other / total:>6.1f}%")
    print(f"  {'total (profiled)':<56}{total:>8.3f}{100.0:>6.1f}%")


def profile(args):
    import cProfile
    import io
    import pstats
    os.environ["NUMBA_NUM_THREADS"] = str(args.threads)
    import rulebook  # noqa: F401  (after NUMBA_NUM_THREADS)
    n_rows = args.profile_rows
    print(f"bench_scale.py --profile: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, nice {os.nice(0)}, numba threads {args.threads}, "
          f"{n_rows} rows x {N_FEATURES} features, n_rules={N_RULES}")
    X, y = make_table(n_rows, args.seed)
    frame = as_frame(X)
    warm_X, warm_y = make_table(max(WARM_FIT_ROWS, WARM_PREDICT_ROWS), args.seed + 1)
    for name in args.profile_learners:
        warm, _ = make_fitter(name, args.threads)
        warm.fit(as_frame(warm_X[:WARM_FIT_ROWS]), warm_y[:WARM_FIT_ROWS])
        warm.predict_proba(as_frame(warm_X[:WARM_PREDICT_ROWS]))
        model, _ = make_fitter(name, args.threads)
        fit_profile = cProfile.Profile()
        started = time.perf_counter()
        fit_profile.enable()
        model.fit(frame, y)
        fit_profile.disable()
        fit_seconds = time.perf_counter() - started
        predict_profile = cProfile.Profile()
        started = time.perf_counter()
        predict_profile.enable()
        model.predict_proba(frame)
        predict_profile.disable()
        predict_seconds = time.perf_counter() - started
        print(f"\n{name}: fit {fit_seconds:.2f} s under cProfile "
              f"({len(model.ensemble_.rules)} rules), predict_proba {predict_seconds:.3f} s")
        _breakdown(pstats.Stats(fit_profile), _phases(), fit_seconds, f"{name} fit, phase",
                   "other (the loop, history_, as_frame, Python)")
        _breakdown(pstats.Stats(predict_profile), _predict_phases(), predict_seconds,
                   f"{name} predict_proba ({n_rows} rows), phase",
                   "other (inverse link, Python)")
        if args.top:
            out = io.StringIO()
            pstats.Stats(fit_profile, stream=out).sort_stats("cumulative").print_stats(args.top)
            print(f"\n  {name} fit: top {args.top} functions by cumulative time")
            text = out.getvalue()
            start = text.find("   ncalls")
            print("\n".join("  " + line for line in text[start:].rstrip().splitlines()))


# --------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", nargs="+", type=int, default=list(ROWS))
    parser.add_argument("--ten-million", action="store_true",
                        help="also 10^7 rows, when the available memory allows (about 15 GiB)")
    parser.add_argument("--learners", nargs="+", default=list(FITTERS), choices=FITTERS,
                        help="fitters to run (rulebook learners and the peers lightgbm, boomer)")
    parser.add_argument("--threads", type=int, default=2,
                        help="numba threads, LightGBM n_jobs, BOOMER threads (default 2)")
    parser.add_argument("--timeout", type=float, default=600.0,
                        help="seconds before a fit (or its start-up, or its prediction) is "
                             "stopped (default 600)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boomer-python", default=os.environ.get("BOOMER_PYTHON", sys.executable),
                        help="interpreter with mlrl-boomer installed (env BOOMER_PYTHON; "
                             "default: this one)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one warm fit per learner; the per-phase breakdown")
    parser.add_argument("--profile-rows", type=int, default=100_000)
    parser.add_argument("--profile-learners", nargs="+", default=["greedy", "orthogonal"],
                        choices=RULEBOOK)
    parser.add_argument("--top", type=int, default=15,
                        help="--profile: also print this many functions by cumulative time")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
    elif args.profile:
        profile(args)
    else:
        table(args)


if __name__ == "__main__":
    main()
