"""Compare rule learners by test score against number of rules.

The evaluation protocol of Boley et al. (2021), Section 4: repeated random
80/20 train/test splits; for each learner the test score of its models with
``0, 1, ..., k`` rules; summarised by the area under the score-versus-rules
curve (Table 1). :func:`compare_learners` returns the curves as one tidy
DataFrame (one row per learner, split and model size), ready for charts;
:func:`area_under_rules_curve` computes the Table 1 summary from it.

The same frame, with ``return_risk=True``, also serves the protocol of Yang
et al. (2024), Section 4: the test risk normalised by the risk of the
intercept-only model, against the complexity of the model (rules plus
conditions), averaged over the complexity levels ``1 .. 50`` by
:func:`area_under_complexity_curve` (their Table 5).

How a curve is made
-------------------
* Boosting estimators (``RuleBoostingRegressor``/``Classifier``) are fitted
  once per split with ``max_rules`` rounds; the ``k``-rule model is the
  model after round ``k``, from ``staged_ensembles()``. After stagewise
  updates that is ``ensemble_[:k]``; after corrective updates
  (``learner="orthogonal"``, ``weight_update="corrective"``) it is not, as
  every round re-fits the intercept and all weights. Each model is checked
  against the training loss the fit recorded for its round.
* Estimators with a regularisation path (``path_`` with an ``ensemble``
  column, as :class:`~rulebook.rulefit.RuleFitClassifier` and
  :class:`~rulebook.rulefit.RuleFitRegressor`) are also fitted once per
  split; the ``k``-rule model is the least regularised model on that path
  with exactly ``k`` rules. Sizes the path skips get no row; the area under
  the curve interpolates them, as in the paper (Section 4, Fig. 2).
  RuleFit's ``ensemble_[:k]`` is *not* used: its rules are ordered by
  importance, not fitted in rounds.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 4 and Table 1.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 4 and Table 5 (supplement).
"""

import numbers
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone, is_classifier
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    mean_poisson_deviance,
    r2_score,
    roc_auc_score,
)
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from sklearn.utils import check_random_state

from .losses import OutputWiseLoss, get_loss

__all__ = ["area_under_complexity_curve", "area_under_rules_curve", "compare_learners", "rules_curve"]

_METRICS = {"binary": "roc_auc", "regression": "r2", "poisson": "poisson_deviance",
            "multiclass": "accuracy", "multilabel": "micro_f1", "multioutput": "mean_r2"}
# Tasks whose splits keep each class's share (the target is one column of classes).
_STRATIFIED = ("binary", "multiclass")
_COLUMNS = ["learner", "split", "n_rules", "complexity", "score", "metric", "fit_time"]


