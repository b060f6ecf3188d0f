"""Slow, obviously-correct NumPy twins of rulebook's kernels (stumpy-style).

Each reference evaluates propositions as explicit boolean masks over rows
and sums with NumPy; the kernels use histograms and prefix scans. The
candidate enumeration order mirrors the kernels' (features ascending; per
numeric feature ``<=`` by ascending bin then ``>`` by descending bin; per
nominal feature ``==`` then ``!=`` by ascending category), so with exact
(integer-valued) statistics the two agree on ties too.
"""

import heapq
import itertools

import numpy as np

from rulebook import _orthogonal_kernels as orthogonal_kernels
from rulebook.objectives import OBJECTIVES, objective_value
from rulebook.orthogonal import _child, _depth_limit, _key, _Node

LE, GT, EQ, NE = 0, 1, 2, 3
NAMES = {v: k for k, v in OBJECTIVES.items()}


def condition_mask(X_binned, feature, op, bin_index, n_bins):
    """Rows satisfying the binned condition, by its definition."""
    column = X_binned[:, feature].astype(np.int64)
    missing = column == n_bins[feature]
    if op == LE:
        return (column <= bin_index) & ~missing
    if op == GT:
        return (column > bin_index) & ~missing
    if op == EQ:
        return (column == bin_index) & ~missing
    return (column != bin_index) & ~missing


def histograms(X_binned, rows, g, h, c, n_bins):
    """(G, H, C, N) per feature and bin with np.add.at."""
    d = X_binned.shape[1]
    hist = np.zeros((d, int(n_bins.max()) + 1, 4))
    for j in range(d):
        b = X_binned[rows, j].astype(np.int64)
        for k, values in enumerate((g[rows], h[rows], c[rows], np.ones(len(rows)))):
            np.add.at(hist[j, :, k], b, values)
    return hist


def candidates(n_bins, is_nominal):
    """All binned conditions, in the kernels' enumeration order."""
    out = []
    for j, nb in enumerate(n_bins):
        if is_nominal[j]:
            for k in range(nb):
                out.append((j, EQ, k))
                if nb > 2:
                    out.append((j, NE, k))
        else:
            out += [(j, LE, k) for k in range(nb - 1)]
            out += [(j, GT, k) for k in range(nb - 2, -1, -1)]
    return out


def score(X_binned, rows, condition, g, h, c, n_bins, objective, n_total, reg_lambda):
    """Objective value and row count of ``rows`` refined by ``condition``."""
    mask = condition_mask(X_binned, *condition, n_bins)[rows]
    sub = rows[mask]
    value = objective_value(NAMES[objective], g[sub].sum(), h[sub].sum(), c[sub].sum(),
                            n_total, reg_lambda)
    return float(value), len(sub), sub


def best_per_feature(X_binned, rows, g, h, c, n_bins, is_nominal, objective, n_total, reg_lambda):
    """Per feature: best (value, op, bin) over strict, non-empty sub-extents."""
    d = X_binned.shape[1]
    best = [(-np.inf, -1, -1)] * d
    for condition in candidates(n_bins, is_nominal):
        value, count, _ = score(X_binned, rows, condition, g, h, c, n_bins, objective,
                                n_total, reg_lambda)
        j = condition[0]
        if 0 < count < len(rows) and value > best[j][0]:
            best[j] = (value, condition[1], condition[2])
    return best


def greedy(X_binned, rows, g, h, c, n_bins, is_nominal, objective, reg_lambda, max_len=0,
           max_steps=None, price=0.0):
    """Greedy refinement from the query True, by explicit masks; ``max_len``
    limits the number of distinct columns (conditions), ``max_steps`` the
    number of propositions added; a proposition after the first is added
    only if it raises the value by more than ``price``."""
    n_total = c[rows].sum()
    value = float(objective_value(NAMES[objective], g[rows].sum(), h[rows].sum(),
                                  c[rows].sum(), n_total, reg_lambda))
    return _refine_greedily(
        X_binned, rows, value, n_bins, max_len,
        lambda rows: best_per_feature(X_binned, rows, g, h, c, n_bins, is_nominal, objective,
                                      n_total, reg_lambda), max_steps, price)


