import sys
import pandas as pd
f = pd.read_csv(sys.argv[1])
learners = ["orthogonal", "orthogonal_complexity", "orthogonal_greedy_complexity", "orthogonal_greedy"]
counts = {l: 0 for l in learners}
for name, part in f.groupby("dataset", sort=False):
    w = part.pivot(index="split", columns="learner", values="test_risk")
    t = part.pivot(index="split", columns="learner", values="fit_time")
    if "fastogb_ogb" not in w or w["fastogb_ogb"].notna().sum() == 0:
        print(f"{name:18s} fastogb: no result"); continue
    common = w["fastogb_ogb"].notna()
    fo = w.loc[common, "fastogb_ogb"].mean()
    line = f"{name:18s} n={common.sum()} fastogb {fo:.3f}"
    for l in learners:
        r = w.loc[common, l].mean()
        ok = r <= fo * (1 + 1e-9) and t.loc[common, l].median() < t.loc[common, "fastogb_ogb"].median()
        counts[l] += ok
        line += f" | {l[11:] or 'default'} {r:.3f}{'*' if ok else ' '}"
    print(line)
print("faster at equal or lower risk (of 24; no fastogb result counts against):", counts)