def compare_learners(X, y, learners, *, task=None, n_splits=5, test_size=0.2, max_rules=None,
                     random_state=0, return_train_score=False, return_risk=False,
                     history_columns=(), n_jobs=None):
    """Test score against number of rules over repeated random splits.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), or (n_samples, n_outputs)
        A column of classes or numbers; or (tasks ``"multilabel"`` and
        ``"multioutput"``) a column per label or target.
    learners : dict of {str: estimator}
        Unfitted estimators whose fitted ``ensemble_`` is a
        :class:`~rulebook.rules.RuleEnsemble`; each is cloned per split.
    task : {"binary", "regression", "poisson", "multiclass", "multilabel", "multioutput"} or None, default=None
        Decides the score: ROC AUC (binary, from the raw scores), R^2
        (regression), mean Poisson deviance (poisson; *lower is better*),
        accuracy (multiclass: three or more classes, the most probable
        class of each row), micro-F1 (multilabel: an indicator matrix,
        labels of probability above 1/2) or the mean over the outputs of
        their R^2 (multioutput: a matrix of targets), all by scikit-learn.
        ``None`` infers it from the learners and ``y``: classifiers give
        ``"binary"``, ``"multiclass"`` for more than two classes,
        ``"multilabel"`` for a matrix; regressors with ``loss="poisson"``
        ``"poisson"``, other regressors ``"regression"``, both
        ``"multioutput"`` for a matrix.
    n_splits : int >= 1, default=5
        Random train/test splits (stratified for ``"binary"`` and
        ``"multiclass"``).
    test_size : float in (0, 1) or int, default=0.2
    max_rules : int >= 0 or None, default=None
        Largest model size scored. When set, it is also passed to each
        learner as ``n_rules`` (boosting) or ``max_rules`` (RuleFit) if the
        learner has that parameter.
    random_state : int, RandomState or None, default=0
        Seeds the splits and, for learners with ``random_state=None``, the
        learners (a seed per split, the same for every learner), so the
        whole comparison is reproducible. A learner's own ``random_state``
        is kept when set.
    return_train_score : bool, default=False
        Add a ``train_score`` column (same metric on the training split).
    return_risk : bool, default=False
        Add ``risk``, the mean test loss under the loss the model was fitted
        with (logistic, squared or Poisson, as in :mod:`rulebook.losses`),
        (with several outputs the loss of the fit: the multinomial loss, or
        the sum over outputs of their mean losses),
        and ``normalised_risk``, that risk divided by the test risk of the
        intercept-only model fitted on the training split (the "offset
        rule" normalisation of Yang et al. 2024, Section 4; 1 means no
        better than a constant), and ``zero_normalised_risk``, the risk
        divided by that of the raw score 0 (mean 0 for squared loss,
        probability 1/2 for logistic, mean 1 for Poisson), which is the
        reference of the code published with Yang et al.'s Table 5 (see
        the Notes). With ``return_train_score`` also
        ``train_normalised_risk``, on the training split.
    history_columns : sequence of str, default=()
        Columns of a boosting estimator's ``history_`` to copy onto its
        rows: the row with ``n_rules=k`` gets round ``k`` (round 0 is the
        intercept). For example ``("certified",)`` records whether each
        round of the optimal learner was proved optimal. Learners without
        a ``history_`` holding the column (RuleFit) get missing values.
    n_jobs : int or None, default=None
        Fits (learners x splits) run in parallel by joblib; None is 1, -1
        every core. Under ``joblib.parallel_config(backend="dask")`` they
        run on a Dask cluster (docs: "Large data with Dask"). The frame is
        the same whatever ``n_jobs``, but ``fit_time``, each fit's own wall
        time, grows when fits share cores.

    Returns
    -------
    DataFrame
        One row per learner, split and model size: ``learner`` (str),
        ``split`` (int64, 0-based), ``n_rules`` (int64, rules besides the
        intercept), ``complexity`` (int64, rules plus conditions, see
        :attr:`RuleEnsemble.complexity`), ``score`` (float64), ``metric``
        (str: ``"roc_auc"``, ``"r2"``, ``"poisson_deviance"``,
        ``"accuracy"``, ``"micro_f1"`` or ``"mean_r2"``),
        ``fit_time`` (float64, seconds of the single fit that produced the
        split's curve, repeated on its rows) and optionally
        ``train_score`` (float64), ``risk``, ``normalised_risk``,
        ``zero_normalised_risk``, ``train_normalised_risk`` (float64) and
        the ``history_columns``.

    Raises
    ------
    ValueError
        Empty ``learners``, ``n_splits`` not an int >= 1, a ``random_state``
        that cannot seed a RandomState, an unknown or uninferable ``task``,
        a ``task`` that does not fit ``y`` (``"binary"`` for more than two
        classes, a task of one output for a matrix, or the reverse: the
        message names the task to use), a ``history_columns`` name that
        clashes with a column above.
    TypeError
        A fitted learner without a RuleEnsemble ``ensemble_``.

    Notes
    -----
    Yang et al. (2024) write that risks are normalised "by the risk of the
    rule ensemble with a single empty offset rule". The analysis code
    published with the paper (github.com/fyan102/FCOGB,
    ``analysis/analysis.py``) divides by a per-dataset constant that
    matches the risk of the raw score 0 (e.g. the mean of ``y^2`` for
    squared loss, one bit for logistic loss), which makes their regression
    figures smaller than the offset-normalised ones by the factor
    ``var(y) / mean(y^2)``. Both are returned; compare like with like.

    Examples
    --------
    >>> from rulebook import RuleBoostingClassifier
    >>> from rulebook.compare import compare_learners, area_under_rules_curve
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic(dropna=True)
    >>> frame = compare_learners(X, y, {"greedy": RuleBoostingClassifier()},
    ...                          n_splits=2, max_rules=3)
    >>> frame.columns.tolist()
    ['learner', 'split', 'n_rules', 'complexity', 'score', 'metric', 'fit_time']
    >>> sorted(frame.n_rules.unique().tolist())
    [0, 1, 2, 3]
    """
    if not learners:
        raise ValueError("learners is empty; pass a dict of name -> unfitted estimator.")
    if (isinstance(n_splits, (bool, np.bool_)) or not isinstance(n_splits, numbers.Integral)
            or n_splits < 1):
        raise ValueError(f"n_splits must be an int >= 1; got {n_splits!r}.")
    seeds = _split_seeds(random_state, n_splits)
    y_array = y.to_numpy() if isinstance(y, (pd.Series, pd.DataFrame)) else np.asarray(y)
    if y_array.ndim == 2 and y_array.shape[1] == 1:
        y_array = y_array.ravel()
    task = _infer_task(learners, y_array) if task is None else task
    if task not in _METRICS:
        raise ValueError(f"task must be one of {sorted(_METRICS)} or None; got {task!r}.")
    _check_task(task, y_array)
    history_columns = [history_columns] if isinstance(history_columns, str) else list(history_columns)
    columns = _COLUMNS + (["train_score"] if return_train_score else [])
    if return_risk:
        columns += ["risk", "normalised_risk", "zero_normalised_risk"] + (
            ["train_normalised_risk"] if return_train_score else [])
    clashes = sorted(set(history_columns) & set(columns))
    if clashes:
        raise ValueError(f"history_columns {clashes} clash with the frame's own columns.")
    splitter = (StratifiedShuffleSplit if task in _STRATIFIED else ShuffleSplit)(
        n_splits=n_splits, test_size=test_size, random_state=random_state)
    fits = [(name, learner, split, train, test)
            for split, (train, test) in enumerate(splitter.split(np.zeros((len(y_array), 1)),
                                                                 y_array))
            for name, learner in learners.items()]
    options = {"task": task, "max_rules": max_rules, "return_train_score": return_train_score,
               "return_risk": return_risk, "history_columns": history_columns}
    rows = []
    for fit_rows in Parallel(n_jobs=n_jobs)(
            delayed(_scored_fit)(name, _configure(clone(learner), max_rules, int(seeds[split])),
                                 split, X, y_array, train, test, **options)
            for name, learner, split, train, test in fits):
        rows.extend(fit_rows)
    frame = pd.DataFrame(rows, columns=columns + history_columns)
    floats = ["score", "fit_time"] + [c for c in columns if c.endswith("risk")]
    return frame.astype({"split": "int64", "n_rules": "int64", "complexity": "int64",
                         **dict.fromkeys(floats, "float64")})


