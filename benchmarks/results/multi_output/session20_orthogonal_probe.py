import time, warnings, numpy as np
from sklearn.model_selection import train_test_split
from sklearn.metrics import hamming_loss, f1_score, r2_score
from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.datasets import load_emotions, load_atp7d
warnings.simplefilter("ignore", UserWarning)
for name, loader, est in (("emotions", load_emotions, RuleBoostingClassifier), ("atp7d", load_atp7d, RuleBoostingRegressor)):
    X, Y = loader()
    est(n_rules=2, verbose=0).fit(X, Y); est(n_rules=2, learner="orthogonal", verbose=0).fit(X, Y)
    for learner in ("greedy", "orthogonal"):
        for head in ("complete", "single"):
            res = []
            for seed in range(5):
                Xtr, Xte, Ytr, Yte = train_test_split(X, Y, test_size=1/3, random_state=seed)
                t = time.perf_counter()
                m = est(n_rules=10, learner=learner, head=head, verbose=0).fit(Xtr, Ytr)
                s = time.perf_counter() - t
                P = m.predict(Xte)
                if name == "emotions":
                    res.append((s, hamming_loss(Yte, P), f1_score(Yte, P, average="micro")))
                else:
                    res.append((s, r2_score(Yte, P), 0.0))
            r = np.mean(res, axis=0)
            print(name, learner, head, "fit %.2f s" % r[0], ("hamming %.4f micro-F1 %.4f" % (r[1], r[2])) if name == "emotions" else "mean R2 %.4f" % r[1], flush=True)
