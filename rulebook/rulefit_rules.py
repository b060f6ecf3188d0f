"""RuleFit's basis functions: rules from trees, and winsorised linear terms.

A gradient-boosted ensemble of shallow trees with random sizes is grown on
subsamples (Friedman and Popescu 2008, Algorithm 1); every node of every
tree is read as a conjunction of the propositions on its path, simplified
to the canonical per-column form, and the distinct non-trivial ones become
the candidate rules (Section 3). With ``include_linear``, each numeric
column adds a winsorised, scaled linear term (Section 5,
:mod:`rulebook.linear_terms`) as a dense column beside the rules'.
Used by :mod:`rulebook.rulefit`.

References
----------
.. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3). Algorithm 1, Section 3,
   Section 5 (linear basis functions).
"""

import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.special import expit
from sklearn.tree import DecisionTreeRegressor

from ._predict import column_values
from ._validation import (
    NOMINAL,
    NUMERIC,
)
from .binning import EQ, GT, LE, NE
from .linear_terms import PRIOR_STD, LinearTerm
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
        Empty when ``matrix`` has no column (every column nominal without a
        category): no tree can split, so the fit is the intercept alone, as
        the boosting estimators' on such a table.
    """
    if matrix.shape[1] == 0:
        return []
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
    """Distinct candidate rules and their sparse 0/1 matrix under rulebook semantics.

    Rules with the same extent on the training rows are one candidate (the
    shortest query is kept), and so are complementary rules (``Sex == male``
    and ``Sex != male`` without missing values): with an intercept their
    columns are collinear and either spans the same models. Rules covering
    no active row or every active row carry no information beyond the
    intercept and are dropped.

    Extents are held as packed bits (one bit per row), per proposition and
    per candidate, so that no step holds a dense ``n_samples x
    n_candidates`` array.

    Returns
    -------
    queries : list of Query
    Z : _RuleMatrix of shape (n_samples, n_candidates)
    """
    n_samples = len(frame)
    active = weights > 0
    n_active = int(active.sum())
    cache, by_extent = {}, {}
    for query in queries:
        extent = _packed_extent(query, frame, cache)
        on_active = extent if n_active == n_samples else np.packbits(
            np.unpackbits(extent, count=n_samples)[active])
        n_covered = _popcount(on_active)
        if n_covered == 0 or n_covered == n_active:
            continue
        key = on_active.tobytes()
        if key not in by_extent:
            complement = _packed_complement(on_active, n_active).tobytes()
            key = complement if complement in by_extent else key
        if key not in by_extent or len(query) < len(by_extent[key][0]):
            by_extent[key] = (query, extent)
    kept = list(by_extent.values())
    return [query for query, _ in kept], _RuleMatrix.from_extents([e for _, e in kept], n_samples)


def _linear_inputs(frame, features, weights, delta):
    """The linear terms of the numeric columns and their scaled columns ([1], Section 5).

    Column ``j`` of the matrix is ``l_j = 0.4 (clip(x_j) - centre_j) /
    std_j``, 0 where ``x_j`` is missing: the term's value with the prior
    standard deviation of a typical rule, which the L1 penalty then treats
    alike. A weight ``b_j`` fitted on it is the term's weight ``b_j 0.4 /
    std_j`` per unit of ``x_j`` (:func:`_scaled_weight`). Nominal columns,
    and numeric columns whose clipped values do not vary, get no term.

    Returns
    -------
    terms : tuple of LinearTerm
        Weight 0, in column order.
    L : ndarray of shape (n_samples, len(terms)), float64
    """
    terms, columns = [], []
    for j, spec in enumerate(features):
        if spec.kind != NUMERIC:
            continue
        values, _ = column_values(frame.iloc[:, j], numeric=True)
        term = LinearTerm.winsorised(spec.name, values, weights, delta, index=j)
        if term is not None:
            terms.append(term)
            columns.append(PRIOR_STD / term.std * term.basis(values))
    L = np.column_stack(columns) if columns else np.zeros((len(frame), 0))
    return tuple(terms), L


def _scaled_weight(coef, term):
    """The weight per unit of ``x`` of a coefficient on the scaled column ``l_j``."""
    return float(coef) * PRIOR_STD / term.std


def _packed_extent(query, frame, cache):
    """The rows a query covers, as ``np.packbits`` of its 0/1 column.

    ``cache`` maps each proposition to its packed extent: a proposition is
    evaluated once however many queries share it.
    """
    extent = np.packbits(np.ones(len(frame), dtype=bool))
    for p in query:
        if p not in cache:
            cache[p] = np.packbits(p.evaluate(frame, by_name=False))
        extent = extent & cache[p]
    return extent


# Set bits of each byte value (np.bitwise_count needs NumPy 2).
_BITS_SET = np.array([i.bit_count() for i in range(256)], dtype=np.int64)


def _popcount(packed):
    """Number of rows in a packed extent."""
    return int(_BITS_SET[packed].sum())


def _packed_complement(packed, n):
    """``np.packbits(~bits)`` of the ``n`` bits packed in ``packed`` (padding bits stay 0)."""
    complement = ~packed
    if n % 8:
        complement[-1] &= np.uint8((0xFF << (8 - n % 8)) & 0xFF)
    return complement


@dataclass(frozen=True, eq=False)
class _RuleMatrix:
    """The candidates' 0/1 matrix ``Z``, sparse, each column in its sparser orientation.

    :meth:`with_columns` appends dense columns (RuleFit's linear terms),
    stored as they are and never flipped.

    Column ``j`` of ``Z`` is ``stored[:, j]`` or, where ``flipped[j]``, its
    complement ``1 - stored[:, j]``: a rule covering more than half of the
    rows is stored by the rows it leaves out, so ``stored`` holds at most
    ``n_samples / 2`` entries per column. Products with ``Z`` use
    ``Z[:, j] = 1 - stored[:, j]``; :meth:`columns` gives ``Z``'s own
    columns for a solver that needs them.

    Attributes
    ----------
    stored : scipy.sparse.csc_array of shape (n_samples, n_candidates), float64
        Int32 indices, as scikit-learn's coordinate descent and liblinear
        require.
    flipped : ndarray of shape (n_candidates,), bool
    """

    stored: sp.csc_array
    flipped: np.ndarray

    @classmethod
    def from_extents(cls, extents, n_samples):
        """Build from packed extents (``np.packbits`` of each column of ``Z``)."""
        counts = np.array([_popcount(e) for e in extents], dtype=np.int64)
        flipped = 2 * counts > n_samples
        indptr = np.zeros(len(extents) + 1, dtype=np.int64)
        np.cumsum(np.where(flipped, n_samples - counts, counts), out=indptr[1:])
        indices = np.empty(indptr[-1], dtype=np.int32)
        for j, extent in enumerate(extents):
            covered = np.unpackbits(extent, count=n_samples).view(bool)
            indices[indptr[j]:indptr[j + 1]] = np.flatnonzero(~covered if flipped[j] else covered)
        stored = sp.csc_array((np.ones(len(indices)), indices, indptr.astype(np.int32)),
                              shape=(n_samples, len(extents)))
        return cls(stored, flipped)

    def with_columns(self, dense):
        """``[Z, dense]``: these columns and, after them, dense ones (never flipped).

        Parameters
        ----------
        dense : ndarray of shape (n_samples, k), float64
            RuleFit's scaled linear terms.

        Returns
        -------
        _RuleMatrix of shape (n_samples, n_candidates + k)
        """
        if dense.shape[1] == 0:
            return self
        stored = sp.hstack([self.stored, sp.csc_array(dense)], format="csc")
        stored.indices = stored.indices.astype(np.int32)
        stored.indptr = stored.indptr.astype(np.int32)
        return _RuleMatrix(stored, np.concatenate([self.flipped, np.zeros(dense.shape[1], dtype=bool)]))

    @property
    def shape(self):
        return self.stored.shape

    @property
    def signs(self):
        """``-1`` for a flipped column, ``+1`` otherwise: ``Z[:, j] = flipped[j] + signs[j] stored[:, j]``."""
        return np.where(self.flipped, -1.0, 1.0)

    def rmatvec(self, v):
        """``Z.T @ v``, shape (n_candidates,), float64."""
        return self.signs * (self.stored.T @ v) + self.flipped * v.sum()

    def matvec(self, coef):
        """``Z @ coef``, shape (n_samples,), float64; reads only the columns of non-zero weight."""
        selected = np.flatnonzero(coef)
        weights = coef[selected]
        offset = weights[self.flipped[selected]].sum()
        return self.stored[:, selected] @ (self.signs[selected] * weights) + offset

    def columns(self, selected):
        """``Z[:, selected]`` in ``Z``'s own orientation, CSR float64 (liblinear's input).

        Parameters
        ----------
        selected : ndarray of int
            Column indices.

        Returns
        -------
        scipy.sparse.csr_array of shape (n_samples, len(selected)), float64
        """
        n_samples = self.shape[0]
        part = self.stored[:, selected].tocsc()
        blocks, values = [], []
        for k, j in enumerate(selected):
            rows = part.indices[part.indptr[k]:part.indptr[k + 1]]
            data = part.data[part.indptr[k]:part.indptr[k + 1]]
            if self.flipped[j]:  # only 0/1 rule columns are flipped
                covered = np.ones(n_samples, dtype=bool)
                covered[rows] = False
                rows = np.flatnonzero(covered)
                data = np.ones(len(rows))
            blocks.append(rows.astype(np.int32))
            values.append(data)
        indptr = np.zeros(len(blocks) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in blocks], out=indptr[1:])
        indices = np.concatenate(blocks) if blocks else np.zeros(0, dtype=np.int32)
        data = np.concatenate(values) if values else np.zeros(0)
        own = sp.csc_array((data, indices, indptr.astype(np.int32)), shape=(n_samples, len(blocks)))
        return own.tocsr()
