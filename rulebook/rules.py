"""Propositions, queries, rules and additive rule ensembles: plain values.

A fitted model is ``f(x) = intercept + sum_i w_i q_i(x)`` where each query
``q_i`` is a conjunction of propositions such as ``Age <= 19`` or
``Sex == male`` (Boley et al. 2021, Section 2.2). A query is always held in
its canonical form (:mod:`rulebook._canonical`): one condition per column,
numeric conditions merged into an interval such as ``9.35 < Fare <= 35``,
implied conditions removed; the rewrite is exact, missing values included.
Category values that could be misread print quoted
(``Department == "Research & Development"``, ``code == "1"`` unlike the
integer ``code == 1``), column names that are not plain Python identifiers
print in backticks as in :meth:`pandas.DataFrame.query`
(`` `High Temp (F)` <= 70 ``, `` `0` > 2 ``, a backtick inside doubled),
and control, bidirectional and invisible characters print as escapes
(``\\n``, ``\\x1b``, ``\\u202e``), so that a rule is one line that reads
one way; ``to_json`` keeps the raw names and values and their types. All classes here are
frozen, hashable dataclasses that speak only of real values and column
names, so a model pickles without hooks, round-trips through JSON and
predicts without any binning state.

A missing value (NaN, None, pd.NA) satisfies no proposition, ``!=``
included: a rule ``Embarked != "S"`` does not cover passengers whose port is
unknown.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 2.2.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 2 (complexity).
"""

import json
import operator
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ._canonical import canonical_propositions, format_condition, format_proposition
from ._formatting import format_weight
from ._predict import _column, decision_function

NUMERIC_OPERATORS = {
    "<=": operator.le,
    "<": operator.lt,
    ">": operator.gt,
    ">=": operator.ge,
}
NOMINAL_OPERATORS = {"==": operator.eq, "!=": operator.ne}
OPERATORS = tuple(NUMERIC_OPERATORS) + tuple(NOMINAL_OPERATORS)


@dataclass(frozen=True)
class Proposition:
    """An atomic condition on one column, such as ``Age <= 19``.

    Parameters
    ----------
    feature : str
        Column name.
    operator : {"<=", "<", ">", ">=", "==", "!="}
        Threshold operators apply to numeric columns, ``==``/``!=`` to
        nominal ones.
    value : float or category (str, int, bool, ...)
        Threshold or category; a value that occurs in the training data.
    index : int, default=0
        Column position, used to evaluate on ndarrays and on DataFrames
        whose columns have no names.
    """

    feature: str
    operator: str
    value: object
    index: int = 0

    def __post_init__(self):
        if self.operator not in OPERATORS:
            raise ValueError(f"operator must be one of {OPERATORS}; got {self.operator!r}.")

    @property
    def is_numeric(self):
        """True for threshold propositions."""
        return self.operator in NUMERIC_OPERATORS

    def evaluate(self, X, by_name=True):
        """Boolean mask of the rows satisfying the proposition.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        by_name : bool, default=True
            Find the column of a DataFrame by name (else by position).

        Returns
        -------
        ndarray of shape (n_samples,), bool

        Raises
        ------
        ValueError
            If the column is missing from ``X``.
        """
        column = _column(X, self.feature, self.index, by_name)
        missing = pd.isna(column).to_numpy()
        if self.is_numeric:
            values = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            with np.errstate(invalid="ignore"):
                result = NUMERIC_OPERATORS[self.operator](values, self.value)
            return result & ~missing & ~np.isnan(values)
        equal = np.fromiter(
            (v == self.value for v in column.to_numpy(dtype=object, na_value=None)), dtype=bool, count=len(column)
        )
        result = equal if self.operator == "==" else ~equal
        return result & ~missing

    def __str__(self):
        return format_proposition(self)

    def to_dict(self):
        """JSON-compatible dict; the value keeps its Python type."""
        return {
            "feature": self.feature,
            "operator": self.operator,
            "value": self.value,
            "value_type": type(self.value).__name__,
            "index": self.index,
        }

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        casts = {"float": float, "int": int, "str": str, "bool": bool}
        value = casts.get(data.get("value_type"), lambda v: v)(data["value"])
        return cls(data["feature"], data["operator"], value, int(data.get("index", 0)))


