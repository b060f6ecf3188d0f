"""bench_multiclass's splits: the optimal learner at condition_cost 0 and 0.25 (and greedy), 10 rules, both heads."""
import sys, time, warnings, json, os
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
import numpy as np
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split
from rulebook import RuleBoostingClassifier, OptimalLearner
DATASETS = {"iris": load_iris, "wine": load_wine, "digits": load_digits}
out = open(sys.argv[1], "a")
names = sys.argv[2:] or list(DATASETS)
for name in names:
    X, y = DATASETS[name](return_X_y=True, as_frame=True)
    for head in ("complete", "single"):
        for variant in ("greedy", 0.0, 0.25):
            learner = "greedy" if variant == "greedy" else OptimalLearner(condition_cost=variant)
            for seed in range(5):
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, random_state=seed, stratify=y)
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                m = RuleBoostingClassifier(n_rules=10, learner=learner, head=head, verbose=0).fit(Xtr, ytr)
                sec = time.perf_counter() - t
                p = m.predict_proba(Xte)
                h = m.history_.iloc[1:]
                row = dict(dataset=name, head=head, variant=str(variant), seed=seed, fit_s=sec,
                           accuracy=accuracy_score(yte, m.classes_[p.argmax(1)]), log_loss=log_loss(yte, p, labels=m.classes_),
                           rules=len(h), conditions=int(h["length"].sum()),
                           certified=int(h["certified"].sum()) if "certified" in h else None)
                out.write(json.dumps(row) + "\n"); out.flush()
                print(row, flush=True)
