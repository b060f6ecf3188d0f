"""A self-contained HTML report comparing fitted rule ensembles.

The report opens offline: the rich reprs carry their stylesheet inline and
the charts are inline SVG made by vl-convert, so there are no scripts and no
links to load. ``rulebook compare ... --report report.html`` writes one.

vl-convert draws in a child process (:mod:`rulebook._svg_render`): its
JavaScript engine can abort the process it runs in (under an address-space
limit it always does), and a report must not take the caller's interpreter
with it. When drawing fails the page comes without the images, a note in
their place, and a warning says why.
"""

import html
import warnings
from pathlib import Path

from . import charts
from ._canonical import escape_unsafe
from ._repr_html import estimator_repr
from ._svg_render import MISSING, render_svgs

__all__ = ["chart_svg", "comparison_report", "score_table", "write_report"]

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

    vl-convert draws it in a child process, so that a crash of its
    JavaScript engine (e.g. under ``ulimit -v``) cannot end this one.

    Parameters
    ----------
    chart : altair.Chart or any top-level Altair chart

    Returns
    -------
    str
        SVG markup, or an HTML note saying why the chart is missing (no
        ``vl-convert-python``, or drawing failed).

    Warns
    -----
    UserWarning
        When vl-convert is installed but could not draw the chart; the
        message says why.

    Examples
    --------
    >>> import altair as alt, pandas as pd
    >>> svg = chart_svg(alt.Chart(pd.DataFrame({"x": [1, 2]})).mark_point().encode(x="x"))
    >>> svg.lstrip().startswith("<svg")
    True
    """
    [(svg, why)] = render_svgs([chart.to_dict()])
    _warn_undrawn([why], stacklevel=2)
    return svg if svg is not None else _missing_chart(why)


def _warn_undrawn(reasons, stacklevel):
    """One warning for the charts vl-convert could not draw (none when it is not installed)."""
    failed = [why for why in reasons if why not in (None, MISSING)]
    if failed:
        causes = "; ".join(dict.fromkeys(failed))  # each cause once, in order
        warnings.warn(f"{len(failed)} chart(s) could not be drawn and are left out of the "
                      f"HTML, which is complete otherwise: {causes}.", UserWarning,
                      stacklevel=stacklevel + 1)


def _missing_chart(why):
    """The note in place of a chart that was not drawn."""
    return _note(why if why == MISSING else f"Chart not drawn: {why}.")


def _note(text):
    return f"<p class=\"rb-note\">{_text(text)}</p>"


def _text(text):
    """Plain text as HTML: escaped, control and bidi characters as visible escapes."""
    return html.escape(escape_unsafe(str(text)))


class _Figures:
    """The charts of a page, drawn together in one child process at the end.

    ``add`` returns a slot for a chart's place in the page (or a note when
    the chart cannot be made); ``fill`` joins the page's parts, each slot
    replaced by its SVG or by a note saying why the chart is missing.
    """

    def __init__(self):
        self.specs = []

    def add(self, make, *args):
        try:
            spec = make(*args).to_dict()
        except ValueError as error:  # e.g. no pruning statistics for greedy search
            return _note(error)
        self.specs.append(spec)
        return _Slot(len(self.specs) - 1)

    def fill(self, parts):
        drawn = render_svgs(self.specs)
        _warn_undrawn([why for _, why in drawn], stacklevel=3)  # comparison_report's caller
        shown = [_missing_chart(why) if svg is None else f"<div class=\"rb-chart\">{svg}</div>"
                 for svg, why in drawn]
        return "".join(shown[part.index] if isinstance(part, _Slot) else part for part in parts)


class _Slot:
    """Where chart number ``index`` of a page goes."""

    def __init__(self, index):
        self.index = index



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

    Warns
    -----
    UserWarning
        When vl-convert is installed but could not draw the charts (its
        process crashed, e.g. under an address-space limit, or timed out):
        the page is complete without them, a note in each chart's place.

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
    figures = _Figures()
    parts = [f"<h1>{_text(title)}</h1>", *(_note(note) for note in notes)]
    scores = scores.rename(columns=lambda column: escape_unsafe(str(column)))
    table = scores.to_html(index=False, classes="rb-scores", border=0, float_format=lambda v: f"{v:.4g}")
    parts += [_heading("Score by number of rules"), table,
              figures.add(lambda: charts.score_curve(models, X_test, y_test).properties(width=500)),
              "</section>"]
    for name, model in models.items():
        parts += [_heading(f"Learner: {name}"), estimator_repr(model),
                  figures.add(charts.rule_weights_chart, model),
                  figures.add(charts.search_effort_chart, model)]
        if any(c.startswith("pruned_") for c in model.history_.columns):
            parts.append(figures.add(charts.pruning_chart, model))
        parts.append("</section>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_text(title)}</title><style>{_PAGE_CSS}</style></head>"
            f"<body>{figures.fill(parts)}</body></html>")


def _heading(title):
    """A section's start; the section ends with ``</section>``."""
    return f"<section><h2>{_text(title)}</h2>"


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
        by the models' target, as :func:`rulebook.charts.score_curve_data`:
        ROC AUC, R^2 or mean Poisson deviance for one output; accuracy for
        several classes, micro-F1 for several labels, the mean R^2 (or
        mean Poisson deviance) over several targets).

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

    Warns
    -----
    UserWarning
        As :func:`comparison_report`.
    """
    path = Path(path)
    path.write_text(comparison_report(models, X_test, y_test, **kwargs), encoding="utf-8")
    return path

