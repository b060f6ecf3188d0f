"""The chart of one prediction's explanation: a waterfall of its terms.

:func:`explanation_chart` draws the lines of
:func:`rulebook.explanations.explain_row` as floating bars: the intercept
from 0, each rule from the score before it to the score after it, the raw
score from 0. It is a :class:`rulebook.charts.Chart` (made by
:func:`rulebook._chart_display._chart`), so it draws offline as the other
charts do and can be chained; :func:`explanation_data` is the tidy frame
behind it. Both are re-exported by :mod:`rulebook.charts`.
"""

import numpy as np
import pandas as pd

from ._canonical import escape_unsafe
from ._chart_display import _altair, _chart, _rule_axis, wrap_rule
from ._formatting import format_number
from .explanations import explain_row
from .rules import RuleEnsemble

# The colours of rulebook.charts (not imported from there: charts
# re-exports this module, and the import would make a circle).
_EFFECT_COLORS = {
    "positive": "#2166ac",
    "negative": "#b2182b",
    "intercept": "#969696",
    "total": "#525252",
    "not applying": "#d9d9d9",
}
_PREDICTION_NAMES = {"logistic": "probability", "multinomial": "probability", "poisson": "mean"}


def _ensemble_and_frame(model, X):
    """The ensemble of ``model`` and ``X`` as it predicts from it.

    A fitted estimator checks ``X`` as its ``predict`` does (column names
    and order, numeric columns, text numbers parsed); a ``*CV`` estimator
    through its ``best_estimator_``.
    """
    if isinstance(model, RuleEnsemble):
        return model, X
    model = getattr(model, "best_estimator_", model)
    if not hasattr(model, "ensemble_"):
        raise ValueError(f"{type(model).__name__} is not fitted; call fit first, or pass a RuleEnsemble.")
    from ._validation import check_prediction_frame

    frame = check_prediction_frame(model, X, model.ensemble_, model._feature_kinds, model._categories)
    return model.ensemble_, frame


def explanation_data(model, X, row=0, *, all_rules=False, output=None):
    """The data of :func:`explanation_chart`: one row's lines, with bar ends and labels.

    Parameters
    ----------
    model : RuleEnsemble or fitted estimator
        An estimator checks ``X`` as its ``predict`` does.
    X : DataFrame or array-like of shape (n_samples, n_features)
    row : int, default=0
        Position of the row in ``X`` (as ``X.iloc[row]``).
    all_rules : bool, default=False
        Show the rules that do not apply too (as bars of zero length).
    output : label of the model's outputs or None, default=None
        With several outputs (a multi-class, multi-label or multi-output
        model), the one to explain; None, each of them (a waterfall each).

    Returns
    -------
    DataFrame
        The row's lines of :func:`rulebook.explanations.explain` (columns
        ``row``, (``output``,) ``kind``, ``rule``, ``condition``, ``applies``,
        ``weight``, ``contribution``, ``cumulative``, ``prediction``), and
        ``order`` (int64, top to bottom; with several outputs the line's
        place among all outputs' lines, so that their panels share rows), ``label`` (str: ``"intercept"``,
        ``"rank. condition"`` wrapped between conditions with ``"\\n"``,
        ``"+w * (clip(x, lower, upper) - centre)"`` for a linear term,
        ``"raw score"``), ``start`` and ``end`` (float64, the bar's ends on
        the raw score scale) and ``effect`` (``"intercept"``,
        ``"positive"``, ``"negative"``, ``"not applying"``, ``"total"``).

    Raises
    ------
    IndexError
        If ``row`` is not a position in ``X``.
    ValueError
        If ``X`` lacks a column the rules use, or does not pass the
        estimator's checks; an unknown ``output``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), -2.0),))
    >>> explanation_data(ensemble, pd.DataFrame({"a": [1.0]}))[["label", "start", "end", "effect"]]
           label  start  end     effect
    0  intercept    0.0  1.0  intercept
    1   1. a > 0    1.0 -1.0   negative
    2  raw score    0.0 -1.0      total
    """
    ensemble, frame = _ensemble_and_frame(model, X)
    data = explain_row(ensemble, frame, row, all_rules=all_rules, output=output).to_frame()
    if "output" not in data:
        return _bars(ensemble, data)
    # Each output's waterfall starts from its own intercept.
    parts = [_bars(ensemble, lines) for _, lines in data.groupby("output", sort=False)]
    data = pd.concat(parts, ignore_index=True)
    # The panels share their rows: a line's place among every output's lines
    # (intercept, rules by rank, terms, total), not within its own waterfall.
    n_rules = len(ensemble.rules)
    rank = data["rule"].fillna(0).to_numpy(dtype=np.int64)
    place = np.select([data["kind"] == "rule", data["kind"] == "term", data["kind"] == "total"],
                      [rank, n_rules + rank, n_rules + len(ensemble.terms) + 1], 0)
    return data.assign(order=place.astype(np.int64))


