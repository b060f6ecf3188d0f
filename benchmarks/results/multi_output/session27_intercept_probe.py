"""thr vs thr+BOOMER's default rule (one L2 Newton step from 0): test log loss beside
Hamming / micro-F1, and predicted positives vs true positives. 20 seeds."""
import sys, json, os, warnings
os.environ.setdefault("NUMBA_NUM_THREADS", "1")
sys.path.insert(0, "/work/main/benchmarks")
import numpy as np
from bench_multi_output import DATASETS, DEFAULT_DATA_HOME, _rows, scores, split_indices
from rulebook import RuleBoostingClassifier, GreedyLearner
from rulebook.datasets import load_multi_output
import rulebook.losses as L
orig = L.OutputWiseLoss.baseline
def newton(self, y, w):
    g0, h0 = self.gradient_hessian(y, np.zeros(np.shape(y)), w)
    return -g0.sum(axis=0) / (h0.sum(axis=0) + 1.0)
tag = sys.argv[1]
if "icpt" in tag:
    L.OutputWiseLoss.baseline = newton
counted = "thr" in tag
warnings.simplefilter("ignore")
out = open("/work/probe/s27/icpt.jsonl", "a")
for name in sys.argv[2:]:
    X, Y = load_multi_output(name, data_home=str(DEFAULT_DATA_HOME))
    for head in ["complete", "single"]:
        for rules in [10, 50]:
            for seed in range(20):
                train, test = split_indices(X.shape[0], seed)
                learner = GreedyLearner(count_refinements=counted)
                m = RuleBoostingClassifier(n_rules=rules, head=head, learner=learner, verbose=0).fit(_rows(X, train), Y.iloc[train])
                Yte = Y.to_numpy()[test]
                P = np.clip(np.asarray(m.predict_proba(_rows(X, test)), float), 1e-12, 1 - 1e-12)
                ll = float(-(Yte * np.log(P) + (1 - Yte) * np.log(1 - P)).mean())
                r = scores("multi-label", Yte, m.predict(_rows(X, test)))
                out.write(json.dumps(dict(tag=tag, name=name, head=head, rules=rules, seed=seed, logloss=ll,
                                          pred_pos=float(np.asarray(m.predict(_rows(X, test))).mean()), true_pos=float(Yte.mean()), **r)) + "\n"); out.flush()
