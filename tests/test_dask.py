"""rulebook.dask (issue 22): the fit of a Dask collection is the in-memory fit.

On a LocalCluster of two worker processes, tables split into several
partitions of unequal sizes, with numeric, nominal and missing values: with
the same bins, the distributed greedy fit has the in-memory fit's rules,
intercept and weights (to 1e-9) for each loss; predictions on Dask and on
pandas input agree; bad input is refused naming the parameter.
"""

import logging
import warnings

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask")
pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")  # needs pyarrow (the dask extra)
da = pytest.importorskip("dask.array")
from distributed import Client, LocalCluster

import rulebook
import rulebook.dask as rdask
from rulebook.binning import Binner
from rulebook.dask import _binning

TOL = 1e-9


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    with Client(cluster) as client:
        yield client
    cluster.close()


def _table(n=700, seed=0):
    """Numeric columns (one with NaN, one of few integers), nominal ones (text
    with missing values, a Categorical, a bool) and the three targets."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    k = rng.integers(0, 12, n)
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < 0.08] = None
    size = pd.Categorical(rng.choice(["S", "M", "L"], n))
    flag = rng.random(n) < 0.3
    X = pd.DataFrame({"x": x, "k": k, "colour": colour, "size": size, "flag": flag})
    signal = (np.nan_to_num(x) > 0.3) * 1.5 + (colour == "red") * 1.0 - (k > 8) * 0.8 + flag * 0.5
    targets = {
        "squared": signal + rng.normal(scale=0.5, size=n),
        "logistic": np.where(signal + rng.logistic(size=n) > 1.0, "yes", "no"),
        "poisson": rng.poisson(np.exp(0.5 * signal - 0.3)).astype(float),
    }
    return X, targets


def _cut_points(X):
    """The in-memory binner's thresholds of every numeric column."""
    binner = Binner()
    binner.fit_transform(X, np.ones(len(X)))
    return {f.name: f.thresholds for f in binner.features_ if f.kind == "numeric"}


def _partitioned(X, y, weight=None, chunksize=160):
    """Partitions of 160 rows and a shorter last one."""
    parts = [dd.from_pandas(X, chunksize=chunksize), dd.from_pandas(pd.Series(y, name="y"),
                                                                     chunksize=chunksize)]
    if weight is not None:
        parts.append(dd.from_pandas(pd.Series(weight, name="w"), chunksize=chunksize))
    return parts


def _estimators(loss):
    if loss == "logistic":
        return rdask.RuleBoostingClassifier, rulebook.RuleBoostingClassifier, {}
    return rdask.RuleBoostingRegressor, rulebook.RuleBoostingRegressor, {"loss": loss}


def assert_same_fit(distributed, in_memory):
    """Same rules (queries), intercept and weights to 1e-9; same history."""
    got, expected = distributed.ensemble_, in_memory.ensemble_
    assert [r.query for r in got] == [r.query for r in expected]
    np.testing.assert_allclose(got.intercept, expected.intercept, rtol=TOL, atol=TOL)
    np.testing.assert_allclose([r.weight for r in got], [r.weight for r in expected],
                               rtol=TOL, atol=TOL)
    np.testing.assert_allclose([r.coverage for r in got], [r.coverage for r in expected],
                               rtol=TOL)
    for column in ("objective", "train_loss"):
        np.testing.assert_allclose(distributed.history_[column], in_memory.history_[column],
                                   rtol=TOL, atol=TOL)
    assert list(distributed.history_["rule"]) == list(in_memory.history_["rule"])