@dataclass(frozen=True)
class Query:
    """A conjunction of propositions; the empty query is always true.

    The propositions are kept in canonical form (:mod:`rulebook._canonical`):
    grouped per column in training order, the tightest lower and upper
    bound per numeric column, one ``==`` or the ``!=`` values per nominal
    column. The rewrite is exact, so ``Query(ps)`` holds on the same rows
    as the conjunction of ``ps``; queries that differ only in redundant or
    reordered propositions compare equal.

    Parameters
    ----------
    propositions : iterable of Proposition

    Notes
    -----
    ``len(query)`` is the number of *conditions*: constrained columns, a
    numeric interval ``a < x <= b`` or a set ``x not in {a, b}`` counting
    as one. Iterating yields the propositions.
    """

    propositions: tuple = ()

    def __post_init__(self):
        groups = canonical_propositions(self.propositions)
        object.__setattr__(self, "propositions", tuple(p for group in groups for p in group))
        object.__setattr__(self, "_groups", groups)

    @property
    def conditions(self):
        """The conditions: one tuple of propositions per constrained column.

        Returns
        -------
        tuple of tuple of Proposition
        """
        return self._groups

    def __len__(self):
        return len(self._groups)

    def __iter__(self):
        return iter(self.propositions)

    def __and__(self, other):
        extra = other.propositions if isinstance(other, Query) else (other,)
        return Query(self.propositions + tuple(extra))

    def evaluate(self, X, by_name=True):
        """Boolean mask of the rows in the query's extent.

        Returns
        -------
        ndarray of shape (n_samples,), bool
        """
        mask = np.ones(len(X), dtype=bool)
        for proposition in self.propositions:
            mask &= proposition.evaluate(X, by_name)
        return mask

    def condition_strings(self):
        """Each condition as text, e.g. ``['9.35 < Fare <= 35', 'Sex == female']``."""
        return [format_condition(group) for group in self._groups]

    def __str__(self):
        return " & ".join(self.condition_strings()) if self._groups else "True"


@dataclass(frozen=True)
class Rule:
    """A query with a weight: predicts ``weight`` where the query holds, else 0.

    Parameters
    ----------
    query : Query
    weight : float
        The rule weight (consequent) on the raw score scale.
    coverage : float or None
        Fraction of the training weight in the query's extent; metadata,
        ignored by equality and hashing.
    """

    query: Query
    weight: float
    coverage: float = field(default=None, compare=False)

    def evaluate(self, X, by_name=True):
        """Contribution of the rule, shape (n_samples,), float64."""
        return np.where(self.query.evaluate(X, by_name), self.weight, 0.0)

    def __len__(self):
        return len(self.query)

    def __str__(self):
        return f"{format_weight(self.weight)} if {self.query}"


