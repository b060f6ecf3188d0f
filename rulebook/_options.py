"""Global display options: ``rulebook.set_options``, as ``xarray.set_options``.

One module-level dict holds the options; :class:`set_options` changes them
either for good (called as a function) or for a ``with`` block (used as a
context manager, restoring the previous values on exit, even on error).
"""

import numbers

_DISPLAY_STYLES = ("html", "text")


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
}

_VALIDATORS = {
    "display": (lambda v: v in _DISPLAY_STYLES, f"one of {_DISPLAY_STYLES}"),
    "display_max_rules": (_positive_int, "an int >= 1"),
    "display_max_rounds": (_positive_int, "an int >= 1"),
    "display_expand_rules": (_boolean, "True or False"),
    "display_expand_params": (_boolean, "True or False"),
    "display_expand_history": (_boolean, "True or False"),
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
