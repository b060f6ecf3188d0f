"""Session 27: paired differences (20 splits of bench_multi_output's split_indices) of
rulebook variants against a reference tag, e.g. BOOMER (session 21's cached BOOMER fits,
session21_boomer_cache_20splits.jsonl) or base (rulebook's greedy defaults).
"!!" marks a difference worse than 2 standard errors, "++" better.

    python session27_paired_vs_boomer.py BOOMER base thr gc25 gc50 gc100
"""
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
KEYS = {"emotions": ["Hamming loss", "subset 0/1 loss", "micro-F1"],
        "yeast": ["Hamming loss", "subset 0/1 loss", "micro-F1"],
        "enron": ["Hamming loss", "subset 0/1 loss", "micro-F1"], "atp7d": ["mean R2"]}
SHORT = {"Hamming loss": "Ham", "subset 0/1 loss": "0/1", "micro-F1": "F1", "mean R2": "R2"}
table = {}
for line in open(HERE / "session21_boomer_cache_20splits.jsonl"):
    r = json.loads(line)
    name, cfg = json.loads(r["key"])
    if not cfg["extra"]:
        table[("BOOMER", name, cfg["head"], cfg["rules"], cfg["seed"])] = r["res"]
for line in open(HERE / "session27_priced_greedy_probe.jsonl"):
    r = json.loads(line)
    table[(r["tag"], r["name"], r["head"], r["rules"], r["seed"])] = r
ref, tags = sys.argv[1], sys.argv[2:]
for name in KEYS:
    for head in ["complete", "single"]:
        for rules in [10, 50]:
            for t in tags:
                seeds = [s for s in range(20) if (ref, name, head, rules, s) in table
                         and (t, name, head, rules, s) in table]
                if len(seeds) < 2:
                    continue
                out = []
                for k in KEYS[name]:
                    d = np.array([table[(t, name, head, rules, s)][k] - table[(ref, name, head, rules, s)][k]
                                  for s in seeds])
                    se = d.std(ddof=1) / np.sqrt(len(d))
                    z = (d.mean() / se if se > 0 else 0.0) * (-1 if "loss" in k else 1)
                    flag = "!!" if z < -2 else ("++" if z > 2 else "  ")
                    out.append(f"{SHORT[k]} {d.mean():+.4f}±{se:.4f}{flag}")
                print(f"{name:8s} {head:8s} {rules:2d} {t:6s}-{ref:6s} n={len(seeds):2d} " + "  ".join(out))