def _scored_fit(name, estimator, split, X, y, train, test, *, task, max_rules,
                return_train_score, return_risk, history_columns):
    """Fit ``estimator`` on the ``train`` rows; the frame's rows of its curve."""
    X_train, X_test = _take(X, train), _take(X, test)
    start = time.perf_counter()
    estimator.fit(X_train, y[train])
    fit_time = time.perf_counter() - start
    history = _history_values(estimator, history_columns)
    curve = _checked_round_models(estimator, rules_curve(estimator, max_rules), X_train, y[train])
    rows = []
    for n_rules, ensemble in curve:
        row = {
            "learner": name, "split": split, "n_rules": n_rules,
            "complexity": ensemble.complexity,
            "score": _score(task, estimator, ensemble, X_test, y[test]),
            "metric": _METRICS[task], "fit_time": fit_time,
        }
        if return_train_score:
            row["train_score"] = _score(task, estimator, ensemble, X_train, y[train])
        if return_risk:
            row.update(_risks(estimator, ensemble, X_train, y[train], X_test, y[test],
                              return_train_score))
        for column in history_columns:
            row[column] = history[column].get(n_rules, np.nan)
        rows.append(row)
    return rows


def rules_curve(estimator, max_rules=None):
    """The models of a fitted estimator by number of rules.

    Parameters
    ----------
    estimator : fitted estimator with ``ensemble_``
    max_rules : int or None
        Largest size returned.

    Returns
    -------
    list of (int, RuleEnsemble)
        By increasing size. From ``path_`` (least regularised model of each
        size) when the estimator has one, else the model after each boosting
        round (``staged_ensembles``; ``ensemble_[:k]`` for other ensembles),
        ``k = 0 .. len(ensemble_)``.

    Raises
    ------
    TypeError
        If the estimator has no fitted ``ensemble_``.
    """
    ensemble = getattr(estimator, "ensemble_", None)
    if ensemble is None or not hasattr(ensemble, "rules"):
        raise TypeError(
            f"{type(estimator).__name__} has no fitted ensemble_ (a RuleEnsemble); "
            "compare_learners needs rulebook estimators."
        )
    path = getattr(estimator, "path_", None)
    if isinstance(path, pd.DataFrame) and "ensemble" in path:
        # The path also holds the strengths beyond the estimator's own cap.
        cap = getattr(estimator, "max_rules", None)
        max_rules = cap if max_rules is None else max_rules
        # Least regularised model of each size: the last one in decreasing alpha.
        last = path.sort_values("alpha", ascending=False, kind="stable").groupby("n_rules").tail(1)
        curve = [(int(k), e) for k, e in zip(last["n_rules"], last["ensemble"])]
    elif hasattr(estimator, "staged_ensembles") and "weights" in getattr(estimator, "history_", ()):
        # The model after each round, also after corrective re-fits.
        curve = list(enumerate(estimator.staged_ensembles()))
    else:
        curve = [(k, ensemble[:k]) for k in range(len(ensemble) + 1)]
    curve = sorted(curve, key=lambda item: item[0])
    return [(k, e) for k, e in curve if max_rules is None or k <= max_rules]


