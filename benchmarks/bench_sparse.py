"""Sparse X against its dense array: enron fitted from the CSR matrix (issue 20, item 5).

For each number of rules and head kind, the same fit twice: on enron's
sparse matrix (``load_multi_output("enron", sparse=True)``: 1,702 x 1,001,
143,090 non-zero entries) and on its dense float64 array. Printed per fit:
the peak of memory traced during the fit and the prediction on the
training rows (tracemalloc: every NumPy allocation; the input, loaded
before, is not counted and is listed apart; and, once, the peak of the
binning alone, where the two differ most), the fit time (best of
``--repeats``), and whether the two models are equal (the same rules in the
same order, the largest difference of a weight, bitwise equal predictions).
One untimed warm-up fit of each kind first (numba's compile time is not
counted)::

    python benchmarks/bench_sparse.py
    python benchmarks/bench_sparse.py --rules 10 --heads complete --learner optimal
"""

import argparse
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

DEFAULT_DATA_HOME = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "multi_output"


def fit_measured(X, Y, n_rules, head, learner, repeats):
    """``(model, best seconds, peak MB of the last fit and its predict)``."""
    from rulebook import RuleBoostingClassifier

    best, peak, model = np.inf, None, None
    for _ in range(repeats):
        tracemalloc.start()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model = RuleBoostingClassifier(n_rules=n_rules, head=head, learner=learner,
                                           verbose=0).fit(X, Y)
        best = min(best, time.perf_counter() - start)
        model.predict_proba(X)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return model, best, peak


def binning_peak(X):
    """Peak MiB traced while binning ``X`` as a fit does (its bin codes included)."""
    from rulebook._sparse_bins import is_sparse
    from rulebook._validation import as_frame, as_sparse
    from rulebook.binning import Binner

    tracemalloc.start()
    codes = Binner().fit_transform(as_sparse(X) if is_sparse(X) else as_frame(X),
                                   np.ones(X.shape[0]))
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    size = codes.nbytes / 2**20
    return peak, size


def compare(sparse_model, dense_model, X_sparse, X_dense):
    """``(same rules, largest weight difference, equal predictions)``."""
    a, b = sparse_model.ensemble_, dense_model.ensemble_
    same = [str(r.query) for r in a.rules] == [str(r.query) for r in b.rules]
    def weights(e):
        return np.array([r.weight for r in e.rules], dtype=float)

    gap = float(np.abs(weights(a) - weights(b)).max()) if same and len(a.rules) else np.nan
    equal = np.array_equal(sparse_model.predict_proba(X_sparse),
                           dense_model.predict_proba(X_dense))
    return same, gap, equal


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=str(DEFAULT_DATA_HOME))
    parser.add_argument("--rules", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--heads", nargs="+", default=["single", "complete"])
    parser.add_argument("--learner", default="greedy")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from rulebook.datasets import load_multi_output

    X_sparse, Y = load_multi_output("enron", data_home=args.data_home, sparse=True)
    X_dense = X_sparse.toarray()
    Y = Y.to_numpy()
    input_mb = {"sparse": sum(a.nbytes for a in (X_sparse.data, X_sparse.indices,
                                                  X_sparse.indptr)) / 2**20,
                "dense": X_dense.nbytes / 2**20}
    print(f"enron: {X_sparse.shape[0]} x {X_sparse.shape[1]}, {X_sparse.nnz} non-zero "
          f"({X_sparse.nnz / np.prod(X_sparse.shape):.1%}), {Y.shape[1]} labels; input "
          f"{input_mb['sparse']:.2f} MiB sparse (CSR), {input_mb['dense']:.2f} MiB dense "
          f"(float64), not counted below; learner={args.learner!r}")
    for X in (X_sparse, X_dense):  # compile outside the measurements
        fit_measured(X, Y, 2, "complete", args.learner, 1)
    for name, X in (("sparse", X_sparse), ("dense", X_dense)):
        peak, size = binning_peak(X)
        print(f"binning alone, {name}: peak {peak:.2f} MiB, the bin codes {size:.2f} MiB")
    print(f"{'rules':>5} {'head':>8} {'input':>6} {'fit s':>7} {'peak MiB':>9}  equal to dense")
    for n_rules in args.rules:
        for head in args.heads:
            models = {}
            for name, X in (("sparse", X_sparse), ("dense", X_dense)):
                model, seconds, peak = fit_measured(X, Y, n_rules, head, args.learner,
                                                    args.repeats)
                models[name] = model
                print(f"{n_rules:>5} {head:>8} {name:>6} {seconds:>7.3f} {peak:>9.2f}", end="")
                if name == "sparse":
                    print()
            same, gap, equal = compare(models["sparse"], models["dense"], X_sparse, X_dense)
            print(f"  rules {'same' if same else 'DIFFER'}, weights within {gap:.1e}, "
                  f"predictions {'bitwise equal' if equal else 'DIFFER'}")


if __name__ == "__main__":
    main()
