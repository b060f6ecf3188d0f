"""Jupyter widgets: step through a boosting run, compare learners round by round.

:class:`BoostingExplorer` shows a fitted model after round ``t`` of
boosting, the rule chosen in that round with its search statistics, and the
charts of :mod:`rulebook.charts` with round ``t`` emphasised; a play button
and a slider move ``t``, and clicking a round in a chart moves the slider
(the charts are Altair ``JupyterChart`` widgets, which report their
selections back to Python).

:class:`LearnerComparison` fits one model per learner of
:data:`rulebook.learners.LEARNERS` (with a progress bar) and shows, per
round, the rule each learner chose, where they differ, and their score
curves.

Per-round scores come from the estimator's ``staged_ensembles()``, the
model after each round: after a corrective update (orthogonal learner) the
first ``k`` rules of the final model are not that model.

Both are ``ipywidgets.VBox`` subclasses whose state lives in Python traits,
so they are tested without a browser: set ``.round``, call ``.click()`` on
the buttons, or assign a chart's ``_vl_selections`` as the browser would.
``ipywidgets`` (and ``anywidget`` for clickable charts) are imported with
this module; without ``anywidget`` the charts are static images.

The charts draw without network by default: their widgets carry vega's
JavaScript (``rulebook.set_options(widget_charts="offline")``, see
:class:`rulebook.set_options`). Where widgets cannot render (a notebook
reopened without its kernel, GitHub, nbviewer, an untrusted notebook), the
output shows the model's rules instead, as text or HTML.
"""

import html
import time

import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets
from tqdm.auto import tqdm

from . import charts
from ._formatting import format_number, format_weight
from ._options import OPTIONS
from ._canonical import escape_unsafe
from ._repr_html import (
    _is_missing,
    _load_css,
    condition_html,
    ensemble_repr,
    format_percent,
    header,
    rules_table,
    section,
    wrap,
)
from .learners import LEARNERS

__all__ = ["BoostingExplorer", "LearnerComparison", "available_learners"]

# The three learners of the paper, in the order they are shown.
PAPER_LEARNERS = ("greedy", "optimal", "orthogonal")
_SELECTION = "round"


def available_learners(learners=PAPER_LEARNERS):
    """Split learner names into those registered now and those not.

    Parameters
    ----------
    learners : sequence of str

    Returns
    -------
    (list of str, list of str)
        The names in :data:`rulebook.learners.LEARNERS`, then the others,
        both in the given order.

    Examples
    --------
    >>> available, missing = available_learners(("greedy", "no-such-learner"))
    >>> available, missing
    (['greedy'], ['no-such-learner'])
    """
    names = list(dict.fromkeys(learners))
    return [n for n in names if n in LEARNERS], [n for n in names if n not in LEARNERS]


# -- small HTML pieces -------------------------------------------------------------
def _table(frame, highlight=None, classes="rb-table", wrap_columns=(), queries=None):
    """An escaped HTML table of a DataFrame; row label ``highlight`` emphasised.

    Cells of ``wrap_columns`` (rule text) wrap within the stylesheet's
    ``rb-cond`` width; every other cell stays on one line. A rule text
    found in ``queries`` (``{str(query): query}``) is shown as
    :func:`~rulebook._repr_html.condition_html` does, so that lines break
    between conditions.
    """
    queries = queries or {}
    columns = list(frame.columns)
    wraps = [c in wrap_columns for c in columns]
    head = "".join([f"<th>{html.escape(str(frame.index.name or ''))}</th>"]
                   + [f"<th{_COND * w}>{html.escape(str(c))}</th>" for c, w in zip(columns, wraps)])
    rows = []
    for label, row in frame.iterrows():
        style = " class=\"rb-current\"" if label == highlight else ""
        cells = "".join(f"<td{_COND * w}>{_cell_html(v, c, queries if w else {})}</td>"
                        for v, c, w in zip(row.tolist(), columns, wraps))
        rows.append(f"<tr{style}><td>{html.escape(_cell(label, None))}</td>{cells}</tr>")
    return f"<table class=\"{classes}\"><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


_COND = " class=\"rb-cond\""


