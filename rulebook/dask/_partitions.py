"""What a worker does with one partition: pure functions, arrays in and out.

Every function here runs in a Dask task on one partition (pandas objects or
the partition's :class:`Shard`) and returns something small (a sketch,
sums, a histogram) or a partition's bin codes. None of them imports Dask: the client side
(:mod:`rulebook.dask._client`, :mod:`rulebook.dask._binning`,
:mod:`rulebook.dask._search`, :mod:`rulebook.dask._boosting`) submits them.

What a worker keeps of a partition between tasks is its :class:`Shard`
(bin codes, target, weights if any), nothing else: a search node's rows
(:func:`extent_rows`), their raw scores (:class:`RawScores`, replayed from
the rules) and their gradients and Hessians are recomputed inside the task
that needs them and dropped at its end, so that the memory of a worker is
its binned partitions plus what one task on one partition takes.

Functions never modify their arguments: Dask may run a task twice (a lost
worker, work stealing), and a task that updated its input in place would
then apply its update twice.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

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

    Everything a worker keeps of its rows between tasks: the per-row
    statistics of a round (raw scores, gradients, Hessians, the rows of a
    search node) are recomputed inside each task from these and dropped at
    its end.

    Attributes
    ----------
    X_binned : ndarray of shape (n_rows, n_features), F-order
        ``uint8`` when every column has at most 256 bins (its missing bin
        included; the default ``max_bins=255``), else ``uint16``
        (:func:`codes_dtype`).
    y : ndarray of shape (n_rows,)
        The encoded target: ``int8`` +1 / -1 for a classifier (exact as
        float64), ``float64`` for a regressor.
    c : ndarray of shape (n_rows,), float64, or None
        Sample weights; None when the fit has none (every row weighs 1).
    """

    X_binned: np.ndarray
    y: np.ndarray
    c: np.ndarray | None

    def __len__(self):
        return self.X_binned.shape[0]

    def weights(self, rows):
        """Sample weights of ``rows``, float64 (ones without ``sample_weight``)."""
        return np.ones(len(rows)) if self.c is None else self.c[rows]

    def target(self, rows):
        """The encoded target of ``rows``, float64."""
        return self.y[rows].astype(np.float64)

    def active(self):
        """Rows of positive weight as a mask, or None when every row has."""
        return None if self.c is None else self.c > 0

    def nbytes(self):
        """Bytes the shard holds."""
        return self.X_binned.nbytes + self.y.nbytes + (0 if self.c is None else self.c.nbytes)

    def __sizeof__(self):
        # What Dask's sizeof reads of an object it does not know (through
        # sys.getsizeof): without the arrays, a shard looked like 56 bytes
        # to the scheduler, which then saw no cost in running a worker's
        # bundle elsewhere and once copied a worker's 1 GB of shards to the
        # other worker (10^8 rows, bench_dask.py).
        return object.__sizeof__(self) + self.nbytes()


