"""rulebook._box_kernels.box_grid against its version before session 28
(the 2-D recurrence, read from git history), on one pair of 255-bin columns with six
outputs and 593 rows (emotions' size). Prints the two times and the largest
difference of their sums (rounding: the sums are added in another order).

    NUMBA_NUM_THREADS=1 python benchmarks/results/multi_output/session28_box_grid.py

Session 28 (one thread, quiet machine), two runs: before 3.25 and 3.24 ms,
after 0.70 and 0.60 ms a grid;
largest difference 1.1e-11.
"""
import subprocess
import time
from pathlib import Path

import numpy as np
from numba import njit

from rulebook import _box_kernels

BEFORE = "2fb34d1"  # the last commit with the 2-D recurrence


def box_grid_before():
    """The kernel as it was at ``BEFORE``, read from the repository's history."""
    source = subprocess.run(["git", "show", f"{BEFORE}:rulebook/_box_kernels.py"],
                            cwd=Path(__file__).parent, check=True, capture_output=True,
                            text=True).stdout
    start = source.index("@jit\ndef box_grid(")
    end = source.index("\n\n\n", start)
    namespace = {"np": np, "jit": njit}
    exec(source[start:end], namespace)  # noqa: S102 (our own code, from our history)
    return namespace["box_grid"]


def main(n=593, K=6, B=255, repeats=200):
    rng = np.random.default_rng(0)
    xc, xf = (rng.integers(0, B, n).astype(np.int64) for _ in range(2))
    pos = np.arange(B + 1, dtype=np.int64)
    g, h = rng.normal(size=(n, K)), rng.random((n, K))
    out = {}
    for name, kernel in (("before", box_grid_before()), ("after", _box_kernels.box_grid)):
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