@pytest.mark.parametrize("loss, learner", [
    ("squared", {}), ("logistic", {}), ("poisson", {}),
    ("squared", {"learner": rulebook.GreedyLearner(count_refinements=True)}),
])
def test_fit_equals_in_memory_fit_on_the_same_bins(client, loss, learner):
    X, targets = _table()
    dask_estimator, estimator, kwargs = _estimators(loss)
    params = dict(n_rules=3, cut_points=_cut_points(X), verbose=0, **learner, **kwargs)
    Xd, yd = _partitioned(X, targets[loss])
    assert Xd.npartitions == 5
    fitted = dask_estimator(**params).fit(Xd, yd)
    reference = estimator(**params).fit(X, targets[loss])
    assert len(reference.ensemble_) == 3
    assert_same_fit(fitted, reference)
    assert isinstance(fitted.ensemble_, rulebook.RuleEnsemble)


@pytest.mark.parametrize("loss, learner", [
    ("squared", {"learner": "optimal"}),
    ("logistic", {"learner": "optimal"}),
    ("poisson", {"learner": "optimal"}),
    ("squared", {"learner": "orthogonal"}),
    ("logistic", {"learner": "orthogonal"}),
    ("poisson", {"learner": "orthogonal"}),
    ("logistic", {"search": "beam", "weight_update": "corrective"}),
])
def test_learners_on_merged_atoms_and_sketch_bins_equal_in_memory(client, loss, learner):
    # The atoms of all partitions merged on the client with their rows'
    # sums, rulebook's own loop on them: the in-memory optimum, orthogonal
    # boosting with its corrective weights, beam search. No cut_points: at
    # most 2048 distinct values per partition and column, so the merged
    # sketch holds every value and its count, and its equal-frequency cut
    # points (max_bins=32, fewer than the values) and thresholds are the
    # in-memory binner's.
    X, targets = _table(n=500, seed=7)
    assert X["x"].nunique() > 32
    dask_estimator, estimator, kwargs = _estimators(loss)
    params = {"n_rules": 3, "max_bins": 32, "verbose": 0, **learner, **kwargs}
    Xd, yd = _partitioned(X, targets[loss], chunksize=130)
    fitted = dask_estimator(**params).fit(Xd, yd)
    reference = estimator(**params).fit(X, targets[loss])
    if learner == {"learner": "optimal"}:  # optimal, not a time limit's best
        assert reference.history_["certified"].iloc[1:].all()
    assert_same_fit(fitted, reference)
    if loss == "logistic":
        np.testing.assert_array_equal(fitted.classes_, reference.classes_)


