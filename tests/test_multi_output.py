"""Multi-label classification and multi-output regression (issue 20).

The label-wise losses against their single-output parts and finite
differences, the targets' checks, the estimators' outputs in scikit-learn's
multi-label conventions, the views of such models, and fits that must equal
known ones (duplicated outputs, a column vector).
"""

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit
from sklearn.datasets import make_multilabel_classification, make_regression
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.estimator_checks import parametrize_with_checks
from sklearn.utils.multiclass import type_of_target

from rulebook import OrthogonalLearner, RuleBoostingClassifier, RuleBoostingRegressor, load_model
from rulebook.losses import LogisticLoss, OutputWiseLoss, PoissonLoss, SquaredLoss

finite = {"allow_nan": False, "allow_infinity": False}


def _labels(n=200, k=4, seed=0, frame=True):
    X, y = make_multilabel_classification(n_samples=n, n_features=5, n_classes=k,
                                          random_state=seed)
    X = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    return X, (pd.DataFrame(y, columns=[f"label {j}" for j in range(k)]) if frame else y)


def _targets(n=150, k=3, seed=0):
    X, y = make_regression(n_samples=n, n_features=4, n_targets=k, random_state=seed)
    return pd.DataFrame(X, columns=list("abcd")), pd.DataFrame(y, columns=[f"t{j}" for j in range(k)])


# -- the loss ----------------------------------------------------------------
@st.composite
def output_problems(draw, max_rows=6, max_outputs=4):
    n, k = draw(st.integers(1, max_rows)), draw(st.integers(2, max_outputs))
    output_loss = draw(st.sampled_from([SquaredLoss(), LogisticLoss(), PoissonLoss()]))
    raw = np.array(draw(st.lists(st.floats(-5, 5, **finite), min_size=n * k, max_size=n * k)))
    if isinstance(output_loss, LogisticLoss):
        y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n * k, max_size=n * k)))
    else:
        y = np.array(draw(st.lists(st.integers(0, 5), min_size=n * k, max_size=n * k)), float)
    w = np.array(draw(st.lists(st.floats(0.1, 3, **finite), min_size=n, max_size=n)))
    return output_loss, y.reshape(n, k), raw.reshape(n, k), w


@settings(max_examples=80, deadline=None)
@given(output_problems())
def test_output_wise_loss_is_its_output_loss_column_by_column(problem):
    output_loss, y, raw, w = problem
    loss = OutputWiseLoss(output_loss)
    g, h = loss.gradient_hessian(y, raw, w)
    assert g.shape == h.shape == y.shape and g.flags.c_contiguous and h.flags.c_contiguous
    for k in range(y.shape[1]):
        gk, hk = output_loss.gradient_hessian(y[:, k], raw[:, k], w)
        np.testing.assert_array_equal(g[:, k], gk)
        np.testing.assert_array_equal(h[:, k], np.broadcast_to(hk, gk.shape))
    expected = sum(output_loss.loss(y[:, k], raw[:, k], w) for k in range(y.shape[1]))
    np.testing.assert_allclose(loss.loss(y, raw, w), expected, rtol=1e-12)
    np.testing.assert_array_equal(loss.baseline(y, w), [output_loss.baseline(y[:, k], w)
                                                        for k in range(y.shape[1])])


@settings(max_examples=60, deadline=None)
@given(output_problems())
def test_output_wise_gradient_is_the_derivative_of_the_summed_risk(problem):
    output_loss, y, raw, w = problem
    loss = OutputWiseLoss(output_loss)
    g, _ = loss.gradient_hessian(y, raw, w)
    eps = 1e-6
    for i, k in np.ndindex(*y.shape):
        up, down = raw.copy(), raw.copy()
        up[i, k] += eps
        down[i, k] -= eps
        numeric = (loss.loss(y, up, w) - loss.loss(y, down, w)) / (2 * eps) * w.sum()
        np.testing.assert_allclose(g[i, k], numeric, rtol=1e-4, atol=1e-5)


# -- multi-label classification ------------------------------------------------
def test_the_checks_read_an_indicator_matrix_as_scikit_learn_does():
    _, y = _labels(frame=False)
    assert type_of_target(y) == "multilabel-indicator"


