"""Scoring a RuleEnsemble: a NumPy path and a numba kernel, same result.

The raw score is the intercept, plus the weight of each rule that covers
the row (in rule order), plus the contribution of each linear term (in
term order, after the rules): both paths add in this order, and so does
:func:`rulebook.explanations.explain`, so all three agree to the last bit.

The kernel needs a numeric matrix, so each column the rules use is encoded
once: numeric columns as float64 (NaN for missing) and nominal columns as
the position of their value among the categories the rules mention (-1 for
any other category, NaN for missing). ``==``/``!=`` then compare codes.

Columns are found as :func:`reads_by_name` decides, once per call: by name
in a DataFrame that has them all, so a frame with its columns in another
order predicts the same; by position in an array.
"""

import numpy as np
import pandas as pd
from numba import prange

from ._config import jit_parallel
from ._validation import ROW_SLICE, SparseColumns, row_major_block

# Work (rows x conditions) above which the numba kernel is used; below it
# NumPy is as fast and compiling the kernel would dominate.
PREDICT_MIN_WORK = 200_000

# Rows per block of the scoring kernel: a block's columns and flags stay in cache.
_PREDICT_BLOCK = 4096

_OP_CODES = {"<=": 0, "<": 1, ">": 2, ">=": 3, "==": 4, "!=": 5}


def reads_by_name(ensemble, X):
    """Whether the rules find their columns in ``X`` by name (else by position).

    A DataFrame is read by name when it has every column the rules use,
    whatever the labels' type (``str``, ``int``, ...): a frame with its
    columns in another order, or with more columns, predicts the same. A
    model fitted on named columns (``by_name=True``) reads frames only so.
    Other models (fitted on an array, or on a frame whose labels are not
    strings) read a frame with none of their column labels by position, as
    an array (e.g. ``pd.DataFrame(array)`` for a model fitted on
    ``array``). Arrays are always read by position.

    Parameters
    ----------
    ensemble : RuleEnsemble
    X : DataFrame or array-like of shape (n_samples, n_features)

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        A DataFrame that lacks some of the columns the rules use, when
        it is to be read by name (``by_name=True``, or some of them present):
        the error names the missing columns. A DataFrame with two or more
        columns of a name the rules use: the error names them.
    """
    if not isinstance(X, pd.DataFrame):
        return False
    used = used_columns(ensemble)
    present = set(X.columns)
    missing = [name for name in used if name not in present]
    if not missing:
        # A rule's column must be one column: X[name] of a repeated label is
        # a frame, and picking one of them would be a guess.
        repeated = [] if X.columns.is_unique else [
            name for name in used if X.columns.get_indexer_for([name]).size > 1]
        if repeated:
            raise ValueError(f"X has more than one column named {_labels(repeated)}, which the "
                             "rules use; give every column a distinct name.")
        return True
    if not ensemble.by_name and len(missing) == len(used):
        return False
    # Some of the names but not all: a frame of other columns, not one to
    # read by position (that would silently use the wrong columns).
    raise ValueError(
        f"X lacks column{'s' if len(missing) > 1 else ''} {_labels(missing)}, which the "
        f"model's rules use (they use {_labels(used)}); X has columns {_labels(X.columns)}.")


def used_columns(ensemble):
    """The columns the rules and linear terms read, in order of first use."""
    return list(dict.fromkeys([p.feature for rule in ensemble.rules for p in rule.query]
                              + [term.feature for term in ensemble.terms]))


def _labels(labels, shown=20):
    """``['a', 1, ...]``: column labels as Python writes them, at most ``shown``."""
    labels = list(labels)
    text = ", ".join(repr(label) for label in labels[:shown])
    return f"[{text}{', ...' if len(labels) > shown else ''}]"


def _columns(n):
    """``'1 column'``, ``'2 columns'``."""
    return f"{n} column" if n == 1 else f"{n} columns"