def area_under_rules_curve(frame, max_rules=10, by_split=False):
    """Mean test score over models of 1 to ``max_rules`` rules (Boley et al. 2021, Table 1).

    For each learner and split the score is linearly interpolated at every
    size ``1 .. max_rules`` from the sizes present (so sizes a RuleFit path
    skips are interpolated, as in the paper's Fig. 2) and averaged; beyond
    the largest size present the last score is carried forward (a boosting
    run that stopped early keeps its final score). The result is the area
    under the score-versus-rules curve divided by ``max_rules``.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`compare_learners`.
    max_rules : int >= 1, default=10
    by_split : bool, default=False
        Return one value per learner and split instead of the mean over
        splits.

    Returns
    -------
    Series of float64
        Indexed by ``learner`` (or by ``learner`` and ``split``), named
        after the metric. For ``"poisson_deviance"`` lower is better.

    Raises
    ------
    ValueError
        If ``max_rules < 1`` or the frame lacks the needed columns.
    """
    if max_rules < 1:
        raise ValueError(f"max_rules must be >= 1; got {max_rules}.")
    missing = {"learner", "split", "n_rules", "score"} - set(frame.columns)
    if missing:
        raise ValueError(f"frame lacks columns {sorted(missing)}; pass the output of compare_learners.")
    sizes = np.arange(1, max_rules + 1)
    values = {}
    for (learner, split), group in frame.groupby(["learner", "split"], sort=False):
        curve = group.groupby("n_rules")["score"].mean()
        scores = np.interp(sizes, curve.index.to_numpy(float), curve.to_numpy())
        values[(learner, split)] = float(scores.mean())
    index = pd.MultiIndex.from_tuples(list(values), names=["learner", "split"])
    name = frame["metric"].iloc[0] if "metric" in frame and len(frame) else "score"
    result = pd.Series(list(values.values()), index=index, dtype=np.float64, name=name)
    return result if by_split else result.groupby(level="learner", sort=False).mean()


