"""Exact learners on a cluster: boosting on atoms merged over partitions.

An atom is a set of rows that no proposition tells apart: rows with the same
bin in every column (:mod:`rulebook._atoms`). Every query's extent is a
union of atoms, and every model's raw score is the same on an atom's rows,
so a whole fit needs of an atom only a few sums of its rows (its weight,
``sum s y``, ...: :func:`rulebook.dask._partitions.atom_statistics`). Here
each partition finds its atoms, the atom tables merge in a tree into one,
each worker sums its rows' statistics per atom, the sums are reduced over
partitions, once per fit, and rulebook's own boosting loop runs on the
client on one weighted row per atom (two for the logistic loss): the
optimal learner's branch and bound, the orthogonal learner, corrective
weights, every learner, as in memory. The result is the in-memory fit's on
the same bins, to rounding.

The number of atoms is at most the number of distinct rows of bin codes:
it grows with the rows until it nears the product of the columns' bins, so
with many numeric columns at 255 bins almost every row is an atom of its
own. Beyond :data:`MAX_ATOMS` the fit stops with an error that says so
(fewer bins, ``max_bins=16`` say, or the greedy learner).
"""

from dataclasses import replace
from functools import partial

import numpy as np

from .._config import X_BINNED_DTYPE
from ..boosting import fit_boosting
from . import _client, _partitions

# Atoms the client takes at most: the table (2 bytes per atom and column),
# the statistics (48 bytes per atom and partition, once) and a fit on as
# many rows in the client's memory.
MAX_ATOMS = 1_000_000


def merged_atoms(client, shards):
    """The atoms of all partitions and, per partition, the atom of each row.

    Parameters
    ----------
    client : distributed.Client
    shards : list of distributed.Future

    Returns
    -------
    table : ndarray of shape (n_atoms, n_features), uint16, F-order
        One row of bin codes per atom (rows of positive weight only).
    ids : list of distributed.Future
        Per partition, the atom of each of its rows of positive weight.

    Raises
    ------
    ValueError
        More than :data:`MAX_ATOMS` atoms.
    """
    parts = _client.each(client, _partitions.atoms_of, shards, args=(MAX_ATOMS,))
    table = _client.reduce(client, parts, partial(_partitions.merge_atoms, limit=MAX_ATOMS))
    if len(table) > MAX_ATOMS:
        raise ValueError(
            f"this learner searches the data's atoms (rows with the same bin in every column) "
            f"on the client; this table has more than MAX_ATOMS={MAX_ATOMS:,} of them. Use "
            "fewer bins (e.g. max_bins=16) or fewer columns, or learner='greedy' with "
            "stagewise weights, whose distributed search does not depend on them.")
    shared = client.scatter(table, broadcast=True)
    ids = _client.each(client, _partitions.atom_ids, shards, [shared] * len(shards))
    # The in-memory loop's dtype, whatever the shards' (uint8 at most 256 bins).
    return np.asfortranarray(table, dtype=X_BINNED_DTYPE), ids


def fit_on_atoms(client, shards, setup):
    """Boosting on the atoms' sufficient statistics, in this process.

    Every partition's rows are summed per atom once
    (:func:`rulebook.dask._partitions.atom_statistics`); each atom becomes
    one weighted row (two for the logistic loss, one per class) whose
    gradients, Hessians and loss derivatives are the atom's sums, and
    rulebook's own loop (:func:`rulebook.boosting.fit_boosting`) runs on
    them: any learner, any weight update. The training losses of
    ``history_`` get back the part of the atoms' loss that no model changes
    (their rows' spread around the atom's mean).

    Parameters
    ----------
    client : distributed.Client
    shards : list of distributed.Future
    setup : rulebook.boosting.BoostingSetup
        Everything but ``X_binned``, ``y`` and ``sample_weight`` (set here).

    Returns
    -------
    intercept, rules, history
        As :func:`rulebook.boosting.fit_boosting`.
    """
    table, ids = merged_atoms(client, shards)
    stats = _client.reduce(client, _client.each(client, _partitions.atom_statistics, shards, ids,
                                                args=(len(table),)), _partitions.add_arrays)
    X, y, c, constant = _pseudo_rows(table, stats, setup.loss.name)
    setup = replace(setup, X_binned=X, y=y, sample_weight=c,
                    gradient_spread=_gradient_spread(stats, setup.loss.name))
    intercept, rules, history, _ = fit_boosting(setup)
    history["train_loss"] = history["train_loss"] + constant / c.sum()
    return intercept, rules, history


def _gradient_spread(stats, loss):
    """``sum g_i^2 / s_i`` of the atoms' rows beyond that of their pseudo-rows.

    A model's raw score ``f`` is the same on an atom's rows, so per atom
    ``sum s (y - f)^2 = C (ybar - f)^2 + (S_yy - S_y^2 / C)``: the squared
    loss's gradient ``2 s (f - y)`` leaves ``4 (S_yy - S_y^2 / C)`` out of
    the pseudo-row's, the Poisson loss's ``s (exp f - y)`` leaves ``S_yy -
    S_y^2 / C``, in every round. The logistic loss's pseudo-rows are
    exact (one per class). For :attr:`rulebook.search.SearchProblem.gradient_spread`.
    """
    if loss == "logistic":
        return 0.0
    C, Sy, Syy = stats[0], stats[1], stats[2]
    within = float(np.maximum(Syy - Sy * Sy / C, 0.0).sum())
    return 4.0 * within if loss == "squared" else within


def _pseudo_rows(table, stats, loss):
    """Rows standing for the atoms: ``(X_binned, y, weight, loss constant)``.

    Squared and Poisson: one row per atom at the atom's weighted mean of
    ``y``, with its weight; the loss of the atom's rows differs from the
    row's by a constant (``S_yy - S_y^2 / C``, resp. ``S_ylogy - C ybar log
    ybar``). Logistic: a row of ``y = +1`` with the weight of the atom's
    positive rows and one of ``-1`` with that of its negative ones (rows of
    weight zero dropped).
    """
    C, Sy, Syy, positive, negative, Sylogy = stats
    if loss == "logistic":
        X = np.concatenate([table, table])
        y = np.r_[np.ones(len(table)), -np.ones(len(table))]
        c = np.r_[positive, negative]
        keep = c > 0
        return np.asfortranarray(X[keep]), y[keep], c[keep], 0.0
    mean = Sy / C
    if loss == "squared":
        constant = float((Syy - Sy * mean).sum())
    else:
        constant = float((Sylogy - np.where(mean > 0, Sy * np.log(np.where(mean > 0, mean, 1.0)),
                                            0.0)).sum())
    return table, mean, C, constant