@pytest.mark.parametrize("loss", ["squared", "poisson"])
def test_condition_cost_on_atoms_of_many_rows_equals_in_memory(client, loss):
    # Few atoms of many rows each, y spread within them: the cost per
    # condition (a factor of the residuals' dispersion) counts the spread
    # the atoms' pseudo-rows leave out (SearchProblem.gradient_spread).
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.integers(0, 4, 400), "b": rng.integers(0, 3, 400)})
    signal = 1.0 + (X["a"] >= 2) + 0.5 * (X["b"] == 1)
    y = rng.poisson(signal).astype(float) if loss == "poisson" else signal + rng.normal(size=400)
    kwargs = {"loss": loss, "n_rules": 4, "learner": "optimal", "verbose": 0}
    Xd, yd = _partitioned(X, y, chunksize=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = rdask.RuleBoostingRegressor(**kwargs).fit(Xd, yd)
        reference = rulebook.RuleBoostingRegressor(**kwargs).fit(X, y)
    costs = reference.history_["condition_cost"].iloc[1:]
    assert (costs > 0).all()
    np.testing.assert_allclose(fitted.history_["condition_cost"].iloc[1:], costs, rtol=1e-9)
    assert_same_fit(fitted, reference)


def test_too_many_atoms_for_the_optimal_learner_is_an_error_saying_what_to_do(client, monkeypatch):
    from rulebook.dask import _atoms

    monkeypatch.setattr(_atoms, "MAX_ATOMS", 50)
    X, targets = _table(n=300)
    Xd, yd = _partitioned(X, targets["squared"])
    with pytest.raises(ValueError, match=r"more than MAX_ATOMS=50 .*max_bins=16.*learner='greedy'"):
        rdask.RuleBoostingRegressor(n_rules=1, learner="optimal").fit(Xd, yd)


def test_approximate_cut_points_split_the_rows_about_evenly(client):
    # More distinct values than a partition's sketch keeps: the cut points
    # are approximate quantiles, within a small share of the exact ones.
    rng = np.random.default_rng(2)
    n = 12000
    X = pd.DataFrame({"u": rng.exponential(size=n)})
    Xd, yd = _partitioned(X, rng.normal(size=n), chunksize=5000)
    binner = Binner(max_bins=16)
    _binning.fit_bins(client, Xd, yd, None, binner, classify=False)
    thresholds = binner.features_[0].thresholds
    assert len(thresholds) == 15
    shares = np.diff(np.r_[0, np.searchsorted(np.sort(X["u"]), thresholds, side="right"), n]) / n
    np.testing.assert_allclose(shares, 1 / 16, atol=0.004)


def test_weights_newton_rule_weights_and_shortening_equal_in_memory(client):
    # Sample weights (some zero), the gradient-boosting objective (rule
    # weights by the 1-D search, not the closed form) and rules of up to
    # three conditions (the query shortening has more to do).
    X, targets = _table(seed=3)
    weight = np.random.default_rng(3).choice([0.0, 0.5, 1.0, 2.0], len(X))
    params = {"n_rules": 4, "cut_points": _cut_points(X), "objective": "gradient_boosting",
                  "max_rule_length": 3, "verbose": 0}
    Xd, yd, wd = _partitioned(X, targets["logistic"], weight)
    fitted = rdask.RuleBoostingClassifier(**params).fit(Xd, yd, sample_weight=wd)
    reference = rulebook.RuleBoostingClassifier(**params).fit(X, targets["logistic"],
                                                               sample_weight=weight)
    assert_same_fit(fitted, reference)


@pytest.fixture(scope="module")
def classifier(client):
    X, targets = _table(seed=4)
    Xd, yd = _partitioned(X, targets["logistic"])
    return rdask.RuleBoostingClassifier(n_rules=3, verbose=0).fit(Xd, yd), X, Xd


def test_predictions_on_dask_and_pandas_input_agree(classifier):
    model, X, Xd = classifier
    for method in ("predict", "decision_function", "predict_proba"):
        lazy = getattr(model, method)(Xd)
        assert isinstance(lazy, (dd.Series, dd.DataFrame)), method
        computed = lazy.compute()
        expected = getattr(model, method)(X)
        assert isinstance(expected, np.ndarray)
        pd.testing.assert_index_equal(computed.index, X.index)
        np.testing.assert_array_equal(computed.to_numpy(), expected)
    np.testing.assert_array_equal(model.ensemble_.predict(X), model.predict_proba(X)[:, 1])
    assert list(model.predict_proba(Xd).columns) == list(model.classes_)


def test_dask_array_input_fits_and_predicts_as_numpy_in_memory(client):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 40, size=(500, 3)).astype(float)
    y = X[:, 0] * 0.1 - (X[:, 2] > 20) + rng.normal(size=500)
    Xa, ya = da.from_array(X, chunks=(120, 3)), da.from_array(y, chunks=120)
    fitted = rdask.RuleBoostingRegressor(n_rules=3, verbose=0).fit(Xa, ya)
    reference = rulebook.RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, y)
    assert_same_fit(fitted, reference)
    assert not hasattr(fitted, "feature_names_in_")
    predicted = fitted.predict(Xa)
    assert isinstance(predicted, da.Array)
    np.testing.assert_array_equal(predicted.compute(), fitted.predict(X))
    np.testing.assert_allclose(fitted.predict(X), reference.predict(X), rtol=TOL)


# -- refused input ---------------------------------------------------------------
def test_in_memory_input_is_refused_naming_x_and_the_in_memory_estimator(client):
    X, targets = _table(n=50)
    with pytest.raises(TypeError, match=r"X must be a dask.dataframe.DataFrame.*rulebook.RuleBoostingClassifier"):
        rdask.RuleBoostingClassifier(n_rules=1).fit(X, targets["logistic"])
    Xd, _ = _partitioned(X, targets["logistic"])
    with pytest.raises(TypeError, match=r"y must be a dask.dataframe.Series"):
        rdask.RuleBoostingClassifier(n_rules=1).fit(Xd, targets["logistic"])


