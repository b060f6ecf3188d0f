"""The propositions of Boley et al.'s reference code, on rulebook's bins.

Boley et al. (2021) propositionalise each column once, before boosting, and
search conjunctions of those propositions only (their ``realkd`` package,
``Context.from_df``): ``k/2`` equal-frequency thresholds ``c`` per numeric
column, each giving ``x <= c`` and ``x >= c``, and ``x == v`` per category.
This module expresses the same propositions on rulebook's bins, so that
results can be compared with the paper: :func:`paper_cut_points` makes every
paper proposition a union of bins (cut points for :class:`~rulebook.binning.Binner`),
:func:`paper_allowed` says which of the binned propositions are the paper's
(the search's ``allowed`` mask), and :class:`_PaperBinner` prints the
binned ``x > p(c)`` as the paper's ``x >= c``. The estimators' ``propositions``
parameter uses all three, computing the quantiles once (``_paper_thresholds``).
"""

import numpy as np
import pandas as pd

from ._validation import NOMINAL, NUMERIC, numeric_block
from .binning import EQ, GT, LE, _with_text_numbers
from .rules import Proposition


def paper_cut_points(X, propositions=10):
    """Cut points that make the paper's propositions binned propositions.

    For each numeric column the paper's code (Boley et al. 2021, Section 4
    and Appendix B; its ``realkd.search.Context.from_df``) chooses
    thresholds ``c`` and offers ``x <= c`` and ``x >= c``:

    * if the column has more than ``k / 2`` distinct values (NaN counted as
      one, as ``Series.unique`` does), where ``k`` is the column's
      proposition count, the ``k // 2`` upper bin edges of
      ``pandas.qcut(x, k // 2, duplicates="drop")`` (equal-frequency
      quantiles, not necessarily data values; the last is the maximum),
      each giving ``x <= c`` and ``x >= c``;
    * otherwise every distinct value, ``x <= v`` for all but the largest and
      ``x >= v`` for all but the smallest.

    On the training rows ``x >= c`` selects the same rows as ``x > p(c)``,
    ``p(c)`` the largest value of the column below ``c``. The cut points
    returned are therefore the thresholds ``c`` and their predecessors
    ``p(c)``; pass them as ``cut_points`` to :class:`~rulebook.binning.Binner` or to the
    estimators, and restrict the search with :func:`paper_allowed`.

    Parameters
    ----------
    X : DataFrame of shape (n_samples, n_features)
        Training data with string column names, as the estimators see it.
    propositions : int >= 2, None or dict of {str: int >= 2 or None}, default=10
        Largest number of propositions per numeric column (the paper's and
        realkd's ``max_col_attr``; 10 is realkd's default). ``None`` means no
        limit (every distinct value). A dict gives a count per column
        (``DatasetInfo.paper_propositions``); numeric columns it does not
        name have no limit, as with realkd's ``defaultdict(lambda: None)``.
        Counts for nominal columns are accepted and ignored (the paper's
        code offers one ``x == v`` per category, without a limit).

    Returns
    -------
    dict of {str: ndarray of float64}
        Sorted, distinct cut points for every numeric column (dtype kind
        ``u``, ``i`` or ``f``) with at least one threshold; other columns are
        not in the dict.

    Raises
    ------
    ValueError
        If ``X`` is not a DataFrame, ``propositions`` is not an int >= 2,
        None or a dict of those, the dict names a column not in ``X``, or a
        numeric column holds infinite values.

    See Also
    --------
    paper_allowed : The mask of the paper's propositions on the fitted bins.

    Notes
    -----
    Missing values (NaN) of a numeric column fall in the missing bin, which
    no proposition covers; in the paper's code NaN fails every comparison.
    Both agree. Where a column needs no quantiles but has NaN, the paper's
    code sorts a list holding NaN, whose order is then undefined (it can
    offer ``x <= nan`` and drop a real threshold); here the distinct values
    are the sorted non-missing ones.

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 2 (threshold propositions); Appendix B
       points to the experiment code, which propositionalises with
       ``realkd.search.Context.from_df`` (realkd 0.2.1 on PyPI).

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "s": list("abcabc")})
    >>> paper_cut_points(X, propositions=4)
    {'x': array([3. , 3.5, 5. , 6. ])}
    """
    return _cut_points_of(_paper_thresholds(X, propositions))


