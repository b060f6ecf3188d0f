"""The boosting loop's own pieces (``rulebook.boosting``), against their definitions."""

import warnings

import numpy as np
import pandas as pd
import pytest

from rulebook import OptimalLearner, RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.binning import Binner
from rulebook.boosting import BoostingSetup, _count, fit_boosting
from rulebook.datasets import load_titanic
from rulebook.learners import resolve_learner
from rulebook.losses import get_loss


@pytest.mark.parametrize("n, text", [
    (0, "0"), (950, "950"), (999, "999"), (1000, "1k"), (1234, "1.2k"), (9999, "10k"),
    (12345, "12k"), (99_999, "100k"), (999_499, "999k"), (999_999, "1M"), (3_400_000, "3.4M"), (12_000_000, "12M"),
    (2_500_000_000, "2.5G"),
])
def test_node_counts_print_in_four_characters_and_a_suffix(n, text):
    assert _count(n) == text


@pytest.mark.parametrize("learner", ["greedy", "orthogonal"])
def test_a_length_limit_of_zero_means_no_limit(learner):
    # BoostingSetup.max_rule_length 0 (the estimators' None) searches rules
    # of any length: the same rules as a limit no rule reaches.
    X, y = load_titanic()
    y = (y == y.unique()[0]).to_numpy(dtype=float) * 2 - 1
    weights = np.ones(len(y))
    binner = Binner(32)
    X_binned = binner.fit_transform(X, weights)
    learner_, objective, update = resolve_learner(learner, "second_order", None, "auto")

    def rules(limit):
        setup = BoostingSetup(X_binned=X_binned, binner=binner, y=y, sample_weight=weights,
                              loss=get_loss("logistic"), learner=learner_, objective=objective,
                              reg_lambda=1.0, n_rules=4, max_rule_length=limit,
                              weight_update=update)
        return [str(rule.query) for rule in fit_boosting(setup)[1]]

    unlimited = rules(0)
    assert unlimited and unlimited == rules(X.shape[1])
    if learner == "greedy":
        assert max(len(rule.split(" & ")) for rule in unlimited) > 2


@pytest.mark.parametrize("make", [
    lambda: RuleBoostingClassifier(n_rules=3, verbose=0),
    lambda: RuleBoostingClassifier(n_rules=3, learner="orthogonal", verbose=0),
])
def test_linear_terms_on_a_table_without_numbers_change_nothing(make):
    # No numeric column, no term: the same model as without include_linear,
    # to the last bit (the intercept is the loss's baseline, not a re-fit).
    X, y = load_titanic()
    X = X.select_dtypes(exclude="number")
    plain = make().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linear = make().set_params(include_linear=True).fit(X, y)
    assert linear.ensemble_.terms == ()
    assert linear.ensemble_.intercept == plain.ensemble_.intercept
    assert linear.ensemble_.rules == plain.ensemble_.rules
    pd.testing.assert_frame_equal(linear.history_.drop(columns="time"),
                                  plain.history_.drop(columns="time"))


def test_squared_loss_intercept_alone_is_the_weighted_mean():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"kind": rng.choice(["a", "b", "c"], size=50)})
    y = rng.normal(size=50)
    w = rng.uniform(0.5, 2, size=50)
    model = RuleBoostingRegressor(n_rules=1, include_linear=True, verbose=0).fit(X, y, w)
    assert model.history_["intercept"].iloc[0] == np.average(y, weights=w)


# -- the round's status text ------------------------------------------------------
class _Bar:
    """A stand-in for tqdm: records the status text."""

    disable, start_t, delay = False, None, 0.0

    def __init__(self):
        self.texts = []

    def set_postfix_str(self, text, refresh=True):
        self.texts.append(text)


@pytest.mark.parametrize("threads, shown", [(1, ""), (2, " on 2 threads")])
def test_round_status_names_threads_only_when_there_are_several(threads, shown):
    from rulebook._progress import report
    from rulebook.boosting import _round_progress

    bar = _Bar()
    with _round_progress(bar, 3):
        report(nodes=12_345, best=0.0131, certified_ratio=0.42, threads=threads)
    assert bar.texts[-1] == f"round 3: 12k nodes{shown}, best 0.0131, certified \u2265 0.42"


