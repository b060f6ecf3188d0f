"""Propositions, queries, rules and rule ensembles as plain values.

The semantics under test (``rulebook/rules.py``): a missing value (NaN,
None, pd.NA) satisfies no proposition, ``!=`` included; columns are found by
name on DataFrames and by position otherwise; every class is a frozen,
hashable value that pickles and round-trips through JSON exactly.
"""

import dataclasses
import json
import math
import operator
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import Proposition, Query, Rule, RuleEnsemble

NUMERIC_OPS = {"<=": operator.le, "<": operator.lt, ">": operator.gt, ">=": operator.ge}
NOMINAL_OPS = {"==": operator.eq, "!=": operator.ne}


def is_missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def expected_mask(values, op, value):
    """Plain-Python truth of ``v op value`` per row; missing is never true."""
    ops = {**NUMERIC_OPS, **NOMINAL_OPS}
    return np.array([(not is_missing(v)) and bool(ops[op](v, value)) for v in values], dtype=bool)


# -- numeric propositions --------------------------------------------------------

NUMERIC_VALUES = [1.0, 2.0, None, 3.0, 2.0, None, -0.5]


def numeric_column(kind):
    """The values above as a column of the given kind, with its missing marker."""
    if kind == "float64-nan":
        return pd.Series([np.nan if v is None else v for v in NUMERIC_VALUES], dtype="float64")
    if kind == "object-none":
        return pd.Series(NUMERIC_VALUES, dtype=object)
    if kind == "Float64-na":
        return pd.Series(pd.array(NUMERIC_VALUES, dtype="Float64"))
    if kind == "Int64-na":
        ints = [None if v is None else int(v) if v == int(v) else None for v in NUMERIC_VALUES]
        return pd.Series(pd.array(ints, dtype="Int64"))
    raise AssertionError(kind)


def python_values(series):
    return [None if pd.isna(v) else v for v in series.tolist()]


NUMERIC_KINDS = ["float64-nan", "object-none", "Float64-na", "Int64-na"]


@pytest.mark.parametrize("kind", NUMERIC_KINDS)
@pytest.mark.parametrize("op", list(NUMERIC_OPS))
@pytest.mark.parametrize("threshold", [-1.0, 1.0, 1.5, 2.0, 3.0, 10.0, float("inf"), float("-inf")])
def test_numeric_proposition_every_operator(kind, op, threshold):
    column = numeric_column(kind)
    X = pd.DataFrame({"a": column, "other": np.arange(len(column))})
    mask = Proposition("a", op, threshold).evaluate(X)
    assert mask.dtype == bool and mask.shape == (len(X),)
    np.testing.assert_array_equal(mask, expected_mask(python_values(column), op, threshold))
    assert not mask[column.isna().to_numpy()].any()


@pytest.mark.parametrize("kind", NUMERIC_KINDS)
@pytest.mark.parametrize("op", list(NOMINAL_OPS))
def test_missing_numbers_satisfy_neither_equal_nor_not_equal(kind, op):
    column = numeric_column(kind)
    X = pd.DataFrame({"a": column})
    mask = Proposition("a", op, 2).evaluate(X)
    np.testing.assert_array_equal(mask, expected_mask(python_values(column), op, 2))
    assert not mask[column.isna().to_numpy()].any()


def test_numeric_proposition_on_integer_column_with_float_threshold():
    X = pd.DataFrame({"n": np.array([1, 2, 3, 4], dtype=np.int64)})
    np.testing.assert_array_equal(Proposition("n", "<=", 2.5).evaluate(X), [True, True, False, False])
    np.testing.assert_array_equal(Proposition("n", ">", 2).evaluate(X), [False, False, True, True])


# -- nominal propositions -------------------------------------------------------------

def nominal_frame():
    return pd.DataFrame(
        {
            "obj": pd.Series(["a", "b", None, np.nan, "a", "c"], dtype=object),
            "string": pd.Series(pd.array(["a", "b", pd.NA, None, "a", "c"], dtype="string")),
            "cat": pd.Series(pd.Categorical(["a", "b", None, np.nan, "a", "c"], categories=["a", "b", "c", "unused"])),
            "flag_obj": pd.Series([True, False, None, np.nan, True, False], dtype=object),
            "flag": pd.Series(pd.array([True, False, pd.NA, None, True, False], dtype="boolean")),
            "int_cat": pd.Series(pd.Categorical([1, 2, None, 2, 1, 3])),
        }
    )


