"""Small targets of several outputs, and models fitted on them once per
test session: shared by the tests of the views of such models
(``test_charts_outputs.py``, ``test_explanations_outputs.py``)."""

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris, make_multilabel_classification, make_regression

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor


def iris():
    """Iris with its three class names: a multi-class target."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, np.array(["setosa", "versicolor", "virginica"], dtype=object)[y.to_numpy()]


def labels(n=150, k=4):
    """A multi-label indicator frame of ``k`` labels."""
    X, Y = make_multilabel_classification(n_samples=n, n_features=5, n_classes=k, random_state=0)
    return (pd.DataFrame(X, columns=[f"f{j}" for j in range(5)]),
            pd.DataFrame(Y, columns=[f"label {j}" for j in range(k)]))


def targets(n=120, k=3):
    """A frame of ``k`` regression targets."""
    X, Y = make_regression(n_samples=n, n_features=4, n_targets=k, random_state=0)
    return pd.DataFrame(X, columns=list("abcd")), pd.DataFrame(Y, columns=[f"t{j}" for j in range(k)])


_FITS = {}


def fitted(kind, head="complete", n_rules=5, **params):
    """``(model, X, y)`` for ``kind`` in {"classes", "labels", "targets"},
    fitted once per test session (the models are not modified by the tests)."""
    key = (kind, head, n_rules, tuple(sorted(params.items())))
    if key not in _FITS:
        X, y = {"classes": iris, "labels": labels, "targets": targets}[kind]()
        cls = RuleBoostingRegressor if kind == "targets" else RuleBoostingClassifier
        _FITS[key] = cls(n_rules=n_rules, head=head, verbose=0, **params).fit(X, y), X, y
    return _FITS[key]
