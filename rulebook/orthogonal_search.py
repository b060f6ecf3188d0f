"""The orthogonal learner's searches: greedy, beam and branch and bound.

Each search maximises the objective of a
:class:`~rulebook.orthogonal_objective.ChannelProblem` (the orthogonal
gradient boosting objective, Yang et al. 2024, eq. 14, or a standard one)
over conjunctions of binned propositions, scoring every refinement of a
node from its channel histograms (Proposition 3):

* :func:`beam_search` keeps the ``w`` best refinements a level
  (Algorithm 2 with a finite queue limit); :func:`greedy_search` is its
  width 1, the paper's COB_G;
* :func:`branch_and_bound` is best first with the paper's prefix-greedy
  bound (Algorithm 2 with ``w = inf``, Algorithm 3; COB_B), on atoms of
  equal binned rows, its loop compiled
  (:mod:`rulebook._orthogonal_bnb_kernels`).

With a length factor (:func:`~rulebook.orthogonal_objective.length_factors`)
every search maximises ``value * f(c)`` for a query of ``c`` conditions.
:class:`~rulebook.orthogonal.OrthogonalLearner` chooses among them.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.3 (Proposition 3, Algorithms 2-3), Appendix B (the
   prefix-greedy bound is a heuristic; Table 4).
"""

from dataclasses import dataclass

import numpy as np

from . import _orthogonal_bnb_kernels as bnb_kernels
from . import _orthogonal_kernels as kernels
from .search import SearchResult, _every_row


@dataclass
class _Node:
    conditions: tuple
    rows: np.ndarray
    value: float
    hist: np.ndarray = None
    # Until the node is expanded: its parent's histograms and the rows the
    # last condition removed, so histograms are built only for expanded
    # nodes (most children of a branch-and-bound node never are).
    parent_hist: np.ndarray = None
    removed: np.ndarray = None
    # value x the length factor of its conditions (beam_search).
    score: float = None

    def histograms(self, problem):
        if self.hist is None:
            self.hist = problem.child_histograms(self.parent_hist, self.rows, self.removed)
            self.parent_hist = self.removed = None
        return self.hist


def _key(rows):
    return len(rows), hash(rows.tobytes())


def _only_features(values, features):
    """``values`` (features first) with every other feature's entries -inf."""
    out = np.full_like(values, -np.inf)
    out[features] = values[features]
    return out


def _depth_limit(problem):
    return problem.base.max_rule_length or np.inf


def beam_search(problem, width=1, length_factor=None):
    """Beam search (Algorithm 2 with a finite queue limit ``w``).

    Each level keeps the ``width`` best refinements, over all nodes of the
    previous level, that strictly improve on their parent's value and whose
    extents are distinct. With ``length_factor`` the values compared are
    scores, ``value * length_factor[c]`` for a query of ``c`` conditions
    (columns), and the query returned is the best-scoring one. ``width=1`` is greedy refinement: the same
    queries as :func:`rulebook.greedy.greedy_search` for the standard
    objectives (ties go to the first proposition in the kernels' order).

    Parameters
    ----------
    problem : ChannelProblem
    width : int >= 1
    length_factor : ndarray of shape (L,), float64, optional
        As from :func:`~rulebook.orthogonal_objective.length_factors`; None:
        all ones.

    Returns
    -------
    SearchResult
        ``value``: the query's objective value (not its score);
        ``stats``: ``n_refinements`` (propositions scored), ``n_steps``
        (histogram passes).
    """
    rows = problem.base.rows
    factor = np.ones(1) if length_factor is None else np.asarray(length_factor, np.float64)
    root = _Node((), rows, problem.value(rows), problem.histograms(rows))
    root.score = root.value * factor[0]
    best, beam = root, [root]
    n_scored, n_steps, limit = 0, 0, _depth_limit(problem)
    while beam:
        candidates = []
        for i, node in enumerate(beam):
            if len(node.rows) <= 1:
                continue
            values = problem.values(node.histograms(problem), len(node.rows))
            used = sorted({c[0] for c in node.conditions})
            if len(used) >= limit:
                # The limit counts conditions (columns): at it, only the
                # columns used may be refined further.
                values = _only_features(values, used)
            n_steps += 1
            n_scored += int(np.isfinite(values).sum())
            # Each refinement's score: a column already used adds no condition.
            scale = np.full((values.shape[0], 1), factor[min(len(used) + 1, len(factor) - 1)])
            scale[used] = factor[min(len(used), len(factor) - 1)]
            flat, scores = values.ravel(), (values * scale).ravel()
            better = np.flatnonzero(scores > node.score)
            top = better[np.argsort(-scores[better], kind="stable")][:width]
            candidates += [(-scores[k], i, k, flat[k]) for k in top]
        candidates.sort(key=lambda c: c[:3])
        previous, beam, seen = beam, [], set()
        for negative, i, k, value in candidates:
            child = _child(problem, previous[i], k, value)
            child.score = -negative
            key = _key(child.rows)
            if key in seen:
                continue
            seen.add(key)
            beam.append(child)
            if child.score > best.score:
                best = child
            if len(beam) == width:
                break
    return SearchResult(best.conditions, best.value, best.rows,
                        {"n_refinements": n_scored, "n_steps": n_steps})