# -- the search problem: which kernel variant and which child side ------------------
def _problem(n_rows, n_features, n_bins):
    from rulebook.search import SearchProblem

    rng = np.random.default_rng(0)
    X_binned = rng.integers(0, n_bins, size=(n_rows, n_features)).astype(np.uint16)
    g = rng.normal(size=n_rows)
    return SearchProblem(X_binned=X_binned, n_bins=np.full(n_features, n_bins, np.int64),
                         is_nominal=np.zeros(n_features, bool), g=g, h=np.ones(n_rows),
                         c=np.ones(n_rows), rows=np.arange(n_rows), reg_lambda=1.0,
                         objective=0)


def _spy(monkeypatch, module, names):
    calls = []
    for name in names:
        real = getattr(module, name)
        monkeypatch.setattr(module, name,
                            lambda *args, _real=real, _name=name: (calls.append(_name), _real(*args))[1])
    return calls


def test_scans_go_parallel_from_features_times_bins(monkeypatch):
    # d * width >= PARALLEL_MIN_WORK, not d + width: 300 x 256 bins.
    from rulebook import search

    calls = _spy(monkeypatch, search.kernels, ["scan_histograms_parallel",
                                               "scan_histograms_serial"])
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 300 * 256)
    problem = _problem(50, 300, 255)
    hist = problem.histograms(problem.rows)
    problem.best_refinements(hist, 50)
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 300 * 256 + 1)
    problem.best_refinements(hist, 50)
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 300 * 256 - 1)
    problem.best_refinements(hist, 50)
    assert calls == ["scan_histograms_parallel", "scan_histograms_serial",
                     "scan_histograms_parallel"]


def test_histograms_go_parallel_from_rows_times_features(monkeypatch):
    # rows * features >= PARALLEL_MIN_WORK, not rows ^ features: 1000 x 10.
    from rulebook import search

    calls = _spy(monkeypatch, search.kernels, ["build_histograms_parallel",
                                               "build_histograms_serial"])
    monkeypatch.setattr(search, "PARALLEL_MIN_WORK", 10_000)
    problem = _problem(1000, 10, 8)
    problem.histograms(problem.rows)
    problem.histograms(problem.rows[:999])
    assert calls == ["build_histograms_parallel", "build_histograms_serial"]


@pytest.mark.parametrize("n_kept, built", [(30, "kept"), (70, "removed"), (50, "kept")])
def test_child_histograms_build_the_smaller_side(monkeypatch, n_kept, built):
    # Subtract only when the removed rows are fewer: building them is cheaper.
    problem = _problem(100, 3, 8)
    kept, removed = problem.rows[:n_kept], problem.rows[n_kept:]
    parent = problem.histograms(problem.rows)
    seen = []
    real = problem.histograms
    monkeypatch.setattr(problem, "histograms", lambda rows: (seen.append(len(rows)), real(rows))[1])
    child = problem.child_histograms(parent, kept, removed)
    assert seen == [len(kept) if built == "kept" else len(removed)]
    np.testing.assert_allclose(child, real(kept), atol=1e-12)


@pytest.mark.parametrize("kwargs", [
    {"learner": "greedy", "weight_update": "corrective"},
    {"learner": "optimal", "weight_update": "corrective"},
    {"learner": "orthogonal"},
])
def test_boosting_stops_once_the_rules_fit_the_target_exactly(kwargs):
    # y is two rules; after them the gradient is rounding noise (loss ~1e-32),
    # and no further rule may be fitted to it: the fit stops with the warning.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.uniform(-1, 1, 200), "z": rng.uniform(size=200)})
    y = 1.0 + 3.0 * (X["x"] > 0) + 0.1 * (X["z"] > 0.5)
    with pytest.warns(UserWarning, match="boosting stopped after 2 rules"):
        model = RuleBoostingRegressor(n_rules=6, reg_lambda=0.0, verbose=0, **kwargs).fit(X, y)
    assert len(model.ensemble_.rules) == 2
    assert model.history_["train_loss"].iloc[-1] < 1e-20


def test_a_fit_whose_rules_would_not_pay_their_condition_cost_stops_saying_so():
    # Noise on one column of four values (test_input_defects' table): after
    # two rules no condition's objective exceeds its cost (a quarter of the
    # noise level), so the optimal learner stops rather than fit the noise;
    # the plain objective goes on.
    X = pd.DataFrame({"s": [1.5, 2.0, np.nan, 3.25] * 15})
    y = np.random.default_rng(0).normal(size=60)
    with pytest.warns(UserWarning, match=r"boosting stopped after 2 rules: no query's objective "
                                         r"exceeds the cost of its conditions"):
        model = RuleBoostingRegressor(n_rules=3, learner="optimal", verbose=0).fit(X, y)
    assert len(model.ensemble_.rules) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = RuleBoostingRegressor(n_rules=3, learner=OptimalLearner(condition_cost=0),
                                      verbose=0).fit(X, y)
    assert len(plain.ensemble_.rules) == 3


