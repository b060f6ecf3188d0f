"""Paper-style propositions (paper_propositions.paper_cut_points / paper_allowed).

The reference is the propositionalisation of Boley et al.'s code
(``realkd.search.Context.from_df``) re-stated here with plain pandas, so
that the test environment needs no realkd: for each numeric column the
upper ``pd.qcut`` edges (or every distinct value), each giving ``x <= c``
and ``x >= c``; for each object column ``x == v`` per value.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.binning import EQ, GT, LE, NE, Binner
from rulebook.datasets import DATASETS, load_titanic
from rulebook.paper_propositions import paper_allowed, paper_cut_points


def reference_extents(X, propositions):
    """{column: sorted distinct non-empty extents (bytes)} of the paper's propositions.

    Distinct, because different propositions can select the same rows: a
    column with a single value ``v`` and NaN gets ``x <= v`` and ``x >= v``
    from qcut's edges ``[v, v]``, both the non-missing rows; interpolated
    edges can fall between the same two data values (``x >= 1/3`` and
    ``x >= 1`` on the values -1, 0, 1). The mask has one entry per bin
    proposition, so such duplicates become one.
    """
    out = {}
    for name in X.columns:
        column = X[name]
        k = propositions.get(name) if isinstance(propositions, dict) else propositions
        masks = []
        if column.dtype.kind in "uif":
            values = column.to_numpy(dtype=np.float64, na_value=np.nan)
            distinct = column.unique()
            if k and len(distinct) * 2 > k:
                # labels=False: the same edges; the labels (which the paper's code
                # makes) fail on values near the smallest float.
                _, edges = pd.qcut(column, k // 2, labels=False, retbins=True, duplicates="drop")
                for c in edges[1:]:
                    masks += [values <= c, values >= c]
            else:
                # Sorted non-missing values (the paper's code sorts a list
                # holding NaN here, whose order is undefined).
                present = np.sort(column.dropna().unique().astype(np.float64))
                masks += [values <= c for c in present[:-1]]
                masks += [values >= c for c in present[1:]]
        elif column.dtype.kind == "O":
            masks += [(column == v).to_numpy(dtype=bool, na_value=False) for v in column.unique()]
        out[name] = sorted({m.tobytes() for m in masks if m.any()})
    return out


def our_extents(X, propositions):
    """Same shape as ``reference_extents``, from the allowed binned propositions.

    Each extent is computed twice, from the bin codes and from the
    real-valued proposition on X, and both must agree.
    """
    binner = Binner(cut_points=paper_cut_points(X, propositions))
    codes = binner.fit_transform(X, np.ones(len(X)))
    allowed = paper_allowed(binner, X, propositions)
    assert allowed.shape == (X.shape[1], int(binner.n_bins_.max()) + 1, 4)
    assert not allowed[:, :, NE].any()
    out = {}
    for j, feature in enumerate(binner.features_):
        b, nb = codes[:, j].astype(int), feature.n_bins
        # Nothing is allowed beyond the feature's own propositions.
        last = nb if feature.kind == "nominal" else nb - 1
        assert not allowed[j, last:, :].any()
        masks = []
        for k, op in zip(*np.nonzero(allowed[j])):
            binned = {LE: b <= k, GT: (b > k) & (b < nb), EQ: b == k}[op]
            real = feature_proposition_mask(binner, X, j, op, k)
            np.testing.assert_array_equal(binned, real)
            masks.append(binned)
        out[feature.name] = sorted({m.tobytes() for m in masks if m.any()})
    return out


def feature_proposition_mask(binner, X, j, op, k):
    return np.asarray(binner.proposition(j, op, int(k)).evaluate(X), dtype=bool)


def assert_same_propositions(X, propositions):
    assert our_extents(X, propositions) == reference_extents(X, propositions)


@pytest.mark.parametrize("dropna", [True, False])
def test_titanic_paper_settings(dropna):
    X, _ = load_titanic(dropna=dropna)
    assert_same_propositions(X, DATASETS["titanic"].paper_propositions)


@pytest.mark.parametrize("propositions", [2, 3, 6, 10, None])
def test_titanic_uniform_counts(propositions):
    X, _ = load_titanic()
    assert_same_propositions(X, propositions)


def test_titanic_counts_are_the_papers():
    """The numbers of propositions per column are at most the paper's."""
    X, _ = load_titanic(dropna=True)
    spec = DATASETS["titanic"].paper_propositions
    binner = Binner(cut_points=paper_cut_points(X, spec))
    binner.fit_transform(X, np.ones(len(X)))
    allowed = paper_allowed(binner, X, spec)
    per_column = dict(zip(X.columns, allowed.sum(axis=(1, 2))))
    for name in ["Age", "Fare", "SibSp", "Parch", "Pclass"]:
        assert per_column[name] <= spec[name]
    assert per_column["Sex"] == 2 and per_column["Embarked"] == 3
    # Age has many values: 10 equal-frequency thresholds, <= and >= each.
    assert per_column["Age"] == 20


