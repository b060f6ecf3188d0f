"""Bins of a Dask collection: cut points and categories in one pass, codes in another.

The first pass (:func:`rulebook.dask._partitions.summarize`) summarises
every partition: a weighted quantile sketch per numeric column (its distinct
values, or 2048 weighted order statistics), the categories per nominal
column, the target's checks. The summaries merge in a tree on the workers;
the client chooses the bins from the merged summary with the in-memory
binner's own rules (:mod:`rulebook.binning`): equal-frequency cut points
among the sketch's values, the shortest decimal threshold in each gap,
categories sorted. The second pass bins each partition into a
:class:`~rulebook.dask._partitions.Shard` that stays on its worker.

Where every partition's sketch holds all its distinct values (at most 2048
per column), the merged sketch is exact and the bins are those of the
in-memory fit; beyond, cut points are approximate quantiles, and a
threshold is the shortest decimal between a cut value and the next value of
the sketch (not of the data).
"""

import numpy as np
import pandas as pd
from sklearn.utils.multiclass import check_classification_targets

from .._validation import MAX_CATEGORIES, NOMINAL, NUMERIC, dtype_kind
from ..binning import (
    Binner,
    FeatureBins,
    _as_shown,
    _check_cut_points,
    _check_max_bins,
    _check_max_categories,
    _equal_frequency_cuts,
    _readable_cuts,
    sorted_categories,
)
from . import _client, _partitions


def column_kinds(meta):
    """``"numeric"`` or ``"nominal"`` per column of an empty frame ``meta``.

    Raises
    ------
    TypeError
        Naming a column of a dtype that is neither.
    """
    return tuple(dtype_kind(str(name), dtype) for name, dtype in meta.dtypes.items())


def fit_bins(client, X, y, weight, binner, classify):
    """Learn the bins of ``X`` and bin its partitions on the workers.

    Parameters
    ----------
    client : distributed.Client
    X : dask DataFrame of shape (n_samples, n_features)
    y, weight : dask Series of shape (n_samples,); ``weight`` may be None
        Partitioned as ``X``.
    binner : rulebook.binning.Binner
        Unfitted: its ``max_bins``, ``cut_points``, ``max_categories``
        configure the bins. Its ``features_`` are set here, so that its
        ``proposition`` turns binned conditions into rules.
    classify : bool

    Returns
    -------
    shards : list of distributed.Future
        One :class:`~rulebook.dask._partitions.Shard` per partition.
    summary : dict
        The merged first-pass summary (``classes`` added for a classifier).

    Raises
    ------
    ValueError
        As the in-memory fit: bad binning parameters, ``cut_points`` naming
        a missing or nominal column, too many categories, an identifier
        column, a bad target or ``sample_weight``; and text columns that
        hold numbers (see :func:`_check_text_numbers`).
    """
    meta = X._meta
    kinds = column_kinds(meta)
    _check_max_bins(binner.max_bins)
    max_categories = _check_max_categories(binner.max_categories)
    cut_points = _check_cut_points(binner.cut_points, meta)
    _check_cut_points_numeric(cut_points, meta, kinds)
    parts = _client.per_partition(client, _partitions.summarize, (X, y, weight), kinds, classify)
    summary = _client.reduce(client, parts, _partitions.merge_summaries)
    _check_text_numbers(summary, meta)
    _check_target(summary, y, classify)
    features = []
    chosen = _readable_cuts({
        j: _as_shown(meta.dtypes.iloc[j], *_sketch_cuts(*summary["sketch"][j], binner.max_bins))
        for j, kind in enumerate(kinds) if kind == NUMERIC and str(meta.columns[j]) not in cut_points})
    for j, name in enumerate(meta.columns):
        label = str(name)
        if kinds[j] == NUMERIC:
            thresholds = cut_points[label] if label in cut_points else chosen[j]
            features.append(FeatureBins(label, j, NUMERIC, thresholds, ()))
        else:
            categories = _categories(label, summary["categories"][j], summary["present"][j],
                                     max_categories)
            features.append(FeatureBins(label, j, NOMINAL, np.empty(0), categories))
    binner.features_ = tuple(features)
    thresholds = {f.index: f.thresholds for f in features if f.kind == NUMERIC}
    categories = {f.index: f.categories for f in features if f.kind == NOMINAL}
    shards = _client.per_partition(client, _partitions.bin_partition, (X, y, weight), kinds,
                                   thresholds, categories, summary.get("classes"),
                                   _partitions.codes_dtype(binner.n_bins_))
    return shards, summary


