"""The data behind rulebook's charts: tidy DataFrames, no Altair.

Each chart of :mod:`rulebook.charts` draws one of these frames; they are
public too (``score_curve_data``, ``pruning_data``, ...), for users who draw
with another library or want the numbers. Also the metrics the score
curves use (:func:`get_metric`) and the raw scores of a model by number of
rules.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._canonical import escape_unsafe
from ._chart_display import wrap_rule
from ._predict import term_contributions
from .explanations import output_positions
from .rules import RuleEnsemble

# Boley et al. (2021), Table 2: history column -> category label.
PRUNING_CATEGORIES = {
    "pruned_bound_immediate": "bound, immediate",
    "pruned_bound_propagated": "bound, propagated",
    "pruned_equivalence_immediate": "equivalence, immediate",
    "pruned_equivalence_propagated": "equivalence, propagated",
}

# Search effort: the first of each group present in the history is shown.
_EFFORT_MEASURES = (
    (("nodes_expanded",), "nodes expanded"),
    (("n_refinements",), "propositions scored"),
    (("search_time", "time"), "time (s)"),
)

_TRACE_COLUMNS = ("nodes_expanded", "seconds", "best_value", "upper_bound")


# -- metrics -------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    """A score ``function(y_true, prediction)`` with its axis ``label``.

    ``prediction`` says whether ``function`` takes raw scores ``f(x)``
    (``"raw"``) or the predicted mean (``"mean"``: probability of the
    positive class, expected count).
    """

    name: str
    label: str
    function: object
    prediction: str = "mean"


def _metrics():
    from sklearn import metrics

    return {
        "roc_auc": Metric("roc_auc", "ROC AUC", _roc_auc, "raw"),
        "r2": Metric("r2", "R²", metrics.r2_score),
        "poisson_deviance": Metric("poisson_deviance", "mean Poisson deviance", _poisson_deviance),
        "log_loss": Metric("log_loss", "log loss", _log_loss),
        "squared_error": Metric("squared_error", "mean squared error", metrics.mean_squared_error),
        "accuracy": Metric("accuracy", "accuracy", _accuracy),
        "micro_f1": Metric("micro_f1", "micro-F1", _micro_f1),
        "hamming_loss": Metric("hamming_loss", "Hamming loss", _hamming_loss),
    }


# The metrics' functions take the target as _target encodes it: 0/1 (one
# logistic output), class positions (multinomial), a matrix of a column per
# output (multi-label 0/1, multi-output regression), or numbers; and the
# predicted mean of the same shape as the raw score (probabilities of the
# classes, (n, K), for the multinomial loss).
def _predicted_labels(y_true, p):
    """Labels from predicted means: the most probable class, or p > 1/2 per label."""
    if p.ndim == 2 and y_true.ndim == 1:
        return np.argmax(p, axis=1)
    return (p > 0.5).astype(np.int64)


def _accuracy(y_true, p):
    """Accuracy (multi-label: subset accuracy, every label of a row right)."""
    from sklearn.metrics import accuracy_score

    return accuracy_score(y_true, _predicted_labels(y_true, p))


def _micro_f1(y_true, p):
    from sklearn.metrics import f1_score

    return f1_score(y_true, _predicted_labels(y_true, p), average="micro", zero_division=0)


def _hamming_loss(y_true, p):
    from sklearn.metrics import hamming_loss

    return hamming_loss(y_true, _predicted_labels(y_true, p))


def _log_loss(y_true, p):
    """Log loss; of several labels, the mean of the labels' binary log losses
    (scikit-learn's log_loss would read a label matrix as classes)."""
    from sklearn.metrics import log_loss

    if y_true.ndim == 2:
        return float(np.mean([log_loss(y_true[:, k], p[:, k], labels=[0, 1]) for k in range(p.shape[1])]))
    if p.ndim == 2:  # every class, also one missing from this y
        return log_loss(y_true, p, labels=np.arange(p.shape[1]))
    return log_loss(y_true, p)


def _roc_auc(y_true, raw):
    """ROC AUC from raw scores; of several labels their mean (macro), of
    classes one-vs-rest on the class probabilities (macro)."""
    from sklearn.metrics import roc_auc_score

    from .losses import get_loss

    if y_true.ndim == 1 and raw.ndim == 2:
        p = get_loss("multinomial").inverse_link(raw)
        return roc_auc_score(y_true, p, multi_class="ovr", labels=np.arange(raw.shape[1]))
    return roc_auc_score(y_true, raw)


def _poisson_deviance(y_true, mean):
    """Mean Poisson deviance; of several outputs, the mean over outputs."""
    from sklearn.metrics import mean_poisson_deviance

    if y_true.ndim == 2:
        return float(np.mean([mean_poisson_deviance(y_true[:, k], mean[:, k]) for k in range(y_true.shape[1])]))
    return mean_poisson_deviance(y_true, mean)


# Metrics averaged over the outputs of a matrix target: their axis says so.
_OUTPUT_MEANS = ("r2", "squared_error", "poisson_deviance", "log_loss", "roc_auc")

# Score: larger is better except for the deviance; risk: the model's loss.
# Keyed by target_kind: the loss for one output, the kind of several.
DEFAULT_SCORES = {"logistic": "roc_auc", "squared": "r2", "poisson": "poisson_deviance",
                  "multinomial": "accuracy", "multi-label": "micro_f1", "multi-output squared": "r2",
                  "multi-output poisson": "poisson_deviance"}
DEFAULT_RISKS = {"logistic": "log_loss", "squared": "squared_error", "poisson": "poisson_deviance",
                 "multinomial": "log_loss", "multi-label": "log_loss",
                 "multi-output squared": "squared_error", "multi-output poisson": "poisson_deviance"}


def target_kind(ensemble):
    """What a model predicts, the key of :data:`DEFAULT_SCORES` and :data:`DEFAULT_RISKS`.

    Parameters
    ----------
    ensemble : RuleEnsemble

    Returns
    -------
    str
        The loss for a model of one output (``"logistic"``, ``"squared"``,
        ``"poisson"``); ``"multinomial"`` (classes), ``"multi-label"``
        (the logistic loss on each label) or ``"multi-output <loss>"``
        for several.

    Examples
    --------
    >>> from rulebook import RuleEnsemble
    >>> target_kind(RuleEnsemble((0.0, 0.0), (), "logistic", outputs=("a", "b")))
    'multi-label'
    """
    if ensemble.outputs is None or ensemble.loss == "multinomial":
        return ensemble.loss
    return "multi-label" if ensemble.loss == "logistic" else f"multi-output {ensemble.loss}"


def get_metric(metric, loss, defaults=DEFAULT_SCORES):
    """The :class:`Metric` for a name, a callable, or the loss's default.

    Parameters
    ----------
    metric : str, callable or None
        A name (``"roc_auc"``, ``"r2"``, ``"poisson_deviance"``,
        ``"log_loss"``, ``"squared_error"``, and for classes and labels
        ``"accuracy"``, ``"micro_f1"``, ``"hamming_loss"``), a function
        ``f(y_true, predicted_mean)``, or None for ``defaults[loss]``.
        With several outputs ``y_true`` is the class positions (in the
        model's ``outputs``) of a multi-class model, else a matrix of a
        column per output; ``predicted_mean`` has a column per output (the
        class probabilities, the labels' probabilities, the predictions).
        Of several labels, ``"accuracy"`` is the subset accuracy and
        ``"log_loss"`` the mean of the labels' log losses; ``"r2"``,
        ``"squared_error"``, ``"poisson_deviance"`` and ``"roc_auc"``
        average over the outputs (classes: one-vs-rest), all by
        scikit-learn.
    loss : str
        A key of ``defaults``: the loss, or :func:`target_kind`.
    defaults : dict, default=DEFAULT_SCORES

    Returns
    -------
    Metric

    Raises
    ------
    ValueError
        For an unknown metric name.

    Examples
    --------
    >>> get_metric(None, "logistic").label
    'ROC AUC'
    """
    if metric is None:
        metric = defaults[loss]
    if callable(metric):
        name = getattr(metric, "__name__", "score")
        return Metric(name, name.replace("_", " "), metric)
    known = _metrics()
    if metric not in known:
        raise ValueError(f"metric={metric!r} is not known; use one of {sorted(known)} or a callable.")
    return known[metric]


# -- models ----------------------------------------------------------------------
def _ensemble(model):
    if isinstance(model, RuleEnsemble):
        return model
    if not hasattr(model, "ensemble_"):
        raise ValueError(f"{type(model).__name__} is not fitted; call fit first, or pass a RuleEnsemble.")
    return model.ensemble_


def _history(model):
    if isinstance(model, pd.DataFrame):
        return model
    history = getattr(model, "history_", None)
    if history is None:
        raise ValueError(f"{type(model).__name__} has no history_; pass a fitted estimator or its history_.")
    return history


def _default_name(model):
    learner = getattr(model, "learner", None)
    if learner is None:
        return type(model).__name__
    return learner if isinstance(learner, str) else str(getattr(learner, "name", type(learner).__name__))


def _named_models(models):
    """``[(name, model)]`` from a dict, a sequence or a single model."""
    if isinstance(models, dict):
        # Names are shown as text: control and bidi characters as escapes.
        return [(escape_unsafe(str(name)), model) for name, model in models.items()]
    if isinstance(models, (list, tuple)):
        names, seen = [], {}
        for model in models:
            name = _default_name(model)
            seen[name] = seen.get(name, 0) + 1
            names.append(name if seen[name] == 1 else f"{name} #{seen[name]}")
        return list(zip(names, models))
    return [(_default_name(models), models)]


def _binary_target(model, y):
    """Targets as 0/1 with 1 for the positive class (``classes_[1]``)."""
    y = np.asarray(y)
    classes = getattr(model, "classes_", None)
    if classes is not None:
        return (y == classes[1]).astype(np.float64)
    # A bare ensemble: labels 1 (of 0/1 or -1/1) are positive.
    return (y == 1).astype(np.float64)


def raw_scores_by_size(ensemble, X):
    """Raw scores of ``ensemble[:k]`` for ``k = 0, ..., len(ensemble)``.

    Each rule is evaluated once, and its weight is added to the rows it
    covers in rule order, exactly as ``ensemble[:k].decision_function``
    adds them, so the scores agree to the last bit.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (len(ensemble) + 1, n_samples), float64
        With several outputs, (len(ensemble) + 1, n_samples, n_outputs).

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), 2.0),))
    >>> raw_scores_by_size(ensemble, pd.DataFrame({"a": [-1.0, 1.0]}))
    array([[1., 1.],
           [1., 3.]])
    """
    outputs = () if ensemble.outputs is None else (ensemble.n_outputs,)
    scores = np.empty((len(ensemble) + 1, len(X), *outputs), dtype=np.float64)
    raw = np.empty((len(X), *outputs), dtype=np.float64)
    raw[:] = ensemble.intercept
    scores[0] = raw
    for k, rule in enumerate(ensemble.rules, start=1):
        raw[rule.query.evaluate(X, ensemble.by_name)] += np.asarray(rule.weight, dtype=np.float64)
        scores[k] = raw
    if ensemble.terms:
        # Every ensemble[:k] keeps the linear terms, added after the rules
        # one after another, as decision_function adds them.
        for column in term_contributions(ensemble, X, ensemble.by_name).T:
            scores += column
    return scores


def _staged_raw_scores(model, ensemble, X):
    """Raw scores of the model after each round.

    A fitted boosting estimator knows its model of every round
    (``staged_ensembles``): after a corrective update that is not
    ``ensemble[:k]``. A bare RuleEnsemble is read as stagewise.
    """
    if hasattr(model, "_staged_raw_predict") and "weights" in getattr(model, "history_", ()):
        # Each rule evaluated once (not every staged model from scratch:
        # quadratic in rules), equal to the staged models to the last bit.
        first = next(iter(model.staged_ensembles())).decision_function(X)
        return np.vstack([first[None, :], model._staged_raw_predict(X)])
    return raw_scores_by_size(ensemble, X)


def _curve(name, model, X, y, metric):
    """One model's metric after each number of rules (long format)."""
    from .losses import get_loss

    ensemble = _ensemble(model)
    y_true = _target(model, ensemble, y)
    inverse_link = get_loss(ensemble.loss).inverse_link
    values = [
        metric.function(y_true, raw if metric.prediction == "raw" else inverse_link(raw))
        for raw in _staged_raw_scores(model, ensemble, X)
    ]
    lengths = np.array([0] + [len(rule) for rule in ensemble.rules])
    n_rules = np.arange(len(ensemble) + 1)
    averaged = y_true.ndim == 2 and metric.name in _OUTPUT_MEANS
    return pd.DataFrame({
        "model": name,
        "round": n_rules,
        "n_rules": n_rules,
        "complexity": n_rules + np.cumsum(lengths),
        "value": np.asarray(values, dtype=np.float64),
        "metric": metric.label + (" (mean over outputs)" if averaged else ""),
    })


def _target(model, ensemble, y):
    """``y`` as the metrics take it (see :func:`get_metric`)."""
    kind = target_kind(ensemble)
    if kind == "logistic":
        return _binary_target(model, y)
    if ensemble.outputs is None:
        return np.asarray(y, dtype=np.float64)
    if kind == "multinomial":
        y = np.asarray(y, dtype=object).ravel()
        codes = pd.Index(list(ensemble.outputs), dtype=object).get_indexer(y)
        if (codes < 0).any():
            unknown = list(dict.fromkeys(y[codes < 0].tolist()))[:5]
            raise ValueError(f"y has classes {unknown} that are not among the model's classes "
                             f"{list(ensemble.outputs)}.")
        return codes
    return _output_matrix(ensemble, y)


def _output_matrix(ensemble, y):
    """A target of several columns in the order of the model's outputs, float64 (n, K)."""
    outputs = list(ensemble.outputs)
    if isinstance(y, pd.DataFrame) and all(label in y.columns for label in outputs):
        return y[outputs].to_numpy(dtype=np.float64)
    Y = np.asarray(y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[1] != len(outputs):
        raise ValueError(f"y must have a column per output of the model ({len(outputs)}: {outputs}); "
                         f"got shape {Y.shape}.")
    return Y


def _curves(models, X, y, metric, defaults):
    named = _named_models(models)
    kinds = {target_kind(_ensemble(model)) for _, model in named}
    if metric is None and len(kinds) > 1:
        raise ValueError(f"the models use different losses {sorted(kinds)}; pass metric= to compare them.")
    chosen = get_metric(metric, kinds.pop(), defaults)
    return pd.concat([_curve(name, model, X, y, chosen) for name, model in named], ignore_index=True)


def score_curve_data(models, X, y, metric=None):
    """Score of each model's first ``k`` rules, ``k = 0, ..., n_rules``.

    Parameters
    ----------
    models : dict of {str: model}, list of models, or one model
        Fitted estimators or RuleEnsembles. List entries are named by their
        learner (``"greedy"``, ``"optimal"``, ``"optimal #2"``).
    X : DataFrame or array-like of shape (n_samples, n_features)
        Usually test data.
    y : array-like of shape (n_samples,), or (n_samples, n_outputs)
        The target; of a multi-label or multi-output model a column per
        output (a DataFrame with the outputs' names is read by name).
    metric : str or callable, optional
        See :func:`get_metric`. Default: ROC AUC for the logistic loss,
        R² for the squared loss, mean Poisson deviance for the Poisson
        loss; with several outputs, accuracy (classes), micro-F1 (labels),
        mean R² or mean Poisson deviance over the outputs (regression).
        Each round's value is that of the model after the round
        (``staged_ensembles()`` of an estimator).

    Returns
    -------
    DataFrame
        One row per model and number of rules: ``model`` (str), ``round``
        and ``n_rules`` (int, equal: the prefix after that boosting round),
        ``complexity`` (int, Yang et al. 2024), ``score`` (float) and
        ``metric`` (str, the axis title).

    Raises
    ------
    ValueError
        Unfitted models, an unknown metric, models of different losses
        without ``metric``, a ``y`` of classes the model lacks or of
        another number of columns than it has outputs.

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> model = RuleBoostingRegressor(n_rules=3).fit(X, y)
    >>> score_curve_data({"greedy": model}, X, y).columns.tolist()
    ['model', 'round', 'n_rules', 'complexity', 'score', 'metric']
    """
    return _curves(models, X, y, metric, DEFAULT_SCORES).rename(columns={"value": "score"})


def risk_complexity_data(models, X, y, metric=None):
    """Risk (mean loss) of each model's first ``k`` rules, with their complexity.

    Parameters
    ----------
    models, X, y
        As in :func:`score_curve_data`.
    metric : str or callable, optional
        Default: the model's loss (log loss, mean squared error, mean
        Poisson deviance; with several outputs the multinomial log loss,
        the labels' mean log loss, the mean squared error or Poisson
        deviance over the outputs).

    Returns
    -------
    DataFrame
        Columns ``model``, ``round``, ``n_rules``, ``complexity``, ``risk``,
        ``metric``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), 2.0),))
    >>> risk_complexity_data(ensemble, pd.DataFrame({"a": [-1.0, 1.0]}), [1.0, 3.0])["risk"].tolist()
    [2.0, 0.0]
    """
    return _curves(models, X, y, metric, DEFAULT_RISKS).rename(columns={"value": "risk"})


# -- search statistics per round ------------------------------------------------------
def pruning_data(model):
    """The four pruning counts of each round, long format (Boley et al. 2021, Table 2).

    Parameters
    ----------
    model : fitted estimator or its ``history_`` DataFrame

    Returns
    -------
    DataFrame
        One row per round (the intercept's round 0 excluded) and category:
        ``round`` (int), ``category`` (str, e.g. ``"bound, immediate"``),
        ``column`` (str, the history column) and ``count`` (int).

    Raises
    ------
    ValueError
        If the history has no pruning columns (e.g. a greedy learner).

    Examples
    --------
    >>> import pandas as pd
    >>> history = pd.DataFrame({c: [float("nan"), 3.0] for c in PRUNING_CATEGORIES},
    ...                        index=pd.Index([0, 1], name="round"))
    >>> pruning_data(history)["category"].tolist()
    ['bound, immediate', 'bound, propagated', 'equivalence, immediate', 'equivalence, propagated']
    """
    history = _history(model)
    columns = [c for c in PRUNING_CATEGORIES if c in history.columns]
    if not columns:
        raise ValueError(
            "the history has no pruning statistics (columns pruned_bound_immediate, ...): "
            "they are recorded by the optimal learner (learner='optimal'), not by greedy search."
        )
    rounds = history.loc[history.index > 0, columns]
    data = rounds.reset_index(names="round").melt(
        id_vars="round", value_vars=columns, var_name="column", value_name="count")
    data["category"] = data["column"].map(PRUNING_CATEGORIES)
    data["round"] = data["round"].astype(np.int64)
    data["count"] = data["count"].fillna(0).astype(np.int64)
    return data[["round", "category", "column", "count"]]


def search_effort_data(model):
    """Search effort per round, long format (Boley et al. 2021, Fig. 4).

    Measures present in the history are kept: ``nodes expanded`` (optimal
    learner), ``propositions scored`` (greedy learner) and ``time (s)``
    (the search time if recorded, else the round's time).

    Parameters
    ----------
    model : fitted estimator or its ``history_`` DataFrame

    Returns
    -------
    DataFrame
        Columns ``round`` (int, 1 ...), ``measure`` (str), ``column`` (str,
        the history column) and ``value`` (float).

    Examples
    --------
    >>> import pandas as pd
    >>> history = pd.DataFrame({"time": [0.0, 0.5], "nodes_expanded": [None, 7.0]},
    ...                        index=pd.Index([0, 1], name="round"))
    >>> search_effort_data(history)[["measure", "value"]].values.tolist()
    [['nodes expanded', 7.0], ['time (s)', 0.5]]
    """
    history = _history(model)
    frames = []
    for candidates, measure in _EFFORT_MEASURES:
        column = next((c for c in candidates if c in history.columns), None)
        if column is None:
            continue
        values = history.loc[history.index > 0, column].astype(np.float64)
        frames.append(pd.DataFrame({
            "round": values.index.to_numpy(dtype=np.int64), "measure": measure,
            "column": column, "value": values.to_numpy()}))
    if not frames:
        raise ValueError("the history has no search effort columns (nodes_expanded, n_refinements or time).")
    return pd.concat(frames, ignore_index=True)


# -- one search ---------------------------------------------------------------------------
def _is_trace(source):
    return isinstance(source, (list, tuple)) or (
        isinstance(source, pd.DataFrame) and "best_value" in source.columns)


def _round_trace(history, round):
    if "trace" not in history.columns:
        raise ValueError("the history has no anytime trace (column 'trace'); "
                         "it is recorded by the optimal learner.")
    if round not in history.index:
        raise ValueError(f"round {round} is not in the history "
                         f"(rounds {history.index.min()} to {history.index.max()}).")
    trace = history.loc[round, "trace"]
    if not isinstance(trace, (list, tuple)) or not trace:
        raise ValueError(f"round {round} has no anytime trace.")
    return trace


def anytime_data(source, round=1):
    """The anytime trace of one search: best value and upper bound over time.

    Parameters
    ----------
    source : fitted estimator, its ``history_``, a DataFrame or a sequence
        An estimator or history whose ``trace`` column holds, per round,
        tuples ``(nodes_expanded, seconds, best_value, upper_bound)`` (the
        optimal learner records one per improvement of the best value and
        one at the end); or such a trace itself.
    round : int, default=1
        Boosting round, when ``source`` is an estimator or a history.

    Returns
    -------
    DataFrame
        Long format, two rows per trace entry: ``nodes_expanded`` (int),
        ``seconds`` (float), ``series`` (``"best value"`` or
        ``"upper bound"``) and ``value`` (float). The upper bound bounds the
        optimum; it meets the best value when optimality is certified.

    Raises
    ------
    ValueError
        If there is no trace for that round.

    Examples
    --------
    >>> anytime_data([(1, 0.01, 0.2, 0.9), (5, 0.03, 0.5, 0.5)])["series"].tolist()
    ['best value', 'best value', 'upper bound', 'upper bound']
    """
    trace = source if _is_trace(source) else _round_trace(_history(source), round)
    frame = trace if isinstance(trace, pd.DataFrame) else pd.DataFrame(list(trace), columns=_TRACE_COLUMNS)
    data = frame.melt(id_vars=["nodes_expanded", "seconds"], value_vars=["best_value", "upper_bound"],
                      var_name="series", value_name="value")
    data["series"] = data["series"].map({"best_value": "best value", "upper_bound": "upper bound"})
    data["nodes_expanded"] = data["nodes_expanded"].astype(np.int64)
    return data


# -- the rules ------------------------------------------------------------------------------
def rule_weights_data(model, *, output=None):
    """Weight and coverage of each rule, long format.

    Parameters
    ----------
    model : fitted estimator or RuleEnsemble
    output : label of the model's outputs or None, default=None
        With several outputs (classes, labels, targets), the one whose
        weights are wanted; None, every output's.

    Returns
    -------
    DataFrame
        Two rows per rule (``measure`` ``"weight"`` then ``"coverage"``):
        ``rank`` and ``round`` (int, equal), ``rule`` (str, the condition),
        ``label`` (str, ``"rank. condition"`` wrapped by :func:`wrap_rule`,
        lines joined by ``"\\n"``), ``measure``, ``value`` (float; coverage
        as a fraction, NaN if unknown) and ``kind`` (``"positive weight"``,
        ``"negative weight"`` or ``"coverage"``, the bar colour).

        With several outputs, a weight row per rule and output shown (then
        the coverage row), and two more columns: ``output`` (str, the
        output's label as it prints; ``""`` on coverage rows) and ``panel``
        (str, the weight's column in ``to_frame()``, ``"weight[label]"``,
        or ``"coverage"``); a weight of 0 (a single-output head of another
        output) is of kind ``"no weight"``.

    Raises
    ------
    ValueError
        An unknown ``output``, or one for a model of one output.

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0),)), -2.0, 0.5),))
    >>> rule_weights_data(ensemble)[["label", "measure", "value", "kind"]].values.tolist()
    [['1. a > 1', 'weight', -2.0, 'negative weight'], ['1. a > 1', 'coverage', 0.5, 'coverage']]
    >>> heads = RuleEnsemble((0.0, 0.0), (Rule(Query((Proposition("a", ">", 1.0),)), (1.5, 0.0), 0.5),),
    ...                      "logistic", outputs=("x", "y"))
    >>> rule_weights_data(heads)[["panel", "value", "kind"]].values.tolist()
    [['weight[x]', 1.5, 'positive weight'], ['weight[y]', 0.0, 'no weight'], ['coverage', 0.5, 'coverage']]
    """
    ensemble = _ensemble(model)
    positions = output_positions(ensemble, output)
    frame = ensemble.to_frame().reset_index()
    label = ["\n".join(wrap_rule(rule.query, prefix=f"{rank}. "))
             for rank, rule in zip(frame["rank"], ensemble.rules)]
    common = {"rank": frame["rank"], "round": frame["rank"], "rule": frame["rule"], "label": label}
    columns = ensemble.weight_columns()
    weights = [pd.DataFrame({**common, "measure": "weight", **_output_of(ensemble, k, columns),
                             "value": frame[columns[k]],
                             "kind": _weight_kind(frame[columns[k]], ensemble.outputs is not None)})
               for k in (positions or [0])]
    coverage = pd.DataFrame({**common, "measure": "coverage", **_output_of(ensemble, None, columns),
                             "value": frame["coverage"], "kind": "coverage"})
    # Stable: by rank, each rule's weights in the outputs' order, then its coverage.
    data = pd.concat(weights + [coverage]).sort_values("rank", kind="stable")
    return data.reset_index(drop=True)


def _output_of(ensemble, k, columns):
    """The ``output`` and ``panel`` columns of output ``k`` (None: coverage); none for one output."""
    if ensemble.outputs is None:
        return {}
    if k is None:  # "", not None: a missing value would reach the chart's JSON as NaN
        return {"output": "", "panel": "coverage"}
    return {"output": escape_unsafe(str(ensemble.outputs[k])), "panel": columns[k]}


def _weight_kind(weights, several):
    """Bar colours; with several outputs a 0 is a head without this output."""
    zero = "no weight" if several else "negative weight"
    return np.where(weights > 0, "positive weight", np.where(weights < 0, "negative weight", zero))


def coverage_data(model, X, *, max_rows=200, sort_rows=True, output=None):
    """Which rows each rule covers: one row per (data row, rule).

    Parameters
    ----------
    model : fitted estimator or RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)
    max_rows : int, default=200
        Largest ``len(X)`` accepted: the heat strip is for small data.
    sort_rows : bool, default=True
        Order the rows by their coverage pattern (rule 1 first), so that
        rows covered by the same rules form blocks.
    output : label of the model's outputs or None, default=None
        With several outputs, the one whose weights colour the cells;
        None, every output's (the same rows and rules for each).

    Returns
    -------
    DataFrame
        ``row`` (int, position in the chart), ``index`` (str, the row's
        label in ``X``), ``rank`` and ``round`` (int, equal), ``rule``
        (str), ``covered`` (bool), ``weight`` (float) and ``effect``
        (``"positive"``, ``"negative"`` or ``"not covered"``). With
        several outputs, the cells of each output shown, one after the
        other, with a first column ``output`` (str, the label as it
        prints), ``weight`` the rule's weight for it and ``effect`` also
        ``"no weight"`` (covered by a rule whose head gives the output 0).

    Raises
    ------
    ValueError
        If ``X`` has more than ``max_rows`` rows; an unknown ``output``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 0.0),)), 1.0),))
    >>> coverage_data(ensemble, pd.DataFrame({"a": [-1.0, 1.0]}))[["index", "covered"]].values.tolist()
    [['1', True], ['0', False]]
    """
    if len(X) > max_rows:
        raise ValueError(
            f"X has {len(X)} rows; the coverage heat strip shows at most max_rows={max_rows}. "
            "Pass a sample, e.g. X.sample(200, random_state=0), or raise max_rows."
        )
    ensemble = _ensemble(model)
    positions = output_positions(ensemble, output)
    covered = ensemble.query_matrix(X)
    order = np.arange(len(X))
    if sort_rows and covered.shape[1]:
        # lexsort's last key is the primary one: rule 1, covered rows first.
        order = np.lexsort(~covered[:, ::-1].T)
    if isinstance(X, pd.DataFrame):  # row labels are text from the data, shown in the tooltip
        labels = np.array([escape_unsafe(str(label)) for label in X.index], dtype=object)
    else:
        labels = np.arange(len(X)).astype(str)
    n_rows, n_rules = covered.shape
    heads = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64).reshape(
        n_rules, ensemble.n_outputs)
    cells = covered[order].ravel()
    rank = np.tile(np.arange(1, n_rules + 1), n_rows)
    common = {
        "row": np.repeat(np.arange(n_rows), n_rules),
        "index": np.repeat(labels[order], n_rules),
        "rank": rank,
        "round": rank,
        "rule": np.tile(np.array([str(rule.query) for rule in ensemble.rules], dtype=object), n_rows),
        "covered": cells,
    }
    frames = []
    for k in positions or [0]:
        weight = np.tile(heads[:, k], n_rows)
        effect = np.where(weight > 0, "positive", "negative")
        if positions is not None:  # a single head of another output: covered, no weight here
            effect = np.where(weight == 0, "no weight", effect)
        output = {} if positions is None else {"output": escape_unsafe(str(ensemble.outputs[k]))}
        frames.append(pd.DataFrame({**output, **common, "weight": weight,
                                    "effect": np.where(~cells, "not covered", effect)}))
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def cv_data(model):
    """Cross-validated score against the number of rules, per ``reg_lambda``.

    Parameters
    ----------
    model : fitted RuleBoostingClassifierCV or RuleBoostingRegressorCV

    Returns
    -------
    DataFrame
        One row per pair: ``reg_lambda`` (float), ``n_rules`` (int),
        ``mean`` and ``std`` of the test score over folds, ``std_error``
        (``std / sqrt(folds)``, the margin of ``selection=
        "one_standard_error"``), ``chosen`` (bool, the refitted pair) and
        ``strength`` (``reg_lambda`` as a label).

    Raises
    ------
    ValueError
        If ``model`` has no ``cv_results_`` (not a fitted ``*CV`` estimator).
    """
    results = getattr(model, "cv_results_", None)
    if results is None:
        raise ValueError("cv_data needs a fitted RuleBoostingClassifierCV or "
                         f"RuleBoostingRegressorCV; got {type(model).__name__}.")
    n_splits = sum(name.startswith("split") for name in results)
    data = pd.DataFrame({
        "reg_lambda": np.asarray(results["param_reg_lambda"], dtype=float),
        "n_rules": np.asarray(results["param_n_rules"], dtype=int),
        "mean": results["mean_test_score"],
        "std": results["std_test_score"],
    })
    data["std_error"] = data["std"] / np.sqrt(n_splits)
    data["chosen"] = np.arange(len(data)) == model.best_index_
    data["strength"] = [f"reg_lambda = {v:g}" for v in data["reg_lambda"]]
    return data
