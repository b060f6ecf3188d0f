"""Linear terms of a rule ensemble: RuleFit's winsorised linear basis functions.

Friedman and Popescu (2008, Section 5) add to the rules a linear function
of each numeric input, made robust to outliers by winsorising it at its
``delta`` and ``1 - delta`` quantiles,

    ``l*_j(x_j) = min(delta+_j, max(delta-_j, x_j))``,

and scaled to ``l_j = 0.4 l*_j / std(l*_j)``, so that before the L1 fit a
term has the prior importance of a typical rule: 0.4 is the mean standard
deviation ``sqrt(s (1 - s))`` of a rule whose support ``s`` is uniform on
``(0, 1)``. The scaling decides only how strongly the L1 penalty shrinks a
term; the fitted model is the same function of ``x`` whatever the scale,
so a :class:`LinearTerm` holds it in the column's own units:

    ``w (clip(x, lower, upper) - centre)``,

``lower`` and ``upper`` the quantiles (data values), ``centre`` the
training mean of the clipped column, ``w`` the change of the raw score per
unit of ``x``. It prints so, ``+0.0123 * (clip(Age, 1, 65) - 29.7)``, and a
reader computes its contribution from the printed numbers.

Design decisions
----------------
* **Missing values** contribute 0: the term is centred on its training
  mean, so a missing ``x`` is read as that mean (mean imputation), never a
  NaN prediction. The L1 fit sees the same 0 on the training rows with
  ``x`` missing, so the weights are fitted to the very model that predicts
  (as rules are fitted with rulebook's missing-value semantics).
* **Quantiles** are weighted (by ``sample_weight``, rows of weight 0
  removed) and of the *inverted CDF* kind (``numpy.quantile(...,
  method="inverted_cdf")``): ``lower`` and ``upper`` are values of the
  column, and unit weights give the unweighted quantiles exactly.
* **Standard deviation** ``std`` is the weighted one (``ddof=0``) of the
  centred, clipped column over the training rows of positive weight, with
  missing values at 0 (the centre) as the model reads them. Its importance
  ``|w| std`` is then the paper's ``|b_j| std(l_j)`` ([1], Section 6),
  invariant to the scaling. A column of ``std`` 0 (constant after
  winsorising, or all missing) gets no term.

References
----------
.. [1] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3), 916-954. Section 5
   (linear basis functions: winsorising, the 0.4 / std scaling), Section 6
   (importance of a linear term, global and local).
"""

import math
from dataclasses import dataclass

import numpy as np

from ._canonical import format_feature
from ._formatting import format_exact, format_number, format_weight
from ._predict import _column, column_values

# Winsorising quantile delta and the prior standard deviation of a scaled
# term ([1], Section 5): the mean of sqrt(s (1 - s)) over s ~ U(0, 1) is
# pi / 8 = 0.39..., which the paper rounds to 0.4.
DELTA = 0.025
PRIOR_STD = 0.4


