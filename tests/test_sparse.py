"""Sparse X (scipy.sparse): bins, kernels and fits against the dense array.

The dense array is the reference throughout: the sparse binner must find
its cut points and codes, the sparse kernels the histograms and rows of
its codes (tests/naive.py), and a fit on the sparse matrix the model of
the fit on the dense array (issue 20, item 5; BOOMER Section 3.2).
"""

import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import naive
from rulebook import RuleBoostingClassifier, RuleBoostingRegressor
from rulebook import _search_kernels as kernels
from rulebook import _sparse_kernels as sk
from rulebook._validation import as_frame, as_sparse
from rulebook.binning import Binner
from rulebook.datasets import load_multi_output

LE, GT, EQ, NE = 0, 1, 2, 3


def random_sparse(seed, n=80, d=6, density=0.3, negative=True, nan=False, explicit_zeros=False,
                  dtype=np.float64, integer=False):
    """A CSR matrix with an all-zero column, ties, negatives, NaN and stored zeros on demand."""
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, d)) < density, rng.normal(size=(n, d)), 0.0)
    dense[:, 1] = np.where(dense[:, 1] != 0, np.round(dense[:, 1] * 2), 0.0)  # ties
    dense[:, -1] = 0.0  # a column of zeros only
    if not negative:
        dense = np.abs(dense)
    if integer:
        dense = np.round(dense * 3)
    if nan:
        dense[rng.random((n, d)) < 0.05] = np.nan
    X = sparse.csr_matrix(dense.astype(dtype))
    if explicit_zeros:  # stored entries that hold 0
        X = X.tocoo()
        rows, cols = rng.integers(0, n, 10), rng.integers(0, d - 1, 10)
        keep = np.asarray(dense[rows, cols] == 0)
        X = sparse.coo_matrix(
            (np.r_[X.data, np.zeros(keep.sum(), dtype)], (np.r_[X.row, rows[keep]],
                                                         np.r_[X.col, cols[keep]])),
            shape=(n, d)).tocsr()
        assert (X.data == 0).any()
    if integer:
        X = X.astype(np.int64)
    return X


def dense_of(X):
    return X.toarray()


# -- binning ------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_bins", [3, 8, 255, None])
@pytest.mark.parametrize("weights", ["ones", "twos", "unequal", "some zero"])
def test_sparse_bins_equal_the_dense_bins(seed, max_bins, weights):
    X = random_sparse(seed, nan=seed % 2 == 0, explicit_zeros=seed % 3 == 0,
                      negative=seed != 1)
    rng = np.random.default_rng(seed)
    w = {"ones": np.ones(80), "twos": np.full(80, 2.0), "unequal": rng.uniform(0.1, 3, 80),
         "some zero": np.where(rng.random(80) < 0.3, 0.0, rng.uniform(0.1, 3, 80))}[weights]
    dense_binner, sparse_binner = Binner(max_bins), Binner(max_bins)
    codes = dense_binner.fit_transform(as_frame(dense_of(X)), w)
    bins = sparse_binner.fit_transform(as_sparse(X), w)
    for a, b in zip(dense_binner.features_, sparse_binner.features_):
        assert (a.name, a.index, a.kind) == (b.name, b.index, b.kind)
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(bins.to_dense(), codes)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_sparse_bins_of_float32_and_int_columns_equal_the_dense_ones(dtype):
    X = random_sparse(3, n=120, integer=dtype is np.int64).astype(dtype)
    dense_binner, sparse_binner = Binner(4), Binner(4)
    codes = dense_binner.fit_transform(as_frame(X.toarray()), np.ones(120))
    bins = sparse_binner.fit_transform(as_sparse(X), np.ones(120))
    for a, b in zip(dense_binner.features_, sparse_binner.features_):
        np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(bins.to_dense(), codes)


def test_cut_points_apply_to_sparse_columns():
    X = random_sparse(0)
    cuts = {"x0": [-0.5, 0.0, 0.5]}
    dense_binner, sparse_binner = Binner(8, cuts), Binner(8, cuts)
    codes = dense_binner.fit_transform(as_frame(X.toarray()), np.ones(80))
    bins = sparse_binner.fit_transform(as_sparse(X), np.ones(80))
    np.testing.assert_array_equal(sparse_binner.features_[0].thresholds, [-0.5, 0.0, 0.5])
    np.testing.assert_array_equal(bins.to_dense(), codes)


