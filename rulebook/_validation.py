"""Input checks shared by the estimators: one place that says what is valid.

Every error names the column or parameter and what would be valid
(developers' guide, rule 7). Nothing here modifies the caller's data.
"""

import itertools
import numbers
import os
import sys
import warnings

import numpy as np
import pandas as pd
from pandas.api import types as ptypes
from scipy import sparse
from sklearn.utils import check_array, column_or_1d
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import _check_sample_weight, validate_data

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_stacklevel():
    """``stacklevel`` for ``warnings.warn`` that points at the user's code.

    The first frame outside the rulebook package, counted from the caller
    of this function's caller: a warning about the data then names the
    line that called ``fit`` (or ``predict``), however deep inside the
    package it was raised.
    """
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level

NUMERIC, NOMINAL = "numeric", "nominal"

# A nominal column in which every value is distinct is almost surely an
# identifier (a name, a ticket number); its ``x == c`` propositions would each
# cover one row. Below this many rows such a column may be legitimate. The
# same minimum applies to integer columns that look like row numbers: among
# n >= 20 distinct values, increasing order or a gap-free range by chance
# has probability 2 / n! or less, while on a toy frame ``x = 1..10`` is common.
_ID_MIN_ROWS = 20
# Hard limit: bin codes are uint16 and the missing bin needs one code.
MAX_CATEGORIES = 65535
# Largest |y| and sample weight. A round's objective squares the weighted
# gradient sum, G = sum w g with |g| <= 2 |y|: with |y| <= 1e100, w <= 1e20
# and up to 1e8 rows, |G| <= 2e128 and G^2, the losses w (y - f)^2 and their
# sums stay finite in float64 (max 1.8e308). Beyond, fits overflowed: an
# intercept of inf (y = 1.8e308), lost rules (y = 1e200), a crash of the
# optimal learner (weights of 1e200).
MAX_ABS_TARGET = 1e100
MAX_SAMPLE_WEIGHT = 1e20


def as_frame(X):
    """Return ``X`` as a DataFrame without copying the caller's data.

    ndarrays (and anything ``check_array`` accepts) get columns ``x0``,
    ``x1``, ...; object columns that hold only numbers become numeric.

    Warns
    -----
    UserWarning
        For a DataFrame with pandas sparse columns, naming how large they
        are dense (they are densified when binned or evaluated).

    Raises
    ------
    TypeError
        For scipy sparse input (read by :func:`as_sparse` instead).
    ValueError
        For empty, 1-D or complex input.
    """
    if isinstance(X, pd.DataFrame):
        if X.shape[1] == 0:
            raise ValueError("X has no columns; at least one feature is required.")
        if X.shape[0] == 0:
            raise ValueError("X has 0 rows; at least one row is required.")
        if not X.columns.is_unique:
            dupes = sorted(map(str, X.columns[X.columns.duplicated()].unique()))
            raise ValueError(f"X has duplicate column names {dupes}; column names must be unique.")
        _warn_sparse(X)
        return X
    array = check_array(
        X, dtype=None, ensure_all_finite=False, accept_sparse=False, ensure_min_samples=1
    )
    frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])], copy=False)
    if array.dtype == object:
        frame = frame.infer_objects()
    return frame