def _refine_greedily(X_binned, rows, value, n_bins, max_len, best_of, max_steps=None, price=0.0):
    """The greedy loop of :func:`greedy` and :func:`greedy_multi`:
    ``best_of(rows)`` gives each feature's best (value, op, bin)."""
    conditions = []
    while len(rows) > 1 and (max_steps is None or len(conditions) < max_steps):
        best = best_of(rows)
        used = {cond[0] for cond in conditions}
        if max_len and len(used) >= max_len:
            # At the limit, only the columns used so far (max_len counts columns).
            best = [b if j in used else (-np.inf,) + tuple(b[1:]) for j, b in enumerate(best)]
        # The lowest feature within 1e-12 (relative) of the best, as
        # rulebook.greedy._first_best: values equal but for rounding (|G| /
        # sqrt(C) of 2/sqrt(3) and 4/sqrt(12)) are ties.
        values = np.array([b[0] for b in best], dtype=float)
        top = values.max()
        j = int(np.argmax(values >= top - 1e-12 * abs(top)))
        if not best[j][0] > value + (price if conditions else 0.0):
            break
        condition = (j, best[j][1], best[j][2])
        conditions.append(condition)
        rows = rows[condition_mask(X_binned, *condition, n_bins)[rows]]
        value = best[j][0]
    return tuple(conditions), value, rows


# -- several outputs (rulebook._multi_output_kernels) -------------------------
def histograms_multi(X_binned, rows, g, h, c, n_bins):
    """(G_0..G_K-1, H_0..H_K-1, C, N) per feature and bin with np.add.at."""
    d, n_outputs = X_binned.shape[1], g.shape[1]
    hist = np.zeros((d, int(n_bins.max()) + 1, 2 * n_outputs + 2))
    stats = np.column_stack([g[rows], h[rows], c[rows], np.ones(len(rows))])
    for j in range(d):
        b = X_binned[rows, j].astype(np.int64)
        for k in range(stats.shape[1]):
            np.add.at(hist[j, :, k], b, stats[:, k])
    return hist


def complete_objective(G, H, C, n_total, reg_lambda):
    """sum_k G_k^2 / (2 n (lambda + H_k)); 0 for an empty extent (BOOMER's complete head)."""
    if C <= 0:
        return 0.0
    denominator = 2.0 * n_total * (reg_lambda + H)
    return float(sum(G[k] ** 2 / denominator[k] for k in range(len(G)) if denominator[k] > 0))


def single_objective(G, H, C, n_total, reg_lambda):
    """max_k G_k^2 / (2 n (lambda + H_k)), outputs of a vanishing denominator 0;
    0 for an empty extent (BOOMER's single-label head)."""
    if C <= 0:
        return 0.0
    denominator = 2.0 * n_total * (reg_lambda + H)
    return float(max([0.0] + [G[k] ** 2 / denominator[k] for k in range(len(G))
                              if denominator[k] > 0]))


def best_per_feature_multi(X_binned, rows, g, h, c, n_bins, is_nominal, n_total, reg_lambda,
                           allowed=None, single=False):
    """Per feature: best (value, op, bin) of a complete head (a single-output
    one if ``single``), by explicit masks; only the propositions
    ``allowed[feature, bin, op]`` (all if None)."""
    objective = single_objective if single else complete_objective
    best = [(-np.inf, -1, -1)] * X_binned.shape[1]
    for condition in candidates(n_bins, is_nominal):
        if allowed is not None and not allowed[condition[0], condition[2], condition[1]]:
            continue
        sub = rows[condition_mask(X_binned, *condition, n_bins)[rows]]
        value = objective(g[sub].sum(axis=0), h[sub].sum(axis=0), c[sub].sum(), n_total,
                          reg_lambda)
        j = condition[0]
        if 0 < len(sub) < len(rows) and value > best[j][0]:
            best[j] = (value, condition[1], condition[2])
    return best


def greedy_multi(X_binned, rows, g, h, c, n_bins, is_nominal, reg_lambda, max_len=0,
                 single=False, price=0.0):
    """Greedy refinement of a complete (or, if ``single``, single-output) head
    from the query True, by explicit masks."""
    n_total = c[rows].sum()
    objective = single_objective if single else complete_objective
    value = objective(g[rows].sum(axis=0), h[rows].sum(axis=0), c[rows].sum(), n_total,
                      reg_lambda)
    return _refine_greedily(
        X_binned, rows, value, n_bins, max_len,
        lambda rows: best_per_feature_multi(X_binned, rows, g, h, c, n_bins, is_nominal,
                                            n_total, reg_lambda, single=single),
        price=price)