def _cut_points_of(specs):
    """``paper_cut_points`` from the per-column specs of ``_paper_thresholds``."""
    return {name: np.unique(np.concatenate([spec["le"], spec["gt"]]))
            for name, spec in specs.items()
            if spec["kind"] == NUMERIC and len(spec["le"]) + len(spec["gt"])}


def paper_allowed(binner, X, propositions=10):
    """Mask of the paper's propositions among a fitted binner's propositions.

    Parameters
    ----------
    binner : rulebook.binning.Binner
        Fitted on ``X`` with ``cut_points=paper_cut_points(X, propositions)``
        (other cut points may be present too; they are simply not allowed).
    X : DataFrame of shape (n_samples, n_features)
        The data the binner was fitted on.
    propositions : int >= 2, None or dict, default=10
        As in :func:`paper_cut_points`.

    Returns
    -------
    allowed : ndarray of shape (n_features, max(n_bins) + 1, 4), bool
        ``allowed[j, k, op]`` is True when the binned proposition ``(j, op,
        k)`` (``op`` one of :data:`~rulebook.binning.LE`, ``GT``, ``EQ``, ``NE``)
        is one of the paper's: ``LE k`` for ``x <= c`` with ``c = t[k]``,
        ``GT k`` for ``x >= c`` with ``t[k]`` the largest value below ``c``,
        and ``EQ k`` for ``x == v`` with ``v`` the ``k``-th category. ``NE``
        is never allowed. This is the ``allowed`` field of
        :class:`rulebook.search.SearchProblem`.

    Raises
    ------
    ValueError
        If ``binner`` is not fitted, was fitted on other columns than ``X``,
        lacks a cut point the paper's propositions need (it was not given
        ``paper_cut_points(X, propositions)``), or on a bad ``propositions``.

    Notes
    -----
    Nominal columns: the paper's code offers ``x == v`` for every value of
    an object column, including ``x == nan`` for missing values; as NaN
    equals nothing, that proposition covers no row. Here missing values sit
    in the missing bin, which no proposition covers, so the two sets of
    non-empty propositions agree. (A column holding Python ``None`` differs:
    the paper's ``x == None`` covers those rows; here it is not offered.)
    Boolean columns get no propositions, exactly as in the paper's code,
    which propositionalises only numeric (``u``, ``i``, ``f``) and object
    (``O``: object, string, categorical) dtypes.

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 2 (propositions) and Appendix B (the
       experiment code: ``realkd.search.Context.from_df``).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "s": list("abcabc")})
    >>> from rulebook.binning import Binner
    >>> binner = Binner(cut_points=paper_cut_points(X, 4))
    >>> _ = binner.fit_transform(X, np.ones(len(X)))
    >>> allowed = paper_allowed(binner, X, 4)
    >>> [str(binner.proposition(j, op, k)) for j, k, op in zip(*np.nonzero(allowed))]
    ['x > 3', 'x <= 3.5', 'x > 5', 'x <= 6', 's == a', 's == b', 's == c']
    """
    features = getattr(binner, "features_", None)
    if features is None:
        raise ValueError("binner must be a fitted Binner (call fit_transform first).")
    if not isinstance(X, pd.DataFrame) or [f.name for f in features] != [str(c) for c in X.columns]:
        raise ValueError("X must be the DataFrame the binner was fitted on (same columns, same order).")
    return _allowed_of(binner, _paper_thresholds(X, propositions))


