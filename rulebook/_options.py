"""Global display options: ``rulebook.set_options``, as ``xarray.set_options``.

One module-level dict holds the options; :class:`set_options` changes them
either for good (called as a function) or for a ``with`` block (used as a
context manager, restoring the previous values on exit, even on error).
"""

import numbers

_DISPLAY_STYLES = ("html", "text")
_CHART_RENDERERS = ("auto", "svg", "png", "altair")
_WIDGET_CHARTS = ("offline", "cdn")


def _positive_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1


def _boolean(value):
    return isinstance(value, bool)


OPTIONS = {
    "display": "html",
    "display_max_rules": 20,
    "display_max_rounds": 50,
    "display_expand_rules": True,
    "display_expand_params": False,
    "display_expand_history": False,
    "chart_renderer": "auto",
    "widget_charts": "offline",
}

_VALIDATORS = {
    "display": (lambda v: v in _DISPLAY_STYLES, f"one of {_DISPLAY_STYLES}"),
    "display_max_rules": (_positive_int, "an int >= 1"),
    "display_max_rounds": (_positive_int, "an int >= 1"),
    "display_expand_rules": (_boolean, "True or False"),
    "display_expand_params": (_boolean, "True or False"),
    "display_expand_history": (_boolean, "True or False"),
    "chart_renderer": (lambda v: v in _CHART_RENDERERS, f"one of {_CHART_RENDERERS}"),
    "widget_charts": (lambda v: v in _WIDGET_CHARTS, f"one of {_WIDGET_CHARTS}"),
}


def get_options():
    """The current display options.

    Returns
    -------
    dict
        A copy: changing it changes nothing; use :class:`set_options`.

    Examples
    --------
    >>> from rulebook._options import get_options
    >>> get_options()["display"]
    'html'
    """
    return dict(OPTIONS)


class set_options:
    """Set display options globally or, as a context manager, for a block.

    Parameters
    ----------
    display : {"html", "text"}, default="html"
        ``"text"`` turns the rich notebook repr of ensembles and fitted
        estimators off: Jupyter then shows the plain text repr.
    display_max_rules : int >= 1, default=20
        Rules listed in the rich repr; the rest are summarised as
        ``... N more rules``.
    display_max_rounds : int >= 1, default=50
        Boosting rounds listed in the search statistics section.
    display_expand_rules : bool, default=True
        Whether the rules section starts open.
    display_expand_params : bool, default=False
        Whether the parameters section starts open.
    display_expand_history : bool, default=False
        Whether the search statistics section starts open.
    chart_renderer : {"auto", "svg", "png", "altair"}, default="auto"
        How the charts of :mod:`rulebook.charts` show in a notebook.
        ``"svg"`` draws them in the kernel with vl-convert as static SVG:
        no network and no JavaScript needed, the picture is saved in the
        notebook and shows on GitHub, nbviewer, in VS Code and in the
        static docs; there are no tooltips or zooming. ``"png"`` is the
        same as an image, which JupyterLab also shows in untrusted
        notebooks (it hides their SVG). ``"altair"`` leaves the chart to
        Altair's active renderer (``alt.renderers``): interactive, but
        Altair's default renderer loads vega from a CDN and draws nothing
        offline; pair it with ``alt.renderers.enable("jupyter",
        offline=True)`` for interactive charts without network. ``"auto"``
        is ``"svg"`` while Altair's renderer is its untouched
        ``"default"`` and vl-convert is installed, else ``"altair"``: a
        renderer the user enabled is honoured.
    widget_charts : {"offline", "cdn"}, default="offline"
        Where the charts of :class:`~rulebook.widgets.BoostingExplorer`
        and :class:`~rulebook.widgets.LearnerComparison` (Altair
        ``JupyterChart`` widgets, clickable) get their JavaScript.
        ``"offline"`` ships vega inside each chart widget (bundled by
        vl-convert; about 1 MB per chart sent to the browser), so they
        draw without network. ``"cdn"`` loads it from esm.sh, lighter but
        blank without network (unless ``alt.JupyterChart.enable_offline()``
        was called). The widgets' ``offline=`` argument overrides it.

    Raises
    ------
    ValueError
        For an unknown option or an invalid value; nothing is changed then.

    Examples
    --------
    >>> import rulebook
    >>> from rulebook._options import get_options, set_options
    >>> with set_options(display="text", display_max_rules=5):
    ...     get_options()["display"], get_options()["display_max_rules"]
    ('text', 5)
    >>> get_options()["display"]
    'html'

    Interactive Altair charts instead of static SVG (needs a network, or
    ``alt.renderers.enable("jupyter", offline=True)``):

    >>> rulebook.set_options(chart_renderer="altair")  # doctest: +SKIP
    """

    def __init__(self, **kwargs):
        for name, value in kwargs.items():
            if name not in OPTIONS:
                raise ValueError(f"{name!r} is not a rulebook option; valid options are {sorted(OPTIONS)}.")
            valid, expected = _VALIDATORS[name]
            if not valid(value):
                raise ValueError(f"option {name!r} must be {expected}; got {value!r}.")
        self.old = {name: OPTIONS[name] for name in kwargs}
        OPTIONS.update(kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        OPTIONS.update(self.old)