# -- orthogonal objective (rulebook._orthogonal_kernels) ----------------------
def shortest_equivalent(problem, props, rows, conditions, searched):
    """Greedy set cover over the implied propositions, then redundant ones
    dropped (last first), with boolean masks: the twin of
    ``rulebook.optimal.shortest_equivalent``. ``conditions[p]`` is
    proposition ``p``'s ``(feature, op, bin)``; ``searched`` those that may
    be chosen."""
    if len(props) <= 1:
        return tuple(props)
    X, n_bins = problem.X_binned, problem.n_bins
    mask = {p: condition_mask(X, *conditions[p], n_bins) for p in searched}
    for p in props:
        mask.setdefault(p, condition_mask(X, *conditions[p], n_bins))
    root = np.zeros(len(X), bool)
    root[problem.rows] = True
    extent = np.zeros(len(X), bool)
    extent[rows] = True
    implied = [p for p in searched if mask[p][extent].all()]
    outside, chosen = root & ~extent, []
    while outside.any() and len(chosen) < len(props) - 1 and implied:
        p = min(implied, key=lambda q: (np.sum(outside & mask[q]), q))
        chosen.append(p)
        outside &= mask[p]
    query = list(props) if outside.any() else sorted(chosen)
    columns = lambda ps: len({conditions[p][0] for p in ps})  # noqa: E731
    if columns(query) > columns(props):
        query = list(props)  # fewer propositions but more conditions
    for p in reversed(list(query)):
        rest = [q for q in query if q != p]
        kept = root.copy()
        for q in rest:
            kept &= mask[q]
        if kept.sum() == len(rows):
            query = rest
    return tuple(query)


def channel_histograms(X_binned, rows, W, n_bins):
    """Channel sums per feature and bin with np.add.at."""
    d = X_binned.shape[1]
    hist = np.zeros((d, int(n_bins.max()) + 1, W.shape[1]))
    for j in range(d):
        np.add.at(hist[j], X_binned[rows, j].astype(np.int64), W[rows])
    return hist


def orthogonal_objective(g, s, Q, q, epsilon, redundant=1e-10, ridge=0.0):
    """``|g_perp^T q| / (||q_perp|| + epsilon)`` by a direct projection.

    ``Q`` (n, t) holds the selected query vectors (intercept included) as
    columns, not a basis; projections use the weighted Gram matrix through
    ``lstsq``, independent of Gram-Schmidt. ``g`` is the weighted gradient
    ``s * d``; inner products are ``<u, v> = sum s u v``. With ``ridge``
    the denominator is ``sqrt(||q_perp||^2 + ridge) + epsilon``
    (``OrthogonalLearner(ridge="reg_lambda")``).
    """
    S = np.diag(s)
    def perp(v):
        coef = np.linalg.lstsq(Q.T @ S @ Q, Q.T @ S @ v, rcond=None)[0]
        return v - Q @ coef
    d = np.divide(g, s, out=np.zeros_like(g), where=s > 0)
    q_perp, d_perp = perp(q.astype(float)), perp(d)
    c_sum = float(s @ q)
    perp_sq = float(q_perp @ S @ q_perp)
    if c_sum <= 0 or perp_sq <= redundant * c_sum:
        return 0.0
    return abs(float(d_perp @ S @ q)) / (np.sqrt(perp_sq + ridge) + epsilon)


def prefix_objectives(g, s, Q, order, epsilon, ridge=0.0):
    """Objective of every prefix of ``order``, one projection each."""
    q = np.zeros(len(g))
    out = []
    for r in order:
        q[r] = 1.0
        out.append(orthogonal_objective(g, s, Q, q, epsilon, ridge=ridge))
    return np.array(out)


def all_values(X_binned, rows, n_bins, is_nominal, value_of):
    """Every proposition's value in ``scan_all``'s layout (d, 2 * B).

    ``value_of(sub_rows)`` scores an extent; strict, non-empty sub-extents
    only, else -inf.
    """
    d = X_binned.shape[1]
    out = np.full((d, 2 * (int(n_bins.max()) + 1)), -np.inf)
    position = {}
    for feature, op, bin_index in candidates(n_bins, is_nominal):
        p = position.get(feature, 0)
        position[feature] = p + 1
        sub = rows[condition_mask(X_binned, feature, op, bin_index, n_bins)[rows]]
        if 0 < len(sub) < len(rows):
            out[feature, p] = value_of(sub)
    return out


# -- orthogonal branch and bound (rulebook._orthogonal_bnb_kernels) ----------
class _Expansion:
    """A node whose refinements are generated lazily, best value first."""

    __slots__ = ("bound", "next", "node", "order")

    def __init__(self, node, bound, values):
        flat = values.ravel()
        valid = np.flatnonzero(np.isfinite(flat))
        self.node, self.bound = node, bound
        self.order = valid[np.argsort(-flat[valid], kind="stable")]
        self.next = 0