def _column(X, name, index, by_name):
    """One column of ``X`` by name (DataFrame) or by position.

    Of a :class:`~rulebook._validation.SparseColumns`, by position, made
    dense (that column only).
    """
    if isinstance(X, SparseColumns):
        return pd.Series(X.column(index), copy=False)
    if isinstance(X, pd.DataFrame):
        if by_name:
            if name not in X.columns:
                raise ValueError(f"column {name!r} is missing from X; the model uses it.")
            return X[name]
        if index >= X.shape[1]:
            raise ValueError(
                f"X must have at least {_columns(index + 1)} to evaluate a condition on {name!r} "
                f"by position; got {X.shape[1]}.")
        return X.iloc[:, index]
    array = np.asarray(X)
    if array.ndim != 2 or array.shape[1] <= index:
        raise ValueError(
            f"X must be 2-D with at least {_columns(index + 1)} to evaluate a condition "
            f"on {name!r}; got shape {array.shape}."
        )
    return pd.Series(array[:, index], copy=False)


def column_values(column, numeric):
    """A column as propositions compare it: ``(values, missing)``, two arrays.

    ``values`` is float64 for a numeric proposition (NaN where the value is
    missing or not a number), else object (None where missing); ``missing``
    is bool.
    """
    missing = pd.isna(column).to_numpy()
    if numeric:
        return pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan), missing
    return column.to_numpy(dtype=object, na_value=None), missing


def rule_masks(ensemble, X, by_name):
    """Which rows each rule covers: a bool array per rule, in order.

    Each column is read and converted once for all the rules, not once per
    condition: the conversion costs far more than the comparison, and
    scoring the model of every round (score curves) repeats it per rule.
    """
    prepared = {}
    for rule in ensemble.rules:
        mask = np.ones(len(X), dtype=bool)
        for p in rule.query:
            key = (p.feature, p.index, p.is_numeric)
            if key not in prepared:
                prepared[key] = column_values(_column(X, p.feature, p.index, by_name), p.is_numeric)
            mask &= p._holds(*prepared[key])
        yield mask


def term_values(ensemble, X, by_name):
    """The column of each linear term: shape (n_samples, n_terms), float64, NaN where missing."""
    out = np.empty((len(X), len(ensemble.terms)), dtype=np.float64)
    for j, term in enumerate(ensemble.terms):
        out[:, j], _ = column_values(_column(X, term.feature, term.index, by_name), numeric=True)
    return out


def term_contributions(ensemble, X, by_name):
    """What each linear term adds to each row: shape (n_samples, n_terms), float64.

    ``weight * (clip(x, lower, upper) - centre)``, 0 where ``x`` is missing
    (:class:`rulebook.linear_terms.LinearTerm`).
    """
    values = term_values(ensemble, X, by_name)
    for j, term in enumerate(ensemble.terms):
        values[:, j] = term.contribution(values[:, j])
    return values


def _add_terms(ensemble, X, by_name, scores):
    """Add the terms' contributions to ``scores`` in place, one term after another.

    One at a time, in term order, as :func:`rulebook.explanations.explain`
    accumulates them: a row sum in another order could differ in the last bit.
    """
    if ensemble.terms:
        for column in term_contributions(ensemble, X, by_name).T:
            scores += column
    return scores


def decision_function(ensemble, X):
    """Raw scores of ``ensemble`` on ``X``, shape (n_samples,) or, with
    several outputs, (n_samples, K), float64."""
    if isinstance(X, SparseColumns):
        return decision_function_sparse(ensemble, X)
    by_name = reads_by_name(ensemble, X)
    n_conditions = sum(len(rule.query.propositions) for rule in ensemble.rules)
    if ensemble.outputs is not None:
        if len(X) * n_conditions >= PREDICT_MIN_WORK:
            return _decision_function_kernel(ensemble, X, by_name)
        return decision_function_numpy(ensemble, X, by_name)
    if len(X) * n_conditions >= PREDICT_MIN_WORK:
        return _add_terms(ensemble, X, by_name, _decision_function_kernel(ensemble, X, by_name))
    return decision_function_numpy(ensemble, X, by_name)


def decision_function_numpy(ensemble, X, by_name=None):
    """Reference path: add each rule's weight to the rows it covers, then the terms.

    ``by_name``: as :func:`reads_by_name` decides when None.
    """
    if by_name is None:
        by_name = reads_by_name(ensemble, X)
    if ensemble.outputs is not None:  # a column per output, no terms
        scores = np.tile(np.array(ensemble.intercept), (len(X), 1))
        for rule, mask in zip(ensemble.rules, rule_masks(ensemble, X, by_name)):
            scores[mask] += np.array(rule.weight)
        return scores
    scores = np.full(len(X), ensemble.intercept, dtype=np.float64)
    for rule, mask in zip(ensemble.rules, rule_masks(ensemble, X, by_name)):
        scores[mask] += rule.weight
    return _add_terms(ensemble, X, by_name, scores)


