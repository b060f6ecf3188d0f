"""Rich notebook reprs of rule ensembles and fitted estimators, the xarray way.

Small pure functions return HTML strings that compose into the repr
(modelled on ``xarray/core/formatting_html.py``):

* the stylesheet ``rulebook/static/repr.css`` is package data, read once
  (``lru_cache``); its colours are JupyterLab's CSS variables with
  fallbacks, and dark-theme selectors for JupyterLab, VS Code and others;
* an escaped ``<pre>`` text fallback comes first and the rich part is
  hidden by an inline ``display:none`` that only the stylesheet undoes: a
  notebook whose styles were stripped (untrusted, GitHub, nbviewer without
  CSS) shows the text;
* sections collapse with ``<details>``/``<summary>``, without JavaScript
  and without element ids. xarray pairs checkboxes with labels through
  random ids; here there are no ids at all, so the output is a pure
  function of the model (notebooks diff cleanly) and two displays of the
  same model cannot toggle each other's sections;
* every user string (column names, categories, parameter values) goes
  through :func:`html.escape`.

Entry points: :func:`ensemble_repr`, :func:`estimator_repr` (always HTML),
and the notebook hooks :func:`repr_html` and :func:`repr_mimebundle`, which
honour ``rulebook.set_options(display="text")``.
"""

import html
import inspect
import math
import numbers
from functools import cache
from importlib.resources import files

import numpy as np
import pandas as pd

from ._canonical import escape_unsafe
from ._formatting import format_number, format_weight
from ._options import OPTIONS
from .rules import RuleEnsemble

# History columns not repeated in the search statistics: the rules table
# shows them, and ``trace`` holds a tuple per round (see rulebook.charts).
_HISTORY_SKIP = ("rule", "weight", "coverage", "length", "trace")

# Column-name prefixes grouped under one header cell, e.g. the four pruning
# counts of Boley et al. (2021), Table 2.
_HISTORY_GROUPS = (
    ("nodes_", "nodes"),
    ("pruned_bound_", "pruned by bound"),
    ("pruned_equivalence_", "pruned by equivalence"),
)

_HISTORY_LABELS = {
    "train_loss": "train loss",
    "time": "time (s)",
    "search_time": "search (s)",
    "n_refinements": "refinements",
    "n_steps": "steps",
    "certified_ratio": "certified ratio",
    "upper_bound": "upper bound",
}

_TIME_COLUMNS = ("time", "search_time")


@cache
def _load_css():
    """The stylesheet, read from the package data once per process."""
    return files("rulebook").joinpath("static", "repr.css").read_text(encoding="utf-8")


def _escape(value):
    return html.escape(str(value), quote=True)


# -- small formatting helpers ----------------------------------------------
def _is_missing(value):
    if value is None or value is pd.NA:
        return True
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(value)


def format_percent(fraction):
    """A fraction as a short percentage: ``0.3285`` -> ``'32.8%'``.

    Examples
    --------
    >>> format_percent(0.328495), format_percent(1.0), format_percent(None)
    ('32.8%', '100%', '–')
    """
    if _is_missing(fraction):
        return "–"
    return format_number(100 * float(fraction), 3) + "%"


def _format_cell(value, column):
    """One history value as text: blank if missing, marks for booleans."""
    if _is_missing(value):
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "✓" if value else "✗"
    if column in _TIME_COLUMNS:
        return format_number(value, 3)
    if isinstance(value, numbers.Real):
        return format_number(value, 4)
    return str(value)


# -- building blocks -----------------------------------------------------------
def wrap(text, header, sections):
    """The outer markup: stylesheet, text fallback, hidden rich part.

    Parameters
    ----------
    text : str
        Plain text repr, shown when the stylesheet is missing (escaped here).
    header : str
        HTML of the header.
    sections : list of str
        HTML of the sections, in order.

    Returns
    -------
    str

    Examples
    --------
    >>> page = wrap("<x>", "<div>h</div>", [])
    >>> "&lt;x&gt;" in page and "<x>" not in page
    True
    """
    return (
        "<div class=\"rb-root\">"
        f"<style>{_load_css()}</style>"
        f"<pre class=\"rb-text-repr-fallback\">{_escape(text)}</pre>"
        "<div class=\"rb-wrap\" style=\"display:none\">"
        f"{header}{''.join(sections)}"
        "</div></div>"
    )


