"""From a DataFrame to a compact binned matrix, once per fit.

As in scikit-learn's histogram gradient boosting, training works on small
integer bin codes, and a fitted model speaks only of real values, so that
prediction needs no binning state.

* Numeric columns: bin ``k`` holds the values in ``(t[k-1], t[k]]`` where
  the cut points ``t`` are values that occur in the data (so a printed rule
  ``Age <= 19`` names a real age). They are equal-frequency (weighted)
  quantiles when the column has more distinct values than ``max_bins``,
  every distinct value when ``max_bins=None``, or the user's cut points.
* Nominal columns (object, string, categorical, bool): one bin per observed
  category, in sorted order.
* Missing values (NaN, None, pd.NA) go to a bin of their own, the last one,
  ``n_bins[j]``. No proposition covers it: a missing value satisfies no
  threshold or equality.

The binned conditions the learners handle are ``(feature, op, bin)`` with
``op`` one of :data:`LE`, :data:`GT` (numeric), :data:`EQ`, :data:`NE`
(nominal); :meth:`Binner.proposition` turns one into a real-valued
:class:`~rulebook.rules.Proposition`.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._config import X_BINNED_DTYPE
from ._validation import (
    _ID_MIN_ROWS,
    MAX_CATEGORIES,
    NOMINAL,
    NUMERIC,
    column_kind,
    numeric_values,
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
        Numeric only: upper edges of bins ``0 .. n_bins - 2``.
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
    """

    def __init__(self, max_bins=255, cut_points=None):
        self.max_bins = max_bins
        self.cut_points = cut_points

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
            Bad ``max_bins`` or ``cut_points``, infinite values, identifier-
            like nominal columns, too many categories.
        TypeError
            Columns of unsupported dtype.
        """
        _check_max_bins(self.max_bins)
        cut_points = _check_cut_points(self.cut_points, frame)
        active = sample_weight > 0
        n, d = frame.shape
        X_binned = np.empty((n, d), dtype=X_BINNED_DTYPE, order="F")
        features = []
        for j, name in enumerate(frame.columns):
            column = frame.iloc[:, j]
            label = str(name)
            if column_kind(label, column) == NUMERIC:
                values = numeric_values(label, column)
                if label in cut_points:
                    thresholds = cut_points[label]
                else:
                    thresholds = _equal_frequency_cuts(values, sample_weight, active, self.max_bins)
                feature = FeatureBins(label, j, NUMERIC, thresholds, ())
                X_binned[:, j] = _bin_numeric(values, thresholds)
            else:
                categories, codes = _categories(label, column, active)
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
    """Cut points that are data values and split the weight about evenly."""
    keep = active & ~np.isnan(values)
    present, weights = values[keep], sample_weight[keep]
    # One sort gives the distinct values and, by run lengths, their weights
    # (argsort only when the weights differ: a plain sort is cheaper).
    if len(present) and np.all(weights == weights[0]):
        ordered, ordered_weights = np.sort(present), None
    else:
        order = np.argsort(present, kind="stable")
        ordered, ordered_weights = present[order], weights[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.empty(0, np.intp)
    distinct = ordered[starts]
    if len(distinct) <= 1:
        return np.empty(0)
    if max_bins is None or len(distinct) <= max_bins:
        # The largest value is no cut point: ``x > max`` would be empty.
        if len(distinct) - 1 > 65534:
            raise ValueError(
                f"a column has {len(distinct)} distinct values, more than 65535 bins; "
                "set max_bins to an int."
            )
        return distinct[:-1]
    if ordered_weights is None:
        weight = np.diff(np.r_[starts, len(ordered)]).astype(np.float64)
    else:
        weight = np.add.reduceat(ordered_weights, starts)
    cumulative = np.cumsum(weight) / weight.sum()
    targets = np.arange(1, max_bins) / max_bins
    cut = np.unique(np.searchsorted(cumulative, targets, side="left"))
    return distinct[cut[cut < len(distinct) - 1]]


def _bin_numeric(values, thresholds):
    codes = np.searchsorted(thresholds, values, side="left")
    codes[np.isnan(values)] = len(thresholds) + 1
    return codes


def _sort_key(value):
    # Mixed types (e.g. 1 and "a" in one object column) cannot be compared;
    # sort by type name first so the order is still deterministic.
    return (type(value).__name__, value)


def _categories(name, column, active):
    """Observed categories (sorted) and bin codes; missing -> len(categories)."""
    # One hash pass in C; -1 marks missing values.
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    codes = codes.astype(np.int64)
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
    if len(categories) > MAX_CATEGORIES:
        raise ValueError(
            f"column {name!r} has {len(categories)} categories, more than {MAX_CATEGORIES}; "
            "drop it or group its categories."
        )
    if n_present >= _ID_MIN_ROWS and len(categories) == n_present:
        raise ValueError(
            f"column {name!r} has a different value in every row (an identifier?); "
            "its rules would each cover one row. Drop the column, or convert it to "
            "numbers if it is a measurement."
        )
    # Factorize order -> sorted order; values seen only in zero-weight rows
    # and missing values go to the missing bin.
    # remap has one extra slot at the end so that code -1 (missing) indexes it.
    position = {value: k for k, value in enumerate(categories)}
    remap = np.full(len(uniques) + 1, len(categories), dtype=np.int64)
    for k, value in zip(np.flatnonzero(seen), observed):
        remap[k] = position[value]
    return categories, remap[codes]