def test_multi_label_predictions_follow_scikit_learns_conventions():
    X, y = _labels()
    model = RuleBoostingClassifier(n_rules=6, verbose=0).fit(X, y)
    assert list(model.classes_) == list(y.columns)
    assert model.ensemble_.outputs == tuple(y.columns) and model.ensemble_.loss == "logistic"
    raw = model.decision_function(X)
    assert raw.shape == y.shape
    np.testing.assert_array_equal(model.predict_proba(X), expit(raw))
    predicted = model.predict(X)
    assert predicted.dtype == np.int64 and predicted.shape == y.shape
    np.testing.assert_array_equal(predicted, (raw > 0).astype(np.int64))
    assert model.score(X, y) == np.mean((predicted == y.to_numpy()).all(axis=1))
    # Each label's intercept is its log odds (the baseline, label by label).
    p = y.mean().to_numpy()
    np.testing.assert_allclose(model.ensemble_.intercept, np.log(p / (1 - p)), rtol=1e-12)


def test_an_array_a_list_of_lists_and_a_frame_give_the_same_model():
    X, y = _labels(frame=False)
    models = [RuleBoostingClassifier(n_rules=4, verbose=0).fit(X, target)
              for target in (y, y.tolist(), list(y), pd.DataFrame(y), y.astype(bool))]
    assert list(models[0].classes_) == [0, 1, 2, 3]
    for model in models[1:]:
        assert model.ensemble_ == models[0].ensemble_


def test_training_reduces_each_labels_loss_and_rules_help_on_held_out_rows():
    X, y = _labels(n=400, seed=1)
    train, test = slice(0, 300), slice(300, 400)
    model = RuleBoostingClassifier(n_rules=15, verbose=0).fit(X[train], y[train])
    assert model.history_["train_loss"].is_monotonic_decreasing
    baseline = (y[train].mean() > 0.5).to_numpy().astype(int)
    hamming = np.mean(model.predict(X[test]) != y[test].to_numpy())
    assert hamming < np.mean(baseline != y[test].to_numpy())


@pytest.mark.parametrize("y, message", [
    (pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 0, 1, 0]}), "column 'a' holds values such as"),
    (pd.DataFrame({"a": [0, 1, 1, 0], "b": [1, None, 1, 0]}), "column 'b' has missing values"),
    (np.array([["x", "y"], ["y", "x"], ["x", "x"], ["y", "y"]]), "multiclass-multioutput"),
    (np.zeros((3, 2)), "X has 4 rows but y has 3"),
    (pd.DataFrame([[0, 1]] * 4, columns=["a", "a"]), "column name twice"),
])
def test_bad_multi_label_targets_are_refused_by_name(y, message):
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=message):
        RuleBoostingClassifier(n_rules=1, verbose=0).fit(X, y)


@pytest.mark.parametrize("params, named", [
    ({"learner": "optimal", "max_rule_length": 3}, "learner='optimal'"),
    ({"objective": "gradient_boosting"}, "objective='gradient_boosting'"),
    ({"include_linear": True}, "include_linear=True"),
])
def test_what_several_outputs_do_not_support_yet_is_refused_by_name(params, named):
    X, y = _labels(n=60)
    with pytest.raises(ValueError, match="several outputs") as info:
        RuleBoostingClassifier(n_rules=1, verbose=0, **params).fit(X, y)
    assert named in str(info.value) and "4 labels" in str(info.value)
    assert "learner='greedy'" in str(info.value)
    X, y = _targets(n=60)
    with pytest.raises(ValueError, match="several outputs") as info:
        RuleBoostingRegressor(n_rules=1, verbose=0, **params).fit(X, y)
    assert named in str(info.value) and "3 outputs" in str(info.value)


def test_the_tags_say_multi_label_and_multi_output_where_supported():
    assert RuleBoostingClassifier().__sklearn_tags__().classifier_tags.multi_label
    assert not RuleBoostingClassifier().__sklearn_tags__().target_tags.multi_output
    assert RuleBoostingRegressor().__sklearn_tags__().target_tags.multi_output
    for params in ({"learner": "orthogonal"}, {"weight_update": "corrective"}):
        assert RuleBoostingClassifier(**params).__sklearn_tags__().classifier_tags.multi_label
        assert RuleBoostingRegressor(**params).__sklearn_tags__().target_tags.multi_output
    for params in ({"learner": "optimal", "max_rule_length": 3}, {"include_linear": True}):
        assert not RuleBoostingClassifier(**params).__sklearn_tags__().classifier_tags.multi_label
        assert not RuleBoostingRegressor(**params).__sklearn_tags__().target_tags.multi_output


