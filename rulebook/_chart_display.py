"""How rulebook's charts display: the notebook renderer and rule labels.

:class:`Chart` is an ``alt.Chart`` whose notebook display follows
``rulebook.set_options(chart_renderer=...)`` (:func:`notebook_renderer`):
by default a static SVG drawn in the kernel by vl-convert, so that charts
draw without network. :func:`wrap_rule` and :func:`_rule_axis` put rule
text on an axis without clipping it. Used by :mod:`rulebook.charts`, which
re-exports the public names; altair is imported on first use only.
"""

import textwrap

import numpy as np

from ._options import OPTIONS

# Rule labels on an axis: characters per line and lines at most. 48
# characters of Vega's default 10 px label font are about 300 px, so the
# labels and two 220 px panels fit a 1,000 px notebook column.
RULE_LABEL_WIDTH = 48
RULE_LABEL_LINES = 4
_LABEL_LINE_PX = 14  # one label line at Vega's default 10 px label font
_LABEL_CHAR_PX = 6.6  # a character of it in a wide sans-serif (DejaVu Sans: about 6.3)


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
            :func:`notebook_renderer`): the spec, ``to_dict()``, ``save()``
            and every chained method are Altair's, and chained methods
            return this class again.
            """

            def _repr_mimebundle_(self, *args, **kwargs):
                renderer = notebook_renderer()
                if renderer is None:
                    return super()._repr_mimebundle_(*args, **kwargs)
                # Altair's own renderer, enabled for this one display.
                with alt.renderers.enable(renderer):
                    return super()._repr_mimebundle_(*args, **kwargs)

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