def test_the_stop_warning_points_at_the_callers_line():
    # warnings.warn's stacklevel: fit_boosting <- _fit <- fit <- this test.
    X = pd.DataFrame({"x": [0.0, 1.0] * 20})
    y = X["x"].to_numpy() * 2.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        RuleBoostingRegressor(n_rules=3, reg_lambda=0.0, verbose=0).fit(X, y)
    stops = [w for w in caught if "boosting stopped" in str(w.message)]
    assert stops and stops[0].filename == __file__


@pytest.mark.parametrize("loss, learner", [("logistic", "greedy"), ("poisson", "greedy"),
                                           ("squared", "optimal")])
def test_root_histograms_from_the_last_round_equal_a_direct_pass(monkeypatch, loss, learner):
    """Each round's root histograms, built from the last round's plus the
    change on the last rule's extent (``SearchProblem.root_update``), are
    those of a direct pass over every row: counts and weights to the bit,
    sums of g and h to rounding; across a direct rebuild
    (``ROOT_REBUILD_ROUNDS``), with sample weights."""
    from rulebook import boosting, search

    monkeypatch.setattr(boosting, "ROOT_REBUILD_ROUNDS", 5)
    monkeypatch.setattr(boosting, "ROOT_UPDATE_MIN_ROWS", 0)
    rng = np.random.default_rng(7)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 40, n).astype(float),
                      "c": rng.choice(["u", "v", "w"], n)})
    X.loc[X.index[::17], "a"] = np.nan
    signal = (X["a"].fillna(0) > 0.3) + (X["b"] < 10) + (X["c"] == "v")
    signal = signal.to_numpy(float)
    noisy = signal + rng.normal(size=n)
    y = {"logistic": np.where(noisy > 1.5, 1.0, -1.0), "poisson": rng.poisson(np.exp(0.5 * signal)),
         "squared": noisy}[loss].astype(float)
    weights = rng.choice([0.0, 0.5, 1.0, 2.0], n)
    binner = Binner(64)
    X_binned = binner.fit_transform(X, weights)
    learner_, objective, update = resolve_learner(learner, "second_order", None, "auto")
    checked = []
    original = search.SearchProblem.root_histograms

    def checked_root(self):
        incremental = self.root_update is not None
        hist = original(self)
        direct = self._build(self.rows, self.g, self.h)
        np.testing.assert_array_equal(hist[:, :, 2:], direct[:, :, 2:])
        scale = np.abs(self.g[self.rows]).sum() + np.abs(self.h[self.rows]).sum()
        np.testing.assert_allclose(hist[:, :, :2], direct[:, :, :2], rtol=0, atol=1e-12 * scale)
        checked.append(incremental)
        return hist

    monkeypatch.setattr(search.SearchProblem, "root_histograms", checked_root)
    setup = BoostingSetup(X_binned=X_binned, binner=binner, y=y, sample_weight=weights,
                          loss=get_loss(loss), learner=learner_, objective=objective,
                          reg_lambda=1.0, n_rules=12, max_rule_length=2, weight_update=update)
    _, rules, _, _ = fit_boosting(setup)
    assert len(rules) == 12
    assert sum(checked) >= 8 and not all(checked), checked  # both kinds of round ran


def test_root_histograms_update_gives_the_same_rules_as_direct_passes(monkeypatch):
    """The same queries and, to rounding, the same weights as a fit whose
    every root is a direct pass (the change is speed, not results)."""
    from rulebook import boosting

    X, y = load_titanic()
    monkeypatch.setattr(boosting, "ROOT_UPDATE_MIN_ROWS", 0)
    fits = []
    for every in (boosting.ROOT_REBUILD_ROUNDS, 1):
        monkeypatch.setattr(boosting, "ROOT_REBUILD_ROUNDS", every)
        fits.append(RuleBoostingClassifier(n_rules=20, verbose=0).fit(X, y).ensemble_)
    assert [str(r.query) for r in fits[0].rules] == [str(r.query) for r in fits[1].rules]
    np.testing.assert_allclose([r.weight for r in fits[0].rules], [r.weight for r in fits[1].rules],
                               rtol=1e-12)