def codes_dtype(n_bins):
    """``uint8`` when every column's bins (``n_bins`` and the missing bin) fit
    in one byte, else ``uint16``: half the memory at the default 255 bins."""
    return np.uint8 if int(np.max(n_bins, initial=0)) <= 255 else np.uint16


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
        keep = ~np.isnan(block[:, k])
        if weight is None:  # every row active and of weight 1: the sketch needs no weights
            out["sketch"][j] = compress(block[keep, k] if not keep.all() else block[:, k], None)
        else:
            keep &= active
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
    values : ndarray of shape (m,), float64
        Values without NaN.
    weights : ndarray of shape (m,), float64, or None
        Positive weights; None for weight 1 each (then a plain sort, without
        the permutation a weighted sketch needs: 25x faster on 250,000 rows).

    Returns
    -------
    points : ndarray of float64, ascending and distinct
    weights : ndarray of float64, same shape
    """
    if len(values) == 0:
        return np.empty(0), np.empty(0)
    if weights is None:
        values = np.sort(values)
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
        distinct, weight = values[starts], np.diff(np.r_[starts, len(values)]).astype(np.float64)
    else:
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
def bin_partition(part, y, weight, kinds, thresholds, categories, classes, dtype):
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
    dtype : numpy dtype
        Of the bin codes (:func:`codes_dtype`).

    Returns
    -------
    Shard
    """
    n = len(part)
    X_binned = np.empty((n, len(kinds)), dtype=dtype, order="F")
    numeric = [j for j, kind in enumerate(kinds) if kind != NOMINAL]
    block = numeric_block(part, numeric) if n else np.empty((0, len(numeric)))
    for k, j in enumerate(numeric):
        X_binned[:, j] = _bin_numeric(block[:, k], thresholds[j])
    for j, kind in enumerate(kinds):
        if kind == NOMINAL:
            X_binned[:, j] = _category_codes(part.iloc[:, j], categories[j])
    target, weights = _target_and_weights(part, y, weight, classes is not None)
    if classes is not None:
        target = np.where(target == classes[1], 1, -1).astype(np.int8)
    else:
        target = np.asarray(target, np.float64)
    return Shard(X_binned, target, None if weight is None else weights)


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


# -- raw scores -------------------------------------------------------------------
@dataclass(frozen=True)
class RawScores:
    """The model's raw scores, as the steps that made them.

    No worker keeps a raw score per row: a task that needs the scores of
    some rows replays the model on them, the intercept and then each rule's
    weight on the rows of its extent (or each intercept shift on all), in
    the order the fit added them. That is the in-memory loop's sequence of
    additions (``raw[rows] += weight``, ``raw + weight``), so the scores
    are the same numbers; it costs a pass over a byte a row per condition
    of each rule and one over the scores (a few ms per rule on 250,000
    rows), where a score kept per row would cost eight bytes of every row
    for the whole fit.

    Attributes
    ----------
    intercept : float
        The intercept before any shift.
    n_bins : ndarray of shape (n_features,)
    steps : tuple of (tuple or None, float)
        ``(terms, weight)``: a rule's extent (as :func:`extent_rows`) and
        weight; ``terms`` None for an intercept shift.
    """

    intercept: float
    n_bins: np.ndarray
    steps: tuple = ()

    def added(self, terms, weight):
        """The scores with ``weight`` added on the extent ``terms``."""
        return RawScores(self.intercept, self.n_bins, self.steps + ((tuple(terms), float(weight)),))

    def shifted(self, weight):
        """The scores with ``weight`` added on every row (an intercept shift)."""
        return RawScores(self.intercept, self.n_bins, self.steps + ((None, float(weight)),))

    def at(self, shard, rows):
        """The raw scores of the partition's ``rows``, float64."""
        raw = np.full(len(rows), self.intercept)
        for terms, weight in self.steps:
            if terms is None:
                raw += weight
            else:
                # weight x 1 or x 0 added: raw + weight, or raw unchanged (a
                # zero's sign aside), as raw[rows] += weight; five times
                # faster than a masked add (np.add(..., where=)).
                raw += weight * _satisfying(shard, rows, terms, self.n_bins)
        return raw


def _satisfying(shard, rows, terms, n_bins):
    """Which of ``rows`` have positive weight and lie in the extent ``terms``."""
    inside = None if shard.c is None else shard.c[rows] > 0
    every_row = len(rows) == len(shard)  # rows is then 0 .. n - 1: no gather
    for (feature, op, bin_index), sense in terms:
        covered = covered_bins(op, bin_index, int(n_bins[feature]))
        column = shard.X_binned[:, feature]
        term = np.take(covered if sense else ~covered, column if every_row else column[rows])
        inside = term if inside is None else np.logical_and(inside, term, out=inside)
    return np.ones(len(rows), bool) if inside is None else inside


