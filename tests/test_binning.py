"""Binning: cut points in the gaps between data values, printed short; missing
values get their own bin."""

import math
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings, strategies as st

from rulebook._formatting import format_exact, shortest_between, shortest_between_arrays
from rulebook.binning import EQ, GT, LE, NE, Binner, _bin_numeric, _equal_frequency_cuts


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
    # Each threshold is in a gap [v, next v) of the data, strictly
    # increasing, below the maximum.
    present = x.dropna().to_numpy()
    distinct = np.unique(present)
    below = np.searchsorted(distinct, t, side="right") - 1
    assert np.all(below >= 0) and np.all(t < distinct[np.minimum(below + 1, len(distinct) - 1)])
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


# -- thresholds: the shortest decimal in each gap --------------------------------------
def _shortness(t):
    """What "shortest" orders by: printed length, then distance to zero."""
    return len(format_exact(t)), abs(t)


def _decimals_in_gap(low, high, digits):
    """Every decimal of at most ``digits`` significant digits that reads as a
    float in ``[low, high)`` (brute force over the powers of ten around the
    bounds)."""
    found = [0.0] if low <= 0.0 < high else []
    finite = [abs(b) for b in (low, high) if math.isfinite(b) and b != 0.0]
    if not finite:
        return found
    tops = [math.floor(math.log10(b)) for b in finite]
    # Down to 10**0 at least: a gap that reaches zero has short numbers near it.
    for e in range(min(tops + [0]) - digits - 1, max(tops) + 3):
        # m * 10**e for |m| < 10**digits, near the gap: exact with Decimal.
        ends = [math.floor(Decimal(b).scaleb(-e)) if math.isfinite(b) else int(math.copysign(10**digits, b))
                for b in (low, high)]
        first = max(ends[0] - 1, -(10**digits) + 1)
        last = min(ends[1] + 1, 10**digits - 1)
        for m in range(first, last + 1):
            value = float(f"{m}e{e}")
            if low <= value < high:
                found.append(value)
    return found


_MAGNITUDES = st.one_of(
    st.floats(-1e6, 1e6, allow_nan=False), st.integers(-(2**63), 2**63).map(float),
    st.floats(allow_nan=False, allow_infinity=False),
    st.builds(lambda m, e: m * 10.0**e, st.integers(-999, 999), st.integers(-30, 30)),
)


@settings(max_examples=300, deadline=None)
@given(_MAGNITUDES, st.one_of(_MAGNITUDES, st.integers(1, 40)), st.integers(1, 3))
def test_shortest_between_is_the_shortest_decimal_in_the_gap(low, upper, digits):
    """In the gap, and no decimal of 1 to 3 significant digits in the gap is
    shorter (printed length, then nearer zero)."""
    # upper: a value, or a number of floats above low (the narrowest gaps)
    high = upper if isinstance(upper, float) else float(np.nextafter(low, np.inf) if upper == 1
                                                        else low + upper * np.spacing(low))
    low, high = min(low, high), max(low, high)
    assume(low < high)
    t = shortest_between(low, high)
    assert low <= t < high
    assert float(format_exact(t)) == t
    if max(abs(low), abs(high)) < 1e40 and (low == 0 or abs(low) > 1e-40):
        candidates = _decimals_in_gap(low, high, digits)
        best = min(candidates, key=_shortness, default=None)
        if best is not None:
            assert _shortness(t) <= _shortness(best), (t, best)
            if len(format_exact(t).lstrip("-").replace(".", "").strip("0")) <= digits:
                assert t == best  # t is among the candidates


@pytest.mark.parametrize("low, high, expected", [
    (19.0, 20.0, 19.0), (19.0, 25.0, 19.0), (0.038075906, 0.0381234, 0.0381),
    (95.0, 105.0, 95.0), (15.0, 300.0, 15.0), (125000.0, 150000.0, 125000.0), (0.95, 1.05, 1.0),
    (-20.0, -19.0, -20.0), (-0.5, 0.0, -0.1), (-5.3, -2.1, -3.0),
    (-0.5, 3.0, 0.0), (-1.0, 0.0, -1.0), (0.0, 1.0, 0.0), (2.0**53, 2.0**53 + 4, 2.0**53),
    (1e300, 2e300, 1e300), (5e-324, 1e-323, 5e-324), (1.7976931348623157e308, math.inf, 1.7976931348623157e308),
    (-math.inf, -5.0, -6.0), (-math.inf, -1.7976931348623157e308, -math.inf),
    (float(np.float32(0.1)), float(np.float32(0.2)), 0.2),
])
def test_shortest_between_examples(low, high, expected):
    assert shortest_between(low, high) == expected
    assert shortest_between_arrays(np.array([low]), np.array([high]))[0] == expected