def as_sparse(X):
    """A scipy sparse ``X`` as a new canonical CSC matrix of numbers, checked.

    Any format (CSR, CSC, COO, ...; matrix or array) is read; the result is
    a copy in compressed sparse column format with sorted indices and no
    duplicates, so the caller's ``X`` is never modified. NaN entries are
    missing values, as in a dense array.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)

    Returns
    -------
    scipy.sparse CSC matrix or array of shape (n_samples, n_features)
        Of the dtype of ``X``.

    Raises
    ------
    ValueError
        Naming ``X``: no rows or columns, not 2-D, a dtype that is not
        int, unsigned or float (bool, complex, object), infinite values
        (naming the column, ``x<j>``).
    """
    if len(X.shape) != 2:
        raise ValueError(f"X must be 2-D; got a sparse input of shape {X.shape}.")
    n, d = X.shape
    if d == 0:
        raise ValueError("X has no columns; at least one feature is required.")
    if n == 0:
        raise ValueError("X has 0 rows; at least one row is required.")
    if X.dtype.kind not in "iuf":
        raise ValueError(
            f"X is a sparse matrix of dtype {X.dtype}; sparse input must hold numbers (int or "
            "float). Convert it, e.g. X.astype(numpy.float64), or pass a DataFrame for "
            "nominal columns.")
    csc = X.tocsc(copy=True)
    csc.sum_duplicates()  # also sorts the indices; on the copy
    infinite = np.isinf(csc.data) if csc.dtype.kind == "f" else np.zeros(0, bool)
    if infinite.any():
        column = int(np.searchsorted(csc.indptr, np.argmax(infinite), side="right") - 1)
        _raise_infinite(f"x{column}")
    return csc


class SparseColumns:
    """A checked sparse ``X`` at prediction: its columns read one at a time.

    What :func:`check_prediction_frame` returns for scipy sparse input, in
    place of a DataFrame: the rules' conditions are evaluated on a
    column's stored entries (:mod:`rulebook._predict`), the matrix is never
    made dense.

    Parameters
    ----------
    X : scipy.sparse CSC matrix or array
        Canonical (:func:`as_sparse`).
    """

    def __init__(self, X):
        self.X = X
        self.shape = X.shape

    def __len__(self):
        return self.shape[0]

    def entries(self, j):
        """Rows (int) and values (float64, NaN missing) of column ``j``'s stored entries."""
        start, stop = self.X.indptr[j], self.X.indptr[j + 1]
        return self.X.indices[start:stop], np.asarray(self.X.data[start:stop], dtype=np.float64)

    def column(self, j):
        """Column ``j`` as a dense float64 array (one column: n_samples values)."""
        out = np.zeros(self.shape[0])
        rows, values = self.entries(j)
        out[rows] = values
        return out


def _check_sparse_prediction(estimator, X, feature_kinds):
    """:func:`check_prediction_frame` of scipy sparse ``X``: a :class:`SparseColumns`."""
    validate_data(estimator, X, skip_check_array=True, reset=False)
    if NOMINAL in feature_kinds:
        raise ValueError("X is sparse but the model has nominal columns (fitted on a DataFrame); "
                         "pass a DataFrame with the columns of fit.")
    return SparseColumns(as_sparse(X))