def area_under_complexity_curve(frame, max_complexity=50, value="normalised_risk", by_split=False):
    """Mean of a curve over the complexity levels 1 to ``max_complexity`` (Yang et al. 2024, Table 5).

    Yang et al. average the normalised risk "over cognitive complexities
    between 1 and 50". At complexity level ``c`` the model counted is the
    largest one (most rules) of complexity at most ``c`` -- what boosting
    until the budget ``c`` is spent gives; below the first rule's
    complexity that is the intercept-only model (complexity 0). The
    result is the mean of that step function over ``c = 1 .. max_complexity``.

    Parameters
    ----------
    frame : DataFrame
        Output of :func:`compare_learners` (with ``return_risk=True`` for
        the default ``value``).
    max_complexity : int >= 1, default=50
    value : str, default="normalised_risk"
        Column averaged, e.g. ``"normalised_risk"``, ``"risk"`` or
        ``"score"``.
    by_split : bool, default=False
        One value per learner and split instead of the mean over splits.

    Returns
    -------
    Series of float64
        Indexed by ``learner`` (or ``learner`` and ``split``), named
        ``value``. NaN for a learner and split whose smallest model is
        already more complex than ``c = 1`` would allow and that has no
        intercept-only row (this does not happen for boosting).

    Raises
    ------
    ValueError
        If ``max_complexity < 1`` or the frame lacks the needed columns.

    Notes
    -----
    Yang et al. choose ``reg_lambda`` per model size by cross-validation,
    so their complexity need not grow with the number of rules; for a
    fixed ``reg_lambda`` it does, and "largest model within the budget"
    is the last one of the boosting run that fits.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"learner": "a", "split": 0, "n_rules": [0, 1, 2],
    ...                       "complexity": [0, 2, 5], "normalised_risk": [1.0, 0.5, 0.25]})
    >>> float(area_under_complexity_curve(frame, max_complexity=6)["a"])  # (1 + 0.5*3 + 0.25*2) / 6
    0.5
    """
    if isinstance(max_complexity, bool) or not isinstance(max_complexity, (int, np.integer)) \
            or max_complexity < 1:
        raise ValueError(f"max_complexity must be an int >= 1; got {max_complexity!r}.")
    missing = {"learner", "split", "n_rules", "complexity", value} - set(frame.columns)
    if missing:
        raise ValueError(f"frame lacks columns {sorted(missing)}; pass the output of "
                         "compare_learners (return_risk=True for the risk columns).")
    levels = np.arange(1, max_complexity + 1)
    values = {}
    for (learner, split), group in frame.groupby(["learner", "split"], sort=False):
        group = group.sort_values("n_rules", kind="stable")
        complexity = group["complexity"].to_numpy()
        curve = group[value].to_numpy(np.float64)
        # For each level, the last model (most rules) whose complexity fits.
        fits = complexity[None, :] <= levels[:, None]
        last = np.where(fits.any(axis=1), fits.shape[1] - 1 - np.argmax(fits[:, ::-1], axis=1), -1)
        picked = np.where(last >= 0, curve[np.maximum(last, 0)], np.nan)
        values[(learner, split)] = float(picked.mean())
    index = pd.MultiIndex.from_tuples(list(values), names=["learner", "split"])
    result = pd.Series(list(values.values()), index=index, dtype=np.float64, name=value)
    return result if by_split else result.groupby(level="learner", sort=False).mean()