_EDGES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 1.7976931348623157e308,
                          -1.7976931348623157e308, math.inf, -math.inf, 2.0**53, 1e22, 1e-22])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_MAGNITUDES, _EDGES), min_size=2, max_size=30), st.booleans())
def test_shortest_between_arrays_is_the_scalar_one(values, spread):
    """The vectorised path (exact powers of ten) gives the scalar numbers,
    its fallbacks included: huge, tiny, infinite, negative and 1-ulp gaps."""
    x = np.unique(np.asarray(values, dtype=np.float64))
    if spread:  # gaps of one float
        with np.errstate(over="ignore"):
            x = np.unique(np.r_[x, np.nextafter(x[np.isfinite(x)], np.inf)])
    low, high = x[:-1], x[1:]
    assume(len(low))
    got = shortest_between_arrays(low, high)
    expected = [shortest_between(a, b) for a, b in zip(low.tolist(), high.tolist())]
    np.testing.assert_array_equal(got, expected)


def _column(kind, values):
    if kind == "float32":
        return pd.Series(np.asarray(values, dtype=np.float32))
    if kind == "int64":
        return pd.Series(np.asarray([int(v) for v in values], dtype=np.int64))
    return pd.Series(np.asarray(values, dtype=np.float64))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["float64", "float32", "int64"]), st.data(),
       st.sampled_from([2, 3, 8, 255, None]), st.booleans())
def test_thresholds_bin_the_training_rows_as_the_data_values_did(kind, data, max_bins, zeros):
    """The threshold of each cut is the shortest decimal in [v, w) (v the
    data value the cut was, w the next value among rows of positive
    weight), and every such training row's bin is the one ``v`` gave:
    negative, huge and tiny values, float32, int64 beyond 2**53. The
    propositions select those rows on the frame as given (float32 and int64
    compared as float64, as prediction does)."""
    pools = {"float64": st.one_of(_MAGNITUDES, st.integers(-5, 5).map(float)),
             "float32": st.floats(-1e6, 1e6, width=32, allow_nan=False),
             "int64": st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-5, 5))}
    values = data.draw(st.lists(pools[kind], min_size=1, max_size=40))
    column = _column(kind, values)
    weights = np.ones(len(column))
    if zeros:
        weights[::3] = 0.0
    frame = pd.DataFrame({"x": column})
    binner, X_binned = _fit(frame, weights, max_bins=max_bins)
    x = column.to_numpy(dtype=np.float64)
    cuts, _ = _equal_frequency_cuts(x, weights, weights > 0, max_bins)
    thresholds = binner.features_[0].thresholds
    assert len(thresholds) == len(cuts)
    active = weights > 0
    np.testing.assert_array_equal(X_binned[active, 0], _bin_numeric(x, cuts)[active])
    every = np.unique(x[active])
    following = every[np.searchsorted(every, cuts, side="right")]
    if kind == "float32":  # the gap narrowed to the values as float32 shows them
        cuts, following = np.maximum(cuts, _shown32(cuts)), np.minimum(following, _shown32(following))
    expected = [shortest_between(v, w) for v, w in zip(cuts.tolist(), following.tolist())]
    np.testing.assert_array_equal(thresholds, expected)
    codes = X_binned[active, 0].astype(int)
    for k in range(len(thresholds)):
        covered = binner.proposition(0, LE, k).evaluate(frame)[active]
        np.testing.assert_array_equal(covered, codes <= k)
        if kind == "float32":  # and on the numbers a reader sees
            np.testing.assert_array_equal(_shown32(x[active]) <= thresholds[k], codes <= k)


