"""From a DataFrame to a compact binned matrix, once per fit.

As in scikit-learn's histogram gradient boosting, training works on small
integer bin codes, and a fitted model speaks only of real values, so that
prediction needs no binning state.

* Numeric columns: bin ``k`` holds the values in ``(t[k-1], t[k]]``. The
  bins end at values of the data: equal-frequency (weighted) quantiles when
  the column has more distinct values than ``max_bins``, every distinct
  value when ``max_bins=None``. The threshold ``t[k]`` of a bin that ends
  at the value ``v`` is the shortest decimal number in ``[v, w)``, ``w``
  the column's next larger value (:func:`rulebook._formatting.shortest_between`;
  rows of zero weight count as removed): ages 19 and 20 give ``Age <= 19``,
  values 0.038075906 and 0.0381234 give ``x <= 0.0381``. No value lies in
  ``(v, t]``, so every training row of positive weight falls in the bin it
  would with ``t = v``, and a printed rule, which names its threshold
  exactly, is both short and the model's own condition. In a float32 column the gap is narrowed to the values as
  the column shows them (a float32 0.2 is 0.20000000298 as a float64,
  which rules compare). The user's ``cut_points`` (and so
  :func:`paper_cut_points`) are thresholds as given.
* Nominal columns (object, string, categorical, bool): one bin per observed
  category, in sorted order; at most ``max_categories`` of them.
* Column hygiene: an object or string column whose non-blank cells all hold
  numbers is numeric, its blank cells missing (a table read from a CSV file
  with a few empty cells); an integer column that looks like a row number
  (distinct values, in order or a permutation of a range) is binned but
  warned about. Each such guess gives a warning naming the column.
* Missing values (NaN, None, pd.NA) go to a bin of their own, the last one,
  ``n_bins[j]``. No proposition covers it: a missing value satisfies no
  threshold or equality.

The binned conditions the learners handle are ``(feature, op, bin)`` with
``op`` one of :data:`LE`, :data:`GT` (numeric), :data:`EQ`, :data:`NE`
(nominal); :meth:`Binner.proposition` turns one into a real-valued
:class:`~rulebook.rules.Proposition`.

:func:`paper_cut_points` and :func:`paper_allowed` reproduce the propositions
of Boley et al.'s reference code (k/2 equal-frequency thresholds per column,
each giving ``x <= c`` and ``x >= c``) as cut points and a search mask.
"""

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from ._config import X_BINNED_DTYPE
from ._formatting import shortest_between_arrays
from ._validation import (
    user_stacklevel,
    _ID_MIN_ROWS,
    MAX_CATEGORIES,
    NOMINAL,
    NUMERIC,
    dtype_kind,
    is_text_dtype,
    numeric_block,
    parse_numbers,
)
from .rules import Proposition

# Binned condition operators, shared with the kernels.
LE, GT, EQ, NE = 0, 1, 2, 3
_OPERATOR_SYMBOL = {LE: "<=", GT: ">", EQ: "==", NE: "!="}


@dataclass(frozen=True, eq=False)
class FeatureBins:
    """How one column was binned.

    Attributes
    ----------
    name : str
        Column name (``x<j>`` for ndarray input).
    index : int
        Column position in the training data.
    kind : {"numeric", "nominal"}
    thresholds : ndarray of float64, shape (n_bins - 1,)
        Numeric only: upper edges of bins ``0 .. n_bins - 2`` (the user's
        cut points, or the shortest decimals in gaps between the data's
        values, see the module docstring).
    categories : tuple
        Nominal only: the category of each bin.
    """

    name: str
    index: int
    kind: str
    thresholds: np.ndarray
    categories: tuple

    @property
    def n_bins(self):
        """Number of non-missing bins; the missing bin has this index."""
        return len(self.thresholds) + 1 if self.kind == NUMERIC else len(self.categories)