def test_zero_has_a_bin_of_its_own_in_a_mostly_zero_non_negative_column():
    X = random_sparse(1, n=400, d=3, density=0.1, negative=False)
    binner = Binner(255)
    bins = binner.fit_transform(as_sparse(X), np.ones(400))
    for j in range(2):
        assert bins.zero_bin[j] == 0
        # No stored (non-zero) entry shares the zero bin.
        assert not np.any((bins.columns == j) & (bins.codes == 0))


def test_stored_zeros_are_implicit_and_the_codes_are_row_major():
    X = random_sparse(0, explicit_zeros=True)
    bins = Binner(8).fit_transform(as_sparse(X), np.ones(80))
    assert bins.indptr[-1] == (X.toarray() != 0).sum()
    for r in range(80):
        columns = bins.columns[bins.indptr[r]:bins.indptr[r + 1]]
        assert np.all(np.diff(columns) > 0)
        np.testing.assert_array_equal(columns, np.flatnonzero(X.toarray()[r] != 0))


# -- kernels against plain NumPy on the dense codes -----------------------------
def _problem(seed, n_outputs=1, n=70, d=6):
    X = random_sparse(seed, n=n, d=d, nan=True)
    binner = Binner(6)
    bins = binner.fit_transform(as_sparse(X), np.ones(n))
    rng = np.random.default_rng(seed)
    g, h = rng.normal(size=(n, n_outputs)), rng.uniform(0.1, 1, (n, n_outputs))
    c = rng.uniform(0.5, 2, n)
    rows = np.sort(rng.choice(n, size=n // 2 + seed % 7, replace=False)).astype(np.intp)
    return bins, bins.to_dense(), binner.n_bins_, g, h, c, rows


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_outputs", [1, 3])
def test_sparse_histograms_match_naive_histograms_of_the_dense_codes(seed, n_outputs):
    bins, dense, n_bins, g, h, c, rows = _problem(seed, n_outputs)
    hist = np.empty((dense.shape[1], n_bins.max() + 1, 2 * n_outputs + 2))
    sk.build_histograms_sparse(bins.indptr, bins.columns, bins.codes, bins.zero_bin, n_bins,
                               rows, g, h, c, hist)
    expected = naive.histograms_multi(dense, rows, g, h, c, n_bins)
    np.testing.assert_array_equal(hist[:, :, -1], expected[:, :, -1])  # counts exact
    np.testing.assert_allclose(hist, expected, rtol=1e-12, atol=1e-12)
    if n_outputs == 1:  # the single-output layout G, H, C, N
        np.testing.assert_allclose(hist, naive.histograms(dense, rows, g[:, 0], h[:, 0], c, n_bins),
                                   rtol=1e-12, atol=1e-12)


def test_a_zero_bin_without_zero_rows_is_exactly_the_stored_entries():
    # Rows in the opposite order of their bins: the total (0.1 + 0.2 + 0.3 in
    # row order) and the bins' sum (0.3 + 0.2 + 0.1) differ in the last bit.
    X = sparse.csr_matrix(np.array([[3.0, 0.0], [2.0, 0.0], [1.0, 5.0]]))
    bins = Binner(8).fit_transform(as_sparse(X), np.ones(3))
    n_bins = np.array([3, 2])
    g, h = np.array([[0.1], [0.2], [0.3]]), np.ones((3, 1))
    assert 0.1 + 0.2 + 0.3 != 0.3 + 0.2 + 0.1
    hist = np.empty((2, 4, 4))
    sk.build_histograms_sparse(bins.indptr, bins.columns, bins.codes, bins.zero_bin, n_bins,
                               np.arange(3), g, h, np.ones(3), hist)
    # Column 0 stores every row: its bins are direct sums, bit for bit.
    assert hist[0, :3, 0].tolist() == [0.3, 0.2, 0.1]


@pytest.mark.parametrize("seed", range(8))
def test_sparse_split_and_code_lookup_match_the_dense_codes(seed):
    bins, dense, n_bins, _, _, _, rows = _problem(seed)
    for r in range(0, len(dense), 7):
        for f in range(dense.shape[1]):
            assert sk._code_at(bins.indptr, bins.columns, bins.codes, bins.zero_bin, r, f) == dense[r, f]
    for condition in naive.candidates(n_bins, np.zeros(len(n_bins), bool)):
        kept, removed = np.empty_like(rows), np.empty_like(rows)
        n_kept = sk.split_rows_sparse(bins.indptr, bins.columns, bins.codes, bins.zero_bin, rows,
                                      condition[0], condition[1], condition[2],
                                      int(n_bins[condition[0]]), kept, removed)
        mask = naive.condition_mask(dense, *condition, n_bins)
        np.testing.assert_array_equal(kept[:n_kept], rows[mask[rows]])
        np.testing.assert_array_equal(removed[:len(rows) - n_kept], rows[~mask[rows]])


@pytest.mark.parametrize("seed", range(8))
def test_count_codes_matches_bincount_of_the_dense_codes(seed):
    bins, dense, n_bins, _, _, _, rows = _problem(seed)
    counts = np.empty((dense.shape[1], n_bins.max() + 1), np.int64)
    sk._count_codes(bins.indptr, bins.columns, bins.codes, bins.zero_bin, rows, len(rows), counts)
    for f in range(dense.shape[1]):
        np.testing.assert_array_equal(
            counts[f], np.bincount(dense[rows, f], minlength=counts.shape[1]))


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("max_chosen", [1, 3])
def test_sparse_greedy_cover_and_redundant_equal_the_dense_kernels(seed, max_chosen):
    bins, dense, n_bins, *_ = _problem(seed)
    root = np.arange(len(dense), dtype=np.intp)
    conditions = naive.candidates(n_bins, np.zeros(len(n_bins), bool))
    feature, op, bin_ = (np.array(a, np.int64) for a in zip(*conditions))
    rng = np.random.default_rng(seed)
    query = rng.choice(len(conditions), size=2, replace=False)
    mask = np.ones(len(dense), bool)
    for p in query:
        mask &= naive.condition_mask(dense, *conditions[p], n_bins)
    extent = np.flatnonzero(mask).astype(np.intp)
    candidates = np.arange(len(conditions), dtype=np.int64)
    arrays = (bins.indptr, bins.columns, bins.codes, bins.zero_bin)
    out = {}
    for name, cover, data in (("dense", kernels.greedy_cover, (dense,)),
                              ("sparse", sk.greedy_cover_sparse, arrays)):
        chosen = np.full(max_chosen, -1, np.int64)
        k = cover(*data, root, extent, mask, feature, op, bin_, n_bins, candidates, max_chosen,
                  np.zeros((0, 0), np.int64), chosen)
        out[name] = (k, chosen.tolist())
    assert out["sparse"] == out["dense"]
    props = np.sort(query).astype(np.int64)
    keeps = []
    for redundant, data in ((kernels.redundant, (dense,)), (sk.redundant_sparse, arrays)):
        keep = np.empty(2, bool)
        redundant(*data, root, feature, op, bin_, n_bins, props, len(extent), keep)
        keeps.append(keep.tolist())
    assert keeps[0] == keeps[1]


# -- fits: the sparse matrix's model is the dense array's ----------------------
def _same_model(sparse_model, dense_model, X):
    a, b = sparse_model.ensemble_, dense_model.ensemble_
    assert [str(r.query) for r in a.rules] == [str(r.query) for r in b.rules]
    np.testing.assert_allclose(np.array([r.weight for r in a.rules], dtype=float),
                               np.array([r.weight for r in b.rules], dtype=float),
                               rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(np.asarray(a.intercept), np.asarray(b.intercept), rtol=1e-12)
    predict = getattr(sparse_model, "decision_function", sparse_model.predict)
    np.testing.assert_allclose(predict(X), getattr(dense_model, "decision_function",
                                                   dense_model.predict)(X.toarray()),
                               rtol=1e-9, atol=1e-9)


def _fit_both(make, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "boosting stopped ..."
        return make(**kwargs).fit(X, y), make(**kwargs).fit(X.toarray(), y)


def _targets(kind, rng, X):
    signal = np.nan_to_num(X[:, [0]].toarray().ravel() - X[:, [2]].toarray().ravel())
    noise = rng.normal(size=X.shape[0])
    if kind == "squared":
        return RuleBoostingRegressor, {}, np.nan_to_num(signal) + noise
    if kind == "poisson":
        return RuleBoostingRegressor, {"loss": "poisson"}, rng.poisson(np.exp(np.clip(signal, -2, 2)))
    if kind == "binary":
        return RuleBoostingClassifier, {}, (signal + noise > 0).astype(int)
    if kind == "multiclass":
        return RuleBoostingClassifier, {}, np.digitize(signal + noise, [-0.5, 0.5])
    if kind == "multilabel":
        return RuleBoostingClassifier, {}, (rng.normal(size=(X.shape[0], 3))
                                            + signal[:, None] > 0).astype(int)
    return RuleBoostingRegressor, {}, rng.normal(size=(X.shape[0], 3)) + signal[:, None]


KINDS = ["squared", "poisson", "binary", "multiclass", "multilabel", "multioutput"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(5))
def test_a_fit_on_sparse_x_equals_the_fit_on_the_dense_array(kind, seed):
    rng = np.random.default_rng(seed)
    X = random_sparse(seed, n=150, d=8, nan=seed % 2 == 1, explicit_zeros=seed % 2 == 0,
                      negative=seed != 3)
    make, params, y = _targets(kind, rng, X)
    weights = None if seed < 3 else rng.uniform(0.2, 2, 150)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        a = make(n_rules=8, verbose=0, max_bins=16, **params).fit(X, y, sample_weight=weights)
        b = make(n_rules=8, verbose=0, max_bins=16, **params).fit(X.toarray(), y,
                                                                  sample_weight=weights)
    _same_model(a, b, X)


@pytest.mark.parametrize("kind", ["multilabel", "multioutput", "multiclass"])
def test_single_output_heads_on_sparse_x_equal_the_dense_fit(kind):
    rng = np.random.default_rng(7)
    X = random_sparse(7, n=150, d=8)
    make, params, y = _targets(kind, rng, X)
    a, b = _fit_both(make, X, y, n_rules=8, verbose=0, head="single", **params)
    _same_model(a, b, X)


@pytest.mark.parametrize("learner", ["optimal", "orthogonal"])
def test_other_learners_fit_the_dense_codes_of_sparse_x(learner):
    rng = np.random.default_rng(1)
    X = random_sparse(1, n=120, d=5)
    make, _, y = _targets("squared", rng, X)
    a, b = _fit_both(make, X, y, n_rules=4, verbose=0, learner=learner, max_bins=8)
    assert [str(r) for r in a.ensemble_.rules] == [str(r) for r in b.ensemble_.rules]
    np.testing.assert_array_equal(a.predict(X), b.predict(X.toarray()))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok"])
def test_every_sparse_format_and_sparse_arrays_give_the_same_model(fmt):
    rng = np.random.default_rng(2)
    X = random_sparse(2, n=100, d=6)
    _, _, y = _targets("squared", rng, X)
    reference = RuleBoostingRegressor(n_rules=5, verbose=0).fit(X.toarray(), y)
    for matrix in (X.asformat(fmt), sparse.csr_array(X).asformat(fmt)):
        model = RuleBoostingRegressor(n_rules=5, verbose=0).fit(matrix, y)
        assert str(model.ensemble_) == str(reference.ensemble_)
        np.testing.assert_array_equal(model.predict(matrix), reference.predict(X.toarray()))


def test_predictions_on_sparse_x_equal_those_on_the_dense_array_to_the_bit():
    rng = np.random.default_rng(4)
    X = random_sparse(4, n=200, d=8, nan=True)
    y = rng.integers(0, 3, 200)
    model = RuleBoostingClassifier(n_rules=6, verbose=0).fit(X.toarray(), y)
    for method in ("decision_function", "predict_proba", "predict"):
        np.testing.assert_array_equal(getattr(model, method)(X),
                                      getattr(model, method)(X.toarray()))
    for method in ("staged_decision_function", "staged_predict_proba", "staged_predict"):
        for a, b in zip(getattr(model, method)(X), getattr(model, method)(X.toarray())):
            np.testing.assert_array_equal(a, b)


def test_fit_and_predict_never_make_the_matrix_dense(monkeypatch):
    X = random_sparse(5, n=300, d=10)
    y = np.random.default_rng(5).normal(size=300)
    X = X.tocsc()

    def refuse(*args, **kwargs):
        raise AssertionError("densified")

    for cls in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    model = RuleBoostingRegressor(n_rules=5, verbose=0).fit(X, y)
    model.predict(X)
    list(model.staged_predict(X))


def test_a_tall_sparse_fit_peaks_far_below_the_dense_codes():
    # Counts 1..3 (as of words): few propositions, so the matrix dominates.
    n, d = 20000, 2000  # dense float64: 320 MB; bin codes as uint16: 80 MB
    counts = np.random.default_rng(1)
    X = sparse.random(n, d, density=0.002, format="csr", random_state=0,
                      data_rvs=lambda k: counts.integers(1, 4, k).astype(float))
    y = np.asarray(X[:, :5].sum(axis=1)).ravel() + np.random.default_rng(0).normal(size=n)
    RuleBoostingRegressor(n_rules=2, verbose=0).fit(X, y)  # compile outside the measurement
    tracemalloc.start()
    try:
        model = RuleBoostingRegressor(n_rules=5, verbose=0).fit(X, y)
        model.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * d * 2 / 8, f"peak {peak / 1e6:.1f} MB"  # 5 MB measured


# -- bad input ----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_the_input_matrix_is_not_modified(fmt):
    X = random_sparse(6, explicit_zeros=True, nan=True).asformat(fmt)
    # Unsorted indices, as a caller's matrix may hold: canonicalising them in
    # place would change the caller's arrays.
    i = int(np.argmax(np.diff(X.indptr)))  # the row (column) of the most entries
    start, stop = X.indptr[i], X.indptr[i + 1]
    assert stop - start >= 2
    X.indices[start:stop] = X.indices[start:stop][::-1].copy()
    X.data[start:stop] = X.data[start:stop][::-1].copy()
    X.has_sorted_indices = False
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    y = np.random.default_rng(6).normal(size=80)
    model = RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, y)
    model.predict(X)
    for a, b in zip(before, (X.data, X.indices, X.indptr)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("matrix, message", [
    (sparse.csr_matrix(np.array([[True, False], [False, True]] * 5)), r"X is a sparse matrix of dtype bool"),
    (sparse.csr_matrix(np.array([[1.0, np.inf], [0.0, 1.0]] * 5)), r"column 'x1' contains infinite"),
    (sparse.csr_matrix((10, 0)), r"X has no columns"),
])
def test_bad_sparse_input_is_refused_naming_it(matrix, message):
    with pytest.raises(ValueError, match=message):
        RuleBoostingRegressor(n_rules=2, verbose=0).fit(matrix, np.arange(10.0))


@pytest.mark.parametrize("params, message", [
    ({"include_linear": True}, r"include_linear=True is not supported with sparse X"),
    ({"propositions": 4}, r"propositions is not supported with sparse X"),
])
def test_parameters_sparse_x_cannot_use_are_named(params, message):
    X = random_sparse(0)
    with pytest.raises(ValueError, match=message):
        RuleBoostingRegressor(n_rules=2, verbose=0, **params).fit(X, np.arange(80.0))


def test_prediction_refuses_infinite_sparse_values_and_a_nominal_model():
    X = random_sparse(0)
    model = RuleBoostingRegressor(n_rules=2, verbose=0).fit(X, np.arange(80.0))
    bad = X.tolil()
    bad[0, 3] = np.inf
    with pytest.raises(ValueError, match="column 'x3' contains infinite"):
        model.predict(bad.tocsr())
    frame = pd.DataFrame({"a": ["u", "v"] * 40, "b": np.arange(80.0)})
    nominal = RuleBoostingRegressor(n_rules=2, verbose=0).fit(frame, np.arange(80.0))
    with pytest.raises(ValueError, match="nominal columns"):
        nominal.predict(sparse.csr_matrix(np.ones((3, 2))))


# -- the enron loader -------------------------------------------------------------
PUBLISHED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "multi_output"


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason="the published files are not in this checkout")
@pytest.mark.parametrize("name", ["enron", "yeast"])
def test_load_multi_output_sparse_returns_the_dense_frames_values_as_csr(name):
    if name == "enron":
        pytest.importorskip("arff", reason="liac-arff reads sparse ARFF")
    X, Y = load_multi_output(name, data_home=PUBLISHED, sparse=True)
    X_dense, Y_dense = load_multi_output(name, data_home=PUBLISHED)
    assert sparse.isspmatrix_csr(X) and X.dtype == np.float64
    np.testing.assert_array_equal(X.toarray(), X_dense.to_numpy())
    pd.testing.assert_frame_equal(Y, Y_dense)


def test_load_multi_output_sparse_refuses_a_dense_dataset_by_name():
    with pytest.raises(ValueError, match="sparse=True is for the datasets stored sparse"):
        load_multi_output("emotions", sparse=True)


def test_a_model_fitted_on_sparse_x_round_trips_through_json_and_pickle():
    import pickle

    from rulebook import load_model

    X = random_sparse(8, n=120)
    y = np.random.default_rng(8).integers(0, 3, 120)
    model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, y)
    for loaded in (load_model(model.to_json()), pickle.loads(pickle.dumps(model))):
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_bins", [2, 3, 8, 255, None])
def test_few_valued_cuts_of_all_columns_equal_the_per_column_cuts(seed, max_bins):
    """The cuts of the columns of at most ``max_bins`` distinct values, found
    for all columns at once, against ``_uniform_cuts`` column by column
    (NaN, stored zeros, inactive rows); the others are left out."""
    from rulebook import _sparse_bins as sb

    X = as_sparse(random_sparse(seed, nan=seed % 2 == 0, explicit_zeros=seed % 3 == 0,
                                negative=seed != 1))
    active = np.random.default_rng(seed).random(80) < (0.7 if seed % 2 else 1.0)
    found = sb._few_valued_cuts(X, active, int(active.sum()), max_bins)
    for j in range(X.shape[1]):
        rows, values = sb._column(X, j)
        keep = active[rows] & ~np.isnan(values)
        n_zero = int(active.sum()) - int(active[rows].sum())
        expected = sb._uniform_cuts(values[keep], n_zero, max_bins)
        n_distinct = len(np.unique(np.r_[values[keep], [0.0] * (n_zero > 0)]))
        if max_bins is not None and n_distinct > max_bins:
            assert j not in found
        else:
            np.testing.assert_array_equal(found[j][0], expected[0])
            np.testing.assert_array_equal(found[j][1], expected[1])


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_outputs", [1, 3])
def test_sparse_histograms_from_row_statistics_equal_the_kernel_bitwise(seed, n_outputs):
    """The greedy search's sparse build (a row's channels one vector), for
    all features and for a few (entries found per row), against
    ``build_histograms_sparse`` to the bit; features not listed untouched."""
    from rulebook import _multi_output_kernels as mk

    bins, dense, n_bins, g, h, c, rows = _problem(seed, n_outputs)
    d = dense.shape[1]
    expected = np.empty((d, n_bins.max() + 1, 2 * n_outputs + 2))
    sk.build_histograms_sparse(bins.indptr, bins.columns, bins.codes, bins.zero_bin, n_bins,
                               rows, g, h, c, expected)
    stats = mk.row_statistics(g, h, c)
    for listed in (np.arange(d), np.array([1, d - 1]), np.array([seed % d])):
        hist = np.full_like(expected, np.nan)
        sk.build_sparse_from_statistics(bins.indptr, bins.columns, bins.codes, bins.zero_bin,
                                        n_bins, rows, stats, listed, len(listed) == d, hist)
        np.testing.assert_array_equal(hist[listed], expected[listed])
        assert np.isnan(np.delete(hist, listed, axis=0)).all()