def _cell_html(value, column, queries):
    if isinstance(value, str) and value in queries:
        return condition_html(queries[value])
    return html.escape(_cell(value, column))


def _queries(*ensembles):
    return {str(rule.query): rule.query for ensemble in ensembles for rule in ensemble.rules}


def _cell(value, column):
    if _is_missing(value):
        return ""
    if isinstance(value, (float, np.floating)):
        weight = column == "weight" or str(column).startswith("weight[")
        return format_weight(float(value), 4) if weight else format_number(float(value), 4)
    return str(value)


def _styled(body):
    # The repr's stylesheet and wrapper, so the tables look like the model's repr.
    return f"<div class=\"rb-root\"><style>{_load_css()}</style><div class=\"rb-wrap\">{body}</div></div>"


def _yes_no(value):
    return "yes" if bool(value) else "no"


def _seconds(value):
    value = float(value)
    return format_number(1000 * value, 3) + " ms" if value < 0.1 else format_number(value, 3) + " s"


# What a reader needs about the rule of a round: (history column, label,
# format). Learner internals (the weights tuple, node and refinement
# counts) stay in the charts and in the repr's search statistics.
ROUND_FACTS = (
    ("weight", "weight", lambda v: format_weight(v, 4)),
    ("objective", "objective value", lambda v: format_number(v, 4)),
    ("coverage", "coverage", format_percent),
    ("train_loss", "training loss", lambda v: format_number(v, 4)),
    ("certified", "certified optimal", _yes_no),
    ("certified_ratio", "certified ratio", lambda v: format_number(v, 3)),
    ("budget_exhausted", "search budget used up", _yes_no),
    ("time", "time of the round", _seconds),
)


def round_facts(history, t, extra=(), outputs=None):
    """The facts of round ``t`` that :data:`ROUND_FACTS` names and the history holds.

    Parameters
    ----------
    history : DataFrame
        ``history_`` of a fitted estimator, indexed by round.
    t : int
        A round >= 1.
    extra : sequence of (str, str)
        Further (label, text) pairs, appended.
    outputs : sequence or None, default=None
        The outputs of a model of several: a weight recorded as a tuple (a
        weight per output) gives a fact per output, ``weight[label]``.

    Returns
    -------
    list of (str, str)
        Label and formatted value; missing values are left out.

    Examples
    --------
    >>> import pandas as pd
    >>> history = pd.DataFrame({"weight": [None, 2.0372081], "coverage": [1.0, 0.329259],
    ...                         "n_steps": [None, 3], "time": [0.0, 0.01234]})
    >>> round_facts(history, 1)
    [('weight', '+2.037'), ('coverage', '32.9%'), ('time of the round', '12.3 ms')]
    """
    row = history.loc[t]
    facts = []
    for column, label, text in ROUND_FACTS:
        if column not in row.index or _is_missing(row[column]):
            continue
        value = row[column]
        if isinstance(value, (tuple, list)):  # a head: a weight per output
            names = range(len(value)) if outputs is None else outputs
            facts += [(f"{label}[{escape_unsafe(str(name))}]", text(v)) for name, v in zip(names, value)]
        else:
            facts.append((label, text(value)))
    return facts + list(extra)


def _weights_text(weight):
    """A weight, or a head's weights (one per output) separated by spaces."""
    if isinstance(weight, (tuple, list)):
        return " ".join(format_weight(w, 4) for w in weight)
    return format_weight(weight, 4)


def _facts_table(facts):
    rows = "".join(f"<tr><th>{html.escape(label)}</th><td>{html.escape(text)}</td></tr>"
                   for label, text in facts)
    return f"<table class=\"rb-table rb-facts\"><tbody>{rows}</tbody></table>"


# -- charts that talk back -------------------------------------------------------
_OFFLINE_CHART_CLASS = []


def _offline(offline):
    """The widgets' ``offline=`` argument, None meaning the package option."""
    return OPTIONS["widget_charts"] == "offline" if offline is None else bool(offline)


