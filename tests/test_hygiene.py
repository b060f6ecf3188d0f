"""Column hygiene at fit (issue 17): each guess about a column warns, naming it.

* A text column whose non-blank cells all hold numbers is numeric, blank
  cells missing, at fit and at predict.
* A nominal column with more than ``max_categories`` categories is an error.
* An integer column that looks like a row identifier warns.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook._validation import parse_numbers
from rulebook.binning import Binner
from rulebook.paper_propositions import paper_cut_points


def _no_warnings(function, *args, **kwargs):
    """``function(*args, **kwargs)``, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


def _churn(n=80, seed=0):
    """A churn-like table whose TotalCharges column is text with 11 blanks."""
    rng = np.random.default_rng(seed)
    charges = rng.uniform(20.0, 8000.0, n).round(2)
    churn = (charges < 1500).astype(int)
    text = pd.Series([f"{c:.2f}" for c in charges], dtype=object)
    blanks = rng.choice(n, 11, replace=False)
    text[blanks[:6]] = " "
    text[blanks[6:]] = ""
    X = pd.DataFrame({
        "tenure": rng.integers(0, 72, n),  # not distinct: no identifier warning
        "Contract": rng.choice(["Month-to-month", "One year", "Two year"], n),
        "TotalCharges": text,
    })
    return X, churn


# -- text columns of numbers ---------------------------------------------------
@pytest.mark.parametrize("dtype", [object, "string", "str"])
def test_blank_cells_column_is_numeric_with_a_warning_naming_it(dtype):
    X, y = _churn()
    X["TotalCharges"] = X["TotalCharges"].astype(dtype)
    before = X.copy(deep=True)
    with pytest.warns(UserWarning, match=r"'TotalCharges'.*numeric.*11 blank cell") as record:
        model = RuleBoostingClassifier(n_rules=3).fit(X, y)
    # stacklevel: the warning points at the caller of fit.
    assert any(w.filename == __file__ for w in record)
    pd.testing.assert_frame_equal(X, before)
    conditions = [p for rule in model.ensemble_ for p in rule.query.propositions
                  if p.feature == "TotalCharges"]
    assert conditions, "the target depends on TotalCharges; some rule should use it"
    assert all(p.is_numeric and isinstance(p.value, float) for p in conditions)


def test_blank_cells_column_fits_and_predicts_as_its_numbers():
    X, y = _churn()
    numbers = X.assign(TotalCharges=pd.to_numeric(X["TotalCharges"], errors="coerce"))
    assert numbers["TotalCharges"].isna().sum() == 11
    with pytest.warns(UserWarning, match="'TotalCharges'"):
        raw = RuleBoostingRegressor(n_rules=4).fit(X, y)
    converted = _no_warnings(RuleBoostingRegressor(n_rules=4).fit, numbers, y)
    assert raw.ensemble_ == converted.ensemble_
    before = X.copy(deep=True)
    expected = converted.predict(numbers)
    np.testing.assert_array_equal(raw.predict(X), expected)
    np.testing.assert_array_equal(raw.predict(numbers), expected)
    np.testing.assert_array_equal(converted.predict(X), expected)  # text at predict only
    np.testing.assert_array_equal(raw.ensemble_.predict(X), expected)  # Proposition.evaluate
    pd.testing.assert_frame_equal(X, before)
    # Blank rows are missing values: no threshold covers them.
    blank = numbers["TotalCharges"].isna().to_numpy()
    for rule in raw.ensemble_:
        if any(p.feature == "TotalCharges" for p in rule.query.propositions):
            assert not rule.query.evaluate(X)[blank].any()


def test_text_that_is_not_a_number_at_predict_is_an_error_naming_the_column():
    X, y = _churn()
    with pytest.warns(UserWarning, match="'TotalCharges'"):
        model = RuleBoostingRegressor(n_rules=2).fit(X, y)
    bad = X.copy()
    bad.loc[5, "TotalCharges"] = "n/a"
    with pytest.raises(ValueError, match=r"'TotalCharges' was numeric in fit.*'n/a'"):
        model.predict(bad)


def test_blank_cells_column_with_paper_propositions():
    X, y = _churn()
    cuts = paper_cut_points(X, 6)  # silent: only the fit warns
    assert "TotalCharges" in cuts
    with pytest.warns(UserWarning, match="'TotalCharges'"):
        model = RuleBoostingClassifier(n_rules=2, propositions=6).fit(X, y)
    assert all(p.is_numeric for rule in model.ensemble_ for p in rule.query.propositions
               if p.feature == "TotalCharges")


