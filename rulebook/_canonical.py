"""The canonical form of a query: one condition per column.

A conjunction of propositions is rewritten, without changing its truth
value on any input (missing values included), into

- its propositions grouped per column, columns in training order (``index``,
  then name), so that two queries with the same meaning print alike;
- per numeric column, at most one lower bound (``>`` or ``>=``) and one upper
  bound (``<=`` or ``<``), the tightest of each: ``x > 2 & x > 5`` is
  ``x > 5``. Both bounds print as one interval condition, ``2 < x <= 5``;
- per nominal column, a single ``==`` (which implies every ``!=`` of another
  value), or the ``!=`` values sorted, printed as ``x not in {a, b}`` when
  there are several.

Why this is exact: a missing value satisfies no proposition (``!=``
included), so dropping a proposition that another one on the same column
implies never changes a row's truth value, missing or not. Contradictions
(``x > 5 & x <= 2``, ``x == a & x == b``) are kept as they are: they print
as an empty interval or as both equalities, which a reader sees is empty.
A threshold that is NaN never holds; such a column keeps its propositions
unchanged.

Text from the data prints so that it cannot be misread or spoof the
output (:func:`format_feature`, :func:`format_category`): a column name
that is not a plain Python identifier prints in backticks, as in
:meth:`pandas.DataFrame.query` (`` `High Temp (F)` <= 70 ``, `` `0` > 2 ``,
a backtick inside doubled); a category string that could be misread prints
in double quotes (``code == "1"`` differs from ``code == 1``, the string
``"b'x'"`` from the bytes ``b'x'``); control characters (C0 and C1,
newline and ESC included), bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) and every other character
``str.isprintable`` rejects print as Python escapes (``\\n``, ``\\x1b``, ``\\u202e``),
and so does a backslash inside quotes (``\\\\``).

Numbers in conditions (thresholds, numeric categories) print exactly, as
the shortest decimal that reads back as the very float the model compares
with, without exponent (:func:`rulebook._formatting.format_exact`; a float
category that holds an integer with all its digits, as ``==`` compares):
``x <= 0.30000000000000004`` stays that, so a row is covered by the printed
rule exactly when the model covers it. rulebook chooses its own thresholds
short in the first place (:mod:`rulebook.binning`: ``Age <= 19``,
``x <= 0.0381``); rule weights, which are not conditions, print rounded.

The *length* of a query is its number of conditions in this form, that is
the number of columns it constrains; rule complexity (Yang et al. 2024,
Section 2) counts these conditions.

References
----------
.. [1] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 2 (complexity).
"""

import keyword
import math
import re

import numpy as np

from ._formatting import format_exact

LOWER = (">", ">=")
UPPER = ("<=", "<")
# A category value prints bare only if it is a plain word that cannot be
# read as a number, an operator, a keyword of the rule text or a set.
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/']*\Z")
_KEYWORDS = {"and", "or", "not", "in", "true", "false", "nan", "none", "null", "inf"}
# A word that reads as a Python bytes (or raw) literal, as a bytes category
# prints: the string "b'x'" must not print as the bytes b"x" do.
_LITERAL_PREFIX = re.compile(r"[bBrR]{1,2}'")
_NAMED_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def canonical_propositions(propositions):
    """The propositions of the canonical form, grouped and ordered.

    Parameters
    ----------
    propositions : iterable of Proposition

    Returns
    -------
    tuple of tuple of Proposition
        One group per column (training order), each group in print order:
        lower bound then upper bound; ``==`` then ``!=`` values sorted by
        their text.
    """
    groups = {}
    for proposition in propositions:
        key = (proposition.index, proposition.feature, proposition.is_numeric)
        groups.setdefault(key, []).append(proposition)
    ordered = sorted(groups, key=lambda k: (k[0], str(k[1]), not k[2]))
    return tuple(
        _numeric_group(groups[key]) if key[2] else _nominal_group(groups[key]) for key in ordered
    )


def _numeric_group(group):
    if any(_is_nan(p.value) for p in group):
        return tuple(sorted(_unique(group), key=lambda p: (p.operator, str(p.value))))
    lower = [p for p in group if p.operator in LOWER]
    upper = [p for p in group if p.operator in UPPER]
    kept = []
    if lower:
        # The largest threshold; at a tie ``>`` is stricter than ``>=``.
        kept.append(max(lower, key=lambda p: (p.value, p.operator == ">")))
    if upper:
        kept.append(min(upper, key=lambda p: (p.value, p.operator == "<=")))
    return tuple(kept)


def _nominal_group(group):
    equal = _unique([p for p in group if p.operator == "=="])
    unequal = _unique([p for p in group if p.operator == "!="])
    if len(equal) == 1 and not any(_same(p.value, equal[0].value) for p in unequal):
        return equal  # x == a implies x != b for every other b
    if equal:
        # A contradiction (empty extent): kept whole so that it reads as one.
        return tuple(sorted(equal, key=_sort_key)) + tuple(sorted(unequal, key=_sort_key))
    return tuple(sorted(unequal, key=_sort_key))


def _unique(group):
    kept = []
    for p in group:
        if not any(q.operator == p.operator and _same(q.value, p.value) for q in kept):
            kept.append(p)
    return tuple(kept)


def _same(a, b):
    # Category values are compared with ``==`` when rows are evaluated.
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _is_nan(value):
    try:
        return math.isnan(value)
    except TypeError:
        return False


def _sort_key(proposition):
    return (type(proposition.value).__name__, str(proposition.value))