class Binner:
    """Learns the bins of each column and maps a frame to bin codes.

    Parameters
    ----------
    max_bins : int in [2, 65535] or None, default=255
        Largest number of non-missing bins of a numeric column. ``None``
        makes every distinct value a cut point.
    cut_points : dict of {str: sequence of float}, optional
        Explicit cut points for some numeric columns, overriding
        ``max_bins`` there.
    max_categories : int in [2, 65535] or None, default=100
        Most categories (among rows of positive weight) a nominal column
        may have; more raise ``ValueError``. ``None`` allows up to 65535.
        See the estimators' parameter of the same name for why it is an
        error and why 100.
    """

    def __init__(self, max_bins=255, cut_points=None, max_categories=100):
        self.max_bins = max_bins
        self.cut_points = cut_points
        self.max_categories = max_categories

    def fit_transform(self, frame, sample_weight):
        """Learn the bins of ``frame`` and return its bin codes.

        Parameters
        ----------
        frame : DataFrame of shape (n_samples, n_features)
            Validated training data (unique column names, at least one row).
        sample_weight : ndarray of shape (n_samples,), float64
            Rows of zero weight do not influence the cut points or
            categories, so that they behave as if removed.

        Returns
        -------
        X_binned : ndarray of shape (n_samples, n_features), uint16, F-order

        Raises
        ------
        ValueError
            Bad ``max_bins``, ``cut_points`` or ``max_categories``, infinite
            values, identifier-like nominal columns, more categories than
            ``max_categories``.
        TypeError
            Columns of unsupported dtype.

        Warns
        -----
        UserWarning
            Naming each text column read as numbers (and how many of its
            cells were blank, now missing), and each integer column that
            looks like a row identifier.
        """
        _check_max_bins(self.max_bins)
        max_categories = _check_max_categories(self.max_categories)
        cut_points = _check_cut_points(self.cut_points, frame)
        integer = [_is_integer_dtype(dtype) for dtype in frame.dtypes]
        frame, parsed = _with_text_numbers(frame, warn=True)
        active = sample_weight > 0
        n, d = frame.shape
        X_binned = np.empty((n, d), dtype=X_BINNED_DTYPE, order="F")
        kinds = [dtype_kind(str(name), dtype) for name, dtype in frame.dtypes.items()]
        numeric = [j for j, kind in enumerate(kinds) if kind == NUMERIC]
        block = numeric_block(frame, numeric)
        column_of = {j: k for k, j in enumerate(numeric)}
        chosen = _readable_cuts({
            j: _as_shown(frame.dtypes.iloc[j], *_equal_frequency_cuts(
                block[:, column_of[j]], sample_weight, active, self.max_bins))
            for j in numeric if str(frame.columns[j]) not in cut_points})
        features = []
        for j, name in enumerate(frame.columns):
            label = str(name)
            if kinds[j] == NUMERIC:
                values = block[:, column_of[j]]
                thresholds = cut_points[label] if label in cut_points else chosen[j]
                if integer[j] or j in parsed:
                    _warn_if_row_identifier(label, values)
                feature = FeatureBins(label, j, NUMERIC, thresholds, ())
                X_binned[:, j] = _bin_numeric(values, thresholds)
            else:
                categories, codes = _categories(label, frame.iloc[:, j], active, max_categories)
                feature = FeatureBins(label, j, NOMINAL, np.empty(0), categories)
                X_binned[:, j] = codes
            features.append(feature)
        self.features_ = tuple(features)
        return X_binned

    @property
    def n_bins_(self):
        """ndarray of shape (n_features,), int64: non-missing bins per column."""
        return np.array([f.n_bins for f in self.features_], dtype=np.int64)

    @property
    def is_nominal_(self):
        """ndarray of shape (n_features,), bool."""
        return np.array([f.kind == NOMINAL for f in self.features_], dtype=np.bool_)

    def proposition(self, feature, op, bin_index):
        """Real-valued :class:`Proposition` of the binned condition.

        ``LE k`` becomes ``x <= t[k]``, ``GT k`` becomes ``x > t[k]``,
        ``EQ k`` / ``NE k`` become ``x == c[k]`` / ``x != c[k]``.
        """
        spec = self.features_[feature]
        if op in (LE, GT):
            value = float(spec.thresholds[bin_index])
        else:
            value = spec.categories[bin_index]
        return Proposition(spec.name, _OPERATOR_SYMBOL[op], value, spec.index)


def _check_max_bins(max_bins):
    if max_bins is None:
        return
    if isinstance(max_bins, (bool, np.bool_)) or not isinstance(max_bins, (int, np.integer)):
        raise ValueError(f"max_bins must be an int in [2, 65535] or None; got {max_bins!r}.")
    if not 2 <= max_bins <= 65535:
        raise ValueError(f"max_bins must be in [2, 65535] or None; got {max_bins}.")