def _shown32(values):
    """float32 values as a float32 column shows them (shortest repr), read as float64."""
    return np.array([float(str(np.float32(v))) for v in values.tolist()])


def test_float32_thresholds_separate_the_values_as_shown():
    # A float32 0.2 is 0.20000000298 as a float64; 'x <= 0.2' would have
    # left out the rows a reader sees as 0.2.
    frame = pd.DataFrame({"x": np.array([0.1, 0.2, 0.3], dtype=np.float32)})
    binner, _ = _fit(frame, max_bins=None)
    assert [str(binner.proposition(0, LE, k)) for k in range(2)] == ["x <= 0.11", "x <= 0.21"]


def test_thresholds_read_short_and_user_cut_points_stay_as_given():
    frame = pd.DataFrame({"age": [19.0, 20.0, 25.0, 40.0], "r": [0.038075906, 0.0381234, 0.5, 0.9],
                          "one": [3.0] * 4})
    binner, _ = _fit(frame, max_bins=None)
    assert binner.features_[0].thresholds.tolist() == [19.0, 20.0, 25.0]
    assert binner.features_[1].thresholds.tolist() == [0.0381, 0.1, 0.5]
    assert binner.features_[2].thresholds.tolist() == []  # one distinct value: no cut
    assert str(binner.proposition(1, LE, 0)) == "r <= 0.0381"
    given, _ = _fit(frame, cut_points={"r": [0.038075906]})
    assert given.features_[1].thresholds.tolist() == [0.038075906]
    assert str(given.proposition(1, LE, 0)) == "r <= 0.038075906"


def test_a_zero_weight_is_removing_the_row():
    """Rows of zero weight count as removed for the gaps too: the same
    thresholds as without them (scikit-learn's sample weight equivalence;
    a zero-weight 19.5 between 19.2 and 25 must not make 'x <= 20' 'x <= 19.3')."""
    x = pd.DataFrame({"x": [19.2, 19.5, 25.0, 30.0]})
    weighted, _ = _fit(x, np.array([1.0, 0.0, 1.0, 1.0]), max_bins=None)
    removed, _ = _fit(x.iloc[[0, 2, 3]], max_bins=None)
    np.testing.assert_array_equal(weighted.features_[0].thresholds, removed.features_[0].thresholds)
    assert weighted.features_[0].thresholds.tolist() == [20.0, 25.0]


def test_sorted_with_weights_drops_equal_weights():
    # Documented: the weights come back None when all are equal (the cut
    # points are then those of the counts, exactly), else in sorted order.
    from rulebook.binning import _sorted_with_weights

    present = np.array([3.0, 1.0, 2.0, 1.0])
    values, weights = _sorted_with_weights(present, np.full(4, 0.1))
    np.testing.assert_array_equal(values, [1.0, 1.0, 2.0, 3.0])
    assert weights is None
    values, weights = _sorted_with_weights(present, np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(values, [1.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(weights, [2.0, 4.0, 3.0, 1.0])


# --- the compiled binning kernel against numpy.searchsorted -----------------

@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.one_of(st.floats(-1e3, 1e3), st.sampled_from([0.0, 1.0, 2.5, np.nan])),
                       min_size=0, max_size=60),
       thresholds=st.lists(st.one_of(st.floats(-1e3, 1e3), st.sampled_from([0.0, 1.0, 2.5])),
                           min_size=0, max_size=20, unique=True))
def test_bin_values_is_searchsorted_with_nan_in_the_missing_bin(values, thresholds):
    from rulebook import _binning_kernels as kernels

    values = np.array(values, np.float64)
    thresholds = np.sort(np.array(thresholds, np.float64))
    expected = np.searchsorted(thresholds, values, side="left")
    expected[np.isnan(values)] = len(thresholds) + 1
    for kernel in (kernels.bin_values_serial, kernels.bin_values_parallel):
        out = np.full(len(values), 9999, np.uint16)
        kernel(values, thresholds, out)
        np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(kernels.bin_values(values, thresholds), expected)
    assert kernels.bin_values(values, thresholds).dtype == np.uint16


@pytest.mark.parametrize("n", ["compiled", "parallel"])
def test_bin_values_takes_a_strided_column_and_many_rows(n):
    from rulebook import _binning_kernels as kernels

    rows = {"compiled": kernels.COMPILED_MIN_ROWS, "parallel": kernels.PARALLEL_MIN_ROWS + 3}[n]
    block = np.random.default_rng(0).normal(size=(rows, 2))
    block[::7, 1] = np.nan
    thresholds = np.quantile(block[:, 0], np.linspace(0, 1, 256)[1:-1])
    expected = np.searchsorted(thresholds, block[:, 1], side="left")
    expected[np.isnan(block[:, 1])] = len(thresholds) + 1
    np.testing.assert_array_equal(kernels.bin_values(block[:, 1], thresholds), expected)


# --- the compiled cut points against the NumPy form -----------------------------

@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.one_of(st.floats(-1e3, 1e3), st.integers(-4, 4).map(float),
                                 st.just(np.nan)), min_size=0, max_size=80),
       inactive=st.lists(st.booleans(), min_size=80, max_size=80),
       weight=st.sampled_from([1.0, 0.25, 3.0]),
       max_bins=st.sampled_from([2, 3, 4, 5, 8, 16, 255, None]))
