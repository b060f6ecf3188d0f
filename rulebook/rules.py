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

An ensemble may also hold linear terms ``w (clip(x, lower, upper) - c)`` on
numeric columns (:class:`~rulebook.linear_terms.LinearTerm`, RuleFit's
winsorised linear basis functions, Friedman and Popescu 2008, Section 5),
after its rules: ``f(x) = intercept + sum_i w_i q_i(x) + sum_j w_j l_j(x_j)``.
A missing value contributes 0 to a term (it is read as the training mean).

A model of several outputs (a multi-class model) has one raw score per
output, ``f_k(x) = intercept_k + sum_i w_ik q_i(x)``: its ``outputs`` name
them (the class labels), and the intercept and each rule's weight are
tuples of one float per output (a rule's *complete head*, Rapp et al.
2023, Section 2.4.2); it prints a weight column per output.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 2.2.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 2 (complexity).
.. [3] Friedman, J. H., Popescu, B. E. (2008). Predictive learning via rule
   ensembles. The Annals of Applied Statistics 2(3), 916-954. Section 5
   (linear basis functions).
.. [4] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning (BOOMER). Advances in
   Data Analysis and Classification. Section 2.4.2 (rule heads for several
   labels).
"""

import json
import numbers
import operator
import re
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ._canonical import (
    canonical_propositions,
    escape_unsafe,
    format_condition,
    format_proposition,
)
from ._formatting import format_weight
from ._predict import (
    _column,
    column_values,
    decision_function,
    reads_by_name,
    rule_masks,
    term_contributions,
)
from .linear_terms import LinearTerm

NUMERIC_OPERATORS = {
    "<=": operator.le,
    "<": operator.lt,
    ">": operator.gt,
    ">=": operator.ge,
}
NOMINAL_OPERATORS = {"==": operator.eq, "!=": operator.ne}
OPERATORS = tuple(NUMERIC_OPERATORS) + tuple(NOMINAL_OPERATORS)

FORMAT = "rulebook.RuleEnsemble"
# Versions of the JSON form that from_dict reads. to_dict writes the oldest
# that holds the model: 1 without linear terms (what rulebooks before them
# read), 2 with them, so that an older rulebook refuses such a file rather
# than read it without its terms (its from_dict ignores unknown fields).
# 3: several outputs (a multi-class model: ``outputs``, and a list of
# weights per rule and for the intercept), which older rulebooks refuse.
SUPPORTED_VERSIONS = (1, 2, 3)
TERMS_VERSION = 2
OUTPUTS_VERSION = 3
VALUE_TYPES = ("bool", "bytes", "float", "int", "str")


# -- JSON form: writing ------------------------------------------------------------
def _json_value(value, feature):
    """``(value, value_type)`` of a threshold or category, as JSON stores it.

    NumPy scalars become the Python value they hold; bytes are written as
    hex digits (``b"x\\xff"`` as ``"78ff"``, type ``"bytes"``), so that any
    byte string round-trips and the file stays text.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bytes):
        return value.hex(), "bytes"
    for kind in (bool, int, float, str):  # bool first: it is an int
        if isinstance(value, kind):
            return kind(value), kind.__name__
    raise ValueError(
        f"column {feature!r}: the category {value!r} (type {type(value).__name__}) cannot be "
        f"written to JSON; categories must be {', '.join(VALUE_TYPES)} (or NumPy scalars of "
        "those). Convert the column, e.g. to str, before fitting."
    )