numbers = st.one_of(st.none(), st.integers(-3, 3).map(float), st.floats(-1e3, 1e3, allow_nan=False)
                  # pandas.qcut fails on values near the smallest normal float
                  # (so would the paper's code); paper_cut_points says so.
                  .filter(lambda v: v == 0 or abs(v) > 1e-300))
words = st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d"]))


@st.composite
def frames(draw):
    n = draw(st.integers(1, 40))
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["float", "int", "object", "bool", "constant"]))
        if kind == "float":
            values = pd.Series(draw(st.lists(numbers, min_size=n, max_size=n)), dtype="float64")
        elif kind == "int":
            values = pd.Series(draw(st.lists(st.integers(-2, 5), min_size=n, max_size=n)), dtype="int64")
        elif kind == "object":
            values = pd.Series(draw(st.lists(words, min_size=n, max_size=n)), dtype=object)
            values = values.where(values.notna(), np.nan)  # as read_csv gives them
        elif kind == "bool":
            values = pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
        else:
            values = pd.Series(np.full(n, 7.0))
        columns[f"c{j}"] = values
    frame = pd.DataFrame(columns)
    use_dict = draw(st.booleans())
    counts = st.sampled_from([2, 3, 4, 5, 6, 8, 20, None])
    propositions = ({name: draw(counts) for name in columns if draw(st.booleans())}
                    if use_dict else draw(counts))
    return frame, propositions


@settings(max_examples=150, deadline=None)
@given(frames())
def test_extents_match_reference_on_random_frames(case):
    X, propositions = case
    if X.select_dtypes("object").apply(lambda c: c.notna().sum() == len(c) >= 32 and c.nunique() == len(c)).any():
        return  # identifier-like columns are rejected by the binner (not reachable with 4 words)
    assert_same_propositions(X, propositions)


def test_cut_points_are_thresholds_and_their_predecessors():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan]})
    # 3 distinct values allowed... 7 (with NaN) > 4 / 2: qcut into 2 bins,
    # edges [1, 3.5, 6] -> x <= 3.5, x >= 3.5 (x > 3), x <= 6, x >= 6 (x > 5).
    np.testing.assert_array_equal(paper_cut_points(X, 4)["x"], [3.0, 3.5, 5.0, 6.0])
    # Few distinct values: every value is a threshold, x <= v but the last, x >= v but the first.
    np.testing.assert_array_equal(paper_cut_points(X, None)["x"], [1.0, 2.0, 3.0, 4.0, 5.0])


def test_nan_counts_as_a_distinct_value_for_the_quantile_decision():
    """As in the paper's code (Series.unique keeps NaN): 2 values + NaN > 4 / 2."""
    X = pd.DataFrame({"x": [1.0, 2.0, np.nan, 1.0, 2.0]})
    assert paper_cut_points(X, 6)["x"].tolist() == [1.0]  # 3 * 2 = 6, not > 6: every value
    # 3 * 2 > 4: qcut(x, 2) with edges [1, 1.5, 2]: x <= 1.5, x >= 1.5 (x > 1), x <= 2, x >= 2 (x > 1).
    assert paper_cut_points(X, 4)["x"].tolist() == [1.0, 1.5, 2.0]


def test_bool_and_nominal_columns():
    X = pd.DataFrame({"flag": [True, False, True], "s": ["a", np.nan, "b"]})
    assert paper_cut_points(X) == {}
    binner = Binner(cut_points=paper_cut_points(X))
    binner.fit_transform(X, np.ones(3))
    allowed = paper_allowed(binner, X)
    assert not allowed[0].any()  # bool: no propositions, as in the paper's code
    assert allowed[1, :, EQ].tolist() == [True, True, False] and allowed[1].sum() == 2


def test_mask_needs_the_paper_cut_points():
    X = pd.DataFrame({"x": np.arange(20.0)})
    binner = Binner(max_bins=3)
    binner.fit_transform(X, np.ones(20))
    with pytest.raises(ValueError, match="paper_cut_points"):
        paper_allowed(binner, X, 6)


def test_mask_needs_each_paper_cut_point_not_just_one_above_it():
    """Cut points near the paper's but none of them, each below a larger one
    of the binner: still an error, naming a point it lacks."""
    X = pd.DataFrame({"x": np.arange(20.0)})
    paper = paper_cut_points(X, 4)["x"]
    binner = Binner(cut_points={"x": np.r_[paper + 0.25, 100.0]})
    binner.fit_transform(X, np.ones(20))
    with pytest.raises(ValueError, match="binner has no cut point .* in column 'x'"):
        paper_allowed(binner, X, 4)


def test_extra_cut_points_are_not_allowed():
    X = pd.DataFrame({"x": np.arange(20.0)})
    cuts = paper_cut_points(X, 4)
    binner = Binner(cut_points={"x": np.r_[cuts["x"], [0.0, 13.0]]})
    binner.fit_transform(X, np.ones(20))
    allowed = paper_allowed(binner, X, 4)
    thresholds = binner.features_[0].thresholds
    extra = np.flatnonzero(np.isin(thresholds, [0.0, 13.0]))
    assert len(extra) == 2 and not allowed[0, extra, :].any()
    assert allowed.sum() == 4