# -- multi-output regression ---------------------------------------------------
def test_multi_output_regression_predicts_a_column_per_output():
    X, y = _targets()
    model = RuleBoostingRegressor(n_rules=6, verbose=0).fit(X, y)
    assert model.ensemble_.outputs == ("t0", "t1", "t2") and model.ensemble_.loss == "squared"
    predicted = model.predict(X)
    assert predicted.shape == y.shape and predicted.dtype == np.float64
    np.testing.assert_array_equal(predicted, model.ensemble_.decision_function(X))
    np.testing.assert_allclose(model.ensemble_.intercept, y.mean().to_numpy(), rtol=1e-12)
    assert model.history_["train_loss"].is_monotonic_decreasing


def test_duplicated_outputs_give_the_single_output_rules():
    """K equal columns: every output's sums are the one output's, the complete
    head's objective K times its objective, so the same queries and weights."""
    X, y = _targets(k=1)
    single = RuleBoostingRegressor(n_rules=6, verbose=0).fit(X, y["t0"])
    multi = RuleBoostingRegressor(n_rules=6, verbose=0).fit(X, pd.concat([y["t0"]] * 3, axis=1,
                                                                         keys=["a", "b", "c"]))
    assert [r.query for r in multi.ensemble_.rules] == [r.query for r in single.ensemble_.rules]
    for m, s in zip(multi.ensemble_.rules, single.ensemble_.rules):
        np.testing.assert_allclose(m.weight, [s.weight] * 3, rtol=1e-12)


@pytest.mark.parametrize("learner", [
    OrthogonalLearner(strategy="greedy"), OrthogonalLearner(strategy="beam", beam_width=3)])
@pytest.mark.parametrize("task", ["squared", "logistic"])
def test_duplicated_outputs_give_the_single_output_orthogonal_rules(learner, task):
    """K equal outputs: the complete head's orthogonal objective is sqrt(K)
    times the one output's and the corrective re-fit is the one output's
    for each, so the single-output fit's queries and weights (issue 20,
    item 4: rulebook.orthogonal_outputs, rulebook.corrective_outputs)."""
    if task == "squared":
        X, y = _targets(k=1)
        y, estimator = y["t0"], RuleBoostingRegressor
    else:
        X, labels = _labels(k=1)
        y, estimator = labels["label 0"], RuleBoostingClassifier
    single = estimator(n_rules=5, learner=learner, verbose=0).fit(X, y)
    multi = estimator(n_rules=5, learner=learner, verbose=0).fit(
        X, pd.concat([y] * 3, axis=1, keys=["a", "b", "c"]))
    assert [r.query for r in multi.ensemble_.rules] == [r.query for r in single.ensemble_.rules]
    np.testing.assert_allclose(multi.ensemble_.intercept, [single.ensemble_.intercept] * 3,
                               rtol=1e-9)
    for m, s in zip(multi.ensemble_.rules, single.ensemble_.rules):
        np.testing.assert_allclose(m.weight, [s.weight] * 3, rtol=1e-9)


@pytest.mark.parametrize("head", ["complete", "single"])
@pytest.mark.parametrize("params", [{"learner": "orthogonal"}, {"weight_update": "corrective"}])
def test_corrective_fits_of_several_outputs_are_each_rounds_optimum(head, params):
    # Every round's model (history_) minimises the regularised training risk
    # over its rules' weights: the gradient over the free entries (the
    # intercepts, each rule's head) vanishes, computed from the rows.
    X, y = _targets()
    model = RuleBoostingRegressor(n_rules=4, head=head, verbose=0, **params).fit(X, y)
    Q = np.column_stack([r.query.evaluate(X) for r in model.ensemble_.rules]).astype(float)
    for t, row in model.history_.iloc[1:].iterrows():
        W = np.array(row["weights"], dtype=float).reshape(t, -1)
        residual = np.asarray(row["intercept"], dtype=float) + Q[:, :t] @ W - y.to_numpy()
        gradient_b = 2 * residual.sum(axis=0)
        gradient_W = 2 * Q[:, :t].T @ residual + model.reg_lambda * W
        heads = W != 0
        np.testing.assert_allclose(gradient_b, 0.0, atol=1e-6 * len(y))
        np.testing.assert_allclose(gradient_W[heads], 0.0, atol=1e-6 * len(y))
        if head == "single":
            assert np.all(heads.sum(axis=1) == 1)