def test_python_numbers_in_an_object_column_with_none_and_nan():
    x = pd.Series([1.5, None, 2, np.nan, "3", " 4.25 ", "-1e2"] * 5, dtype=object)
    binner = Binner()
    with pytest.warns(UserWarning, match=r"'x'.*10 blank cell"):
        binner.fit_transform(pd.DataFrame({"x": x}), np.ones(len(x)))
    assert binner.features_[0].kind == "numeric"
    # Values -100, 1.5, 2, 3, 4.25: the shortest decimal in each gap.
    np.testing.assert_array_equal(binner.features_[0].thresholds, [0.0, 1.5, 2.0, 3.0])


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["1", "2", "two", " "] * 6, dtype=object),  # a word
        pd.Series(["1", "2", "nan", "3"] * 6, dtype=object),  # "nan" is no number
        pd.Series([True, False, None] * 8, dtype=object),  # booleans stay nominal
        pd.Series(["1", "2", "3"] * 8, dtype="category"),  # the user's explicit choice
        pd.Series([{"a": 1}, 1.0] * 12, dtype=object),  # not a number, not hashable
        pd.Series(["1"] * 70 + ["x"], dtype=object),  # the word after the first cells parsed
    ],
)
def test_columns_that_are_not_all_numbers_are_not_converted(column):
    values, n_blank = parse_numbers(column)
    assert values is None and n_blank == 0


def test_an_all_blank_column_parses_as_all_missing():
    # At predict such a column of a numeric feature is all missing; the
    # binner leaves it nominal at fit (nothing to read, nothing to warn).
    values, n_blank = parse_numbers(pd.Series(["", " ", None, np.nan], dtype=object))
    assert np.isnan(values).all() and n_blank == 4


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["a", "1", "b", "2"] * 6, dtype=object),
        pd.Series([True, False, None] * 8, dtype=object),
        pd.Series(["1", "2", "3"] * 8, dtype="category"),
        pd.Series(["", " ", None] * 8, dtype=object),
    ],
)
def test_such_columns_stay_nominal_without_warning(column):
    binner = Binner()
    _no_warnings(binner.fit_transform, pd.DataFrame({"s": column}), np.ones(len(column)))
    assert binner.features_[0].kind == "nominal"


blank = st.sampled_from(["", " ", "\t", None, float("nan")])
number = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6, allow_nan=False))
cell = st.one_of(blank, number, number.map(str), number.map(lambda v: f" {v} "))


@settings(max_examples=200, deadline=None)
@given(st.lists(cell, min_size=1, max_size=40))
def test_parsed_numbers_are_those_proposition_evaluate_compares(cells):
    """At predict, ``Proposition.evaluate`` coerces with ``pandas.to_numeric``;
    the numbers binned in fit must be the same ones."""
    column = pd.Series(cells, dtype=object)
    values, n_blank = parse_numbers(column)
    coerced = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    np.testing.assert_array_equal(values, coerced)
    n_blank_cells = sum(v is None or (isinstance(v, float) and np.isnan(v))
                        or (isinstance(v, str) and not v.strip()) for v in cells)
    assert n_blank == n_blank_cells


# -- nominal columns with very many categories -----------------------------------
def _cities(n_categories, repeats=2, seed=0):
    rng = np.random.default_rng(seed)
    city = np.repeat([f"city {k}" for k in range(n_categories)], repeats)
    n = len(city)
    return pd.DataFrame({"city": city, "x": rng.normal(size=n)}), rng.normal(size=n)


def test_more_categories_than_max_categories_is_an_error_naming_the_column():
    X, y = _cities(150)
    before = X.copy(deep=True)
    with pytest.raises(ValueError, match=r"'city' has 150 categories, more than max_categories=100.*"
                                         r"Group its categories.*raise max_categories"):
        RuleBoostingRegressor(n_rules=2).fit(X, y)
    pd.testing.assert_frame_equal(X, before)
    # Allowed when the user raises the limit or lifts it.
    for limit in (150, None):
        model = RuleBoostingRegressor(n_rules=2, max_categories=limit).fit(X, y)
        assert len(model.ensemble_) == 2


