"""Charts of rule ensembles and of how they were found, as Altair charts.

Every chart function returns an ``alt.Chart``, so the result can be chained
(``.properties(width=500)``, ``.interactive()``, ``.encode(...)``) and is
data until displayed: ``chart.to_dict()`` is its Vega-Lite spec. The tidy
DataFrame behind each chart comes from a separate ``*_data`` function, for
tests and for users who prefer another plotting library.

===========================  ===============================================
``score_curve``              test score against number of rules, several
                             models (Boley et al. 2021, Fig. 2)
``risk_complexity``          test risk against complexity (Yang et al.
                             2024, Fig. 1)
``pruning_chart``            the four pruning counts per round, stacked
                             (Boley et al. 2021, Table 2)
``search_effort_chart``      nodes and time per round (Boley et al. 2021,
                             Fig. 4)
``anytime_chart``            best value and upper bound during one search
``rule_weights_chart``       rule weights and coverage
``coverage_heatmap``         which rows each rule covers (small data)
===========================  ===============================================

Charts over rounds or rules take ``highlight_round`` (emphasise one round)
or ``selection`` (an Altair selection parameter on the field ``"round"``,
for widgets that react to clicks; see :func:`pruning_chart`). Rule ``k``
is the one added in round ``k``, so one selection drives all of them.

Altair is imported when a chart is built, not with this module. The charts
are of class :class:`rulebook.charts.Chart`, an ``alt.Chart`` that draws
itself in a notebook as ``rulebook.set_options(chart_renderer=...)`` says:
by default as static SVG made in the kernel by vl-convert, so that charts
draw without network (Altair's default renderer loads vega from a CDN) and
stay in the saved notebook. Chained methods keep the class; compositions
(``a + b``, ``a | b``, ``.facet()``) are Altair's own classes and follow
``alt.renderers``. Static export works offline too: ``chart.save("chart.svg")``.

Rule text on an axis is wrapped between conditions, never clipped
(:func:`wrap_rule`); the full rule is in the tooltip.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._canonical import escape_unsafe
# Re-exported: the display of the charts and their rule labels.
from ._chart_display import RULE_LABEL_LINES, RULE_LABEL_WIDTH, _altair, _chart, _rule_axis  # noqa: F401
from ._chart_display import notebook_renderer, wrap_rule  # noqa: F401
from .rules import RuleEnsemble

POSITIVE_COLOR = "#2166ac"  # as the weight bars of the notebook repr
NEGATIVE_COLOR = "#b2182b"
NEUTRAL_COLOR = "#969696"
EMPTY_COLOR = "#eeeeee"

# Boley et al. (2021), Table 2: history column -> category label.
PRUNING_CATEGORIES = {
    "pruned_bound_immediate": "bound, immediate",
    "pruned_bound_propagated": "bound, propagated",
    "pruned_equivalence_immediate": "equivalence, immediate",
    "pruned_equivalence_propagated": "equivalence, propagated",
}
_PRUNING_COLORS = ["#08519c", "#6baed6", "#a63603", "#fd8d3c"]

# Search effort: the first of each group present in the history is shown.
_EFFORT_MEASURES = (
    (("nodes_expanded",), "nodes expanded"),
    (("n_refinements",), "propositions scored"),
    (("search_time", "time"), "time (s)"),
)

_TRACE_COLUMNS = ("nodes_expanded", "seconds", "best_value", "upper_bound")


def __getattr__(name):
    # rulebook.charts.Chart without importing altair with this module.
    if name == "Chart":
        from ._chart_display import Chart

        return Chart
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        "roc_auc": Metric("roc_auc", "ROC AUC", metrics.roc_auc_score, "raw"),
        "r2": Metric("r2", "R²", metrics.r2_score),
        "poisson_deviance": Metric("poisson_deviance", "mean Poisson deviance",
                                   metrics.mean_poisson_deviance),
        "log_loss": Metric("log_loss", "log loss", metrics.log_loss),
        "squared_error": Metric("squared_error", "mean squared error", metrics.mean_squared_error),
    }


# Score: larger is better except for the deviance; risk: the model's loss.
DEFAULT_SCORES = {"logistic": "roc_auc", "squared": "r2", "poisson": "poisson_deviance"}
DEFAULT_RISKS = {"logistic": "log_loss", "squared": "squared_error", "poisson": "poisson_deviance"}


def get_metric(metric, loss, defaults=DEFAULT_SCORES):
    """The :class:`Metric` for a name, a callable, or the loss's default.

    Parameters
    ----------
    metric : str, callable or None
        A name (``"roc_auc"``, ``"r2"``, ``"poisson_deviance"``,
        ``"log_loss"``, ``"squared_error"``), a function
        ``f(y_true, predicted_mean)``, or None for ``defaults[loss]``.
    loss : str
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

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), 2.0),))
    >>> raw_scores_by_size(ensemble, pd.DataFrame({"a": [-1.0, 1.0]}))
    array([[1., 1.],
           [1., 3.]])
    """
    scores = np.empty((len(ensemble) + 1, len(X)), dtype=np.float64)
    raw = np.full(len(X), ensemble.intercept, dtype=np.float64)
    scores[0] = raw
    for k, rule in enumerate(ensemble.rules, start=1):
        raw[rule.query.evaluate(X, ensemble.by_name)] += rule.weight
        scores[k] = raw
    return scores


def _staged_raw_scores(model, ensemble, X):
    """Raw scores of the model after each round.

    A fitted boosting estimator knows its model of every round
    (``staged_ensembles``): after a corrective update that is not
    ``ensemble[:k]``. A bare RuleEnsemble is read as stagewise.
    """
    if hasattr(model, "staged_ensembles") and "weights" in getattr(model, "history_", ()):
        return np.array([stage.decision_function(X) for stage in model.staged_ensembles()])
    return raw_scores_by_size(ensemble, X)


def _curve(name, model, X, y, metric):
    """One model's metric after each number of rules (long format)."""
    from .losses import get_loss

    ensemble = _ensemble(model)
    y_true = _binary_target(model, y) if ensemble.loss == "logistic" else np.asarray(y, dtype=np.float64)
    inverse_link = get_loss(ensemble.loss).inverse_link
    values = [
        metric.function(y_true, raw if metric.prediction == "raw" else inverse_link(raw))
        for raw in _staged_raw_scores(model, ensemble, X)
    ]
    lengths = np.array([0] + [len(rule) for rule in ensemble.rules])
    n_rules = np.arange(len(ensemble) + 1)
    return pd.DataFrame({
        "model": name,
        "round": n_rules,
        "n_rules": n_rules,
        "complexity": n_rules + np.cumsum(lengths),
        "value": np.asarray(values, dtype=np.float64),
        "metric": metric.label,
    })


