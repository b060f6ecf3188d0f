"""Probe: greedy refinement stops unless a step's gain exceeds factor x noise level
(the optimal learner's per-threshold price). 20 seeds, vs BOOMER cache of session 21."""
import sys, json, os, time, argparse, warnings
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, "/work/probe/s21/acc")
import numpy as np
import rulebook.greedy as G

FACTOR = float(os.environ.get("GC_FACTOR", "0"))
FIRST = os.environ.get("GC_FIRST", "free")

# The run copied greedy_search's loop with the price (first proposition free;
# GC_FIRST=priced charged it too, the gc25p tag). GreedyLearner(condition_cost=FACTOR)
# has done the same since 553acbd, so the default learner's search is patched to it.
if FACTOR > 0:
    _search = G.GreedyLearner.search

    def _priced_search(self, problem):
        priced = G.GreedyLearner(self.shorten, self.count_refinements, FACTOR)
        if FIRST == "free":
            return _search(priced, problem)
        # Every proposition priced (gc25p): stop before the first one too.
        from rulebook.search import SearchResult
        result = _search(priced, problem)
        price = priced.refinement_price(problem)
        root = problem.extent_value(problem.rows)
        if result.conditions and not G.greedy_search(problem, 1).value > root + price:
            return SearchResult((), root, problem.rows, result.stats)
        return result

    G.GreedyLearner.search = _priced_search

# session 21's probe harness (/work/probe/s21/acc/common.py): RuleBoosting*(n_rules, head,
# verbose=0, **kw) fitted on bench_multi_output.split_indices' training rows and scored by
# bench_multi_output.scores on the test rows.
from common import rulebook as run_rb
ap = argparse.ArgumentParser()
ap.add_argument("--tag", required=True)
ap.add_argument("--datasets", nargs="+", default=["emotions", "yeast", "atp7d", "enron"])
ap.add_argument("--heads", nargs="+", default=["complete", "single"])
ap.add_argument("--rules", nargs="+", type=int, default=[10, 50])
ap.add_argument("--seeds", nargs="+", type=int, default=list(range(20)))
ap.add_argument("--counted", action="store_true")
ap.add_argument("--out", default="/work/probe/s27/rb.jsonl")
a = ap.parse_args()
kw = {}
if a.counted:
    kw["learner"] = G.GreedyLearner(count_refinements=True)
warnings.simplefilter("ignore")
with open(a.out, "a") as f:
    for name in a.datasets:
        for head in a.heads:
            for rules in a.rules:
                for seed in a.seeds:
                    r = run_rb(name, rules, head, seed, **kw)
                    f.write(json.dumps(dict(tag=a.tag, name=name, head=head, rules=rules, seed=seed, **r)) + "\n"); f.flush()
        print(a.tag, name, "done", flush=True)
