"""How long the exact search of emotions' first complete-head round takes to
certify on one thread, with no time limit (default cost 0.25).

Session 28: ``NUMBA_NUM_THREADS=1 python session28_certify_first_round.py
complete 1500`` (then ``single``); output in
``session28_certify_first_round.txt``.
"""
import sys
import time
import warnings

import rulebook
from rulebook import multi_output_search as mos
from rulebook.datasets import load_emotions

head = sys.argv[1] if len(sys.argv) > 1 else "complete"
limit = float(sys.argv[2]) if len(sys.argv) > 2 else 1800.0
seen = []
class Rec(rulebook.OptimalLearner):
    def search(self, problem):
        seen.append(problem)
        return super().search(problem)
X, Y = load_emotions()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    rulebook.RuleBoostingClassifier(n_rules=1, head=head, learner=Rec(), verbose=0).fit(X, Y)
problem = seen[0]
cost = mos.condition_cost_of(problem, 0.25)
t = time.perf_counter()
cond, value, stats = mos.multi_output_search(problem, deadline=t + limit, condition_cost=cost)
print(head, "cost", cost, "value", value, "seconds", round(time.perf_counter() - t, 1),
      {k: stats[k] for k in ("certified", "certified_ratio", "pairs_searched", "pairs", "nodes_expanded", "upper_bound") if k in stats}, flush=True)