def _curves(models, X, y, metric, defaults):
    named = _named_models(models)
    losses = {_ensemble(model).loss for _, model in named}
    if metric is None and len(losses) > 1:
        raise ValueError(f"the models use different losses {sorted(losses)}; pass metric= to compare them.")
    chosen = get_metric(metric, losses.pop(), defaults)
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
    y : array-like of shape (n_samples,)
    metric : str or callable, optional
        See :func:`get_metric`. Default: ROC AUC for the logistic loss,
        R² for the squared loss, mean Poisson deviance for the Poisson loss.

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
        Unfitted models, an unknown metric, or models of different losses
        without ``metric``.

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
        Poisson deviance).

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


# -- emphasis of one round ----------------------------------------------------------
def _emphasize(chart, highlight_round, selection, channel="opacity", faded=0.3):
    """Fade all but the highlighted round, or bind a selection to the fading.

    ``channel`` is ``"opacity"`` for bars and cells, ``"fillOpacity"`` for
    lines with points: it fades the points but not the line.
    """
    alt = _altair()
    if highlight_round is not None and selection is not None:
        raise ValueError("pass highlight_round or selection, not both.")
    if selection is not None:
        chart = chart.add_params(selection)
        test = selection
    elif highlight_round is not None:
        test = alt.datum.round == int(highlight_round)
    else:
        return chart
    return chart.encode(**{channel: alt.condition(test, alt.value(1.0), alt.value(faded))})