RAW_NOMINAL = {
    "obj": ["a", "b", None, None, "a", "c"],
    "string": ["a", "b", None, None, "a", "c"],
    "cat": ["a", "b", None, None, "a", "c"],
    "flag_obj": [True, False, None, None, True, False],
    "flag": [True, False, None, None, True, False],
    "int_cat": [1, 2, None, 2, 1, 3],
}
NOMINAL_CASES = [
    ("obj", "a"), ("obj", "c"), ("obj", "zz"),
    ("string", "a"), ("string", "b"), ("string", "zz"),
    ("cat", "a"), ("cat", "unused"), ("cat", "zz"),
    ("flag_obj", True), ("flag_obj", False),
    ("flag", True), ("flag", False),
    ("int_cat", 1), ("int_cat", 2), ("int_cat", 7),
]


@pytest.mark.parametrize("op", list(NOMINAL_OPS))
@pytest.mark.parametrize("column, value", NOMINAL_CASES)
def test_nominal_proposition_with_missing_values(column, value, op):
    X = nominal_frame()
    mask = Proposition(column, op, value).evaluate(X)
    assert mask.dtype == bool and mask.shape == (len(X),)
    np.testing.assert_array_equal(mask, expected_mask(RAW_NOMINAL[column], op, value))
    # Rows 2 and 3 are missing in every column except int_cat (row 2 only).
    assert not mask[2]


def test_not_equal_excludes_missing_rows():
    # The docstring's example: Embarked != "S" does not cover unknown ports.
    X = pd.DataFrame({"Embarked": pd.Series(["S", "C", None, "Q", np.nan], dtype=object)})
    np.testing.assert_array_equal(
        Proposition("Embarked", "!=", "S").evaluate(X), [False, True, False, True, False]
    )


def test_numpy_bool_column():
    X = pd.DataFrame({"b": np.array([True, False, True])})
    np.testing.assert_array_equal(Proposition("b", "==", True).evaluate(X), [True, False, True])
    np.testing.assert_array_equal(Proposition("b", "!=", True).evaluate(X), [False, True, False])


# -- by name, by position ------------------------------------------------------------

def mixed_frame():
    return pd.DataFrame(
        {
            "Age": pd.Series([10.0, np.nan, 30.0, 19.0, 50.0]),
            "Sex": pd.Series(["male", "female", None, "male", "female"], dtype=object),
            "Fare": pd.Series(pd.array([7, 80, 12, None, 30], dtype="Int64")),
        }
    )


MIXED_PROPOSITIONS = [
    Proposition("Age", "<=", 19.0, 0),
    Proposition("Age", ">", 19.0, 0),
    Proposition("Sex", "==", "male", 1),
    Proposition("Sex", "!=", "male", 1),
    Proposition("Fare", ">=", 12, 2),
    Proposition("Fare", "<", 12.5, 2),
]


@pytest.mark.parametrize("proposition", MIXED_PROPOSITIONS, ids=str)
def test_evaluation_by_name_and_by_position_agree(proposition):
    X = mixed_frame()
    by_name = proposition.evaluate(X)
    expected = expected_mask(python_values(X[proposition.feature]), proposition.operator, proposition.value)
    np.testing.assert_array_equal(by_name, expected)
    # ndarray: by position (by_name is irrelevant there).
    array = X.to_numpy()
    np.testing.assert_array_equal(proposition.evaluate(array), expected)
    np.testing.assert_array_equal(proposition.evaluate(array, by_name=False), expected)
    # DataFrame with by_name=False: position wins over the (wrong) names.
    renamed = X.set_axis(["x", "y", "z"], axis=1)
    np.testing.assert_array_equal(proposition.evaluate(renamed, by_name=False), expected)
    # Reordered columns: by name still finds the right one.
    np.testing.assert_array_equal(proposition.evaluate(X[X.columns[::-1]]), expected)


def test_missing_column_raises_naming_it():
    X = mixed_frame()
    with pytest.raises(ValueError, match=re.escape("'Pclass'")):
        Proposition("Pclass", "<=", 2.0, 1).evaluate(X)
    with pytest.raises(ValueError, match=re.escape("'Pclass'")):
        Query((Proposition("Age", "<=", 19.0), Proposition("Pclass", "<=", 2.0))).evaluate(X)
    with pytest.raises(ValueError, match=re.escape("'Pclass'")):
        Proposition("Pclass", "<=", 2.0, 5).evaluate(X.to_numpy())


def test_unknown_operator_raises():
    with pytest.raises(ValueError, match="operator"):
        Proposition("Age", "=<", 19.0)


# -- queries and rules -----------------------------------------------------------------

