"""Run fastogb (PyPI ``fastogb``, Fan Yang, Oct 2026) as an outside peer.

fastogb is by an author of the orthogonal-boosting paper (Yang et al. 2024)
and implements both papers' searches with numba: the branch and bound over
core queries of Boley et al. (2021) (``search="exhaustive"`` with
``GradientBoostingObjectiveXGB``) and orthogonal gradient boosting
(``search="ogb"``, ``OrthogonalBoostingObjective``, ``FullyCorrective()``).

Like ``_realkd.py`` this module has two halves:

* ``run_optimal`` / ``run_orthogonal`` are called by ``bench_optimal.py`` and
  ``bench_orthogonal.py`` in rulebook's interpreter: they write the data as
  JSON (``_realkd.write_frame``) and start the child under fastogb's
  interpreter with a time limit and a memory cap (``_realkd.run_watched``).
* ``main`` runs in the child. fastogb 0.2.0 pins numba 0.66 (rulebook's
  environment has a newer one), so it gets a virtualenv of its own (see
  benchmarks/README.md); the child needs nothing from rulebook.

The child fits ``GeneralRuleBoostingEstimator`` itself: the estimator's
``fit`` is what is timed. To read each round's search counters, the
exhaustive search is ``CoreQueryTreeSearch`` with a ``run`` that records
``popped`` and ``created`` after the search (``search=`` accepts a search
class; nothing else changes). Each finished round is written as one JSON
line, as realkd's are, so the parent can re-run rulebook's search on the
same state.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import _realkd  # sibling module: write_frame, read_frame, run_watched, memory readings


# -- rulebook's interpreter --------------------------------------------------------
def default_python():
    """``FASTOGB_PYTHON``, else the first of ``~/fastogb-venv``, ``~/boomer-venv`` (the
    README's virtualenv for requirements.txt) and ``/work/venv-fastogb`` that imports fastogb."""
    if os.environ.get("FASTOGB_PYTHON"):
        return os.environ["FASTOGB_PYTHON"]
    candidates = [Path.home() / "fastogb-venv" / "bin" / "python",
                  Path.home() / "boomer-venv" / "bin" / "python",
                  Path("/work/venv-fastogb/bin/python")]
    found = (c for c in candidates if c.exists() and version(str(c)))
    return str(next(found, candidates[0]))


def version(python):
    """fastogb's version under ``python``, or None if it cannot be imported."""
    code = "from importlib.metadata import version; import fastogb; print(version('fastogb'))"
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _run(python, mode, X, y, config, timeout, max_memory_mb, extra=None):
    with tempfile.TemporaryDirectory() as tmp:
        data, out = Path(tmp) / "data.json", Path(tmp) / "out.jsonl"
        _realkd.write_frame(data, X, y)
        if extra is not None:
            (Path(tmp) / "extra.json").write_text(json.dumps(extra))
        with open(Path(tmp) / "stderr.txt", "w") as err:
            status, peak, wall = _realkd.run_watched(
                [python, __file__, mode, str(data), json.dumps(config), str(out),
                 str(Path(tmp) / "extra.json")], {**os.environ}, timeout, max_memory_mb,
                subprocess.DEVNULL, err)
        stderr = (Path(tmp) / "stderr.txt").read_text()
        lines = out.read_text().splitlines() if out.exists() else []
    records = [json.loads(line) for line in lines if line.endswith("}")]
    return status, peak, wall, records, stderr[-4000:]


def run_optimal(python, X, y, config, timeout, max_memory_mb):
    """fastogb's exhaustive boosting in a child; the dict ``_realkd.run`` returns.

    ``y`` is +-1 for the logistic loss. ``config``: ``loss``, ``reg``,
    ``max_col_attr`` (int or dict by column name), ``n_rules``, ``n_jobs``,
    and ``propositions``: None for fastogb's own (``max_col_attr``), or
    ``[column, op, value]`` triples to search exactly those.
    ``rounds`` are realkd-shaped records (``round``, ``seconds``,
    ``search_seconds``, ``popped``, ``created``, ``weight``, ``value``,
    ``query``, ``extent``); round 0 is the default rule (the intercept).
    ``header["propositions"]``: ``(column, op, value)`` of every proposition;
    ``header["extents"]``: ``(column, packed rows as hex)`` of the non-empty ones.
    """
    status, peak, wall, records, stderr = _run(python, "optimal", X, y, config, timeout,
                                               max_memory_mb)
    header = next((r for r in records if r.get("kind") == "header"), {})
    rounds = [r for r in records if r.get("kind") == "round"]
    fit = next((r for r in records if r.get("kind") == "fit"), {})
    if status == "finished" and fit:
        peak = fit["maxrss_mb"]
    return {"status": status, "rounds": rounds, "peak_mb": peak, "wall": wall, "header": header,
            "fit": fit, "stderr": stderr}


def run_orthogonal(python, X, y, splits, config, timeout, max_memory_mb):
    """fastogb's orthogonal boosting, one fit per split, in a child.

    ``splits``: list of ``(train, test)`` row index lists. Returns
    ``{"status", "splits", "stderr"}``; each split: ``fit_time``,
    ``complexity`` per round (rules + conditions, a column's interval
    counting as one condition, as rulebook counts), and the raw scores of
    the model after each round (round 0: the default rule) on the training
    and the test rows, for the parent to compute risks with rulebook's losses.
    """
    extra = [[list(map(int, train)), list(map(int, test))] for train, test in splits]
    status, _, _, records, stderr = _run(python, "orthogonal", X, y, config, timeout,
                                         max_memory_mb, extra)
    return {"status": status, "splits": [r for r in records if r.get("kind") == "split"],
            "stderr": stderr}


# -- the child: fastogb's interpreter --------------------------------------------------
def _as_input(X):
    """fastogb's input: an object matrix, the non-numeric columns declared categorical."""
    import pandas as pd

    categorical = [j for j, name in enumerate(X.columns)
                   if not pd.api.types.is_numeric_dtype(X[name]) or X[name].dtype == bool]
    values = X.to_numpy(dtype=object) if categorical else X.to_numpy(dtype=np.float64)
    return values, {"feature_names": [str(c) for c in X.columns], "categorical": categorical}


def _recording_search():
    from fastogb import CoreQueryTreeSearch

    class RecordingSearch(CoreQueryTreeSearch):
        """``search="exhaustive"``, recording each search's counters and seconds."""

        log = []

        def run(self):
            start = time.perf_counter()
            query = super().run()
            RecordingSearch.log.append({"search_seconds": time.perf_counter() - start,
                                        "popped": self.popped, "created": self.created,
                                        "pruned": self.pruned})
            return query

    return RecordingSearch


def _use_given_propositions(given):
    """Make fastogb's estimator search exactly ``given``: ``[column, op, value]`` triples.

    fastogb's own encoder (``max_col_attr=k``) takes ``np.quantile`` upper
    edges and keeps an edge that equals the column's minimum (titanic:
    ``SibSp<=0``), which realkd's ``pandas.qcut`` and rulebook's
    ``propositions=k`` leave out; with rulebook's propositions given, both
    search the same space. Only the propositions change: fastogb's context,
    search and objective are its own.
    """
    import fastogb.estimators
    from fastogb import KeyValueProposition, PropositionEncoder
    from fastogb.logic import constraint_from_op_string

    class GivenPropositions(PropositionEncoder):
        def numeric_propositions(self, column, index, name):
            return [KeyValueProposition(name, constraint_from_op_string(op, float(value)), index)
                    for key, op, value in given if key == name]

        def categorical_propositions(self, column, index, name):
            keep = {value for key, op, value in given if key == name and op == "=="}
            return [p for p in super().categorical_propositions(column, index, name)
                    if p.constraint.op == "==" and p.constraint.value in keep]

    fastogb.estimators.PropositionEncoder = GivenPropositions


def _extents(model):
    """``[column, packed bits as hex]`` of every non-empty proposition, as fastogb evaluates it."""
    matrix = np.asarray(model.context_matrix_, dtype=bool)
    return [[str(p.key), np.packbits(matrix[:, j]).tobytes().hex()]
            for j, p in enumerate(model.encoder_.propositions_) if matrix[:, j].any()]


def _optimal_estimator(config, search, search_params):
    from fastogb import GeneralRuleBoostingEstimator, GradientBoostingObjectiveXGB

    return GeneralRuleBoostingEstimator(
        num_rules=config["n_rules"], objective_function=GradientBoostingObjectiveXGB,
        loss=config["loss"], reg=float(config["reg"]), search=search,
        include_default_rule=True, max_col_attr=config["max_col_attr"],
        search_params=search_params, n_jobs=config.get("n_jobs", 1))


def _objective_values(model, y, reg, loss_name):
    """XGB objective of each round's query given the rules before it (fastogb's own g, h)."""
    from fastogb import loss_function

    loss = loss_function(loss_name)
    matrix = model.training_rule_matrix_
    weights = np.asarray([rule.y for rule in model.rules_], dtype=np.float64)
    values = []
    for t in range(1, matrix.shape[1]):
        scores = matrix[:, :t] @ weights[:t]
        g, h = loss.derivatives(y, scores) if hasattr(loss, "derivatives") else (
            loss.g(y, scores), loss.h(y, scores))
        extent = matrix[:, t].astype(bool)
        values.append(float(g[extent].sum() ** 2 / (2 * len(y) * (reg + h[extent].sum()))))
    return values


def optimal_main(data_path, config_json, out_path):
    config = json.loads(config_json)
    X, y = _realkd.read_frame(data_path)
    values, search_params = _as_input(X)
    y = y.to_numpy(dtype=np.float64)
    search = _recording_search()
    if config.get("propositions") is not None:
        _use_given_propositions(config["propositions"])
    out = open(out_path, "w", buffering=1)
    # Untimed warm-up, as the other libraries': as many rounds, single
    # propositions only, so that the numba kernels compile first.
    _optimal_estimator(config, search, {**search_params, "max_depth": 1}).fit(values, y)
    model = _optimal_estimator(config, search, search_params)
    start_mb, reset = _realkd.start_of_fit_mb()
    search.log.clear()
    start = time.perf_counter()
    model.fit(values, y)  # encoding, every search and weight: all timed
    seconds = time.perf_counter() - start
    peak = _realkd.peak_rss_mb()
    propositions = [[str(p.key), p.constraint.op, _plain(p.constraint.value)]
                    for p in model.encoder_.propositions_]
    out.write(json.dumps({"kind": "header", "propositions": propositions,
                          "extents": _extents(model), "start_mb": start_mb,
                          "peak_reset": reset}) + "\n")
    objective = _objective_values(model, y, float(config["reg"]), config["loss"])
    matrix = model.training_rule_matrix_
    for t, rule in enumerate(model.rules_):
        record = {"kind": "round", "round": t, "weight": float(rule.y), "query": str(rule.q),
                  "extent": np.flatnonzero(matrix[:, t]).tolist(),
                  "seconds": float(model.time_[t - 1]) if t else 0.0,
                  "value": objective[t - 1] if t else float("nan"),
                  "search_seconds": 0.0, "context_seconds": 0.0, "popped": 0, "created": 0}
        if t and t - 1 < len(search.log):
            record.update(search.log[t - 1])
        out.write(json.dumps(record) + "\n")
    out.write(json.dumps({"kind": "fit", "seconds": seconds, "maxrss_mb": peak,
                          "stopping_reason": str(model.stopping_reason_)}) + "\n")
    out.close()


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _orthogonal_estimator(config, search_params):
    from fastogb import FullyCorrective, GeneralRuleBoostingEstimator, OrthogonalBoostingObjective

    params = dict(search_params)
    if config.get("beam_width") is not None:
        params["beam_width"] = config["beam_width"]
    return GeneralRuleBoostingEstimator(
        num_rules=config["n_rules"], objective_function=OrthogonalBoostingObjective,
        weight_update_method=FullyCorrective(), loss=config["loss"], reg=float(config["reg"]),
        search="ogb", include_default_rule=True, max_col_attr=config.get("max_col_attr"),
        search_params=params, n_jobs=config.get("n_jobs", 1),
        objective_params=config.get("objective_params"))


def _complexity(ensemble):
    """Rules + conditions, the default rule left out; one condition per column (rulebook's count)."""
    rules = [rule for rule in ensemble if len(getattr(rule.q, "props", ()))]
    return len(rules) + sum(len({p.key for p in rule.q.props}) for rule in rules)


def orthogonal_main(data_path, config_json, out_path, splits_path):
    config = json.loads(config_json)
    X, y = _realkd.read_frame(data_path)
    values, search_params = _as_input(X)
    y = y.to_numpy(dtype=np.float64)
    splits = json.loads(Path(splits_path).read_text())
    out = open(out_path, "w", buffering=1)
    # Untimed warm-up on 300 rows of the first training split, 2 rules.
    sample = np.asarray(splits[0][0][:300])
    _orthogonal_estimator({**config, "n_rules": 2}, search_params).fit(values[sample], y[sample])
    for split, (train, test) in enumerate(splits):
        model = _orthogonal_estimator(config, search_params)
        start = time.perf_counter()
        model.fit(values[train], y[train])
        seconds = time.perf_counter() - start
        # history_: the ensemble after each round (weights as re-fitted then).
        stages = [model.history_[0][:1]] + list(model.history_) if model.history_ else []
        out.write(json.dumps({
            "kind": "split", "split": split, "fit_time": seconds,
            "stopping_reason": str(model.stopping_reason_),
            "complexity": [_complexity(stage) for stage in stages],
            "train_scores": [np.asarray(stage(values[train]), float).tolist() for stage in stages],
            "test_scores": [np.asarray(stage(values[test]), float).tolist() for stage in stages],
        }) + "\n")
    out.close()


if __name__ == "__main__":
    mode, data, config, out, extra = sys.argv[1:6]
    if mode == "optimal":
        optimal_main(data, config, out)
    else:
        orthogonal_main(data, config, out, extra)