def test_targets_partitioned_otherwise_are_refused_naming_y(client):
    X, targets = _table(n=300)
    Xd = dd.from_pandas(X, npartitions=3)
    with pytest.raises(ValueError, match=r"y has 2 partitions and X has 3"):
        rdask.RuleBoostingRegressor(n_rules=1).fit(Xd, dd.from_pandas(
            pd.Series(targets["squared"]), npartitions=2))
    # Same number of partitions, other rows in each.
    shifted = dd.from_pandas(pd.Series(targets["squared"]), chunksize=120)
    assert shifted.npartitions == 3
    with pytest.raises(ValueError, match=r"y must be partitioned as X"):
        rdask.RuleBoostingRegressor(n_rules=1).fit(Xd, shifted)


@pytest.mark.parametrize("as_array", [False, True])
def test_targets_of_several_outputs_say_they_are_fitted_in_memory(client, as_array):
    X, targets = _table(n=50)
    Xd, yd = _partitioned(X, targets["squared"])
    Y = pd.DataFrame({"a": targets["squared"], "b": -targets["squared"]})
    Yd = dd.from_pandas(Y, npartitions=Xd.npartitions)
    if as_array:
        Yd = Yd.to_dask_array(lengths=True)
    with pytest.raises(NotImplementedError, match=r"y has 2 columns: targets of several outputs "
                                                  r".* not distributed yet.*in memory"):
        rdask.RuleBoostingRegressor(n_rules=1).fit(Xd, Yd)


@pytest.mark.parametrize("params, match", [
    ({"include_linear": True}, r"include_linear=True is not distributed yet"),
    ({"propositions": 10}, r"propositions=10 is not distributed yet"),
])
def test_what_is_not_distributed_yet_raises_naming_the_parameter(client, params, match):
    X, targets = _table(n=50)
    Xd, yd = _partitioned(X, targets["squared"])
    with pytest.raises(NotImplementedError, match=match):
        rdask.RuleBoostingRegressor(n_rules=1, **params).fit(Xd, yd)


def test_bad_targets_and_columns_are_refused_as_in_memory(client):
    X, targets = _table(n=200)
    Xd, _ = _partitioned(X, targets["squared"])
    three = pd.Series(np.resize(["a", "b", "c"], 200))
    with pytest.raises(ValueError, match=r"Only binary classification is supported by rulebook"
                                         r"\.dask.*y has 3 class\(es\).*fit them in memory with "
                                         r"rulebook\.RuleBoostingClassifier"):
        rdask.RuleBoostingClassifier(n_rules=1).fit(Xd, dd.from_pandas(three, chunksize=160))
    negative = pd.Series(-targets["poisson"] - 1)
    with pytest.raises(ValueError, match=r"loss='poisson' needs non-negative targets"):
        rdask.RuleBoostingRegressor(n_rules=1, loss="poisson").fit(
            Xd, dd.from_pandas(negative, chunksize=160))
    text = X.assign(x=X["x"].map(lambda v: "" if np.isnan(v) else f"{v:.3f}").astype(object))
    Xt, yt = _partitioned(text, targets["squared"])
    with pytest.raises(ValueError, match=r"column 'x' .* every non-blank cell holds a number.*to_numeric"):
        rdask.RuleBoostingRegressor(n_rules=1).fit(Xt, yt)
    with pytest.raises(ValueError, match=r"cut_points names column 'colour', which is nominal"):
        rdask.RuleBoostingRegressor(n_rules=1, cut_points={"colour": [1.0]}).fit(Xd, _partitioned(
            X, targets["squared"])[1])


