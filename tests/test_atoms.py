"""Atoms: rows no searched proposition separates, merged (``rulebook._atoms``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook._atoms import atom_problem
from rulebook.optimal import _PropositionSpace
from rulebook.search import SearchProblem

import naive
from conftest import binned_problems


def _propositions(problem):
    space = _PropositionSpace.of(problem)
    s = space.searched
    return space.feature[s], space.op[s], space.bin[s]


def _satisfied(problem, rows):
    """Which propositions each row satisfies (NumPy reference)."""
    masks = [naive.condition_mask(problem.X_binned, f, o, k, problem.n_bins)
             for f, o, k in zip(*_propositions(problem))]
    return np.array(masks).T[rows] if masks else np.zeros((len(rows), 0), bool)


@settings(max_examples=100, deadline=None)
@given(binned_problems(max_rows=30), st.data())
def test_atoms_merge_exactly_the_inseparable_rows(problem, data):
    # A second call on other rows of the same data must not reuse the first
    # call's partition.
    for rows in (problem.rows, np.sort(data.draw(st.permutations(problem.rows)))[::2]):
        sub = SearchProblem(problem.X_binned, problem.n_bins, problem.is_nominal, problem.g,
                            problem.h, problem.c, rows, problem.reg_lambda, problem.objective)
        atoms = atom_problem(sub, *_propositions(sub))
        signature = _satisfied(sub, rows)
        atom_signature = _satisfied(atoms, atoms.rows)
        # Distinct atoms differ on some proposition; every row's signature is an atom's.
        assert len(np.unique(atom_signature, axis=0)) == len(atoms.rows)
        keys = {row.tobytes(): i for i, row in enumerate(atom_signature)}
        members = np.array([keys[row.tobytes()] for row in signature], dtype=np.int64)
        for name in ("g", "h", "c"):
            expected = np.bincount(members, getattr(sub, name)[rows], minlength=len(atoms.rows))
            np.testing.assert_allclose(getattr(atoms, name), expected, rtol=1e-12, atol=1e-12)
        assert atoms.n_total == sub.n_total


def test_a_new_array_with_other_values_is_not_served_from_the_cache():
    rng = np.random.default_rng(0)
    X = np.asfortranarray(rng.integers(0, 4, size=(50, 3)).astype(np.uint16))
    n_bins, stats = np.full(3, 4, np.int64), np.ones(50)
    first = SearchProblem(X, n_bins, np.zeros(3, bool), stats, stats, stats, np.arange(50), 1.0, 2)
    atoms = atom_problem(first, *_propositions(first))
    other = np.asfortranarray(np.zeros_like(X))  # every row alike: one atom
    second = SearchProblem(other, n_bins, np.zeros(3, bool), stats, stats, stats,
                           np.arange(50), 1.0, 2)
    assert len(atom_problem(second, *_propositions(second)).rows) == 1 < len(atoms.rows)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(0, 5), st.sampled_from([1, 2, 4, 1000]),
       st.integers(0, 2**32 - 1))
def test_unique_rows_is_numpys(n, d, values, seed):
    """Same distinct-row order, first occurrences and inverse as np.unique
    (binned rows are uint16, packed signatures uint8)."""
    from rulebook._atoms import unique_rows

    dtype = np.uint8 if values < 256 and seed % 2 else np.uint16
    A = np.random.default_rng(seed).integers(0, values, (n, d)).astype(dtype)
    first, inverse = unique_rows(A)
    if d == 0:  # np.unique cannot take rows of no columns; one distinct row
        assert list(first) == ([0] if n else []) and not inverse.any()
        return
    _, first_np, inverse_np = np.unique(A, axis=0, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(first, first_np)
    np.testing.assert_array_equal(inverse, inverse_np.reshape(-1))


def test_all_rows_is_only_the_identity_index():
    from rulebook._atoms import _all_rows

    assert _all_rows(np.arange(5), 5) and _all_rows(np.arange(0), 0)
    assert not _all_rows(np.array([0, 2, 1, 3, 4]), 5)  # a permutation: X_binned[rows] differs
    assert not _all_rows(np.array([0, 0, 1, 2, 3]), 5)
    assert not _all_rows(np.arange(1, 6), 5)
    assert not _all_rows(np.arange(4), 5)
