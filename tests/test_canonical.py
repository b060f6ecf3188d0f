"""The canonical form of a query is an exact rewrite, and prints one condition per column."""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import Proposition, Query, Rule, RuleEnsemble
from rulebook._canonical import format_category

THRESHOLDS = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, np.inf, -np.inf])
CATEGORIES = st.sampled_from(["a", "b", "c", "a b", "1"])


@st.composite
def queries_and_data(draw):
    """Random conjunctions over two numeric and two nominal columns, data with NaN and ties."""
    n = draw(st.integers(1, 12))
    numbers = st.one_of(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]), st.just(np.nan))
    labels = st.one_of(CATEGORIES, st.none())
    X = pd.DataFrame({
        "x": draw(st.lists(numbers, min_size=n, max_size=n)),
        "y": draw(st.lists(numbers, min_size=n, max_size=n)),
        "s": pd.Series(draw(st.lists(labels, min_size=n, max_size=n)), dtype=object),
        "t": pd.Series(draw(st.lists(labels, min_size=n, max_size=n)), dtype=object),
    })
    numeric = st.builds(lambda f, op, v: Proposition(f, op, v, "xy".index(f)),
                        st.sampled_from("xy"), st.sampled_from(["<=", "<", ">", ">="]), THRESHOLDS)
    nominal = st.builds(lambda f, op, v: Proposition(f, op, v, 2 + "st".index(f)),
                        st.sampled_from("st"), st.sampled_from(["==", "!="]), CATEGORIES)
    propositions = draw(st.lists(st.one_of(numeric, nominal), max_size=7))
    return propositions, X


def _conjunction(propositions, X):
    mask = np.ones(len(X), dtype=bool)
    for p in propositions:
        mask &= p.evaluate(X)
    return mask


@settings(max_examples=600, deadline=None)
@given(queries_and_data())
def test_canonical_form_is_exact(case):
    propositions, X = case
    query = Query(tuple(propositions))
    np.testing.assert_array_equal(query.evaluate(X), _conjunction(propositions, X))
    # One condition per constrained column, and the form is a fixed point.
    assert len(query) == len({(p.feature, p.is_numeric) for p in propositions})
    assert Query(query.propositions) == query
    assert Query(tuple(reversed(propositions))) == query


@settings(max_examples=200, deadline=None)
@given(queries_and_data())
def test_at_most_one_interval_per_numeric_column(case):
    propositions, _ = case
    query = Query(tuple(propositions))
    for group in query.conditions:
        if group[0].is_numeric and not any(np.isnan(p.value) for p in group):
            assert sum(p.operator in (">", ">=") for p in group) <= 1
            assert sum(p.operator in ("<", "<=") for p in group) <= 1


def test_interval_and_order():
    query = Query((
        Proposition("Pclass", ">", 2.0, 0), Proposition("Fare", ">", 8.1125, 3),
        Proposition("Sex", "==", "female", 1), Proposition("Age", ">", 5.0, 2),
        Proposition("Fare", "<=", 35.0, 3), Proposition("Fare", ">", 9.35, 3),
    ))
    assert str(query) == "Pclass > 2 & Sex == female & Age > 5 & 9.35 < Fare <= 35"
    assert len(query) == 4
    assert RuleEnsemble(0.0, (Rule(query, 1.0),)).complexity == 5


def test_nominal_forms():
    s = lambda op, v: Proposition("s", op, v)  # noqa: E731
    assert str(Query((s("!=", "b"), s("==", "a"), s("!=", "c")))) == "s == a"
    assert str(Query((s("!=", "b"), s("!=", "a"), s("!=", "b")))) == "s not in {a, b}"
    # A contradiction stays visible rather than silently becoming something else.
    assert str(Query((s("==", "a"), s("!=", "a")))) == "s == a & s != a"


def test_greater_equal_and_strict_at_same_threshold():
    x = lambda op, v: Proposition("x", op, v)  # noqa: E731
    assert str(Query((x(">=", 1.0), x(">", 1.0)))) == "x > 1"
    assert str(Query((x("<", 1.0), x("<=", 1.0)))) == "x < 1"
    assert str(Query((x(">=", 1.0), x("<", 2.0)))) == "1 <= x < 2"


