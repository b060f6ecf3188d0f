"""HTML of one prediction's explanation: a waterfall of its terms.

The notebook repr of :class:`rulebook.explanations.Explanation`, built as
:mod:`rulebook._repr_html` builds the model's (and from its pieces: the
stylesheet, the escaped ``<pre>`` text fallback, the header of chips):

* one table line per term (intercept, each rule that applies, each linear
  term, the raw score; with several outputs, a table per output) with a bar from the score before the term to the score after it,
  drawn with inline percentages on a common scale from ``min(0, scores)``
  to ``max(0, scores)`` and a zero line: HTML and CSS only, no JavaScript,
  no element ids, so the page is a pure function of the explanation;
* the few extra CSS rules of the waterfall sit in the rich part (hidden
  with it when a notebook strips styles) and, like ``repr.css``, select
  only under ``.rb-wrap``;
* every string from the data (row label, conditions) goes through
  :func:`html.escape` (:func:`rulebook._repr_html._escape`); condition
  text is already one line with control and bidirectional characters
  written as escapes (``\\u202e``), as the rules print.
"""

import math

from ._canonical import escape_unsafe
from ._formatting import format_number, format_weight
from ._options import OPTIONS
from ._repr_html import _escape, header, wrap

# Colours are repr.css's variables: diverging weights, muted intercept and
# an accent for the score.
_WATERFALL_CSS = """
.rb-wrap .rb-wf { position: relative; display: inline-block; width: 14em; height: 0.8em;
  vertical-align: middle; }
.rb-wrap .rb-wf-zero { position: absolute; top: -2px; bottom: -2px;
  border-left: solid 1px var(--rb-font-color3); }
.rb-wrap .rb-wf-step { position: absolute; top: 0; bottom: 0; min-width: 1px; }
.rb-wrap .rb-wf-pos { background: var(--rb-positive); }
.rb-wrap .rb-wf-neg { background: var(--rb-negative); }
.rb-wrap .rb-wf-intercept { background: var(--rb-font-color3); }
.rb-wrap .rb-wf-total { background: var(--rb-accent); }
.rb-wrap tr.rb-wf-off td { color: var(--rb-font-color3); }
.rb-wrap tr.rb-wf-sum td { font-weight: 600; border-top: solid 1px var(--rb-border-color); }
.rb-wrap p.rb-wf-output { margin: 0.8em 0 0.2em 0; }
"""

_PREDICTION_NAMES = {"logistic": "probability", "multinomial": "probability", "poisson": "mean"}


def _percent(value, low, span):
    return f"{100 * (value - low) / span:.1f}%"


def waterfall_bar(start, end, low, high, kind):
    """One step of the waterfall: a bar from ``start`` to ``end`` on ``[low, high]``.

    Parameters
    ----------
    start, end : float
        Raw score before and after the term.
    low, high : float
        The scale, with ``low <= 0 <= high``; the zero line is drawn.
    kind : {"intercept", "rule", "term", "total"}
        Colours the bar: a rule or linear term by the sign of its step.

    Returns
    -------
    str
        An empty track when a value is not finite or the scale is empty.

    Examples
    --------
    >>> waterfall_bar(1.0, 3.0, 0.0, 4.0, "rule")  # doctest: +NORMALIZE_WHITESPACE
    '<span class="rb-wf"><span class="rb-wf-zero" style="left:0.0%"></span><span
    class="rb-wf-step rb-wf-pos" style="left:25.0%;width:50.0%"></span></span>'
    """
    span = high - low
    if not all(map(math.isfinite, (start, end, low, high))) or not span > 0:
        return "<span class=\"rb-wf\"></span>"
    tone = kind if kind in ("intercept", "total") else ("pos" if end >= start else "neg")
    left, right = min(start, end), max(start, end)
    return (
        f"<span class=\"rb-wf\"><span class=\"rb-wf-zero\" style=\"left:{_percent(0.0, low, span)}\">"
        f"</span><span class=\"rb-wf-step rb-wf-{tone}\" style=\"left:{_percent(left, low, span)};"
        f"width:{100 * (right - left) / span:.1f}%\"></span></span>"
    )


def _steps(frame):
    """``(kind, rule, condition, applies, contribution, start, end)`` per line.

    A linear term's condition is its weight and expression,
    ``+0.0123 * (clip(Age, 1, 65) - 29.7)``, so that the line shows how its
    contribution is computed.
    """
    before = 0.0
    for kind, rule, condition, applies, weight, contribution, cumulative in zip(
            frame["kind"], frame["rule"], frame["condition"], frame["applies"], frame["weight"],
            frame["contribution"], frame["cumulative"]):
        cumulative = float(cumulative)
        start = 0.0 if kind in ("intercept", "total") else before
        if kind == "term":
            condition = f"{format_weight(weight)} * {condition}"
        yield kind, rule, condition, bool(applies), float(contribution), start, cumulative
        before = cumulative


