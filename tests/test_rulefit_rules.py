"""RuleFit's candidate rules: the sparse rule matrix against the plain dense one."""

import numpy as np
import pytest

from rulebook.binning import Binner
from rulebook.datasets import load_titanic
from rulebook.losses import get_loss
from rulebook.rulefit import RuleFitClassifier
from rulebook.rulefit_rules import (
    _candidate_rules,
    _grow_trees,
    _RuleMatrix,
    _tree_input,
    _tree_queries,
)


def tree_queries(X, y, weights, n_estimators=40, seed=0):
    """The queries of a few boosted trees on ``X``, as RuleFit's fit draws them."""
    binner = Binner()
    matrix, columns = _tree_input(binner, binner.fit_transform(X, weights))
    params = RuleFitClassifier(n_estimators=n_estimators).get_params()
    trees = _grow_trees(matrix, y, weights, get_loss("logistic"), params, np.random.RandomState(seed))
    return [q for tree in trees for q in _tree_queries(tree, binner, columns)]


def dense_candidates(queries, X, weights):
    """Naive twin of ``_candidate_rules``: one bool column per query, dense throughout."""
    active = weights > 0
    by_extent = {}
    for query in queries:
        mask = query.evaluate(X, by_name=False)
        if not mask[active].any() or mask[active].all():
            continue
        key, complement = mask[active].tobytes(), (~mask[active]).tobytes()
        key = complement if key not in by_extent and complement in by_extent else key
        if key not in by_extent or len(query) < len(by_extent[key][0]):
            by_extent[key] = (query, mask)
    kept = list(by_extent.values())
    return [q for q, _ in kept], np.column_stack([m for _, m in kept]).astype(np.float64)


@pytest.fixture(scope="module")
def titanic_rules():
    """Titanic (missing values, nominal columns), 1043 rows, some of zero weight."""
    X, y = load_titanic()
    X = X.iloc[:1043]
    y = np.where(y.iloc[:1043] == 1, 1.0, -1.0)
    weights = np.random.default_rng(0).choice([0.0, 1.0, 2.5], size=len(X), p=[0.1, 0.6, 0.3])
    return X, y, weights, tree_queries(X, y, weights)


def test_candidates_match_the_dense_construction(titanic_rules):
    X, _, weights, queries = titanic_rules
    kept, Z = _candidate_rules(queries, X, weights)
    expected_queries, expected = dense_candidates(queries, X, weights)
    assert kept == expected_queries
    assert len(X) % 8 != 0 and Z.flipped.any() and not Z.flipped.all()
    np.testing.assert_array_equal(Z.columns(np.arange(Z.shape[1])).toarray(), expected)
    # Each column is stored by its smaller side: at most half the rows.
    assert (np.diff(Z.stored.indptr) <= len(X) / 2).all()
    np.testing.assert_array_equal(Z.flipped, expected.sum(axis=0) > len(X) / 2)


def test_rule_matrix_products_are_those_of_the_dense_matrix():
    rng = np.random.default_rng(1)
    n = 101  # not a multiple of 8: the packed extents have padding bits
    dense = rng.random((n, 12)) < rng.uniform(0.05, 0.95, 12)
    Z = _RuleMatrix.from_extents([np.packbits(column) for column in dense.T], n)
    assert Z.flipped.any() and not Z.flipped.all()
    v = rng.normal(size=n)
    np.testing.assert_allclose(Z.rmatvec(v), dense.T @ v, rtol=1e-12, atol=1e-12)
    coef = np.where(rng.random(12) < 0.5, 0.0, rng.normal(size=12))
    np.testing.assert_allclose(Z.matvec(coef), dense @ coef, rtol=1e-12, atol=1e-12)
    some = np.array([0, 3, 4, 11])
    part = Z.columns(some)
    assert part.format == "csr"
    np.testing.assert_array_equal(part.toarray(), dense[:, some])


def test_a_table_without_tree_input_columns_grows_no_tree():
    matrix = np.zeros((6, 0), dtype=np.float32)
    params = RuleFitClassifier().get_params()
    y = np.array([1.0, -1.0] * 3)
    assert _grow_trees(matrix, y, np.ones(6), get_loss("logistic"), params, np.random.RandomState(0)) == []
