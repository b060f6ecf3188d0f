"""How rulebook's charts display: the notebook renderer and rule labels.

:class:`Chart` is an ``alt.Chart`` whose notebook display follows
``rulebook.set_options(chart_renderer=...)`` (:func:`notebook_renderer`):
by default a static SVG drawn in the kernel by vl-convert, so that charts
draw without network. :func:`wrap_rule` and :func:`_rule_axis` put rule
text on an axis without clipping it.

Rule text, column names, categories and model names are data: a chart's
HTML (``to_html()``, ``save("chart.html")``, the HTML renderers) holds the
spec as JSON inside ``<script>``, so :class:`ScriptSafeEncoder` writes
``<``, ``>``, ``&``, U+2028 and U+2029 as JSON escapes (``\\u003c``...):
a column named ``</script><img ...>`` cannot end the script block. Used by :mod:`rulebook.charts`, which
re-exports the public names; altair is imported on first use only.
"""

import json
import re
import textwrap
from functools import partial

import numpy as np

from ._options import OPTIONS

# Rule labels on an axis: characters per line and lines at most. 48
# characters of Vega's default 10 px label font are about 300 px, so the
# labels and two 220 px panels fit a 1,000 px notebook column.
RULE_LABEL_WIDTH = 48
RULE_LABEL_LINES = 4
_LABEL_LINE_PX = 14  # one label line at Vega's default 10 px label font
_LABEL_CHAR_PX = 6.6  # a character of it in a wide sans-serif (DejaVu Sans: about 6.3)


# Characters that could end or change a <script> block, or a JavaScript string
# (U+2028/U+2029 end lines in JavaScript before ES2019), as JSON escapes.
_SCRIPT_UNSAFE = re.compile("[<>&\u2028\u2029]")


def script_safe_json(text):
    """JSON text with ``<``, ``>``, ``&``, U+2028, U+2029 written as ``\\uXXXX`` escapes.

    These characters occur in JSON text only inside strings, where the
    escape means the same character, so the result parses to the same value
    and can sit inside an HTML ``<script>`` element.

    Examples
    --------
    >>> print(script_safe_json('{"rule": "x <= 3 & y == </script>"}'))
    {"rule": "x \\u003c= 3 \\u0026 y == \\u003c/script\\u003e"}
    """
    return _SCRIPT_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


class ScriptSafeEncoder(json.JSONEncoder):
    """``json.JSONEncoder`` whose output is safe inside ``<script>`` (:func:`script_safe_json`)."""

    def encode(self, o):
        return script_safe_json(super().encode(o))

    def iterencode(self, o, _one_shot=False):
        # A chunk never splits a character, so each chunk is escaped alone.
        return (script_safe_json(chunk) for chunk in super().iterencode(o, _one_shot))


def _safe_json_kwds(json_kwds):
    """Altair's ``json_kwds`` with :class:`ScriptSafeEncoder` (on top of the caller's ``cls``)."""
    json_kwds = dict(json_kwds or {})
    base = json_kwds.get("cls") or json.JSONEncoder
    if not issubclass(base, ScriptSafeEncoder):
        base = type(f"ScriptSafe{base.__name__}", (ScriptSafeEncoder, base), {})
    json_kwds["cls"] = base
    return json_kwds


def _altair():
    try:
        import altair as alt
    except ImportError as error:  # pragma: no cover - altair is a notebooks extra
        raise ImportError("rulebook.charts needs altair: pip install 'rulebook[notebooks]'.") from error
    return alt


# -- how charts display in a notebook ------------------------------------------
def notebook_renderer():
    """The Altair renderer rulebook's charts use in a notebook now.

    Reads ``rulebook.set_options(chart_renderer=...)``: ``"svg"`` and
    ``"png"`` are Altair's renderers of those names (vl-convert, in the
    kernel, offline); ``"altair"`` means whatever ``alt.renderers`` has
    enabled. ``"auto"`` is ``"svg"`` while Altair's renderer is its
    ``"default"`` one, which loads vega from a CDN and so draws nothing
    offline, and vl-convert is installed; otherwise the renderer the user
    enabled is kept.

    Returns
    -------
    str or None
        ``"svg"`` or ``"png"``; None for Altair's active renderer.

    Examples
    --------
    >>> from rulebook import set_options
    >>> with set_options(chart_renderer="png"):
    ...     notebook_renderer()
    'png'
    >>> with set_options(chart_renderer="altair"):
    ...     notebook_renderer() is None
    True
    """
    choice = OPTIONS["chart_renderer"]
    if choice == "altair":
        return None
    if choice != "auto":
        return choice
    if _altair().renderers.active != "default":
        return None
    try:
        import vl_convert  # noqa: F401
    except ImportError:
        return None
    return "svg"


_CHART_CLASS = []