def _jupyter_chart_class(offline=False):
    """``alt.JupyterChart``, or a subclass carrying its JavaScript (offline); None without anywidget."""
    try:
        import anywidget  # noqa: F401  JupyterChart is a stub without it
        import altair as alt
    except ImportError:
        return None
    if not offline or alt.JupyterChart._is_offline:
        return alt.JupyterChart
    if not _OFFLINE_CHART_CLASS:
        # What alt.JupyterChart.enable_offline() does, on a subclass, so that
        # altair's global setting stays the user's: vl-convert bundles vega
        # into the widget's JavaScript (about 1 MB per chart in the notebook).
        import vl_convert as vlc
        from altair.utils._importers import vl_version_for_vl_convert

        lines = alt.JupyterChart._esm.split("\n")
        while lines and (not lines[0].strip() or lines[0].startswith(("import", "//"))):
            lines.pop(0)
        bundle = vlc.javascript_bundle("\n".join(lines), vl_version=vl_version_for_vl_convert())
        _OFFLINE_CHART_CLASS.append(type("OfflineJupyterChart", (alt.JupyterChart,), {"_esm": bundle}))
    return _OFFLINE_CHART_CLASS[0]


def _round_selection(t):
    import altair as alt

    value = [{"round": int(t)}]
    return alt.selection_point(fields=["round"], name=_SELECTION, value=value, on="click", clear=False)


def _selected_round(vl_selections):
    """The round clicked in a chart, from JupyterChart's ``_vl_selections``."""
    from altair.utils.selection import PointSelection

    raw = (vl_selections or {}).get(_SELECTION)
    if not raw:
        return None
    points = PointSelection.from_vega(_SELECTION, raw.get("value"), raw.get("store", [])).value
    rounds = [p.get("round") for p in points if isinstance(p, dict) and p.get("round") is not None]
    return int(rounds[-1]) if rounds else None


class _ChartPanel:
    """One chart kept in step with a round: a JupyterChart, or a static image.

    Each round change re-renders the chart with the round pre-selected, and
    the browser then reports that initial selection back. Such echoes are
    not clicks: a reported round equal to one this panel drew in the last
    ``ECHO_SECONDS`` is ignored, so a stale echo cannot pull the slider back
    while it is playing or dragged.
    """

    ECHO_SECONDS = 1.0

    def __init__(self, build, t, on_click, offline=None):
        self.build = build
        self.on_click = on_click
        self._drawn = {}  # round -> time.monotonic() when last drawn
        cls = _jupyter_chart_class(_offline(offline))
        self.interactive = cls is not None
        if not self.interactive:
            self.widget = widgets.Output()
            self.update(t)
            return
        self._drawn[int(t)] = time.monotonic()
        # SVG rather than canvas: marks are elements, which browsers (and
        # the browser test) can click and screen readers can label.
        self.widget = cls(build(selection=_round_selection(t)), embed_options={"renderer": "svg"})
        self.widget.observe(self._clicked, names="_vl_selections")

    def _clicked(self, change):
        t = _selected_round(change["new"])
        if t is None or time.monotonic() - self._drawn.get(t, -np.inf) < self.ECHO_SECONDS:
            return
        self.on_click(t)

    def update(self, t):
        if self.interactive:
            self._drawn[int(t)] = time.monotonic()
            self.widget.chart = self.build(selection=_round_selection(t))
            return
        self.widget.clear_output(wait=True)
        with self.widget:
            from IPython.display import display

            display(self.build(highlight_round=t))


def _chart_builders(model, X_test, y_test, metric=None):
    """``{title: build(**emphasis)}`` for the charts this model has data for."""
    builders = {}
    if X_test is not None and y_test is not None:
        builders["score by rules"] = lambda **kw: charts.score_curve(
            {_learner_label(model): model}, X_test, y_test, metric, **kw)
    builders["rule weights"] = lambda **kw: charts.rule_weights_chart(model, **kw)
    builders["search effort"] = lambda **kw: charts.search_effort_chart(model, **kw)
    builders["pruning"] = lambda **kw: charts.pruning_chart(model, **kw)
    usable = {}
    for title, build in builders.items():
        try:
            build()
        except (ValueError, KeyError):
            continue  # e.g. no pruning statistics for greedy search
        usable[title] = build
    return usable


def _learner_label(model):
    learner = getattr(model, "learner", "model")
    return learner if isinstance(learner, str) else type(learner).__name__