def _curve_chart(data, y_field, x_field, x_title, highlight_round, selection):
    alt = _altair()
    chart = _chart(data).mark_line(point=True).encode(
        x=alt.X(f"{x_field}:Q", title=x_title, axis=alt.Axis(tickMinStep=1)),
        y=alt.Y(f"{y_field}:Q", title=str(data["metric"].iloc[0]) if len(data) else y_field,
                scale=alt.Scale(zero=False)),
        color=alt.Color("model:N", title="model"),
        tooltip=["model:N", "n_rules:Q", "complexity:Q", alt.Tooltip(f"{y_field}:Q", format=".4g")],
    )
    return _emphasize(chart, highlight_round, selection, channel="fillOpacity", faded=0.15)


def score_curve(models, X, y, metric=None, *, highlight_round=None, selection=None):
    """Score against number of rules, one line per model (Boley et al. 2021, Fig. 2).

    Parameters
    ----------
    models, X, y, metric
        As in :func:`score_curve_data`.
    highlight_round : int, optional
        Number of rules to emphasise (the others are faded).
    selection : altair selection parameter, optional
        E.g. ``alt.selection_point(fields=["round"], name="round")``; added
        to the chart and bound to the opacity.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> from rulebook import RuleBoostingClassifier
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    >>> chart = score_curve({"greedy": model}, X, y).properties(width=300)
    >>> chart.to_dict()["mark"]["type"]
    'line'
    """
    return _curve_chart(score_curve_data(models, X, y, metric), "score", "n_rules", "number of rules",
                        highlight_round, selection)


def risk_complexity(models, X, y, metric=None, *, highlight_round=None, selection=None):
    """Risk against complexity, one line per model (Yang et al. 2024, Fig. 1).

    Parameters
    ----------
    models, X, y, metric
        As in :func:`risk_complexity_data`.
    highlight_round, selection
        As in :func:`score_curve`.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), 2.0),))
    >>> chart = risk_complexity(ensemble, pd.DataFrame({"a": [-1.0, 1.0]}), [1.0, 3.0])
    >>> chart.to_dict()["encoding"]["x"]["field"]
    'complexity'
    """
    return _curve_chart(risk_complexity_data(models, X, y, metric), "risk", "complexity", "complexity",
                        highlight_round, selection)


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


def pruning_chart(model, *, normalize=False, highlight_round=None, selection=None):
    """Pruned augmentations per round, stacked by the four categories.

    Parameters
    ----------
    model : fitted estimator (optimal learner) or its ``history_``
    normalize : bool, default=False
        Stack to shares of 1 instead of counts.
    highlight_round : int, optional
        Round to emphasise.
    selection : altair selection parameter, optional
        Added to the chart and bound to the bars' opacity; select on the
        field ``"round"``. In a notebook,
        ``alt.JupyterChart(pruning_chart(model, selection=sel))`` exposes
        the clicked round as ``.selections.round``.

    Returns
    -------
    altair.Chart

    Raises
    ------
    ValueError
        If the history has no pruning columns.

    Examples
    --------
    >>> from rulebook import OptimalLearner, RuleBoostingClassifier
    >>> from rulebook.datasets import make_noisy_parity
    >>> X, y = make_noisy_parity(n_samples=200, random_state=0)
    >>> model = RuleBoostingClassifier(n_rules=2, learner=OptimalLearner(), max_bins=8).fit(X, y)
    >>> pruning_chart(model).to_dict()["mark"]["type"]
    'bar'
    """
    alt = _altair()
    chart = _chart(pruning_data(model)).mark_bar().encode(
        x=alt.X("round:O", title="round"),
        y=alt.Y("count:Q", stack="normalize" if normalize else "zero",
                title="share of pruned augmentations" if normalize else "pruned augmentations"),
        color=alt.Color("category:N", title="pruned by",
                        scale=alt.Scale(domain=list(PRUNING_CATEGORIES.values()), range=_PRUNING_COLORS)),
        order=alt.Order("column:N"),
        tooltip=["round:O", "category:N", "count:Q"],
    )
    return _emphasize(chart, highlight_round, selection)


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