def _check_max_categories(max_categories):
    """``max_categories`` as an int (``MAX_CATEGORIES`` for None)."""
    if max_categories is None:
        return MAX_CATEGORIES
    if (isinstance(max_categories, (bool, np.bool_))
            or not isinstance(max_categories, (int, np.integer))
            or not 2 <= max_categories <= MAX_CATEGORIES):
        raise ValueError(
            f"max_categories must be an int in [2, {MAX_CATEGORIES}] or None; got {max_categories!r}."
        )
    return int(max_categories)


def _is_integer_dtype(dtype):
    # numpy and nullable integers; bool is nominal, not an integer here.
    return ptypes.is_integer_dtype(dtype) and not ptypes.is_bool_dtype(dtype)


def _with_text_numbers(frame, warn=False):
    """``frame`` with its text columns of numbers (:func:`parse_numbers`) as float64.

    Returns
    -------
    frame : DataFrame
        A new frame if a column was converted (the caller's is not
        modified), else ``frame`` itself.
    parsed : set of int
        Positions of the converted columns.
    """
    converted = {}
    for j, dtype in enumerate(frame.dtypes):
        if not is_text_dtype(dtype):
            continue
        values, n_blank = parse_numbers(frame.iloc[:, j])
        if values is None or n_blank == len(values):  # all blank: nothing to read
            continue
        converted[j] = values
        if warn:
            warnings.warn(
                f"column {str(frame.columns[j])!r} has dtype {dtype} but every non-blank cell "
                f"holds a number: it is treated as numeric, and its {n_blank} blank cell(s) "
                "(empty or whitespace strings, None, NaN) as missing values. Convert it with "
                "pandas.to_numeric to silence this warning, or make it a pandas Categorical "
                "to keep it nominal.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
    if not converted:
        return frame, set()
    frame = frame.copy(deep=False)  # copy-on-write: the caller's frame keeps its columns
    for j, values in converted.items():
        frame.isetitem(j, values)
    return frame, set(converted)


def _warn_if_row_identifier(label, values):
    """Warn if a column of integers looks like row numbers.

    All present values distinct, and either strictly monotone in row order
    or a permutation of a range of integers, in a frame of at least
    ``_ID_MIN_ROWS`` such values (fewer may be so by chance). A warning,
    not an error as for nominal identifiers: a year or a count can be
    distinct and increasing and still be a measurement.
    """
    present = values[~np.isnan(values)]
    n = len(present)
    if n < _ID_MIN_ROWS or not np.all(present == np.round(present)):
        return
    steps = np.diff(present)
    if np.all(steps > 0) or np.all(steps < 0):
        how = ("distinct integers in " + ("increasing" if steps[0] > 0 else "decreasing")
               + " row order")
    elif np.all(np.diff(np.sort(present)) == 1):
        how = f"a permutation of the integers {present.min():.0f}..{present.max():.0f}"
    else:
        return
    warnings.warn(
        f"column {label!r} looks like a row identifier: its {n} values are {how}, so rules "
        "on it would pick rows by their number rather than by what was measured. Drop the "
        "column if it numbers or identifies the rows; ignore this warning if it is a measurement.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def _check_cut_points(cut_points, frame):
    if cut_points is None:
        return {}
    if not isinstance(cut_points, dict):
        raise ValueError("cut_points must be a dict mapping column names to sequences of numbers.")
    columns = {str(c) for c in frame.columns}
    checked = {}
    for name, points in cut_points.items():
        if str(name) not in columns:
            raise ValueError(f"cut_points names column {name!r}, which is not in X.")
        try:
            points = np.unique(np.asarray(points, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(f"cut_points[{name!r}] must be a sequence of numbers.") from None
        if not np.isfinite(points).all():
            raise ValueError(f"cut_points[{name!r}] must be finite.")
        if len(points) + 1 > 65535:
            raise ValueError(f"cut_points[{name!r}] has more than 65534 cut points.")
        checked[str(name)] = points
    return checked


def _equal_frequency_cuts(values, sample_weight, active, max_bins):
    """Data values to cut after, splitting the weight about evenly.

    Returns
    -------
    cuts : ndarray of float64
        Values ``v`` of the column (rows of positive weight): bin edges.
    following : ndarray of float64, same shape
        Each cut's next larger value (rows of positive weight): a threshold
        in ``[v, following)`` bins those rows alike. Rows of zero weight
        count as removed here too, so that a weight of zero and removing
        the row fit the same thresholds (scikit-learn's sample weight
        equivalence); their own bins play no part in a fit.
    """
    keep = active & ~np.isnan(values)
    ordered, ordered_weights = _sorted_with_weights(values[keep], sample_weight[keep])
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.empty(0, np.intp)
    distinct = ordered[starts]
    if len(distinct) <= 1:
        return np.empty(0), np.empty(0)
    if max_bins is None or len(distinct) <= max_bins:
        # The largest value is no cut point: ``x > max`` would be empty.
        if len(distinct) - 1 > 65534:
            raise ValueError(
                f"a column has {len(distinct)} distinct values, more than 65535 bins; "
                "set max_bins to an int."
            )
        cut = np.arange(len(distinct) - 1)
    else:
        if ordered_weights is None:
            weight = np.diff(np.r_[starts, len(ordered)]).astype(np.float64)
        else:
            weight = np.add.reduceat(ordered_weights, starts)
        cumulative = np.cumsum(weight) / weight.sum()
        targets = np.arange(1, max_bins) / max_bins
        cut = np.unique(np.searchsorted(cumulative, targets, side="left"))
        cut = cut[cut < len(distinct) - 1]
    return distinct[cut], distinct[cut + 1]


def _sorted_with_weights(present, weights):
    """``present`` sorted, and its weights in that order (None when all equal)."""
    # One sort gives the distinct values and, by run lengths, their weights
    # (argsort only when the weights differ: a plain sort is cheaper).
    if len(present) and np.all(weights == weights[0]):
        return np.sort(present), None
    order = np.argsort(present, kind="stable")
    return present[order], weights[order]


def _readable_cuts(cuts):
    """The thresholds of rulebook's own cut points: the shortest decimal in each gap.

    Parameters
    ----------
    cuts : dict of {int: (ndarray, ndarray)}
        Per column, the data values cut after and the next larger values
        (:func:`_equal_frequency_cuts`).

    Returns
    -------
    dict of {int: ndarray of float64}
        Per column, for each cut ``v`` with next value ``w``, the shortest
        decimal ``t`` with ``v <= t < w``
        (:func:`rulebook._formatting.shortest_between`): no value of the
        column lies in ``(v, t]``, so every row is binned as with ``v``,
        and the rule prints ``t`` exactly in few digits. One call for all
        columns.
    """
    if not cuts:
        return {}
    lower = np.concatenate([low for low, _ in cuts.values()])
    upper = np.concatenate([high for _, high in cuts.values()])
    chosen = np.split(shortest_between_arrays(lower, upper),
                      np.cumsum([len(low) for low, _ in cuts.values()])[:-1])
    return dict(zip(cuts, chosen))


def _as_shown(dtype, cuts, following):
    """The gaps ``[cuts, following)`` of a float32 or float16 column narrowed
    to the values as the column shows them.

    Rules compare float64 values, and a float32 0.2 is 0.20000000298...:
    ``x <= 0.2`` would leave out the rows a reader sees as 0.2. Between
    ``max(v, shown(v))`` and ``min(w, shown(w))``, ``shown`` the shortest
    decimal of the value in the column's own precision, the threshold
    separates both the float64 values and the numbers the reader sees (a
    float32 0.1 and 0.2 give ``x <= 0.11``).
    """
    try:  # numpy, nullable (Float32) and sparse dtypes
        kind = np.dtype(getattr(dtype, "numpy_dtype", getattr(dtype, "subtype", dtype)))
    except TypeError:
        return cuts, following
    if kind.kind != "f" or kind.itemsize >= 8:
        return cuts, following

    def shown(values):
        return np.array([float(str(kind.type(v))) for v in values.tolist()])

    return np.maximum(cuts, shown(cuts)), np.minimum(following, shown(following))


def _bin_numeric(values, thresholds):
    codes = np.searchsorted(thresholds, values, side="left")
    codes[np.isnan(values)] = len(thresholds) + 1
    return codes


# Rows per pandas.factorize call. Its hash table takes about 70 bytes a row
# of strings (1.9 MB for the 27 820 rows of suicide rates, most of that
# fit's memory); a slice at a time keeps it small.
FACTORIZE_CHUNK = 8192


def _factorize(column):
    """``pandas.factorize(column)`` (codes, first-seen uniques; -1 missing),
    over slices of ``FACTORIZE_CHUNK`` rows."""
    n = len(column)
    if n <= FACTORIZE_CHUNK or isinstance(column.dtype, pd.CategoricalDtype):
        return pd.factorize(column, use_na_sentinel=True)  # categoricals need no hashing
    codes, number, uniques = np.empty(n, np.intp), {}, []
    for start in range(0, n, FACTORIZE_CHUNK):
        part, found = pd.factorize(column.iloc[start:start + FACTORIZE_CHUNK],
                                   use_na_sentinel=True)
        # A slice's codes -> the column's; the extra last slot maps -1 to -1.
        to_column = np.full(len(found) + 1, -1, np.intp)
        for k, value in enumerate(found):
            if value not in number:
                number[value] = len(uniques)
                uniques.append(value)
            to_column[k] = number[value]
        codes[start:start + len(part)] = to_column[part]
    # One more item than any sequence value's length: a 1-D object array
    # even when the values are tuples.
    return codes, np.array(uniques + [None], dtype=object)[:-1]


def _sort_key(value):
    # Mixed types (e.g. 1 and "a" in one object column) cannot be compared;
    # sort by type name first so the order is still deterministic.
    return (type(value).__name__, value)


def _categories(name, column, active, max_categories=MAX_CATEGORIES):
    """Observed categories (sorted) and bin codes; missing -> len(categories).

    Raises ``ValueError`` for an identifier-like column (a different value
    in every row of positive weight) and for more than ``max_categories``.
    """
    # Hash passes in C; -1 marks missing values.
    codes, uniques = _factorize(column)
    codes = np.asarray(codes, dtype=np.int64)
    present = codes >= 0
    seen = np.bincount(codes[active & present], minlength=len(uniques)) > 0
    # Python scalars, not numpy ones, so that propositions hash, compare and
    # round-trip through JSON like the values users write.
    observed = [v.item() if isinstance(v, np.generic) else v
                for v in np.asarray(uniques, dtype=object)[seen]]
    try:
        categories = tuple(sorted(observed))
    except TypeError:
        categories = tuple(sorted(observed, key=_sort_key))
    n_present = int((active & present).sum())
    # The identifier check first: its message is the more specific one.
    if n_present >= _ID_MIN_ROWS and len(categories) == n_present:
        raise ValueError(
            f"column {name!r} has a different value in every row (an identifier?); "
            "its rules would each cover one row. Drop the column, or convert it to "
            "numbers if it is a measurement."
        )
    if len(categories) > max_categories:
        limit = ("" if max_categories == MAX_CATEGORIES
                 else ", or raise max_categories if every category matters")
        raise ValueError(
            f"column {name!r} has {len(categories)} categories, more than "
            f"max_categories={max_categories}; its rules would be chains of '!=' conditions "
            "and categories covering a few rows each. Group its categories (e.g. map the "
            "rare ones to 'other'), convert it to numbers if it is a measurement, or drop "
            f"it{limit}."
        )
    # Factorize order -> sorted order; values seen only in zero-weight rows
    # and missing values go to the missing bin.
    # remap has one extra slot at the end so that code -1 (missing) indexes it.
    position = {value: k for k, value in enumerate(categories)}
    remap = np.full(len(uniques) + 1, len(categories), dtype=np.int64)
    for k, value in zip(np.flatnonzero(seen), observed):
        remap[k] = position[value]
    return categories, remap[codes]


# -- Propositions of the paper's reference code ------------------------------
# Boley et al. (2021) propositionalise each column once, before boosting, and
# search conjunctions of those propositions only (their ``realkd`` package,
# ``Context.from_df``). The two functions below express the same propositions
# on rulebook's bins, so that results can be compared with the paper: the cut
# points make every paper proposition a union of bins, and the mask says which
# of rulebook's binned propositions are the paper's.


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
    ``p(c)``; pass them as ``cut_points`` to :class:`Binner` or to the
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
    binner : Binner
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
        k)`` (``op`` one of :data:`LE`, :data:`GT`, :data:`EQ`, :data:`NE`)
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
    edges dropped unless there are only two. ``tests/test_binning.py``
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