def _child(problem, parent, flat_index, value):
    """The refinement of ``parent`` by proposition ``flat_index`` of its
    values, whose objective value (from the parent's scan) is ``value``."""
    j, p = divmod(int(flat_index), 2 * parent.hist.shape[1])
    condition = problem.condition(j, p)
    kept, removed = problem.base.split(parent.rows, condition)
    return _Node(parent.conditions + (condition,), kept, float(value),
                 parent_hist=parent.hist, removed=removed)


def greedy_search(problem, length_factor=None):
    """Greedy refinement: :func:`beam_search` with width 1."""
    return beam_search(problem, 1, length_factor)


def branch_and_bound(problem, bound="prefix_greedy", max_nodes=None, memory_limit=None,
                     atom_index=None, length_factor=None):
    """Best-first branch and bound over conjunctions (Algorithm 2, ``w = inf``).

    A node is expanded only when its bound exceeds the best value found;
    its refinements are generated lazily, best value first, and enter the
    queue with the parent's bound. Conditions are added in non-decreasing
    feature order (tail augmentation), and a node is skipped when one with
    the same extent and a subtree containing its own was reached before.

    The search runs on *atoms*: training rows with the same bin on every
    feature, merged with summed channels (:func:`_atoms`). Every extent is
    a union of atoms and its channel sums, hence its objective, are
    unchanged; extents, histograms and bounds shrink (friedman2: 8,000
    training rows, 1,296 atoms).

    ``bound="prefix_greedy"`` is the paper's bound: the best prefix of the
    node's extent sorted by the projected gradient, ascending or descending
    (Algorithm 2, red lines, with Algorithm 3; eq. 9 approximated as in
    Appendix B). Here the prefixes are of atoms sorted by their mean
    projected gradient ``G / C``: the paper's row order when every atom is
    a single row of unit weight; otherwise prefixes range over unions of
    atoms, which are closer to the query extents (no query splits an atom)
    than arbitrary row prefixes. It is a *heuristic*: it can be below the
    best value in the subtree, so the search can miss the optimum. The
    paper measured it to reach at least 75% of the optimal value on all of
    2,000 random instances per setting (Appendix B, Table 4: 15 points,
    5 rules). Measured here on 300 random problems per ``epsilon`` (15
    rows, 2 numeric features of 5 bins, the intercept and 3 random queries
    in the basis, up to 3 conditions): the search with the bound found the
    exhaustive optimum in 99.7%, 99.3% and 100% of them for ``epsilon`` =
    1e-3, 0.1, 1 (worst ratio 0.954), with 31% of the exhaustive search's
    node expansions (``tests/test_orthogonal.py`` keeps a smaller version
    of this check). ``bound="none"`` prunes nothing: exhaustive, exact,
    exponential.

    Parameters
    ----------
    problem : ChannelProblem
    bound : {"prefix_greedy", "none"}
    max_nodes : int or None
        Most node expansions; the best query found so far is returned
        when it is reached (``stats["budget_exhausted"]``).
    memory_limit : float > 0 or None
        Most mebibytes of the search's growing pools (see
        :class:`~rulebook.orthogonal.OrthogonalLearner`); the search stops,
        as at ``max_nodes``, before an expansion or the record of a popped
        query that could take them past it.
    atom_index : _AtomIndex, optional
        The atoms of the problem's rows, when known (kept over the rounds
        of a fit by :class:`~rulebook.orthogonal.OrthogonalRounds`).
    length_factor : ndarray of shape (L,), float64, optional
        As from :func:`~rulebook.orthogonal_objective.length_factors`
        (None: all ones): the search maximises the score ``value *
        length_factor[c]`` of a query of ``c`` conditions (columns). A
        node's bound is scaled by its own factor: its refinements never have
        fewer conditions and the factor is non-increasing, so the scaled
        bound bounds their scores whenever the plain bound bounds their
        values.

    Returns
    -------
    SearchResult
        ``value``: the query's objective value (not its score); ``stats``: ``n_nodes`` (expansions), ``n_pruned`` (nodes whose
        bound did not exceed the best value), ``n_refinements``,
        ``budget_exhausted`` (``max_nodes`` or ``memory_limit`` stopped
        the search) and, when ``memory_limit`` is given,
        ``memory_exhausted`` (it stopped the search).

    Notes
    -----
    The loop runs compiled (:mod:`rulebook._orthogonal_bnb_kernels`, about
    10x faster than the Python loop it replaced). Its pure-Python twin,
    ``tests/naive.py::orthogonal_branch_and_bound``, is the reference: on
    data without duplicate rows and with unit weights the two return the
    same query, value and statistics. Differences otherwise: the bound's
    prefixes are of atoms (above); a node of a single atom is not
    expanded, since it has no strict sub-extent (the reference counts it
    as an expansion without refinements); duplicate extents are detected
    by a 64-bit Zobrist hash of their atoms (the reference: Python's hash
    of the row bytes; both exact up to a hash collision).
    """
    base = problem.base
    rows = base.rows
    root_value, _ = problem.value(rows), problem._scale
    X_atoms, W_atoms = _atoms(problem, atom_index, in_place=problem.transient)
    if problem.transient:
        problem.W = None
    channels = _bound_channels(W_atoms)
    row_keys = _row_keys(len(W_atoms))
    stats = np.zeros(bnb_kernels.N_STATS, np.int64)
    max_bytes = None if memory_limit is None else int(memory_limit * 2**20)
    value, conditions = bnb_kernels.branch_and_bound(
        X_atoms, np.arange(len(W_atoms)), W_atoms, *channels, base.n_bins,
        base.is_nominal, problem.code, base.n_total, float(base.reg_lambda), problem.epsilon,
        problem.ridge, problem._scale, root_value, bound != "none", _as_int(_depth_limit(problem)),
        _as_int(max_nodes), row_keys, stats, _as_int(max_bytes),
        *_root_children(problem, X_atoms, W_atoms, channels, row_keys, bound != "none",
                        max_nodes),
        np.ones(1) if length_factor is None else np.ascontiguousarray(length_factor, np.float64))
    conditions = tuple((int(f), int(o), int(b)) for f, o, b in conditions)
    extent = rows
    for condition in conditions:
        extent = base.refine(extent, condition)
    counts = {"n_nodes": int(stats[bnb_kernels.N_NODES]),
              "n_pruned": int(stats[bnb_kernels.N_PRUNED]),
              "n_refinements": int(stats[bnb_kernels.N_REFINEMENTS]),
              "budget_exhausted": bool(stats[bnb_kernels.BUDGET_EXHAUSTED])}
    if memory_limit is not None:
        counts["memory_exhausted"] = bool(stats[bnb_kernels.MEMORY_EXHAUSTED])
    return SearchResult(conditions, float(value), extent, counts)


