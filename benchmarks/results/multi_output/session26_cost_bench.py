"""bench_multi_output's splits and measures for the optimal learner at several
condition_cost factors (and greedy), one JSON line per fit with the fit time,
the certified rounds and the rules' conditions.

    python mo_cost_bench.py --variants greedy 0 0.25 --rules 10 --out file.jsonl
"""
import argparse, json, os, sys, time, warnings
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, "benchmarks")
import numpy as np
from bench_multi_output import DATASETS, DEFAULT_DATA_HOME, HEADS, _rows, scores, split_indices

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", nargs="+", default=["greedy", "0", "0.25"])
    ap.add_argument("--rules", type=int, default=10)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--datasets", nargs="+", default=["emotions", "yeast", "atp7d", "enron"])
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    from rulebook import OptimalLearner, RuleBoostingClassifier, RuleBoostingRegressor
    from rulebook.datasets import load_multi_output
    out = open(a.out, "a")
    for name in a.datasets:
        task = DATASETS[name]
        X, Y = load_multi_output(name, data_home=str(DEFAULT_DATA_HOME), sparse=name == "enron")
        est = RuleBoostingClassifier if task == "multi-label" else RuleBoostingRegressor
        for variant in a.variants:
            learner = "greedy" if variant == "greedy" else OptimalLearner(
                condition_cost="auto" if variant == "auto" else float(variant))
            for head in HEADS:
                make = lambda: est(n_rules=a.rules, head=head, learner=learner, verbose=0)
                warm, _ = split_indices(X.shape[0], 0)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    # Compiling and cache loading only: two rules suffice.
                    est(n_rules=2, head=head, learner=learner, verbose=0).fit(
                        _rows(X, warm), Y.iloc[warm])
                for seed in range(a.splits):
                    train, test = split_indices(X.shape[0], seed)
                    Xt, Yt = _rows(X, train), Y.iloc[train]
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always", UserWarning)
                        t0 = time.perf_counter()
                        m = make().fit(Xt, Yt)
                        sec = time.perf_counter() - t0
                    h = m.history_.iloc[1:]
                    row = {"dataset": name, "variant": variant, "head": head, "rules": a.rules,
                           "seed": seed, "fit_s": sec, "n_rules_fitted": len(h),
                           "conditions": int(h["length"].sum()),
                           "pairs": int((h["length"] >= 2).sum()),
                           "stopped": any("stop" in str(w.message).lower() for w in caught),
                           **scores(task, Y.to_numpy()[test], m.predict(_rows(X, test)))}
                    if "certified" in h:
                        row["certified"] = int(h["certified"].sum())
                        row["certified_ratio_mean"] = float(h["certified_ratio"].mean())
                        row["condition_cost_mean"] = float(h["condition_cost"].mean()) if "condition_cost" in h else 0.0
                    out.write(json.dumps(row) + "\n"); out.flush()
                    print(name, variant, head, seed, f"{sec:.1f}s", row.get("certified"), flush=True)

main()
