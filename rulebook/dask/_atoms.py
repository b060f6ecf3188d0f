"""The optimal learner on a cluster: exact search on atoms merged over partitions.

An atom is a set of rows that no proposition tells apart: rows with the same
bin in every column (:mod:`rulebook._atoms`). Every query's extent is a
union of atoms and every objective depends on an extent only through its
sums, so the branch and bound can run on atoms with summed statistics. Here
each partition finds its atoms, the atom tables merge in a tree into one
(once per fit), each worker maps its rows to their atoms, and every round
the per-atom sums of ``g`` and ``h`` are summed over partitions and the
in-memory :class:`~rulebook.optimal.OptimalLearner` searches the atoms on
the client. Its result is the in-memory optimum on the same bins.

The number of atoms is at most the number of distinct rows of bin codes:
it grows with the rows until it nears the product of the columns' bins, so
with many numeric columns at 255 bins almost every row is an atom of its
own. Beyond :data:`MAX_ATOMS` the fit stops with an error that says so
(fewer bins, ``max_bins=16`` say, or the greedy learner).
"""

from functools import partial

import numpy as np

from ..search import SearchProblem
from . import _client, _partitions
from ._search import Extent

# Atoms the client takes at most: the table (2 bytes per atom and column)
# and each round's sums (16 bytes per atom and partition) stay small, and
# the branch and bound's time grows with the atoms.
MAX_ATOMS = 1_000_000


class AtomSearch:
    """The atoms of a fit's partitions and the optimal learner's rounds on them.

    Parameters
    ----------
    client : distributed.Client
    shards : list of distributed.Future
    n_bins, is_nominal : ndarray of shape (n_features,)

    Raises
    ------
    ValueError
        More than :data:`MAX_ATOMS` atoms.
    """

    def __init__(self, client, shards, n_bins, is_nominal):
        self.client, self.shards = client, shards
        self.n_bins, self.is_nominal = n_bins, is_nominal
        parts = _client.each(client, _partitions.atoms_of, shards, args=(MAX_ATOMS,))
        table = _client.reduce(client, parts, partial(_partitions.merge_atoms, limit=MAX_ATOMS))
        if len(table) > MAX_ATOMS:
            raise ValueError(
                f"learner='optimal' searches the data's atoms (rows with the same bin in every "
                f"column) on the client; this table has more than MAX_ATOMS={MAX_ATOMS:,} of them. "
                "Use fewer bins (e.g. max_bins=16) or fewer columns, or learner='greedy', whose "
                "distributed search does not depend on them.")
        self.table = np.asfortranarray(table)
        shared = client.scatter(table, broadcast=True)
        self.ids = _client.each(client, _partitions.atom_ids, shards, [shared] * len(shards))
        counts = _client.reduce(client, _client.each(client, _partitions.atom_counts, shards,
                                                     self.ids, args=(len(table),)),
                                _partitions.add_arrays)
        self.c, self.rows_per_atom = counts

    def search(self, learner, problem):
        """The round's query by ``learner`` on the atoms, its extent on the workers.

        Parameters
        ----------
        learner : rulebook.optimal.OptimalLearner
        problem : rulebook.dask._search.DistributedProblem
            The round's problem (its gradients and root extent).

        Returns
        -------
        rulebook.search.SearchResult
            Its ``rows`` an :class:`~rulebook.dask._search.Extent`.
        """
        G, H = _client.reduce(self.client, _client.each(
            self.client, _partitions.atom_gradients, self.shards, problem.gh, self.ids,
            args=(len(self.table),)), _partitions.add_arrays)
        atoms = SearchProblem(
            X_binned=self.table, n_bins=self.n_bins, is_nominal=self.is_nominal, g=G, h=H,
            c=self.c, rows=np.arange(len(self.table), dtype=np.intp),
            reg_lambda=problem.reg_lambda, objective=problem.objective,
            max_rule_length=problem.max_rule_length)
        # The objective's n is the data's total weight, as rulebook._atoms keeps it.
        atoms.__dict__["n_total"] = problem.n_total
        result = learner.search(atoms)
        size = round(self.rows_per_atom[result.rows].sum())
        parts = _client.each(self.client, _partitions.refine, self.shards, problem.rows.parts,
                             args=(tuple(result.conditions), self.n_bins, self.is_nominal))
        result.rows = Extent(parts, size)
        return result