def orthogonal_branch_and_bound(problem, bound="prefix_greedy", max_nodes=None):
    """Pure-Python best-first branch and bound of the orthogonal search.

    The reference of ``rulebook.orthogonal.branch_and_bound`` (compiled in
    ``rulebook._orthogonal_bnb_kernels``): the implementation it replaced,
    kept verbatim but for the hash of extents (Python's hash of the row
    bytes here). Returns ``(conditions, value, rows, stats)``.
    """
    base = problem.base
    rows = base.rows
    order = rows[np.argsort(problem.W[rows, orthogonal_kernels.G], kind="stable")]
    root = _Node((), rows, problem.value(rows), problem.histograms(rows))
    best = root
    queue, counter, seen = [], itertools.count(), {_key(rows): [(0, 0)]}
    stats = {"n_nodes": 0, "n_pruned": 0, "n_refinements": 0, "budget_exhausted": False}
    limit = _depth_limit(problem)

    def expand(node):
        if len(node.rows) <= 1:
            return
        bnd = np.inf if bound == "none" else problem.prefix_bound(node.rows, order)
        if not bnd > best.value:
            stats["n_pruned"] += 1
            return
        stats["n_nodes"] += 1
        values = problem.values(node.histograms(problem), len(node.rows))
        if node.conditions:  # tail augmentation: features >= the last one
            last = node.conditions[-1][0]
            values[:last] = -np.inf
            if len({c[0] for c in node.conditions}) >= limit:
                values[last + 1:] = -np.inf  # at the limit: the last column only
        stats["n_refinements"] += int(np.isfinite(values).sum())
        expansion = _Expansion(node, bnd, values)
        _push(queue, expansion, values, counter)

    expand(root)
    while queue:
        if max_nodes is not None and stats["n_nodes"] >= max_nodes:
            stats["budget_exhausted"] = True
            break
        _, _, _, expansion, values = heapq.heappop(queue)
        if not expansion.bound > best.value:
            stats["n_pruned"] += 1 + len(expansion.order) - expansion.next
            continue
        k = expansion.order[expansion.next]
        expansion.next += 1
        _push(queue, expansion, values, counter)
        child = _child(problem, expansion.node, k, values.ravel()[k])
        if _dominated(seen, child):
            continue
        if child.value > best.value:
            best = child
        expand(child)
    return best.conditions, best.value, best.rows, stats


def _dominated(seen, node):
    """Whether a node with the same extent, whose subtree contains this
    node's, was already reached; records the node otherwise.

    A node's subtree is its extent refined by conditions on features at or
    after its last condition's feature, up to the length limit in columns;
    so an earlier node with the same extent, a last feature f no later and
    columns d with d + (f != last) <= columns covers it (refining ``last``
    costs it a column). Deduplicating on the extent alone would lose
    queries (a later path may allow earlier features).
    """
    last, cols = node.conditions[-1][0], len({c[0] for c in node.conditions})
    entries = seen.setdefault(_key(node.rows), [])
    if any(f <= last and d + (f != last) <= cols for f, d in entries):
        return True
    entries.append((last, cols))
    return False


def _push(queue, expansion, values, counter):
    if expansion.next < len(expansion.order):
        value = values.ravel()[expansion.order[expansion.next]]
        heapq.heappush(queue, (-expansion.bound, -value, next(counter), expansion, values))


def value_with_rounding_error(problem, rows):
    """The objective of ``rows`` from direct sums, and how far the search's
    value may lie from it by rounding alone.

    The search sums statistics per bin and takes complements (parent minus
    sibling), so its ``G`` and ``H`` may differ from the direct sums by about
    ``n * eps * sum |g|`` over the parent's rows. Where ``H`` nearly cancels
    (a Hessian of 1e-14 beside one of 1) that moves the value by far more
    than a relative 1e-9; the tolerance is the value's change under that
    perturbation, and it is tiny wherever the sums are well conditioned.
    """
    name = NAMES[problem.objective]
    parent = problem.rows
    sums = [problem.g[rows].sum(), problem.h[rows].sum(), problem.c[rows].sum()]
    value = objective_value(name, *sums, problem.n_total, problem.reg_lambda)
    slack = [4 * len(parent) * np.finfo(float).eps * np.abs(s[parent]).sum()
             for s in (problem.g, problem.h)]
    if name == "second_order" and sums[1] - slack[1] + problem.reg_lambda <= 0:
        # The denominator may vanish by rounding alone (reg_lambda = 0, H
        # within the slack of 0): the value is then unbounded, and a search
        # may report any value its own rounding of H gives (found by
        # hypothesis: H = 2e-20 beside 1 in the parent, reported from 5e-154).
        return value, np.inf
    moved = [objective_value(name, sums[0] + sg * slack[0], sums[1] + sh * slack[1],
                                   sums[2], problem.n_total, problem.reg_lambda)
             for sg in (-1, 1) for sh in (-1, 1)]
    return value, 1e-12 + max(abs(m - value) for m in moved)
