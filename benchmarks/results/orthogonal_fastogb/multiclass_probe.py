"""Multi-class (several outputs): the orthogonal learner with one option at two
values, 10 rules, 5 splits as bench_multiclass (test 1/3, stratified):
accuracy, log loss, complexity, fit time; the paired log-loss difference.

    python multiclass_probe.py OPTION BASE OTHER

The runs kept here (sessions 22-23; their outputs beside this script):

    python multiclass_probe.py length_penalty none complexity   # session22_multiclass_probe.txt
    python multiclass_probe.py ridge none reg_lambda            # session23_multiclass_probe.txt
    python multiclass_probe.py strategy branch_and_bound beam   # session23_beam_multiclass.txt
"""
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split

from rulebook import OrthogonalLearner, RuleBoostingClassifier

option, base, other = sys.argv[1:4]
warnings.simplefilter("ignore", UserWarning)
rows = []
for name, loader in {"iris": load_iris, "wine": load_wine, "digits": load_digits}.items():
    X, y = loader(return_X_y=True, as_frame=True)
    for head in ("complete", "single"):
        for value in (base, other):
            make = lambda: RuleBoostingClassifier(n_rules=10, verbose=0, head=head,
                                                  learner=OrthogonalLearner(**{option: value}))
            make().fit(X, y)
            for seed in range(5):
                Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=1 / 3, random_state=seed,
                                                      stratify=y)
                t = time.perf_counter()
                m = make().fit(Xtr, ytr)
                t = time.perf_counter() - t
                rows.append({"dataset": name, "head": head, option: value, "seed": seed,
                             "fit_s": t, "accuracy": accuracy_score(yte, m.predict(Xte)),
                             "log_loss": log_loss(yte, m.predict_proba(Xte), labels=m.classes_),
                             "complexity": m.ensemble_.complexity})
f = pd.DataFrame(rows)
print(f.groupby(["dataset", "head", option], sort=False)[
    ["fit_s", "accuracy", "log_loss", "complexity"]].mean().round(3).to_string())
w = f.pivot_table(index=["dataset", "head", "seed"], columns=option, values="log_loss")
d = (w[other] - w[base]).groupby(level=[0, 1], sort=False)
print(f"\nlog loss, {other} - {base}: mean ± SE")
print(pd.DataFrame({"mean": d.mean(), "se": d.std(ddof=1) / np.sqrt(d.count())}).round(4).to_string())