def test_max_categories_is_inclusive_and_counts_rows_of_positive_weight():
    X, y = _cities(100)
    RuleBoostingRegressor(n_rules=1).fit(X, y)  # exactly 100: allowed
    X, y = _cities(101)
    with pytest.raises(ValueError, match="'city' has 101 categories"):
        RuleBoostingRegressor(n_rules=1).fit(X, y)
    weights = np.ones(len(X))
    weights[X["city"] == "city 7"] = 0.0  # as if those rows were removed
    RuleBoostingRegressor(n_rules=1).fit(X, y, sample_weight=weights)


def test_identifier_message_comes_before_the_category_limit():
    X = pd.DataFrame({"name": [f"passenger {k}" for k in range(150)]})
    with pytest.raises(ValueError, match="'name' has a different value in every row"):
        RuleBoostingRegressor(n_rules=1).fit(X, np.arange(150.0))


@pytest.mark.parametrize("value", [1, 0, 2.5, True, "100", 70000])
def test_bad_max_categories_is_an_error_naming_the_parameter(value):
    X, y = _cities(3)
    with pytest.raises(ValueError, match=r"max_categories must be an int in \[2, 65535\] or None"):
        RuleBoostingRegressor(n_rules=1, max_categories=value).fit(X, y)


def test_max_categories_is_a_parameter_of_both_estimators():
    for estimator in (RuleBoostingRegressor, RuleBoostingClassifier):
        assert estimator().get_params()["max_categories"] == 100
        assert estimator(max_categories=7).get_params()["max_categories"] == 7
        assert "max_categories : int in [2, 65535] or None, default=100" in estimator.__doc__


# -- integer columns that look like row identifiers ------------------------------
def _with_column(values, seed=0):
    rng = np.random.default_rng(seed)
    n = len(values)
    return pd.DataFrame({"EmployeeNumber": values, "x": rng.normal(size=n)}), rng.normal(size=n)


@pytest.mark.parametrize(
    "values, how",
    [
        (np.cumsum(np.random.default_rng(1).integers(1, 5, 40)), "increasing row order"),
        (np.arange(40, 0, -1), "decreasing row order"),
        (np.random.default_rng(2).permutation(40) + 1000, "a permutation of the integers 1000..1039"),
        (pd.array(list(range(1, 20)) + [None] + list(range(20, 40)), dtype="Int64"), "increasing"),
        (np.arange(20, dtype=np.uint16), "increasing"),  # the smallest frame warned about
    ],
)
def test_row_identifier_integer_column_warns_naming_it(values, how):
    X, y = _with_column(values)
    before = X.copy(deep=True)
    with pytest.warns(UserWarning, match=rf"'EmployeeNumber' looks like a row identifier.*{how}.*Drop"):
        RuleBoostingRegressor(n_rules=2).fit(X, y)
    pd.testing.assert_frame_equal(X, before)


@pytest.mark.parametrize(
    "values",
    [
        np.arange(19),  # too few rows: may be chance
        np.arange(40.0),  # float: a measurement
        np.r_[np.arange(39), 5],  # a repeated value
        np.random.default_rng(3).permutation(np.arange(0, 80, 2)),  # distinct, unordered, gaps
        np.random.default_rng(4).integers(0, 3, 40).astype(bool),  # bool is nominal
    ],
)
def test_other_integer_columns_do_not_warn(values):
    X, y = _with_column(values)
    _no_warnings(RuleBoostingRegressor(n_rules=2).fit, X, y)


def test_integers_as_text_get_both_warnings():
    X, y = _with_column([str(1001 + k) for k in range(30)])
    with pytest.warns(UserWarning) as record:
        RuleBoostingRegressor(n_rules=2).fit(X, y)
    messages = [str(w.message) for w in record]
    assert any("'EmployeeNumber' has dtype" in m and "0 blank cell" in m for m in messages)
    assert any("'EmployeeNumber' looks like a row identifier" in m for m in messages)


_NUMBERISH = st.text(st.sampled_from(list("0123456789+-.eEiInNfaty ,_x\t\x00\x0b\u00a0\u0661")),
                     max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_NUMBERISH, st.text(max_size=5)))
def test_the_quick_word_test_never_calls_a_number_a_word(cell):
    """_surely_words, the cheap test before pandas' parser, says "word"
    only of cells the parser cannot read (it may not say it of all)."""
    from rulebook._validation import _parse, _surely_words

    if _surely_words([cell]):
        assert _parse([cell]) is None
