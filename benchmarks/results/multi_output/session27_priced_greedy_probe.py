"""Probe: greedy refinement stops unless a step's gain exceeds factor x noise level
(the optimal learner's per-threshold price). 20 seeds, vs BOOMER cache of session 21."""
import sys, json, os, time, argparse, warnings
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, "/work/probe/s21/acc")
import numpy as np
import rulebook.greedy as G
from rulebook import pair_search, multi_output_search
from rulebook.search import SearchResult

FACTOR = float(os.environ.get("GC_FACTOR", "0"))
FIRST = os.environ.get("GC_FIRST", "free")

def priced_greedy(problem, max_refinements=None):
    multi = hasattr(problem, "single_head")
    cost = (multi_output_search if multi else pair_search).condition_cost_of(problem, FACTOR) if FACTOR > 0 else 0.0
    rows = problem.rows
    value = problem.extent_value(rows)
    conditions = []
    n_scored = n_steps = 0
    limit = problem.max_rule_length or np.inf
    hist, owned = problem.search_histograms(rows)
    used = np.zeros(len(problem.n_bins), bool)
    n_used = 0
    steps = np.inf if max_refinements is None else max_refinements
    while len(rows) > 1 and len(conditions) < steps:
        values, ops, bins = problem.best_refinements(hist, len(rows))
        n_steps += 1
        if n_used >= limit:
            values = np.where(used, values, -np.inf)
        j = G._first_best(values)
        price = 0.0 if (not conditions and FIRST == "free") else cost
        if not values[j] > value + price:
            break
        condition = (j, int(ops[j]), int(bins[j]))
        conditions.append(condition)
        n_used += not used[j]
        used[j] = True
        rows, removed = problem.split(rows, condition)
        hist = problem.refined_histograms(hist, rows, removed, owned,
                                          np.flatnonzero(used) if n_used >= limit else None)
        owned = True
        value = float(values[j])
    return SearchResult(tuple(conditions), value, rows, {"n_refinements": n_scored, "n_steps": n_steps})

if FACTOR > 0:
    G.greedy_search = priced_greedy

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
