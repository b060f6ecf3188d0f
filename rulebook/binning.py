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
  :func:`rulebook.paper_propositions.paper_cut_points`) are thresholds as given.
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

The propositions of Boley et al.'s reference code (k/2 equal-frequency
thresholds per column, each giving ``x <= c`` and ``x >= c``) are cut points
and a search mask on these bins: :mod:`rulebook.paper_propositions`.
"""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from ._binning_kernels import (
    COMPILED_MIN_ROWS,
    bin_values,
    count_distinct,
    present_values,
    quantile_cuts,
)
from ._config import X_BINNED_DTYPE
from ._formatting import shortest_between, shortest_between_arrays
from ._sparse_bins import bin_sparse, is_sparse
from ._validation import (
    ROW_SLICE,
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

    Notes
    -----
    Given ``gaps=(lower, upper)`` instead of ``thresholds`` (None), the
    thresholds are the shortest decimals in those gaps, found when first
    read (:func:`_readable_cuts`): a model needs those of its rules'
    conditions only, and finding them for every cut of every column was
    a fifth of a 10-rule fit of a small wide table (atp7d's 411 columns:
    7.5 ms). :meth:`threshold` finds one without the others.
    """

    def __init__(self, name, index, kind, thresholds, categories, gaps=None):
        self.name = name
        self.index = index
        self.kind = kind
        self.categories = categories
        self._thresholds = thresholds
        self._gaps = gaps

    @property
    def thresholds(self):
        if self._thresholds is None:
            self._thresholds = shortest_between_arrays(*self._gaps)
        return self._thresholds

    def threshold(self, k):
        """``float(thresholds[k])``; of a lazy column, without the other thresholds."""
        if self._thresholds is not None:
            return float(self._thresholds[k])
        lower, upper = self._gaps
        # The scalar form gives the same numbers as the vectorised one
        # (tests/test_binning.py), in a few microseconds.
        return shortest_between(lower[k], upper[k])

    @property
    def n_bins(self):
        """Number of non-missing bins; the missing bin has this index."""
        if self.kind != NUMERIC:
            return len(self.categories)
        cuts = self._gaps[0] if self._thresholds is None else self._thresholds
        return len(cuts) + 1

    def __repr__(self):
        return (f"FeatureBins(name={self.name!r}, index={self.index}, kind={self.kind!r}, "
                f"n_bins={self.n_bins})")


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
            Or a canonical scipy CSC matrix of numbers
            (:func:`rulebook._validation.as_sparse`): its columns are named
            ``x<j>`` and binned from their non-zero entries.
        sample_weight : ndarray of shape (n_samples,), float64
            Rows of zero weight do not influence the cut points or
            categories, so that they behave as if removed.

        Returns
        -------
        X_binned : ndarray of shape (n_samples, n_features), uint16, F-order
            Or, for a sparse ``frame``, a
            :class:`~rulebook._sparse_bins.SparseBins` (the codes of the
            non-zero entries, row-major; zeros implicit).

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
        if is_sparse(frame):
            return self._fit_transform_sparse(frame, sample_weight)
        cut_points = _check_cut_points(self.cut_points, frame)
        integer = _per_dtype(_is_integer_dtype, list(frame.dtypes))
        frame, parsed = _with_text_numbers(frame, warn=True)
        active = sample_weight > 0
        n, d = frame.shape
        X_binned = np.empty((n, d), dtype=X_BINNED_DTYPE, order="F")
        dtypes = list(frame.dtypes)  # a new Series at each access: once, not per column
        names = [str(name) for name in frame.columns]
        kinds = _per_dtype(lambda dtype, j: dtype_kind(names[j], dtype), dtypes)
        numeric = [j for j, kind in enumerate(kinds) if kind == NUMERIC]
        block = _column_major(numeric_block(frame, numeric))
        column_of = {j: k for k, j in enumerate(numeric)}
        to_cut = [j for j in numeric if names[j] not in cut_points]
        # Every row active: no row's value lies between a cut v and the
        # next value w, so binning at v bins every row as at the threshold
        # in [v, w) would, which is then found only when read (FeatureBins).
        # A row of zero weight may lie in that gap: then the thresholds now.
        lazy = bool(active.all())
        found, codes = _cuts_of_columns(block, [column_of[j] for j in to_cut], sample_weight,
                                        active, self.max_bins, with_codes=lazy)
        code_of = {} if codes is None else {j: k for k, j in enumerate(to_cut)}
        cuts_of = dict(zip(to_cut, found))
        gaps = {j: _as_shown(dtypes[j], *cuts) for j, cuts in cuts_of.items()}
        chosen = {} if lazy else _readable_cuts(gaps)
        features = []
        for j, label in enumerate(names):
            if kinds[j] == NUMERIC:
                values = block[:, column_of[j]]
                if integer[j] or j in parsed:
                    _warn_if_row_identifier(label, values)
                if label in cut_points or not lazy:
                    edges = cut_points[label] if label in cut_points else chosen[j]
                    feature = FeatureBins(label, j, NUMERIC, edges, ())
                else:
                    edges = cuts_of[j][0]
                    feature = FeatureBins(label, j, NUMERIC, None, (), gaps=gaps[j])
                X_binned[:, j] = (codes[:, code_of[j]] if j in code_of
                                  else _bin_numeric(values, edges))
            else:
                categories, category_codes = _categories(label, frame.iloc[:, j], active,
                                                         max_categories)
                feature = FeatureBins(label, j, NOMINAL, np.empty(0), categories)
                X_binned[:, j] = category_codes
            features.append(feature)
        self.features_ = tuple(features)
        return X_binned

    def _fit_transform_sparse(self, X, sample_weight):
        """:meth:`fit_transform` of a canonical CSC matrix: a :class:`SparseBins`.

        Every column numeric, named ``x<j>`` as the columns of an array;
        the thresholds those of the dense array (:func:`bin_sparse`).
        """
        names = pd.Index([f"x{j}" for j in range(X.shape[1])])
        cut_points = _check_cut_points(self.cut_points, pd.DataFrame(columns=names))

        def readable(found):
            return _readable_cuts({j: _as_shown(X.dtype, *cuts) for j, cuts in found.items()})

        thresholds, bins = bin_sparse(X, sample_weight, self.max_bins, cut_points, readable,
                                      _equal_frequency_cuts_numpy)
        if _is_integer_dtype(X.dtype):
            for j in np.flatnonzero(np.diff(X.indptr) >= X.shape[0] - 1):
                # Distinct values need at most one zero: only then read the column.
                column = X[:, [j]].toarray().ravel().astype(np.float64)
                _warn_if_row_identifier(names[j], column)
        self.features_ = tuple(FeatureBins(names[j], j, NUMERIC, thresholds[j], ())
                               for j in range(X.shape[1]))
        return bins

    @property
    def n_bins_(self):
        """ndarray of shape (n_features,), int64: non-missing bins per column."""
        return self._per_feature()[0]

    @property
    def is_nominal_(self):
        """ndarray of shape (n_features,), bool."""
        return self._per_feature()[1]

    def _per_feature(self):
        # Read every round (each round's search problem): made once per
        # ``features_`` (which the Dask binner sets itself), not per read
        # (a Python pass over the columns: 0.1 ms for 411 of them). Not
        # marked read-only: the kernels take them, and numba compiles a
        # read-only array's signature apart (the kernel manifest's).
        cached = self.__dict__.get("_per_feature_cache")
        if cached is None or cached[0] is not self.features_:
            n_bins = np.array([f.n_bins for f in self.features_], dtype=np.int64)
            nominal = np.array([f.kind == NOMINAL for f in self.features_], dtype=np.bool_)
            cached = self._per_feature_cache = (self.features_, n_bins, nominal)
        return cached[1:]

    def proposition(self, feature, op, bin_index):
        """Real-valued :class:`Proposition` of the binned condition.

        ``LE k`` becomes ``x <= t[k]``, ``GT k`` becomes ``x > t[k]``,
        ``EQ k`` / ``NE k`` become ``x == c[k]`` / ``x != c[k]``.
        """
        spec = self.features_[feature]
        if op in (LE, GT):
            value = spec.threshold(bin_index)
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


