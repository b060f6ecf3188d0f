"""Load a benchmark dataset as ``(X, y)``, applying the papers' rules.

The loader is declarative: :class:`~rulebook.datasets._registry.DatasetInfo`
says which files, target and dropped columns; the only per-dataset code is the
short table ``_PREPARE`` below, for the two datasets the README asks to reshape
(digits5, ships). Every call reads the files afresh, so callers own the
returned frames and may modify them freely.

Shipped datasets are gzipped copies of the published CSV files in the
package's ``data`` directory; pandas infers the compression from the name, so
a plain or gzipped file in ``data_home`` loads the same way.
"""

from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

from ._registry import DATASETS

__all__ = ["dataset_files", "load_dataset"]

# Paper 1's digits5 problem: the digit 5 against the digits it is most often
# confused with; 1, 4 and 7 are left out.
_DIGITS5_POSITIVE = (5,)
_DIGITS5_NEGATIVE = (0, 2, 3, 6, 8, 9)


def _prepare_digits5(frame):
    keep = frame["target"].isin(_DIGITS5_POSITIVE + _DIGITS5_NEGATIVE)
    frame = frame.loc[keep].copy()
    frame["target"] = frame["target"].isin(_DIGITS5_POSITIVE).astype(np.int64)
    return frame


def _prepare_ships(frame):
    # Ship type is nominal (A-E coded 1-5): an order on it would let rules
    # such as "type <= 3" group types for no reason. The period codes stay
    # numeric because periods are ordered.
    frame = frame.copy()
    frame["type"] = pd.Categorical(frame["type"])
    return frame


_PREPARE = {"digits5": _prepare_digits5, "ships": _prepare_ships}


def _lookup(name):
    try:
        return DATASETS[name]
    except (KeyError, TypeError):
        valid = ", ".join(sorted(DATASETS))
        raise ValueError(f"Unknown dataset {name!r}; valid names are: {valid}") from None


def _existing(directory, file_name):
    """Path of ``file_name`` or its gzipped twin in ``directory``, else None."""
    for candidate in (file_name, file_name + ".gz"):
        path = directory / candidate
        if path.is_file():
            return path
    return None


def _read_csv(path):
    # Strings stay strings (no category inference) and compression follows
    # the file name, so a gzipped copy loads like the plain one.
    return pd.read_csv(path, compression="infer")


def _shipped_paths(info):
    # An installed package is a directory (wheels are unpacked), so the
    # resource is a real file that any tool can open by its path.
    data = Path(resources.files("rulebook.datasets") / "data")
    paths = []
    for file_name in info.files:
        path = _existing(data, file_name)
        if path is None:
            raise FileNotFoundError(
                f"Package data {file_name!r} of dataset {info.name!r} is missing; "
                "the rulebook installation is incomplete"
            )
        paths.append(path)
    return paths


def _data_home_paths(info, data_home):
    files = ", ".join(info.files)
    if data_home is None:
        raise ValueError(
            f"Dataset {info.name!r} is not shipped with rulebook; download "
            f"{files} (source: {info.source}) into a directory and pass "
            "data_home=<that directory>"
        )
    directory = Path(data_home).expanduser()
    paths = []
    for file_name in info.files:
        path = _existing(directory, file_name)
        if path is None:
            raise ValueError(
                f"Dataset {info.name!r} needs {file_name!r}, which is not in "
                f"data_home={str(directory)!r}; pass data_home pointing to the "
                f"directory that holds {files} (plain or gzipped)"
            )
        paths.append(path)
    return paths


def dataset_files(name, *, data_home=None):
    """Paths of the CSV files a dataset is read from, as published.

    The raw files, before :func:`load_dataset` applies the papers' rules
    (dropped columns, concatenation, subsets): useful to look at a file
    as it was published, or as a stand-in for a table of your own.

    Parameters
    ----------
    name : str
        Dataset name, a key of :data:`DATASETS`.
    data_home : str or path-like, optional
        Directory holding the files of a dataset that is not shipped.
        Ignored for shipped datasets.

    Returns
    -------
    paths : tuple of pathlib.Path
        One path per file of the dataset, in concatenation order. Shipped
        files are gzip-compressed (``.csv.gz``); :func:`pandas.read_csv`
        infers the compression from the name.

    Raises
    ------
    ValueError
        If ``name`` is unknown, or if the dataset is not shipped and
        ``data_home`` is missing or lacks its files.

    Examples
    --------
    >>> import pandas as pd
    >>> path, = dataset_files("insurance")
    >>> path.name
    'insurance.csv.gz'
    >>> pd.read_csv(path).columns.tolist()
    ['age', 'sex', 'bmi', 'children', 'smoker', 'region', 'charges']
    """
    info = _lookup(name)
    paths = _shipped_paths(info) if info.shipped else _data_home_paths(info, data_home)
    return tuple(paths)


def _label_dtype(y, task):
    """Integer dtype for class labels and counts stored as floats (1.0, -1.0)."""
    if task == "regression" or not pd.api.types.is_float_dtype(y.dtype):
        return y
    values = y.to_numpy()
    if np.all(values == np.round(values)):
        return y.astype(np.int64)
    return y


def load_dataset(name, *, data_home=None, dropna=False):
    """Load a benchmark dataset of the rule-boosting papers.

    Shipped datasets (see :func:`list_datasets`) load from the package; the
    others from CSV files in ``data_home``. The files are used as published:
    only the README's per-dataset rules are applied (row concatenation, the
    dropped columns, the digits5 subset, ``type`` of ships as categorical).

    Parameters
    ----------
    name : str
        Dataset name, a key of :data:`DATASETS`.
    data_home : str or path-like, optional
        Directory holding the CSV files, plain or gzipped, of a dataset
        that is not shipped (the ``source`` column of :func:`list_datasets`
        says where to get them). Ignored for shipped datasets, which always
        load from the package so results are reproducible.
    dropna : bool, default=False
        Drop rows with a missing value in any kept column. By default
        missing values are kept, since rulebook handles NaN natively; the
        papers dropped them (e.g. titanic's 1043 rows).

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_features)
        Features, with the dropped columns and the target removed. Numeric
        columns keep their CSV dtypes; nominal columns stay strings (object
        or pandas string dtype).
    y : pandas.Series of shape (n_samples,)
        The target, named as its column. Class labels and counts are
        ``int64`` (or strings where the file has strings); regression
        targets keep their dtype.

    Raises
    ------
    ValueError
        If ``name`` is unknown, or if the dataset is not shipped and
        ``data_home`` is missing or lacks its files.

    Examples
    --------
    >>> X, y = load_dataset("titanic", dropna=True)
    >>> X.shape, y.name
    ((1043, 7), 'Survived')
    """
    info = _lookup(name)
    frames = [_read_csv(path) for path in dataset_files(name, data_home=data_home)]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    frame = _PREPARE.get(info.name, lambda f: f)(frame)
    frame = frame.drop(columns=list(info.drop))
    # Rows without a label carry nothing to learn from or to score on.
    frame = frame.dropna(subset=[info.target])
    if dropna:
        frame = frame.dropna()
    frame = frame.reset_index(drop=True)
    y = _label_dtype(frame.pop(info.target), info.task)
    return frame, y