@dataclass(frozen=True)
class LinearTerm:
    """A winsorised linear term ``weight * (clip(x, lower, upper) - centre)``.

    Parameters
    ----------
    feature : str or int
        Column name.
    lower, upper : float
        Winsorising bounds, the ``delta`` and ``1 - delta`` quantiles of the
        training column (values of the column); ``lower <= upper``.
    centre : float
        Training mean of the clipped column: a row at the mean, or with the
        value missing, contributes 0.
    std : float
        Training standard deviation of the clipped column (missing values
        at the centre); ``|weight| * std`` is the term's importance.
    weight : float
        Change of the raw score per unit of the column, between the bounds.
    index : int, default=0
        Column position, to read ndarrays and frames without names.

    Raises
    ------
    ValueError
        If a bound, the centre or ``std`` is not finite, ``lower > upper``
        or ``std < 0``; the message names the column.

    Examples
    --------
    >>> import pandas as pd
    >>> term = LinearTerm("Age", 1.0, 65.0, 30.0, 14.0, 0.5)
    >>> print(term)
    +0.5 * (clip(Age, 1, 65) - 30)
    >>> term.evaluate(pd.DataFrame({"Age": [20.0, 90.0, None]}))
    array([-5. , 17.5,  0. ])
    """

    feature: object
    lower: float
    upper: float
    centre: float
    std: float
    weight: float
    index: int = 0

    def __post_init__(self):
        for name in ("lower", "upper", "centre", "std", "weight"):
            object.__setattr__(self, name, float(getattr(self, name)))
        values = (self.lower, self.upper, self.centre, self.std)
        if not all(map(math.isfinite, values)) or self.lower > self.upper or self.std < 0:
            raise ValueError(
                f"linear term on column {self.feature!r}: lower, upper, centre and std must be "
                f"finite numbers with lower <= upper and std >= 0; got lower={self.lower!r}, "
                f"upper={self.upper!r}, centre={self.centre!r}, std={self.std!r}.")

    @classmethod
    def winsorised(cls, feature, values, sample_weight=None, delta=DELTA, index=0):
        """The term of a training column, with weight 0 ([1], Section 5).

        Parameters
        ----------
        feature : str or int
        values : array-like of shape (n_samples,), float
            The column, NaN where missing.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative; rows of weight 0 are left out.
        delta : float in [0, 0.5), default=0.025
            Winsorising quantile.
        index : int, default=0

        Returns
        -------
        LinearTerm or None
            None when the clipped column has standard deviation 0 (constant,
            or no present value of positive weight): it has no linear term.
        """
        values = np.asarray(values, dtype=np.float64)
        weights = np.ones(len(values)) if sample_weight is None else np.asarray(sample_weight, float)
        active = weights > 0
        present = active & ~np.isnan(values)
        if not present.any():
            return None
        lower, upper = np.quantile(values[present], [delta, 1.0 - delta], method="inverted_cdf",
                                   weights=weights[present])
        clipped = np.clip(values[present], lower, upper)
        centre = float(np.average(clipped, weights=weights[present]))
        # Missing rows sit at the centre, as the model reads them.
        deviation = np.zeros(len(values))
        deviation[present] = clipped - centre
        std = float(np.sqrt(np.average(deviation[active] ** 2, weights=weights[active])))
        if not std > 0:
            return None
        return cls(feature, lower, upper, centre, std, 0.0, index)

    # -- evaluation ---------------------------------------------------------
    def basis(self, values):
        """``clip(x, lower, upper) - centre`` of float64 values, 0 where NaN."""
        with np.errstate(invalid="ignore"):
            centred = np.clip(values, self.lower, self.upper) - self.centre
        return np.where(np.isnan(values), 0.0, centred)

    def contribution(self, values):
        """``weight * basis(values)``: what the term adds to the raw score."""
        return self.weight * self.basis(values)

    def evaluate(self, X, by_name=True):
        """Contribution of the term, shape (n_samples,), float64.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        by_name : bool, default=True
            Find the column of a DataFrame by name (else by position).

        Raises
        ------
        ValueError
            If the column is missing from ``X``.
        """
        values, _ = column_values(_column(X, self.feature, self.index, by_name), numeric=True)
        return self.contribution(values)

    @property
    def importance(self):
        """``|weight| * std``: the paper's ``|b_j| std(l_j)`` ([1], Section 6)."""
        return abs(self.weight) * self.std

    # -- presentation -------------------------------------------------------
    def __len__(self):
        # One column, as a rule of one condition: complexity counts it so.
        return 1

    def expression(self):
        """The term without its weight: ``'(clip(Age, 1, 65) - 29.7)'``.

        The bounds print exactly (they are values of the column); the centre,
        a mean, to five significant digits.
        """
        clip = (f"clip({format_feature(self.feature)}, {format_exact(self.lower)}, "
                f"{format_exact(self.upper)})")
        if self.centre == 0:
            return clip
        sign = "-" if self.centre > 0 else "+"
        return f"({clip} {sign} {format_number(abs(self.centre))})"

    def __str__(self):
        return f"{format_weight(self.weight)} * {self.expression()}"

    def to_dict(self):
        """JSON-compatible dict; floats round-trip exactly."""
        return {"feature": self.feature, "index": self.index, "lower": self.lower,
                "upper": self.upper, "centre": self.centre, "std": self.std,
                "weight": self.weight}
