"""Paired per-split differences of test risk (mean over complexities 1-50) against a base learner.

Session 22's analysis (since removed) with the base as an argument (session 23):

    python session23_analyse.py BASE SPLITS.csv [MORE.csv ...]

Per dataset: each learner's mean over the splits, its paired difference to
BASE (mean ± standard error over the splits), fastogb's mean where present;
median fit times; counts against fastogb (risk <= fastogb's and faster) and
against BASE (lower / higher by more than two standard errors).
"""
import sys

import numpy as np
import pandas as pd

base = sys.argv[1]
frame = pd.concat([pd.read_csv(f) for f in sys.argv[2:]]).drop_duplicates(
    ["dataset", "learner", "split"], keep="last")
learners = [name for name in frame.learner.unique() if name not in (base, "fastogb_ogb")]
rows = []
for name, part in frame.groupby("dataset", sort=False):
    wide = part.pivot(index="split", columns="learner", values="test_risk")
    times = part.pivot(index="split", columns="learner", values="fit_time").median()
    row = {"dataset": name, "base": wide[base].mean(),
           "fastogb": wide["fastogb_ogb"].mean() if "fastogb_ogb" in wide else np.nan,
           "fo_splits": int(wide["fastogb_ogb"].notna().sum()) if "fastogb_ogb" in wide else 0,
           "t_base": times[base], "t_fastogb": times.get("fastogb_ogb", np.nan)}
    for name_ in learners:
        if name_ not in wide:
            continue
        d = (wide[name_] - wide[base]).dropna()
        row[name_] = wide[name_].mean()
        se = d.std(ddof=1) / np.sqrt(len(d))
        row[f"{name_} - base"] = f"{d.mean():+.3f} ± {se:.3f}"
        # Counted from the unrounded numbers (session22_analyse.py compared
        # the rounded strings: +0.010 ± 0.005 was not "beyond 2 SE" there).
        row[f"z_{name_}"] = d.mean() / se if se > 0 else 0.0
        row[f"t_{name_}"] = times[name_]
    rows.append(row)
table = pd.DataFrame(rows)
pd.set_option("display.width", 250)
pd.set_option("display.max_columns", 30)
risk_cols = (["dataset", "base"] + [c for c in table.columns if c in learners or c.endswith("- base")]
             + ["fastogb", "fo_splits"])
print(f"base: {base}")
print("mean test risk over complexities 1-50 (normalised; lower is better), paired difference "
      "to the base ± SE over the splits")
print(table[risk_cols].to_string(index=False, float_format="%.3f"))
print("\nmedian fit time (s)")
print(table[["dataset", "t_base"] + [f"t_{n}" for n in learners if f"t_{n}" in table]
            + ["t_fastogb"]].to_string(index=False, float_format="%.3f"))
for name_ in [base] + learners:
    col = "base" if name_ == base else name_
    if col not in table:
        continue
    t = table["t_base" if name_ == base else f"t_{name_}"]
    if table["fastogb"].notna().any():
        ok_risk = table[col] <= table["fastogb"] * (1 + 1e-9)
        ok = ok_risk & (t < table["t_fastogb"])
        print(f"{name_}: risk <= fastogb's on {int(ok_risk.sum())}/{len(table)}; and faster on "
              f"{int(ok.sum())}/{len(table)}; not on: {', '.join(table.dataset[~ok])}")
    else:
        print(f"{name_}:")
    if name_ != base:
        z = table[f"z_{name_}"]
        worse, better = z > 2, z < -2
        print(f"   vs base: lower by more than 2 SE on {int(better.sum())} "
              f"({', '.join(table.dataset[better])}), higher by more than 2 SE on "
              f"{int(worse.sum())} ({', '.join(table.dataset[worse])})")