# -- extents -------------------------------------------------------------------------
def extent_rows(shard, terms, n_bins):
    """Rows of positive weight in the extent ``terms``, ascending (intp).

    ``terms`` is a tuple of ``((feature, op, bin), inside)``: the rows
    satisfying each condition (``inside`` True) or failing it (False). A
    search node is its path from the root, recomputed from the bin codes
    where it is needed (a pass over one byte a row per condition) rather
    than kept as row indices between tasks (eight bytes a row per node).
    """
    mask = shard.active()
    for (feature, op, bin_index), inside in terms:
        covered = covered_bins(op, bin_index, int(n_bins[feature]))
        if not inside:
            covered = ~covered
        in_term = covered[shard.X_binned[:, feature]]
        mask = in_term if mask is None else mask & in_term
    if mask is None:
        return np.arange(len(shard))
    return np.flatnonzero(mask)


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


# -- the boosting rounds -------------------------------------------------------
def totals(shard):
    """``[sum s, sum s y, sum s [y > 0], rows of positive weight]``: what the
    intercept of every loss needs, and the root extent's size."""
    rows = extent_rows(shard, (), None)
    c, y = shard.weights(rows), shard.target(rows)
    return np.array([c.sum(), (c * y).sum(), c[y > 0].sum(), len(rows)], dtype=np.float64)


def _gradients(shard, scores, rows, loss):
    """``(g, h, c)`` of ``rows`` (sample-weighted), as the in-memory loop's at those rows."""
    c = shard.weights(rows)
    g, h = loss.gradient_hessian(shard.target(rows), scores.at(shard, rows), c)
    return g, h, c


def node_statistics(shard, scores, requests, loss, n_bins, is_nominal, squares=False):
    """What the search needs of some extents of the partition, in one task.

    Parameters
    ----------
    shard : Shard
    scores : RawScores
    requests : sequence of (terms, bool)
        An extent (:func:`extent_rows`) and whether its histograms are
        wanted besides its sums.
    loss : rulebook loss
    n_bins, is_nominal : ndarray of shape (n_features,)
    squares : bool, default=False
        Whether ``sum g^2 / c`` is wanted too: the noise level of a greedy
        refinement's price (:meth:`rulebook.search.SearchProblem.dispersion_sums`),
        asked for only then, so that unpriced fits do not pay for it.

    Returns
    -------
    list of dict
        Per request, ``sums``: ``[G, H, C, sum |g|, rows]``, and ``sum g^2 /
        c`` last when ``squares``; ``hist``: the
        ``(G, H, C, N)`` histograms, of shape
        ``(n_features, max(n_bins) + 1, 4)``, when asked for.

    Notes
    -----
    The gradients are computed here, for the extent's rows, and dropped:
    they are those of the in-memory loop (the same elementwise formulas on
    the same raw scores). The histograms are the in-memory ones
    (``SearchProblem.histograms``), the gradients placed at their rows in
    arrays of the partition's length that are never read elsewhere
    (``np.empty``: untouched pages cost no memory).
    """
    out = []
    for terms, with_hist in requests:
        rows = extent_rows(shard, terms, n_bins)
        g, h, c = _gradients(shard, scores, rows, loss)
        sums = [g.sum(), h.sum(), c.sum(), np.abs(g).sum(), len(rows)]
        if squares:
            sums.append((g * g / c).sum())
        result = {"sums": np.array(sums)}
        if with_hist:
            result["hist"] = _histograms(shard, rows, g, h, c, n_bins, is_nominal)
        out.append(result)
    return out


def _histograms(shard, rows, g, h, c, n_bins, is_nominal):
    n = len(shard)
    full = [np.empty(n), np.empty(n), np.empty(n)]
    for array, values in zip(full, (g, h, c)):
        array[rows] = values
    problem = SearchProblem(X_binned=shard.X_binned, n_bins=n_bins, is_nominal=is_nominal,
                            g=full[0], h=full[1], c=full[2], rows=rows, reg_lambda=0.0,
                            objective=0)
    return problem.histograms(rows)


def count(shard, terms, n_bins):
    """``[rows of the extent terms]``, as an array so that counts sum."""
    return np.array([len(extent_rows(shard, terms, n_bins))], dtype=np.float64)


