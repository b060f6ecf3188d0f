"""Atoms: rows that no searched proposition tells apart, merged into one.

Every query's extent is a union of atoms (rows satisfying exactly the same
propositions), and the objectives depend on an extent only through its sums
``G, H, C``. The branch-and-bound search can therefore run on atoms, with
summed statistics, instead of rows. This changes no objective value but

* shrinks the extents (binned data often has many identical rows: the
  suicide-rates data of Boley et al. (2021) has 27 820 rows and 710 atoms
  under the paper's propositions), and
* tightens the bound of Theorem 3.1, which then ranges over unions of atoms
  instead of arbitrary row subsets: rows of one atom with gradients of
  opposite sign can no longer be separated by the optimistic estimate,
  just as no query can separate them.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (the bound is admissible for any family of candidate
   extents that contains all query extents).
"""

import threading
import weakref

import numpy as np

from ._search_kernels import EQ, GT, LE
from .search import SearchProblem


def atom_problem(problem, feature, op, bin_):
    """The search problem over atoms of ``problem.rows``.

    Parameters
    ----------
    problem : SearchProblem
    feature, op, bin_ : ndarray of shape (n_propositions,), int64
        The propositions searched.

    Returns
    -------
    atoms : SearchProblem
        One row per atom: the binned values of one of its rows, and the
        sums of ``g``, ``h`` and ``c`` over its rows; ``rows`` all atoms;
        ``n_total`` equal to the problem's (not re-summed).
    """
    rows = problem.rows
    atom, X_atoms, every_row = _partition(problem.X_binned, rows, problem.n_bins, feature, op,
                                          bin_)
    n_atoms = len(X_atoms)
    # rows 0..n-1 in order (most fits): a[rows] is a, the same weights in
    # the same order, without a gather per array and round.
    sums = [np.bincount(atom, weights=a if every_row else a[rows], minlength=n_atoms)
            for a in (problem.g, problem.h, problem.c)]
    atoms = SearchProblem(
        X_binned=X_atoms, n_bins=problem.n_bins,
        is_nominal=problem.is_nominal, g=sums[0], h=sums[1], c=sums[2],
        rows=np.arange(n_atoms, dtype=np.intp), reg_lambda=problem.reg_lambda,
        objective=problem.objective, max_rule_length=problem.max_rule_length,
        allowed=problem.allowed)
    # The objective's n is the data's total weight; summing the atoms again
    # could differ in the last bit.
    atoms.__dict__["n_total"] = problem.n_total
    return atoms


def _partition(X_binned, rows, n_bins, feature, op, bin_):
    """The atom of every row of ``rows``, the binned values of the atoms,
    and whether ``rows`` is ``0, 1, ..., n - 1`` (every row, in order).

    The partition depends on the data and the propositions, not on the
    round's gradients, so the last one is kept: every boosting round of a
    fit searches the same ``X_binned`` (never modified in place) and rows.
    """
    key = (rows, n_bins, feature, op, bin_)
    with _LOCK:
        cached = _LAST.get("entry")
    if cached is not None and cached[0]() is X_binned and all(
            np.array_equal(a, b) for a, b in zip(cached[1], key)):
        return cached[2]
    every_row = _all_rows(rows, len(X_binned))
    X = X_binned if every_row else X_binned[rows]  # no copy: most fits
    # Two stages: identical binned rows first (cheap), then identical
    # signatures over the propositions (bins that only differ where no
    # searched proposition looks, e.g. with an ``allowed`` mask).
    first, inverse = unique_rows(X)
    signature = _signatures(X[first], n_bins, feature, op, bin_)
    first2, inverse2 = unique_rows(signature)
    atom = inverse2[inverse]
    X_atoms = np.asfortranarray(X[first[first2]])
    for array in (atom, X_atoms):
        array.flags.writeable = False
    with _LOCK:
        _LAST["entry"] = (weakref.ref(X_binned), tuple(np.array(a) for a in key),
                          (atom, X_atoms, every_row))
    return atom, X_atoms, every_row


_LAST = {}
_LOCK = threading.Lock()


def _all_rows(rows, n):
    """Is ``rows`` ``0, 1, ..., n - 1``? (Strictly increasing, n of them, from 0.)"""
    return len(rows) == n and (n == 0 or (rows[0] == 0 and bool(np.all(rows[1:] > rows[:-1]))))


def unique_rows(A):
    """``np.unique(A, axis=0, return_index=True, return_inverse=True)[1:]``.

    The same order (rows ascending, column 0 first) and the same first
    occurrences, from a stable ``np.lexsort`` over the columns: several times
    faster than ``np.unique``'s sort of whole rows as structured values,
    which was most of the atoms' cost in a small fit.

    Returns
    -------
    first : ndarray of shape (n_unique,), intp
        Index of each distinct row's first occurrence, distinct rows ascending.
    inverse : ndarray of shape (n_rows,), intp
        Each row's distinct-row number.
    """
    n = len(A)
    if n == 0 or A.shape[1] == 0:
        return np.zeros(min(n, 1), np.intp), np.zeros(n, np.intp)
    order = np.lexsort(A.T[::-1])  # the last key is the primary one
    ordered = A[order]
    new = np.empty(n, bool)
    new[0] = True
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(n, np.intp)
    inverse[order] = np.cumsum(new) - 1
    return order[new].astype(np.intp), inverse


def _signatures(X, n_bins, feature, op, bin_):
    """Packed bits: which propositions each row of ``X`` satisfies."""
    satisfied = np.empty((len(X), len(feature)), dtype=bool)
    for p, (f, o, k) in enumerate(zip(feature, op, bin_)):
        column, missing = X[:, f], n_bins[f]
        if o == LE:
            satisfied[:, p] = column <= k
        elif o == GT:
            satisfied[:, p] = (column > k) & (column < missing)
        elif o == EQ:
            satisfied[:, p] = column == k
        else:
            satisfied[:, p] = (column != k) & (column != missing)
    return np.packbits(satisfied, axis=1)