def _sketch_cuts(points, weights, max_bins):
    """The in-memory binner's cut values and next values, from a merged sketch."""
    return _equal_frequency_cuts(points, weights, np.ones(len(points), bool), max_bins)


def _check_cut_points_numeric(cut_points, meta, kinds):
    """Refuse ``cut_points`` for a nominal column, as the in-memory fit does."""
    for j, name in enumerate(meta.columns):
        if str(name) in cut_points and kinds[j] == NOMINAL:
            raise ValueError(
                f"cut_points names column {str(name)!r}, which is nominal (its values are "
                "categories, not numbers); cut points apply to numeric columns only. Drop it "
                "from cut_points, or convert the column to numbers.")


def _check_text_numbers(summary, meta):
    """Refuse a text column whose cells all hold numbers.

    The in-memory fit reads such a column as numeric (with a warning); here
    the dtype of the collection decides, and the column would be binned by
    category: the two fits would differ. The user converts it, once.
    """
    for j, (numbers, some) in summary["numbers"].items():
        if numbers and some:
            name = str(meta.columns[j])
            raise ValueError(
                f"column {name!r} has dtype {meta.dtypes.iloc[j]} but every non-blank cell holds "
                "a number. rulebook.dask does not convert text columns (the in-memory estimators "
                "read them as numeric): convert it with dask.dataframe.to_numeric(X[" f"{name!r}"
                "], errors='coerce') to use it as numbers, or with .astype('category') to keep "
                "it nominal.")


def _check_target(summary, y, classify):
    """The in-memory fit's checks of the target over all partitions; sets
    ``summary["classes"]`` for a classifier."""
    if summary["weight"] <= 0:
        raise ValueError("sample_weight is zero for every row; at least one row needs positive weight.")
    if not classify:
        return
    labels = list(summary["label_weight"])
    classes = np.unique(pd.Series(labels, dtype=y.dtype).to_numpy())
    check_classification_targets(classes)
    if len(classes) != 2:
        # "Only binary classification is supported.": the words of the
        # in-memory estimators' refusal, which scikit-learn's checks expect.
        raise ValueError(
            "Only binary classification is supported by rulebook.dask.RuleBoostingClassifier: "
            f"y has {len(classes)} class(es) {classes[:5].tolist()}. Multi-class targets are "
            "not distributed yet; fit them in memory with rulebook.RuleBoostingClassifier "
            "(X.compute(), y.compute()), or fit one class against the rest here.")
    for label in classes:
        if not summary["label_weight"][_partitions._python_scalar(label)] > 0:
            raise ValueError(
                f"sample_weight is zero on every row of class {label!r}; a classifier needs "
                "rows of positive weight in both classes.")
    summary["classes"] = classes


def check_regression_target(summary, loss):
    """The in-memory regressor's checks of a Poisson target, over all partitions."""
    if loss != "poisson":
        return
    _, minimum, n_positive = summary["target"]
    if minimum < 0:
        raise ValueError("loss='poisson' needs non-negative targets (counts or rates); y has negative values.")
    if n_positive == 0:
        raise ValueError("loss='poisson' needs at least one positive target; y is all zero.")


def _categories(name, observed, n_present, max_categories=MAX_CATEGORIES):
    """A nominal column's categories, sorted and checked as the in-memory binner does
    (:func:`rulebook.binning.sorted_categories`)."""
    return sorted_categories(name, observed, n_present, max_categories)


def new_binner(estimator):
    """An unfitted :class:`~rulebook.binning.Binner` with the estimator's binning parameters."""
    return Binner(estimator.max_bins, estimator.cut_points, estimator.max_categories)
