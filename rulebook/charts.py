"""Charts of rule ensembles and of how they were found, as Altair charts.

Every chart function returns an ``alt.Chart``, so the result can be chained
(``.properties(width=500)``, ``.interactive()``, ``.encode(...)``) and is
data until displayed: ``chart.to_dict()`` is its Vega-Lite spec. The tidy
DataFrame behind each chart comes from a separate ``*_data`` function, for
tests and for users who prefer another plotting library (defined in
:mod:`rulebook.chart_data`, importable from here).

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
``explanation_chart``        one prediction's terms as a waterfall
``cv_chart``                 cross-validated score against rules, per
                             ``reg_lambda`` (the ``*CV`` estimators)
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

# Re-exported: the display of the charts and their rule labels.
from ._chart_display import (  # noqa: F401
    RULE_LABEL_LINES,
    RULE_LABEL_WIDTH,
    _altair,
    _chart,
    _rule_axis,
    notebook_renderer,
    wrap_rule,
)
from ._explanation_chart import explanation_chart, explanation_data  # noqa: F401
from .chart_data import (  # noqa: F401 (the data functions are public here too)
    _EFFORT_MEASURES,
    _TRACE_COLUMNS,
    DEFAULT_RISKS,
    DEFAULT_SCORES,
    PRUNING_CATEGORIES,
    Metric,
    _binary_target,
    _curve,
    _curves,
    _default_name,
    _ensemble,
    _history,
    _is_trace,
    _metrics,
    _named_models,
    _round_trace,
    _staged_raw_scores,
    anytime_data,
    coverage_data,
    cv_data,
    get_metric,
    pruning_data,
    raw_scores_by_size,
    risk_complexity_data,
    rule_weights_data,
    score_curve_data,
    search_effort_data,
    target_kind,
)

POSITIVE_COLOR = "#2166ac"  # as the weight bars of the notebook repr
NEGATIVE_COLOR = "#b2182b"
NEUTRAL_COLOR = "#969696"
EMPTY_COLOR = "#eeeeee"
_PRUNING_COLORS = ["#08519c", "#6baed6", "#a63603", "#fd8d3c"]


def __getattr__(name):
    # rulebook.charts.Chart without importing altair with this module.
    if name == "Chart":
        from ._chart_display import Chart

        return Chart
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def rule_weights_chart(model, *, output=None, highlight_round=None, selection=None):
    """Rule weights (diverging bars) and coverage, side by side.

    Rules are labelled ``"rank. condition"``, wrapped between conditions
    over up to :data:`RULE_LABEL_LINES` lines (:func:`wrap_rule`); the
    tooltip has the full rule.

    A model of several outputs (classes, labels, targets) has a panel of
    weights per output, ``weight[label]`` as in ``to_frame()``, then the
    coverage: positive weights blue, negative red, as for one output; a
    rule whose head gives an output no weight (a single-output head) has
    no bar in that output's panel. ``output=`` keeps one output's panel.

    Parameters
    ----------
    model : fitted estimator or RuleEnsemble
    output : label of the model's outputs or None, default=None
        As in :func:`rule_weights_data`.
    highlight_round : int, optional
        Rank of the rule to emphasise.
    selection : altair selection parameter, optional
        As in :func:`pruning_chart` (field ``"round"`` = rank).

    Returns
    -------
    rulebook.charts.Chart
        An ``alt.Chart``, faceted by measure (columns; by ``panel`` with
        several outputs), each with its own x scale.

    Raises
    ------
    ValueError
        As :func:`rule_weights_data`.

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0),)), -2.0, 0.5),))
    >>> rule_weights_chart(ensemble).to_dict()["encoding"]["column"]["field"]
    'measure'
    """
    alt = _altair()
    data = rule_weights_data(model, output=output)
    axis, step = _rule_axis(alt, data["label"])
    if "panel" in data:
        panels = list(dict.fromkeys(data["panel"]))
        column = alt.Column("panel:N", title=None, sort=panels)
        # About 660 px of panels in all, however many outputs.
        width = max(90, min(220, 660 // len(panels)))
        tooltip = ["rank:O", "rule:N", "output:N", "measure:N"]
    else:
        column = alt.Column("measure:N", title=None, sort=["weight", "coverage"])
        width = 220
        tooltip = ["rank:O", "rule:N", "measure:N"]
    chart = _chart(data).mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=alt.EncodingSortField("rank", order="ascending"), axis=axis),
        x=alt.X("value:Q", title=None),
        column=column,
        color=alt.Color("kind:N", legend=None, scale=alt.Scale(
            domain=["positive weight", "negative weight", "coverage", "no weight"],
            range=[POSITIVE_COLOR, NEGATIVE_COLOR, NEUTRAL_COLOR, EMPTY_COLOR])),
        tooltip=tooltip + [alt.Tooltip("value:Q", format=".4g")],
    ).properties(width=width, height=step)
    return _emphasize(chart, highlight_round, selection).resolve_scale(x="independent")


def coverage_heatmap(model, X, *, max_rows=200, sort_rows=True, output=None, highlight_round=None,
                     selection=None):
    """Rows x rules heat strip: a cell is coloured by the sign of the rule's
    weight where the rule covers the row.

    A model of several outputs has one strip per output, side by side,
    with the same rows and rules: a covered cell is coloured by the sign
    of the rule's weight for that output (grey where its head gives the
    output no weight). ``output=`` keeps one output's strip.

    Parameters
    ----------
    model, X, max_rows, sort_rows, output
        As in :func:`coverage_data`.
    highlight_round, selection
        As in :func:`rule_weights_chart`.

    Returns
    -------
    altair.Chart
        Faceted by ``output`` (columns) for several outputs.

    Raises
    ------
    ValueError
        As :func:`coverage_data`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 0.0),)), 1.0),))
    >>> coverage_heatmap(ensemble, pd.DataFrame({"a": [-1.0, 1.0]})).to_dict()["mark"]["type"]
    'rect'
    """
    alt = _altair()
    data = coverage_data(model, X, max_rows=max_rows, sort_rows=sort_rows, output=output)
    # About 300 px tall whatever the number of rows, one pixel per row at least.
    row_step = max(1, min(12, 300 // max(len(X), 1)))
    several = "output" in data
    effects = ["positive", "negative", "not covered"] + (["no weight"] if several else [])
    chart = _chart(data).mark_rect().encode(
        x=alt.X("rank:O", title="rule", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("row:O", title="rows", axis=alt.Axis(labels=False, ticks=False)),
        color=alt.Color("effect:N", title="covered", scale=alt.Scale(
            domain=effects, range=[POSITIVE_COLOR, NEGATIVE_COLOR, EMPTY_COLOR, NEUTRAL_COLOR][:len(effects)])),
        tooltip=["index:N", "rank:O", "rule:N"] + (["output:N"] if several else []) + [
            alt.Tooltip("weight:Q", format=".4g"), "covered:N"],
    ).properties(height=alt.Step(row_step), width=alt.Step(18))
    if several:
        chart = chart.encode(column=alt.Column("output:N", title=None, sort=list(dict.fromkeys(data["output"]))))
    return _emphasize(chart, highlight_round, selection)


def cv_chart(model):
    """Cross-validated score against the number of rules, one line per ``reg_lambda``.

    The pair the ``*CV`` estimator chose is the large point; the tooltip
    gives the mean, the standard deviation over folds and the standard
    error (the margin of ``selection="one_standard_error"``).

    Parameters
    ----------
    model : fitted RuleBoostingClassifierCV or RuleBoostingRegressorCV

    Returns
    -------
    rulebook.charts.Chart

    Raises
    ------
    ValueError
        If ``model`` is not a fitted ``*CV`` estimator.

    See Also
    --------
    rulebook.chart_data.cv_data : the data behind the chart.
    """
    alt = _altair()
    data = cv_data(model)
    return _chart(data).mark_line(point=True).encode(
        x=alt.X("n_rules:Q", title="rules", axis=alt.Axis(tickMinStep=1)),
        y=alt.Y("mean:Q", title="mean cross-validated score", scale=alt.Scale(zero=False)),
        color=alt.Color("strength:N", title=None,
                        sort=alt.EncodingSortField("reg_lambda", order="ascending")),
        size=alt.condition(alt.datum.chosen, alt.value(200), alt.value(30)),
        tooltip=["strength:N", "n_rules:Q", alt.Tooltip("mean:Q", format=".4g"),
                 alt.Tooltip("std:Q", format=".3g"), alt.Tooltip("std_error:Q", format=".3g"),
                 "chosen:N"],
    )