class _AtomIndex:
    """Which atom each row of a search's rows belongs to.

    Atoms depend on the binned rows only, not on the round's channels: one
    index serves every round of a fit
    (:class:`~rulebook.orthogonal.OrthogonalRounds`), where building it (a
    sort of the rows' codes) took 1.1 s a round at 10^6 rows. Atoms are
    numbered by their first row.

    Parameters
    ----------
    X_binned : ndarray of shape (n, n_features), uint16
    rows : ndarray of shape (m,), intp
    n_bins : ndarray of shape (n_features,), int64
    """

    def __init__(self, X_binned, rows, n_bins):
        self.X_binned, self.rows = X_binned, rows
        codes = _row_codes(X_binned[rows], n_bins)
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
        by_first = np.argsort(first)
        rank = np.empty_like(by_first)
        rank[by_first] = np.arange(len(by_first))
        self.singletons = len(first) == len(rows)
        # Atoms of one row each: the first rows are the rows, in order.
        self.first = np.arange(len(rows)) if self.singletons else first[by_first]
        self.inverse = None if self.singletons else rank[inverse.reshape(-1)]

    def fits(self, problem):
        """Whether the index is of ``problem``'s binned table and rows."""
        base = problem.base
        return base.X_binned is self.X_binned and np.array_equal(base.rows, self.rows)

    def sums(self, W):
        """Channel sums per atom, ``W`` of all the table's rows; for atoms
        of one row each, None (:func:`_atoms` then reads ``W`` directly)."""
        if self.singletons:
            return None
        W = W[self.rows]
        out = np.empty((len(self.first), W.shape[1]))
        for k in range(W.shape[1]):
            out[:, k] = np.bincount(self.inverse, weights=W[:, k], minlength=len(self.first))
        return out


