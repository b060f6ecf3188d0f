"""Held-out check of condition_cost: tasks the factor was not chosen on (other targets of
shared tables, labels of the multi-output sets). greedy, optimal cost 0, optimal cost 0.25;
5 random 80/20 splits, 10 rules, defaults; mean test score over 1..10 rules, complexity."""
import sys, time, warnings
import numpy as np, pandas as pd
from sklearn.metrics import roc_auc_score, r2_score
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit
from rulebook import RuleBoostingClassifier, RuleBoostingRegressor, OptimalLearner
from rulebook.datasets import load_multi_output
D = "/work/shared/datasets/"
warnings.simplefilter("ignore")

def tasks():
    a = pd.read_csv(D + "adult.csv").drop(columns=["output"]).sample(8000, random_state=0).reset_index(drop=True)
    yield "adult_sex", a.drop(columns=["sex"]), a["sex"] == 1, "bin"
    i = pd.read_csv(D + "insurance.csv")
    yield "insurance_smoker", i.drop(columns=["smoker"]), i["smoker"] == "yes", "bin"
    m = pd.read_csv(D + "mobile_prices.csv")
    yield "mobile_ram", m.drop(columns=["ram", "price_range"]), m["ram"].astype(float), "reg"
    w = pd.read_csv(D + "world_happiness_2019.csv")
    yield "happiness_life", w.drop(columns=["Healthy life expectancy", "Overall rank", "Country or region"]), w["Healthy life expectancy"], "reg"
    wi = pd.read_csv(D + "wine.csv")
    yield "wine_alcohol", wi.drop(columns=["alcohol", "y"]), wi["alcohol"], "reg"
    b = pd.read_csv(D + "boston.csv")
    yield "boston_nox", b.drop(columns=["NOX", "MEDV"]), b["NOX"], "reg"
    X, Y = load_multi_output("emotions")
    yield "emotions_label0", X, Y.iloc[:, 0].astype(int) == 1, "bin"
    yield "emotions_label3", X, Y.iloc[:, 3].astype(int) == 1, "bin"

# Session 25: python heldout.py LEARNERS OUT.csv [TASK ...], LEARNERS comma-separated keys of
# CHOICES; run as "optimal heldout_new.csv" (6 tasks), "f05,f1 heldout_f.csv" (4) and
# "optimal,f05 heldout_rest.csv" (4), from a tree with the per-threshold cost.
CHOICES = {"greedy": "greedy", "optimal": "optimal", "optimal_c0": OptimalLearner(condition_cost=0),
           "f05": OptimalLearner(condition_cost=0.5), "f1": OptimalLearner(condition_cost=1.0)}
learners = {key: CHOICES[key] for key in sys.argv[1].split(",")}
OUT = sys.argv[2]
names = sys.argv[3:] or None
rows = []
for name, X, y, kind in tasks():
    if names and name not in names: continue
    y = pd.Series(np.asarray(y))
    sp = (StratifiedShuffleSplit if kind == "bin" else ShuffleSplit)(n_splits=5, test_size=0.2, random_state=0)
    for s, (tr, te) in enumerate(sp.split(X, y)):
        for lname, lr in learners.items():
            Est = RuleBoostingClassifier if kind == "bin" else RuleBoostingRegressor
            t = time.time()
            m = Est(n_rules=10, learner=lr, verbose=0).fit(X.iloc[tr], y.iloc[tr])
            fit_s = time.time() - t
            scores = []
            for k, est in enumerate(m.staged_predict_proba(X.iloc[te]) if kind == "bin" else m.staged_predict(X.iloc[te])):
                scores.append(roc_auc_score(y.iloc[te], est[:, 1]) if kind == "bin" else r2_score(y.iloc[te], est))
            rows.append(dict(task=name, split=s, learner=lname, mean=np.mean(scores[:10]), cx=m.ensemble_.complexity, fit_s=fit_s, cert=float(np.mean(m.history_["certified"].iloc[1:].astype(float))) if "certified" in m.history_ else np.nan))
    df = pd.DataFrame(rows)
    print(df[df.task == name].groupby("learner")[["mean", "cx", "fit_s", "cert"]].mean().round(4).to_string(), "\n", name, flush=True)
df = pd.DataFrame(rows); df.to_csv(OUT, index=False)
print(df.groupby(["task", "learner"])[["mean", "cx", "fit_s"]].mean().unstack("learner").round(4).to_string())