def search_effort_chart(model, *, highlight_round=None, selection=None):
    """Nodes expanded (or propositions scored) and time per round, one panel each.

    Parameters
    ----------
    model : fitted estimator or its ``history_``
    highlight_round, selection
        As in :func:`pruning_chart`.

    Returns
    -------
    altair.Chart
        Faceted by measure (rows), each with its own y scale.

    Examples
    --------
    >>> import pandas as pd
    >>> history = pd.DataFrame({"time": [0.0, 0.5]}, index=pd.Index([0, 1], name="round"))
    >>> search_effort_chart(history).to_dict()["encoding"]["row"]["field"]
    'measure'
    """
    alt = _altair()
    data = search_effort_data(model)
    chart = _chart(data).mark_bar().encode(
        x=alt.X("round:O", title="round"),
        y=alt.Y("value:Q", title=None),
        row=alt.Row("measure:N", title=None, sort=list(dict.fromkeys(data["measure"]))),
        color=alt.value(NEUTRAL_COLOR),
        tooltip=["round:O", "measure:N", alt.Tooltip("value:Q", format=".4g")],
    ).properties(height=120)
    return _emphasize(chart, highlight_round, selection).resolve_scale(y="independent")


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


def anytime_chart(source, round=1, *, x="nodes_expanded"):
    """Best value and upper bound against nodes expanded or time, for one search.

    Parameters
    ----------
    source, round
        As in :func:`anytime_data`.
    x : {"nodes_expanded", "seconds"}, default="nodes_expanded"

    Returns
    -------
    altair.Chart
        Step lines: both values change only at the recorded events.

    Raises
    ------
    ValueError
        For an unknown ``x`` or a missing trace.

    Examples
    --------
    >>> chart = anytime_chart([(1, 0.01, 0.2, 0.9), (5, 0.03, 0.5, 0.5)], x="seconds")
    >>> chart.to_dict()["encoding"]["x"]["field"]
    'seconds'
    """
    alt = _altair()
    titles = {"nodes_expanded": "nodes expanded", "seconds": "time (s)"}
    if x not in titles:
        raise ValueError(f"x must be one of {sorted(titles)}; got {x!r}.")
    return _chart(anytime_data(source, round)).mark_line(interpolate="step-after", point=True).encode(
        x=alt.X(f"{x}:Q", title=titles[x]),
        y=alt.Y("value:Q", title="objective"),
        color=alt.Color("series:N", title=None, scale=alt.Scale(
            domain=["best value", "upper bound"], range=[POSITIVE_COLOR, NEUTRAL_COLOR])),
        tooltip=["series:N", "nodes_expanded:Q", alt.Tooltip("seconds:Q", format=".3g"),
                 alt.Tooltip("value:Q", format=".4g")],
    )


# -- the rules ------------------------------------------------------------------------------
def rule_weights_data(model):
    """Weight and coverage of each rule, long format.

    Parameters
    ----------
    model : fitted estimator or RuleEnsemble

    Returns
    -------
    DataFrame
        Two rows per rule (``measure`` ``"weight"`` then ``"coverage"``):
        ``rank`` and ``round`` (int, equal), ``rule`` (str, the condition),
        ``label`` (str, ``"rank. condition"`` wrapped by :func:`wrap_rule`,
        lines joined by ``"\\n"``), ``measure``, ``value`` (float; coverage
        as a fraction, NaN if unknown) and ``kind`` (``"positive weight"``,
        ``"negative weight"`` or ``"coverage"``, the bar colour).

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0),)), -2.0, 0.5),))
    >>> rule_weights_data(ensemble)[["label", "measure", "value", "kind"]].values.tolist()
    [['1. a > 1', 'weight', -2.0, 'negative weight'], ['1. a > 1', 'coverage', 0.5, 'coverage']]
    """
    ensemble = _ensemble(model)
    frame = ensemble.to_frame().reset_index()
    label = ["\n".join(wrap_rule(rule.query, prefix=f"{rank}. "))
             for rank, rule in zip(frame["rank"], ensemble.rules)]
    common = {"rank": frame["rank"], "round": frame["rank"], "rule": frame["rule"], "label": label}
    weight = pd.DataFrame({**common, "measure": "weight", "value": frame["weight"],
                           "kind": np.where(frame["weight"] > 0, "positive weight", "negative weight")})
    coverage = pd.DataFrame({**common, "measure": "coverage", "value": frame["coverage"], "kind": "coverage"})
    data = pd.concat([weight, coverage]).sort_values(["rank", "measure"], ascending=[True, False],
                                                      kind="stable")
    return data.reset_index(drop=True)