def test_compiled_cuts_equal_the_numpy_cuts(values, inactive, weight, max_bins):
    """Ties, NaN, rows of zero weight and every max_bins: the same cuts and
    next values, to the bit, as the NumPy form (the reference)."""
    from rulebook.binning import _compiled_cuts, _equal_frequency_cuts_numpy

    values = np.array(values, np.float64)
    active = ~np.array(inactive[:len(values)], bool)
    sample_weight = np.where(active, weight, 0.0)
    expected = _equal_frequency_cuts_numpy(values, sample_weight, active, max_bins)
    got = _compiled_cuts(values, active, max_bins)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
        assert g.dtype == np.float64


def test_a_tall_table_is_cut_by_the_compiled_kernels_on_threads_alike():
    """Above COMPILED_MIN_ROWS, through _cuts_of_columns (threads), the
    thresholds of the NumPy form; a C-order block as a frame of one array."""
    from rulebook import binning

    rng = np.random.default_rng(1)
    n = binning.COMPILED_MIN_ROWS + 5
    block = np.column_stack([rng.normal(size=n).round(2), rng.integers(0, 300, n).astype(float),
                             rng.exponential(size=n)])
    block[::11, 0] = np.nan
    frame = pd.DataFrame(block, columns=["a", "b", "c"], copy=False)
    weights = np.ones(n)
    weights[::5] = 0.0
    binner, X_binned = _fit(frame, weights, max_bins=255)
    for j in range(3):
        cuts, following = binning._equal_frequency_cuts_numpy(block[:, j], weights, weights > 0, 255)
        expected = binning._readable_cuts({0: (cuts, following)})[0]
        np.testing.assert_array_equal(binner.features_[j].thresholds, expected)
        np.testing.assert_array_equal(X_binned[:, j], binning._bin_numeric(block[:, j], expected))