AGE = Proposition("Age", "<=", 19.0, 0)
MALE = Proposition("Sex", "==", "male", 1)
FARE = Proposition("Fare", ">", 10.0, 2)


def test_empty_query_is_all_true():
    X = mixed_frame()
    q = Query()
    assert len(q) == 0
    assert str(q) == "True"
    mask = q.evaluate(X)
    assert mask.dtype == bool and mask.shape == (len(X),) and mask.all()
    assert q.evaluate(X.to_numpy()).all()


def test_query_and_composes():
    q = Query((AGE,)) & MALE
    assert isinstance(q, Query)
    assert q.propositions == (AGE, MALE)
    assert (q & Query((FARE,))).propositions == (AGE, MALE, FARE)
    assert (Query() & AGE) == Query((AGE,))
    assert str(q & FARE) == "Age <= 19 & Sex == male & Fare > 10"
    assert list(q) == [AGE, MALE]
    X = mixed_frame()
    np.testing.assert_array_equal(
        (q & FARE).evaluate(X), AGE.evaluate(X) & MALE.evaluate(X) & FARE.evaluate(X)
    )


def test_query_accepts_a_list():
    q = Query([AGE, MALE])
    assert q.propositions == (AGE, MALE)
    hash(q)


def test_rule_str_and_evaluate():
    rule = Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5)
    assert str(rule) == "+2.5 if Age <= 19"
    assert str(Rule(Query((MALE, Proposition("Age", ">", 30.5))), -1.25)) == "-1.25 if Age > 30.5 & Sex == male"
    assert str(Rule(Query(), 16192.0)) == "+16192 if True"
    X = mixed_frame()
    out = rule.evaluate(X)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [2.5, 0.0, 0.0, 2.5, 0.0])
    assert len(rule) == 1


def test_rule_coverage_is_metadata():
    a = Rule(Query((AGE,)), 1.5, coverage=0.25)
    b = Rule(Query((AGE,)), 1.5, coverage=0.75)
    assert a == b and hash(a) == hash(b)
    assert a != Rule(Query((AGE,)), 1.0, coverage=0.25)


# -- ensembles ----------------------------------------------------------------------

def example_ensemble():
    rules = (
        Rule(Query((AGE,)), 2.5, coverage=0.4),
        Rule(Query((MALE, FARE)), -1.25, coverage=0.2),
        Rule(Query(), 0.5),
    )
    return RuleEnsemble(1.0, rules, loss="squared", feature_names=("Age", "Sex", "Fare"))


def test_docstring_example():
    rule = Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5)
    model = RuleEnsemble(1.0, (rule,))
    np.testing.assert_array_equal(model.predict(pd.DataFrame({"Age": [10, 30, None]})), [3.5, 1.0, 1.0])
    assert str(model) == "    +1  (intercept)\n  +2.5  if Age <= 19"


def test_ensemble_str_and_repr():
    ens = example_ensemble()
    lines = str(ens).splitlines()
    assert len(lines) == 1 + len(ens)
    assert lines[0].split() == ["+1", "(intercept)"]
    assert lines[1].split("  if ")[1] == "Age <= 19" and lines[1].split()[0] == "+2.5"
    assert lines[2].split("  if ")[1] == "Sex == male & Fare > 10" and lines[2].split()[0] == "-1.25"
    assert lines[3].split("  if ")[1] == "True" and lines[3].split()[0] == "+0.5"
    # Weights are right-aligned in one column.
    assert len({line.index("  ", len(line) - len(line.lstrip())) for line in lines}) == 1
    text = repr(ens)
    assert "3 rules" in text and "complexity 6" in text and "squared" in text
    assert text.endswith(str(ens))
    empty = RuleEnsemble(-0.5)
    assert str(empty).split() == ["-0.5", "(intercept)"]
    assert "0 rules" in repr(empty)


def test_complexity_is_rules_plus_conditions():
    # Yang et al. (2024): number of rules + total number of conditions.
    ens = example_ensemble()
    assert ens.complexity == 3 + (1 + 2 + 0)
    assert RuleEnsemble(0.0).complexity == 0
    assert ens[:1].complexity == 2


def test_container_protocol():
    ens = example_ensemble()
    assert len(ens) == 3
    assert isinstance(ens[1], Rule) and ens[1] == ens.rules[1]
    assert ens[-1] == ens.rules[2]
    assert list(ens) == list(ens.rules)
    for k in range(4):
        head = ens[:k]
        assert isinstance(head, RuleEnsemble)
        assert head.intercept == ens.intercept
        assert head.rules == ens.rules[:k]
        assert (head.loss, head.feature_names, head.by_name) == (ens.loss, ens.feature_names, ens.by_name)
    with pytest.raises(IndexError):
        ens[3]