def header(obj_type, chips):
    """Object type and a row of ``label value`` chips.

    Parameters
    ----------
    obj_type : str
    chips : list of (str, str)
        Label and value, plain text (escaped here).

    Returns
    -------
    str

    Examples
    --------
    >>> header("RuleEnsemble", [("loss", "squared")]).count("rb-chip-value")
    1
    """
    items = "".join(
        f"<li class=\"rb-chip\"><span class=\"rb-chip-label\">{_escape(label)}</span> "
        f"<span class=\"rb-chip-value\">{_escape(value)}</span></li>"
        for label, value in chips
    )
    return (
        f"<div class=\"rb-header\"><div class=\"rb-obj-type\">{_escape(obj_type)}</div>"
        f"<ul class=\"rb-chips\">{items}</ul></div>"
    )


def section(title, count, body, expanded):
    """A collapsible section: ``<details>``, open if ``expanded``.

    Parameters
    ----------
    title, count : str
        Plain text (escaped here); ``count`` is shown after the title.
    body : str
        HTML of the contents.
    expanded : bool

    Returns
    -------
    str

    Examples
    --------
    >>> section("Rules", "3", "<table></table>", True).startswith("<details class=\\"rb-section\\" open>")
    True
    """
    state = " open" if expanded else ""
    return (
        f"<details class=\"rb-section\"{state}><summary>"
        f"<span class=\"rb-section-title\">{_escape(title)}</span>"
        f"<span class=\"rb-section-count\">({_escape(count)})</span></summary>"
        f"<div class=\"rb-section-body\">{body}</div></details>"
    )


def condition_html(query):
    """A query as HTML: one unbreakable span per condition, joined by ``&``.

    Conditions are the query's canonical ones (``9.35 < Fare <= 35``,
    ``Embarked not in {C, Q}``), with category values quoted as in text.

    Examples
    --------
    >>> from rulebook import Proposition, Query
    >>> page = condition_html(Query((Proposition("<b>", "==", "x&y"),)))
    >>> "&lt;b&gt;" in page and "x&amp;y" in page and "<b>" not in page
    True
    """
    if len(query) == 0:
        return "<span class=\"rb-muted\">True</span>"
    parts = [
        f"<span class=\"rb-prop\">{_escape(text)}</span>" for text in query.condition_strings()
    ]
    return "<span class=\"rb-and\"> &amp; </span>".join(parts)


def weight_bar(weight, scale):
    """A diverging bar: right of the zero line for positive weights.

    Parameters
    ----------
    weight : float
    scale : float
        The largest absolute weight shown; it fills half the bar.

    Returns
    -------
    str
        The bar's length is an inline percentage, rounded to 0.1%.

    Examples
    --------
    >>> weight_bar(-1.0, 2.0)
    '<span class="rb-bar"><span class="rb-bar-neg" style="width:25.0%"></span></span>'
    """
    if not scale > 0 or not math.isfinite(weight):
        return "<span class=\"rb-bar\"></span>"
    side = "pos" if weight > 0 else "neg"
    return (
        f"<span class=\"rb-bar\"><span class=\"rb-bar-{side}\" "
        f"style=\"width:{50 * min(abs(weight) / scale, 1.0):.1f}%\"></span></span>"
    )


def term_effect(term):
    """A linear term's largest contribution on its range, signed as its weight.

    ``weight * (bound - centre)`` at the bound farther from the centre: what
    the term adds at most, as a rule's weight is what it adds, so that the
    bars of rules and terms share one scale.

    Examples
    --------
    >>> from rulebook.linear_terms import LinearTerm
    >>> term_effect(LinearTerm("x", 0.0, 10.0, 2.0, 1.0, -0.5))
    -4.0
    """
    return term.weight * max(term.upper - term.centre, term.centre - term.lower)


def _term_row(term, scale):
    # No rank: terms are the model's base, kept by every ensemble[:k].
    return (f"<tr class=\"rb-term\"><td></td><td>{_escape(format_weight(term.weight))}</td>"
            f"<td>{weight_bar(term_effect(term), scale)}</td><td>{_escape(format_percent(None))}</td>"
            f"<td>{len(term)}</td><td class=\"rb-cond\"><span class=\"rb-muted\">&times; </span>"
            f"<span class=\"rb-prop\">{_escape(term.expression())}</span></td></tr>")