# -- JSON form: reading, with the path of a bad field in the message ----------------
_NUMPY_TYPE_NAMES = {  # value_type as written by older versions for NumPy scalars
    **{name: "float" for name in ("float16", "float32", "float64", "double", "longdouble")},
    **{name: "int" for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64", "intc", "intp", "longlong")},
    "bool_": "bool", "str_": "str", "bytes_": "bytes",
}


def _invalid(path, problem):
    return ValueError(f"invalid serialised RuleEnsemble: {path!r} {problem}.")


def _field(data, key, path, required=True, default=None):
    name = f"{path}.{key}" if path else key
    if key not in data:
        if required:
            raise _invalid(name, "is missing")
        return default, name
    return data[key], name


def _object(value, path):
    if not isinstance(value, dict):
        raise _invalid(path, f"must be a JSON object; got {type(value).__name__}")
    return value


def _number(value, path, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _invalid(path, f"must be a number{' or null' if allow_none else ''}; got {value!r}")
    return float(value)


def _name(value, path):
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _invalid(path, f"must be a column name (string or integer); got {value!r}")
    return value


def _read_value(data, path):
    value, where = _field(data, "value", path)
    kind, kind_path = _field(data, "value_type", path, required=False)
    kind = _NUMPY_TYPE_NAMES.get(kind, kind)
    if kind is None:  # written by hand: the JSON type decides
        kind = next((k.__name__ for k in (bool, int, float, str) if isinstance(value, k)), None)
        if kind is None:
            raise _invalid(where, f"must be a number, a string or a boolean; got {value!r}")
    if kind not in VALUE_TYPES:
        raise _invalid(kind_path, f"is {kind!r}; valid types are {', '.join(map(repr, VALUE_TYPES))}")
    valid = {"bool": isinstance(value, bool),
             "int": isinstance(value, int) and not isinstance(value, bool),
             "float": isinstance(value, (int, float)) and not isinstance(value, bool),
             "str": isinstance(value, str),
             "bytes": isinstance(value, str) and re.fullmatch(r"(?:[0-9a-fA-F]{2})*", value) is not None}
    if not valid[kind]:
        raise _invalid(where, f"is {value!r}, not a valid {kind!r} value"
                       + (" (bytes are written as hex digits)" if kind == "bytes" else ""))
    return bytes.fromhex(value) if kind == "bytes" else {"bool": bool, "int": int, "float": float,
                                                         "str": str}[kind](value)


def _read_proposition(data, path):
    data = _object(data, path)
    feature = _name(*_field(data, "feature", path))
    operator_, where = _field(data, "operator", path)
    if operator_ not in OPERATORS:
        raise _invalid(where, f"is {operator_!r}; valid operators are {', '.join(map(repr, OPERATORS))}")
    value = _read_value(data, path)
    if operator_ in NUMERIC_OPERATORS and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise _invalid(f"{path}.value", f"must be a number (a threshold) for operator {operator_!r}; "
                       f"got {value!r}")
    index, where = _field(data, "index", path, required=False, default=0)
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise _invalid(where, f"must be a column position (an integer >= 0); got {index!r}")
    return Proposition(feature, operator_, value, index)


def _read_rule(data, path, n_outputs=None):
    data = _object(data, path)
    query, where = _field(data, "query", path)
    if not isinstance(query, list):
        raise _invalid(where, f"must be a list of propositions; got {type(query).__name__}")
    propositions = tuple(_read_proposition(p, f"{where}[{i}]") for i, p in enumerate(query))
    weight = _weights(*_field(data, "weight", path), n_outputs)
    coverage = _number(*_field(data, "coverage", path, required=False), allow_none=True)
    return Rule(Query(propositions), weight, coverage)


def _weights(value, path, n_outputs):
    """A number, or with ``n_outputs`` a list of that many numbers (a tuple)."""
    if n_outputs is None:
        return _number(value, path)
    if not isinstance(value, list) or len(value) != n_outputs:
        raise _invalid(path, f"must be a list of {n_outputs} numbers, one per output; got {value!r}")
    return tuple(_number(v, f"{path}[{i}]") for i, v in enumerate(value))


def _head(weight, n_outputs, what):
    """``weight`` as a tuple of ``n_outputs`` floats (a complete head)."""
    values = np.asarray(weight, dtype=np.float64)
    if values.shape != (n_outputs,):
        raise ValueError(f"{what} must have one value per output ({n_outputs}); got {weight!r}.")
    return tuple(float(w) for w in values)


def _read_outputs(data):
    """``outputs`` of a version-3 file, or None."""
    outputs, where = _field(data, "outputs", "", required=False)
    if outputs is None:
        return None
    if data["version"] < OUTPUTS_VERSION:
        raise _invalid(where, f"needs version {OUTPUTS_VERSION}; version {data['version']} has one "
                       "output")
    if not isinstance(outputs, list) or len(outputs) < 2:
        raise _invalid(where, f"must be a list of two or more output labels; got {outputs!r}")
    return tuple(_read_value(_object(o, f"{where}[{i}]"), f"{where}[{i}]")
                 for i, o in enumerate(outputs))


def _read_term(data, path):
    data = _object(data, path)
    feature = _name(*_field(data, "feature", path))
    index, where = _field(data, "index", path, required=False, default=0)
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise _invalid(where, f"must be a column position (an integer >= 0); got {index!r}")
    numbers_ = {key: _number(*_field(data, key, path))
                for key in ("lower", "upper", "centre", "std", "weight")}
    try:
        return LinearTerm(feature, index=index, **numbers_)
    except ValueError as error:
        raise _invalid(path, f"is not a valid linear term ({error})") from None


def _check_header(data):
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        got = f"a JSON {type(data).__name__}" if not isinstance(data, dict) else "no 'format' field"
        if isinstance(data, dict) and "format" in data:
            got = f"'format' {data['format']!r}"
        raise ValueError(f"not a serialised {FORMAT} (expected a JSON object with "
                         f"'format': {FORMAT!r}; got {got}).")
    version, _ = _field(data, "version", "")
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"invalid serialised RuleEnsemble: 'version' is {version!r}; this rulebook reads "
            f"supported versions {', '.join(map(str, SUPPORTED_VERSIONS))}. A newer version "
            "was written by a newer rulebook: upgrade rulebook to read it.")


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
        return self._holds(*column_values(column, self.is_numeric))

    def _holds(self, values, missing):
        """The mask on a column as :func:`rulebook._predict.column_values` gives it."""
        if self.is_numeric:
            with np.errstate(invalid="ignore"):
                result = NUMERIC_OPERATORS[self.operator](values, self.value)
            return result & ~missing & ~np.isnan(values)
        equal = np.fromiter((v == self.value for v in values), dtype=bool, count=len(values))
        result = equal if self.operator == "==" else ~equal
        return result & ~missing

    def __str__(self):
        return format_proposition(self)

    def to_dict(self):
        """JSON-compatible dict; the value keeps its type in ``value_type``.

        ``value_type`` is one of ``"bool"``, ``"bytes"``, ``"float"``,
        ``"int"``, ``"str"``. NumPy scalars are written as the Python value
        they hold; bytes as hex digits (``b"x\\xff"`` as ``"78ff"``).

        Raises
        ------
        ValueError
            If the value is of another type (e.g. a Timestamp category);
            the message names the column.
        """
        value, value_type = _json_value(self.value, self.feature)
        return {
            "feature": self.feature,
            "operator": self.operator,
            "value": value,
            "value_type": value_type,
            "index": self.index,
        }

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ValueError
            If a field is missing or invalid (the message names it and what
            is valid), e.g. a threshold operator with a non-numeric value.
        """
        return _read_proposition(data, "proposition")


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
    weight : float or tuple of float
        The rule weight (consequent) on the raw score scale; with several
        outputs (a multi-class model) one weight per output, BOOMER's
        *complete head*.
    coverage : float or None
        Fraction of the training weight in the query's extent; metadata,
        ignored by equality and hashing.
    """

    query: Query
    weight: float
    coverage: float = field(default=None, compare=False)

    def evaluate(self, X, by_name=True):
        """Contribution of the rule, shape (n_samples,) or (n_samples, K), float64."""
        mask = self.query.evaluate(X, by_name)
        if isinstance(self.weight, tuple):
            return np.where(mask[:, None], np.array(self.weight), 0.0)
        return np.where(mask, self.weight, 0.0)

    def __len__(self):
        return len(self.query)

    def __str__(self):
        if isinstance(self.weight, tuple):
            return f"({', '.join(map(format_weight, self.weight))}) if {self.query}"
        return f"{format_weight(self.weight)} if {self.query}"


@dataclass(frozen=True)
class RuleEnsemble:
    """An additive rule ensemble ``f(x) = intercept + sum_i w_i q_i(x) + sum_j w_j l_j(x_j)``.

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
        Read DataFrames only by column name (``False`` for models fitted on
        ndarrays or on frames without string column names: those read a
        frame by name when it has every column the rules use, and by
        position, like an array, when it has none of them).
    terms : tuple of LinearTerm, default=()
        Linear terms ``w_j (clip(x_j, lower, upper) - centre)`` on numeric
        columns (RuleFit's, Friedman and Popescu 2008, Section 5); a missing
        value contributes 0.
    outputs : tuple or None, default=None
        The outputs of a model with several (the class labels of a
        multi-class model, ``loss="multinomial"``): then ``intercept`` and
        every rule's weight are tuples of one float per output (a rule's
        *complete head*, Rapp et al. 2023), and :meth:`decision_function`
        returns one column per output. ``None``: one output, float weights.
        Linear terms are not supported with several outputs.

    Notes
    -----
    Linear terms belong to the base of the model, with the intercept: the
    ensemble is the sequence of its *rules* (``len``, iteration,
    ``ensemble[i]``, :meth:`to_frame`, :meth:`query_matrix`), and
    ``ensemble[:k]`` keeps the first ``k`` rules and every term, the model
    after ``k`` rounds of boosting (whose terms are fitted before the first
    rule). The terms are in :attr:`terms` and :meth:`terms_frame`; they
    print, predict, explain and serialise after the rules, and
    :attr:`complexity` counts each as a rule of one condition.

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

    Three outputs (the classes of a multi-class model):

    >>> heads = RuleEnsemble((0.0, 0.0, 0.0), (Rule(rule.query, (2.0, -1.0, -1.0)),),
    ...                      "multinomial", outputs=("child", "adult", "senior"))
    >>> heads.predict(pd.DataFrame({"Age": [10, 30]})).round(3)
    array([[0.909, 0.045, 0.045],
           [0.333, 0.333, 0.333]])
    >>> print(heads)
      child  adult  senior
         +0     +0      +0  (intercept)
         +2     -1      -1  if Age <= 19
    """

    intercept: float
    rules: tuple = ()
    loss: str = "squared"
    feature_names: tuple = None
    by_name: bool = True
    terms: tuple = ()
    outputs: tuple = None

    def __post_init__(self):
        object.__setattr__(self, "rules", tuple(self.rules))
        object.__setattr__(self, "terms", tuple(self.terms))
        if self.outputs is None:
            object.__setattr__(self, "intercept", float(self.intercept))
        else:
            self._check_outputs()
        if self.feature_names is not None:
            object.__setattr__(self, "feature_names", tuple(self.feature_names))

    def _check_outputs(self):
        """Tuples of one float per output (``outputs`` given)."""
        outputs = tuple(self.outputs)
        object.__setattr__(self, "outputs", outputs)
        k = len(outputs)
        as_head = lambda w, what: _head(w, k, what)
        object.__setattr__(self, "intercept", as_head(self.intercept, "the intercept"))
        object.__setattr__(self, "rules", tuple(
            replace(r, weight=as_head(r.weight, f"rule {i + 1}'s weight"))
            for i, r in enumerate(self.rules)))
        if self.terms:
            raise ValueError("linear terms are not supported in a model with several outputs.")

    @property
    def n_outputs(self):
        """Outputs the model predicts: 1, or ``len(outputs)``."""
        return 1 if self.outputs is None else len(self.outputs)

    # -- container protocol ---------------------------------------------
    def __len__(self):
        return len(self.rules)

    def __iter__(self):
        return iter(self.rules)

    def __getitem__(self, item):
        """``ensemble[i]`` is a Rule; ``ensemble[:k]`` the first ``k`` rules, every linear term."""
        if isinstance(item, slice):
            return replace(self, rules=self.rules[item])
        return self.rules[item]

    @property
    def complexity(self):
        """Number of rules plus their total number of conditions (Yang et al. 2024, Sec. 2).

        Conditions are counted in canonical form: an interval
        ``a < x <= b`` or a set ``x not in {a, b}`` is one condition. A
        linear term counts as a rule of one condition (2): one more term of
        the sum, reading one column.
        """
        return len(self.rules) + sum(len(rule) for rule in self.rules) + 2 * len(self.terms)

    # -- evaluation ---------------------------------------------------------
    def query_matrix(self, X):
        """Which rows each rule covers (rules only: a linear term covers no rows).

        Columns are found as in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples, n_rules), bool

        Raises
        ------
        ValueError
            As :meth:`decision_function`.
        """
        columns = list(rule_masks(self, X, reads_by_name(self, X)))
        return np.column_stack(columns) if columns else np.zeros((len(X), 0), dtype=bool)

    def term_contributions(self, X):
        """What each linear term adds to each row: ``w_j (clip(x_j) - centre_j)``.

        Columns are found as in :meth:`decision_function`.

        Returns
        -------
        ndarray of shape (n_samples, n_terms), float64
            0 where the term's column is missing.

        Raises
        ------
        ValueError
            As :meth:`decision_function`.
        """
        return term_contributions(self, X, reads_by_name(self, X))

    def decision_function(self, X):
        """Raw scores ``f(x)``, shape (n_samples,), float64; with several
        outputs one column per output, shape (n_samples, K).

        Large inputs are scored by a parallel numba kernel; the result is the
        same to the last bit (weights are added in rule order either way,
        then the linear terms' contributions in term order).

        A DataFrame that has every column the rules use is read by name,
        whatever the type of its labels (``str``, ``int``, ...), so its
        columns may come in any order; an array is read by position, and so
        is a frame with none of the rules' columns when the model was not
        fitted on named columns (``by_name=False``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Raises
        ------
        ValueError
            If ``X`` is a DataFrame that lacks some of the columns the rules
            or terms use (``by_name=True``, or some present and some not):
            the message names them.
        """
        return decision_function(self, X)

    def predict(self, X):
        """Predicted mean: the raw score through the loss's inverse link.

        Identity for squared loss, probability of the positive class for
        logistic loss, ``exp`` for Poisson loss, the class probabilities
        (softmax of the scores) for the multinomial loss.

        Returns
        -------
        ndarray of shape (n_samples,), or (n_samples, K) with several outputs, float64
        """
        from .losses import get_loss

        return get_loss(self.loss).inverse_link(self.decision_function(X))

    def explain(self, X, *, all_rules=False, output=None):
        """Each row's raw score as its terms: intercept, the rules that apply, total.

        See :func:`rulebook.explanations.explain` for the columns.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        all_rules : bool, default=False
            Also list the rules that do not apply (contribution 0).
        output : label of the outputs or None, default=None
            With several outputs (classes, labels, targets), the one to
            explain; None, each (an ``output`` column).

        Returns
        -------
        DataFrame
            Long format, one line per term and row; each row's ``total``
            line equals :meth:`decision_function` to the last bit.
        """
        from .explanations import explain

        return explain(self, X, all_rules=all_rules, output=output)

    def explain_row(self, X, row=0, *, all_rules=False, output=None):
        """One row's explanation, shown as a waterfall in a notebook.

        See :func:`rulebook.explanations.explain_row`.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
        row : int, default=0
            Position of the row in ``X`` (as ``iloc``).
        all_rules : bool, default=False
        output : label of the outputs or None, default=None
            With several outputs, the one to explain (one waterfall);
            None, each (a waterfall each).

        Returns
        -------
        rulebook.explanations.Explanation

        Raises
        ------
        IndexError
            If ``row`` is not a position in ``X``.
        """
        from .explanations import explain_row

        return explain_row(self, X, row, all_rules=all_rules, output=output)

    # -- presentation -------------------------------------------------------
    def __str__(self):
        if self.outputs is not None:
            return self._outputs_text()
        weights = [format_weight(w) for w in [self.intercept] + [x.weight for x in self.rules + self.terms]]
        texts = ["(intercept)"] + [f"if {r.query}" for r in self.rules] + [
            f"* {term.expression()}" for term in self.terms]
        width = max(map(len, weights))
        return "\n".join(f"{w:>{width + 2}}  {text}" for w, text in zip(weights, texts))

    def _outputs_text(self):
        """One column of weights per output under its label, then the rule."""
        labels = [escape_unsafe(str(label)) for label in self.outputs]
        rows = [[format_weight(w) for w in head]
                for head in [self.intercept] + [r.weight for r in self.rules]]
        widths = [max(len(label), *(len(row[k]) for row in rows)) for k, label in enumerate(labels)]
        # Indented by two, as the single-output form's weights are.
        line = lambda cells: "  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths))
        texts = ["(intercept)"] + [f"if {r.query}" for r in self.rules]
        return "\n".join([line(labels).rstrip()]
                         + [f"{line(row)}  {text}" for row, text in zip(rows, texts)])

    def __repr__(self):
        terms = f", {len(self.terms)} linear terms" if self.terms else ""
        outputs = f", {self.n_outputs} outputs" if self.outputs is not None else ""
        header = (
            f"<RuleEnsemble: {len(self.rules)} rules{terms}{outputs}, complexity "
            f"{self.complexity}, {self.loss} loss>"
        )
        return header + "\n" + str(self)

    def _repr_html_(self):
        """Rich notebook repr; None (text repr) with set_options(display="text")."""
        from ._repr_html import repr_html

        return repr_html(self)

    def to_frame(self):
        """One row per rule: condition, weight, coverage, length.

        The linear terms are in :meth:`terms_frame`.

        Returns
        -------
        DataFrame
            Columns ``rule`` (str), ``weight`` (float64), ``coverage``
            (float64, fraction of training weight; NaN if unknown),
            ``length`` (int64, number of conditions). With several
            outputs, one weight column per output, ``weight[label]``
            (:meth:`weight_columns`), in place of ``weight``.
        """
        if self.outputs is None:
            weights = {"weight": np.array([r.weight for r in self.rules], dtype=np.float64)}
        else:
            matrix = np.array([r.weight for r in self.rules], dtype=np.float64).reshape(
                len(self.rules), self.n_outputs)
            weights = dict(zip(self.weight_columns(), matrix.T))
        return pd.DataFrame(
            {
                "rule": [str(r.query) for r in self.rules],
                **weights,
                "coverage": np.array(
                    [np.nan if r.coverage is None else r.coverage for r in self.rules],
                    dtype=np.float64,
                ),
                "length": np.array([len(r) for r in self.rules], dtype=np.int64),
            },
            index=pd.RangeIndex(1, len(self.rules) + 1, name="rank"),
        )

    def weight_columns(self):
        """Names of :meth:`to_frame`'s weight columns: ``["weight"]``, or
        ``weight[label]`` per output (the label as ``str`` prints it)."""
        if self.outputs is None:
            return ["weight"]
        return [f"weight[{escape_unsafe(str(label))}]" for label in self.outputs]

    def terms_frame(self):
        """One row per linear term: column, expression, weight, bounds, centre, std, importance.

        Returns
        -------
        DataFrame
            Indexed 1, 2, ... (``terms[i - 1]``, named ``"term"``). Columns
            ``feature`` (object), ``expression`` (str, such as
            ``(clip(Age, 1, 65) - 29.7)``, whose value times ``weight`` is
            the contribution), ``weight`` (float64, per unit of the
            column), ``lower``, ``upper``, ``centre``, ``std`` and
            ``importance`` (float64, ``|weight| * std``).
        """
        terms = self.terms
        numbers_ = {name: np.array([getattr(t, name) for t in terms], dtype=np.float64)
                    for name in ("weight", "lower", "upper", "centre", "std", "importance")}
        return pd.DataFrame(
            {"feature": pd.Series([t.feature for t in terms], dtype=object),
             "expression": pd.Series([t.expression() for t in terms], dtype=object), **numbers_},
        ).set_axis(pd.RangeIndex(1, len(terms) + 1, name="term"), axis=0)

    def to_dict(self):
        """JSON-compatible dict (the single source of truth for serialisation).

        Version 1 without linear terms; version 2, with a ``linear_terms``
        list, when there are some (an older rulebook refuses it rather than
        drop them); version 3 with several outputs: ``outputs`` (their
        labels, typed as categories are) and lists of weights.
        """
        data = {
            "format": FORMAT,
            "version": OUTPUTS_VERSION if self.outputs is not None else TERMS_VERSION if self.terms else 1,
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
        if self.terms:
            data["linear_terms"] = [term.to_dict() for term in self.terms]
        if self.outputs is not None:
            data["intercept"] = list(self.intercept)
            for rule in data["rules"]:
                rule["weight"] = list(rule["weight"])
            data["outputs"] = [dict(zip(("value", "value_type"), _json_value(label, "outputs")))
                               for label in self.outputs]
        return data

    def to_json(self, **kwargs):
        """Serialise to a JSON string; floats round-trip exactly.

        Category values keep their type (:meth:`Proposition.to_dict`):
        bytes are written as hex digits, NumPy scalars as Python values.

        Raises
        ------
        ValueError
            If a category cannot be written (e.g. a Timestamp); the message
            names the column.
        """
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`; every field is checked.

        Raises
        ------
        ValueError
            If ``data`` is not a serialised RuleEnsemble, has a version
            other than those in ``SUPPORTED_VERSIONS`` (a newer rulebook
            wrote it), or a field is missing or invalid: the message names
            the field by its path (``'rules[2].query[0].operator'``) and
            says what is valid.
        """
        _check_header(data)
        outputs = _read_outputs(data)
        n_outputs = None if outputs is None else len(outputs)
        rules, where = _field(data, "rules", "")
        if not isinstance(rules, list):
            raise _invalid(where, f"must be a list of rules; got {type(rules).__name__}")
        rules = tuple(_read_rule(rule, f"rules[{i}]", n_outputs) for i, rule in enumerate(rules))
        intercept = _weights(*_field(data, "intercept", ""), n_outputs)
        loss, where = _field(data, "loss", "", required=False, default="squared")
        from .losses import LOSSES

        if not isinstance(loss, str) or loss not in LOSSES:
            raise _invalid(where, f"is {loss!r}; valid losses are {', '.join(map(repr, sorted(LOSSES)))}")
        names, where = _field(data, "feature_names", "", required=False)
        if names is not None:
            if not isinstance(names, list):
                raise _invalid(where, f"must be a list of column names or null; got {names!r}")
            names = tuple(_name(name, f"{where}[{i}]") for i, name in enumerate(names))
        by_name, where = _field(data, "by_name", "", required=False, default=True)
        if not isinstance(by_name, bool):
            raise _invalid(where, f"must be a boolean (true or false); got {by_name!r}")
        terms, where = _field(data, "linear_terms", "", required=False, default=[])
        if "linear_terms" in data and data["version"] < TERMS_VERSION:
            raise _invalid(where, f"needs version {TERMS_VERSION}; version {data['version']} has no "
                           "linear terms")
        if not isinstance(terms, list):
            raise _invalid(where, f"must be a list of linear terms; got {type(terms).__name__}")
        terms = tuple(_read_term(term, f"linear_terms[{i}]") for i, term in enumerate(terms))
        return cls(intercept, rules, loss, names, by_name, terms, outputs)

    @classmethod
    def from_json(cls, text):
        """Inverse of :meth:`to_json`.

        Raises
        ------
        ValueError
            If ``text`` is not JSON (``json.JSONDecodeError``) or not a
            valid serialised RuleEnsemble (see :meth:`from_dict`).
        """
        return cls.from_dict(json.loads(text))