def test_query_shortening_makes_the_in_memory_choices(client):
    # Random queries of up to four propositions, often redundant (x <= 3
    # beside x <= 7) or covering one another's rows: the greedy set cover
    # on counts summed over partitions keeps what the in-memory one keeps.
    from rulebook.dask import _client, _partitions
    from rulebook.dask._search import (
        DistributedProblem,
        Extent,
        _without_redundant,
        shortened,
    )
    from rulebook.proposition_space import _PropositionSpace
    from rulebook.search import SearchProblem, SearchResult
    from rulebook.shortening import shortened as shortened_in_memory

    X, targets = _table(n=400, seed=6)
    Xd, yd = _partitioned(X, targets["squared"], chunksize=90)
    binner = Binner(cut_points=_cut_points(X))
    X_binned = binner.fit_transform(X, np.ones(len(X)))
    shards, _ = _binning.fit_bins(client, Xd, yd, None, Binner(cut_points=_cut_points(X)),
                                  classify=False)
    workers = _client.Workers(client, shards)
    scores = _partitions.RawScores(0.0, binner.n_bins_)
    root = Extent((), len(X))
    n_bins, is_nominal = binner.n_bins_, binner.is_nominal_
    problem = DistributedProblem(workers, scores, rulebook.losses.get_loss("squared"), root,
                                 float(len(X)), n_bins, is_nominal, 1.0, 2)
    ones = np.ones(len(X))
    local = SearchProblem(X_binned=X_binned, n_bins=n_bins, is_nominal=is_nominal, g=ones, h=ones,
                          c=ones, rows=np.arange(len(X)), reg_lambda=1.0, objective=2)
    space = _PropositionSpace.of(local)
    rng = np.random.default_rng(6)
    shortened_any = dropped_any = False
    for _ in range(6):
        props = rng.choice(len(space), size=rng.integers(2, 5), replace=False)
        features = space.feature[props]
        props = props[np.isin(features, rng.choice(features, 2))]  # two columns: overlaps
        conditions = space.conditions(props)
        rows = local.rows
        for condition in conditions:
            rows = local.refine(rows, condition)
        extent = Extent(tuple((c, True) for c in conditions), len(rows))
        expected = shortened_in_memory(local, SearchResult(conditions, 0.0, rows)).conditions
        got = shortened(problem, SearchResult(conditions, 0.0, extent)).conditions
        assert got == expected, conditions
        shortened_any |= len(expected) < len(conditions)
        # The last step alone (rarely needed after the set cover): drop each
        # proposition, last first, that the others kept make redundant.
        kept = list(range(len(props)))
        for i in reversed(range(len(props))):
            others = local.rows
            for j in kept:
                if j != i:
                    others = local.refine(others, conditions[j])
            if len(others) == len(rows):
                kept.remove(i)
        np.testing.assert_array_equal(_without_redundant(problem, space, props, len(rows)),
                                      props[kept])
        dropped_any |= len(kept) < len(props)
    assert shortened_any, "no query was shortened: the test would not see a wrong choice"
    assert dropped_any, "no proposition was redundant: the test would not see a wrong one"


def test_without_the_dask_extra_fit_says_how_to_install_it(monkeypatch):
    import sys

    X, targets = _table(n=50)
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'rulebook\[dask\]'"):
        rdask.RuleBoostingRegressor(n_rules=1).fit(X, targets["squared"])