def _chart_class():
    """:class:`Chart`, made on first use so that altair is imported lazily."""
    if not _CHART_CLASS:
        alt = _altair()

        class Chart(alt.Chart):
            """An ``alt.Chart`` shown as ``rulebook.set_options(chart_renderer=...)`` says.

            Only the notebook display differs from ``alt.Chart`` (see
            :func:`notebook_renderer`), and HTML output: ``to_html()``,
            ``save()`` and Altair's HTML renderers write the spec's JSON
            with :class:`ScriptSafeEncoder`, so that text from the data
            cannot end the ``<script>`` element. The spec, ``to_dict()``
            and every chained method are Altair's, and chained methods
            return this class again.
            """

            def _repr_mimebundle_(self, *args, **kwargs):
                renderer = notebook_renderer()
                if renderer is None:
                    return self._render(alt)
                # Altair's own renderer, enabled for this one display.
                with alt.renderers.enable(renderer):
                    return self._render(alt)

            def _render(self, alt):
                """Altair's ``_repr_mimebundle_``, HTML renderers given the safe encoder."""
                from altair.utils.display import HTMLRenderer

                render = alt.renderers.get()
                function = render.func if isinstance(render, partial) else render
                if not isinstance(function, HTMLRenderer):
                    return super()._repr_mimebundle_()
                try:
                    spec = self.to_dict(context={"pre_transform": False})
                except Exception:  # as Altair: show the traceback, draw nothing
                    from altair import utils

                    utils.display_traceback(in_ipython=True)
                    return {}
                options = render.keywords if isinstance(render, partial) else {}
                json_kwds = _safe_json_kwds(options.get("json_kwds"))
                return function(spec, **{**options, "json_kwds": json_kwds})

            def to_html(self, *args, json_kwds=None, **kwargs):
                return super().to_html(*args, json_kwds=_safe_json_kwds(json_kwds), **kwargs)

            def save(self, fp, *args, json_kwds=None, **kwargs):
                return super().save(fp, *args, json_kwds=_safe_json_kwds(json_kwds), **kwargs)

            to_html.__doc__ = alt.Chart.to_html.__doc__
            save.__doc__ = alt.Chart.save.__doc__

        Chart.__module__, Chart.__qualname__ = __name__, "Chart"  # for pickle
        _CHART_CLASS.append(Chart)
    return _CHART_CLASS[0]


def __getattr__(name):
    # Chart made on first use (for pickle and isinstance): altair is not
    # imported with this module.
    if name == "Chart":
        return _chart_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _chart(data):
    return _chart_class()(data)


def wrap_rule(conditions, width=RULE_LABEL_WIDTH, max_lines=RULE_LABEL_LINES, prefix=""):
    """A rule as short lines for an axis label: breaks between conditions.

    Conditions are kept whole on a line where they fit; a longer one is
    broken at spaces (or, as a last resort, inside a word). Beyond
    ``max_lines`` the last line ends in ``…``: the chart's tooltip has the
    full rule.

    Parameters
    ----------
    conditions : sequence of str or Query
        The rule's conditions, e.g. ``query.condition_strings()``; a query
        is read that way. Never split from the rule's text: a quoted
        category value may contain ``" & "``.
    width : int, default=RULE_LABEL_WIDTH
        Characters per line at most.
    max_lines : int, default=RULE_LABEL_LINES
    prefix : str, default=""
        Put before the first condition, e.g. ``"3. "``.

    Returns
    -------
    list of str
        At least one line; ``"True"`` for a query without conditions.

    Examples
    --------
    >>> wrap_rule(["Sex == female", "Pclass <= 2", "9.35 < Fare <= 35"], width=30, prefix="1. ")
    ['1. Sex == female & Pclass <= 2', '& 9.35 < Fare <= 35']
    >>> wrap_rule(["Port in {Cherbourg, Queenstown, Southampton}"], width=24)
    ['Port in {Cherbourg,', 'Queenstown, Southampton}']
    >>> wrap_rule(["x == 1"] * 9, width=20, max_lines=2)
    ['x == 1 & x == 1', '& x == 1 & x == 1 …']
    """
    if hasattr(conditions, "condition_strings"):
        conditions = conditions.condition_strings()
    pieces = [f"& {c}" if i else c for i, c in enumerate(conditions)] or ["True"]
    pieces[0] = prefix + pieces[0]
    lines = []
    for piece in pieces:
        if lines and len(lines[-1]) + 1 + len(piece) <= width:
            lines[-1] += " " + piece
        else:
            lines += textwrap.wrap(piece, width, break_on_hyphens=False) or [piece]
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        lines[-1] = last + " …" if len(last) + 2 <= width else last[:width - 1].rstrip() + "…"
    return lines


def _rule_axis(alt, labels):
    """A y axis of wrapped rule labels, left-aligned in a gutter wide enough for them.

    Vega measures label text with the fonts of the machine that draws the
    chart; a static SVG is measured by vl-convert and shown by a browser
    whose ``sans-serif`` may be wider (DejaVu Sans is about 14% wider than
    the Liberation Sans vl-convert measures with). Right-aligned labels
    then run off the chart's left edge. Left-aligned labels in a gutter
    sized for a wide font (``_LABEL_CHAR_PX`` per character) cannot: a
    wider font only narrows the gap to the bars.
    """
    lines = [line for label in labels for line in label.split("\n")]
    n_lines = max((label.count("\n") + 1 for label in labels), default=1)
    gutter = int(np.ceil(_LABEL_CHAR_PX * max((len(line) for line in lines), default=1))) + 4
    # labelLimit=0: no truncation in pixels (the default cuts at 180 px);
    # wrap_rule bounds the width in characters instead.
    axis = alt.Axis(labelLimit=0, labelExpr="split(datum.value, '\\n')", labelAlign="left",
                    labelPadding=gutter)
    return axis, alt.Step(max(20, _LABEL_LINE_PX * n_lines + 6))
