"""Session 27: the optimal learner against greedy from bench_multi_output.py --out's
per-fit lines (session27_optimal_quiet_fits.jsonl): per (dataset, rules, head, measure)
the paired mean difference over the splits, its standard error, whether optimal's mean
is at least greedy's, and the count of such comparisons per rule count.

    python session27_optimal_vs_greedy_paired.py session27_optimal_quiet_fits.jsonl
"""
import collections
import json
import sys

import numpy as np

rows = [json.loads(line) for line in open(sys.argv[1])]
fits = collections.defaultdict(dict)
for r in rows:
    fits[(r["dataset"], r["rules"], r["head"], r["system"])][r["seed"]] = r
count, total = collections.Counter(), collections.Counter()
for (name, rules, head, system), by_seed in sorted(fits.items()):
    if system != "rulebook optimal":
        continue
    greedy = fits[(name, rules, head, "rulebook")]
    seeds = sorted(set(by_seed) & set(greedy))
    for m in ["Hamming loss", "subset 0/1 loss", "micro-F1", "mean R2"]:
        if m not in by_seed[seeds[0]]:
            continue
        d = np.array([by_seed[s][m] - greedy[s][m] for s in seeds])
        se = d.std(ddof=1) / np.sqrt(len(d))
        sign = -1 if "loss" in m else 1
        at_least = sign * d.mean() >= 0
        count[rules] += at_least
        total[rules] += 1
        z = sign * d.mean() / se if se > 0 else 0.0
        print(f"{name:9s}{rules:3d} {head:9s}{m:16s} optimal-greedy {d.mean():+.4f} "
              f"+- {se:.4f} {'>=' if at_least else '< '} z={z:+.1f}")
for rules in sorted(total):
    print(f"{rules} rules: optimal at least greedy on {count[rules]}/{total[rules]}")