def _allowed_of(binner, specs):
    """``paper_allowed`` from the per-column specs of ``_paper_thresholds``."""
    features = binner.features_
    allowed = np.zeros((len(features), int(binner.n_bins_.max()) + 1, 4), dtype=np.bool_)
    for j, feature in enumerate(features):
        spec = specs[feature.name]
        if spec["kind"] == NOMINAL and feature.kind == NOMINAL:
            allowed[j, :feature.n_bins, EQ] = True
            continue
        if spec["kind"] != feature.kind:
            if spec["kind"] is None:  # e.g. bool: no propositions in the paper's code
                continue
            raise ValueError(f"column {feature.name!r} was binned as {feature.kind}, "
                             f"but the paper's propositions treat it as {spec['kind']}.")
        for op, points in ((LE, spec["le"]), (GT, spec["gt"])):
            k = np.searchsorted(feature.thresholds, points)
            found = k < len(feature.thresholds)
            found[found] = feature.thresholds[k[found]] == points[found]
            if not found.all():
                raise ValueError(
                    f"binner has no cut point {points[~found][0]!r} in column {feature.name!r}; "
                    "fit it with cut_points=paper_cut_points(X, propositions).")
            allowed[j, k, op] = True
    return allowed


def _paper_thresholds(X, propositions):
    """Per column: kind, and the cut points of its ``<=`` and ``>`` propositions.

    ``le`` holds each ``c`` of a paper proposition ``x <= c``; ``gt`` holds
    ``p(c)`` for each ``x >= c`` (``x > p(c)`` on the data).
    """
    if not isinstance(X, pd.DataFrame):
        raise ValueError(f"X must be a pandas DataFrame; got {type(X).__name__}.")
    counts = _check_propositions(propositions, X)
    X, _ = _with_text_numbers(X)  # numeric here as in Binner.fit_transform
    specs, empty = {}, np.empty(0)
    numeric, positions = [], []
    for j, (name, dtype) in enumerate(X.dtypes.items()):  # not X[name]: a Series each
        kind = dtype.kind
        if kind == "O":
            specs[str(name)] = {"kind": NOMINAL, "le": empty, "gt": empty}
        elif kind not in "uif":
            specs[str(name)] = {"kind": None, "le": empty, "gt": empty}
        else:
            numeric.append(name)
            positions.append(j)
    if not numeric:
        return specs
    # All numeric columns at once: one conversion, one sort, and one
    # quantile call per group of columns cut alike (about 0.1 ms per column
    # when done one by one, most of a small fit's binning).
    values = numeric_block(X, positions)  # quantiles with infinities would be NaN
    ordered = np.sort(values, axis=0)  # NaN last
    n_valid = (~np.isnan(values)).sum(axis=0)
    cuts, presents = {}, []
    for j, name in enumerate(numeric):
        column = ordered[: n_valid[j], j]
        present = column[np.concatenate(([True], column[1:] != column[:-1]))] if len(column) else column
        n_distinct = len(present) + bool(n_valid[j] < len(values))
        k = counts(str(name))
        if k is not None and 2 * n_distinct > k and len(present):
            cuts.setdefault((k // 2, bool(n_valid[j] < len(values))), []).append(j)
        presents.append(present)
    edges = {}
    for (q, has_nan), columns in cuts.items():
        if has_nan:
            for j in columns:
                edges[j] = _qcut_edges(values[:, j], q)
        else:
            edges.update(zip(columns, _qcut_edges_of_columns(values[:, columns], q)))
    for j, name in enumerate(numeric):
        label, present = str(name), presents[j]
        if j in edges:
            if np.any(np.diff(edges[j]) < 0):  # e.g. values near the smallest float
                raise ValueError(f"column {label!r}: its {counts(label) // 2} quantiles are not "
                                 "increasing (values too close to the smallest float).")
            le = np.asarray(edges[j][1:], dtype=np.float64)
            ge = le
        else:
            le, ge = present[:-1], present[1:]
        # x >= c  <=>  x > (largest value below c), on the data. c > min(x)
        # as qcut's edges are distinct and start at the minimum, except for a
        # column with a single value v (and NaN), where qcut gives [v, v]:
        # then x >= v and x <= v both select the non-missing rows, and the
        # LE proposition stands for both.
        below = np.searchsorted(present, ge, side="left") - 1
        specs[label] = {"kind": NUMERIC, "le": le, "gt": present[below[below >= 0]]}
    return specs


def _qcut_edges_of_columns(values, q):
    """:func:`_qcut_edges` of each column of ``values`` (no NaN), in one
    quantile call; the same numbers, as each column's quantiles are computed
    by the same operations."""
    levels = _qcut_levels(q)
    quantiles = np.quantile(values, levels, axis=0)
    return [_drop_repeated(quantiles[:, j]) for j in range(values.shape[1])]


def _qcut_levels(q):
    levels = np.linspace(0, 1, q + 1)
    np.putmask(levels, q * levels != np.arange(q + 1), np.nextafter(levels, 1))
    return levels


def _drop_repeated(edges):
    if len(edges) != 2:
        edges = edges[np.concatenate([[True], edges[1:] != edges[:-1]])]
    return edges


def _qcut_edges(values, q):
    """The bin edges of ``pandas.qcut(values, q, duplicates="drop")``, bit for bit.

    The paper's code cuts each column with ``pandas.qcut``; building its
    categorical result costs about a millisecond per column, ten times the
    edges themselves. This follows pandas 3 (``pandas.core.reshape.tile``):
    quantile levels ``linspace(0, 1, q + 1)``, rounded up where not exact in
    binary; ``numpy.quantile`` (linear) of the non-missing values; duplicate
    edges dropped unless there are only two. ``tests/test_paper_propositions.py``
    checks the equality against the installed pandas.

    Parameters
    ----------
    values : ndarray of shape (n,), float64
        With NaN for missing values; at least one non-missing.
    q : int
        Number of quantile bins, >= 1.

    Returns
    -------
    ndarray of float64
        Ascending edges, the minimum first and the maximum last.
    """
    return _drop_repeated(np.quantile(values[~np.isnan(values)], _qcut_levels(q)))


def _check_propositions(propositions, X):
    def valid(k):
        return k is None or (isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))
                             and k >= 2)

    message = "propositions must be an int >= 2, None, or a dict of column name to those"
    if isinstance(propositions, dict):
        columns = {str(c) for c in X.columns}
        for name, k in propositions.items():
            if str(name) not in columns:
                raise ValueError(f"propositions names column {name!r}, which is not in X.")
            if not valid(k):
                raise ValueError(f"{message}; got {k!r} for column {name!r}.")
        by_name = {str(name): k for name, k in propositions.items()}
        return lambda label: by_name.get(label)
    if not valid(propositions):
        raise ValueError(f"{message}; got {propositions!r}.")
    return lambda label: propositions


class _PaperBinner:
    """A fitted binner whose ``x > p(c)`` propositions print as ``x >= c``.

    With ``propositions`` set, the greedy proposition ``x >= c`` of Boley et
    al. (2021) is the binned ``x > p(c)``, ``p(c)`` the largest training
    value below ``c`` (:func:`paper_cut_points`); the cut
    point after ``p(c)`` is ``c`` itself. Both select the same training rows;
    ``x >= c`` is the paper's proposition, and so what a rule should say and
    how it should predict on new data.
    """

    def __init__(self, binner):
        self._binner = binner

    def __getattr__(self, name):
        return getattr(self._binner, name)

    def proposition(self, feature, op, bin_index):
        spec = self._binner.features_[feature]
        if op == GT and bin_index + 1 < len(spec.thresholds):
            value = float(spec.thresholds[bin_index + 1])
            return Proposition(spec.name, ">=", value, spec.index)
        return self._binner.proposition(feature, op, bin_index)
