"""Session 25: the noise level per condition of the multi-output search
(rulebook.multi_output_search.condition_cost_of) against what noise reaches.

On residuals without signal (Gaussian gradients, unit Hessians, 1,000 rows,
8 numeric columns of 32 bins, P = 496 propositions; 6 draws), the exact
search's largest objective with one condition (S1) and with at most two
(S2), in units of max_k phi_k / n, beside the level (the same units) and
the ratio (S2 - S1) / level. Run: python session25_noise_probe.py
"""
import numpy as np

from rulebook.multi_output_search import condition_cost_of, multi_output_search
from rulebook.search import MultiOutputProblem


def problem(seed, n, d, nb, K, single, scales, limit):
    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.integers(0, nb, (n, d)).astype(np.uint16))
    g = rng.normal(size=(n, K)) * scales
    g -= g.mean(axis=0)
    return MultiOutputProblem(X_binned=X, n_bins=np.full(d, nb), is_nominal=np.zeros(d, bool),
                              g=np.ascontiguousarray(g), h=np.ones((n, K)), c=np.ones(n),
                              rows=np.arange(n), reg_lambda=1e-6, objective=2,
                              max_rule_length=limit, single_head=single)


n, d, nb = 1000, 8, 32
print(f"{n} rows, {d} columns of {nb} bins, P = {d * 2 * (nb - 1)}, ln P = "
      f"{np.log(d * 2 * (nb - 1)):.2f}; 6 draws; units max_k phi_k / n")
print(f"{'head':9s} {'K':>3s} {'phi spread':>10s} {'S1':>7s} {'S2':>7s} {'S2-S1':>7s} "
      f"{'level':>7s} {'ratio':>6s}")
for single in (True, False):
    for K, spread in [(1, 1), (3, 1), (6, 1), (20, 1), (6, 16), (20, 16)]:
        scales = np.sqrt(np.geomspace(1, spread, K))  # phi_k from 1 to spread
        s1, s2, level = [], [], []
        for rep in range(6):
            one = problem(rep, n, d, nb, K, single, scales, 1)
            two = problem(rep, n, d, nb, K, single, scales, 2)
            unit = ((one.g ** 2).sum(0) / one.h.sum(0)).max() / n
            s1.append(multi_output_search(one)[1] / unit)
            s2.append(multi_output_search(two)[1] / unit)
            level.append(condition_cost_of(two, 1.0) / unit)
        rise = np.mean(s2) - np.mean(s1)
        print(f"{'single' if single else 'complete':9s} {K:3d} {spread:10d} {np.mean(s1):7.2f} "
              f"{np.mean(s2):7.2f} {rise:7.2f} {np.mean(level):7.2f} {rise / np.mean(level):6.2f}",
              flush=True)
