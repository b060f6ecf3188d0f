"""Synthetic problems of the rule-boosting papers, as ``(X, y)`` pandas pairs."""

import numpy as np
import pandas as pd
from sklearn import datasets as _skd
from sklearn.utils import check_random_state

__all__ = ["make_noisy_parity", "make_friedman1", "make_friedman2", "make_friedman3"]


def _columns(n_features):
    return [f"x{i + 1}" for i in range(n_features)]


def make_noisy_parity(n_samples=1000, n_features=2, *, noise=0.5, random_state=None):
    """Generate the noisy parity problem of Boley et al. (2021), Fig. 1.

    Latent cluster centres are the corners of the cube,
    ``C ~ Unif({-1, 1}^d)``; the observed features are ``X | C ~ Normal(C,
    noise^2 I_d)``; the label is the parity ``Y = prod_i C_i`` in {-1, 1}.
    No proper subset of the features carries information about ``Y``, so a
    greedy rule learner's first ``d - 1`` cuts are chosen by sampling noise,
    while the 2^d optimal rules "sign pattern of X" recover the parity.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=2
        Dimension ``d`` of the cube; every feature is relevant.
    noise : float, default=0.5
        Standard deviation ``sigma`` of each cluster. The paper does not
        state sigma; 0.5 (variance 0.25) is the default of the authors'
        reference generator (``noisy_parity`` in the realkd package). With
        it, the Bayes accuracy is ``(1 + (2 Phi(1 / sigma) - 1)^d) / 2``,
        about 0.955 for ``d = 2``.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_features), float64
        Columns ``x1`` ... ``xd``.
    y : pandas.Series of shape (n_samples,), int64
        Named ``y``; values -1 and 1, the parity of the latent centre.

    Notes
    -----
    The paper adds no irrelevant features to this problem, so neither does
    this generator; append noise columns to ``X`` to study them. Paper 1's
    settings for it are lambda = 10 and 8 propositions per column.

    References
    ----------
    .. [1] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021. Fig. 1.

    Examples
    --------
    >>> X, y = make_noisy_parity(500, 3, random_state=0)
    >>> X.shape, sorted(y.unique().tolist())
    ((500, 3), [-1, 1])
    """
    if n_samples < 1 or n_features < 1:
        raise ValueError("n_samples and n_features must be at least 1")
    if noise < 0:
        raise ValueError(f"noise must be non-negative, got {noise}")
    rng = check_random_state(random_state)
    centres = rng.choice(np.array([-1, 1]), size=(n_samples, n_features))
    X = centres + noise * rng.standard_normal((n_samples, n_features))
    y = np.prod(centres, axis=1).astype(np.int64)
    return pd.DataFrame(X, columns=_columns(n_features)), pd.Series(y, name="y")


def _as_frame(X, y):
    return pd.DataFrame(X, columns=_columns(X.shape[1])), pd.Series(y, name="y")


# Paper 1 (Table 1) used 2000, 10000 and 5000 rows for friedman1-3; neither
# paper states the noise. 0.1 is what the orthogonal-boosting authors'
# experiment code (FCOGB, evaluation/get_datasets.py) passes to scikit-learn.
_PAPER_NOISE = 0.1


def make_friedman1(n_samples=2000, n_features=10, *, noise=_PAPER_NOISE, random_state=None):
    """Generate Friedman #1 regression data as pandas objects.

    ``y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + noise * N(0, 1)``
    with ``x ~ Unif[0, 1]^n_features``; features beyond the fifth are
    irrelevant. Wraps :func:`sklearn.datasets.make_friedman1`.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of rows (paper 1, Table 1).
    n_features : int, default=10
        Number of features, at least 5 (paper 1 uses 10).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise. The papers do not state
        it; 0.1 is the value in the orthogonal-boosting experiment code.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, n_features), float64
        Columns ``x1`` ... ``x{n_features}``.
    y : pandas.Series of shape (n_samples,), float64
        Named ``y``.

    References
    ----------
    .. [1] J. H. Friedman. Multivariate adaptive regression splines.
           The Annals of Statistics 19(1):1-67, 1991.
    .. [2] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021. Table 1.
    .. [3] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = make_friedman1(random_state=0)
    >>> X.shape
    (2000, 10)
    """
    X, y = _skd.make_friedman1(
        n_samples=n_samples, n_features=n_features, noise=noise, random_state=random_state
    )
    return _as_frame(X, y)


def make_friedman2(n_samples=10000, *, noise=_PAPER_NOISE, random_state=None):
    """Generate Friedman #2 regression data as pandas objects.

    Impedance of an AC circuit, ``y = sqrt(x1^2 + (x2 x3 - 1 / (x2 x4))^2)``
    with ``x1 ~ U[0, 100]``, ``x2 ~ U[40 pi, 560 pi]``, ``x3 ~ U[0, 1]``,
    ``x4 ~ U[1, 11]``. Wraps :func:`sklearn.datasets.make_friedman2`.

    Parameters
    ----------
    n_samples : int, default=10000
        Number of rows (paper 1, Table 1).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise. The papers do not state
        it; 0.1 is the value in the orthogonal-boosting experiment code.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 4), float64
        Columns ``x1`` ... ``x4``.
    y : pandas.Series of shape (n_samples,), float64
        Named ``y``.

    References
    ----------
    .. [1] J. H. Friedman. Multivariate adaptive regression splines.
           The Annals of Statistics 19(1):1-67, 1991.
    .. [2] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021. Table 1.
    .. [3] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = make_friedman2(random_state=0)
    >>> X.shape
    (10000, 4)
    """
    X, y = _skd.make_friedman2(n_samples=n_samples, noise=noise, random_state=random_state)
    return _as_frame(X, y)


def make_friedman3(n_samples=5000, *, noise=_PAPER_NOISE, random_state=None):
    """Generate Friedman #3 regression data as pandas objects.

    Phase angle of the same circuit as Friedman #2,
    ``y = arctan((x2 x3 - 1 / (x2 x4)) / x1)``, same feature ranges.
    Wraps :func:`sklearn.datasets.make_friedman3`.

    Parameters
    ----------
    n_samples : int, default=5000
        Number of rows (paper 1, Table 1).
    noise : float, default=0.1
        Standard deviation of the Gaussian noise. The papers do not state
        it; 0.1 is the value in the orthogonal-boosting experiment code.
    random_state : int, RandomState instance or None, default=None
        Seed or generator, as in scikit-learn.

    Returns
    -------
    X : pandas.DataFrame of shape (n_samples, 4), float64
        Columns ``x1`` ... ``x4``.
    y : pandas.Series of shape (n_samples,), float64
        Named ``y``.

    References
    ----------
    .. [1] J. H. Friedman. Multivariate adaptive regression splines.
           The Annals of Statistics 19(1):1-67, 1991.
    .. [2] M. Boley, S. Teshuva, P. Le Bodic and G. I. Webb. Better short than
           greedy: interpretable models through optimal rule boosting.
           SIAM International Conference on Data Mining (SDM), 2021. Table 1.
    .. [3] F. Yang, P. Le Bodic, M. Kamp and M. Boley. Orthogonal gradient
           boosting for simpler additive rule ensembles. AISTATS, 2024.
           Table 1.

    Examples
    --------
    >>> X, y = make_friedman3(random_state=0)
    >>> X.shape
    (5000, 4)
    """
    X, y = _skd.make_friedman3(n_samples=n_samples, noise=noise, random_state=random_state)
    return _as_frame(X, y)