def rules_table(ensemble, max_rules):
    """The intercept, the first ``max_rules`` rules, ``... N more rules``, the linear terms.

    A linear term's row (after the rules, unranked) shows its weight per
    unit of the column, ``× (clip(x, lower, upper) - centre)`` as its
    condition and a bar of its largest contribution (:func:`term_effect`),
    on the rules' scale.

    Parameters
    ----------
    ensemble : RuleEnsemble
    max_rules : int

    Returns
    -------
    str
        A ``<table>`` with columns rank, weight (number and diverging
        bar), coverage, length and condition.
    """
    shown = ensemble.rules[:max_rules]
    if ensemble.outputs is not None:
        return _outputs_rules_table(ensemble, shown)
    terms = ensemble.terms
    scale = max([abs(rule.weight) for rule in shown] + [abs(term_effect(t)) for t in terms], default=0.0)
    # The condition comes last, as in the text repr ("+2.5  if Age <= 19"):
    # it is the only cell of varying width, so the numbers stay aligned.
    rows = [
        "<tr class=\"rb-intercept\"><td></td>"
        f"<td>{_escape(format_weight(ensemble.intercept))}</td><td></td>"
        "<td>100%</td><td>0</td><td class=\"rb-cond\">intercept</td></tr>"
    ]
    for rank, rule in enumerate(shown, start=1):
        rows.append(
            f"<tr><td>{rank}</td><td>{_escape(format_weight(rule.weight))}</td>"
            f"<td>{weight_bar(rule.weight, scale)}</td><td>{_escape(format_percent(rule.coverage))}</td>"
            f"<td>{len(rule)}</td><td class=\"rb-cond\">{condition_html(rule.query)}</td></tr>"
        )
    hidden = len(ensemble.rules) - len(shown)
    if hidden > 0:
        noun = "rule" if hidden == 1 else "rules"
        rows.append(f"<tr class=\"rb-more\"><td colspan=\"6\">... {hidden} more {noun}</td></tr>")
    rows += [_term_row(term, scale) for term in terms]
    head = ("<thead><tr><th>#</th><th>weight</th><th></th><th>coverage</th><th>length</th>"
            "<th class=\"rb-cond\">condition</th></tr></thead>")
    return f"<table class=\"rb-table rb-rules\">{head}<tbody>{''.join(rows)}</tbody></table>"


def _outputs_rules_table(ensemble, shown):
    """:func:`rules_table` of a model with several outputs: a weight column
    (number and diverging bar) per output, headed by its label; one scale
    for all, so that bars compare across outputs."""
    scale = max((abs(w) for rule in shown for w in rule.weight), default=0.0)

    def weights(head, bars=True):
        return "".join(f"<td>{_escape(format_weight(w))}"
                       f"{weight_bar(w, scale) if bars else ''}</td>" for w in head)

    rows = [("<tr class=\"rb-intercept\"><td></td>"
             f"{weights(ensemble.intercept, bars=False)}"
             "<td>100%</td><td>0</td><td class=\"rb-cond\">intercept</td></tr>")]
    for rank, rule in enumerate(shown, start=1):
        rows.append(
            f"<tr><td>{rank}</td>{weights(rule.weight)}"
            f"<td>{_escape(format_percent(rule.coverage))}</td>"
            f"<td>{len(rule)}</td><td class=\"rb-cond\">{condition_html(rule.query)}</td></tr>")
    hidden = len(ensemble.rules) - len(shown)
    if hidden > 0:
        noun = "rule" if hidden == 1 else "rules"
        rows.append(f"<tr class=\"rb-more\"><td colspan=\"{ensemble.n_outputs + 4}\">"
                    f"... {hidden} more {noun}</td></tr>")
    labels = "".join(f"<th>{_escape(escape_unsafe(str(label)))}</th>" for label in ensemble.outputs)
    head = (f"<thead><tr><th>#</th>{labels}<th>coverage</th><th>length</th>"
            "<th class=\"rb-cond\">condition</th></tr></thead>")
    return f"<table class=\"rb-table rb-rules\">{head}<tbody>{''.join(rows)}</tbody></table>"


