"""Nodes and search seconds per round to certify (time_limit=None, one thread), first split's
training rows, 5 rules: the pair search's work, load-independent in nodes."""
import sys, time, warnings, json
sys.path.insert(0, "/work/main/benchmarks")
import numpy as np
warnings.simplefilter("ignore")
import bench_defaults as bd
from rulebook import OptimalLearner
from rulebook.datasets import load_multi_output
name, rules = sys.argv[1], int(sys.argv[2])
if name.startswith("emotions"):
    X, Y = load_multi_output("emotions")
    case = bd.Case(name, X, (Y.iloc[:, int(name[-1])].astype(int) == 1).astype(np.int64).to_numpy(), "binary", None)
else:
    case = bd.load_case(name, None, 0)
train, test = bd.make_splits(case, 5, 0)[0]
est = bd.make_estimator(case, OptimalLearner(time_limit=None, n_jobs=1), rules)
bd.make_estimator(case, OptimalLearner(time_limit=None, n_jobs=1), 1).fit(case.X.iloc[train[:60]], case.y[train[:60]])
t = time.process_time()
m = est.fit(case.X.iloc[train], case.y[train])
cpu = time.process_time() - t
h = m.history_.iloc[1:]
print(json.dumps(dict(name=name, cpu=round(cpu, 3), nodes=[int(x) for x in h["nodes_expanded"]], search=[round(float(x), 3) for x in h["search_time"]], objective=[float(x) for x in h["objective"]], rules=[str(r) for r in m.ensemble_.rules][:0])), flush=True)