def test_poisson_per_output_and_its_checks_name_the_column():
    X, y = _targets()
    counts = np.floor(np.abs(y) / 20)
    model = RuleBoostingRegressor(n_rules=4, loss="poisson", verbose=0).fit(X, counts)
    np.testing.assert_allclose(model.predict(X), np.exp(model.ensemble_.decision_function(X)))
    np.testing.assert_allclose(model.ensemble_.intercept, np.log(counts.mean().to_numpy()),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="y column 't1': loss='poisson' needs non-negative"):
        RuleBoostingRegressor(n_rules=1, loss="poisson", verbose=0).fit(X, counts.assign(t1=-1.0))
    with pytest.raises(ValueError, match="y column 't2': y contains NaN"):
        RuleBoostingRegressor(n_rules=1, verbose=0).fit(X, y.assign(t2=np.nan))


def test_a_column_vector_is_the_one_output_fit():
    X, y = _targets(k=1)
    single = RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, y["t0"])
    with pytest.warns(DataConversionWarning):
        column = RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, y.to_numpy())
    assert column.ensemble_ == single.ensemble_ and column.ensemble_.outputs is None


# -- what shows a model of several outputs --------------------------------------
@pytest.fixture(scope="module")
def fitted():
    X, y = _labels(n=120)
    Xr, yr = _targets(n=120)
    return {"labels": (RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, y), X),
            "targets": (RuleBoostingRegressor(n_rules=3, verbose=0).fit(Xr, yr), Xr)}


@pytest.mark.parametrize("kind", ["labels", "targets"])
def test_text_frame_and_html_name_the_outputs(fitted, kind):
    model, X = fitted[kind]
    outputs = model.ensemble_.outputs
    header = str(model.ensemble_).splitlines()[0]
    assert [header.index(str(o)) for o in outputs] == sorted(header.index(str(o)) for o in outputs)
    assert [f"weight[{o}]" for o in outputs] == model.ensemble_.weight_columns()
    assert set(model.ensemble_.weight_columns()) <= set(model.ensemble_.to_frame().columns)
    html = model._repr_html_()
    assert all(f"<th>{o}</th>" in html for o in outputs)
    assert ("multi-label classification, 4 labels" if kind == "labels"
            else "multi-output regression, 3 outputs") in html


@pytest.mark.parametrize("kind", ["labels", "targets"])
def test_the_estimator_saves_as_json_and_loads_ready_to_predict(fitted, kind):
    model, X = fitted[kind]
    loaded = load_model(model.to_json())
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.ensemble_ == model.ensemble_
    if kind == "labels":
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        assert list(loaded.classes_) == list(model.classes_)
    again = type(model.ensemble_).from_json(model.ensemble_.to_json())
    assert again == model.ensemble_ and again.outputs == model.ensemble_.outputs


def test_a_file_whose_outputs_are_not_the_labels_is_refused(fitted):
    model, _ = fitted["labels"]
    data = json.loads(model.to_json())
    data["classes"]["values"][0]["value"] = "label 9"
    with pytest.raises(ValueError, match="outputs"):
        load_model(json.dumps(data))


@pytest.mark.parametrize("kind", ["labels", "targets"])
def test_staged_predictions_end_at_the_model(fitted, kind):
    model, X = fitted[kind]
    staged = list(model.staged_predict(X))
    assert len(staged) == len(model.ensemble_)
    np.testing.assert_array_equal(staged[-1], model.predict(X))
    ensembles = list(model.staged_ensembles())
    assert ensembles[-1] == model.ensemble_ and len(ensembles[0]) == 0
    np.testing.assert_array_equal(ensembles[2].decision_function(X), next(
        r for k, r in enumerate(model._staged_raw_predict(X)) if k == 1))


