"""Fit BOOMER (``mlrl-boomer``) with settings that mirror rulebook's greedy learner.

This module has two halves:

* ``prepare`` and ``run`` are called by ``bench_greedy.py`` in rulebook's
  interpreter: they turn a DataFrame into the float matrix BOOMER needs and
  start a child process.
* ``main`` runs in that child, under whatever interpreter has ``mlrl-boomer``
  installed. mlrl-boomer pins numpy/scipy/scikit-learn to narrow ranges
  (0.12.3: ``scikit-learn<1.8``, ``numpy<2.4``) that clash with rulebook's dev
  environment, so it usually lives in a virtualenv of its own. A separate
  process also keeps BOOMER's OpenMP threads and numba's threads from
  competing.

The child needs only numpy, scikit-learn and mlrl-boomer; pandas stays here.

References
----------
Rapp, M. et al. (2023). BOOMER — An algorithm for learning gradient boosted
multi-label classification rules. Software Impacts 17.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def boomer_params(task, n_rules, threads, binned):
    """Keyword arguments for ``BoomerClassifier`` / ``BoomerRegressor``.

    Every option that could make BOOMER do more (or less) work than rulebook's
    greedy learner is set explicitly, so a change of BOOMER's defaults cannot
    silently change the benchmark.
    """
    threading = f"true{{num_preferred_threads={threads}}}"
    params = dict(
        # ``max_rules`` counts BOOMER's default rule (its intercept): 1 + n_rules
        # is the same model size as rulebook's intercept + ``n_rules`` rules.
        default_rule="true",
        max_rules=n_rules + 1,
        rule_induction="top-down-greedy",  # unlimited conditions, min coverage 1
        head_type="single",
        shrinkage=1.0,  # no learning rate, like rulebook
        l1_regularization_weight=0.0,
        l2_regularization_weight=1.0,  # rulebook's reg_lambda=1.0
        statistic_format="dense",
        statistic_type="64-bit",  # rulebook's gradients are float64 (G_H_DTYPE)
        instance_sampling="none",
        feature_sampling="none",  # every rule refinement sees every feature, as in rulebook
        output_sampling="none",
        holdout="none",
        global_pruning="none",  # no early stopping
        rule_pruning="none",
        sequential_post_optimization="false",
        parallel_rule_refinement=threading,
        parallel_statistic_update=threading,
        parallel_prediction=threading,
        random_state=1,
    )
    if binned:
        # Bins per feature = bin_ratio * (distinct values), clipped to
        # [min_bins, max_bins]. rulebook (like scikit-learn's
        # HistGradientBoosting) keeps one bin per distinct value up to max_bins;
        # BOOMER requires bin_ratio < 1, so take the closest value (default 0.33).
        params["feature_binning"] = "equal-frequency{bin_ratio=0.999,min_bins=2,max_bins=255}"
    else:
        params["feature_binning"] = "none"  # exact: every distinct value is a cut point
    if task == "binary":
        params.update(
            loss="logistic-decomposable",
            label_binning="none",
            marginal_probability_calibration="none",  # isotonic calibration would add fit time
            joint_probability_calibration="none",
            binary_predictor="output-wise",
            probability_predictor="output-wise",
        )
    else:
        params["loss"] = "squared-error-decomposable"
    return params


def prepare(X):
    """DataFrame -> (float32 Fortran array, nominal column indices).

    BOOMER accepts only numbers. Nominal (non-numeric) columns are
    ordinal-encoded and declared nominal, so BOOMER tests ``x == v`` /
    ``x != v`` on them, as it would on the original labels. NaN is kept: BOOMER
    stores missing values per feature and leaves those rows out of every
    condition on that feature. This runs before the timer starts.
    """
    import pandas as pd

    columns, nominal = [], []
    for j, name in enumerate(X.columns):
        col = X[name]
        if pd.api.types.is_numeric_dtype(col):
            columns.append(col.to_numpy(dtype=np.float32, na_value=np.nan))
        else:
            codes, _ = pd.factorize(col)  # missing -> -1
            columns.append(np.where(codes < 0, np.nan, codes).astype(np.float32))
            nominal.append(j)
    return np.asfortranarray(np.column_stack(columns)), nominal


def run(python, X, y, nominal, task, n_rules, threads, repeat):
    """Time BOOMER in a child process; return ``{config: result}`` (see ``main``)."""
    config = dict(task=task, n_rules=n_rules, threads=threads, repeat=repeat, nominal=nominal)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, X=X, y=np.asarray(y))
        out = subprocess.run([python, __file__, str(data), json.dumps(config)],
                             capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"BOOMER child process failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fit_and_time(X, y, nominal, task, params, repeat):
    from mlrl.boosting.learners import BoomerClassifier, BoomerRegressor
    from sklearn.metrics import r2_score, roc_auc_score

    estimator = BoomerClassifier if task == "binary" else BoomerRegressor
    times = []
    # One untimed warm-up fit (page faults, lazy library loading), then `repeat`.
    for _ in range(repeat + 1):
        model = estimator(**params)
        start = time.perf_counter()
        # mlrl tests `if nominal_feature_indices:`, so a list, not an ndarray.
        model.fit(X, y, nominal_feature_indices=nominal)
        times.append(time.perf_counter() - start)
    if task == "binary":
        score = roc_auc_score(y, model.predict_proba(X)[:, 1])
    else:
        score = r2_score(y, model.predict(X).ravel())
    return dict(times=times[1:], score=float(score), n_rules=int(model.model_.get_num_used_rules()))


def main(data_path, config_json):
    config = json.loads(config_json)
    with np.load(data_path) as data:
        X, y = data["X"], data["y"]
    if config["task"] == "binary":
        y = y.astype(np.uint8)
    results = {}
    for name, binned in [("exact", False), ("binned", True)]:
        params = boomer_params(config["task"], config["n_rules"], config["threads"], binned)
        results[name] = _fit_and_time(X, y, config["nominal"], config["task"], params, config["repeat"])
    print(json.dumps(results))


if __name__ == "__main__":
    main(*sys.argv[1:])
