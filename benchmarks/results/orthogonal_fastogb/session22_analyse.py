"""Paired per-split differences of test risk (mean over complexities 1-50) against the default."""
import sys
import numpy as np
import pandas as pd

frame = pd.concat([pd.read_csv(f) for f in sys.argv[1:]]).drop_duplicates(["dataset", "learner", "split"], keep="last")
base = "orthogonal"
learners = [l for l in frame.learner.unique() if l not in (base, "fastogb_ogb")]
rows = []
for name, part in frame.groupby("dataset", sort=False):
    wide = part.pivot(index="split", columns="learner", values="test_risk")
    times = part.pivot(index="split", columns="learner", values="fit_time").median()
    row = {"dataset": name, "default": wide[base].mean(),
           "fastogb": wide["fastogb_ogb"].mean() if "fastogb_ogb" in wide else np.nan,
           "fo_splits": int(wide["fastogb_ogb"].notna().sum()) if "fastogb_ogb" in wide else 0,
           "t_default": times[base], "t_fastogb": times.get("fastogb_ogb", np.nan)}
    for l in learners:
        if l not in wide:
            continue
        d = (wide[l] - wide[base]).dropna()
        row[l] = wide[l].mean()
        row[f"{l} - default"] = f"{d.mean():+.3f} ± {d.std(ddof=1) / np.sqrt(len(d)):.3f}"
        row[f"t_{l}"] = times[l]
    rows.append(row)
table = pd.DataFrame(rows)
pd.set_option("display.width", 250)
pd.set_option("display.max_columns", 30)
risk_cols = ["dataset", "default"] + [c for c in table.columns if c in learners or c.endswith("- default")] + ["fastogb", "fo_splits"]
print("mean test risk over complexities 1-50 (normalised; lower is better), 5 splits; paired difference to the default ± SE")
print(table[risk_cols].to_string(index=False, float_format="%.3f"))
print("\nmedian fit time (s)")
print(table[["dataset", "t_default"] + [f"t_{l}" for l in learners if f"t_{l}" in table] + ["t_fastogb"]].to_string(index=False, float_format="%.3f"))
for l in [base] + learners:
    col = "default" if l == base else l
    if col not in table:
        continue
    ok_risk = table[col] <= table["fastogb"] * (1 + 1e-9)
    t = table["t_default" if l == base else f"t_{l}"]
    ok = ok_risk & (t < table["t_fastogb"])
    print(f"{l}: risk <= fastogb's on {int(ok_risk.sum())}/{len(table)}; and faster on {int(ok.sum())}/{len(table)}; "
          f"not on: {', '.join(table.dataset[~ok])}")
    if l != base:
        d = table[f"{l} - default"].str.split(" ± ", expand=True).astype(float)
        worse = d[0] > 2 * d[1]
        better = d[0] < -2 * d[1]
        print(f"   vs default: lower by more than 2 SE on {int(better.sum())}, higher by more than 2 SE on {int(worse.sum())} ({', '.join(table.dataset[worse])})")