@pytest.mark.parametrize("value, text", [
    ("male", "male"),
    ("Research & Development", '"Research & Development"'),
    ("Sales Representative", '"Sales Representative"'),
    ("1", '"1"'),
    ("2.5", '"2.5"'),
    ("a<=b", '"a<=b"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("True", '"True"'),
    ("", '""'),
    (3, "3"),
])
def test_category_quoting(value, text):
    assert format_category(value) == text


def test_quoted_values_round_trip_raw_in_json():
    X = pd.DataFrame({"Department": ["Research & Development", "Sales", "1", None]})
    rule = Rule(Query((Proposition("Department", "!=", "Research & Development"),
                       Proposition("Department", "!=", "1"))), 2.0)
    model = RuleEnsemble(0.5, (rule,))
    assert str(rule.query) == 'Department not in {"1", "Research & Development"}'
    data = json.loads(model.to_json())
    assert {p["value"] for p in data["rules"][0]["query"]} == {"Research & Development", "1"}
    again = RuleEnsemble.from_json(model.to_json())
    assert again == model and str(again) == str(model)
    np.testing.assert_array_equal(again.predict(X), [0.5, 2.5, 0.5, 0.5])


@pytest.mark.parametrize("params", [
    {"learner": "greedy", "max_rule_length": None},
    {"learner": "greedy"},
    {"learner": "optimal", "max_bins": 16},
    {"learner": "orthogonal", "max_rule_length": None},
])
def test_every_learner_prints_one_condition_per_column(params):
    """Fitted rules, printed: no column appears twice in a rule, and each
    rule's length is its number of columns."""
    from rulebook import RuleBoostingClassifier
    from rulebook.datasets import load_titanic

    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=8, verbose=0, **params).fit(X, y)
    for rule in model.ensemble_:
        conditions = rule.query.condition_strings()
        columns = [group[0].feature for group in rule.query.conditions]
        assert len(set(columns)) == len(columns) == len(rule)
        for text, column in zip(conditions, columns):
            assert text.count(column) == 1, text
        if params.get("max_rule_length", "auto") == "auto":
            assert len(rule) <= 2


def test_rulefit_rules_are_canonical():
    from rulebook import RuleFitClassifier
    from rulebook.datasets import load_titanic

    X, y = load_titanic()
    model = RuleFitClassifier(max_rules=10).fit(X, y)
    for rule in model.ensemble_:
        columns = [group[0].feature for group in rule.query.conditions]
        assert len(set(columns)) == len(columns)
        assert Query(rule.query.propositions) == rule.query


@pytest.mark.parametrize("learner", ["greedy", "orthogonal"])
def test_greedy_and_orthogonal_rules_have_no_redundant_condition(learner):
    """Shortened as the optimal learner's are: on the training data, dropping
    any proposition of a rule changes the rows it covers. With
    ``GreedyLearner(shorten=False)`` greedy's raw refinement path stays."""
    from rulebook import GreedyLearner, RuleBoostingClassifier
    from rulebook.datasets import load_titanic

    X, y = load_titanic()
    model = RuleBoostingClassifier(n_rules=10, learner=learner, max_rule_length=None,
                                   max_bins=16, verbose=0).fit(X, y)
    for rule in model.ensemble_:
        extent = rule.query.evaluate(X)
        for p in rule.query:
            rest = Query(tuple(q for q in rule.query if q != p))
            assert (rest.evaluate(X) != extent).any(), (str(rule.query), str(p))
    raw = RuleBoostingClassifier(n_rules=10, learner=GreedyLearner(shorten=False),
                                 max_rule_length=None, max_bins=16, verbose=0).fit(X, y)
    redundant = 0
    for rule in raw.ensemble_:
        extent = rule.query.evaluate(X)
        redundant += sum(
            not (Query(tuple(q for q in rule.query if q != p)).evaluate(X) != extent).any()
            for p in rule.query)
    assert redundant > 0  # what shortening removes (greedy refinement leaves some)


# -- numbers in conditions print exactly --------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["<=", "<", ">", ">="]),
       st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                 st.floats(-1e3, 1e3, allow_nan=False), st.integers(-(2**64), 2**64)))
def test_a_printed_threshold_reads_back_as_the_very_number(operator, value):
    """Text -> parse -> threshold is exact: no rounding, no exponent."""
    from fuzz_strategies import read_condition

    text = str(Proposition("x", operator, value))
    assert "e" not in text.removeprefix("x ").lower()
    [(name, read_operator, read)] = read_condition(text)
    assert (name, read_operator) == ("x", operator)
    assert float(read) == float(value) and (not isinstance(value, int) or read == value)


def test_thresholds_of_a_fit_print_exactly_and_cover_the_same_rows():
    """Every threshold of a fitted model on awkward floats reads back as its
    float, and the rules read back from the text cover the model's rows."""
    from fuzz_strategies import check_text, read_condition

    from rulebook import RuleBoostingRegressor

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=300) / 7.0, "b": rng.lognormal(10, 4, 300),
                      "c": -rng.exponential(1e-6, 300)})
    y = np.sin(X["a"] * 5) + (X["b"] > np.median(X["b"])) + rng.normal(0, 0.1, 300)
    model = RuleBoostingRegressor(8, verbose=0).fit(X, y)
    for rule in model.ensemble_:
        read = [p for text in rule.query.condition_strings() for p in read_condition(text)]
        assert [float(value) for _, _, value in read] == [p.value for p in rule.query]
    check_text(model.ensemble_, X)


@pytest.mark.parametrize("value", [56855586615058144.0, 2.0**53 + 2, 1e23, -7.0, 0.1, 2.5])
def test_a_float_category_reads_back_equal(value):
    """``==`` compares int and float exactly: an integral float category
    prints all its digits (its shortest repr, ``56855586615058140``, reads
    back as another int)."""
    from fuzz_strategies import read_condition

    [(_, _, read)] = read_condition(str(Proposition("c", "==", value)))
    assert read == value
