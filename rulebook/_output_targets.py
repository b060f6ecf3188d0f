"""Checks of targets with several outputs, once, at fit.

A multi-label target is a 0/1 indicator matrix, one column per label
(scikit-learn's ``"multilabel-indicator"``, :func:`sklearn.utils.multiclass.type_of_target`);
a multi-output regression target a numeric matrix, one column per output.
Either is an array-like of shape (n_samples, K) with ``K >= 2`` or a
DataFrame of ``K >= 2`` columns, whose column labels name the outputs
(else they are numbered ``0 .. K-1``, as scikit-learn's one-vs-rest
classifier numbers the labels of an indicator matrix). A single column is
not a matrix target: it is the one-output target it holds.
"""

import numpy as np
import pandas as pd

from ._validation import check_target


def is_matrix_target(y):
    """Whether ``y`` has two or more columns (several outputs)."""
    if isinstance(y, pd.DataFrame):
        return y.shape[1] >= 2
    if isinstance(y, pd.Series) or y is None:
        return False
    try:  # np.asarray, not np.shape: array-likes need not dispatch np.shape
        shape = np.asarray(y).shape
    except (TypeError, ValueError):  # ragged lists: not a matrix, left to the 1-D check
        return False
    return len(shape) == 2 and shape[1] >= 2


def _columns(y, n_rows):
    """``y`` as a list of 1-D columns and the outputs' names (a tuple)."""
    if isinstance(y, pd.DataFrame):
        names = tuple(y.columns.tolist())
        if len(set(names)) != len(names):
            raise ValueError(f"y has a column name twice among {list(names)}; each output needs "
                             "its own name.")
        columns = [y.iloc[:, k] for k in range(y.shape[1])]
    else:
        array = np.asarray(y)
        names = tuple(range(array.shape[1]))
        columns = [array[:, k] for k in range(array.shape[1])]
    if len(columns[0]) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {len(columns[0])}; they must match.")
    return columns, names


def check_indicator_matrix(y, n_rows):
    """Validate a multi-label target: columns of 0 and 1 (or False and True).

    Parameters
    ----------
    y : array-like of shape (n_samples, K) or DataFrame of K columns, K >= 2
    n_rows : int
        Rows of ``X``.

    Returns
    -------
    Y : ndarray of shape (n_samples, K), float64
        ``+1`` where a label is relevant, ``-1`` where not (the coding of
        :class:`~rulebook.losses.LogisticLoss`), C-order.
    labels : tuple
        The DataFrame's column labels, or ``0 .. K-1``.

    Raises
    ------
    ValueError
        Rows that do not match ``X``, a column name given twice, missing
        values, or values other than 0 and 1 (naming the column; a matrix
        of class labels, scikit-learn's ``"multiclass-multioutput"``, is
        not supported).
    """
    columns, labels = _columns(y, n_rows)
    Y = np.empty((n_rows, len(columns)), dtype=np.float64)
    for k, (column, label) in enumerate(zip(columns, labels)):
        values = column.to_numpy() if isinstance(column, pd.Series) else np.asarray(column)
        if pd.isna(values).any():
            raise ValueError(f"y column {label!r} has missing values; a multi-label target "
                             "needs 0 or 1 in every cell.")
        try:
            numbers = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            numbers = None
        if numbers is None or not np.isin(numbers, (0.0, 1.0)).all():
            shown = pd.unique(values)[:5].tolist()
            raise ValueError(
                f"y has {len(columns)} columns, so it is read as a multi-label indicator matrix "
                f"(a column of 0 and 1 per label), but column {label!r} holds values such as "
                f"{shown}. RuleBoostingClassifier fits one column of class labels, or 0/1 "
                "columns (several labels per row); a matrix of class labels "
                "(multiclass-multioutput) is not supported.")
        Y[:, k] = np.where(numbers > 0, 1.0, -1.0)
    return Y, labels


def check_output_matrix(y, n_rows):
    """Validate a multi-output regression target: a numeric matrix.

    Parameters
    ----------
    y : array-like of shape (n_samples, K) or DataFrame of K columns, K >= 2
    n_rows : int

    Returns
    -------
    Y : ndarray of shape (n_samples, K), float64, C-order
    names : tuple
        The DataFrame's column labels, or ``0 .. K-1``.

    Raises
    ------
    ValueError
        As the one-output target's checks
        (:func:`rulebook._validation.check_target`), naming the column.
    """
    columns, names = _columns(y, n_rows)
    Y = np.empty((n_rows, len(columns)), dtype=np.float64)
    for k, (column, name) in enumerate(zip(columns, names)):
        try:
            Y[:, k] = check_target(column, n_rows, numeric=True)
        except ValueError as error:
            raise ValueError(f"y column {name!r}: {error}") from None
    return Y, names