class BoostingExplorer(widgets.VBox):
    """Step through the rounds of a fitted boosting model.

    Shows the model after round ``t`` (its rules, as the notebook repr),
    the scores of every round with round ``t`` marked, the rule chosen in
    round ``t`` with what a reader needs to judge it (:data:`ROUND_FACTS`:
    weight, objective value, coverage, training loss, test score,
    certified optimality, time), and the charts with round ``t``
    emphasised. A play button, a slider and previous/next buttons move
    ``t``; clicking a round in a chart moves the slider too.

    The model after round ``t`` and its scores come from the estimator's
    ``staged_ensembles()``: with corrective updates every round re-fits
    all weights, so it is not the first ``t`` rules of the final model.

    Parameters
    ----------
    model : fitted RuleBoostingClassifier or RuleBoostingRegressor
        Needs ``ensemble_``, ``history_`` and ``staged_ensembles()``.
    X_test, y_test : DataFrame and array-like, optional
        Held-out data: adds a test score column and a score-by-rules chart.
        For a multi-label or multi-output model ``y_test`` has a column per
        output.
    round : int, optional
        Round shown first; default the last one.
    metric : str or callable, optional
        The test score, as in :func:`rulebook.charts.score_curve` (e.g.
        ``"log_loss"``); default: the model's (ROC AUC, R², mean Poisson
        deviance; accuracy for classes, micro-F1 for labels, mean R² over
        the outputs of a multi-output regression).
    offline : bool, optional
        Ship the charts' JavaScript (vega, via vl-convert) inside the
        widget, about 1 MB per chart, so they draw without a network; or
        load it from a CDN (``False``). Default: the package option,
        ``rulebook.set_options(widget_charts="offline")``.

    Attributes
    ----------
    round : int (trait)
        The round shown; setting it updates everything.
    slider : ipywidgets.IntSlider
    play : ipywidgets.Play
    previous_button, next_button : ipywidgets.Button
    rules_html, rule_html, scores_html : ipywidgets.HTML
        The ensemble after round ``round``; the rule of that round with
        its facts (a weight per output for a model of several); the
        per-round scores.
    stages : list of RuleEnsemble
        The model after each round, ``stages[0]`` the intercept alone.
    score_table : DataFrame
        Index ``round``: rule, weight (with several outputs a column per
        output, ``weight[label]``, as in ``to_frame()``), complexity,
        training loss and, with test data, the test score of
        ``stages[round]``.
    charts : dict of {str: widget}
        ``altair.JupyterChart`` per chart title (``ipywidgets.Output``
        with a static chart when ``anywidget`` is missing).

    Raises
    ------
    ValueError
        If the model is not fitted.

    Examples
    --------
    >>> from rulebook import RuleBoostingClassifier
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    >>> explorer = BoostingExplorer(model)
    >>> explorer.round
    3
    >>> explorer.previous_button.click()
    >>> explorer.round, explorer.slider.value
    (2, 2)
    """

    round = traitlets.Int(0)

    def __init__(self, model, X_test=None, y_test=None, *, round=None, offline=None, metric=None):
        if not hasattr(model, "ensemble_") or not hasattr(model, "history_"):
            raise ValueError(f"{type(model).__name__} is not fitted; call fit before exploring it.")
        self.model = model
        self.metric = metric
        self.ensemble = model.ensemble_
        # The model after each round (corrective fits re-weight every rule).
        self.stages = list(model.staged_ensembles())
        self.history = model.history_
        self.n_rounds = len(self.ensemble)
        self.score_table = self._score_table(X_test, y_test)
        start = self.n_rounds if round is None else int(round)
        self.slider = widgets.IntSlider(value=start, min=0, max=self.n_rounds, description="round",
                                        continuous_update=True)
        self.play = widgets.Play(value=start, min=0, max=self.n_rounds, interval=1000, description="play")
        widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.previous_button = widgets.Button(description="◀", tooltip="previous round",
                                              layout=widgets.Layout(width="3em"))
        self.next_button = widgets.Button(description="▶", tooltip="next round",
                                          layout=widgets.Layout(width="3em"))
        # Side by side where both fit (a 1,000 px notebook column), else the
        # rule of the round wraps below the model; a table wider than its
        # box scrolls inside it.
        self.rules_html = widgets.HTML(layout=widgets.Layout(flex="1 1 560px", overflow="auto"))
        self.rule_html = widgets.HTML(layout=widgets.Layout(flex="1 1 300px", overflow="auto"))
        self.scores_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.charts = {}
        self._panels = {}
        for title, build in _chart_builders(model, X_test, y_test, metric).items():
            panel = _ChartPanel(build, start, self._set_round, offline)
            self._panels[title] = panel
            self.charts[title] = panel.widget
        chart_tabs = widgets.Tab(children=list(self.charts.values()), titles=list(self.charts))
        super().__init__(children=[
            widgets.HBox([self.play, self.previous_button, self.slider, self.next_button]),
            widgets.HBox([self.rules_html, self.rule_html], layout=widgets.Layout(flex_flow="row wrap")),
            self.scores_html,
            chart_tabs,
        ])
        self.add_class("rb-explorer")
        self.rules_html.add_class("rb-explorer-rules")
        traitlets.link((self.slider, "value"), (self, "round"))
        self.previous_button.on_click(lambda _: self._set_round(self.round - 1))
        self.next_button.on_click(lambda _: self._set_round(self.round + 1))
        self.observe(self._show, names="round")
        self._show({"new": self.round})  # the link has set round = start

    @traitlets.validate("round")
    def _clip(self, proposal):
        return int(min(max(proposal["value"], 0), self.n_rounds))

    def _set_round(self, t):
        self.round = t

    def _score_table(self, X_test, y_test):
        columns = [c for c in ("rule", "weight", "complexity", "train_loss") if c in self.history]
        table = self.history[columns].rename(columns={"train_loss": "training loss"})
        if self.ensemble.outputs is not None and "weight" in table:
            # A weight column per output, named as to_frame() names them.
            heads = pd.DataFrame(table.pop("weight").tolist(), index=table.index,
                                 columns=self.ensemble.weight_columns())
            table = pd.concat([table.iloc[:, :1], heads, table.iloc[:, 1:]], axis=1)
        # The rule as its query prints now (history_["rule"] is the text at fit time).
        table["rule"] = ["(intercept)"] + [str(rule.query) for rule in self.ensemble.rules]
        if X_test is not None and y_test is not None:
            # score_curve_data scores staged_ensembles(), the model after each round.
            curve = charts.score_curve_data(self.model, X_test, y_test, self.metric).set_index("round")
            table[f"test {curve['metric'].iloc[0]}"] = curve["score"]
        return table

    def rule_facts(self, t):
        """(label, text) pairs describing the rule of round ``t`` (see :func:`round_facts`).

        Parameters
        ----------
        t : int
            A round from 1 to ``n_rounds``.

        Returns
        -------
        list of (str, str)
        """
        extra = [(column, format_number(self.score_table.loc[t, column], 4))
                 for column in self.score_table.columns if str(column).startswith("test ")]
        final = self.ensemble.rules[t - 1].weight
        if not np.allclose(final, self.history.loc[t, "weight"]):
            # Corrective updates re-fit this rule's weight in later rounds.
            extra.append(("weight in the final model", _weights_text(final)))
        facts = round_facts(self.history, t, outputs=self.ensemble.outputs)
        at = next((i for i, (label, _) in enumerate(facts) if label == "time of the round"), len(facts))
        return facts[:at] + extra + facts[at:]

    def _show(self, change):
        t = change["new"]
        self.rules_html.value = f"<h4>Model after round {t}</h4>" + ensemble_repr(self.stages[t])
        if t == 0:
            chosen = "<h4>Round 0</h4><p>The intercept only.</p>"
        else:
            query = self.ensemble.rules[t - 1].query
            chosen = (f"<h4>Rule of round {t}</h4>"
                      f"<p class=\"rb-rule\" title=\"{html.escape(str(query))}\">{condition_html(query)}</p>"
                      + _facts_table(self.rule_facts(t)))
        self.rule_html.value = _styled(chosen)
        self.scores_html.value = _styled("<h4>Scores by round</h4>" + _table(
            self.score_table, highlight=t, wrap_columns=("rule",), queries=_queries(self.ensemble)))
        for panel in self._panels.values():
            panel.update(t)

    # -- where widgets cannot render ------------------------------------------
    def _fallback_text(self):
        t = self.round
        return (f"{type(self).__name__}: {self.model!r} after round {t} of {self.n_rounds} "
                f"(an interactive widget; run the cell to explore it)\n{self.stages[t]!r}")

    def _repr_mimebundle_(self, **kwargs):
        """The widget, and the model's rules for frontends that cannot show it.

        A notebook reopened without its kernel, GitHub, nbviewer and
        untrusted notebooks show the text or HTML instead of a raw widget
        repr; JupyterLab with the kernel shows the widget.
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        text = self._fallback_text()
        t = self.round
        chips = [("model", type(self.model).__name__), ("round", f"{t} of {self.n_rounds}"),
                 ("rules", str(len(self.stages[t])))]
        sections = [
            section("Rules", str(len(self.stages[t])), rules_table(self.stages[t], OPTIONS["display_max_rules"]),
                    True),
            section("Scores by round", str(len(self.score_table)), _table(
                self.score_table, highlight=t, wrap_columns=("rule",), queries=_queries(self.ensemble)), False),
        ]
        bundle["text/plain"] = text
        bundle["text/html"] = wrap(text, header(type(self).__name__, chips), sections)
        return bundle


class LearnerComparison(widgets.VBox):
    """Fit several rule learners on the same data and compare them round by round.

    Each available learner is fitted (a progress bar counts the fits while
    they run, then the widget's own bar shows they are done); then
    a slider picks a round and the widget shows the rule each learner chose
    in that round with its weight, training loss and test score, marking
    where they differ, a table of all rounds side by side, and the
    learners' score curves. Scores are those of each estimator's
    ``staged_ensembles()``, the model after the round.

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    learners : sequence of str, optional
        Learner names; default: those of ``"greedy"``, ``"optimal"``,
        ``"orthogonal"`` that :data:`rulebook.learners.LEARNERS` has. Names
        it lacks are skipped with a note in the widget.
    n_rules : int, default=10
    task : {"binary", "multiclass", "regression", "poisson"}, optional
        Default: ``"binary"`` when ``y`` has two values, ``"multiclass"``
        for more values that are not numbers (class labels; numeric class
        codes need ``task="multiclass"``), else ``"regression"``. A
        multi-class comparison shows a weight per class and scores the test
        accuracy.
    test_size : float in (0, 1) or None, default=0.2
        Fraction held out for the score curves (stratified for binary and
        multi-class tasks); ``None`` fits and scores on all rows.
    random_state : int, default=0
        Seed of the split.
    verbose : int, default=1
        ``0`` hides the progress bars (also the per-round bar of each fit).
    offline : bool, optional
        As in :class:`BoostingExplorer`.
    **params
        Further estimator parameters (``reg_lambda``, ``max_bins``, ...).

    Attributes
    ----------
    models : dict of {str: fitted estimator}
    notes : list of str
        E.g. ``"orthogonal: not available yet"``.
    rules : DataFrame
        Index ``round``; one column per learner with the rule's condition,
        and ``differ`` (bool).
    scores : DataFrame
        Index ``round`` (0 ...); one column per learner with the test
        score of its model after that round (NaN after its last round).
    metric : str
        The score's name, e.g. ``"ROC AUC"``.
    round : int (trait)
    slider : ipywidgets.IntSlider
    progress : ipywidgets.IntProgress
    round_html, table_html, notes_html : ipywidgets.HTML
    chart : altair.JupyterChart or ipywidgets.Output

    Raises
    ------
    ValueError
        If none of the learners is available, or an unknown task.

    Examples
    --------
    >>> from rulebook.datasets import load_titanic
    >>> X, y = load_titanic()
    >>> comparison = LearnerComparison(X, y, learners=["greedy", "no-such"], n_rules=2, verbose=0)
    >>> comparison.notes
    ['no-such: not available yet']
    >>> comparison.rules.columns.tolist()
    ['greedy', 'differ']
    >>> comparison.scores.index.tolist()
    [0, 1, 2]
    """

    round = traitlets.Int(1)

    def __init__(self, X, y, learners=None, *, n_rules=10, task=None, test_size=0.2, random_state=0,
                 verbose=1, offline=None, **params):
        from .estimators import RuleBoostingClassifier, RuleBoostingRegressor

        available, missing = available_learners(PAPER_LEARNERS if learners is None else learners)
        if learners is None:
            missing = []  # not asked for by name; the default is what is there
        if not available:
            raise ValueError(f"none of the learners {list(learners)} is available; "
                             f"registered learners are {sorted(LEARNERS)}.")
        y = pd.Series(np.asarray(y), name=getattr(y, "name", None))
        task = task or _comparison_task(y)
        if task not in ("binary", "multiclass", "regression", "poisson"):
            raise ValueError(f"task must be 'binary', 'multiclass', 'regression' or 'poisson'; got {task!r}.")
        self.task = task
        self.X_train, self.X_test, self.y_train, self.y_test = _split(X, y, task, test_size, random_state)
        self.notes = [f"{name}: not available yet" for name in missing]
        self.progress = widgets.IntProgress(value=0, min=0, max=len(available), description="fitting",
                                            bar_style="info")
        self.notes_html = widgets.HTML(_notes_html(self.notes))
        super().__init__(children=[self.progress, self.notes_html])
        if not verbose:
            self.progress.layout.display = "none"
        self.add_class("rb-comparison")
        self.models = {}
        # The widget is displayed only once __init__ returns, so its own
        # IntProgress cannot show the fits: a bar of tqdm.auto does (a
        # widget in a notebook, text elsewhere), shown at once and removed
        # after the last fit; each fit adds its per-round bar below it.
        bar = tqdm(total=len(available), desc="comparing learners", disable=not verbose,
                   leave=False, bar_format="{desc}: {n_fmt}/{total_fmt} fits|{bar}| [{elapsed}{postfix}]")
        with bar:
            for name in available:
                self.progress.description = name
                bar.set_postfix_str(f"fitting {name}")
                if task in ("binary", "multiclass"):
                    estimator = RuleBoostingClassifier(n_rules=n_rules, learner=name, verbose=verbose,
                                                       **params)
                else:
                    loss = "poisson" if task == "poisson" else "squared"
                    estimator = RuleBoostingRegressor(n_rules=n_rules, learner=name, loss=loss,
                                                      verbose=verbose, **params)
                self.models[name] = estimator.fit(self.X_train, self.y_train)
                self.progress.value += 1
                bar.update(1)
        self.progress.description = "fitted"
        self.progress.bar_style = "success"
        self.rules = _rules_side_by_side(self.models)
        self._query_of = _queries(*(model.ensemble_ for model in self.models.values()))
        # score_curve_data scores staged_ensembles(), the model after each round.
        curves = charts.score_curve_data(self.models, self.X_test, self.y_test)
        self.metric = str(curves["metric"].iloc[0])
        self.scores = curves.pivot(index="round", columns="model", values="score")[list(self.models)]
        self.scores.columns.name = None
        self.n_rounds = max(len(m.ensemble_) for m in self.models.values())
        self.slider = widgets.IntSlider(value=min(1, self.n_rounds), min=0, max=self.n_rounds,
                                        description="round")
        self.round_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self.table_html = widgets.HTML(layout=widgets.Layout(overflow="auto"))
        self._panel = _ChartPanel(
            lambda **kw: charts.score_curve(self.models, self.X_test, self.y_test, **kw),
            self.slider.value, self._set_round, offline)
        self.chart = self._panel.widget
        self.children = [self.progress, self.notes_html, self.slider, self.round_html, self.chart,
                         self.table_html]
        traitlets.link((self.slider, "value"), (self, "round"))
        self.observe(self._show, names="round")
        self._show({"new": self.round})

    @traitlets.validate("round")
    def _clip(self, proposal):
        return int(min(max(proposal["value"], 0), getattr(self, "n_rounds", proposal["value"])))

    def _set_round(self, t):
        self.round = t

    def round_frame(self, t):
        """The learners' rules of round ``t`` side by side.

        Parameters
        ----------
        t : int
            A round from 1 to ``n_rounds``.

        Returns
        -------
        DataFrame
            Index ``learner``; columns ``rule``, ``weight`` and ``training
            loss`` (from each ``history_``, i.e. after that round) and
            ``test <metric>`` (of the model after that round). With several
            outputs (classes), ``weight`` is the text of the rule's weights,
            one per class in the order of ``classes_``.
        """
        row = self.rules.loc[t]
        frame = pd.DataFrame({"rule": row.drop("differ")}).rename_axis("learner")
        weights = [model.history_["weight"].get(t, np.nan) for model in self.models.values()]
        if any(isinstance(w, (tuple, list)) for w in weights):  # a head: its weights as text
            weights = [_weights_text(w) if isinstance(w, (tuple, list)) else "" for w in weights]
        frame["weight"] = weights
        for name, model in self.models.items():
            history = model.history_
            frame.loc[name, "training loss"] = history["train_loss"].get(t, np.nan)
        frame[f"test {self.metric}"] = self.scores.loc[t] if t in self.scores.index else np.nan
        return frame

    def _show(self, change):
        t = change["new"]
        if t == 0:
            body = "<p>Round 0: every learner fits the same intercept.</p>"
        else:
            verdict = "the learners differ" if self.rules.loc[t, "differ"] else "all learners agree"
            body = f"<p>Round {t}: <b>{verdict}</b>.</p>" + _table(
                self.round_frame(t), wrap_columns=("rule",), queries=self._query_of)
        self.round_html.value = _styled(body)
        self.table_html.value = _styled("<h4>Rules by round</h4>" + _table(
            self.rules, highlight=t, wrap_columns=tuple(self.models), queries=self._query_of))
        self._panel.update(t)

    # -- where widgets cannot render ------------------------------------------
    def _fallback_text(self):
        lines = [f"{type(self).__name__} of {', '.join(self.models)} "
                 f"(an interactive widget; run the cell to compare the learners)"]
        lines += self.notes
        for name, model in self.models.items():
            lines += ["", f"{name}:", repr(model.ensemble_)]
        return "\n".join(lines)

    def _repr_mimebundle_(self, **kwargs):
        """The widget, and the learners' rules for frontends that cannot show it.

        As :meth:`BoostingExplorer._repr_mimebundle_`.
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        text = self._fallback_text()
        chips = [("learners", ", ".join(self.models)), ("task", self.task), ("rounds", str(self.n_rounds))]
        scores = self.scores.rename_axis("round").rename(columns=lambda name: f"{name}: test {self.metric}")
        sections = [
            section("Rules by round", str(len(self.rules)),
                    _table(self.rules, wrap_columns=tuple(self.models), queries=self._query_of), True),
            section("Scores by round", str(len(scores)), _table(scores), True),
        ]
        bundle["text/plain"] = text
        bundle["text/html"] = wrap(text, header(type(self).__name__, chips), sections)
        return bundle


def _notes_html(notes):
    return "".join(f"<p class=\"rb-note\">{html.escape(note)}</p>" for note in notes)


def _comparison_task(y):
    """The task of a column ``y``: two values binary, more classes if they are not numbers."""
    if y.nunique() == 2:
        return "binary"
    numeric = pd.api.types.is_numeric_dtype(pd.Series(y.tolist()).infer_objects())
    return "regression" if numeric else "multiclass"


def _split(X, y, task, test_size, random_state):
    if test_size is None:
        return X, y, X, y
    from sklearn.model_selection import train_test_split

    stratify = y if task in ("binary", "multiclass") else None
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=random_state, stratify=stratify)
    return X_train, X_test, y_train, y_test


def _rules_side_by_side(models):
    """Index ``round`` (1..), a column of conditions per learner, and ``differ``."""
    n = max(len(m.ensemble_) for m in models.values())
    columns = {}
    for name, model in models.items():
        rules = [str(rule.query) for rule in model.ensemble_.rules]
        columns[name] = rules + [""] * (n - len(rules))
    frame = pd.DataFrame(columns, index=pd.RangeIndex(1, n + 1, name="round"))
    frame["differ"] = frame.nunique(axis=1) > 1
    return frame
