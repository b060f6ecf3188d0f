"""Multi-label and multi-output regression benchmark datasets (BOOMER's kind).

``load_multi_output(name)`` returns ``(X, Y)``: a DataFrame of features
and a DataFrame of targets, one column per label (0/1, int64) or per
regression output (float64), named as the files name them. The files are
those of the MULAN and MEKA repositories as the ``mlrl-boomer`` project
ships them for its tests (MIT licence): an ARFF file whose label
attributes a MULAN ``.xml`` file names (every other attribute is a
feature), or a LIBSVM multi-label file. ``emotions`` and ``atp7d`` ship
with rulebook, gzipped (``data_multi_output/README.md``); ``yeast`` and ``enron`` load
from a directory holding the published files (``data_home``).

Readers: dense ARFF by :func:`scipy.io.arff.loadarff`; sparse ARFF
(enron's ``{index value, ...}`` rows) by ``liac-arff`` (PyPI
``liac-arff``, an optional dependency: ``pip install rulebook[datasets]``),
densified for now (1,702 x 1,001); LIBSVM by
:func:`sklearn.datasets.load_svmlight_file`.
"""

import gzip
import html
import io
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse as scipy_sparse

__all__ = ["MULTI_OUTPUT_DATASETS", "load_multi_output", "load_emotions", "load_atp7d"]

# name: (task, files, shipped)
MULTI_OUTPUT_DATASETS = {
    "emotions": ("multi-label", ("emotions.arff", "emotions.xml"), True),
    "yeast": ("multi-label", ("yeast.svm",), False),
    "enron": ("multi-label", ("enron.arff", "enron.xml"), False),
    "atp7d": ("multi-output regression", ("atp7d.arff", "atp7d.xml"), True),
}

# yeast.svm's labels are numbered 0..13 (the README's 14 labels).
_YEAST_LABELS = 14


def load_multi_output(name, *, data_home=None, sparse=False):
    """Load a multi-label or multi-output regression dataset as ``(X, Y)``.

    Parameters
    ----------
    name : {"emotions", "yeast", "enron", "atp7d"}
        emotions (593 rows, 72 numeric features, 6 labels), yeast (2,417
        rows, 103 numeric features, 14 labels), enron (1,702 rows, 1,001
        binary features, 53 labels; sparse ARFF, densified unless
        ``sparse=True``), atp7d (296
        rows, 411 numeric features, 6 regression targets).
    data_home : str or path-like, optional
        Directory of the published files (``emotions.arff`` and
        ``emotions.xml``, ``yeast.svm``, ...), plain or gzipped. ``None``
        reads the copies shipped with rulebook (emotions and atp7d only).
    sparse : bool, default=False
        enron and yeast (stored sparse): return ``X`` as a
        :class:`scipy.sparse.csr_matrix` of float64 (the file's non-zero
        entries only; the columns in the order of the dense frame's), for
        a fit that never builds the dense array (docs: sparse input).

    Returns
    -------
    X : DataFrame of shape (n_samples, n_features), float64
        Columns named as the file's attributes (LIBSVM: ``x1``, ``x2``,
        ... by the file's 1-based indices). With ``sparse=True``, a CSR
        matrix of the same values.
    Y : DataFrame of shape (n_samples, n_outputs)
        int64 0/1 per label, or float64 per regression target, named as
        the ``.xml`` file's labels (LIBSVM: ``0 .. 13``).

    Raises
    ------
    ValueError
        An unknown ``name`` (naming the valid ones), ``data_home=None``
        for a dataset that does not ship, ``sparse=True`` for a dataset
        stored dense.
    FileNotFoundError
        A file missing from ``data_home``.
    ImportError
        enron without ``liac-arff`` installed.

    References
    ----------
    .. [1] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 3.5.1 (data).

    Examples
    --------
    >>> from rulebook.datasets import load_multi_output
    >>> X, Y = load_multi_output("emotions")
    >>> X.shape, list(Y.columns[:2])
    ((593, 72), ['amazed-suprised', 'happy-pleased'])
    """
    if name not in MULTI_OUTPUT_DATASETS:
        raise ValueError(f"Unknown multi-output dataset {name!r}; valid names are: "
                         f"{', '.join(MULTI_OUTPUT_DATASETS)}")
    task, files, shipped = MULTI_OUTPUT_DATASETS[name]
    if sparse and name not in ("enron", "yeast"):
        raise ValueError(f"sparse=True is for the datasets stored sparse, enron and yeast; "
                         f"{name} is dense: pass sparse=False.")
    if data_home is None and not shipped:
        raise ValueError(f"{name} does not ship with rulebook (only "
                         f"{', '.join(n for n, v in MULTI_OUTPUT_DATASETS.items() if v[2])} do); "
                         f"pass data_home, the directory of {', '.join(files)}.")
    directory = Path(resources.files("rulebook.datasets") / "data_multi_output") if data_home is None \
        else Path(data_home)
    texts = [_read_text(directory, file_name) for file_name in files]
    if name == "yeast":
        return _read_svmlight(texts[0], sparse)
    labels = _label_names(texts[1])
    if sparse:
        return _read_sparse_arff_matrix(texts[0], labels, files[1])
    frame = _read_sparse_arff(texts[0]) if name == "enron" else _read_dense_arff(texts[0])
    missing = [label for label in labels if label not in frame.columns]
    if missing:
        raise ValueError(f"{files[1]} names labels that {files[0]} lacks: {missing[:5]}")
    Y = frame[labels].astype(np.int64 if task == "multi-label" else np.float64)
    return frame.drop(columns=labels).astype(np.float64), Y


