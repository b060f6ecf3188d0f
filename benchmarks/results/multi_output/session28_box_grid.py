"""rulebook._box_kernels.box_grid against its version before session 28
(the 2-D recurrence, copied here), on one pair of 255-bin columns with six
outputs and 593 rows (emotions' size). Prints the two times and the largest
difference of their sums (rounding: the sums are added in another order).

    NUMBA_NUM_THREADS=1 python benchmarks/results/multi_output/session28_box_grid.py

Session 28 (one thread, quiet machine): before 3.0 ms, after 0.63 ms a grid;
largest difference 1.1e-11.
"""
import time

import numpy as np
from numba import njit

from rulebook import _box_kernels


@njit
def box_grid_before(xc, xf, pos_c, pos_f, Bc, Bf, g, h, S, ratio_max):
    K = g.shape[1]
    S[:] = 0.0
    ratio_max[:] = 0.0
    for r in range(xc.shape[0]):
        a, b = xc[r], xf[r]
        if a < Bc and b < Bf:
            i, j = pos_c[a] + 1, pos_f[b] + 1
            for k in range(K):
                S[k, i, j] += g[r, k]
                S[K + k, i, j] += h[r, k]
    for i in range(1, Bc + 1):
        for j in range(1, Bf + 1):
            for k in range(K):
                cell = S[k, i, j]
                S[2 * K + k, i, j] = max(cell, 0.0)
                S[3 * K + k, i, j] = min(cell, 0.0)
                if cell != 0.0:
                    cell_h = S[K + k, i, j]
                    ratio = abs(cell) / cell_h if cell_h > 0.0 else np.inf
                    side = 0 if cell > 0.0 else 1
                    ratio_max[side, k, i - 1] = max(ratio_max[side, k, i - 1], ratio)
    for q in range(4 * K):
        for i in range(1, Bc + 1):
            for j in range(1, Bf + 1):
                S[q, i, j] += S[q, i - 1, j] + S[q, i, j - 1] - S[q, i - 1, j - 1]


def main(n=593, K=6, B=255, repeats=200):
    rng = np.random.default_rng(0)
    xc, xf = (rng.integers(0, B, n).astype(np.int64) for _ in range(2))
    pos = np.arange(B + 1, dtype=np.int64)
    g, h = rng.normal(size=(n, K)), rng.random((n, K))
    out = {}
    for name, kernel in (("before", box_grid_before), ("after", _box_kernels.box_grid)):
        S, ratio = np.empty((4 * K, B + 1, B + 1)), np.empty((2, K, B))
        kernel(xc, xf, pos, pos, B, B, g, h, S, ratio)  # compile
        start = time.perf_counter()
        for _ in range(repeats):
            kernel(xc, xf, pos, pos, B, B, g, h, S, ratio)
        print(f"{name:7s} {(time.perf_counter() - start) / repeats * 1e3:.2f} ms a grid")
        out[name] = (S, ratio)
    print("largest difference", float(np.abs(out["before"][0] - out["after"][0]).max()),
          "ratios equal", bool(np.array_equal(out["before"][1], out["after"][1])))


if __name__ == "__main__":
    main()