def rule_weights_chart(model, *, highlight_round=None, selection=None):
    """Rule weights (diverging bars) and coverage, side by side.

    Rules are labelled ``"rank. condition"``, wrapped between conditions
    over up to :data:`RULE_LABEL_LINES` lines (:func:`wrap_rule`); the
    tooltip has the full rule.

    Parameters
    ----------
    model : fitted estimator or RuleEnsemble
    highlight_round : int, optional
        Rank of the rule to emphasise.
    selection : altair selection parameter, optional
        As in :func:`pruning_chart` (field ``"round"`` = rank).

    Returns
    -------
    rulebook.charts.Chart
        An ``alt.Chart``, faceted by measure (columns), each with its own x
        scale.

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0),)), -2.0, 0.5),))
    >>> rule_weights_chart(ensemble).to_dict()["encoding"]["column"]["field"]
    'measure'
    """
    alt = _altair()
    data = rule_weights_data(model)
    axis, step = _rule_axis(alt, data["label"])
    chart = _chart(data).mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=alt.EncodingSortField("rank", order="ascending"), axis=axis),
        x=alt.X("value:Q", title=None),
        column=alt.Column("measure:N", title=None, sort=["weight", "coverage"]),
        color=alt.Color("kind:N", legend=None, scale=alt.Scale(
            domain=["positive weight", "negative weight", "coverage"],
            range=[POSITIVE_COLOR, NEGATIVE_COLOR, NEUTRAL_COLOR])),
        tooltip=["rank:O", "rule:N", "measure:N", alt.Tooltip("value:Q", format=".4g")],
    ).properties(width=220, height=step)
    return _emphasize(chart, highlight_round, selection).resolve_scale(x="independent")


def coverage_data(model, X, *, max_rows=200, sort_rows=True):
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

    Returns
    -------
    DataFrame
        ``row`` (int, position in the chart), ``index`` (str, the row's
        label in ``X``), ``rank`` and ``round`` (int, equal), ``rule``
        (str), ``covered`` (bool), ``weight`` (float) and ``effect``
        (``"positive"``, ``"negative"`` or ``"not covered"``).

    Raises
    ------
    ValueError
        If ``X`` has more than ``max_rows`` rows.

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
    weights = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64)
    cells = covered[order].ravel()
    rank = np.tile(np.arange(1, n_rules + 1), n_rows)
    weight = np.tile(weights, n_rows)
    return pd.DataFrame({
        "row": np.repeat(np.arange(n_rows), n_rules),
        "index": np.repeat(labels[order], n_rules),
        "rank": rank,
        "round": rank,
        "rule": np.tile(np.array([str(rule.query) for rule in ensemble.rules], dtype=object), n_rows),
        "covered": cells,
        "weight": weight,
        "effect": np.where(~cells, "not covered", np.where(weight > 0, "positive", "negative")),
    })


def coverage_heatmap(model, X, *, max_rows=200, sort_rows=True, highlight_round=None, selection=None):
    """Rows x rules heat strip: a cell is coloured by the sign of the rule's
    weight where the rule covers the row.

    Parameters
    ----------
    model, X, max_rows, sort_rows
        As in :func:`coverage_data`.
    highlight_round, selection
        As in :func:`rule_weights_chart`.

    Returns
    -------
    altair.Chart

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 0.0),)), 1.0),))
    >>> coverage_heatmap(ensemble, pd.DataFrame({"a": [-1.0, 1.0]})).to_dict()["mark"]["type"]
    'rect'
    """
    alt = _altair()
    data = coverage_data(model, X, max_rows=max_rows, sort_rows=sort_rows)
    # About 300 px tall whatever the number of rows, one pixel per row at least.
    row_step = max(1, min(12, 300 // max(len(X), 1)))
    chart = _chart(data).mark_rect().encode(
        x=alt.X("rank:O", title="rule", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("row:O", title="rows", axis=alt.Axis(labels=False, ticks=False)),
        color=alt.Color("effect:N", title="covered", scale=alt.Scale(
            domain=["positive", "negative", "not covered"],
            range=[POSITIVE_COLOR, NEGATIVE_COLOR, EMPTY_COLOR])),
        tooltip=["index:N", "rank:O", "rule:N", alt.Tooltip("weight:Q", format=".4g"), "covered:N"],
    ).properties(height=alt.Step(row_step), width=alt.Step(18))
    return _emphasize(chart, highlight_round, selection)