def _per_dtype(func, dtypes):
    """``[func(dtype) for dtype in dtypes]``, computed once per distinct dtype.

    pandas' dtype tests cost tens of microseconds a call, a few
    milliseconds over a table of hundreds of columns of one dtype. ``func``
    may take the column's position as a second argument (it is then given
    the first column of each dtype: an error names that column, as a
    column-by-column pass would).
    """
    # The argument count from the code object: inspect.signature took
    # tens of microseconds a call, a few calls a fit.
    positional = getattr(getattr(func, "__code__", None), "co_argcount", 1) > 1
    seen, out = {}, []
    for j, dtype in enumerate(dtypes):
        try:
            known = dtype in seen
        except TypeError:  # an unhashable dtype: asked directly
            known = None
        if not known:
            value = func(dtype, j) if positional else func(dtype)
            if known is not None:
                seen[dtype] = value
        out.append(seen[dtype] if known else value)
    return out


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
    text = _per_dtype(is_text_dtype, list(frame.dtypes))
    for j, dtype in enumerate(frame.dtypes):
        if not text[j]:
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


def _equal_frequency_cuts(values, sample_weight, active, max_bins, weigh_alike=None):
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

    Notes
    -----
    Columns of ``COMPILED_MIN_ROWS`` rows or more whose present rows weigh
    alike go through compiled kernels (:func:`_compiled_cuts`), the rest
    through NumPy (:func:`_equal_frequency_cuts_numpy`); both give the same
    cuts (``tests/test_binning.py``). ``weigh_alike``: whether they do, when
    the caller knows (:func:`_weigh_alike`, the same for every column).
    """
    if len(values) >= COMPILED_MIN_ROWS:
        if weigh_alike is None:
            weigh_alike = _weigh_alike(sample_weight, active)
        if weigh_alike:
            return _compiled_cuts(values, active, max_bins)
    return _equal_frequency_cuts_numpy(values, sample_weight, active, max_bins)


def _weigh_alike(sample_weight, active):
    """Whether the rows of positive weight all weigh the same (or there are none)."""
    weights = sample_weight[active]
    return not len(weights) or bool(np.all(weights == weights[0]))


def _compiled_cuts(values, active, max_bins):
    """:func:`_equal_frequency_cuts` of a column whose present rows weigh alike, compiled.

    The kernels release the GIL (as NumPy's sort does), so that the
    columns of a wide table are cut on threads side by side
    (:func:`_cuts_of_columns`).
    """
    present = np.empty(len(values), np.float64)
    ordered = np.sort(present[:present_values(np.ascontiguousarray(values), active, present)])
    n_distinct = count_distinct(ordered)
    if n_distinct <= 1:
        return np.empty(0), np.empty(0)
    if max_bins is None or n_distinct <= max_bins:
        if n_distinct - 1 > 65534:
            raise ValueError(
                f"a column has {n_distinct} distinct values, more than 65535 bins; "
                "set max_bins to an int."
            )
        targets = np.empty(0)
    else:
        targets = np.arange(1, max_bins) / max_bins
    cuts, following = np.empty(len(ordered)), np.empty(len(ordered))
    k = quantile_cuts(ordered, targets, cuts, following)
    return cuts[:k].copy(), following[:k].copy()


def _column_major(block):
    """``block`` in Fortran order: each column's values are read contiguously below.

    A row-major block (a frame made from a C-order array without a copy) is
    copied a slice of rows at a time, so that reads and writes both stay in
    cache: at 10^6 x 20, 200 ms for numpy's whole-array copy, ~60 ms so.
    """
    if block.flags.f_contiguous:
        return block
    out = np.empty(block.shape, block.dtype, order="F")
    for start in range(0, block.shape[0], ROW_SLICE):
        out[start:start + ROW_SLICE] = block[start:start + ROW_SLICE]
    return out


def _cuts_of_columns(block, columns, sample_weight, active, max_bins, with_codes=False):
    """:func:`_equal_frequency_cuts` of ``block[:, k]`` for each ``k`` in ``columns``.

    Returns a list in the order of ``columns`` and, if ``with_codes``,
    the columns' bin codes at their cuts where a small table's columns
    were cut at once (ndarray of shape (n, len(columns)),
    :data:`X_BINNED_DTYPE`, F-order), else None. Tall columns are cut on
    as many threads as numba uses: sorting is most of binning a tall
    table, and one column's sort does not wait for another's.
    """
    # The same for every column: asked once, not per column (a pass over the rows each).
    alike = _weigh_alike(sample_weight, active) if block.shape[0] >= COMPILED_MIN_ROWS else None
    if (block.shape[0] <= BLOCK_CUT_MAX_ROWS and len(columns) > 1 and active.all()
            and _weigh_alike(sample_weight, active)):
        # A small table of rows weighing alike: its columns at once, in
        # groups of about BLOCK_CUT_CELLS cells (a few int64 arrays of the
        # group's shape are made).
        width = max(1, BLOCK_CUT_CELLS // block.shape[0])
        found = []
        codes = (np.empty((block.shape[0], len(columns)), X_BINNED_DTYPE, order="F")
                 if with_codes else None)
        for start in range(0, len(columns), width):
            part = None if codes is None else codes[:, start:start + width]
            group = _sorted_block_cuts(block[:, columns[start:start + width]], max_bins, part)
            if group is None:
                break
            found += group
        else:
            return found, codes

    def cut(k):
        return _equal_frequency_cuts(block[:, k], sample_weight, active, max_bins, alike)

    threads = min(numba.get_num_threads(), len(columns))
    if threads <= 1 or block.shape[0] < COMPILED_MIN_ROWS:
        found = [cut(k) for k in columns]
    else:
        with ThreadPoolExecutor(threads) as pool:
            found = list(pool.map(cut, columns))
    return found, None


# Cells of a group of columns cut at once (_sorted_block_cuts): 8 MB an int64 array.
BLOCK_CUT_CELLS = 2**20
# Rows up to which the columns are cut at once: its passes over every row
# beat the per-column calls on short tables only (magic's 19,020 rows: 10%
# of a 10-rule fit slower).
BLOCK_CUT_MAX_ROWS = 4096


def _sorted_block_cuts(block, max_bins, codes=None):
    """:func:`_equal_frequency_cuts_numpy` of every column of ``block``, every
    row active and of the same weight, from one sort of the block.

    The per-column NumPy calls were most of binning a small wide table
    (411 columns of 197 rows: 20 ms). Each column's distinct values are
    its sorted values where they change; with equal weights a distinct
    value's cumulative share is ``stop / m`` (``stop`` the position after
    its last row: the same float64 division as the cumulative sum of the
    counts over their total), and the first distinct value whose share
    reaches a target is the one at the first position ``p`` with
    ``(p + 1) / m`` reaching it. The same cuts, as the first sorted value
    of each run (a run of -0.0 and 0.0 keeps its first). None when a
    column holds NaN (or a column would have too many bins for the dense
    path's error to be raised here): then column by column.

    ``codes``, if given, an (m, d) array: filled with each row's bin at the
    cut values (the number of cuts below its value; every row is active,
    so binning at the thresholds would give the same). From the block's
    sort order, where binning column by column took 1.5 ms for emotions'
    72 columns and 4 ms for atp7d's 411 (a searchsorted call each).
    """
    m, d = block.shape
    ordered = np.sort(block, axis=0)
    if np.isnan(ordered[-1]).any():  # NaN sorts last
        return None
    change = ordered[1:] != ordered[:-1]  # (m - 1, d): a new run starts at p + 1
    col, pos = np.nonzero(change.T)  # every run's last position but each column's last run's
    per_column = np.bincount(col, minlength=d)  # n_distinct - 1
    if max_bins is None and (per_column > 65534).any():
        return None
    offset = np.concatenate(([0], np.cumsum(per_column)))
    if max_bins is None:
        chosen = np.ones(len(pos), bool)
    else:
        chosen = np.repeat(per_column + 1 <= max_bins, per_column)
        many = np.flatnonzero(per_column + 1 > max_bins)
        if len(many):
            targets = np.arange(1, max_bins) / max_bins
            first = np.searchsorted(np.arange(1, m + 1) / m, targets, side="left")  # (T,)
            # The run holding position q: the change positions before q, a
            # running count down each column (one pass; searching every
            # column's changes for every target was a fifth of binning).
            before = np.zeros((m, len(many)), np.int64)
            np.cumsum(change[:, many], axis=0, out=before[1:])
            runs = before[first]  # (T, c)
            keep = np.ones(runs.shape, bool)
            keep[1:] = runs[1:] != runs[:-1]  # each run once
            keep &= runs < per_column[many][None, :]  # never the last run
            t_idx, c_idx = np.nonzero(keep)
            chosen[offset[many][c_idx] + runs[t_idx, c_idx]] = True
    chosen = np.flatnonzero(chosen)
    # The first position of each chosen run: the previous run's end + 1,
    # or 0 for a column's first run (of the chosen only: yeast's block
    # has 10^5 runs).
    first_run = chosen == offset[col[chosen]]
    start = np.where(first_run, 0, pos[chosen - 1 + first_run] + 1)
    col, pos = col[chosen], pos[chosen]
    if codes is not None:
        _codes_of_sorted(block, col, pos, codes)
    values = ordered[start, col]
    following = ordered[pos + 1, col]
    bounds = np.concatenate(([0], np.cumsum(np.bincount(col, minlength=d)))).tolist()
    # Slices rather than np.split (a Python pass of its own: 0.7 ms for 411 columns).
    return [(values[a:b], following[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


def _codes_of_sorted(block, col, pos, codes):
    """Fill ``codes`` (m, d) with the bins of ``block``'s rows at cuts ending
    sorted runs at positions ``pos`` of columns ``col``.

    At sorted position ``p`` the bin is the number of cut runs ending
    before ``p`` (a cumulative count of the run ends). The positions are
    those of any sort of the column (ties hold equal values, and a run of
    -0.0 and 0.0 is one run), so argsort's order puts them back in rows.
    """
    ends = np.zeros(block.shape, codes.dtype)
    ends[pos + 1, col] = 1  # never after the last run: pos + 1 < m
    np.put_along_axis(codes, np.argsort(block, axis=0), np.cumsum(ends, axis=0, dtype=codes.dtype),
                      axis=0)


def _equal_frequency_cuts_numpy(values, sample_weight, active, max_bins):
    """:func:`_equal_frequency_cuts` in NumPy, for any weights.

    Also the reference the compiled form is tested against.
    """
    keep = active & ~np.isnan(values)
    ordered, ordered_weights = _sorted_with_weights(values[keep], sample_weight[keep])
    # np.concatenate rather than np.r_ (a tenth of a small column's binning).
    starts = (np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
              if len(ordered) else np.empty(0, np.intp))
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
            weight = np.diff(np.append(starts, len(ordered))).astype(np.float64)
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
    # searchsorted(thresholds, values), NaN in the missing bin; compiled
    # (numpy's was most of binning a wide table: _binning_kernels).
    return bin_values(values, thresholds)


# Rows per pandas.factorize call. Its hash table takes about 70 bytes a row
# of strings (1.9 MB for the 27 820 rows of suicide rates, most of that
# fit's memory); a slice at a time keeps it small.
FACTORIZE_CHUNK = 8192


def _factorize(column):
    """``pandas.factorize(column)`` (codes, first-seen uniques; -1 missing),
    over slices of ``FACTORIZE_CHUNK`` rows."""
    n = len(column)
    if (n <= FACTORIZE_CHUNK or isinstance(column.dtype, pd.CategoricalDtype)
            or _arrow_backed(column.dtype)):
        # Categoricals need no hashing; Arrow's dictionary encoding keeps a
        # small table (suicide rates' age column: 0.2 MB, 0.35 ms whole
        # against 0.7 ms in slices).
        return pd.factorize(column, use_na_sentinel=True)
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


def _arrow_backed(dtype):
    """Whether a column of ``dtype`` stores its values in Arrow (pandas' default strings)."""
    return (isinstance(dtype, pd.ArrowDtype)
            or (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"))


def _sort_key(value):
    # Mixed types (e.g. 1 and "a" in one object column) cannot be compared;
    # sort by type name first so the order is still deterministic.
    return (type(value).__name__, value)


def sorted_categories(name, observed, n_present, max_categories=MAX_CATEGORIES):
    """A nominal column's observed values, sorted (by type name first when mixed).

    ``n_present``: its rows of positive weight with a value.

    Raises
    ------
    ValueError
        An identifier-like column (a different value in every such row,
        from ``_ID_MIN_ROWS`` rows); more than ``max_categories`` categories.
    """
    try:
        categories = tuple(sorted(observed))
    except TypeError:
        categories = tuple(sorted(observed, key=_sort_key))
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
    return categories


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
    categories = sorted_categories(name, observed, int((active & present).sum()), max_categories)
    # Factorize order -> sorted order; values seen only in zero-weight rows
    # and missing values go to the missing bin.
    # remap has one extra slot at the end so that code -1 (missing) indexes it.
    position = {value: k for k, value in enumerate(categories)}
    remap = np.full(len(uniques) + 1, len(categories), dtype=np.int64)
    for k, value in zip(np.flatnonzero(seen), observed):
        remap[k] = position[value]
    return categories, remap[codes]