@pytest.mark.parametrize("propositions", [0, 1, -4, 2.0, True, "10", [4], {"x": 1}, {"x": 3.0}])
def test_bad_propositions(propositions):
    X = pd.DataFrame({"x": np.arange(5.0)})
    with pytest.raises(ValueError, match="propositions"):
        paper_cut_points(X, propositions)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # numpy, inside pandas.qcut
def test_tiny_values_get_their_quantile_and_infinities_a_clear_error():
    # qcut's interval labels failed on values near the smallest float; its
    # edges, all that is used, do not.
    X = pd.DataFrame({"tiny": [np.nan, 4.170434e-308]})
    np.testing.assert_array_equal(paper_cut_points(X, 2)["tiny"], [4.170434e-308])
    X = pd.DataFrame({"x": [np.inf, 1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="'x' contains infinite values"):
        paper_cut_points(X, 2)


def test_bad_inputs():
    X = pd.DataFrame({"x": np.arange(5.0)})
    with pytest.raises(ValueError, match="not in X"):
        paper_cut_points(X, {"y": 4})
    with pytest.raises(ValueError, match="DataFrame"):
        paper_cut_points(X.to_numpy(), 4)
    with pytest.raises(ValueError, match="fitted"):
        paper_allowed(Binner(), X, 4)
    binner = Binner(cut_points=paper_cut_points(X, 4))
    binner.fit_transform(X, np.ones(5))
    with pytest.raises(ValueError, match="same columns"):
        paper_allowed(binner, X.rename(columns={"x": "z"}), 4)


def test_estimator_accepts_the_cut_points():
    """The cut points go straight into the estimators' ``cut_points``."""
    from rulebook import RuleBoostingClassifier

    X, y = load_titanic(dropna=True)
    spec = DATASETS["titanic"].paper_propositions
    model = RuleBoostingClassifier(n_rules=2, cut_points=paper_cut_points(X, spec), verbose=0)
    model.fit(X, y)
    assert len(model.ensemble_) == 2


def test_optimal_search_keeps_to_the_paper_propositions():
    """With the mask as ``SearchProblem.allowed``, the optimal query (after
    shortening) consists of the paper's propositions only."""
    from rulebook.losses import get_loss
    from rulebook.objectives import OBJECTIVES
    from rulebook.optimal import optimal_search
    from rulebook.search import SearchProblem

    X, y = load_titanic(dropna=True)
    spec = DATASETS["titanic"].paper_propositions
    binner = Binner(cut_points=paper_cut_points(X, spec))
    X_binned = binner.fit_transform(X, np.ones(len(X)))
    allowed = paper_allowed(binner, X, spec)
    signs = np.where(y.to_numpy() == 1, 1.0, -1.0)
    rng = np.random.default_rng(0)
    for scale in (0.0, 1.0, 2.0):
        g, h = get_loss("logistic").gradient_hessian(signs, scale * rng.normal(size=len(X)),
                                                     np.ones(len(X)))
        problem = SearchProblem(X_binned, binner.n_bins_, binner.is_nominal_, g, h,
                                np.ones(len(X)), np.arange(len(X)), 1.0,
                                OBJECTIVES["second_order"], allowed=allowed)
        result = optimal_search(problem, time_limit=30)
        assert result.conditions
        assert all(allowed[f, b, op] for f, op, b in result.conditions), result.conditions


@settings(max_examples=500, deadline=None)
@given(st.lists(numbers, min_size=1, max_size=60), st.integers(1, 12))
def test_qcut_edges_are_pandas_qcuts_bit_for_bit(values, q):
    """The fast edges equal ``pandas.qcut``'s (the paper's code) wherever it succeeds."""
    from rulebook.paper_propositions import _qcut_edges

    column = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if np.isnan(column).all():
        return
    try:
        _, expected = pd.qcut(column, q, labels=False, retbins=True, duplicates="drop")
    except ValueError:
        return  # e.g. repeated edges that pandas refuses to drop
    np.testing.assert_array_equal(_qcut_edges(column, q), expected)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_qcut_edges_of_columns_equal_one_column_at_a_time(n, d, q, seed):
    """One quantile call for many columns gives each column's edges bit for bit."""
    from rulebook.paper_propositions import _qcut_edges, _qcut_edges_of_columns

    rng = np.random.default_rng(seed)
    # Ties (few distinct values) and spread values.
    values = np.where(rng.random((n, d)) < 0.5, rng.integers(0, 3, (n, d)),
                      rng.normal(size=(n, d)) * 10.0 ** rng.integers(-3, 4, (1, d)))
    got = _qcut_edges_of_columns(values, q)
    assert len(got) == d
    for j in range(d):
        np.testing.assert_array_equal(got[j], _qcut_edges(values[:, j], q))
