"""What a worker does with one partition: pure functions, arrays in and out.

Every function here runs in a Dask task on one partition (pandas objects or
the partition's :class:`Shard`) and returns something small (a sketch, sums,
a histogram) or a new per-partition array (bin codes, raw scores, an
extent). None of them imports Dask: the client side
(:mod:`rulebook.dask._binning`, :mod:`rulebook.dask._search`,
:mod:`rulebook.dask._boosting`) submits them.

Functions never modify their arguments: Dask may run a task twice (a lost
worker, work stealing), and a task that updated its input in place would
then apply its update twice.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._config import X_BINNED_DTYPE
from .._search_kernels import EQ, GT, LE
from .._validation import (
    NOMINAL,
    check_sample_weight,
    check_target,
    is_text_dtype,
    numeric_block,
    parse_numbers,
)
from ..binning import _bin_numeric
from ..search import SearchProblem

# Points of a partition's quantile sketch of a numeric column: its distinct
# values when it has at most this many, else this many equally spaced order
# statistics with the weight each stands for. Many more than the 255 bins
# of a default fit, so that the merged sketch's quantiles are close to the
# data's.
SKETCH_POINTS = 2048


@dataclass(frozen=True)
class Shard:
    """One partition, binned, with its target and weights (kept on a worker).

    Attributes
    ----------
    X_binned : ndarray of shape (n_rows, n_features), uint16, F-order
    y : ndarray of shape (n_rows,), float64
        The encoded target (classifier: +1 / -1).
    c : ndarray of shape (n_rows,), float64
        Sample weights.
    rows : ndarray of shape (n_active,), intp
        Rows of positive weight, ascending: the partition's part of the root
        extent.
    """

    X_binned: np.ndarray
    y: np.ndarray
    c: np.ndarray
    rows: np.ndarray


# -- the first pass: sketches, categories, target checks ---------------------
def summarize(part, y, weight, kinds, classify):
    """A partition's sketches of its numeric columns, its categories and target checks.

    Parameters
    ----------
    part : DataFrame of shape (n_rows, n_features)
    y : Series of shape (n_rows,)
    weight : Series of shape (n_rows,) or None
    kinds : tuple of {"numeric", "nominal"}
        Per column, from the collection's dtypes.
    classify : bool
        True for a classifier's labels, False for a numeric target.

    Returns
    -------
    dict
        ``sketch``: per numeric column position ``(points, weights)``
        (:func:`compress`); ``categories``: per nominal column the set of
        its values in rows of positive weight; ``present``: per nominal
        column the number of such rows with a value; ``numbers``: per
        nominal column ``(all cells numbers or blank, some cell not blank)``;
        ``label_weight``: summed weight per class label (classifier);
        ``target``: ``[sum of s, minimum of y, number of y > 0]``
        (regressor); ``weight``: the summed sample weight.
        :func:`merge_summaries` merges two.

    Raises
    ------
    ValueError
        As the in-memory fit's checks of ``y`` and ``sample_weight`` (on this
        partition), and ``y`` or ``sample_weight`` of another length than
        ``X``'s partition.
    """
    n = len(part)
    target, weights = _target_and_weights(part, y, weight, classify)
    active = weights > 0
    out = {"sketch": {}, "categories": {}, "present": {}, "numbers": {}, "label_weight": {},
           "target": None, "weight": float(weights.sum())}
    numeric = [j for j, kind in enumerate(kinds) if kind != NOMINAL]
    block = numeric_block(part, numeric) if n else np.empty((0, len(numeric)))
    for k, j in enumerate(numeric):
        keep = active & ~np.isnan(block[:, k])
        out["sketch"][j] = compress(block[keep, k], weights[keep])
    for j, kind in enumerate(kinds):
        if kind == NOMINAL:
            column = part.iloc[:, j]
            out["numbers"][j] = _reads_as_numbers(column)
            values = column[active & column.notna().to_numpy()]
            out["categories"][j] = {_python_scalar(v) for v in pd.unique(values)}
            out["present"][j] = len(values)
    if classify:
        for label in pd.unique(target):
            out["label_weight"][_python_scalar(label)] = float(weights[target == label].sum())
    else:
        # As the in-memory checks: the minimum and the positive targets of
        # every row, whatever its weight.
        out["target"] = np.array([float(weights.sum()), float(target.min(initial=np.inf)),
                                  float((target > 0).sum())])
    return out


def _target_and_weights(part, y, weight, classify):
    """The partition's target (checked as the in-memory fit checks it) and weights."""
    n = len(part)
    for name, values in (("y", y), ("sample_weight", weight)):
        if values is not None and len(values) != n:
            raise ValueError(
                f"a partition of X has {n} rows but the same partition of {name} has "
                f"{len(values)}; {name} must be partitioned as X (the same number of partitions "
                "and of rows in each), e.g. columns of one Dask DataFrame.")
    target = check_target(y, n, numeric=not classify) if n else np.empty(0)
    if weight is None:
        return target, np.ones(n)
    # The in-memory check, but for its 'zero on every row' (a partition may
    # be; the fit checks the sum over all partitions): one row of weight 1
    # appended, then dropped.
    values = np.r_[weight.to_numpy(dtype=np.float64, na_value=np.nan), 1.0]
    return target, check_sample_weight(values, n + 1)[:-1]