def _checked_round_models(estimator, curve, X_train, y_train):
    """The model after each boosting round, checked against ``history_["train_loss"]``.

    ``curve`` comes from :func:`rules_curve`: the staged models
    (``staged_ensembles()``, the weights recorded in each round) for
    rulebook's boosting estimators, ``ensemble_[:k]`` for other boosting
    estimators. Each must reproduce the training loss the fit recorded for
    round ``k``. One that does not is an estimator whose ``ensemble_``
    carries re-fitted weights its history does not record; since a
    corrective update (Yang et al. 2024, eq. 7) makes the model after round
    ``k`` the jointly optimal intercept and weights of the first ``k``
    rules, those are re-fitted here on the training split and checked
    again. Estimators without that history (RuleFit) pass unchecked.

    Raises
    ------
    RuntimeError
        If neither model reproduces the recorded training loss.
    """
    history = getattr(estimator, "history_", None)
    if isinstance(getattr(estimator, "path_", None), pd.DataFrame) or not (
            isinstance(history, pd.DataFrame) and "train_loss" in history):
        return curve
    recorded = history["train_loss"].to_dict()
    loss = _fitted_loss(estimator.ensemble_)
    y_train = _encode(estimator, y_train)
    checked = []
    for n_rules, ensemble in curve:
        if n_rules not in recorded:
            checked.append((n_rules, ensemble))
            continue
        if not _reproduces(loss, ensemble, X_train, y_train, recorded[n_rules]):
            # The re-fit below is of one output; staged_ensembles() of several
            # outputs records every round's heads, which must reproduce alone.
            if ensemble.outputs is None:
                ensemble = _corrective_refit(loss, ensemble, X_train, y_train, estimator.reg_lambda)
            if not _reproduces(loss, ensemble, X_train, y_train, recorded[n_rules]):
                raise RuntimeError(
                    f"{type(estimator).__name__}: neither the model of round {n_rules} (staged_ensembles(), "
                    f"else the first {n_rules} rules of ensemble_) nor its re-fitted weights reproduce "
                    f"the training loss recorded for round {n_rules}; "
                    "compare_learners cannot rebuild the model of that size.")
        checked.append((n_rules, ensemble))
    return checked


def _reproduces(loss, ensemble, X, y, recorded):
    value = loss.loss(y, ensemble.decision_function(X), None)
    return bool(np.isclose(value, recorded, rtol=1e-6, atol=1e-12))


def _corrective_refit(loss, ensemble, X, y, reg_lambda):
    from dataclasses import replace

    from .corrective import corrective_weights

    Q = ensemble.query_matrix(X).astype(np.float64)
    fit = corrective_weights(loss, y, Q, np.ones(len(y)), float(reg_lambda))
    rules = tuple(replace(rule, weight=float(w)) for rule, w in zip(ensemble.rules, fit.weights))
    return replace(ensemble, intercept=float(fit.intercept), rules=rules)


def _history_values(estimator, columns):
    history = getattr(estimator, "history_", None)
    return {column: (history[column].to_dict()
                     if isinstance(history, pd.DataFrame) and column in history else {})
            for column in columns}


def _fitted_loss(ensemble):
    """The loss the boosting loop fitted (and recorded in ``train_loss``):
    with several outputs other than classes, the loss of each output summed."""
    loss = get_loss(ensemble.loss)
    if ensemble.outputs is not None and ensemble.loss != "multinomial":
        return OutputWiseLoss(loss)
    return loss


def _encode(estimator, y):
    """``y`` coded as the fitted loss reads it (as the estimator's fit codes it)."""
    ensemble = estimator.ensemble_
    if ensemble.loss == "multinomial":  # one-hot, columns in the order of the classes
        return (np.asarray(y)[:, None] == np.asarray(ensemble.outputs, dtype=object)[None, :]).astype(
            np.float64)
    if ensemble.loss == "logistic" and ensemble.outputs is not None:  # labels +1 / -1
        return np.where(np.asarray(y, dtype=np.float64) > 0, 1.0, -1.0)
    if is_classifier(estimator):
        # The logistic loss of rulebook.losses takes y in {-1, +1}.
        return np.where(y == estimator.classes_[1], 1.0, -1.0)
    return np.asarray(y, dtype=np.float64)