def test_to_frame():
    frame = example_ensemble().to_frame()
    assert list(frame.columns) == ["rule", "weight", "coverage", "length"]
    assert len(frame) == 3
    assert pd.api.types.is_string_dtype(frame["rule"])
    assert frame["weight"].dtype == np.float64
    assert frame["coverage"].dtype == np.float64
    assert frame["length"].dtype == np.int64
    assert frame["rule"].tolist() == ["Age <= 19", "Sex == male & Fare > 10", "True"]
    np.testing.assert_array_equal(frame["weight"], [2.5, -1.25, 0.5])
    np.testing.assert_array_equal(frame["coverage"], [0.4, 0.2, np.nan])
    np.testing.assert_array_equal(frame["length"], [1, 2, 0])
    empty = RuleEnsemble(0.0).to_frame()
    assert list(empty.columns) == ["rule", "weight", "coverage", "length"] and len(empty) == 0
    assert empty["weight"].dtype == np.float64 and empty["length"].dtype == np.int64


@pytest.mark.parametrize(
    "obj, field",
    [(AGE, "value"), (Query((AGE,)), "propositions"), (Rule(Query(), 1.0), "weight"),
     (example_ensemble(), "intercept"), (example_ensemble(), "rules")],
)
def test_frozen(obj, field):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, None)


def test_hashable_and_equal_values():
    a, b = example_ensemble(), example_ensemble()
    assert a is not b and a == b and hash(a) == hash(b)
    assert len({a, b, a[:2]}) == 2
    assert {AGE, Proposition("Age", "<=", 19.0, 0)} == {AGE}
    assert a != a[:2]
    assert a != dataclasses.replace(a, intercept=2.0)
    assert a != dataclasses.replace(a, loss="poisson")


def test_pickle_round_trip():
    ens = example_ensemble()
    back = pickle.loads(pickle.dumps(ens))
    assert back == ens and hash(back) == hash(ens)
    assert [r.coverage for r in back] == [r.coverage for r in ens]
    X = mixed_frame()
    np.testing.assert_array_equal(back.decision_function(X), ens.decision_function(X))


# -- JSON ----------------------------------------------------------------------------

finite_floats = st.floats(allow_nan=False, allow_infinity=False)
categories = st.one_of(
    st.text(max_size=5),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    finite_floats,
)


@st.composite
def propositions(draw):
    feature = draw(st.sampled_from(["Age", "Sex", "Fare", "x 1", "ü"]))
    index = draw(st.integers(0, 5))
    if draw(st.booleans()):
        return Proposition(feature, draw(st.sampled_from(list(NUMERIC_OPS))), draw(finite_floats), index)
    return Proposition(feature, draw(st.sampled_from(list(NOMINAL_OPS))), draw(categories), index)


@st.composite
def ensembles(draw):
    rules = draw(
        st.lists(
            st.builds(
                Rule,
                st.lists(propositions(), max_size=3).map(Query),
                finite_floats,
                st.one_of(st.none(), st.floats(0, 1)),
            ),
            max_size=4,
        )
    )
    names = draw(st.one_of(st.none(), st.lists(st.text(max_size=4), max_size=3).map(tuple)))
    return RuleEnsemble(
        draw(finite_floats), rules, draw(st.sampled_from(["squared", "logistic", "poisson"])),
        names, draw(st.booleans()),
    )


def _same_float(a, b):
    return float(a).hex() == float(b).hex()


@settings(max_examples=150, deadline=None)
@given(ensembles())
def test_json_round_trip_is_exact(ens):
    text = ens.to_json()
    json.loads(text)  # valid JSON
    back = RuleEnsemble.from_json(text)
    assert back == ens and hash(back) == hash(ens)
    assert _same_float(back.intercept, ens.intercept)
    assert (back.loss, back.feature_names, back.by_name) == (ens.loss, ens.feature_names, ens.by_name)
    for r_back, r in zip(back, ens, strict=True):
        assert _same_float(r_back.weight, r.weight)
        assert r_back.coverage == r.coverage
        for p_back, p in zip(r_back.query, r.query, strict=True):
            # Equality alone would accept 1 == 1.0 == True: the type must survive.
            assert type(p_back.value) is type(p.value), (p_back.value, p.value)
            assert p_back.value == p.value
            if isinstance(p.value, float):
                assert _same_float(p_back.value, p.value)
            assert (p_back.feature, p_back.operator, p_back.index) == (p.feature, p.operator, p.index)
    assert RuleEnsemble.from_dict(ens.to_dict()) == ens


