"""Named loaders for the datasets shipped inside the package.

Each is a documented shortcut for :func:`load_dataset`; the facts behind them
(files, target, dropped columns, licence) live in the registry.
"""

from ._loaders import load_dataset

__all__ = [
    "load_titanic",
    "load_tic_tac_toe",
    "load_breast_cancer",
    "load_insurance",
    "load_used_cars",
    "load_diabetes",
    "load_ships",
]


def load_titanic(*, dropna=False):
    """Load the Titanic passengers (binary classification).

    The Kaggle training and test files concatenated (the test file here has
    labels), without the identifier-like columns PassengerId, Name, Ticket
    and Cabin.

    Parameters
    ----------
    dropna : bool, default=False
        Drop the 266 rows with a missing Age, Embarked or Fare, giving the
        1043 rows used in the papers. By default they are kept as NaN.

    Returns
    -------
    X : pandas.DataFrame of shape (1309, 7), or (1043, 7) with dropna
        Pclass (int64), Sex (str), Age (float64, 263 NaN), SibSp (int64),
        Parch (int64), Fare (float64, 1 NaN), Embarked (str: C, Q, S; 2 NaN).
    y : pandas.Series of shape (1309,) or (1043,), int64
        ``Survived``: 1 survived (494 of 1309), 0 died.

    Notes
    -----
    Source: Kaggle competition "Titanic - Machine Learning from Disaster";
    the passenger list comes from Encyclopedia Titanica. Licence: not stated
    by Kaggle; OpenML lists the passenger list (data id 40945) as public.
    See ``rulebook/datasets/data/README.md``.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 (lambda = 1).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_titanic()
    >>> X.shape
    (1309, 7)
    >>> y.name, y.dtype
    ('Survived', dtype('int64'))
    >>> load_titanic(dropna=True)[0].shape
    (1043, 7)
    """
    return load_dataset("titanic", dropna=dropna)


def load_tic_tac_toe():
    """Load the tic-tac-toe endgames (binary classification).

    Returns
    -------
    X : pandas.DataFrame of shape (958, 9)
        V1-V9, the board squares row by row from the top-left, each a
        string 'x', 'o' or 'b' (blank); x moved first.
    y : pandas.Series of shape (958,), str
        ``V10``: 'positive' (626) when x has three in a row, else 'negative'.

    Notes
    -----
    Source: UCI Machine Learning Repository, Tic-Tac-Toe Endgame (D. W. Aha,
    1991), id 101; column names as in the R / OpenML export. Licence:
    CC BY 4.0.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 and Sec. 4 (lambda = 2).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_tic_tac_toe()
    >>> X.shape
    (958, 9)
    >>> sorted(y.unique())
    ['negative', 'positive']
    """
    return load_dataset("tic_tac_toe")


def load_breast_cancer():
    """Load Breast Cancer Wisconsin (Diagnostic) (binary classification).

    Returns
    -------
    X : pandas.DataFrame of shape (569, 30)
        Thirty float64 features of cell nuclei (mean, error and worst of ten
        measurements), named as in scikit-learn.
    y : pandas.Series of shape (569,), int64
        ``y``: 1 benign (357), -1 malignant (212). Note the positive class is
        *benign*, following scikit-learn's target coding.

    Notes
    -----
    Source: UCI Machine Learning Repository, Breast Cancer Wisconsin
    (Diagnostic), id 17, dumped from ``sklearn.datasets.load_breast_cancer``.
    Licence: CC BY 4.0 (scikit-learn's copy ships under BSD-3-Clause).

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 (lambda = 2).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_breast_cancer()
    >>> X.shape
    (569, 30)
    >>> y.value_counts().to_dict()
    {1: 357, -1: 212}
    """
    return load_dataset("breast_cancer")


def load_insurance():
    """Load the medical insurance charges (regression).

    Returns
    -------
    X : pandas.DataFrame of shape (1338, 6)
        age (int64), sex (str), bmi (float64), children (int64),
        smoker (str: yes, no), region (str: four US regions).
    y : pandas.Series of shape (1338,), float64
        ``charges``: medical costs billed, in USD.

    Notes
    -----
    Source: Kaggle "Medical Cost Personal Datasets" (mirichoi0218), from
    B. Lantz, Machine Learning with R (Packt, 2013). Licence: the Kaggle page
    lists the Open Database License (ODbL 1.0); the book's data repository
    states none.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 (lambda = 2).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_insurance()
    >>> X.shape
    (1338, 6)
    >>> y.name, y.dtype
    ('charges', dtype('float64'))
    """
    return load_dataset("insurance")


def load_used_cars():
    """Load the used-car price groups (regression).

    Each row is a group of cars ads with equal mileage, year and power. The
    group's minPrice, maxPrice and sdPrice are dropped: they leak the target.

    Returns
    -------
    X : pandas.DataFrame of shape (1770, 4)
        count (int64, cars in the group), km (int64), year (int64),
        powerPS (int64).
    y : pandas.Series of shape (1770,), float64
        ``avgPrice``: mean asking price of the group, in EUR.

    Notes
    -----
    Source: aggregated from the Kaggle "Used cars database" (eBay
    Kleinanzeigen ads, 2016). Licence: the Kaggle page of the raw ads lists
    CC0 1.0; the aggregation's author and licence are not stated.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 and Sec. 4 (lambda = 10).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_used_cars()
    >>> X.shape
    (1770, 4)
    >>> list(X.columns)
    ['count', 'km', 'year', 'powerPS']
    """
    return load_dataset("used_cars")


def load_diabetes():
    """Load the diabetes progression data (regression).

    Returns
    -------
    X : pandas.DataFrame of shape (442, 10)
        age, sex, bmi, bp, s1-s6 (float64), mean-centred and scaled by
        scikit-learn.
    y : pandas.Series of shape (442,), float64
        ``y``: disease progression one year after baseline (25 to 346).

    Notes
    -----
    Source: ``sklearn.datasets.load_diabetes`` (Efron, Hastie, Johnstone and
    Tibshirani, 2004, "Least angle regression"). Licence: scikit-learn's copy
    ships under BSD-3-Clause; the original source states none.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021.
           Table 1 (lambda = 5).
    .. [2] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_diabetes()
    >>> X.shape
    (442, 10)
    >>> y.name, y.dtype
    ('y', dtype('float64'))
    """
    return load_dataset("diabetes")


def load_ships():
    """Load the ship damage incidents (Poisson counts).

    Returns
    -------
    X : pandas.DataFrame of shape (34, 4)
        type (category, ship types A-E coded 1-5: nominal), Construction
        (int64, period of construction 1960-64 ... 1975-79 coded 1-4),
        operation (int64, period of operation 1960-74 coded 1 and 1975-79
        coded 4), months (int64, aggregate months of service).
    y : pandas.Series of shape (34,), int64
        ``damage``: number of damage incidents.

    Notes
    -----
    The classical analysis uses log(months) as an offset; the papers, and
    this loader, keep months as an ordinary feature. Source: McCullagh and
    Nelder, Generalized Linear Models, 2nd ed. (1989), Sec. 6.3.2 (also R's
    ``MASS::ships``). Licence: not stated by the source.

    References
    ----------
    .. [1] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = load_ships()
    >>> X.shape
    (34, 4)
    >>> X["type"].cat.categories.tolist()
    [1, 2, 3, 4, 5]
    >>> int(y.sum())
    356
    """
    return load_dataset("ships")