def _risks(estimator, ensemble, X_train, y_train, X_test, y_test, with_train):
    loss = _fitted_loss(ensemble)
    y_train, y_test = _encode(estimator, y_train), _encode(estimator, y_test)
    # The intercept-only ("offset rule") model fitted on the training split
    # (a score per output with several).
    # (The multinomial baseline takes weights; unit ones are no weights.)
    weights = None if ensemble.outputs is None else np.ones(len(y_train))
    offset = np.asarray(loss.baseline(y_train, weights), dtype=np.float64)
    constant = lambda value, n: np.tile(value, (n, 1)) if value.ndim else np.full(n, float(value))
    result = {}
    for prefix, X_part, y_part in (("", X_test, y_test),) + ((("train_", X_train, y_train),) if with_train else ()):
        risk = loss.loss(y_part, ensemble.decision_function(X_part), None)
        reference = loss.loss(y_part, constant(offset, len(y_part)), None)
        # A constant test target has zero reference risk: no ratio then.
        result[f"{prefix}normalised_risk"] = risk / reference if reference > 0 else np.nan
        if prefix == "":
            result["risk"] = risk
            zero = loss.loss(y_part, np.zeros_like(constant(offset, len(y_part))), None)
            result["zero_normalised_risk"] = risk / zero if zero > 0 else np.nan
    return result


def _infer_task(learners, y):
    """The task of the learners' kind (classifier, regressor, Poisson) and of ``y``."""
    kinds = set()
    for learner in learners.values():
        if is_classifier(learner):
            kinds.add("binary")
        else:
            kinds.add("poisson" if getattr(learner, "loss", None) == "poisson" else "regression")
    if len(kinds) != 1:
        raise ValueError(f"the learners disagree on the task ({sorted(kinds)}); pass task= explicitly.")
    kind = kinds.pop()
    if y.ndim == 2:
        return "multilabel" if kind == "binary" else "multioutput"
    if kind == "binary" and len(pd.unique(y)) > 2:
        return "multiclass"
    return kind


def _check_task(task, y):
    """Refuse a task that does not fit the shape of ``y``, naming the one that would."""
    matrix = task in ("multilabel", "multioutput")
    if y.ndim == 2 and not matrix:
        raise ValueError(f"task={task!r} scores one output; y has {y.shape[1]} columns (use "
                         "task='multilabel' for labels, 'multioutput' for targets).")
    if y.ndim != 2 and matrix:
        raise ValueError(f"task={task!r} needs a column per label or target; y has one column.")
    if task == "binary" and len(pd.unique(y)) > 2:
        raise ValueError(f"task='binary' scores two classes; y has {len(pd.unique(y))} (use "
                         "task='multiclass').")


def _split_seeds(random_state, n_splits):
    """A learner seed per split, drawn from ``random_state``."""
    try:
        return check_random_state(random_state).randint(2**31 - 1, size=n_splits)
    except (TypeError, ValueError):
        raise ValueError(f"random_state must be an int, a numpy RandomState or None; "
                         f"got {random_state!r}.") from None


def _configure(estimator, max_rules, seed):
    params = estimator.get_params(deep=False)
    updates = {}
    if max_rules is not None:
        for size_param in ("n_rules", "max_rules"):
            if size_param in params:
                # Boosting and RuleFit need at least one rule; the 0-rule model
                # (the intercept) is still scored.
                updates[size_param] = max(max_rules, 1)
                break
    if "random_state" in params and params["random_state"] is None:
        updates["random_state"] = seed
    return estimator.set_params(**updates)


def _take(X, rows):
    return X.iloc[rows] if isinstance(X, pd.DataFrame) else np.asarray(X)[rows]


def _score(task, estimator, ensemble, X, y):
    if task == "binary":
        return float(roc_auc_score(y == estimator.classes_[1], ensemble.decision_function(X)))
    if task == "multiclass":  # the most probable class, the first on ties as predict does
        classes = np.asarray(ensemble.outputs, dtype=object)
        return float(accuracy_score(y, classes[np.argmax(ensemble.decision_function(X), axis=1)]))
    if task == "multilabel":  # labels of probability above 1/2, as predict gives them
        predicted = (ensemble.decision_function(X) > 0).astype(np.int64)
        return float(f1_score(y, predicted, average="micro", zero_division=0))
    prediction = ensemble.predict(X)
    if task == "poisson":
        return float(mean_poisson_deviance(y, prediction))
    return float(r2_score(y, prediction))  # multioutput: the mean of the outputs' R^2
