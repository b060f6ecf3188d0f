"""Binning: cut points are data values, missing values get their own bin."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from rulebook.binning import EQ, GT, LE, NE, Binner


def _fit(frame, weights=None, **kwargs):
    weights = np.ones(len(frame)) if weights is None else weights
    binner = Binner(**kwargs)
    return binner, binner.fit_transform(frame, weights)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.integers(-5, 5).map(float),
                       st.floats(-1e6, 1e6, allow_nan=False)), min_size=1, max_size=60),
    st.sampled_from([2, 3, 8, 255, None]),
)
def test_numeric_bins_agree_with_threshold_semantics(values, max_bins):
    x = pd.Series(values, dtype="float64")
    binner, X_binned = _fit(pd.DataFrame({"x": x}), max_bins=max_bins)
    spec = binner.features_[0]
    t = spec.thresholds
    # Cut points are values of the data, strictly increasing, below the maximum.
    present = x.dropna().to_numpy()
    assert set(t) <= set(present)
    assert np.all(np.diff(t) > 0)
    if len(present):
        assert len(t) == 0 or t[-1] < present.max()
        assert spec.n_bins <= (len(np.unique(present)) if max_bins is None else max_bins)
    codes = X_binned[:, 0].astype(int)
    assert np.all(codes[x.isna().to_numpy()] == spec.n_bins)
    for k in range(len(t)):
        le = binner.proposition(0, LE, k).evaluate(pd.DataFrame({"x": x}))
        gt = binner.proposition(0, GT, k).evaluate(pd.DataFrame({"x": x}))
        np.testing.assert_array_equal(le, codes <= k)
        np.testing.assert_array_equal(gt, (codes > k) & (codes < spec.n_bins))


def test_every_distinct_value_with_max_bins_none():
    x = pd.DataFrame({"x": [3.0, 1.0, 2.0, 2.0, np.nan, 5.0]})
    binner, X_binned = _fit(x, max_bins=None)
    np.testing.assert_array_equal(binner.features_[0].thresholds, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(X_binned[:, 0], [2, 0, 1, 1, 4, 3])


def test_equal_frequency_bins_are_balanced():
    x = pd.DataFrame({"x": np.arange(1000.0)})
    binner, X_binned = _fit(x, max_bins=10)
    counts = np.bincount(X_binned[:, 0])
    assert len(counts) == 10 and counts.min() >= 95 and counts.max() <= 105


def test_sample_weight_moves_cut_points_and_zero_weight_rows_are_ignored():
    x = pd.DataFrame({"x": np.arange(10.0)})
    weights = np.ones(10)
    weights[:5] = 3.0
    heavy, _ = _fit(x, weights, max_bins=2)
    light, _ = _fit(x, max_bins=2)
    assert heavy.features_[0].thresholds[0] < light.features_[0].thresholds[0]
    # Duplicating rows is the same as weighting them by 2.
    dup = pd.DataFrame({"x": np.r_[np.arange(10.0), np.arange(5.0)]})
    w2 = np.r_[np.full(5, 2.0), np.ones(5)]
    a, _ = _fit(dup, max_bins=3)
    b, _ = _fit(x, w2, max_bins=3)
    np.testing.assert_array_equal(a.features_[0].thresholds, b.features_[0].thresholds)
    # Zero-weight rows create no cut points and no categories.
    frame = pd.DataFrame({"x": [1.0, 2.0, 99.0], "s": ["a", "b", "zzz"]})
    zero, _ = _fit(frame, np.array([1.0, 1.0, 0.0]), max_bins=None)
    np.testing.assert_array_equal(zero.features_[0].thresholds, [1.0])
    assert zero.features_[1].categories == ("a", "b")


def test_user_cut_points():
    x = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 10.0], "y": [1.0] * 5})
    binner, X_binned = _fit(x, cut_points={"x": [2.5, 0.5]})
    np.testing.assert_array_equal(binner.features_[0].thresholds, [0.5, 2.5])
    np.testing.assert_array_equal(X_binned[:, 0], [0, 1, 1, 2, 2])
    assert str(binner.proposition(0, LE, 0)) == "x <= 0.5"


@pytest.mark.parametrize(
    "column",
    [
        pd.Series(["b", "a", None, "b"], dtype=object),
        pd.Series(["b", "a", None, "b"], dtype="string"),
        pd.Series(["b", "a", None, "b"], dtype="category"),
    ],
)
def test_nominal_columns_get_sorted_categories_and_a_missing_bin(column):
    binner, X_binned = _fit(pd.DataFrame({"s": column}))
    spec = binner.features_[0]
    assert spec.kind == "nominal" and spec.categories == ("a", "b")
    np.testing.assert_array_equal(X_binned[:, 0], [1, 0, 2, 1])
    assert str(binner.proposition(0, EQ, 0)) == "s == a"
    assert str(binner.proposition(0, NE, 1)) == "s != b"


def test_bool_column_is_nominal_and_categories_are_python_values():
    binner, _ = _fit(pd.DataFrame({"flag": [True, False, True], "k": pd.Categorical([1, 2, 1])}))
    assert binner.features_[0].categories == (False, True)
    assert type(binner.features_[0].categories[0]) is bool
    assert binner.features_[1].categories == (1, 2)
    assert type(binner.features_[1].categories[0]) is int


def test_nullable_numeric_and_all_missing_and_constant_columns():
    frame = pd.DataFrame({
        "i": pd.array([1, None, 3], dtype="Int64"),
        "nan": [np.nan] * 3,
        "const": [7.0] * 3,
    })
    binner, X_binned = _fit(frame)
    assert binner.features_[0].kind == "numeric"
    np.testing.assert_array_equal(X_binned[:, 0], [0, 2, 1])
    assert binner.n_bins_.tolist() == [2, 1, 1]


@pytest.mark.parametrize(
    "frame, kwargs, match",
    [
        (pd.DataFrame({"x": [1.0, np.inf]}), {}, "'x' contains infinite"),
        (pd.DataFrame({"id": [f"p{i}" for i in range(30)]}), {}, "'id' has a different value in every row"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"max_bins": 1}, "max_bins"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"max_bins": 2.5}, "max_bins"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"cut_points": {"nope": [1]}}, "'nope'"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"cut_points": {"x": [np.nan]}}, "finite"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"max_categories": 1}, "max_categories"),
        (pd.DataFrame({"s": list("abc")}), {"max_categories": 2}, "'s' has 3 categories"),
        (pd.DataFrame({"t": ["1", " ", "inf"]}), {}, "'t' contains infinite"),
    ],
)
@pytest.mark.filterwarnings("ignore:column 't' has dtype")  # read as numbers, then rejected
def test_bad_input_raises_naming_the_problem(frame, kwargs, match):
    with pytest.raises(ValueError, match=match):
        _fit(frame, **kwargs)


def test_unsupported_dtype_raises_type_error():
    with pytest.raises(TypeError, match="'when'"):
        _fit(pd.DataFrame({"when": pd.date_range("2020-01-01", periods=3)}))


@pytest.mark.filterwarnings("ignore:column 't' has dtype")
def test_input_frame_is_not_modified():
    frame = pd.DataFrame({"x": [3.0, np.nan, 1.0], "s": ["a", None, "b"],
                          "t": pd.Series(["2.5", " ", "1"], dtype=object)})
    before = frame.copy(deep=True)
    binner, _ = _fit(frame)
    assert binner.features_[2].kind == "numeric"  # read as numbers, in a copy
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize("nominal", [False, True])
def test_numeric_columns_are_binned_as_one_at_a_time(nominal):
    """One conversion of all numeric columns (``numeric_block``) bins them
    as converting each column alone does, nullable integers included."""
    from rulebook._validation import numeric_values

    rng = np.random.default_rng(0)
    columns = {
        "a": rng.normal(size=40),
        "b": pd.array(rng.integers(0, 5, 40), dtype="Int64"),
        "c": rng.integers(-3, 3, 40),
    }
    columns["a"][::7] = np.nan
    columns["b"][::5] = pd.NA
    if nominal:  # numeric columns no longer side by side
        columns = {"a": columns["a"], "s": rng.choice(["x", "y"], 40), "b": columns["b"],
                   "flag": rng.random(40) > 0.5, "c": columns["c"]}
    frame = pd.DataFrame(columns)
    binner, X_binned = _fit(frame, max_bins=4)
    for j, name in enumerate(frame.columns):
        if name not in "abc":
            continue
        values = numeric_values(name, frame[name])
        one, alone = _fit(pd.DataFrame({name: frame[name]}), max_bins=4)
        np.testing.assert_array_equal(one.features_[0].thresholds, binner.features_[j].thresholds)
        np.testing.assert_array_equal(alone[:, 0], X_binned[:, j])
        assert np.isnan(values).sum() == (X_binned[:, j] == len(binner.features_[j].thresholds) + 1).sum()


def test_infinite_values_are_reported_in_the_first_such_column():
    frame = pd.DataFrame({"s": ["u", "v"], "x": [1.0, 2.0], "y": [np.inf, 1.0], "z": [-np.inf, 0.0]})
    with pytest.raises(ValueError, match="'y' contains infinite"):
        _fit(frame)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 3),
                          st.just(float("nan"))), min_size=1, max_size=40),
       st.integers(1, 7), st.sampled_from([object, "string"]))
def test_factorize_in_slices_is_pandas_factorize(values, chunk, dtype):
    import rulebook.binning as binning

    if dtype == "string":
        values = [None if v is None or v != v else str(v) for v in values]
    column = pd.Series(values, dtype=dtype)
    saved = binning.FACTORIZE_CHUNK
    binning.FACTORIZE_CHUNK = chunk
    try:
        codes, uniques = binning._factorize(column)
    finally:
        binning.FACTORIZE_CHUNK = saved
    expected_codes, expected_uniques = pd.factorize(column, use_na_sentinel=True)
    np.testing.assert_array_equal(codes, expected_codes)
    assert list(uniques) == list(expected_uniques)


@pytest.mark.parametrize("weighted", [False, True])
def test_every_distinct_value_gets_a_bin_when_they_fit_however_rare(weighted):
    # With no more distinct values than max_bins, every value is a bin of its
    # own: equal-frequency cuts would merge the rare ones into a neighbour.
    x = pd.DataFrame({"x": np.r_[np.zeros(998), 1.0, 2.0]})
    weights = np.r_[np.full(998, 5.0), 1.0, 1.0] if weighted else None
    binner, X_binned = _fit(x, weights, max_bins=255)
    np.testing.assert_array_equal(binner.features_[0].thresholds, [0.0, 1.0])
    assert np.bincount(X_binned[:, 0]).tolist() == [998, 1, 1]
