import sys, time, warnings
import numpy as np, pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import ShuffleSplit
from rulebook import RuleBoostingRegressor
warnings.simplefilter("ignore")
wi = pd.read_csv("/work/shared/datasets/wine.csv")
X, y = wi.drop(columns=["alcohol", "y"]), wi["alcohol"]
tr, te = next(ShuffleSplit(n_splits=5, test_size=0.2, random_state=0).split(X, y))
for lr in ["greedy", "optimal"]:
    m = RuleBoostingRegressor(n_rules=10, learner=lr).fit(X.iloc[tr], y.iloc[tr])
    print(lr, [round(r2_score(y.iloc[te], p), 3) for p in m.staged_predict(X.iloc[te])])
    print(m.ensemble_)