@dataclass(frozen=True)
class RuleEnsemble:
    """An additive rule ensemble ``f(x) = intercept + sum_i w_i q_i(x)``.

    Parameters
    ----------
    intercept : float
        The background rule's weight (the raw score of the empty model).
    rules : tuple of Rule
    loss : {"squared", "logistic", "poisson"}, default="squared"
        Decides the inverse link used by :meth:`predict`.
    feature_names : tuple of str or None
        Training columns; ``None`` when unknown.
    by_name : bool, default=True
        Evaluate DataFrames by column name (``False`` for models fitted on
        ndarrays or on frames without string column names).

    Examples
    --------
    >>> import pandas as pd
    >>> from rulebook import Proposition, Query, Rule, RuleEnsemble
    >>> rule = Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5)
    >>> model = RuleEnsemble(1.0, (rule,))
    >>> model.predict(pd.DataFrame({"Age": [10, 30, None]}))
    array([3.5, 1. , 1. ])
    >>> print(model)
        +1  (intercept)
      +2.5  if Age <= 19
    """

    intercept: float
    rules: tuple = ()
    loss: str = "squared"
    feature_names: tuple = None
    by_name: bool = True

    def __post_init__(self):
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "intercept", float(self.intercept))
        if self.feature_names is not None:
            object.__setattr__(self, "feature_names", tuple(self.feature_names))

    # -- container protocol ---------------------------------------------
    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, item):
        """``ensemble[i]`` is a Rule; ``ensemble[:k]`` the first ``k`` rules."""
        if isinstance(item, slice):
            return replace(self, rules=self.rules[item])
        return self.rules[item]

    @property
    def complexity(self):
        """Number of rules plus their total number of conditions (Yang et al. 2024, Sec. 2).

        Conditions are counted in canonical form: an interval
        ``a < x <= b`` or a set ``x not in {a, b}`` is one condition.
        """
        return len(self.rules) + sum(len(rule) for rule in self.rules)

    # -- evaluation ---------------------------------------------------------
    def query_matrix(self, X):
        """Which rows each rule covers.

        Returns
        -------
        ndarray of shape (n_samples, n_rules), bool
        """
        columns = [rule.query.evaluate(X, self.by_name) for rule in self.rules]
        return np.column_stack(columns) if columns else np.zeros((len(X), 0), dtype=bool)

    def decision_function(self, X):
        """Raw scores ``f(x)``, shape (n_samples,), float64.

        Large inputs are scored by a parallel numba kernel; the result is the
        same to the last bit (weights are added in rule order either way).

        Raises
        ------
        ValueError
            If a column the rules use is missing from ``X``.
        """
        return decision_function(self, X)

    def predict(self, X):
        """Predicted mean: the raw score through the loss's inverse link.

        Identity for squared loss, probability of the positive class for
        logistic loss, ``exp`` for Poisson loss.

        Returns
        -------
        ndarray of shape (n_samples,), float64
        """
        from .losses import get_loss

        return get_loss(self.loss).inverse_link(self.decision_function(X))

    # -- presentation -------------------------------------------------------
    def __str__(self):
        weights = [format_weight(self.intercept)] + [format_weight(r.weight) for r in self.rules]
        width = max(map(len, weights))
        lines = [f"{weights[0]:>{width + 2}}  (intercept)"]
        lines += [f"{w:>{width + 2}}  if {r.query}" for w, r in zip(weights[1:], self.rules)]
        return "\n".join(lines)

    def __repr__(self):
        header = (
            f"<RuleEnsemble: {len(self.rules)} rules, complexity {self.complexity}, "
            f"{self.loss} loss>"
        )
        return header + "\n" + str(self)

    def _repr_html_(self):
        """Rich notebook repr; None (text repr) with set_options(display="text")."""
        from ._repr_html import repr_html

        return repr_html(self)

    def to_frame(self):
        """One row per rule: condition, weight, coverage, length.

        Returns
        -------
        DataFrame
            Columns ``rule`` (str), ``weight`` (float64), ``coverage``
            (float64, fraction of training weight; NaN if unknown),
            ``length`` (int64, number of conditions).
        """
        return pd.DataFrame(
            {
                "rule": [str(r.query) for r in self.rules],
                "weight": np.array([r.weight for r in self.rules], dtype=np.float64),
                "coverage": np.array(
                    [np.nan if r.coverage is None else r.coverage for r in self.rules],
                    dtype=np.float64,
                ),
                "length": np.array([len(r) for r in self.rules], dtype=np.int64),
            },
            index=pd.RangeIndex(1, len(self.rules) + 1, name="rank"),
        )

    def to_dict(self):
        """JSON-compatible dict (the single source of truth for serialisation)."""
        return {
            "format": "rulebook.RuleEnsemble",
            "version": 1,
            "loss": self.loss,
            "intercept": self.intercept,
            "feature_names": None if self.feature_names is None else list(self.feature_names),
            "by_name": self.by_name,
            "rules": [
                {
                    "weight": rule.weight,
                    "coverage": rule.coverage,
                    "query": [p.to_dict() for p in rule.query],
                }
                for rule in self.rules
            ],
        }

    def to_json(self, **kwargs):
        """Serialise to a JSON string; floats round-trip exactly."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ValueError
            If ``data`` is not a serialised RuleEnsemble.
        """
        if data.get("format") != "rulebook.RuleEnsemble":
            raise ValueError("not a serialised rulebook.RuleEnsemble (missing 'format' field).")
        rules = tuple(
            Rule(
                Query(tuple(Proposition.from_dict(p) for p in r["query"])),
                float(r["weight"]),
                r.get("coverage"),
            )
            for r in data["rules"]
        )
        names = data.get("feature_names")
        return cls(
            data["intercept"],
            rules,
            data.get("loss", "squared"),
            None if names is None else tuple(names),
            data.get("by_name", True),
        )

    @classmethod
    def from_json(cls, text):
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(json.loads(text))