# -- single-output heads ----------------------------------------------------------
def test_a_single_head_predicts_for_the_output_it_helps_most():
    """Each rule's one non-zero weight is the Newton step of the output of
    the largest G_k^2 / (reg_lambda + H_k) on its extent, the others 0; its
    objective the largest of G_k^2 / (2 n (reg_lambda + H_k))."""
    X, y = _targets(n=120)
    model = RuleBoostingRegressor(n_rules=5, head="single", reg_lambda=3.0, verbose=0).fit(X, y)
    Y, raw = y.to_numpy(), np.tile(model.ensemble_.intercept, (len(X), 1))
    for t, rule in enumerate(model.ensemble_.rules, start=1):
        rows = rule.query.evaluate(X)
        g, h = -2.0 * (Y - raw), np.full(Y.shape, 2.0)
        G, H = g[rows].sum(axis=0), h[rows].sum(axis=0)
        k = int(np.argmax(G ** 2 / (3.0 + H)))
        expected = np.zeros(3)
        expected[k] = -G[k] / (3.0 + H[k])
        np.testing.assert_allclose(rule.weight, expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(model.history_["objective"][t],
                                   G[k] ** 2 / (2 * len(X) * (3.0 + H[k])), rtol=1e-10)
        raw[rows] += np.array(rule.weight)



@pytest.mark.parametrize("task", ["labels", "targets"])
def test_single_heads_rebuild_only_the_changed_outputs_root_sums_to_the_bit(task, monkeypatch):
    """A single-output head's rule changes one output's statistics, and the
    next round's root histograms rebuild that output's channels only
    (MultiOutputProblem._changed_channels): the same model, objectives and
    all, as rebuilding every channel every round."""
    from rulebook import search

    if task == "labels":
        X, Y = make_multilabel_classification(n_samples=150, n_features=6, n_classes=4,
                                              random_state=3)
        make = lambda: RuleBoostingClassifier(n_rules=8, head="single", verbose=0)
    else:
        X, Y = _targets(n=150)
        make = lambda: RuleBoostingRegressor(n_rules=8, head="single", verbose=0)
    calls = []
    rebuild = search.MultiOutputProblem._rebuild_fused
    monkeypatch.setattr(search.MultiOutputProblem, "_rebuild_fused",
                        lambda self, *a: calls.append(a[-1]) or rebuild(self, *a))
    kept = make().fit(X, Y)
    # One output's G and H (the squared loss's H does not change: G alone).
    assert len(calls) >= 5 and all(len(c) == (2 if task == "labels" else 1) for c in calls)
    monkeypatch.setattr(search.MultiOutputProblem, "_changed_channels", lambda self: None)
    full = make().fit(X, Y)
    assert kept.ensemble_ == full.ensemble_
    pd.testing.assert_frame_equal(kept.history_.drop(columns="time"),
                                  full.history_.drop(columns="time"))


def test_the_head_is_checked_and_ignored_for_one_output():
    X, y = _targets(k=1)
    with pytest.raises(ValueError, match="head must be 'complete' or 'single'; got 'one'"):
        RuleBoostingRegressor(head="one").fit(X, y["t0"])
    single = RuleBoostingRegressor(n_rules=3, head="single", verbose=0).fit(X, y["t0"])
    assert single.ensemble_ == RuleBoostingRegressor(n_rules=3, verbose=0).fit(X, y["t0"]).ensemble_


@pytest.mark.parametrize("target", ["labels", "classes"])
def test_single_heads_of_classifiers_and_their_json(target):
    from sklearn.datasets import load_iris
    X, y = _labels(n=150) if target == "labels" else load_iris(return_X_y=True, as_frame=True)
    model = RuleBoostingClassifier(n_rules=5, head="single", verbose=0).fit(X, y)
    assert all(np.count_nonzero(rule.weight) == 1 for rule in model.ensemble_.rules)
    assert model.history_["train_loss"].is_monotonic_decreasing
    loaded = load_model(model.to_json())
    assert loaded.head == "single" and loaded.ensemble_ == model.ensemble_


# The default estimators' multi-label and multi-output checks run in
# test_estimators (their tags); these are the single-output heads' (one class
# per rule: 6 rules for the checks' accuracy bar on three classes).
# And the orthogonal learner's (its own search and the corrective re-fit of
# several outputs), whose tags say multi-class, multi-label and multi-output.
@parametrize_with_checks([RuleBoostingClassifier(n_rules=6, head="single"),
                          RuleBoostingRegressor(n_rules=3, head="single"),
                          RuleBoostingClassifier(n_rules=6, learner="orthogonal"),
                          RuleBoostingRegressor(n_rules=3, learner="orthogonal")])
def test_sklearn_checks_with_single_output_heads(estimator, check):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(estimator)