def escape_unsafe(text):
    """``text`` with every character that ``str.isprintable`` rejects as a Python escape.

    Those are the characters that would break a rule's line, move a
    terminal's cursor, reorder the text around them or not show at all:
    C0 and C1 controls (newline and ESC included), bidirectional marks,
    embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069),
    zero-width and other format characters, separators other than the
    space, unassigned and private-use code points and lone surrogates.
    Newline, tab and carriage return print as ``\\n``, ``\\t``, ``\\r``,
    other characters as ``\\xNN``, ``\\uNNNN`` or ``\\UNNNNNNNN``, as
    Python's ``repr`` does. Everything else, backslashes included, is left
    as it is.

    Examples
    --------
    >>> print(escape_unsafe("a\\nb\\x1b[31m\\u202ec"))
    a\\nb\\x1b[31m\\u202ec
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape_character(c) for c in text)


def _escape_character(character):
    if character in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[character]
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _is_plain_name(name):
    # isprintable: an identifier may hold format characters (U+200C, U+200D).
    return (isinstance(name, str) and name.isidentifier() and name.isprintable()
            and not keyword.iskeyword(name) and name.lower() not in _KEYWORDS)


def format_feature(name):
    """A column name as it prints in a rule: in backticks unless a plain identifier.

    A name that is a Python identifier and not a keyword (``Age``,
    ``petal_length``) prints as it is. Any other name, integers included,
    prints in backticks as in :meth:`pandas.DataFrame.query`, a backtick
    inside doubled; inside the backticks a backslash prints doubled and
    control, bidirectional and invisible characters as escapes
    (:func:`escape_unsafe`), so that every name reads back to one string.

    Examples
    --------
    >>> format_feature("Age"), format_feature("High Temp (F)"), format_feature(0)
    ('Age', '`High Temp (F)`', '`0`')
    >>> print(format_feature("x <= 3 & y"), format_feature("a`b"), format_feature("line\\nbreak"))
    `x <= 3 & y` `a``b` `line\\nbreak`
    """
    if _is_plain_name(name):
        return name
    text = escape_unsafe(str(name).replace("\\", "\\\\"))
    return "`" + text.replace("`", "``") + "`"


def format_category(value):
    """A category value as it prints in a rule: quoted unless a plain word.

    Strings with spaces, operators, quotes or that read as a number, a
    boolean, a keyword or a bytes literal print in double quotes (JSON
    escapes), so that ``Department == "Research & Development"`` reads as
    one condition, ``code == "1"`` differs from ``code == 1``, and
    ``code == "b'x'"`` (a string) from ``code == b'x'`` (bytes). Inside the quotes a
    backslash and a double quote print escaped (``\\\\``, ``\\"``), and
    control, bidirectional and invisible characters as escapes
    (:func:`escape_unsafe`). Non-string values (numbers, booleans used as
    categories) print as they are, with the same escapes.

    Examples
    --------
    >>> format_category("male"), format_category("Research & Development"), format_category("1")
    ('male', '"Research & Development"', '"1"')
    >>> format_category(3), format_category('say "hi"')
    ('3', '"say \\\\"hi\\\\""')
    >>> print(format_category("b'x'"), format_category(b"x"))
    "b'x'" b'x'
    """
    if not isinstance(value, str):
        return escape_unsafe(_category_number(value))
    if _BARE.match(value) and value.lower() not in _KEYWORDS and not _LITERAL_PREFIX.match(value):
        return value
    return '"' + escape_unsafe(value.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def _category_number(value):
    """A non-string category's text, read back to a value ``==`` to it.

    ``==`` compares an int and a float exactly, so a float category that
    holds an integer prints all its digits (``56855586615058144``, not the
    shorter ``56855586615058140`` that reads as the same float but as
    another int); other numbers print as :func:`format_exact` does.
    """
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return format_exact(value)


def format_condition(group):
    """One column's condition as text.

    Parameters
    ----------
    group : tuple of Proposition
        One group of :func:`canonical_propositions`.

    Returns
    -------
    str
        ``2 < x <= 5``, ``x > 2``, ``x == a``, ``x != a``,
        ``x not in {a, b}``; a contradiction or a NaN threshold prints each
        proposition, joined by ``&``.

    Examples
    --------
    >>> from rulebook import Proposition
    >>> format_condition((Proposition("Fare", ">", 9.35), Proposition("Fare", "<=", 35.0)))
    '9.35 < Fare <= 35'
    """
    first = group[0]
    name = format_feature(first.feature)
    if first.is_numeric and len(group) == 2 and group[0].operator in LOWER and group[1].operator in UPPER:
        low_op = "<" if group[0].operator == ">" else "<="
        return (f"{format_exact(group[0].value)} {low_op} {name} "
                f"{group[1].operator} {format_exact(group[1].value)}")
    if not first.is_numeric and len(group) > 1 and all(p.operator == "!=" for p in group):
        values = ", ".join(format_category(p.value) for p in group)
        return f"{name} not in {{{values}}}"
    return " & ".join(format_proposition(p) for p in group)


def format_proposition(proposition):
    """One proposition as text: ``Age <= 19``, ``Sex == male``, `` `High Temp (F)` > 70 ``."""
    name = format_feature(proposition.feature)
    if proposition.is_numeric:
        return f"{name} {proposition.operator} {escape_unsafe(format_exact(proposition.value))}"
    return f"{name} {proposition.operator} {format_category(proposition.value)}"