def _same(value, default):
    """Whether a parameter equals its default (arrays and odd types: no)."""
    if value is default:
        return True
    if _is_missing(value) and _is_missing(default):
        return True
    comparable = type(value) is type(default) or (
        isinstance(value, numbers.Number) and isinstance(default, numbers.Number))
    try:
        return comparable and bool(value == default)
    except (TypeError, ValueError):  # arrays and other odd values
        return False


def changed_params(estimator):
    """``{name: changed}`` over ``get_params(deep=False)``, sorted by name.

    A parameter has changed when it differs from the ``__init__`` default.

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> changed_params(RuleBoostingRegressor(n_rules=3))["n_rules"]
    True
    """
    signature = inspect.signature(type(estimator).__init__)
    params = estimator.get_params(deep=False)
    return {
        name: name not in signature.parameters or not _same(params[name], signature.parameters[name].default)
        for name in sorted(params)
    }


def params_table(estimator):
    """``get_params(deep=False)`` as a table; non-default values highlighted.

    Parameters
    ----------
    estimator : scikit-learn estimator

    Returns
    -------
    str
    """
    params = estimator.get_params(deep=False)
    rows = []
    for name, changed in changed_params(estimator).items():
        css = " class=\"rb-changed\"" if changed else ""
        rows.append(f"<tr{css}><td>{_escape(name)}</td>"
                    f"<td class=\"rb-cond\">{_escape(repr(params[name]))}</td></tr>")
    return f"<table class=\"rb-table rb-params\"><tbody>{''.join(rows)}</tbody></table>"


def _column_group(column):
    for prefix, group in _HISTORY_GROUPS:
        if column.startswith(prefix) and len(column) > len(prefix):
            return group, column[len(prefix):].replace("_", " ")
    return None, _HISTORY_LABELS.get(column, column.replace("_", " "))


def _history_head(columns):
    """One header row, or two when some columns share a group."""
    labelled = [(column, *_column_group(column)) for column in columns]
    if not any(group for _, group, _ in labelled):
        cells = "".join(f"<th title=\"{_escape(c)}\">{_escape(label)}</th>" for c, _, label in labelled)
        return f"<thead><tr><th>round</th>{cells}</tr></thead>"
    top, bottom, i = ["<th rowspan=\"2\">round</th>"], [], 0
    while i < len(labelled):
        column, group, label = labelled[i]
        if group is None:
            top.append(f"<th rowspan=\"2\" title=\"{_escape(column)}\">{_escape(label)}</th>")
            i += 1
            continue
        span = 1
        while i + span < len(labelled) and labelled[i + span][1] == group:
            span += 1
        top.append(f"<th colspan=\"{span}\" class=\"rb-group\">{_escape(group)}</th>")
        bottom += [f"<th title=\"{_escape(c)}\">{_escape(lab)}</th>" for c, _, lab in labelled[i:i + span]]
        i += span
    return f"<thead><tr>{''.join(top)}</tr><tr>{''.join(bottom)}</tr></thead>"


def history_columns(history):
    """History columns worth a table cell: scalar, not shown elsewhere.

    Examples
    --------
    >>> import pandas as pd
    >>> history_columns(pd.DataFrame({"rule": ["a"], "objective": [1.0], "trace": [(1, 2)]}))
    ['objective']
    """
    columns = []
    for column in history.columns:
        if column in _HISTORY_SKIP:
            continue
        values = history[column].dropna()
        if all(isinstance(v, (numbers.Number, str, bool, np.bool_)) for v in values):
            columns.append(str(column))
    return columns