@pytest.mark.parametrize("loss", ["squared", "logistic", "poisson"])
def test_gradients_of_some_rows_are_those_of_a_pass_over_every_row(loss):
    """The loop recomputes g and h on the last rule's extent only
    (``_next_problem``): element by element the same bits as the whole pass,
    whatever the rows' positions in the arrays (SIMD bodies and tails)."""
    rng = np.random.default_rng(11)
    n = 10_007
    y = {"squared": rng.normal(size=n), "logistic": rng.choice([-1.0, 1.0], n),
         "poisson": rng.poisson(3.0, n).astype(float)}[loss]
    raw = rng.normal(scale=3.0, size=n)
    weights = rng.choice([0.5, 1.0, 2.0], n)
    g, h = get_loss(loss).gradient_hessian(y, raw, weights)
    for rows in (np.arange(1, n, 3), np.sort(rng.choice(n, 37, replace=False)), np.array([n - 1])):
        g_rows, h_rows = get_loss(loss).gradient_hessian(y[rows], raw[rows], weights[rows])
        np.testing.assert_array_equal(g_rows, g[rows])
        np.testing.assert_array_equal(h_rows, h[rows])


def test_training_loss_and_gradients_from_the_extent_match_direct_passes(monkeypatch):
    """history_'s training loss, updated on each rule's extent, is the loss
    of a direct pass (to rounding) in every round, with sample weights and
    an intercept shift."""
    from rulebook import boosting

    X, y = load_titanic()
    weights = np.random.default_rng(2).choice([0.5, 1.0, 3.0], len(y))
    fits = []
    for every in (boosting.ROOT_REBUILD_ROUNDS, 1):
        monkeypatch.setattr(boosting, "ROOT_REBUILD_ROUNDS", every)
        fits.append(RuleBoostingClassifier(n_rules=20, verbose=0).fit(X, y, sample_weight=weights))
    incremental, direct = (f.history_["train_loss"].to_numpy() for f in fits)
    np.testing.assert_allclose(incremental, direct, rtol=1e-12)
    assert [str(r.query) for r in fits[0].ensemble_.rules] == [str(r.query) for r in fits[1].ensemble_.rules]
    for k, staged in enumerate(fits[0].staged_ensembles()):
        raw = staged.decision_function(X)
        yy = np.where(y == fits[0].classes_[1], 1.0, -1.0)
        assert incremental[k] == pytest.approx(get_loss("logistic").loss(yy, raw, weights), rel=1e-9)


def test_row_major_histograms_are_the_column_major_ones_to_the_bit():
    """``SearchProblem.X_rows``: every share of the rows (a row-major
    serial pass or the column-major blocks) gives the histograms of the
    column-major pass exactly: each feature's sums run in row order."""
    from rulebook.search import SearchProblem

    rng = np.random.default_rng(5)
    n, d = 8000, 12  # from 70% of the rows the column-major pass runs on threads
    X_binned = np.asfortranarray(rng.integers(0, 9, size=(n, d)).astype(np.uint16))
    n_bins = np.full(d, 8, np.int64)
    g, h, c = rng.normal(size=n), rng.random(n), rng.choice([0.5, 1.0, 2.0], n)
    common = {"X_binned": X_binned, "n_bins": n_bins, "is_nominal": np.zeros(d, bool), "g": g,
              "h": h, "c": c, "rows": np.arange(n), "reg_lambda": 1.0, "objective": 0}
    column_major = SearchProblem(**common)
    row_major = SearchProblem(**common, X_rows=np.ascontiguousarray(X_binned))
    for share in (0.01, 0.05, 0.2, 0.5, 1.0):
        rows = np.sort(rng.choice(n, int(n * share), replace=False)).astype(np.intp)
        np.testing.assert_array_equal(row_major._build(rows, g, h), column_major._build(rows, g, h))


def test_a_tall_fit_from_the_row_major_table_is_the_same_fit(monkeypatch):
    from rulebook import boosting

    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.normal(size=(3000, 5)), columns=list("abcde"))
    y = X["a"] - X["b"] ** 2 + rng.normal(size=3000)
    fits = []
    for rows in (0, 10**9):
        monkeypatch.setattr(boosting, "ROW_MAJOR_MIN_ROWS", rows)
        fits.append(RuleBoostingRegressor(n_rules=8, verbose=0).fit(X, y).ensemble_)
    assert fits[0].to_json() == fits[1].to_json()