# From this many atoms the root's histograms and its first children (rows,
# key, bound) are computed before the search, on numba's threads: at 10^6
# rows the search spends most of its time on them, one at a time. Smaller
# searches do not compile the parallel kernel.
ROOT_CHILDREN_MIN_ATOMS = 65_536


def _root_children(problem, X_atoms, W_atoms, channels, row_keys, use_bound, max_nodes):
    """The root's histograms and its first refinements, computed in parallel.

    The branch and bound pops the root's refinements best first; at 10^6
    rows most of a round is the first few hundred of them (their rows
    split off, their key and prefix-greedy bound), one at a time. Their
    order is known once the root is scanned, so they are computed here on
    numba's threads (``_orthogonal_bnb_kernels.root_children``), at most
    ``max_nodes`` of them, and the search takes each one as it pops it
    (checking its condition); the same numbers as the search's own.

    Returns
    -------
    root_hist, pre, pre_bound
        The arguments of ``_orthogonal_bnb_kernels.branch_and_bound``;
        empty below :data:`ROOT_CHILDREN_MIN_ATOMS` atoms.
    """
    base, n = problem.base, len(W_atoms)
    if n < ROOT_CHILDREN_MIN_ATOMS:
        return np.empty((0, 0, 0)), np.empty((0, 5), np.int64), np.empty(0)
    width = max(1, int(base.n_bins.max()) + 1)
    root_hist = np.empty((X_atoms.shape[1], width, W_atoms.shape[1]))
    kernels.build_all_channel_histograms(X_atoms, W_atoms, root_hist)
    values = np.empty((X_atoms.shape[1], 2 * width))
    kernels.scan_all_parallel(root_hist, base.n_bins, base.is_nominal, 0, problem.code,
                              base.n_total, float(base.reg_lambda), problem.epsilon,
                              problem.ridge, float(W_atoms[:, kernels.N].sum()), values)
    # The search's order of the root's refinements (its _refinement_order):
    # best snapped value first, ties in the scan's order.
    flat = values.ravel()
    finite = np.flatnonzero(np.isfinite(flat))
    order = finite[np.argsort(-problem._snap(flat[finite]), kind="stable")]
    order = order[:min(len(order), max_nodes or 1024)]
    pre = np.zeros((len(order), 5), np.int64)
    for i, k in enumerate(order):
        j, position = divmod(int(k), 2 * width)
        pre[i, :3] = problem.condition(j, position)
    pre_bound = np.empty(len(order))
    bnb_kernels.root_children(X_atoms, pre, base.n_bins, *channels, problem.epsilon,
                              problem.ridge, problem.code, problem._scale, use_bound, row_keys,
                              pre_bound)
    return root_hist, pre, pre_bound