def decision_function_sparse(ensemble, X):
    """Raw scores on a :class:`~rulebook._validation.SparseColumns`, never dense.

    Each condition is evaluated on its column's stored entries, the rows
    not stored holding 0 (:func:`sparse_holds`); weights are added in rule
    order, as :func:`decision_function_numpy` adds them, so the scores
    equal those of the dense array to the last bit. Memory: a mask of
    n_samples per rule and the scores, not n_samples x n_features.

    Parameters
    ----------
    ensemble : RuleEnsemble
        With numeric columns only (no linear terms: refused at fit).
    X : SparseColumns of shape (n_samples, n_features)

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, K), float64
    """
    n = len(X)
    if ensemble.outputs is not None:
        scores = np.tile(np.array(ensemble.intercept, dtype=np.float64), (n, 1))
    else:
        scores = np.full(n, ensemble.intercept, dtype=np.float64)
    for rule in ensemble.rules:
        mask = np.ones(n, dtype=bool)
        for p in rule.query:
            mask &= sparse_holds(p, X)
        scores[mask] += np.array(rule.weight) if ensemble.outputs is not None else rule.weight
    return _add_terms(ensemble, X, False, scores)


def sparse_holds(proposition, X):
    """Rows of sparse ``X`` satisfying a numeric ``proposition``: bool (n_samples,).

    Every row the column does not store holds 0, so satisfies it as 0
    does; the stored entries are compared one by one (NaN: missing,
    satisfies nothing).
    """
    rows, values = X.entries(proposition.index)
    at_zero = proposition._holds(np.zeros(1), np.zeros(1, dtype=bool))[0]
    out = np.full(len(X), at_zero, dtype=bool)
    out[rows] = proposition._holds(values, np.isnan(values))
    return out


def _decision_function_kernel(ensemble, X, by_name=None):
    matrix, conditions = encode(ensemble, X, by_name)
    rule_start, column, op, value = conditions
    weights = np.array([rule.weight for rule in ensemble.rules], dtype=np.float64)
    if ensemble.outputs is not None:
        # One pass of the kernel per output over the same encoded columns:
        # each column adds the intercept, then the weights in rule order,
        # as the NumPy path does.
        out = np.empty((len(X), ensemble.n_outputs), dtype=np.float64)
        column_out = np.empty(len(X), dtype=np.float64)
        weights = weights.reshape(len(ensemble.rules), ensemble.n_outputs)
        for k in range(ensemble.n_outputs):
            _score_rows(matrix, rule_start, column, op, value,
                        np.ascontiguousarray(weights[:, k]), ensemble.intercept[k], column_out)
            out[:, k] = column_out
        return out
    out = np.empty(len(X), dtype=np.float64)
    _score_rows(matrix, rule_start, column, op, value, weights, ensemble.intercept, out)
    return out


