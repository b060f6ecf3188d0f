"""Multi-output optimal: nodes and CPU per round to certify (time_limit=None or given),
one thread; the first rounds of a fit on the whole dataset."""
import sys, time, json, warnings
import numpy as np
warnings.simplefilter("ignore")
from rulebook import RuleBoostingClassifier, RuleBoostingRegressor, OptimalLearner
from rulebook.datasets import load_multi_output
from sklearn.datasets import load_iris, load_wine
import pandas as pd
name, rules, limit = sys.argv[1], int(sys.argv[2]), (None if sys.argv[3] == "none" else float(sys.argv[3]))
head = sys.argv[4] if len(sys.argv) > 4 else "complete"
if name in ("iris", "wine"):
    d = (load_iris if name == "iris" else load_wine)(as_frame=True); X, y = d.data, d.target
    est = RuleBoostingClassifier
elif name == "atp7d":
    X, y = load_multi_output(name); est = RuleBoostingRegressor
else:
    X, y = load_multi_output(name); y = y.astype(int); est = RuleBoostingClassifier
est(n_rules=1, learner=OptimalLearner(time_limit=None, n_jobs=1), head=head, verbose=0).fit(X.iloc[::4], y.iloc[::4])
t = time.process_time()
m = est(n_rules=rules, learner=OptimalLearner(time_limit=limit, n_jobs=1), head=head, verbose=0).fit(X, y)
cpu = time.process_time() - t
h = m.history_.iloc[1:]
print(json.dumps(dict(name=name, head=head, cpu=round(cpu, 2), nodes=[int(x) for x in h["nodes_expanded"]],
                      certified=[bool(x) for x in h["certified"]], ratio=[round(float(x), 3) for x in h["certified_ratio"]],
                      objective=[float(x) for x in h["objective"]])), flush=True)