def compress(values, weights):
    """``(points, weights)``: a mergeable summary of a column's distribution.

    Every distinct value of ``values`` with its summed weight when there are
    at most :data:`SKETCH_POINTS`; else that many weighted order statistics,
    each carrying the weight of the values from the previous one to it
    (what the per-partition percentiles are to dask's ``quantile``, with
    weights). Compressing the concatenation of two summaries merges them.

    Parameters
    ----------
    values, weights : ndarray of shape (m,), float64
        Values without NaN, and positive weights.

    Returns
    -------
    points : ndarray of float64, ascending and distinct
    weights : ndarray of float64, same shape
    """
    if len(values) == 0:
        return np.empty(0), np.empty(0)
    order = np.argsort(values, kind="stable")
    values, weights = values[order], weights[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    distinct, weight = values[starts], np.add.reduceat(weights, starts)
    if len(distinct) <= SKETCH_POINTS:
        return distinct, weight
    cumulative = np.cumsum(weight)
    targets = np.linspace(0.0, cumulative[-1], SKETCH_POINTS + 1)[1:]
    picked = np.unique(np.minimum(np.searchsorted(cumulative, targets), len(distinct) - 1))
    return distinct[picked], np.diff(np.r_[0.0, cumulative[picked]])


def merge_summaries(*summaries):
    """The summary of the union of the partitions of ``summaries`` (a reduction step)."""
    out = summaries[0]
    for other in summaries[1:]:
        out = {
            "sketch": {j: compress(np.r_[points, other["sketch"][j][0]],
                                   np.r_[weights, other["sketch"][j][1]])
                       for j, (points, weights) in out["sketch"].items()},
            "categories": {j: out["categories"][j] | other["categories"][j] for j in out["categories"]},
            "present": {j: out["present"][j] + other["present"][j] for j in out["present"]},
            "numbers": {j: (out["numbers"][j][0] and other["numbers"][j][0],
                            out["numbers"][j][1] or other["numbers"][j][1]) for j in out["numbers"]},
            "label_weight": {label: out["label_weight"].get(label, 0.0)
                             + other["label_weight"].get(label, 0.0)
                             for label in {**out["label_weight"], **other["label_weight"]}},
            "target": None if out["target"] is None else np.array([
                out["target"][0] + other["target"][0], min(out["target"][1], other["target"][1]),
                out["target"][2] + other["target"][2]]),
            "weight": out["weight"] + other["weight"],
        }
    return out


def _reads_as_numbers(column):
    """``(every non-blank cell holds a number, some cell is not blank)`` of a
    text column; the in-memory fit reads a column with both as numeric."""
    if not is_text_dtype(column.dtype):
        return False, False
    if len(column) == 0:
        return True, False  # neutral in the merge
    values, n_blank = parse_numbers(column)
    if values is None:
        return False, False
    return True, bool(n_blank < len(values))


def _python_scalar(value):
    # As the in-memory binner's categories: Python scalars, not numpy ones.
    return value.item() if isinstance(value, np.generic) else value


# -- the second pass: bin codes ----------------------------------------------
def bin_partition(part, y, weight, kinds, thresholds, categories, classes):
    """The partition as a :class:`Shard`: bin codes, encoded target, weights.

    Parameters
    ----------
    part : DataFrame of shape (n_rows, n_features)
    y : Series of shape (n_rows,)
    weight : Series of shape (n_rows,) or None
    kinds : tuple of {"numeric", "nominal"}
    thresholds : dict of {int: ndarray of float64}
        Per numeric column position, the thresholds of its bins.
    categories : dict of {int: tuple}
        Per nominal column position, its categories in bin order.
    classes : ndarray of shape (2,) or None
        A classifier's labels (``classes[1]`` is +1); None for a regressor.

    Returns
    -------
    Shard
    """
    n = len(part)
    X_binned = np.empty((n, len(kinds)), dtype=X_BINNED_DTYPE, order="F")
    numeric = [j for j, kind in enumerate(kinds) if kind != NOMINAL]
    block = numeric_block(part, numeric) if n else np.empty((0, len(numeric)))
    for k, j in enumerate(numeric):
        X_binned[:, j] = _bin_numeric(block[:, k], thresholds[j])
    for j, kind in enumerate(kinds):
        if kind == NOMINAL:
            X_binned[:, j] = _category_codes(part.iloc[:, j], categories[j])
    target, weights = _target_and_weights(part, y, weight, classes is not None)
    if classes is not None:
        target = np.where(target == classes[1], 1.0, -1.0)
    return Shard(X_binned, np.asarray(target, np.float64), weights, np.flatnonzero(weights > 0))


def _category_codes(column, categories):
    """Bin of each value: its position in ``categories``; missing values and
    values not among them (seen only in rows of zero weight) in the missing
    bin ``len(categories)``, as the in-memory binner does."""
    position = {value: k for k, value in enumerate(categories)}
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    remap = np.full(len(uniques) + 1, len(categories), dtype=np.int64)  # last slot: code -1
    for k, value in enumerate(uniques):
        remap[k] = position.get(_python_scalar(value), len(categories))
    return remap[codes]


# -- the boosting rounds -------------------------------------------------------
def initial_raw(shard, intercept):
    """Raw scores of the model before the first rule: the intercept everywhere."""
    return np.full(len(shard.y), intercept)


def gradients(shard, raw, loss):
    """``(g, h)`` of the partition's rows (sample-weighted), as in the in-memory loop."""
    return loss.gradient_hessian(shard.y, raw, shard.c)


def totals(shard):
    """``[sum s, sum s y, sum s [y > 0], rows of positive weight]``: what the
    intercept of every loss needs, and the root extent's size."""
    c, y = shard.c, shard.y
    return np.array([c.sum(), (c * y).sum(), c[y > 0].sum(), len(shard.rows)], dtype=np.float64)


def root_rows(shard):
    """The partition's rows of positive weight (its part of the root extent)."""
    return shard.rows


def absolute_gradient_sum(gh):
    """``sum |g|`` of the partition (the loop's scale for its stopping test)."""
    return np.array([np.abs(gh[0]).sum()])


def _local_problem(shard, gh, n_bins, is_nominal):
    # The in-memory problem of one partition: its histograms and splits are
    # rulebook's own (search.SearchProblem), on the partition's rows.
    g, h = gh
    return SearchProblem(X_binned=shard.X_binned, n_bins=n_bins, is_nominal=is_nominal, g=g, h=h,
                         c=shard.c, rows=shard.rows, reg_lambda=0.0, objective=0)


def histograms(shard, gh, rows, n_bins, is_nominal):
    """``(G, H, C, N)`` histograms of the partition's rows ``rows``.

    Returns
    -------
    ndarray of shape (n_features, max(n_bins) + 1, 4), float64
    """
    return _local_problem(shard, gh, n_bins, is_nominal).histograms(rows)


def split(shard, rows, condition, n_bins, is_nominal):
    """``(kept, removed)``: the partition's rows of ``rows`` satisfying the
    binned ``(feature, op, bin)`` condition or not, ascending."""
    problem = _local_problem(shard, (shard.c, shard.c), n_bins, is_nominal)
    return problem.split(rows, condition)


def refine(shard, rows, conditions, n_bins, is_nominal):
    """The rows of ``rows`` satisfying every condition of ``conditions``."""
    problem = _local_problem(shard, (shard.c, shard.c), n_bins, is_nominal)
    for condition in conditions:
        rows = problem.refine(rows, condition)
    return rows


def count(rows):
    """``[len(rows)]``, as an array so that counts sum like the other reductions."""
    return np.array([len(rows)], dtype=np.float64)


def covered_bins(op, bin_index, n_bins):
    """Which bins ``0 .. n_bins`` (the last: missing) satisfy ``op bin_index``
    (``_search_kernels._satisfies`` for all bins at once)."""
    b = np.arange(n_bins + 1)
    if op == LE:
        return b <= bin_index
    if op == GT:
        return (bin_index < b) & (b < n_bins)
    if op == EQ:
        return b == bin_index
    return (b != bin_index) & (b != n_bins)


# Conditions a failure pattern can record: the bits of an int64.
MAX_PATTERN_CONDITIONS = 62


def failure_patterns(shard, rows, conditions, n_bins):
    """Rows of ``rows`` counted by the set of ``conditions`` they fail.

    Returns
    -------
    dict of {int: int}
        Bit ``i`` of a key set when a row fails ``conditions[i]``; the value
        is the number of such rows. How many rows satisfy any subset of
        the conditions follows, without another pass over the rows.
    """
    pattern = np.zeros(len(rows), np.int64)
    for i, (feature, op, bin_index) in enumerate(conditions):
        fails = ~covered_bins(op, bin_index, int(n_bins[feature]))[shard.X_binned[rows, feature]]
        pattern |= fails.astype(np.int64) << i
    keys, counts = np.unique(pattern, return_counts=True)
    return dict(zip(keys.tolist(), counts.tolist()))


def merge_patterns(*patterns):
    """The failure patterns of the union of partitions (a reduction step)."""
    out = dict(patterns[0])
    for other in patterns[1:]:
        for key, n in other.items():
            out[key] = out.get(key, 0) + n
    return out


def extent_sums(shard, gh, rows):
    """``(G, H, C)`` over the partition's rows ``rows``."""
    g, h = gh
    return np.array([g[rows].sum(), h[rows].sum(), shard.c[rows].sum()])


def extent_derivative(shard, raw, rows, loss, weight):
    """``sum g_i(raw_i + weight)`` over ``rows``: the derivative of the extent's
    loss in a rule's weight, without its regularisation term."""
    g, _ = loss.gradient_hessian(shard.y[rows], raw[rows] + weight, shard.c[rows])
    return np.array([g.sum()])


def extent_losses(shard, raw, rows, loss, weights):
    """``sum s_i l(y_i, raw_i + w)`` over ``rows`` for each ``w`` of ``weights``."""
    y, r, c = shard.y[rows], raw[rows], shard.c[rows]
    # loss.loss is the weighted mean; times the weight, the extent's sum, as
    # weight_updates._extent_loss computes it. Rows of an extent have
    # positive weight, so the mean is defined when there is a row.
    return np.array([loss.loss(y, r + w, c) * c.sum() if len(rows) else 0.0 for w in weights])


def total_loss(shard, raw, loss):
    """``sum s_i l(y_i, raw_i)`` over all the partition's rows."""
    if not shard.c.sum() > 0:  # no row of positive weight: no loss (and no mean)
        return np.zeros(1)
    return np.array([loss.loss(shard.y, raw, shard.c) * shard.c.sum()])


def add_weight(raw, rows, weight):
    """New raw scores: ``raw`` with ``weight`` added on ``rows``."""
    out = raw.copy()
    out[rows] += weight
    return out


def shift(raw, weight):
    """New raw scores: ``raw + weight`` on every row (an intercept shift)."""
    return raw + weight


def add_arrays(*arrays):
    """The sum of equally shaped arrays, in the order given (a reduction step)."""
    total = np.array(arrays[0], dtype=np.float64, copy=True)
    for array in arrays[1:]:
        total += array
    return total


# -- atoms (the optimal learner) ---------------------------------------------------
def atoms_of(shard, limit):
    """The partition's distinct rows of bin codes (rows of positive weight),
    at most ``limit + 1`` of them (more is an error on the client anyway).

    Returns
    -------
    ndarray of shape (n_atoms, n_features), uint16, rows ascending
    """
    return np.unique(np.ascontiguousarray(shard.X_binned[shard.rows]), axis=0)[:limit + 1]


def merge_atoms(*tables, limit):
    """The distinct rows of the union of ``tables`` (a reduction step), at
    most ``limit + 1``."""
    return np.unique(np.concatenate(tables), axis=0)[:limit + 1]


def _as_keys(codes):
    """Each row of bin codes as one opaque value (for matching whole rows)."""
    codes = np.ascontiguousarray(codes)
    return codes.view(np.dtype((np.void, codes.dtype.itemsize * codes.shape[1]))).ravel()


def atom_ids(shard, table):
    """The atom (row of ``table``) of each of the partition's rows of positive weight."""
    keys, row_keys = _as_keys(table), _as_keys(shard.X_binned[shard.rows])
    order = np.argsort(keys)
    return order[np.searchsorted(keys[order], row_keys)]


def atom_statistics(shard, ids, n_atoms):
    """Per atom, what every loss needs of its rows: shape (6, n_atoms).

    Rows ``[sum s, sum s y, sum s y^2, sum s [y > 0], sum s [y < 0],
    sum s y log y]``.
    Within an atom every query, hence every model's raw score ``f``, is the
    same, so an atom's loss ``sum s l(y, f)`` and its gradient statistics
    are functions of these sums: for the squared loss ``C f^2 - 2 f S_y +
    S_yy``, for the Poisson loss ``S_ylogy - f S_y - S_y + C e^f``, for the
    logistic loss those of its two classes' weights.
    """
    rows = shard.rows
    c, y = shard.c[rows], shard.y[rows]
    xlogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0)), 0.0)
    columns = (c, c * y, c * y * y, c * (y > 0), c * (y < 0), c * xlogy)
    return np.stack([np.bincount(ids, weights=v, minlength=n_atoms) for v in columns])