def encode(ensemble, X, by_name=None):
    """Numeric matrix of the used columns and the flattened conditions.

    ``by_name``: as :func:`reads_by_name` decides when None.

    Returns
    -------
    matrix : ndarray of shape (n_samples, n_used), float64, Fortran order
        Each used column is written once into its own contiguous column of
        the matrix: the kernel reads the rows of a block column by column,
        and stacking the columns row-major (as this did before) cost four
        times the scoring itself at 10^6 rows.
    conditions : tuple
        ``rule_start`` (n_rules + 1,) int64 offsets into the condition
        arrays ``column`` (int64), ``op`` (int64), ``value`` (float64).
    """
    if by_name is None:
        by_name = reads_by_name(ensemble, X)
    categories = {}
    for rule in ensemble.rules:
        for p in rule.query:
            if not p.is_numeric:
                cats = categories.setdefault(p.feature, [])
                if p.value not in cats:
                    cats.append(p.value)
    slots, sources = {}, []
    rule_start, column, op, value = [0], [], [], []
    for rule in ensemble.rules:
        for p in rule.query:
            key = (p.feature, p.is_numeric)
            if key not in slots:
                slots[key] = len(sources)
                sources.append((p, categories.get(p.feature)))
            column.append(slots[key])
            op.append(_OP_CODES[p.operator])
            value.append(p.value if p.is_numeric else categories[p.feature].index(p.value))
        rule_start.append(len(column))
    matrix = np.empty((len(X), len(sources)), dtype=np.float64, order="F")
    block = None
    if (isinstance(X, pd.DataFrame) and all(p.is_numeric for p, _ in sources)
            and (by_name or all(p.index < X.shape[1] for p, _ in sources))):
        block = row_major_block(X)
    if block is not None:  # a row-major table: read in slices of rows, not by column
        positions = [X.columns.get_loc(p.feature) if by_name else p.index for p, _ in sources]
        for start in range(0, len(X), ROW_SLICE):
            matrix[start:start + ROW_SLICE] = block[start:start + ROW_SLICE, positions]
        return matrix, _flat(rule_start, column, op, value)
    for slot, (p, cats) in enumerate(sources):
        _encode_column(_column(X, p.feature, p.index, by_name), p.is_numeric, cats,
                       matrix[:, slot])
    return matrix, _flat(rule_start, column, op, value)


def _flat(rule_start, column, op, value):
    """The flattened conditions as arrays (:func:`encode`)."""
    as_array = lambda a, t: np.asarray(a, dtype=t)
    return (
        as_array(rule_start, np.int64),
        as_array(column, np.int64),
        as_array(op, np.int64),
        as_array(value, np.float64),
    )


def _encode_column(column, numeric, categories, out):
    """Write one column's codes into ``out`` (float64, NaN where missing); ``column`` is not changed."""
    if numeric and column.dtype == np.float64:
        # The common case: NaN already marks a missing value, and to_numpy
        # is a view of the caller's data, only read here.
        out[:] = column.to_numpy()
        return
    missing = pd.isna(column).to_numpy()
    if numeric:
        out[:] = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        lookup = {c: float(k) for k, c in enumerate(categories)}
        out[:] = np.fromiter(
            (lookup.get(v, -1.0) if not m else np.nan
             for v, m in zip(column.to_numpy(dtype=object, na_value=None), missing)),
            dtype=np.float64,
            count=len(column),
        )
    out[missing] = np.nan


def _score_rows(matrix, rule_start, column, op, value, weights, intercept, out):
    # IN: matrix, rule_start, column, op, value, weights, intercept
    # OUT: out
    # Rows in blocks: within a block each condition is one tight loop over a
    # contiguous piece of its column with the comparison chosen once, not a
    # branch on the operator per row and condition (3x faster at 10^6 rows).
    # Each row still adds the intercept and then the weights in rule order,
    # as the NumPy path does, so both agree to the last bit.
    n = matrix.shape[0]
    n_rules = weights.shape[0]
    n_blocks = (n + _PREDICT_BLOCK - 1) // _PREDICT_BLOCK
    for b in prange(n_blocks):
        first = b * _PREDICT_BLOCK
        stop = min(n, first + _PREDICT_BLOCK)
        covered = np.empty(stop - first, dtype=np.bool_)
        for i in range(first, stop):
            out[i] = intercept
        for r in range(n_rules):
            covered[:] = True
            for c in range(rule_start[r], rule_start[r + 1]):
                x = matrix[first:stop, column[c]]
                t = value[c]
                k = op[c]
                # NaN fails every comparison below, != included.
                if k == 0:
                    for i in range(stop - first):
                        covered[i] &= x[i] <= t
                elif k == 1:
                    for i in range(stop - first):
                        covered[i] &= x[i] < t
                elif k == 2:
                    for i in range(stop - first):
                        covered[i] &= x[i] > t
                elif k == 3:
                    for i in range(stop - first):
                        covered[i] &= x[i] >= t
                elif k == 4:
                    for i in range(stop - first):
                        covered[i] &= x[i] == t
                else:
                    for i in range(stop - first):
                        covered[i] &= (x[i] == x[i]) & (x[i] != t)  # x == x: not NaN
            w = weights[r]
            for i in range(stop - first):
                if covered[i]:
                    out[first + i] += w


_score_rows = jit_parallel(_score_rows)