def history_table(history, max_rounds):
    """Per-round search statistics; learner columns appear when present.

    Parameters
    ----------
    history : DataFrame
        ``history_`` of a fitted estimator, indexed by round.
    max_rounds : int
        Rounds shown; a last row counts the others.

    Returns
    -------
    str
    """
    columns = history_columns(history)
    shown = history.iloc[:max_rounds]
    rows = []
    for round_, record in zip(shown.index, shown[columns].itertuples(index=False, name=None)):
        cells = "".join(f"<td>{_escape(_format_cell(v, c))}</td>" for v, c in zip(record, columns))
        rows.append(f"<tr><td>{_escape(round_)}</td>{cells}</tr>")
    hidden = len(history) - len(shown)
    if hidden > 0:
        rows.append(f"<tr class=\"rb-more\"><td colspan=\"{len(columns) + 1}\">"
                    f"... {hidden} more rounds</td></tr>")
    return (f"<div class=\"rb-scroll\"><table class=\"rb-table rb-history\">{_history_head(columns)}"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


# -- header chips ----------------------------------------------------------------
def _columns_used(ensemble):
    used = {p.feature for rule in ensemble.rules for p in rule.query} | {t.feature for t in ensemble.terms}
    if ensemble.feature_names is None:
        return str(len(used))
    return f"{len(used)} of {len(ensemble.feature_names)}"


def ensemble_chips(ensemble):
    """Header facts of an ensemble: loss, rules, complexity, columns used.

    Examples
    --------
    >>> from rulebook import RuleEnsemble
    >>> ensemble_chips(RuleEnsemble(0.5))
    [('loss', 'squared'), ('rules', '0'), ('complexity', '0'), ('columns used', '0')]
    """
    return [
        ("loss", ensemble.loss),
        ("rules", str(len(ensemble.rules))),
        *_terms_chip(ensemble),
        ("complexity", str(ensemble.complexity)),
        ("columns used", _columns_used(ensemble)),
    ]


def _terms_chip(ensemble):
    """``[("linear terms", n)]`` when the ensemble has some, else nothing."""
    return [("linear terms", str(len(ensemble.terms)))] if ensemble.terms else []


def _task(estimator):
    classes = getattr(estimator, "classes_", None)
    outputs = estimator.ensemble_.outputs
    if outputs is not None and estimator.ensemble_.loss != "multinomial":
        return (f"multi-label classification, {len(outputs)} labels" if classes is not None
                else f"multi-output regression, {len(outputs)} outputs")
    if classes is not None and len(classes) > 2:
        return f"classification, {len(classes)} classes"
    if classes is not None:
        return f"classification, positive class {classes[-1]}"
    return "regression"


def _learner_name(estimator):
    learner = estimator.learner
    if isinstance(learner, str):
        return learner
    return str(getattr(learner, "name", type(learner).__name__))


def _score_chips(history):
    """Train loss (first -> last round) and any ``test_*``/``validation_*`` column."""
    chips = []
    if "train_loss" in history and len(history):
        first, last = history["train_loss"].iloc[0], history["train_loss"].iloc[-1]
        chips.append(("train loss", f"{format_number(last, 4)} (from {format_number(first, 4)})"))
    for column in history.columns:
        if str(column).startswith(("test_", "validation_")):
            values = history[column].dropna()
            if len(values):
                chips.append((str(column).replace("_", " "), format_number(values.iloc[-1], 4)))
    if "certified" in history:
        # Round 0 (the intercept) has no search.
        certified = [v for v in history["certified"].iloc[1:]]
        n_certified = sum(1 for v in certified if not _is_missing(v) and bool(v))
        chips.append(("certified optimal", f"{n_certified} of {len(certified)} rounds"))
    return chips


def estimator_chips(estimator):
    """Header facts of a fitted estimator: task, loss, learner, size, scores."""
    ensemble = estimator.ensemble_
    n_rules = f"{len(ensemble.rules)}"
    if len(ensemble.rules) < getattr(estimator, "n_rules", len(ensemble.rules)):
        n_rules += f" (stopped early; n_rules={estimator.n_rules})"
    chips = [
        ("task", _task(estimator)),
        ("loss", ensemble.loss),
        ("learner", _learner_name(estimator)),
        ("rules", n_rules),
        *_terms_chip(ensemble),
        ("complexity", str(ensemble.complexity)),
    ]
    history = getattr(estimator, "history_", None)
    if history is not None:
        chips += _score_chips(history)
    return chips


# -- the reprs --------------------------------------------------------------------
def _rules_section(ensemble):
    title, count = ("Rules", str(len(ensemble))) if not ensemble.terms else (
        "Rules and linear terms", f"{len(ensemble.rules)} + {len(ensemble.terms)}")
    return section(title, count, rules_table(ensemble, OPTIONS["display_max_rules"]),
                   OPTIONS["display_expand_rules"])


def ensemble_repr(ensemble):
    """Rich HTML repr of a :class:`~rulebook.RuleEnsemble`.

    Parameters
    ----------
    ensemble : RuleEnsemble

    Returns
    -------
    str
        Self-contained HTML (stylesheet, text fallback, header, rules).
        The same ensemble always gives the same string.

    Examples
    --------
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5, 0.25),))
    >>> page = ensemble_repr(ensemble)
    >>> "rb-text-repr-fallback" in page and "Age" in page and "25%" in page
    True
    """
    return wrap(repr(ensemble), header("RuleEnsemble", ensemble_chips(ensemble)), [_rules_section(ensemble)])


def estimator_text(estimator):
    """Plain text of an estimator: its repr, then its rules when fitted.

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> estimator_text(RuleBoostingRegressor(n_rules=3))
    'RuleBoostingRegressor(n_rules=3)'
    """
    text = repr(estimator)
    ensemble = getattr(estimator, "ensemble_", None)
    return text if ensemble is None else f"{text}\n{ensemble!r}"


def estimator_repr(estimator):
    """Rich HTML repr of an estimator: rulebook's if fitted, else scikit-learn's.

    Parameters
    ----------
    estimator : RuleBoostingRegressor or RuleBoostingClassifier

    Returns
    -------
    str
        For a fitted estimator: header (task, loss, learner, rules,
        complexity, train loss, any test/validation scores, certified
        rounds), the rules, and collapsed sections for the parameters
        (non-defaults highlighted) and the per-round search statistics.
        For an unfitted one: :func:`sklearn.utils.estimator_html_repr`.

    Examples
    --------
    >>> from rulebook import RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> page = estimator_repr(RuleBoostingRegressor(n_rules=2).fit(X, y))
    >>> "Search statistics" in page and "Parameters" in page
    True
    """
    if not hasattr(estimator, "ensemble_"):
        from sklearn.utils import estimator_html_repr

        return estimator_html_repr(estimator)
    ensemble = estimator.ensemble_
    n_changed = sum(changed_params(estimator).values())
    sections = [
        _rules_section(ensemble),
        section("Parameters", f"{n_changed} changed", params_table(estimator),
                OPTIONS["display_expand_params"]),
    ]
    history = getattr(estimator, "history_", None)
    if history is not None:
        sections.append(section("Search statistics", f"{len(history)} rounds",
                                history_table(history, OPTIONS["display_max_rounds"]),
                                OPTIONS["display_expand_history"]))
    return wrap(estimator_text(estimator), header(type(estimator).__name__, estimator_chips(estimator)),
                sections)


# -- notebook hooks -------------------------------------------------------------
def _html_enabled(obj):
    if OPTIONS["display"] != "html":
        return False
    if isinstance(obj, RuleEnsemble):
        return True
    # Estimators also honour scikit-learn's own switch, set_config(display="text").
    from sklearn import get_config

    return get_config()["display"] == "diagram"


def repr_html(obj):
    """``_repr_html_`` of ensembles and estimators; None when HTML is off.

    Jupyter falls back to the text repr when ``_repr_html_`` returns None,
    which is how ``set_options(display="text")`` takes effect.

    Parameters
    ----------
    obj : RuleEnsemble or estimator

    Returns
    -------
    str or None

    Examples
    --------
    >>> from rulebook import RuleEnsemble
    >>> from rulebook._options import set_options
    >>> with set_options(display="text"):
    ...     repr_html(RuleEnsemble(0.0)) is None
    True
    """
    if not _html_enabled(obj):
        return None
    if isinstance(obj, RuleEnsemble):
        return ensemble_repr(obj)
    return estimator_repr(obj)


def repr_mimebundle(obj, include=None, exclude=None):
    """``_repr_mimebundle_``: text/plain, plus text/html unless HTML is off.

    For a fitted estimator the text lists its rules, too.

    Parameters
    ----------
    obj : RuleEnsemble or estimator
    include, exclude : collections of str, optional
        MIME types to keep or drop, as passed by IPython.

    Returns
    -------
    dict
    """
    text = repr(obj) if isinstance(obj, RuleEnsemble) else estimator_text(obj)
    bundle = {"text/plain": text}
    page = repr_html(obj)
    if page is not None:
        bundle["text/html"] = page
    if include:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle
