"""Scoring a RuleEnsemble: numba kernel, NumPy path and a plain-Python twin.

``rulebook._predict`` scores small inputs with NumPy masks
(``decision_function_numpy``) and large ones with a parallel numba kernel
(``_decision_function_kernel``), switched by ``PREDICT_MIN_WORK``. Both add
the rule weights to the intercept in rule order, so they must agree to the
last bit; both must also agree with ``naive_decision_function`` below, which
evaluates every condition of every rule on every row in plain Python.
"""

import math
import re
import operator
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

import rulebook._predict as predict_module
from rulebook import Proposition, Query, Rule, RuleEnsemble
from rulebook._predict import _decision_function_kernel, decision_function_numpy

NUMERIC_OPS = {"<=": operator.le, "<": operator.lt, ">": operator.gt, ">=": operator.ge}
NOMINAL_OPS = {"==": operator.eq, "!=": operator.ne}
HUGE = 10**18


# -- the plain-Python reference ---------------------------------------------------

def _missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _holds(proposition, v):
    """One condition on one value; a missing value satisfies nothing."""
    if _missing(v):
        return False
    if proposition.operator in NUMERIC_OPS:
        x = float(v)
        return not math.isnan(x) and NUMERIC_OPS[proposition.operator](x, float(proposition.value))
    return NOMINAL_OPS[proposition.operator](v, proposition.value)


def naive_decision_function(ensemble, columns):
    """Row-by-row scores from ``columns``: dict of name -> list of Python values."""
    n = len(next(iter(columns.values()))) if columns else 0
    scores = []
    for i in range(n):
        score = ensemble.intercept
        for rule in ensemble.rules:
            if all(_holds(p, columns[p.feature][i]) for p in rule.query):
                score += rule.weight
        scores.append(score)
    return np.array(scores, dtype=np.float64)


# -- hypothesis strategies ------------------------------------------------------

NUMERIC_NAMES = ("x0", "x1", "x2")
NOMINAL_NAME = "c"
DATA_CATEGORIES = ["a", "b", "c", "d"]  # "c" and "d" are never mentioned by a rule
RULE_CATEGORIES = ["a", "b", "zz"]  # "zz" never occurs in the data
VALUE_POOL = [-1.5, 0.0, 0.5, 2.0, 3.25, 7.0]  # few values: plenty of ties


@st.composite
def numeric_columns(draw, n):
    """A numeric column: ties, NaN, constant, all-missing or single value."""
    kind = draw(st.sampled_from(["ties", "ties", "constant", "all_missing", "wide"]))
    if kind == "ties":
        values = draw(st.lists(st.sampled_from(VALUE_POOL), min_size=n, max_size=n))
    elif kind == "constant":
        values = [draw(st.sampled_from(VALUE_POOL))] * n
    elif kind == "all_missing":
        values = [None] * n
    else:
        values = draw(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=n, max_size=n))
    missing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    values = [None if m or v is None else v for v, m in zip(values, missing)]
    dtype = draw(st.sampled_from(["float64", "float64", "Float64", "object"]))
    if all(v is None or float(v).is_integer() for v in values) and draw(st.booleans()):
        dtype = "Int64"
        values = [None if v is None else int(v) for v in values]
    if dtype == "float64":
        series = pd.Series([np.nan if v is None else v for v in values], dtype="float64")
    elif dtype == "object":
        series = pd.Series(values, dtype=object)
    else:
        series = pd.Series(pd.array(values, dtype=dtype))
    return values, series


@st.composite
def nominal_column(draw, n):
    values = draw(st.lists(st.sampled_from(DATA_CATEGORIES + [None]), min_size=n, max_size=n))
    dtype = draw(st.sampled_from(["object", "string", "category"]))
    if dtype == "category":
        series = pd.Series(pd.Categorical(values, categories=DATA_CATEGORIES))
    elif dtype == "string":
        series = pd.Series(pd.array(values, dtype="string"))
    else:
        series = pd.Series(values, dtype=object)
    return values, series


@st.composite
def frames(draw, max_rows=25):
    """(columns as Python lists, DataFrame) with three numeric and one nominal column."""
    n = draw(st.integers(1, max_rows))
    raw, data = {}, {}
    for name in NUMERIC_NAMES:
        raw[name], data[name] = draw(numeric_columns(n))
    raw[NOMINAL_NAME], data[NOMINAL_NAME] = draw(nominal_column(n))
    order = draw(st.permutations(list(data)))  # column order must not matter by name
    return raw, pd.DataFrame({name: data[name] for name in order})


@st.composite
def propositions_for(draw, raw):
    positions = {name: k for k, name in enumerate(NUMERIC_NAMES + (NOMINAL_NAME,))}
    if draw(st.integers(0, 3)) == 0:
        return Proposition(NOMINAL_NAME, draw(st.sampled_from(list(NOMINAL_OPS))),
                           draw(st.sampled_from(RULE_CATEGORIES)), positions[NOMINAL_NAME])
    feature = draw(st.sampled_from(NUMERIC_NAMES))
    observed = [float(v) for v in raw[feature] if v is not None]
    outside = st.sampled_from([-1e300, -100.0, 0.25, 100.0, 1e300, math.inf, -math.inf])
    threshold = draw(st.one_of(st.sampled_from(observed), outside) if observed else outside)
    return Proposition(feature, draw(st.sampled_from(list(NUMERIC_OPS))), threshold, positions[feature])


@st.composite
def problems(draw):
    """A frame and a random ensemble over its columns."""
    raw, X = draw(frames())
    weights = st.floats(-10, 10, allow_nan=False)
    rules = [
        Rule(Query(tuple(draw(st.lists(propositions_for(raw), max_size=3)))), draw(weights))
        for _ in range(draw(st.integers(0, 6)))
    ]
    ensemble = RuleEnsemble(draw(weights), rules, loss=draw(st.sampled_from(["squared", "logistic", "poisson"])))
    return raw, X, ensemble


def positional(X, ensemble):
    """The same problem as an ndarray, evaluated by column position."""
    ordered = X[list(NUMERIC_NAMES + (NOMINAL_NAME,))]
    return ordered.to_numpy(), RuleEnsemble(ensemble.intercept, ensemble.rules, ensemble.loss, by_name=False)


# -- properties -------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(problems())
def test_kernel_equals_numpy_path_exactly(problem):
    _raw, X, ensemble = problem
    reference = decision_function_numpy(ensemble, X)
    assert reference.dtype == np.float64 and reference.shape == (len(X),)
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, X), reference)


@settings(max_examples=150, deadline=None)
@given(problems())
def test_numpy_path_equals_plain_python(problem):
    raw, X, ensemble = problem
    expected = naive_decision_function(ensemble, raw)
    np.testing.assert_allclose(decision_function_numpy(ensemble, X), expected, rtol=1e-12, atol=0)


@settings(max_examples=100, deadline=None)
@given(problems())
def test_kernel_equals_plain_python(problem):
    raw, X, ensemble = problem
    expected = naive_decision_function(ensemble, raw)
    np.testing.assert_allclose(_decision_function_kernel(ensemble, X), expected, rtol=1e-12, atol=0)


@settings(max_examples=75, deadline=None)
@given(problems())
def test_public_decision_function_same_on_both_sides_of_the_switch(problem):
    raw, X, ensemble = problem
    with mock.patch.object(predict_module, "PREDICT_MIN_WORK", 0):
        kernel = ensemble.decision_function(X)
    with mock.patch.object(predict_module, "PREDICT_MIN_WORK", HUGE):
        numpy_path = ensemble.decision_function(X)
    np.testing.assert_array_equal(kernel, numpy_path)
    np.testing.assert_allclose(numpy_path, naive_decision_function(ensemble, raw), rtol=1e-12, atol=0)


@settings(max_examples=75, deadline=None)
@given(problems())
def test_ndarray_by_position_equals_dataframe(problem):
    _raw, X, ensemble = problem
    array, by_position = positional(X, ensemble)
    expected = decision_function_numpy(ensemble, X)
    np.testing.assert_array_equal(decision_function_numpy(by_position, array), expected)
    np.testing.assert_array_equal(_decision_function_kernel(by_position, array), expected)
    # A DataFrame evaluated by position, whatever its column names.
    renamed = X[list(NUMERIC_NAMES + (NOMINAL_NAME,))].set_axis(list("pqrs"), axis=1)
    np.testing.assert_array_equal(decision_function_numpy(by_position, renamed), expected)


@settings(max_examples=50, deadline=None)
@given(problems())
def test_row_order_does_not_matter(problem):
    _raw, X, ensemble = problem
    order = np.arange(len(X))[::-1]
    expected = decision_function_numpy(ensemble, X)[order]
    shuffled = X.iloc[order].reset_index(drop=True)
    np.testing.assert_array_equal(decision_function_numpy(ensemble, shuffled), expected)
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, shuffled), expected)


# -- examples ---------------------------------------------------------------------

def titanic_like():
    X = pd.DataFrame(
        {
            "Age": [10.0, np.nan, 30.0, 19.0, 50.0, 19.0],
            "Sex": pd.Series(["male", "female", None, "male", "female", "male"], dtype=object),
            "Pclass": pd.Series(pd.array([3, 1, 2, None, 1, 3], dtype="Int64")),
        }
    )
    ensemble = RuleEnsemble(
        -0.5,
        (
            Rule(Query((Proposition("Age", "<=", 19.0, 0),)), 2.5),
            Rule(Query((Proposition("Sex", "!=", "male", 1), Proposition("Pclass", "<", 3, 2))), 1.25),
            Rule(Query(), 0.125),
            Rule(Query((Proposition("Sex", "==", "male", 1), Proposition("Age", ">", 15.0, 0))), -1.0),
        ),
    )
    # Row by row: intercept -0.5, the always-true rule +0.125.
    expected = np.array([2.125, 0.875, -0.375, 1.125, 0.875, 1.125])
    return X, ensemble, expected


@pytest.mark.parametrize("path", ["numpy", "kernel"])
def test_worked_example(path):
    X, ensemble, expected = titanic_like()
    score = decision_function_numpy if path == "numpy" else _decision_function_kernel
    np.testing.assert_array_equal(score(ensemble, X), expected)


def test_kernel_on_a_float64_dataframe_column():
    # The most common input: a DataFrame with a float64 column containing NaN.
    X = pd.DataFrame({"Age": [10.0, np.nan, 30.0]})
    ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5),))
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, X), [3.5, 1.0, 1.0])
    # ... and the caller's data is left untouched.
    np.testing.assert_array_equal(X["Age"].to_numpy(), [10.0, np.nan, 30.0])


def test_kernel_leaves_a_float_ndarray_untouched():
    X = np.array([[10.0], [np.nan], [30.0]])
    before = X.copy()
    ensemble = RuleEnsemble(1.0, (Rule(Query((Proposition("Age", "<=", 19.0),)), 2.5),), by_name=False)
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, X), [3.5, 1.0, 1.0])
    np.testing.assert_array_equal(X, before)


def test_large_input_goes_through_the_kernel_and_agrees(monkeypatch):
    rng = np.random.default_rng(0)
    n = 5000
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 5, n).astype(float)),
            "c": pd.Series(rng.choice(["u", "v", "w", None], n), dtype=object),
        }
    )
    ensemble = RuleEnsemble(
        0.3,
        (
            Rule(Query((Proposition("a", "<=", 2.0, 0),)), 1.0),
            Rule(Query((Proposition("c", "!=", "u", 1), Proposition("a", ">", 0.0, 0))), -0.7),
        ),
    )
    calls = []
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", n)  # n * 3 conditions >= n
    original = predict_module._decision_function_kernel
    monkeypatch.setattr(predict_module, "_decision_function_kernel",
                        lambda e, X, *by_name: calls.append(1) or original(e, X, *by_name))
    out = ensemble.decision_function(X)
    assert calls, "the kernel path was not taken"
    np.testing.assert_array_equal(out, decision_function_numpy(ensemble, X))


@pytest.mark.parametrize("n", [1, predict_module._PREDICT_BLOCK, 3 * predict_module._PREDICT_BLOCK + 17])
def test_kernel_blocks_of_rows_agree_with_the_numpy_path(n):
    """Rows in several blocks, the last one partial: every operator, on a
    float column with NaN, an integer column, a nullable Float64 column with
    pd.NA and a nominal column with None, all read from one frame."""
    rng = np.random.default_rng(n)
    X = pd.DataFrame({
        "f": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 5, n).astype(float)),
        "i": rng.integers(-2, 3, n),
        "m": pd.array(np.where(rng.random(n) < 0.2, None, rng.random(n)), dtype="Float64"),
        "c": pd.Series(rng.choice(["u", "v", "w", None], n), dtype=object),
    })
    before = X.copy()
    p = lambda *args: Proposition(*args)
    ensemble = RuleEnsemble(0.25, (
        Rule(Query((p("f", "<=", 2.0, 0), p("i", ">", -1, 1))), 1.0),
        Rule(Query((p("f", "<", 3.0, 0),)), 0.5),
        Rule(Query((p("m", ">=", 0.5, 2), p("c", "==", "v", 3))), -0.75),
        Rule(Query((p("c", "!=", "u", 3), p("i", ">=", 0, 1))), 0.125),
        Rule(Query((p("f", ">", 0.0, 0), p("m", "<", 0.3, 2))), 2.0),
    ))
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, X),
                                  decision_function_numpy(ensemble, X))
    pd.testing.assert_frame_equal(X, before)


def test_small_input_stays_on_the_numpy_path(monkeypatch):
    """Below ``PREDICT_MIN_WORK`` (rows times conditions) no kernel is
    called: a small prediction costs no compilation or thread start."""
    X, ensemble, expected = titanic_like()
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", len(X) * 5 + 1)  # 5 conditions
    monkeypatch.setattr(predict_module, "_decision_function_kernel",
                        mock.Mock(side_effect=AssertionError("the kernel was called")))
    np.testing.assert_array_equal(ensemble.decision_function(X), expected)


@pytest.mark.parametrize("min_work", [0, HUGE])
def test_edge_ensembles(monkeypatch, min_work):
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", min_work)
    X = pd.DataFrame({"a": pd.array([1, None, 3], dtype="Int64")})
    np.testing.assert_array_equal(RuleEnsemble(0.5).decision_function(X), [0.5, 0.5, 0.5])
    always = RuleEnsemble(0.5, (Rule(Query(), 2.0),))
    np.testing.assert_array_equal(always.decision_function(X), [2.5, 2.5, 2.5])
    empty = always.decision_function(X.iloc[:0])
    assert empty.shape == (0,) and empty.dtype == np.float64


@pytest.mark.parametrize("min_work", [0, HUGE])
def test_missing_column_raises_on_both_paths(monkeypatch, min_work):
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", min_work)
    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("Fare", ">", 1.0),)), 1.0),))
    with pytest.raises(ValueError, match="'Fare'"):
        ensemble.decision_function(pd.DataFrame({"Age": pd.array([1, 2], dtype="Int64")}))


@pytest.mark.parametrize(
    "loss, link",
    [("squared", lambda f: f), ("logistic", expit), ("poisson", np.exp)],
)
@pytest.mark.parametrize("min_work", [0, HUGE])
def test_predict_applies_the_inverse_link(monkeypatch, loss, link, min_work):
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", min_work)
    X = pd.DataFrame({"Age": pd.array([10, None, 30, 19], dtype="Int64")})
    ensemble = RuleEnsemble(-0.5, (Rule(Query((Proposition("Age", "<=", 19),)), 1.75),), loss=loss)
    raw = ensemble.decision_function(X)
    np.testing.assert_array_equal(raw, [1.25, -0.5, -0.5, 1.25])
    predicted = ensemble.predict(X)
    assert predicted.dtype == np.float64
    np.testing.assert_allclose(predicted, link(raw), rtol=1e-15)


@pytest.mark.parametrize(
    "feature, op, value",
    [("i", "==", 2), ("i", "!=", 2), ("b", "==", True), ("b", "!=", True), ("b", "!=", False),
     ("f", "==", 1.0), ("f", "!=", 1), ("m", "==", 1), ("m", "==", "1"), ("m", "!=", "1")],
)
def test_nominal_conditions_on_non_string_columns(feature, op, value):
    # Categories that are ints, bools, floats or a mix: the kernel's category
    # codes must reproduce Python equality, missing rows excluded.
    columns = {
        "i": [1, 2, None, 3],
        "b": [True, False, None, True],
        "f": [1.0, 2.0, None, 1.0],
        "m": [1, "1", None, 2.5],
    }
    X = pd.DataFrame(
        {
            "i": pd.Series(pd.array(columns["i"], dtype="Int64")),
            "b": pd.Series(pd.array(columns["b"], dtype="boolean")),
            "f": pd.Series(pd.array(columns["f"], dtype="Float64")),
            "m": pd.Series(columns["m"], dtype=object),
        }
    )
    ensemble = RuleEnsemble(
        0.0,
        (
            Rule(Query((Proposition(feature, op, value),)), 1.0),
            Rule(Query((Proposition(feature, "==", columns[feature][0]),)), 10.0),
        ),
    )
    expected = naive_decision_function(ensemble, columns)
    np.testing.assert_array_equal(decision_function_numpy(ensemble, X), expected)
    np.testing.assert_array_equal(_decision_function_kernel(ensemble, X), expected)


# -- messages that say what is wrong with X ----------------------------------------

@pytest.mark.parametrize("min_work", [0, HUGE])
@pytest.mark.parametrize("index", [0, 1, 2])
def test_too_few_columns_by_position_names_the_columns_needed(monkeypatch, min_work, index):
    """A model read by position needs column ``index`` (0-based), so
    ``index + 1`` columns: the message says how many, and what X has."""
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", min_work)
    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("x", ">", 1.0, index),)), 1.0),),
                            by_name=False)
    needed = "1 column" if index == 0 else f"{index + 1} columns"
    with pytest.raises(ValueError, match=rf"at least {needed} to evaluate a "
                                         rf"condition on 'x'; got shape \(4, {index}\)\."):
        ensemble.decision_function(np.ones((4, index)))
    frame = pd.DataFrame({f"c{j}": [1.0, 2.0] for j in range(index)})
    with pytest.raises(ValueError, match=rf"at least {needed} to evaluate a "
                                         rf"condition on 'x' by position; got {index}\."):
        ensemble.decision_function(frame)
    with pytest.raises(ValueError, match=r"X must be 2-D .*; got shape \(4,\)\."):
        ensemble.decision_function(np.ones(4))  # a single row or column: which?
    # ``index + 1`` columns are enough.
    X = np.zeros((2, index + 1))
    X[1, index] = 2.0
    np.testing.assert_array_equal(ensemble.decision_function(X), [0.0, 1.0])


def test_a_missing_column_message_lists_at_most_twenty_labels_of_x():
    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", ">", 1.0, 0),
                                              Proposition("zz", ">", 1.0, 1))), 1.0),))
    wide = pd.DataFrame({name: [1.0] for name in ["a"] + [f"c{i}" for i in range(24)]})
    listed = ", ".join(repr(name) for name in wide.columns[:20])
    with pytest.raises(ValueError, match=re.escape(f"X has columns [{listed}, ...].")):
        ensemble.decision_function(wide)
    for n_columns in (3, 20):  # twenty labels are all shown, with no "..."
        narrow = wide.iloc[:, :n_columns]
        listed = ", ".join(repr(name) for name in narrow.columns)
        with pytest.raises(ValueError, match=re.escape(f"X has columns [{listed}].")):
            ensemble.decision_function(narrow)


def test_a_row_major_frame_predicts_as_a_column_major_one(monkeypatch):
    """``pd.DataFrame(X, copy=False)`` of a C-order array is read in slices
    of rows (``row_major_block``): the same scores as the same table
    column-major, through the estimator's checks; an infinity is still
    refused and named."""
    from rulebook import RuleBoostingRegressor
    from rulebook._validation import ROW_SLICE, row_major_block

    rng = np.random.default_rng(3)
    n = 2 * ROW_SLICE + 5
    X = rng.normal(size=(n, 4))
    X[::13, 2] = np.nan
    row_major = pd.DataFrame(X, columns=list("abcd"), copy=False)
    column_major = pd.DataFrame(np.asfortranarray(X), columns=list("abcd"))
    assert row_major_block(row_major) is not None and row_major_block(column_major) is None
    y = X[:, 0] - np.nan_to_num(X[:, 2]) + rng.normal(size=n)
    model = RuleBoostingRegressor(n_rules=4, verbose=0).fit(column_major.iloc[:2000], y[:2000])
    monkeypatch.setattr(predict_module, "PREDICT_MIN_WORK", 1)  # the kernel path
    np.testing.assert_array_equal(model.predict(row_major), model.predict(column_major))
    np.testing.assert_array_equal(model.predict(row_major), decision_function_numpy(model.ensemble_, X=column_major))
    X[n - 3, 3] = np.inf
    with pytest.raises(ValueError, match="column 'd' contains infinite values"):
        model.predict(row_major)
