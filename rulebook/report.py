"""A self-contained HTML report comparing fitted rule ensembles.

The report opens offline: the rich reprs carry their stylesheet inline and
the charts are inline SVG made by vl-convert, so there are no scripts and no
links to load. ``rulebook compare ... --report report.html`` writes one.
"""

import html
from pathlib import Path

from . import charts
from ._canonical import escape_unsafe
from ._repr_html import estimator_repr

__all__ = ["comparison_report", "chart_svg", "score_table", "write_report"]

_PAGE_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table.rb-scores { border-collapse: collapse; font-variant-numeric: tabular-nums; }
table.rb-scores th, table.rb-scores td {
  padding: 2px 10px; text-align: right; border-bottom: 1px solid #eee;
}
.rb-chart { margin: 1em 0; overflow-x: auto; }
.rb-note { color: #666; }
"""


def chart_svg(chart):
    """An Altair chart as an inline ``<svg>`` element (no scripts).

    Parameters
    ----------
    chart : altair.Chart or any top-level Altair chart

    Returns
    -------
    str
        SVG markup, or an HTML note saying why the chart is missing (no
        ``vl-convert-python``).

    Examples
    --------
    >>> import altair as alt, pandas as pd
    >>> svg = chart_svg(alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x"))
    >>> svg.lstrip().startswith("<svg")
    True
    """
    try:
        import vl_convert as vlc
    except ImportError:
        return "<p class=\"rb-note\">Charts need the vl-convert-python package.</p>"
    svg = vlc.vegalite_to_svg(chart.to_dict())
    # Drop the XML declaration, if any, so the SVG can sit inside HTML.
    return svg[svg.find("<svg"):]


def _section(title, body):
    return f"<section><h2>{_text(title)}</h2>{body}</section>"


def _text(text):
    """Plain text as HTML: escaped, control and bidi characters as visible escapes."""
    return html.escape(escape_unsafe(str(text)))


def _figure(build):
    try:
        return f"<div class=\"rb-chart\">{chart_svg(build())}</div>"
    except ValueError as error:  # e.g. no pruning statistics for greedy search
        return f"<p class=\"rb-note\">{html.escape(str(error))}</p>"


def comparison_report(models, X_test, y_test, *, title="rulebook comparison", scores=None, notes=()):
    """One HTML page: score table and curves, then each model's repr and charts.

    Parameters
    ----------
    models : dict of {str: fitted estimator}
        Fitted rulebook estimators of one loss, named by learner.
    X_test : DataFrame of shape (n_samples, n_features)
    y_test : array-like of shape (n_samples,)
        Held-out data for the score curves.
    title : str, default="rulebook comparison"
    scores : DataFrame, optional
        A table to show first (e.g. the test score per number of rules);
        default: :func:`score_table`, the score of the model after each
        boosting round. A table passed here should be made the same way
        (``rulebook compare`` does).
    notes : sequence of str
        Lines shown under the title (data set, split, skipped learners).

    Returns
    -------
    str
        A complete HTML document with no external resources.

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> page = comparison_report({"greedy": RuleBoostingRegressor(n_rules=2).fit(X, y)}, X, y)
    >>> page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    True
    """
    if scores is None:
        scores = score_table(models, X_test, y_test)
    parts = [f"<h1>{_text(title)}</h1>"]
    parts += [f"<p class=\"rb-note\">{_text(note)}</p>" for note in notes]
    scores = scores.rename(columns=lambda column: escape_unsafe(str(column)))
    table = scores.to_html(index=False, classes="rb-scores", border=0, float_format=lambda v: f"{v:.4g}")
    parts.append(_section("Score by number of rules", table + _figure(
        lambda: charts.score_curve(models, X_test, y_test).properties(width=500))))
    for name, model in models.items():
        body = estimator_repr(model)
        body += _figure(lambda: charts.rule_weights_chart(model))
        body += _figure(lambda: charts.search_effort_chart(model))
        if any(c.startswith("pruned_") for c in model.history_.columns):
            body += _figure(lambda: charts.pruning_chart(model))
        parts.append(_section(f"Learner: {name}", body))
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_text(title)}</title><style>{_PAGE_CSS}</style></head>"
            f"<body>{''.join(parts)}</body></html>")


def score_table(models, X_test, y_test):
    """Test score per number of rules, one column per model (wide form).

    The score in row ``k`` is that of the model after boosting round ``k``
    (``staged_ensembles()``): after corrective updates
    (``learner="orthogonal"``) every round re-fits all weights, so that is
    not ``ensemble_[:k]``, the final weights on the first ``k`` rules.

    Parameters
    ----------
    models : dict of {str: fitted estimator}
    X_test : DataFrame of shape (n_samples, n_features)
    y_test : array-like of shape (n_samples,)

    Returns
    -------
    DataFrame
        Column ``rules`` (int) then one score column per model (float64;
        ROC AUC, R^2 or mean Poisson deviance by the models' loss).

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> score_table({"greedy": RuleBoostingRegressor(n_rules=2).fit(X, y)}, X, y).columns.tolist()
    ['rules', 'greedy']
    """
    data = charts.score_curve_data(models, X_test, y_test)
    wide = data.pivot(index="n_rules", columns="model", values="score")
    wide = wide[[escape_unsafe(str(name)) for name in models]]  # as charts name them
    wide.columns.name = None
    return wide.rename_axis("rules").reset_index()


def write_report(path, models, X_test, y_test, **kwargs):
    """Write :func:`comparison_report` to ``path`` (UTF-8) and return the path.

    Parameters
    ----------
    path : str or Path
    models, X_test, y_test, **kwargs
        As in :func:`comparison_report`.

    Returns
    -------
    Path
    """
    path = Path(path)
    path.write_text(comparison_report(models, X_test, y_test, **kwargs), encoding="utf-8")
    return path

