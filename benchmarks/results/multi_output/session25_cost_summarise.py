"""Optimal (each variant) vs greedy per dataset/head/measure from mo_cost_bench JSON lines."""
import json, sys
import pandas as pd
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f)]
df = pd.DataFrame(rows)
measures = {"Hamming loss": -1, "subset 0/1 loss": -1, "micro-F1": 1, "mean R2": 1}
for rules, d in df.groupby("rules"):
    print(f"\n=== {rules} rules: means over splits ===")
    cols = [c for c in ["fit_s", "conditions", "pairs", "certified", "certified_ratio_mean", *measures] if c in d]
    mean = d.groupby(["dataset", "head", "variant"])[cols].mean()
    print(mean.round(4).to_string())
    print(f"\n--- {rules} rules: comparisons where optimal >= greedy (higher-is-better sense; ties count) ---")
    for variant in sorted(set(d.variant) - {"greedy"}):
        wins, total, detail = 0, 0, []
        for (ds, head), g in d.groupby(["dataset", "head"]):
            gm = g.groupby("variant")[[m for m in measures if m in g and g[m].notna().any()]].mean()
            if variant not in gm.index or "greedy" not in gm.index:
                continue
            for m in gm.columns:
                if gm[m].isna().all():
                    continue
                better = measures[m] * (gm.loc[variant, m] - gm.loc["greedy", m]) >= 0
                wins += better; total += 1
                detail.append(f"{ds}/{head}/{m}:{'>=' if better else '<'}")
        sub = d[d.variant == variant]
        cert = sub["certified"].sum() if "certified" in sub else float("nan")
        print(f"factor {variant}: {wins}/{total}; fit_s mean {sub.fit_s.mean():.2f} median {sub.fit_s.median():.2f} max {sub.fit_s.max():.2f}; "
              f"certified rounds {cert:.0f}/{sub.n_rules_fitted.sum()}; conditions {sub.conditions.mean():.1f}/fit (greedy {d[d.variant=='greedy'].conditions.mean():.1f})")
        print("   " + " ".join(detail))