def load_emotions():
    """The emotions multi-label data (shipped): see :func:`load_multi_output`.

    Returns
    -------
    X : DataFrame of shape (593, 72), float64
        Rhythmic and timbre features of 30-second clips of music.
    Y : DataFrame of shape (593, 6), int64
        The emotions a panel heard in each clip (Trohidis et al. 2008).

    References
    ----------
    .. [1] Trohidis, K., Tsoumakas, G., Kalliris, G., Vlahavas, I. (2008).
       Multi-label classification of music into emotions. ISMIR.
    """
    return load_multi_output("emotions")


def load_atp7d():
    """The atp7d multi-output regression data (shipped): see :func:`load_multi_output`.

    Returns
    -------
    X : DataFrame of shape (296, 411), float64
        Airline ticket prices and their context, day by day.
    Y : DataFrame of shape (296, 6), float64
        The minimum prices seven days later, per airline (and overall).

    References
    ----------
    .. [1] Spyromitros-Xioufis, E., Tsoumakas, G., Groves, W., Vlahavas, I.
       (2016). Multi-target regression via input space expansion: treating
       targets as inputs. Machine Learning 104, 55-98.
    """
    return load_multi_output("atp7d")


def _read_text(directory, file_name):
    """The file, or its gzipped twin, as text."""
    for candidate, opener in ((file_name, open), (file_name + ".gz", gzip.open)):
        path = directory / candidate
        if path.is_file():
            with opener(path, "rt", encoding="utf-8") as file:
                return file.read()
    raise FileNotFoundError(f"{file_name} (or {file_name}.gz) is not in {directory}.")


def _label_names(xml_text):
    """The ``name`` of every ``<label>`` of a MULAN labels file, in order.

    A regular expression, not an XML parser: the files are flat lists of
    empty elements, and this reads no entities or external references.
    """
    return [html.unescape(name) for name in re.findall(r'<label\s+name="([^"]*)"', xml_text)]


def _unquoted(name):
    """An attribute name without the quotes ARFF (and some files) wrap it in."""
    return name.strip().strip('"').strip("'")


def _read_dense_arff(text):
    from scipy.io import arff

    data, meta = arff.loadarff(io.StringIO(text))
    columns = {}
    for name in meta.names():
        values = data[name]
        if values.dtype.kind == "S":  # nominal {0,1}: bytes
            values = pd.to_numeric(pd.Series(values).str.decode("utf-8")).to_numpy()
        columns[_unquoted(name)] = values
    return pd.DataFrame(columns)


def _sparse_arff_entries(text):
    """``(values, rows, cols, names)`` of a sparse ARFF file's stored entries."""
    try:
        import arff
    except ImportError:
        raise ImportError("enron is a sparse ARFF file, read by liac-arff: pip install "
                          "liac-arff (or rulebook[datasets]).") from None
    decoded = arff.loads(text, encode_nominal=True, return_type=arff.COO)
    values, (rows, cols) = decoded["data"][0], decoded["data"][1:]
    names = [_unquoted(name) for name, _ in decoded["attributes"]]
    return (np.asarray(values, dtype=np.float64), np.asarray(rows, dtype=np.intp),
            np.asarray(cols, dtype=np.intp), names)


def _read_sparse_arff(text):
    values, rows, cols, names = _sparse_arff_entries(text)
    dense = np.zeros((max(rows, default=-1) + 1, len(names)))
    dense[rows, cols] = values
    return pd.DataFrame(dense, columns=names)


def _read_sparse_arff_matrix(text, labels, xml_name):
    """``(X, Y)`` of a sparse ARFF file: X a CSR matrix of the features, never dense."""
    values, rows, cols, names = _sparse_arff_entries(text)
    missing = [label for label in labels if label not in names]
    if missing:
        raise ValueError(f"{xml_name} names labels that the ARFF file lacks: {missing[:5]}")
    n = int(rows.max(initial=-1)) + 1
    matrix = scipy_sparse.csc_matrix((values, (rows, cols)), shape=(n, len(names)))
    is_label = np.isin(names, labels)
    position = {name: j for j, name in enumerate(names)}
    X = matrix[:, np.flatnonzero(~is_label)].tocsr()
    Y = pd.DataFrame(matrix[:, [position[label] for label in labels]].toarray().astype(np.int64),
                     columns=labels)
    return X, Y


def _read_svmlight(text, sparse=False):
    from sklearn.datasets import load_svmlight_file

    X, labels = load_svmlight_file(io.BytesIO(text.encode("utf-8")), multilabel=True,
                                   zero_based=False)
    Y = np.zeros((X.shape[0], _YEAST_LABELS), dtype=np.int64)
    for i, row in enumerate(labels):
        Y[i, np.asarray(row, dtype=np.intp)] = 1
    Y = pd.DataFrame(Y, columns=range(_YEAST_LABELS))
    if sparse:
        return X.tocsr().astype(np.float64), Y
    X = pd.DataFrame(X.toarray(), columns=[f"x{j + 1}" for j in range(X.shape[1])])
    return X, Y
