"""Numba kernels of the exact (branch-and-bound) rule search.

Propositions are numbered in one fixed order, the order of the greedy
kernels' scan (per feature ascending: numeric ``<= k`` for ``k = 0..nb-2``
then ``> k`` for ``k = nb-2..0``; nominal ``== k`` and, with three or more
categories, ``!= k``). Three arrays ``prop_feature``, ``prop_op``,
``prop_bin`` describe them.

An extent is an array of row indices kept in the order of the gradient
ratio ``g / h`` (descending), fixed once per search; filtering keeps that
order, so the tight bound of Theorem 3.1 is one linear pass.

Kernels:

``bound``
    The tight optimistic estimator ``max {obj(J) : J subset of I}``.
``_implies``
    Whether an extent lies inside a proposition, from its per-bin counts.

The search loop itself is in :mod:`rulebook._bnb_kernels`.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 3.1 (Theorem 3.1), Section 3.2 (eq. 3.6-3.8, Theorem 3.2) and
   Algorithm 1.
"""


from ._config import jit, jit_helper
from ._search_kernels import EQ, GT, LE
from .objectives import _objective


@jit
def bound(rows, m, g, h, c, code, n_total, reg_lambda):
    # IN: rows[:m] intp, in descending g/h order (g/c for code 1);
    #     g, h, c (n,) float64; code int; n_total, reg_lambda float.
    # Returns bnd(I) = max over all subsets J of I of obj(J) (0 for J empty).
    if m == 0:
        return 0.0
    if code == 0:
        # |G_J| is largest for J = all positive or all negative gradients.
        pos, neg = 0.0, 0.0
        for i in range(m):
            gi = g[rows[i]]
            if gi > 0.0:
                pos += gi
            elif gi < 0.0:
                neg -= gi
        return max(pos, neg)
    # Code 1 maximises |G| / sqrt(C), a monotone function of G^2 / C: the
    # second-order objective with c in place of h and lambda = 0.
    lam = reg_lambda if code == 2 else 0.0
    best = 0.0
    # Theorem 3.1: an optimal subset is a prefix ending at a row with g > 0
    # (eq. 3.4) or a suffix starting at a row with g < 0 (eq. 3.5).
    sg, sh, sc = 0.0, 0.0, 0.0
    for i in range(m):
        r = rows[i]
        sg += g[r]
        sh += h[r]
        sc += c[r]
        if g[r] > 0.0:
            v = _objective(code, sg, sh, sc, n_total, lam)
            if v > best:
                best = v
    sg, sh, sc = 0.0, 0.0, 0.0
    for i in range(m - 1, -1, -1):
        r = rows[i]
        sg += g[r]
        sh += h[r]
        sc += c[r]
        if g[r] < 0.0:
            v = _objective(code, sg, sh, sc, n_total, lam)
            if v > best:
                best = v
    if code == 2 and lam == 0.0:
        best = max(best, _singletons_without_regularisation(rows, m, g, h, c, n_total))
    return best


@jit_helper
def _singletons_without_regularisation(rows, m, g, h, c, n_total):
    # The proof of Theorem 3.1 (Lemma A.1) needs lambda + H > 0 for the set
    # J minus one row. With lambda = 0 and rows of h == 0 (logistic loss
    # with saturated probabilities; zero-Hessian rows in the tests) a set of
    # such rows has H = 0 and objective 0 by convention (the rule weight is
    # undefined), yet adding one row j of h_j > 0 gives (R + g_j)^2 / h_j,
    # R the sum of the h == 0 gradients of one sign. For every set with at
    # least two rows of h > 0 the exchange argument still holds (and rows
    # of the wrong sign can be dropped), so the maximum is a prefix, a
    # suffix, or one of these "h == 0 rows plus a single row" sets.
    rp, rn, cp, cn = 0.0, 0.0, 0.0, 0.0
    for i in range(m):
        r = rows[i]
        if h[r] == 0.0:
            if g[r] > 0.0:
                rp += g[r]
                cp += c[r]
            elif g[r] < 0.0:
                rn += g[r]
                cn += c[r]
    best = 0.0
    if rp == 0.0 and rn == 0.0:
        return best  # the paper's case: singletons are dominated by prefixes
    for i in range(m):
        r = rows[i]
        if h[r] > 0.0:
            v = max(_objective(2, rp + g[r], h[r], cp + c[r], n_total, 0.0),
                    _objective(2, rn + g[r], h[r], cn + c[r], n_total, 0.0))
            if v > best:
                best = v
    return best


@jit
def _implies(counts, nb, m, lo, hi, op, k):
    # Does an extent of m > 0 rows, with per-bin counts ``counts[0..nb]``
    # (``counts[nb]`` the missing bin) and lowest / highest occupied
    # non-missing bins lo, hi, lie inside the proposition (op, k)?
    if op == EQ:
        return counts[k] == m
    if counts[nb] > 0:
        return False  # the missing bin satisfies no proposition
    if op == LE:
        return hi <= k
    if op == GT:
        return lo > k
    return counts[k] == 0  # NE
