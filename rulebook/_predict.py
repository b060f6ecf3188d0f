"""Scoring a RuleEnsemble: a NumPy path and a numba kernel, same result.

The kernel needs a numeric matrix, so each column the rules use is encoded
once: numeric columns as float64 (NaN for missing) and nominal columns as
the position of their value among the categories the rules mention (-1 for
any other category, NaN for missing). ``==``/``!=`` then compare codes.
"""

import numpy as np
import pandas as pd
from numba import prange

from ._config import jit_parallel

# Work (rows x conditions) above which the numba kernel is used; below it
# NumPy is as fast and compiling the kernel would dominate.
PREDICT_MIN_WORK = 200_000

_OP_CODES = {"<=": 0, "<": 1, ">": 2, ">=": 3, "==": 4, "!=": 5}


def _column(X, name, index, by_name):
    """One column of ``X`` by name (DataFrame) or by position."""
    if isinstance(X, pd.DataFrame):
        if by_name:
            if name not in X.columns:
                raise ValueError(f"column {name!r} is missing from X; the model uses it.")
            return X[name]
        return X.iloc[:, index]
    array = np.asarray(X)
    if array.ndim != 2 or array.shape[1] <= index:
        raise ValueError(
            f"X must be 2-D with at least {index + 1} columns to evaluate a condition "
            f"on {name!r}; got shape {array.shape}."
        )
    return pd.Series(array[:, index], copy=False)


def decision_function(ensemble, X):
    """Raw scores of ``ensemble`` on ``X``, shape (n_samples,), float64."""
    n_conditions = sum(len(rule.query.propositions) for rule in ensemble.rules)
    if len(X) * n_conditions >= PREDICT_MIN_WORK:
        return _decision_function_kernel(ensemble, X)
    return decision_function_numpy(ensemble, X)


def decision_function_numpy(ensemble, X):
    """Reference path: add each rule's weight to the rows it covers, in order."""
    scores = np.full(len(X), ensemble.intercept, dtype=np.float64)
    for rule in ensemble.rules:
        mask = rule.query.evaluate(X, ensemble.by_name)
        scores[mask] += rule.weight
    return scores


def _decision_function_kernel(ensemble, X):
    matrix, conditions = encode(ensemble, X)
    rule_start, column, op, value = conditions
    weights = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64)
    out = np.empty(len(X), dtype=np.float64)
    _score_rows(matrix, rule_start, column, op, value, weights, ensemble.intercept, out)
    return out


def encode(ensemble, X):
    """Numeric matrix of the used columns and the flattened conditions.

    Returns
    -------
    matrix : ndarray of shape (n_samples, n_used), float64, C-order
    conditions : tuple
        ``rule_start`` (n_rules + 1,) int64 offsets into the condition
        arrays ``column`` (int64), ``op`` (int64), ``value`` (float64).
    """
    slots, columns = {}, []
    categories = {}
    for rule in ensemble.rules:
        for p in rule.query:
            if not p.is_numeric:
                cats = categories.setdefault(p.feature, [])
                if p.value not in cats:
                    cats.append(p.value)
    rule_start, column, op, value = [0], [], [], []
    for rule in ensemble.rules:
        for p in rule.query:
            key = (p.feature, p.is_numeric)
            if key not in slots:
                slots[key] = len(columns)
                raw = _column(X, p.feature, p.index, ensemble.by_name)
                columns.append(_encode_column(raw, p.is_numeric, categories.get(p.feature)))
            column.append(slots[key])
            op.append(_OP_CODES[p.operator])
            value.append(p.value if p.is_numeric else categories[p.feature].index(p.value))
        rule_start.append(len(column))
    matrix = np.ascontiguousarray(np.column_stack(columns)) if columns else np.zeros((len(X), 0))
    as_array = lambda a, t: np.asarray(a, dtype=t)  # noqa: E731
    return matrix, (
        as_array(rule_start, np.int64),
        as_array(column, np.int64),
        as_array(op, np.int64),
        as_array(value, np.float64),
    )


def _encode_column(column, numeric, categories):
    missing = pd.isna(column).to_numpy()
    if numeric:
        # copy=True: under pandas copy-on-write to_numpy may return a
        # read-only view of the caller's data, which we must not write to.
        values = pd.to_numeric(column, errors="coerce").to_numpy(
            dtype=np.float64, na_value=np.nan, copy=True)
    else:
        lookup = {c: float(k) for k, c in enumerate(categories)}
        values = np.fromiter(
            (lookup.get(v, -1.0) if not m else np.nan
             for v, m in zip(column.to_numpy(dtype=object, na_value=None), missing)),
            dtype=np.float64,
            count=len(column),
        )
    values[missing] = np.nan
    return values


def _score_rows(matrix, rule_start, column, op, value, weights, intercept, out):
    # IN: matrix, rule_start, column, op, value, weights, intercept
    # OUT: out
    n = matrix.shape[0]
    n_rules = weights.shape[0]
    for i in prange(n):
        score = intercept
        for r in range(n_rules):
            covered = True
            for c in range(rule_start[r], rule_start[r + 1]):
                x = matrix[i, column[c]]
                t = value[c]
                k = op[c]
                # NaN fails every comparison below, != included.
                if k == 0:
                    covered = x <= t
                elif k == 1:
                    covered = x < t
                elif k == 2:
                    covered = x > t
                elif k == 3:
                    covered = x >= t
                elif k == 4:
                    covered = x == t
                else:
                    covered = x == x and x != t
                if not covered:
                    break
            if covered:
                score += weights[r]
        out[i] = score


_score_rows = jit_parallel(_score_rows)