def _warn_sparse(frame):
    """Warn that the sparse columns of ``frame`` will be densified.

    Binning and prediction read every value of a column, so a pandas
    sparse column costs its dense size; say how large before it is spent.
    """
    sparse = [name for name, dtype in frame.dtypes.items() if isinstance(dtype, pd.SparseDtype)]
    if not sparse:
        return
    n_rows = frame.shape[0]
    megabytes = n_rows * len(sparse) * 8 / 1e6
    warnings.warn(
        f"X has {len(sparse)} sparse columns (e.g. {sparse[:3]}); they are densified: "
        f"{n_rows} rows x {len(sparse)} columns, about {megabytes:.3g} MB as float64. "
        "Pass X.sparse.to_dense() to silence this warning.",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def column_kind(name, column):
    """``"numeric"`` or ``"nominal"`` for one column, by its dtype.

    Raises
    ------
    TypeError
        For dtypes that are neither (datetimes, intervals, complex, ...).
    """
    return dtype_kind(name, column.dtype)


def dtype_kind(name, dtype):
    """:func:`column_kind` of a column named ``name`` of dtype ``dtype``."""
    if ptypes.is_bool_dtype(dtype) or isinstance(dtype, pd.CategoricalDtype):
        return NOMINAL
    if ptypes.is_string_dtype(dtype) or ptypes.is_object_dtype(dtype):
        return NOMINAL
    if ptypes.is_numeric_dtype(dtype) and not ptypes.is_complex_dtype(dtype):
        return NUMERIC
    raise TypeError(
        f"column {name!r} has dtype {dtype}, which is neither numeric nor nominal; "
        "convert it to numbers, strings or a pandas Categorical."
    )


def is_text_dtype(dtype):
    """Whether columns of ``dtype`` hold Python objects or strings.

    Categoricals are excluded: their categories are the user's explicit
    choice, and stay nominal even when they are numbers.
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return False
    return ptypes.is_object_dtype(dtype) or ptypes.is_string_dtype(dtype)


def parse_numbers(column):
    """The numbers of a text column whose non-blank cells all hold numbers.

    A blank cell is a missing value (None, NaN, pd.NA) or a string of
    whitespace only; every other cell must be a number or a string that
    :func:`pandas.to_numeric` parses (``" 12.5"``, ``"1e3"``, ``"-4"``), so
    that the values are those :meth:`rulebook.rules.Proposition.evaluate`
    compares with a threshold. Booleans are not numbers here: a column of
    ``True``/``False`` stays nominal.

    Parameters
    ----------
    column : Series of shape (n_rows,)
        Any dtype; only object and string columns are parsed.

    Returns
    -------
    values : ndarray of shape (n_rows,), float64, or None
        The numbers, NaN in blank cells; ``None`` if ``column`` is not of
        object or string dtype (:func:`is_text_dtype`) or a non-blank cell
        is not a number.
    n_blank : int
        Number of blank cells (0 when ``values`` is None).
    """
    if not is_text_dtype(column.dtype):
        return None, 0
    head = column.iloc[:_PROBE].to_numpy(dtype=object, na_value=np.nan)
    if _surely_words(head):
        return None, 0  # as _parse would say, without pandas' parser or a pass over the column
    # Most text columns are words: a few cells tell, before the whole column
    # is converted (a word among them is a word in the column: ``_parse``
    # fails on a column if it fails on some of its cells). Suicide rates'
    # ``age`` ("15-24 years") starts as a number does: this saved its
    # 27 820-cell conversion, 1 ms of each of a fit's two passes.
    if _parse(head[~pd.isna(head)]) is None:
        return None, 0
    cells = column.to_numpy(dtype=object, na_value=np.nan)
    missing = pd.isna(cells)
    present = cells[~missing]
    parsed = _parse(present)
    if parsed is None:
        return None, 0
    values = np.full(len(cells), np.nan)
    values[~missing] = parsed
    return values, int(np.isnan(values).sum())


# Cells parsed first to reject a column of words quickly.
_PROBE = 64


# What a number pandas.to_numeric reads begins with, after blanks: a
# digit, a sign, a point, or "inf"/"Infinity" ("nan" reads as NaN: a word).
_NUMBER_STARTS = frozenset("0123456789+-.iI")


def _surely_words(cells):
    """Whether a cell is a string that :func:`_parse` cannot read, by its
    first non-blank character (ASCII, and none a number begins with).

    A quick test before pandas' parser (50-150 us a call: most of checking
    a small table's word columns, e.g. tic-tac-toe's ``x``/``o``/``b``).
    False says nothing: then :func:`_parse` decides.
    """
    for cell in cells:
        if isinstance(cell, str):
            text = cell.lstrip()
            if text and text[0] < "\x80" and text[0] not in _NUMBER_STARTS:
                return True
    return False


def _parse(cells):
    """float64 numbers of non-missing ``cells`` (NaN for blank strings), or
    None if one is neither a number nor blank."""
    try:
        parsed = pd.to_numeric(pd.Series(cells, dtype=object), errors="coerce")
        parsed = parsed.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError, OverflowError):
        return None
    failed = np.flatnonzero(np.isnan(parsed))
    if any(not (isinstance(cells[i], str) and not cells[i].strip()) for i in failed):
        return None  # a word, or a string such as "nan" that pandas reads as NaN
    if any(isinstance(cell, (bool, np.bool_)) for cell in cells):
        return None  # pandas.to_numeric reads True as 1
    return parsed


# A text column is "numbers with a missing-value marker" when at least
# this many distinct numbers and at most this many distinct other words.
_MARKER_MIN_NUMBERS, _MARKER_MAX_WORDS = 2, 2


def warn_numbers_with_markers(frame, features):
    """Warn about nominal text columns of numbers with a word or two among them.

    A column such as ``["1.5", "2", "N/A", "3.25"]`` is not converted
    (:func:`parse_numbers` needs every non-blank cell to be a number, and
    whether ``"N/A"`` or ``"-"`` means missing is a guess), so it stays
    nominal and its rules are ``s == "2"``. That guess is the user's; the
    warning names the column and the words, and how to convert. Categorical
    columns are the user's explicit choice and are not checked.

    Parameters
    ----------
    frame : DataFrame
        Training data, as passed to the binner.
    features : sequence of FeatureBins
        The fitted binner's features (``kind``, ``index``, ``categories``).
    """
    for feature in features:
        if feature.kind != NOMINAL or not is_text_dtype(frame.dtypes.iloc[feature.index]):
            continue
        words = [c for c in feature.categories if not (isinstance(c, str) and not c.strip())
                 and (_surely_words([c]) or _parse([c]) is None)]
        n_numbers = len(feature.categories) - len(words)
        if n_numbers >= _MARKER_MIN_NUMBERS and 0 < len(words) <= min(_MARKER_MAX_WORDS, n_numbers - 1):
            warnings.warn(
                f"column {feature.name!r} holds numbers except for {words}; it is treated as "
                "nominal (one category per number). If those values mark missing data, convert "
                f"the column with pandas.to_numeric(X[{feature.name!r}], errors='coerce'); make "
                "it a pandas Categorical to keep it nominal and silence this warning.",
                UserWarning,
                stacklevel=user_stacklevel(),
            )


def numeric_values(name, column):
    """Column as float64 with missing values as NaN; rejects infinities.

    Raises
    ------
    ValueError
        If the column contains +inf or -inf.
    """
    values = column.to_numpy(dtype=np.float64, na_value=np.nan)
    if np.isinf(values).any():
        _raise_infinite(name)
    return values


def numeric_block(frame, positions):
    """:func:`numeric_values` of the columns at ``positions``, as one array.

    One conversion for a frame of numeric columns, rather than a Series and
    a conversion per column (about 50 us each: most of binning a small
    frame).

    Returns
    -------
    ndarray of shape (n_rows, len(positions)), float64

    Raises
    ------
    ValueError
        Naming the first column that contains +inf or -inf.
    """
    if len(positions) == frame.shape[1]:
        values = frame.to_numpy(dtype=np.float64, na_value=np.nan)
    else:  # by position: selecting the columns by name copies through pandas
        # Column-major: each column is written, and later scanned, in one
        # contiguous pass (row-major, 2 columns of 27 820 rows took 0.6 ms).
        values = np.empty((frame.shape[0], len(positions)), order="F")
        for k, j in enumerate(positions):
            values[:, k] = frame.iloc[:, j].to_numpy(dtype=np.float64, na_value=np.nan)
    infinite = np.isinf(values).any(axis=0)
    if infinite.any():
        _raise_infinite(str(frame.columns[positions[int(np.argmax(infinite))]]))
    return values


# Rows per slice when a row-major table is read a few columns at a time.
ROW_SLICE = 8192


def row_major_block(frame):
    """A frame's values as its own row-major float64 array, or None.

    A frame made from a C-order array without a copy
    (``pd.DataFrame(X, copy=False)``) keeps that array: each of its columns
    is strided, and reading one column touches every row's cache line, so
    reading the columns one by one costs as many passes over the whole
    table (at 10^6 x 20, 9 ms a column against 1.7 ms in one pass). This
    returns the array itself (no copy) so that callers read it in slices
    of rows; None for anything else (columns of other dtypes, a
    column-major frame, whose columns are contiguous).
    """
    if frame.shape[1] < 2 or not all(dtype == np.float64 for dtype in frame.dtypes):
        return None
    first = frame.iloc[:, 0].to_numpy()
    if first.strides[0] == first.itemsize:
        return None
    values = frame.to_numpy()
    if values.flags.c_contiguous and np.may_share_memory(values, first):
        return values
    return None


def _check_finite_rows(block, names):
    """Raise (naming the first column) if a row-major ``block`` holds +-inf."""
    for start in range(0, block.shape[0], ROW_SLICE):
        infinite = np.isinf(block[start:start + ROW_SLICE]).any(axis=0)
        if infinite.any():
            _raise_infinite(str(names[int(np.argmax(infinite))]))


def _raise_infinite(name):
    raise ValueError(
        f"column {name!r} contains infinite values; replace them with NaN "
        "(treated as missing) or with finite numbers."
    )


def check_target(y, n_rows, *, numeric):
    """Validate a target vector and return it as an ndarray.

    Raises
    ------
    ValueError
        Wrong length, missing or infinite values, or (``numeric=True``)
        values that are not numbers or exceed ``MAX_ABS_TARGET`` in size.
    """
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one-dimensional; got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    y_array = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    if y_array.ndim == 2 and y_array.shape[1] == 1:
        y_array = column_or_1d(y_array, warn=True)  # DataConversionWarning, as sklearn does
    if y_array.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {y_array.shape}.")
    if y_array.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y_array.shape[0]}; they must match.")
    if numeric:
        try:
            y_array = np.asarray(y_array, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                "y must be numeric for regression; got values such as "
                f"{y_array[:3].tolist()}. Use RuleBoostingClassifier for class labels."
            ) from None
        if not np.isfinite(y_array).all():
            raise ValueError("y contains NaN or infinite values; drop or impute those rows.")
        largest = float(np.abs(y_array).max(initial=0.0))
        if largest > MAX_ABS_TARGET:
            raise ValueError(
                f"y has values as large as {largest:.3g}; beyond {MAX_ABS_TARGET:.0e} the "
                "squared errors and sums of a fit overflow float64 (a model of inf or lost "
                "rules). Please rescale y, e.g. y / 1e90, and the predictions back.")
    elif pd.isna(y_array).any():
        raise ValueError("y contains missing values; drop or impute those rows.")
    else:
        _check_class_labels(y_array)
    return y_array


def _check_class_labels(y):
    """Require class labels of one type that scikit-learn reads as classes.

    scikit-learn's own checks (``check_classification_targets``) speak of
    "Unknown label type: continuous" or fail comparing a str with an int;
    this says that ``y`` is at fault and how to fix it.

    Raises
    ------
    ValueError
        Labels of several types (``"1"`` and ``1``), bytes, or numbers
        that are not class labels (``0.5``, ``2.5``: a regression target).
    """
    types = sorted({type(v).__name__ for v in y}) if y.dtype == object else [y.dtype.name]
    if len(types) > 1:
        raise ValueError(f"y holds class labels of several types, {types}, such as "
                         f"{_examples(y)}; convert them to one type, e.g. y.astype(str).")
    if "bytes" in types or y.dtype.kind == "S":
        raise ValueError(f"y holds bytes labels such as {_examples(y)}; decode them to str.")
    kind = type_of_target(y, input_name="y")
    if kind not in ("binary", "multiclass"):
        # "Unknown label type": the words scikit-learn's checks look for.
        raise ValueError(
            f"Unknown label type: {kind}. y must hold class labels for a classifier; its "
            f"values, such as {_examples(y)}, make a {kind} target. Use a regressor for "
            "numbers, or convert the labels to int or str.")


def _examples(y):
    return list(itertools.islice(dict.fromkeys(y.tolist()), 3))


def check_sample_weight(sample_weight, n_rows):
    """Non-negative finite weights of shape (n_rows,), float64; ones if None.

    A number is that weight for every row. The array is a new one: the
    caller's weights are never modified.

    Raises
    ------
    ValueError
        Values that are not numbers, wrong shape, negative or non-finite
        weights, weights above ``MAX_SAMPLE_WEIGHT``, or all weights zero;
        the message names ``sample_weight``.
    """
    if sample_weight is None:
        return np.ones(n_rows, dtype=np.float64)
    if isinstance(sample_weight, (str, bytes)):
        raise ValueError(f"sample_weight must be a number or an array of numbers; got {sample_weight!r}.")
    try:
        # scikit-learn's check: shape, a number broadcast to every row, float64.
        weights = _check_sample_weight(sample_weight, np.empty((n_rows, 0)), dtype=np.float64,
                                       copy=True, allow_all_zero_weights=True)
    except (TypeError, ValueError) as error:
        raise ValueError(f"sample_weight must be a number or an array of numbers of shape "
                         f"({n_rows},) like y; {error}") from None
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight must be finite; it has NaN or infinite values.")
    if (weights < 0).any():
        raise ValueError(f"sample_weight must be non-negative; got {float(weights[weights < 0][0])!r}.")
    if not (weights > 0).any():
        raise ValueError("sample_weight is zero for every row; at least one row needs positive weight.")
    if weights.max() > MAX_SAMPLE_WEIGHT:
        raise ValueError(
            f"sample_weight has values as large as {weights.max():.3g}; beyond "
            f"{MAX_SAMPLE_WEIGHT:.0e} a fit's sums overflow float64. Please rescale the weights "
            "(e.g. divide by their mean); reg_lambda is in the same units.")
    return weights


def check_weighted_classes(y, weights, classes):
    """Require rows of positive weight in every class of the target.

    A class whose rows all have weight zero is not in the data the model
    is fitted to: the intercept would diverge (log odds of a probability
    of 1) and every rule would be empty.

    Parameters
    ----------
    y : ndarray of shape (n_rows,) or (n_rows, K)
        Binary target encoded as +1 / -1, or one-hot (a column per class).
    weights : ndarray of shape (n_rows,), float64
        Validated :func:`check_sample_weight`.
    classes : ndarray of shape (2,) or (K,)
        Labels of -1 and +1, or of the columns, for the message.

    Raises
    ------
    ValueError
        Naming ``sample_weight`` and the class that has no positive weight.
    """
    positive = weights > 0
    if y.ndim == 2:  # one-hot, one column per class
        for k, label in enumerate(classes):
            if not (positive & (y[:, k] > 0)).any():
                raise ValueError(
                    f"sample_weight is zero on every row of class {label!r}; a classifier needs "
                    "rows of positive weight in every class.")
        return
    for code, label in zip((-1.0, 1.0), classes):
        if not (positive & (y == code)).any():
            raise ValueError(
                f"sample_weight is zero on every row of class {label!r}; a classifier needs "
                "rows of positive weight in both classes."
            )


def fit_columns(X):
    """The column labels of a DataFrame ``X`` as a tuple; None for other input.

    Stored at fit (``_fit_columns``) so that prediction can hold a frame to
    the same columns whatever their labels' type: scikit-learn checks only
    string names (``feature_names_in_``), and a frame built from an array,
    ``pd.DataFrame(array)``, has integer names it ignores.
    """
    return tuple(X.columns) if isinstance(X, pd.DataFrame) else None


def check_columns(columns, fitted):
    """Require the columns of a prediction frame to be those of fit, in order.

    The rule, for column labels of any type (str, int, ...) when ``fit``
    saw a DataFrame: the same labels in the same order. Other labels are
    an error listing the missing and unexpected ones; the same labels in
    another order are an error too (as scikit-learn's for string names),
    not silently reordered, so a frame is read one way only. Array input
    is positional and not checked here.

    Parameters
    ----------
    columns : Index
        Columns of the prediction frame.
    fitted : tuple or None
        :func:`fit_columns` of the training data; None skips the check.

    Raises
    ------
    ValueError
        Missing or unexpected columns, or the columns in another order.
    """
    if fitted is None or list(columns) == list(fitted):
        return
    present, known = set(columns), set(fitted)
    missing = [c for c in fitted if c not in present]
    unexpected = [c for c in columns if c not in known]
    if missing or unexpected:
        raise ValueError(
            f"X has other columns than in fit: missing {missing}, unexpected {unexpected}; "
            f"pass the columns seen in fit, {list(fitted)}."
        )
    raise ValueError(
        f"X has the columns seen in fit in another order, {list(columns)}; columns must be "
        f"in the order of fit, {list(fitted)} (select them as X[{list(fitted)}])."
    )


def check_prediction_frame(estimator, X, ensemble, feature_kinds, categories):
    """Validate prediction input against what a fitted estimator saw in fit.

    Checks the number and names of columns (scikit-learn's contract), that
    numeric columns are still numeric and finite, and warns about nominal
    categories not seen in fit (they satisfy no ``==`` and every ``!=``).
    A text column of a numeric feature is parsed as in fit
    (:func:`parse_numbers`: blank cells are missing), so the raw frame that
    was fitted predicts as its converted form does.

    Returns
    -------
    DataFrame
        ``X`` as a frame whose columns the ensemble can find by name; text
        columns of numeric features replaced by their numbers (in a new
        frame: ``X`` is not modified). For scipy sparse ``X``, a
        :class:`SparseColumns` of a canonical copy.

    Raises
    ------
    ValueError
        Wrong number or names of columns, columns in another order than in
        fit (:func:`check_columns`), a numeric column with non-numeric
        values, infinite values.
    """
    if sparse.issparse(X):
        return _check_sparse_prediction(estimator, X, feature_kinds)
    frame = as_frame(X)
    fitted = getattr(estimator, "_fit_columns", None)  # None also for models pickled before it
    if isinstance(X, pd.DataFrame) and not hasattr(estimator, "feature_names_in_"):
        # Names scikit-learn does not check (ints, ...): before its count of
        # columns, so that the error lists them.
        check_columns(X.columns, fitted)
    # On the caller's X: the names x0, x1, ... of as_frame are not feature names.
    validate_data(estimator, X, skip_check_array=True, reset=False)
    if isinstance(X, pd.DataFrame):
        check_columns(X.columns, fitted)
    names = ensemble.feature_names
    if ensemble.by_name and not isinstance(X, pd.DataFrame):
        # Positional input for a model fitted on named columns: scikit-learn
        # has warned; evaluate by position under the training names.
        frame = frame.set_axis(list(names), axis=1)
    parsed = {}
    block = row_major_block(frame)
    if block is not None:  # every column float64: one pass for the infinities
        _check_finite_rows(block, frame.columns)
    for j, (name, kind) in enumerate(zip(names, feature_kinds)):
        position = frame.columns.get_loc(name) if ensemble.by_name else j
        column = frame.iloc[:, position]
        if kind == NUMERIC and block is not None:
            continue
        if kind == NUMERIC:
            if is_text_dtype(column.dtype):
                parsed[position] = _numbers_of_text(name, column)
            elif column_kind(name, column) != NUMERIC:
                raise ValueError(
                    f"column {name!r} was numeric in fit but has dtype {column.dtype} now; "
                    "pass numbers (NaN for missing)."
                )
            else:
                numeric_values(name, column)
        else:
            _warn_unseen(name, column, categories[name])
    if parsed:
        frame = frame.copy(deep=False)  # copy-on-write: X keeps its columns
        for position, values in parsed.items():
            frame.isetitem(position, values)
    return frame


def _numbers_of_text(name, column):
    """:func:`parse_numbers` of a numeric feature's text column at predict."""
    values, _ = parse_numbers(column)
    if values is None:
        examples = list(itertools.islice(
            (c for c in column.dropna().to_numpy(dtype=object) if _parse([c]) is None), 3))
        raise ValueError(
            f"column {name!r} was numeric in fit but holds values that are not numbers now, "
            f"e.g. {examples}; pass numbers (NaN or a blank string for missing)."
        )
    if np.isinf(values).any():
        _raise_infinite(name)
    return values


def _warn_unseen(name, column, seen):
    present = pd.unique(column.dropna().to_numpy(dtype=object))
    unseen = [v for v in present if v not in seen]
    if unseen:
        warnings.warn(
            f"column {name!r} has categories not seen in fit, e.g. {unseen[:3]}; "
            "they satisfy no '==' condition and every '!=' condition.",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