@pytest.mark.parametrize("learner", ["greedy", "optimal"])
def test_a_round_whose_best_query_is_empty_shifts_the_intercept_as_in_memory(client, learner):
    # The table of test_input_defects' test_no_rule_has_an_empty_query: with
    # stagewise weights the best query of round 3 is the empty one; the
    # intercept takes its weight and the round searches again.
    import warnings

    X = pd.DataFrame({"s": [1.5, 2.0, np.nan, 3.25] * 15})
    y = np.random.default_rng(0).normal(size=60)
    Xd, yd = _partitioned(X, y, chunksize=25)
    if learner == "optimal":  # the plain objective, as test_input_defects'
        learner = rulebook.OptimalLearner(condition_cost=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = rdask.RuleBoostingRegressor(n_rules=3, learner=learner, verbose=0).fit(Xd, yd)
        reference = rulebook.RuleBoostingRegressor(n_rules=3, learner=learner, verbose=0).fit(X, y)
    assert "intercept_shift" in reference.history_
    assert_same_fit(fitted, reference)
    for column in ("intercept", "intercept_shift"):
        np.testing.assert_allclose(fitted.history_[column], reference.history_[column],
                                   rtol=TOL, atol=TOL)


def _slice(bounds, X, y):
    start, stop = bounds
    return X.iloc[start:stop].assign(y=y[start:stop])


def test_an_empty_partition_fits_and_predicts_as_in_memory(client):
    # A filter can leave partitions without rows: they add nothing to the
    # sums, and their predictions are empty.
    X, targets = _table(n=400, seed=8)
    y = targets["logistic"]
    frame = dd.from_map(_slice, [(0, 150), (150, 150), (150, 400)], X=X, y=y,
                        meta=X.iloc[:0].assign(y=y[:0]))
    Xd, yd = frame.drop(columns="y"), frame["y"]
    assert Xd.map_partitions(len).compute().tolist() == [150, 0, 250]
    fitted = rdask.RuleBoostingClassifier(n_rules=2, verbose=0).fit(Xd, yd)
    assert_same_fit(fitted, rulebook.RuleBoostingClassifier(n_rules=2, verbose=0).fit(X, y))
    np.testing.assert_array_equal(fitted.predict_proba(Xd).compute().to_numpy(),
                                  fitted.predict_proba(X))


def test_cross_validation_runs_its_fits_on_the_cluster_through_joblib(client):
    # Issue 22, item 6: the CV estimators' fits are joblib tasks, which
    # joblib's "dask" backend sends to the cluster; the choice and the
    # model are those of the fits in this process.
    import joblib
    from distributed import get_task_stream

    X, targets = _table(n=300, seed=9)
    params = {"reg_lambdas": [1.0, 10.0], "cv": 2, "n_rules": 2, "verbose": 0}
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        on_cluster = rulebook.RuleBoostingRegressorCV(n_jobs=-1, **params).fit(
            X, targets["squared"])
    assert len(stream.data) > 0, "no task ran on the cluster"
    in_process = rulebook.RuleBoostingRegressorCV(**params).fit(X, targets["squared"])
    assert on_cluster.best_params_ == in_process.best_params_
    assert on_cluster.ensemble_ == in_process.ensemble_


def test_compare_learners_runs_its_fits_on_the_cluster_through_joblib(client):
    # Issue 22, item 6, for compare_learners: n_jobs and joblib's "dask"
    # backend; the frame is the in-process one but for the fit times.
    import joblib
    from distributed import get_task_stream

    X, targets = _table(n=300, seed=10)
    learners = {"greedy": rulebook.RuleBoostingRegressor(verbose=0),
                "orthogonal": rulebook.RuleBoostingRegressor(learner="orthogonal", verbose=0)}
    params = {"n_splits": 2, "max_rules": 2}
    with get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        on_cluster = rulebook.compare_learners(X, targets["squared"], learners, n_jobs=-1,
                                               **params)
    assert len(stream.data) > 0, "no task ran on the cluster"
    in_process = rulebook.compare_learners(X, targets["squared"], learners, **params)
    columns = [c for c in in_process.columns if c != "fit_time"]
    pd.testing.assert_frame_equal(on_cluster[columns], in_process[columns])


# -- what a worker keeps -------------------------------------------------------------
def test_replayed_raw_scores_are_the_in_memory_raw_scores_bit_for_bit():
    # Workers keep no raw score per row: the model's rules are replayed on
    # the rows a task needs, in the order they were added, which is the
    # in-memory loop's raw[rows] += weight (and raw + weight for an
    # intercept shift) to the bit, on any subset of rows; rows of zero
    # weight keep the intercept, as in memory.
    from rulebook.dask import _partitions

    rng = np.random.default_rng(11)
    n, d = 3000, 16
    X_binned = np.asfortranarray(rng.integers(0, 4, size=(n, d)).astype(np.uint8))
    weight = rng.choice([0.0, 1.0, 2.5], n)
    shard = _partitions.Shard(X_binned, np.ones(n, np.int8), weight)
    n_bins = np.full(d, 3)
    scores = _partitions.RawScores(0.3, n_bins)
    raw = np.full(n, 0.3)
    subset = np.sort(rng.choice(n, 700, replace=False))
    for k in range(d):
        terms = (((k, 0, 1), True),) if k < 12 else (((k, 0, 1), True), ((0, 2, 2), False))
        w = float(rng.normal())
        scores = scores.added(terms, w)
        raw[_partitions.extent_rows(shard, terms, n_bins)] += w
        if k == 4:
            scores, raw = scores.shifted(-0.1), raw - 0.1
        np.testing.assert_array_equal(scores.at(shard, np.arange(n)), raw)
        np.testing.assert_array_equal(scores.at(shard, subset), raw[subset])


def test_extent_rows_are_the_in_memory_splits_rows_of_positive_weight():
    from rulebook.dask import _partitions
    from rulebook.search import SearchProblem

    rng = np.random.default_rng(12)
    n = 2000
    n_bins = np.array([5, 7, 3])
    X_binned = np.asfortranarray(np.column_stack([rng.integers(0, nb + 1, n) for nb in n_bins])
                                 .astype(np.uint8))
    weight = rng.choice([0.0, 1.0], n)
    shard = _partitions.Shard(X_binned, np.zeros(n), weight)
    ones = np.ones(n)
    local = SearchProblem(X_binned=X_binned.astype(np.uint16), n_bins=n_bins,
                          is_nominal=np.array([False, True, False]), g=ones, h=ones, c=weight,
                          rows=np.flatnonzero(weight > 0), reg_lambda=0.0, objective=2)
    for conditions in [((0, 0, 2), (1, 2, 4)), ((2, 1, 1), (1, 3, 0), (0, 1, 0))]:
        rows, terms = local.rows, ()
        for condition in conditions:
            kept, removed = local.split(rows, condition)
            np.testing.assert_array_equal(
                _partitions.extent_rows(shard, terms + ((condition, False),), n_bins), removed)
            rows, terms = kept, terms + ((condition, True),)
            np.testing.assert_array_equal(_partitions.extent_rows(shard, terms, n_bins), rows)
    assert _partitions.codes_dtype(np.array([255, 3])) == np.uint8
    assert _partitions.codes_dtype(np.array([256, 3])) == np.uint16


def test_more_than_256_bins_keep_two_byte_codes_and_the_in_memory_fit(client):
    rng = np.random.default_rng(13)
    n = 1200
    X = pd.DataFrame({"u": rng.integers(0, 400, n).astype(float), "v": rng.normal(size=n)})
    y = (X["u"] > 150) * 1.0 + X["v"] * 0.3 + rng.normal(size=n)
    params = {"n_rules": 3, "max_bins": 300, "verbose": 0}
    binner = Binner(max_bins=300)
    binner.fit_transform(X, np.ones(n))
    assert binner.n_bins_.max() > 255
    params["cut_points"] = {f.name: f.thresholds for f in binner.features_}
    Xd, yd = _partitioned(X, y.to_numpy(), chunksize=300)
    fitted = rdask.RuleBoostingRegressor(**params).fit(Xd, yd)
    reference = rulebook.RuleBoostingRegressor(**params).fit(X, y)
    assert_same_fit(fitted, reference)


def test_to_json_saves_the_in_memory_estimator_with_the_same_predictions(classifier):
    model, X, _ = classifier
    loaded = rulebook.load_model(model.to_json())
    assert type(loaded) is rulebook.RuleBoostingClassifier
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert loaded.get_params() == model.get_params()


def test_ctrl_c_leaves_the_estimator_unfitted_and_the_cluster_usable(client, monkeypatch):
    from rulebook.dask import _boosting

    X, targets = _table(n=300, seed=8)
    Xd, yd = _partitioned(X, targets["squared"])
    model = rdask.RuleBoostingRegressor(n_rules=2, verbose=0).fit(Xd, yd)
    calls = {"n": 0}
    search = _boosting._Fit.search

    def interrupted(fit, problem):  # Ctrl-C in the second round's search
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return search(fit, problem)

    monkeypatch.setattr(_boosting._Fit, "search", interrupted)
    with pytest.raises(KeyboardInterrupt, match="fit interrupted"):
        model.fit(Xd, yd)
    assert not hasattr(model, "ensemble_")
    monkeypatch.setattr(_boosting._Fit, "search", search)
    assert len(model.fit(Xd, yd).ensemble_) == 2


def _still_held(keys, dask_scheduler=None):
    return [key for key in keys if key in dask_scheduler.tasks]


class _SumSeeingWhatIsHeld:
    """Sums arrays; where it runs on the client (the top merge), first notes
    which of ``keys`` the scheduler still holds."""

    def __init__(self, keys):
        self.keys, self.held = keys, None

    def __call__(self, *arrays):
        import time

        from distributed import get_client, get_worker

        try:
            get_worker()
        except ValueError:  # not on a worker: the client's final merge
            for _ in range(50):  # releases reach the scheduler asynchronously
                self.held = get_client().run_on_scheduler(_still_held, self.keys)
                if not self.held:
                    break
                time.sleep(0.1)
        return np.sum(arrays, axis=0)


def test_a_reduction_frees_each_partial_result_once_merged(client):
    # The first pass's quantile sketches piled up on the workers while the
    # client held every partition's future until the reduction's end (130 MB
    # a worker at 10^8 rows). When the last merge runs (on the client) the
    # first level's results must be gone from the cluster, and the sum right.
    from rulebook.dask import _client

    parts = [client.submit(np.full, 3, float(k), pure=False) for k in range(70)]
    merge = _SumSeeingWhatIsHeld([f.key for f in parts])
    total = _client.reduce(client, parts, merge)
    np.testing.assert_array_equal(total, np.full(3, float(sum(range(70)))))
    assert merge.held == [], f"{len(merge.held)} partial results still on the cluster"
    assert parts == []


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_a_greedy_price_gives_the_in_memory_fit(client, loss):
    """``GreedyLearner(condition_cost > 0)``: the noise level's sums come
    from the workers' rows (DistributedProblem.dispersion_sums) and give the
    in-memory price, so the same rules; on this table the price changes
    them (the test tells a priced fit from an unpriced one)."""
    X, targets = _table()
    dask_estimator, estimator, kwargs = _estimators(loss)
    params = dict(n_rules=3, cut_points=_cut_points(X), verbose=0, **kwargs)
    prices = {"dask": [], "memory": []}
    fitted = dask_estimator(learner=_PriceRecorder(prices["dask"]), **params).fit(
        *_partitioned(X, targets[loss]))
    reference = estimator(learner=_PriceRecorder(prices["memory"]), **params).fit(
        X, targets[loss])
    unpriced = estimator(**params).fit(X, targets[loss])
    assert [r.query for r in reference.ensemble_] != [r.query for r in unpriced.ensemble_]
    assert_same_fit(fitted, reference)
    assert len(prices["memory"]) == 3 and min(prices["memory"]) > 0
    np.testing.assert_allclose(prices["dask"], prices["memory"], rtol=TOL)


class _PriceRecorder(rulebook.GreedyLearner):
    """A priced greedy learner that appends each round's price to ``seen``."""

    def __init__(self, seen):
        super().__init__(condition_cost=0.5)
        object.__setattr__(self, "seen", seen)

    def refinement_price(self, problem):
        price = super().refinement_price(problem)
        self.seen.append(price)
        return price