def _bars(ensemble, data):
    """One waterfall's lines with their bar ends, labels and effects."""
    data = data.reset_index(drop=True)
    end = data["cumulative"].to_numpy()
    start = [0.0] + list(end[:-1])
    start[-1] = 0.0  # the total, like the intercept, stands on zero
    labels, effects = [], []
    for kind, rank, applies, contribution in zip(data["kind"], data["rule"], data["applies"],
                                                 data["contribution"]):
        if kind in ("rule", "term"):
            labels.append("\n".join(wrap_rule(ensemble[int(rank) - 1].query, prefix=f"{rank}. "))
                          if kind == "rule" else str(ensemble.terms[int(rank) - 1]))
            effects.append("not applying" if not applies else
                           "positive" if contribution >= 0 else "negative")
        else:
            labels.append("intercept" if kind == "intercept" else "raw score")
            effects.append(kind)
    return data.assign(order=range(len(data)), label=labels, start=pd.Series(start, dtype="float64"),
                       end=end, effect=effects)


def explanation_chart(model, X, row=0, *, all_rules=False, output=None):
    """Waterfall of one prediction: the intercept, each rule that applies, the raw score.

    Bars float from the score before a term to the score after it
    (positive steps in blue, negative in red), so the last bar, the raw
    score, is where the steps end; the title gives the row, its raw score
    and its prediction (the probability of the positive class for a
    classifier). Rules are labelled ``"rank. condition"``, wrapped between
    conditions; the tooltip has the full rule and the numbers.

    With several outputs and ``output=None``, one waterfall per output,
    side by side (a column facet on ``output``, each with its own x
    scale), the title giving the row only: each output's raw score and
    prediction are its last bar and the tooltips.

    Parameters
    ----------
    model, X, row, all_rules, output
        As in :func:`explanation_data`.

    Returns
    -------
    rulebook.charts.Chart
        An ``alt.Chart`` (bars: ``x`` = ``start``, ``x2`` = ``end``,
        ``y`` = ``label``, colour = ``effect``; ``column`` = ``output``
        for several outputs).

    Raises
    ------
    IndexError, ValueError
        As :func:`explanation_data`.

    See Also
    --------
    rulebook.explanations.explain : the lines of every row.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("a", ">", 0.0),)), -2.0),))
    >>> spec = explanation_chart(ensemble, pd.DataFrame({"a": [1.0]})).to_dict()
    >>> spec["mark"]["type"], spec["encoding"]["x2"]["field"]
    ('bar', 'end')
    """
    alt = _altair()
    data = explanation_data(model, X, row, all_rules=all_rules, output=output)
    loss = _loss(model)
    axis, step = _rule_axis(alt, data["label"])
    name = _PREDICTION_NAMES.get(loss, "prediction")
    label = data["row"].iloc[0]
    title = f"row {getattr(label, 'item', lambda: label)()!r}"
    several = "output" in data and data["output"].nunique() > 1
    if not several:
        of = f", {escape_unsafe(str(data['output'].iloc[0]))}" if "output" in data else ""
        title += (f"{of}: raw score {format_number(float(data['cumulative'].iloc[-1]))}, {name} "
                  f"{format_number(float(data['prediction'].iloc[-1]))}")
    if "output" in data:  # output labels are data: shown as text, escaped as the rules print
        data = data.assign(output=[escape_unsafe(str(o)) for o in data["output"]])
    # No condition (intercept, total) as "", not None: pandas may hold it as
    # NaN, which the chart's JSON (to_json, save) cannot carry.
    data = data.assign(condition=[c if isinstance(c, str) else "" for c in data["condition"]])
    chart = _chart(data).mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=alt.EncodingSortField("order", order="ascending"), axis=axis),
        x=alt.X("start:Q", title="raw score"),
        x2=alt.X2("end:Q"),
        color=alt.Color("effect:N", legend=None, scale=alt.Scale(
            domain=list(_EFFECT_COLORS), range=list(_EFFECT_COLORS.values()))),
        tooltip=(["output:N"] if "output" in data else []) + [
            "rule:O", "condition:N", alt.Tooltip("contribution:Q", format=".4g"),
            alt.Tooltip("cumulative:Q", title="score", format=".4g"),
            alt.Tooltip("prediction:Q", title=name, format=".4g")],
    )
    if several:
        chart = chart.encode(column=alt.Column("output:N", title=None, sort=list(
            dict.fromkeys(data["output"])))).resolve_scale(x="independent")
        return chart.properties(width=200, height=step, title=title)
    return chart.properties(width=300, height=step, title=title)


def _loss(model):
    if isinstance(model, RuleEnsemble):
        return model.loss
    return getattr(model, "best_estimator_", model).ensemble_.loss