@pytest.mark.parametrize("kind", ["lognormal", "ties", "one_threshold", "tiny_range"])
def test_bin_values_grid_cells_dense_and_degenerate(kind):
    # The lookup grid's cells are equal in width: a heavy tail packs most
    # quantile cuts into a few cells (searched by bisection), a tiny range
    # makes the grid's scale huge; every value equals searchsorted's.
    from rulebook import _binning_kernels as kernels

    rng = np.random.default_rng(1)
    values = {"lognormal": np.exp(3 * rng.normal(size=5000)),
              "ties": rng.integers(0, 5, size=5000).astype(float),
              "one_threshold": rng.normal(size=5000),
              "tiny_range": 1.0 + 1e-12 * rng.normal(size=5000)}[kind]
    cuts = {"one_threshold": np.array([0.25])}.get(
        kind, np.unique(np.quantile(values, np.linspace(0, 1, 256)[1:-1])))
    probes = np.concatenate([values, cuts, np.nextafter(cuts, np.inf),
                             np.nextafter(cuts, -np.inf), [np.nan]])
    expected = np.searchsorted(cuts, probes, side="left")
    expected[np.isnan(probes)] = len(cuts) + 1
    for kernel in (kernels.bin_values_serial, kernels.bin_values_parallel):
        out = np.empty(len(probes), np.uint16)
        kernel(probes, cuts, out)
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("max_bins", [2, 3, 5, 255, None])
def test_the_cuts_of_a_sorted_block_equal_the_per_column_cuts(max_bins):
    """All columns at once (rows active and weighing alike) against
    ``_equal_frequency_cuts_numpy`` column by column: ties, runs of -0.0 and
    0.0 (the first sorted value of a run is the cut, sign included),
    constant columns; None with a NaN."""
    from rulebook.binning import _equal_frequency_cuts_numpy, _sorted_block_cuts

    for seed in range(60):
        rng = np.random.default_rng(seed)
        m, d = int(rng.integers(1, 40)), int(rng.integers(1, 5))
        block = np.round(rng.normal(size=(m, d)) * rng.integers(1, 4)) / 2
        block[rng.random((m, d)) < 0.2] = -0.0
        block[:, 0] = block[0, 0] if seed % 5 == 0 else block[:, 0]  # constant
        block = np.asfortranarray(block)
        found = _sorted_block_cuts(block, max_bins)
        w, active = np.ones(m), np.ones(m, bool)
        for j in range(d):
            cuts, following = _equal_frequency_cuts_numpy(block[:, j], w, active, max_bins)
            np.testing.assert_array_equal(found[j][0], cuts)
            np.testing.assert_array_equal(np.signbit(found[j][0]), np.signbit(cuts))
            np.testing.assert_array_equal(found[j][1], following)
        block[0, -1] = np.nan
        assert _sorted_block_cuts(block, max_bins) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.floats(-1e6, 1e6, width=32)), min_size=2, max_size=60),
       st.sampled_from([None, 3, 8]), st.sampled_from([np.float64, np.float32]))
def test_lazy_thresholds_are_the_eager_ones(values, max_bins, dtype):
    """With every row active the thresholds are found only when read (and
    the column binned at the cut values): the same thresholds, one at a time
    or all at once, and the same codes, as a fit that finds them up front
    (a row of zero weight makes it do so)."""
    frame = pd.DataFrame({"x": np.array([np.nan if v is None else v for v in values], dtype=dtype)})
    lazy, lazy_codes = _fit(frame, max_bins=max_bins)
    # The same rows and one more, of zero weight, after them: the thresholds up front.
    padded = pd.concat([frame, frame.iloc[:1]], ignore_index=True)
    weights = np.r_[np.ones(len(frame)), 0.0]
    eager, eager_codes = _fit(padded, weights, max_bins=max_bins)
    spec = lazy.features_[0]
    assert spec._thresholds is None or not len(spec._thresholds)  # not found yet
    one_by_one = [spec.threshold(k) for k in range(spec.n_bins - 1)]
    np.testing.assert_array_equal(one_by_one, eager.features_[0].thresholds)
    np.testing.assert_array_equal(spec.thresholds, eager.features_[0].thresholds)
    np.testing.assert_array_equal(lazy_codes, eager_codes[:-1])
    assert lazy.n_bins_.tolist() == eager.n_bins_.tolist()


@pytest.mark.parametrize("max_bins", [2, 5, 255, None])
def test_a_sorted_blocks_codes_are_searchsorted_at_its_cuts(max_bins):
    """The codes from the block's sort order (_codes_of_sorted) against
    numpy's searchsorted of each column at its cuts: ties, -0.0 beside 0.0,
    constant columns."""
    from rulebook.binning import _sorted_block_cuts

    for seed in range(60):
        rng = np.random.default_rng(seed)
        m, d = int(rng.integers(1, 40)), int(rng.integers(1, 5))
        block = np.round(rng.normal(size=(m, d)) * rng.integers(1, 4)) / 2
        block[rng.random((m, d)) < 0.2] = -0.0
        block[rng.random((m, d)) < 0.1] = 0.0
        block[:, 0] = block[0, 0] if seed % 5 == 0 else block[:, 0]  # constant
        block = np.asfortranarray(block)
        codes = np.full((m, d), 999, np.uint16, order="F")
        found = _sorted_block_cuts(block, max_bins, codes)
        for j in range(d):
            expected = np.searchsorted(found[j][0], block[:, j], side="left")
            np.testing.assert_array_equal(codes[:, j], expected)