def _atoms(problem, index=None, in_place=False):
    """Rows with equal bins on every feature merged into atoms.

    Every extent is a union of atoms and every channel is a sum over rows,
    so an extent's channel sums, hence its objective value, are those of
    its atoms (as :mod:`rulebook._atoms` does for the optimal learner).
    Atoms are numbered in the order of the prefix-greedy bound (see
    :func:`branch_and_bound`).

    Parameters
    ----------
    problem : ChannelProblem
    index : _AtomIndex, optional
        The atoms of ``problem``'s rows, when already known.
    in_place : bool, default=False
        When every row is an atom of its own, the atoms' channels may be
        ``problem.W`` itself, its rows permuted in place (a transient
        problem's: 100 MB less at 10^6 rows).

    Returns
    -------
    X_atoms : ndarray of shape (n_atoms, n_features), uint16, F-order
    W_atoms : ndarray of shape (n_atoms, 4 + K), float64
        Channel sums per atom (``N``: its row count).
    """
    base = problem.base
    if index is None:
        index = _AtomIndex(base.X_binned, base.rows, base.n_bins)
    sums = index.sums(problem.W)
    source = base.rows[index.first]
    # Number the atoms in the bound's order: ascending mean projected
    # gradient, ties by first row (Algorithm 2 sorts the rows by g_perp):
    # atoms are numbered by first row, and the sort is stable.
    if sums is None:  # atoms of one row: that row's channels
        ratio = problem.W[source, kernels.G] / problem.W[source, kernels.C]
    else:
        ratio = sums[:, kernels.G] / sums[:, kernels.C]
    order = np.argsort(ratio, kind="stable")
    X_atoms = np.empty((len(order), base.X_binned.shape[1]), base.X_binned.dtype, order="F")
    kernels.take_rows(base.X_binned, source[order], X_atoms)
    if sums is None and in_place and _every_row(source, len(problem.W)):
        # As np.bincount's sum of one row: 0.0 + w (-0.0 becomes 0.0).
        kernels.permute_channel_rows(problem.W, order)
        return X_atoms, problem.W
    W_atoms = np.empty((len(order), problem.W.shape[1]))
    if sums is None:
        kernels.take_channel_rows(problem.W, source[order], W_atoms)
    else:
        kernels.take_channel_rows(sums, order, W_atoms)
    return X_atoms, W_atoms


def _bound_channels(W):
    """The channels the prefix-greedy bound reads, in a compact form.

    The basis channels ``U_k = s o_k`` of a row depend only on which of the
    selected queries cover it (and its weight): the orthonormal basis is
    spanned by the intercept and their indicator vectors. Rows with equal
    basis channels, bit for bit, share one row of ``U``; the bound then
    reads 20 bytes a row (``G``, ``C``, a class) instead of ``8 (4 + K)``,
    and the same numbers. Rows of no shared class (linear terms in the
    basis, weights) still give the same bound, from as many classes as rows.

    Returns
    -------
    G : ndarray of shape (n,), float64
    C : ndarray of shape (n,) or (0,), float64
        Empty when every row's ``C`` is 1.
    classes : ndarray of shape (n,), int32
    U : ndarray of shape (n_classes, K), float64
    """
    W = np.ascontiguousarray(W)
    classes, first = np.empty(len(W), np.int32), np.empty(len(W), np.intp)
    n_classes = kernels.distinct_rows(W.view(np.int64), kernels.FIRST_BASIS_CHANNEL, classes,
                                      first)
    C = W[:, kernels.C]
    # C = 1 on every row (unit weights, atoms of one row) is not read at all.
    C = np.empty(0) if np.all(C == 1.0) else np.ascontiguousarray(C)
    U = np.ascontiguousarray(W[first[:n_classes], kernels.FIRST_BASIS_CHANNEL:])
    return np.ascontiguousarray(W[:, kernels.G]), C, classes, U


def _row_codes(X, n_bins):
    """An int64 per row of ``X``, equal exactly when the binned rows are.

    Mixed radix over the features (bin codes ``0..n_bins[j]``, the last
    the missing bin); when the next radix would overflow, the codes so far
    are renumbered densely first. Sorting one int64 array is much faster
    than ``np.unique(X, axis=0)`` (1.1 s of a 2.7 s fit on suicide_rates).
    """
    codes, radix = np.zeros(len(X), np.int64), 1
    for j in range(X.shape[1]):
        base = int(n_bins[j]) + 1
        if radix > 2**62 // base:
            codes = np.unique(codes, return_inverse=True)[1].reshape(-1).astype(np.int64)
            radix = int(codes.max()) + 1
        codes += X[:, j].astype(np.int64) * radix
        radix *= base
    return codes


# Stands for "no limit" in the kernel's integer arguments.
_UNLIMITED = np.iinfo(np.int64).max


def _as_int(limit):
    return _UNLIMITED if limit is None or limit == np.inf else int(limit)


def _row_keys(n):
    """Random 64-bit Zobrist keys of the rows (fixed seed: reproducible)."""
    return np.random.default_rng(0).integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                             size=n, dtype=np.int64)