def waterfall_table(frame, loss, max_rules):
    """The waterfall: one row per term, at most ``max_rules`` rules.

    Parameters
    ----------
    frame : DataFrame
        One row's lines of :func:`rulebook.explanations.explain`.
    loss : str
        Names the prediction (probability for the logistic loss).
    max_rules : int
        Rule and linear term lines shown; the others are counted in one
        line and still in the scale and the total.

    Returns
    -------
    str
        A ``<table>`` with columns rank, term, contribution, bar and score.
    """
    steps = list(_steps(frame))
    values = [0.0] + [v for step in steps for v in step[5:]]
    finite = [v for v in values if math.isfinite(v)]
    low, high = min(finite), max(finite)
    rows, shown = [], 0
    hidden = sum(1 for step in steps if step[0] in ("rule", "term")) - max_rules
    for kind, rule, condition, applies, contribution, start, end in steps:
        bar = waterfall_bar(start, end, low, high, kind)
        if kind == "intercept":
            rows.append(f"<tr class=\"rb-intercept\"><td></td><td class=\"rb-cond\">intercept</td>"
                        f"<td>{_escape(format_weight(contribution))}</td><td>{bar}</td>"
                        f"<td>{_escape(format_number(end))}</td></tr>")
        elif kind in ("rule", "term"):
            shown += 1
            if shown > max_rules:
                continue
            css = "" if applies else " class=\"rb-wf-off\""
            rank = _escape(rule) if kind == "rule" else ""  # terms are not ranked among the rules
            rows.append(f"<tr{css}><td>{rank}</td><td class=\"rb-cond\">{_escape(condition)}"
                        f"</td><td>{_escape(format_weight(contribution))}</td><td>{bar}</td>"
                        f"<td>{_escape(format_number(end))}</td></tr>")
        else:
            if hidden > 0:
                noun = ("rule" if hidden == 1 else "rules") if not any(
                    step[0] == "term" for step in steps) else ("term" if hidden == 1 else "rules and terms")
                rows.append(f"<tr class=\"rb-more\"><td colspan=\"5\">... {hidden} more {noun}</td></tr>")
            name = _PREDICTION_NAMES.get(loss, "prediction")
            prediction = format_number(float(frame["prediction"].iloc[-1]))
            rows.append(f"<tr class=\"rb-wf-sum\"><td></td><td class=\"rb-cond\">raw score "
                        f"({_escape(name)} {_escape(prediction)})</td><td></td><td>{bar}</td>"
                        f"<td>{_escape(format_number(end))}</td></tr>")
    head = ("<thead><tr><th>#</th><th class=\"rb-cond\">term</th><th>contribution</th><th></th>"
            "<th>score</th></tr></thead>")
    return f"<table class=\"rb-table rb-waterfall\">{head}<tbody>{''.join(rows)}</tbody></table>"


def explanation_chips(explanation):
    """Header facts: row, (output,) loss, raw score, prediction, rules that apply.

    With several outputs the scores are in each output's waterfall, and
    the chips count the outputs instead.
    """
    outputs = explanation.outputs
    row = [("row", repr(explanation.row))]
    if outputs is not None and len(outputs) > 1:
        return row + [("loss", explanation.loss), ("outputs", str(len(outputs))),
                      ("rules applying", f"{explanation.n_applying} of {explanation.n_rules}")]
    if outputs is not None:
        row.append(("output", escape_unsafe(str(outputs[0]))))
    return row + [
        ("loss", explanation.loss),
        ("raw score", format_number(explanation.raw_score)),
        (_PREDICTION_NAMES.get(explanation.loss, "prediction"), format_number(explanation.prediction)),
        ("rules applying", f"{explanation.n_applying} of {explanation.n_rules}"),
    ] + ([("linear terms", str(explanation.n_terms))] if explanation.n_terms else [])


def _output_waterfalls(explanation, max_rules):
    """One waterfall per output, each under a line naming the output and its scores."""
    name = _PREDICTION_NAMES.get(explanation.loss, "prediction")
    parts = []
    for label in explanation.outputs:
        one = explanation.for_output(label)
        parts.append(
            f"<p class=\"rb-wf-output\"><b>{_escape(escape_unsafe(str(label)))}</b>: raw score "
            f"{_escape(format_number(one.raw_score))}, {_escape(name)} "
            f"{_escape(format_number(one.prediction))}</p>"
            + waterfall_table(one.frame, explanation.loss, max_rules))
    return "".join(parts)


def explanation_html(explanation):
    """Rich HTML of an :class:`~rulebook.explanations.Explanation` (always HTML).

    Parameters
    ----------
    explanation : Explanation

    Returns
    -------
    str
        Self-contained HTML: stylesheet, text fallback (``str(explanation)``,
        escaped), header, waterfall. The same explanation gives the same
        string.

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> from rulebook.explanations import explain_row
    >>> ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("<b>", "<=", 19.0),)), 2.5),))
    >>> page = explanation_html(explain_row(ensemble, pd.DataFrame({"<b>": [10]})))
    >>> "&lt;b&gt;" in page and "<b>" not in page and "rb-wf-pos" in page
    True
    """
    max_rules = OPTIONS["display_max_rules"]
    if explanation.outputs is not None and len(explanation.outputs) > 1:
        tables = _output_waterfalls(explanation, max_rules)
    else:
        tables = waterfall_table(explanation.frame, explanation.loss, max_rules)
    body = f"<style>{_WATERFALL_CSS}</style>" + tables
    return wrap(str(explanation), header("Explanation", explanation_chips(explanation)), [body])


def explanation_repr_html(explanation):
    """``Explanation._repr_html_``: None when ``set_options(display="text")``."""
    if OPTIONS["display"] != "html":
        return None
    return explanation_html(explanation)