@pytest.mark.parametrize("value", ["1", 1, True, 1.0, False, 0, 0.0, "", "True", -0.0, 2**53 + 1])
def test_json_keeps_category_types(value):
    ens = RuleEnsemble(0.0, (Rule(Query((Proposition("c", "==", value, 3),)), 1.0),))
    p = RuleEnsemble.from_json(ens.to_json())[0].query.propositions[0]
    assert type(p.value) is type(value) and p.value == value
    if isinstance(value, float):
        assert _same_float(p.value, value)
    assert p.index == 3


@pytest.mark.parametrize(
    "data", [{}, {"intercept": 1.0, "rules": []}, {"format": "rulebook.Rule"}, {"format": None}]
)
def test_from_dict_of_a_non_ensemble_raises(data):
    with pytest.raises(ValueError, match="RuleEnsemble"):
        RuleEnsemble.from_dict(data)


# -- which columns an ensemble reads (issue 26: integer column names) --------------------
def _int_named_ensemble():
    """Rules on columns labelled 0, 1, 2 (as a frame built from an array has),
    stored at positions 0, 1, 2; by_name=False as the estimators make it for
    labels that are not strings."""
    rules = (Rule(Query((Proposition(0, "<=", 2.0, 0), Proposition(2, "==", "u", 2))), 1.5),
             Rule(Query((Proposition(1, ">", 0.5, 1),)), -0.25))
    return RuleEnsemble(0.1, rules, feature_names=(0, 1, 2), by_name=False)


def _int_named_frame(n=40):
    rng = np.random.default_rng(0)
    return pd.DataFrame({0: rng.integers(0, 5, n).astype(float), 1: rng.random(n),
                         2: rng.choice(["u", "v"], n)})


@pytest.mark.parametrize("kernel", [False, True], ids=["numpy", "kernel"])
def test_integer_column_names_are_read_by_name(kernel, monkeypatch):
    """Failed before: a frame with its int-labelled columns reordered was read
    by position (column 2's text compared with a threshold, ...)."""
    import rulebook._predict

    monkeypatch.setattr(rulebook._predict, "PREDICT_MIN_WORK", 0 if kernel else 10**12)
    ensemble, X = _int_named_ensemble(), _int_named_frame()
    expected = ensemble.decision_function(X)
    reordered = X[[2, 0, 1]]
    np.testing.assert_array_equal(ensemble.decision_function(reordered), expected)
    np.testing.assert_array_equal(ensemble.predict(reordered), ensemble.predict(X))
    np.testing.assert_array_equal(ensemble.query_matrix(reordered), ensemble.query_matrix(X))
    # More columns than the rules use, in any order: still by name.
    wider = X.assign(extra=1.0)[["extra", 1, 2, 0]]
    np.testing.assert_array_equal(ensemble.decision_function(wider), expected)
    # An array stays positional.
    np.testing.assert_array_equal(ensemble.decision_function(X.to_numpy(dtype=object)), expected)


def test_a_frame_with_some_of_the_columns_is_an_error_naming_the_missing_ones():
    """Failed before: by position, the frame's columns 0, 1, 5 stood in for 0, 1, 2."""
    ensemble, X = _int_named_ensemble(), _int_named_frame()
    other = X.rename(columns={2: 5})
    with pytest.raises(ValueError, match=re.escape("X lacks column [2], which the model's rules "
                                                   "use (they use [0, 2, 1]); X has columns [0, 1, 5]")):
        ensemble.decision_function(other)
    # A frame with none of the labels is read like an array (a model fitted
    # on one, predicting on pd.DataFrame(array) with other labels).
    relabelled = X.set_axis(["a", "b", "c"], axis=1)
    np.testing.assert_array_equal(ensemble.decision_function(relabelled), ensemble.decision_function(X))


def test_a_model_of_named_columns_names_every_missing_column():
    """Failed before: only the first missing column was named."""
    rules = (Rule(Query((Proposition("Age", "<=", 19.0, 0), Proposition("Sex", "==", "male", 1))), 1.0),
             Rule(Query((Proposition("Fare", ">", 10.0, 2),)), 2.0))
    ensemble = RuleEnsemble(0.0, rules)
    X = pd.DataFrame({"Sex": ["male"], "Class": [1]})
    with pytest.raises(ValueError, match=re.escape("X lacks columns ['Age', 'Fare']")):
        ensemble.predict(X)
