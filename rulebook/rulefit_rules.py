"""RuleFit's rule generation: trees on the binned data, their nodes as rules.

A gradient-boosted ensemble of shallow trees with random sizes is grown on
subsamples (Friedman and Popescu 2008, Algorithm 1); every node of every
tree is read as a conjunction of the propositions on its path, simplified
to the canonical per-column form, and the distinct non-trivial ones become
the candidate rules (Section 3). Used by :mod:`rulebook.rulefit`.

References
----------
.. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3). Algorithm 1, Section 3.
"""

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from sklearn.tree import DecisionTreeRegressor

from ._validation import (
    NOMINAL,
    NUMERIC,
)
from .binning import EQ, GT, LE, NE
from .rules import Query


@dataclass(frozen=True)
class _TreeColumn:
    """Which proposition a split on one column of the tree input means."""

    feature: int          # column of the training frame
    category: int = -1    # nominal only: index into the feature's categories


def _tree_input(binner, X_binned):
    """Float32 matrix for the trees and what each of its columns is.

    Numeric columns become their bin rank (NaN where missing), so a tree
    threshold between ranks names a cut point; nominal columns become one
    0/1 column per category (all 0 where missing).
    """
    blocks, columns = [], []
    for j, spec in enumerate(binner.features_):
        codes = X_binned[:, j].astype(np.float32)
        if spec.kind == NUMERIC:
            codes[X_binned[:, j] == spec.n_bins] = np.nan
            blocks.append(codes[:, None])
            columns.append(_TreeColumn(j))
        else:
            blocks.append(X_binned[:, j, None] == np.arange(spec.n_bins)[None, :])
            columns.extend(_TreeColumn(j, k) for k in range(spec.n_bins))
    matrix = np.hstack([np.asarray(b, dtype=np.float32) for b in blocks])
    return matrix, tuple(columns)


def _tree_sizes(rng, n_estimators, tree_size):
    """Leaves per tree: ``2 + floor(gamma)``, ``gamma ~ Exp(mean tree_size - 2)`` ([1], Sec. 3)."""
    if tree_size == 2:
        return np.full(n_estimators, 2, dtype=np.int64)
    return 2 + np.floor(rng.exponential(tree_size - 2, size=n_estimators)).astype(np.int64)


def _subsample_size(n_active, max_samples):
    """Rows per tree; the paper's default is ``min(N/2, 100 + 6 sqrt(N))`` ([1], Sec. 2)."""
    if max_samples is None:
        size = min(n_active / 2, 100 + 6 * np.sqrt(n_active))
    elif isinstance(max_samples, numbers.Integral):
        size = max_samples
    else:
        size = max_samples * n_active
    return int(min(n_active, max(1, np.floor(size))))


def _grow_trees(matrix, y, weights, loss, params, rng):
    """Gradient boosting with shrinkage on subsamples ([1], Algorithm 1).

    Each tree is fitted to the negative gradient on its subsample; leaf
    values are the mean residual (squared loss) or one Newton step
    (logistic loss, Friedman 2001's TreeBoost), and the model moves by
    ``learning_rate`` times the tree. Only the trees' structure is kept.

    Returns
    -------
    list of sklearn.tree._tree.Tree
    """
    active = np.flatnonzero(weights > 0)
    m = _subsample_size(len(active), params["max_samples"])
    raw = np.full(len(y), loss.baseline(y, weights))
    trees = []
    for leaves in _tree_sizes(rng, params["n_estimators"], params["tree_size"]):
        rows = np.sort(rng.choice(active, size=m, replace=False))
        if loss.name == "logistic":
            p = expit(raw)
            residual, curvature = (y > 0) - p, p * (1 - p)
        else:
            residual, curvature = y - raw, np.ones_like(raw)
        tree = DecisionTreeRegressor(max_leaf_nodes=int(leaves), random_state=rng.randint(2**31 - 1))
        tree.fit(matrix[rows], residual[rows], sample_weight=weights[rows])
        trees.append(tree.tree_)
        # Newton leaf values sum(w r) / sum(w h) over the subsample rows of each leaf.
        leaf, n_nodes = tree.apply(matrix[rows]), tree.tree_.node_count
        numerator = np.bincount(leaf, weights[rows] * residual[rows], minlength=n_nodes)
        denominator = np.bincount(leaf, weights[rows] * curvature[rows], minlength=n_nodes)
        value = np.divide(numerator, denominator, out=np.zeros(n_nodes), where=denominator > 1e-12)
        raw += params["learning_rate"] * value[tree.apply(matrix)]
    return trees