# Conditions a failure pattern can record: the bits of an int64.
MAX_PATTERN_CONDITIONS = 62


def failure_patterns(shard, conditions, n_bins):
    """Rows of positive weight counted by the set of ``conditions`` they fail.

    Returns
    -------
    dict of {int: int}
        Bit ``i`` of a key set when a row fails ``conditions[i]``; the value
        is the number of such rows. How many rows satisfy any subset of
        the conditions follows, without another pass over the rows.
    """
    rows = extent_rows(shard, (), n_bins)
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


def extent_derivative(shard, scores, terms, n_bins, loss, weight):
    """``sum g_i(raw_i + weight)`` over the extent: the derivative of its loss
    in a rule's weight, without its regularisation term."""
    rows = extent_rows(shard, terms, n_bins)
    g, _ = loss.gradient_hessian(shard.target(rows), scores.at(shard, rows) + weight, shard.weights(rows))
    return np.array([g.sum()])


def total_loss(shard, scores, loss):
    """``sum s_i l(y_i, raw_i)`` over all the partition's rows."""
    rows = np.arange(len(shard))
    c = shard.weights(rows)
    if not c.sum() > 0:  # no row of positive weight: no loss (and no mean)
        return np.zeros(1)
    return np.array([loss.loss(shard.target(rows), scores.at(shard, rows), c) * c.sum()])


def add_arrays(*arrays):
    """The sum of equally shaped arrays, in the order given (a reduction step)."""
    total = np.array(arrays[0], dtype=np.float64, copy=True)
    for array in arrays[1:]:
        total += array
    return total


def add_results(*results):
    """The sum of equally structured results: arrays added, lists and dicts
    item by item, in the order given (a reduction step)."""
    first = results[0]
    if isinstance(first, dict):
        return {key: add_results(*(r[key] for r in results)) for key in first}
    if isinstance(first, list):
        return [add_results(*items) for items in zip(*results)]
    return add_arrays(*results)


# -- a worker's partitions together ---------------------------------------------------
def bundle(*parts):
    """The list of ``parts`` (a worker's shards, kept together: one task per
    worker and search node instead of one per partition)."""
    return list(parts)


def over_bundle(shards, task, args, merge):
    """``task(shard, *args)`` for each partition of a worker, merged in
    partition order by ``merge``.

    Merged as they come (``merge(merge(a, b), c)``: the same sums, in the
    same order, as ``merge(a, b, c)`` for the merges here), so that the
    task holds one partial result at a time, not one per partition: held
    in a list, the histograms of a search node's requests (164 KB each a
    partition at 20 columns and 256 bins) grew with the worker's
    partitions, 33 to 66 MB at 200 partitions (10^8 rows).
    """
    total = None
    for shard in shards:
        result = task(shard, *args)
        total = merge(result) if total is None else merge(total, result)
    return total


def held_bytes(shard):
    """``[bytes of the shard]``: what a worker keeps of a partition."""
    return np.array([float(shard.nbytes())])


# -- atoms (the optimal learner) ---------------------------------------------------
def atoms_of(shard, limit):
    """The partition's distinct rows of bin codes (rows of positive weight),
    at most ``limit + 1`` of them (more is an error on the client anyway).

    Returns
    -------
    ndarray of shape (n_atoms, n_features), the shard's dtype, rows ascending
    """
    rows = extent_rows(shard, (), None)
    return np.unique(np.ascontiguousarray(shard.X_binned[rows]), axis=0)[:limit + 1]


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
    rows = extent_rows(shard, (), None)
    keys, row_keys = _as_keys(table.astype(shard.X_binned.dtype)), _as_keys(shard.X_binned[rows])
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
    rows = extent_rows(shard, (), None)
    c, y = shard.weights(rows), shard.target(rows)
    xlogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0)), 0.0)
    columns = (c, c * y, c * y * y, c * (y > 0), c * (y < 0), c * xlogy)
    return np.stack([np.bincount(ids, weights=v, minlength=n_atoms) for v in columns])
