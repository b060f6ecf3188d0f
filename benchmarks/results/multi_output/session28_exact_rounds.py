"""Does a round stopped at the 2 s limit already hold the exact optimum?
Fit 10 optimal rules on emotions (defaults, one thread); search each round's
problem again with no practical limit; compare the objectives.

Session 28, at b8701e6, one thread each, both heads side by side on the
two cores (nice 5, nothing else running):

    NUMBA_NUM_THREADS=1 python session28_exact_rounds.py single 10
    NUMBA_NUM_THREADS=1 python session28_exact_rounds.py complete 10

``session28_exact_rounds.jsonl``: the 10 single-head rounds, and the first
4 complete-head rounds (the run was stopped there for time: a round took
59-260 s). ``same_query`` compares binned conditions, which the limited
round's shortening may have rewritten: read the values.
"""
import json
import sys
import time
import warnings

import rulebook
from rulebook import multi_output_search as mos
from rulebook.datasets import load_emotions

head = sys.argv[1]
n_rules = int(sys.argv[2]) if len(sys.argv) > 2 else 10
seen = []
class Rec(rulebook.OptimalLearner):
    def search(self, problem):
        result = super().search(problem)
        seen.append((problem, result))
        return result
X, Y = load_emotions()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    model = rulebook.RuleBoostingClassifier(n_rules=n_rules, head=head, learner=Rec(), verbose=0).fit(X, Y)
h = model.history_
for t, (problem, result) in enumerate(seen, start=1):
    cost = mos.condition_cost_of(problem, 0.25)
    start = time.perf_counter()
    cond, value, stats = mos.multi_output_search(problem, deadline=start + 900, condition_cost=cost)
    print(json.dumps(dict(head=head, round=t,  # noqa: C408 limited_value=float(h["objective"].iloc[t]), limited_certified=bool(h["certified"].iloc[t]),
                          limited_ratio=float(h["certified_ratio"].iloc[t]),
                          exact_value=float(value), exact_certified=bool(stats["certified"]), seconds=round(time.perf_counter() - start, 1),
                          same_query=sorted(map(tuple, cond)) == sorted(map(tuple, getattr(result, "conditions", []))))), flush=True)