def _branch_proposition(binner, column, threshold, left):
    """The proposition of one branch of a split, or None if it has none."""
    spec = binner.features_[column.feature]
    if spec.kind == NOMINAL:
        # One-hot column: ``<= 0.5`` is "not this category".
        return binner.proposition(column.feature, NE if left else EQ, column.category)
    if not np.isfinite(threshold) or int(np.floor(threshold)) >= spec.n_bins - 1:
        # A split of the non-missing rows from the missing ones: rulebook has
        # no "is missing" proposition, and "not missing" alone is no rule.
        return None
    return binner.proposition(column.feature, LE if left else GT, int(np.floor(threshold)))


def _simplify(propositions):
    """The same conjunction without redundant conditions, in path order.

    Keeps the tightest ``<=`` and ``>`` per numeric column and, when a
    nominal column has an ``==`` condition, drops its ``!=`` conditions.
    The extent is unchanged, missing values included.
    """
    upper, lower, equal = {}, {}, {}
    for p in propositions:
        if p.operator == "<=" and (p.feature not in upper or p.value < upper[p.feature].value):
            upper[p.feature] = p
        elif p.operator == ">" and (p.feature not in lower or p.value > lower[p.feature].value):
            lower[p.feature] = p
        elif p.operator == "==":
            equal[p.feature] = p
    kept = []
    for p in propositions:
        if p.operator == "<=":
            keep = upper[p.feature] is p
        elif p.operator == ">":
            keep = lower[p.feature] is p
        elif p.operator == "!=":
            keep = p.feature not in equal and p not in kept
        else:
            keep = p not in kept
        if keep:
            kept.append(p)
    return Query(tuple(kept))


def _tree_queries(tree, binner, columns):
    """The query of every node but the root, in depth-first order ([1], Sec. 3)."""
    queries = []
    stack = [(0, ())]
    while stack:
        node, path = stack.pop()
        left, right = tree.children_left[node], tree.children_right[node]
        if left == -1:
            continue
        column = columns[tree.feature[node]]
        for child, is_left in ((right, False), (left, True)):
            proposition = _branch_proposition(binner, column, tree.threshold[node], is_left)
            if proposition is None:
                # The branch has no condition of its own; its subtree still
                # yields rules, with the conditions above it.
                stack.append((child, path))
                continue
            child_path = path + (proposition,)
            queries.append(_simplify(child_path))
            stack.append((child, child_path))
    return queries


def _candidate_rules(queries, frame, weights):
    """Distinct candidate rules and their 0/1 matrix under rulebook semantics.

    Rules with the same extent on the training rows are one candidate (the
    shortest query is kept), and so are complementary rules (``Sex == male``
    and ``Sex != male`` without missing values): with an intercept their
    columns are collinear and either spans the same models. Rules covering
    no active row or every active row carry no information beyond the
    intercept and are dropped.

    Returns
    -------
    queries : list of Query
    Z : ndarray of shape (n_samples, n_candidates), float64
    """
    active = weights > 0
    cache, by_extent = {}, {}
    for query in queries:
        mask = np.ones(len(frame), dtype=bool)
        for p in query:
            if p not in cache:
                cache[p] = p.evaluate(frame, by_name=False)
            mask &= cache[p]
        n_covered = int(mask[active].sum())
        if n_covered == 0 or n_covered == int(active.sum()):
            continue
        key = np.packbits(mask[active]).tobytes()
        if key not in by_extent:
            complement = np.packbits(~mask[active]).tobytes()
            key = complement if complement in by_extent else key
        if key not in by_extent or len(query) < len(by_extent[key][0]):
            by_extent[key] = (query, mask)
    kept = list(by_extent.values())
    if not kept:
        return [], np.zeros((len(frame), 0))
    return [query for query, _ in kept], np.column_stack([mask for _, mask in kept]).astype(np.float64)
