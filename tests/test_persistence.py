"""Saving a fitted estimator as JSON and loading it back (issue 26, defect 9).

Every estimator and learner configuration round-trips with identical
predictions, parameters and training record; malformed files, unknown
versions and hostile names give errors naming the field, or load safely;
loading imports, executes and unpickles nothing.
"""

import io
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import rulebook
from rulebook import (
    BeamLearner,
    GreedyLearner,
    OptimalLearner,
    OrthogonalLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    RuleFitClassifier,
    RuleFitRegressor,
    load_model,
)
from rulebook.persistence import SUPPORTED_VERSIONS, schema


def _table(n=240, seed=0, names=("age", "fare", "sex", "port", "flag", "code")):
    """Numeric and nominal columns (str, bool, categorical ints), with missing values."""
    rng = np.random.default_rng(seed)
    age = rng.uniform(1, 80, n)
    age[rng.random(n) < 0.1] = np.nan
    port = rng.choice(["S", "C", "Q"], n).astype(object)
    port[rng.random(n) < 0.1] = None
    X = pd.DataFrame({
        names[0]: age,
        names[1]: rng.gamma(2.0, 10.0, n).round(2),
        names[2]: rng.choice(["male", "female"], n),
        names[3]: port,
        names[4]: rng.random(n) < 0.3,
        names[5]: pd.Categorical(rng.choice([10, 20, 30], n)),
    })
    score = ((X[names[2]] == "female") * 1.5 + (np.nan_to_num(age, nan=40) < 15) * 1.0
             - (X[names[4]]) * 0.7 + rng.normal(0, 0.7, n))
    return X, score


@pytest.fixture(scope="module")
def table():
    X, score = _table()
    return X, np.where(score > 0.5, "yes", "no"), score.to_numpy()


CLASSIFIERS = {
    "greedy": {},
    "greedy-object": {"learner": GreedyLearner(shorten=False)},
    "optimal": {"learner": OptimalLearner(max_nodes=500, time_limit=None), "max_bins": 8},
    "optimal-name": {"learner": "optimal", "max_bins": 8},
    "orthogonal": {"learner": "orthogonal", "max_bins": 16},
    "orthogonal-beam": {"learner": OrthogonalLearner(strategy="beam", beam_width=3), "max_bins": 16},
    "beam": {"search": "beam", "max_bins": 16},
    "beam-object": {"learner": BeamLearner(width=2), "max_bins": 16},
    "corrective": {"weight_update": "corrective", "objective": "gradient_boosting"},
    "gradient-sum": {"objective": "gradient_sum", "reg_lambda": 0.5, "max_rule_length": None},
    "propositions": {"propositions": 6, "learner": "optimal"},
    "propositions-dict": {"propositions": {"age": 4, "fare": 6}},
    "cut-points": {"cut_points": {"age": [10.0, 20.5, 60.0], "fare": (5, 15)}, "max_bins": None},
}
REGRESSORS = {
    "squared-greedy": {},
    "squared-optimal": {"learner": "optimal", "max_bins": 8},
    "squared-orthogonal": {"learner": "orthogonal", "max_bins": 16},
    "poisson": {"loss": "poisson", "max_bins": 16},
    "poisson-corrective": {"loss": "poisson", "weight_update": "corrective"},
}


def _fit(estimator, table):
    X, labels, score = table
    if isinstance(estimator, RuleBoostingRegressor):
        y = np.exp(score / 2).round() if estimator.loss == "poisson" else score
    else:
        y = score if isinstance(estimator, RuleFitRegressor) else labels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return estimator.fit(X, y)


def _same_params(a, b):
    """Equal, and of the same types (a NumPy scalar is saved as the Python value it holds)."""
    assert a.keys() == b.keys()
    for name in a:
        left, right = a[name], b[name]
        right = right.item() if isinstance(right, np.generic) else right
        if isinstance(left, dict):
            assert list(left) == list(right), name
            for key in left:
                assert type(left[key]) is type(right[key]), (name, key)
                assert np.array_equal(left[key], right[key]), (name, key)
        else:
            assert type(left) is type(right) and left == right, name


def _same_estimator(loaded, original, X):
    assert type(loaded) is type(original)
    _same_params(loaded.get_params(), original.get_params())
    assert loaded.ensemble_ == original.ensemble_
    assert [r.coverage for r in loaded.ensemble_.rules] == [r.coverage for r in original.ensemble_.rules]
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(original, method):
            expected = getattr(original, method)(X)
            got = getattr(loaded, method)(X)
            assert got.dtype == expected.dtype and np.array_equal(got, expected), method
    if hasattr(original, "classes_"):
        assert loaded.classes_.dtype == original.classes_.dtype
        assert np.array_equal(loaded.classes_, original.classes_)
    assert loaded.n_features_in_ == original.n_features_in_
    assert np.array_equal(getattr(loaded, "feature_names_in_", None),
                          getattr(original, "feature_names_in_", None))
    assert loaded._categories == original._categories
    assert loaded._feature_kinds == original._feature_kinds
    assert loaded._fit_columns == original._fit_columns


@pytest.mark.parametrize("config", list(CLASSIFIERS), ids=str)
def test_classifier_round_trip(table, config):
    model = _fit(RuleBoostingClassifier(n_rules=3, verbose=0, **CLASSIFIERS[config]), table)
    text = model.to_json()
    loaded = load_model(text)
    _same_estimator(loaded, model, table[0])
    pd.testing.assert_frame_equal(loaded.history_, model.history_)
    for a, b in zip(loaded.staged_ensembles(), model.staged_ensembles()):
        assert a == b
    assert loaded.to_json() == text  # the loaded estimator writes the same file


@pytest.mark.parametrize("config", list(REGRESSORS), ids=str)
def test_regressor_round_trip(table, config):
    model = _fit(RuleBoostingRegressor(n_rules=3, verbose=0, **REGRESSORS[config]), table)
    loaded = load_model(model.to_json(indent=2))
    _same_estimator(loaded, model, table[0])
    pd.testing.assert_frame_equal(loaded.history_, model.history_)
    assert loaded.score(table[0], model.predict(table[0])) == 1.0


@pytest.mark.parametrize("estimator", [
    RuleFitClassifier(max_rules=4, n_estimators=15, random_state=0),
    RuleFitRegressor(max_rules=4, n_estimators=15, random_state=1, max_samples=0.5),
    RuleFitRegressor(max_rules=None, alpha=0.05, n_estimators=10, tree_size=2, max_bins=None,
                     random_state=np.int64(3)),
    RuleFitRegressor(max_rules=None, alpha=0.01, n_estimators=10, include_linear=True,
                     winsor_quantile=0.05, random_state=2),
    RuleFitClassifier(max_rules=None, alpha=0.002, n_estimators=10, include_linear=True, random_state=0),
], ids=lambda e: f"{type(e).__name__}{'-linear' if e.include_linear else ''}")
def test_rulefit_round_trip(table, estimator):
    model = _fit(estimator, table)
    assert bool(model.ensemble_.terms) == estimator.include_linear
    text = model.to_json()
    loaded = load_model(text)
    _same_estimator(loaded, model, table[0])
    assert loaded.alpha_ == model.alpha_ and loaded.n_candidates_ == model.n_candidates_
    pd.testing.assert_frame_equal(loaded.path_, model.path_)
    np.testing.assert_array_equal(loaded.rule_importances_, model.rule_importances_)
    np.testing.assert_array_equal(loaded.term_importances_, model.term_importances_)
    pd.testing.assert_series_equal(loaded.feature_importances_, model.feature_importances_)
    assert loaded.to_json() == text
    # A file without linear terms holds version 1 ensembles, as before them.
    versions = {e["version"] for e in [json.loads(text)["ensemble"]]}
    assert versions == ({2} if estimator.include_linear else {1})


@pytest.fixture(scope="module")
def saved_linear(table):
    model = _fit(RuleFitRegressor(max_rules=None, alpha=0.01, n_estimators=10, include_linear=True,
                                  random_state=2), table)
    return json.loads(model.to_json())


def test_linear_terms_are_checked_against_the_columns(saved_linear):
    assert saved_linear["ensemble"]["linear_terms"]
    def on_sex(data):
        data["ensemble"]["linear_terms"][0].update(feature="sex", index=2)

    nominal = _edited(saved_linear, on_sex)
    with pytest.raises(ValueError, match=r"linear_terms\[0\]'.*'sex'.*numeric column"):
        load_model(nominal)
    with pytest.raises(ValueError, match=r"\$.ensemble"):
        load_model(_edited(saved_linear, _setitem(("ensemble", "version"), 1)))
    with pytest.raises(ValueError, match="std"):
        load_model(_edited(saved_linear, _setitem(("ensemble", "linear_terms", 0, "std"), -1.0)))
    with pytest.raises(ValueError, match="lower <= upper"):
        load_model(_edited(saved_linear, _setitem(("ensemble", "linear_terms", 0, "lower"), 1e9)))


def test_every_edit_of_a_linear_term_loads_or_is_a_value_error(saved_linear):
    replacements = [None, -1, 2**70, "x", [], {}, 0.5, True, 1e300]
    n_refused = 0
    for key in saved_linear["ensemble"]["linear_terms"][0]:
        for value in replacements:
            try:
                load_model(_edited(saved_linear, _setitem(("ensemble", "linear_terms", 0, key), value)))
            except ValueError:
                n_refused += 1
    assert n_refused > 30


def test_loaded_estimator_keeps_the_prediction_checks(table):
    X = table[0]
    loaded = load_model(_fit(RuleBoostingClassifier(n_rules=3, verbose=0), table).to_json())
    with pytest.raises(ValueError, match="order"):
        loaded.predict(X[X.columns[::-1]])
    with pytest.raises(ValueError, match="missing"):
        loaded.predict(X.drop(columns="fare"))
    with pytest.warns(UserWarning, match="'port' has categories not seen in fit"):
        loaded.predict(X.assign(port="Z"))
    X_before = X.copy(deep=True)
    loaded.predict(X)
    pd.testing.assert_frame_equal(X, X_before)


# -- where the text comes from and goes to --------------------------------------------
def test_load_from_path_text_bytes_and_file(table, tmp_path):
    model = _fit(RuleBoostingClassifier(n_rules=2, verbose=0), table)
    path = tmp_path / "model.json"
    assert model.to_json(path) is None
    text = path.read_text(encoding="utf-8")
    assert text == model.to_json()
    for source in (path, str(path), text, "\n  " + text, text.encode(), io.StringIO(text),
                   io.BytesIO(text.encode())):
        assert load_model(source).ensemble_ == model.ensemble_
    with path.open() as handle:
        assert load_model(handle).ensemble_ == model.ensemble_


def test_missing_file_and_wrong_source_type(tmp_path):
    with pytest.raises(FileNotFoundError, match="no model file"):
        load_model(tmp_path / "absent.json")
    with pytest.raises(FileNotFoundError, match="JSON text"):
        load_model("not json and not a file")
    with pytest.raises(TypeError, match="JSON text, a path or a file"):
        load_model(42)
    with pytest.raises(ValueError, match="UTF-8"):
        load_model(b"{\xff}")


# -- what cannot be written ---------------------------------------------------------------
def test_what_cannot_be_written_is_an_error_naming_it(table):
    X, labels, _ = table
    with pytest.raises(NotFittedError):
        RuleBoostingClassifier().to_json()
    rng_model = _fit(RuleFitClassifier(max_rules=2, n_estimators=5,
                                       random_state=np.random.RandomState(0)), table)
    with pytest.raises(ValueError, match="parameter random_state=RandomState"):
        rng_model.to_json()

    class MyLearner(GreedyLearner):
        pass

    custom = RuleBoostingClassifier(n_rules=1, verbose=0, learner=MyLearner()).fit(X, labels)
    with pytest.raises(ValueError, match="parameter learner=.*MyLearner.*GreedyLearner"):
        custom.to_json()

    class MyClassifier(RuleBoostingClassifier):
        pass

    with pytest.raises(ValueError, match="subclass"):
        MyClassifier(n_rules=1, verbose=0).fit(X, labels).to_json()
    dates = X.assign(port=pd.Series([pd.Timestamp("2020-01-01"), pd.Timestamp("2021-01-01")] * 120,
                                    dtype=object))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        dated = RuleBoostingClassifier(n_rules=1, verbose=0).fit(dates, labels)
    with pytest.raises(ValueError, match="'port'.*Timestamp"):
        dated.to_json()


# -- hostile names and values ------------------------------------------------------------
HOSTILE = ["</script><script>alert(1)</script>", 'quo"te\'s \\ back', "new\nline\r\ttab\x00nul",
           "émoji 🦜 RTL \u202e gnirts", "x" * 1000, "__import__('os').system('echo pwned')"]


def test_hostile_column_names_and_categories_round_trip():
    X, score = _table(names=tuple(HOSTILE))
    X[HOSTILE[2]] = np.where(X[HOSTILE[2]] == "male", HOSTILE[0], HOSTILE[3])
    y = np.where(score > 0.5, HOSTILE[1], HOSTILE[4])
    model = RuleBoostingClassifier(n_rules=4, verbose=0).fit(X, y)
    assert any(p.feature == HOSTILE[2] for rule in model.ensemble_ for p in rule.query)
    text = model.to_json()
    assert text.isascii() and "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text)["feature_names_in"] == HOSTILE
    loaded = load_model(text)
    _same_estimator(loaded, model, X)
    assert list(loaded.classes_) == sorted([HOSTILE[1], HOSTILE[4]])


@pytest.mark.parametrize("categories", [
    [1, 2, 3],
    [1.5, -0.25, 1e300],
    [True, False],
    [b"\x00\xff", b"abc", b"</script>"],
    ["1", "2.0", "True"],
    [np.int64(7), np.int64(-3)],
], ids=["int", "float", "bool", "bytes", "numeric-text", "numpy-int"])
def test_categories_of_many_types_keep_their_type(categories):
    n = 120
    rng = np.random.default_rng(1)
    column = pd.Series([categories[i % len(categories)] for i in rng.permutation(n)], dtype=object)
    X = pd.DataFrame({"c": pd.Categorical(column), "x": rng.normal(size=n)})
    y = (column == categories[0]).to_numpy() ^ (rng.random(n) < 0.1)
    model = RuleBoostingClassifier(n_rules=2, verbose=0).fit(X, y)
    loaded = load_model(model.to_json())
    _same_estimator(loaded, model, X)
    for a, b in zip(sorted(map(repr, loaded._categories["c"])), sorted(map(repr, model._categories["c"]))):
        assert a == b  # 1 stays an int, "1" a str, b"1" bytes


@pytest.mark.parametrize("labels", [np.array([3, 7]), np.array([True, False]), np.array([0.0, 2.0]),
                                    np.array(["a", "b"]), np.array(["a", "b"], dtype=object)],
                         ids=lambda a: str(a.dtype))
def test_classes_keep_their_dtype(labels):
    X, score = _table(n=100)
    y = labels[(score.to_numpy() > 0.5).astype(int)]
    model = RuleBoostingClassifier(n_rules=2, verbose=0).fit(X, y)
    _same_estimator(load_model(model.to_json()), model, X)


@pytest.mark.parametrize("make", [lambda X: X.to_numpy(), lambda X: pd.DataFrame(X.to_numpy())],
                         ids=["ndarray", "integer-labels"])
def test_arrays_and_integer_column_labels(make):
    X, score = _table(n=150)
    X = make(X[["age", "fare"]])
    model = RuleBoostingRegressor(n_rules=2, verbose=0).fit(X, score)
    loaded = load_model(model.to_json())
    _same_estimator(loaded, model, X)


# -- malformed files: an error naming the field and what is valid ----------------------
@pytest.fixture(scope="module")
def saved(table):
    return json.loads(_fit(RuleBoostingClassifier(n_rules=3, verbose=0, max_bins=16), table).to_json())


def _edited(data, edit):
    data = json.loads(json.dumps(data))
    edit(data)
    return json.dumps(data)


def _setitem(path, value):
    def edit(data):
        *parents, last = path
        for key in parents:
            data = data[key]
        data[last] = value
    return edit


def _rule_feature_index(data):
    return next(i for i, r in enumerate(data["ensemble"]["rules"]))


@pytest.mark.parametrize("path, value, match", [
    (("estimator",), "os.system", r"'\$\.estimator' is 'os.system'; valid estimators are RuleBoostingClassifier, "),
    (("params", "learner"), {"learner": "subprocess.Popen", "options": {}},
     r"'\$\.params\.learner\.learner'.*is not one of \['GreedyLearner'"),
    (("params", "learner"), {"learner": "OptimalLearner", "options": {"order": "random"}},
     r"'\$\.params\.learner\.options'.*order='random'.*valid orders"),
    (("params", "learner"), {"learner": "GreedyLearner", "options": {"exec": "1"}},
     r"'\$\.params\.learner\.options\.exec'.*valid: shorten"),
    (("params", "n_rules"), -1, r"'\$\.params'.*n_rules must be an int >= 1"),
    (("params", "n_rules"), "10", r"'\$\.params'.*n_rules"),
    (("params", "__reduce__"), 1, r"'\$\.params\.__reduce__'.*not a parameter"),
    (("features", 0, "kind"), "text", r"'\$\.features\[0\]\.kind'.*'numeric', 'nominal'"),
    (("features", 2, "categories", 0, "value_type"), "pickle", r"'\$\.features\[2\]\.categories\[0\]"),
    (("features", 2, "categories", 0, "value"), 3, r"'\$\.features\[2\]\.categories\[0\]\.value'"),
    (("classes", "dtype"), "V8", r"'\$\.classes\.dtype'.*does not match"),
    (("classes", "values"), [{"value": 1, "value_type": "int"}] * 3, r"'\$\.classes\.values'"),
    (("classes", "values"), [{"value": 1, "value_type": "int"}] * 2, r"different class labels"),
    (("classes", "values"), [{"value": 1, "value_type": "int"}, {"value": "1", "value_type": "str"}],
     r"different class labels of one type"),
    (("classes", "dtype"), "<U1", r"'\$\.classes\.dtype' is '<U1', which does not hold the labels"),
    (("features", 2, "categories"), None, r"'\$\.features\[2\]\.categories'"),
    (("classes",), None, r"'\$\.classes'"),
    (("n_features_in",), 5, r"'\$\.features' has 6 columns, but n_features_in is 5"),
    (("ensemble", "loss"), "squared", r"'\$\.ensemble\.loss'.*loss 'logistic'"),
    (("ensemble", "loss"), "hinge", r"'\$\.ensemble\.loss'.*is not one of"),
    (("ensemble", "version"), 4, r"'\$\.ensemble\.version'"),
    (("ensemble", "version"), 3, r"'\$\.ensemble'.*outputs"),  # version 3: several outputs
    (("ensemble", "by_name"), False, r"by_name.*feature_names_in"),
    (("ensemble", "rules", 0, "weight"), "1", r"'\$\.ensemble\.rules\[0\]\.weight'.*not of type 'number'"),
    (("ensemble", "rules", 0, "query", 0, "operator"), "~", r"'\$\.ensemble\.rules\[0\]\.query\[0\]\.operator'"),
    (("ensemble", "rules", 0, "query", 0, "feature"), "nope", r"column 'nope'.*not among the columns"),
    (("ensemble", "intercept"), None, r"'\$\.ensemble\.intercept'.*not of type 'number'"),
    (("history", "columns"), [], r"'\$\.history\.columns'"),
    (("feature_names_in",), ["a", "b"], r"'\$\.features' has 6|feature_names_in"),
    (("unexpected",), 1, r"Additional properties are not allowed \('unexpected'"),
])
def test_invalid_fields_are_named(saved, path, value, match):
    with pytest.raises(ValueError, match=match):
        load_model(_edited(saved, _setitem(path, value)))


def test_operator_of_the_wrong_kind_and_wrong_index(saved):
    rules = saved["ensemble"]["rules"]
    names = saved["ensemble"]["feature_names"]
    kinds = [f["kind"] for f in saved["features"]]
    j = kinds.index("nominal")

    def nominal_threshold(data):
        data["ensemble"]["rules"][0]["query"] = [
            {"feature": names[j], "operator": "<=", "value": 1.0, "value_type": "float", "index": j}]
    with pytest.raises(ValueError, match=rf"applies '<=' to the nominal column '{names[j]}'"):
        load_model(_edited(saved, nominal_threshold))

    def wrong_index(data):
        data["ensemble"]["rules"][0]["query"][0]["index"] = 5 if rules[0]["query"][0]["index"] != 5 else 4
    with pytest.raises(ValueError, match="index"):
        load_model(_edited(saved, wrong_index))


def test_missing_fields_are_named(saved):
    for field in ("params", "features", "ensemble", "classes", "history"):
        with pytest.raises(ValueError, match=rf"'{field}' is a required property"):
            load_model(_edited(saved, lambda data, field=field: data.pop(field)))
    with pytest.raises(ValueError, match=r"'\$\.features\[2\]': 'categories' is a required property"):
        load_model(_edited(saved, lambda data: data["features"][2].pop("categories")))


@pytest.mark.parametrize("version", [2, 99, 0, "1", None, True])
def test_other_versions_are_refused_naming_the_supported_ones(saved, version):
    with pytest.raises(ValueError, match=r"'\$\.version' is .*reads versions 1\b.*upgrade"):
        load_model(_edited(saved, _setitem(("version",), version)))
    assert SUPPORTED_VERSIONS == (1,)


def test_newer_version_is_refused_before_its_unknown_fields(saved):
    def newer(data):
        data["version"] = 2
        data["something_new"] = {"a": 1}
    with pytest.raises(ValueError, match="upgrade rulebook"):
        load_model(_edited(saved, newer))


@pytest.mark.parametrize("text, match", [
    ('{"format": "rulebook.estimator", "vers', "not valid JSON"),
    ("{", "not valid JSON"),
    ("[1, 2]", "no model file at '\\[1, 2\\]'.*JSON text \\(starting with '\\{'"),
    ('{"format": "rulebook.estimator", "version": NaN}', "NaN is not a JSON number"),
    ('{"format": "rulebook.estimator", "version": 1e999}', "overflows a float"),
    ('{"format": "rulebook.estimator", "format": "x"}', "appears twice"),
    ('{"format": "pickle"}', "not a rulebook model file.*'format' 'pickle'"),
    ("{}", "no 'format' field"),
    ("{" * 100_000 + "}" * 100_000, "nested too deeply|not valid JSON"),
])
def test_malformed_text(text, match):
    with pytest.raises((ValueError, FileNotFoundError), match=match):
        load_model(text)


def test_truncated_file_at_every_tenth_of_its_length(saved):
    text = json.dumps(saved)
    for k in range(1, 10):
        with pytest.raises(ValueError, match="not valid JSON"):
            load_model(text[:len(text) * k // 10])


def test_an_ensemble_file_is_pointed_to_its_reader(table):
    text = _fit(RuleBoostingClassifier(n_rules=1, verbose=0), table).ensemble_.to_json()
    with pytest.raises(ValueError, match="RuleEnsemble.from_json"):
        load_model(text)


def test_a_newer_parameter_loads_as_an_error_and_a_missing_one_as_its_default(saved):
    with pytest.raises(ValueError, match="not a parameter of RuleBoostingClassifier"):
        load_model(_edited(saved, _setitem(("params", "n_heads"), 2)))
    loaded = load_model(_edited(saved, lambda data: data["params"].pop("verbose")))
    assert loaded.verbose == RuleBoostingClassifier().verbose


def test_a_learner_option_added_later_loads_as_what_older_files_did(table):
    """A file written before OrthogonalLearner had length_penalty loads with
    the behaviour of then ("none"), not the later default; a file that
    names it keeps it."""
    def learner_options(data):
        return data["params"]["learner"]["options"]

    model = _fit(RuleBoostingClassifier(
        n_rules=2, verbose=0, max_bins=16,
        learner=OrthogonalLearner(strategy="beam", beam_width=3)), table)
    assert model.learner.length_penalty == "complexity"  # today's default
    loaded = load_model(_edited(json.loads(model.to_json()),
                                lambda data: learner_options(data).pop("length_penalty")))
    assert loaded.learner.length_penalty == "none"
    assert load_model(model.to_json()).learner.length_penalty == "complexity"


def test_an_optimal_learner_without_condition_cost_loads_with_the_plain_objective(table):
    """Files written before OptimalLearner had condition_cost searched the
    plain objective: they load with 0, not today's "auto"."""
    model = _fit(RuleBoostingClassifier(n_rules=2, verbose=0, max_bins=16,
                                        learner=OptimalLearner()), table)
    assert model.learner.condition_cost == "auto"
    data = json.loads(model.to_json())
    data["params"]["learner"]["options"].pop("condition_cost")
    assert load_model(json.dumps(data)).learner.condition_cost == 0.0
    assert load_model(model.to_json()).learner.condition_cost == "auto"


# -- nothing runs on load -----------------------------------------------------------------
_EVENTS = []
_WATCHING = [False]


def _audit(event, args):
    if _WATCHING[0] and event in ("import", "exec", "compile", "pickle.find_class", "os.system",
                                  "subprocess.Popen", "os.exec", "os.posix_spawn", "ctypes.dlopen",
                                  "marshal.loads", "builtins.input"):
        _EVENTS.append((event, repr(args)[:200]))


def _load_watched(text):
    _EVENTS.clear()
    _WATCHING[0] = True
    try:
        return load_model(text)
    finally:
        _WATCHING[0] = False


def test_loading_imports_executes_and_unpickles_nothing(table, saved):
    if _audit not in getattr(sys, "_rulebook_audit_hooks", ()):
        sys.addaudithook(_audit)  # audit hooks cannot be removed: installed once
        sys._rulebook_audit_hooks = (_audit,)
    load_model(json.dumps(saved))  # warm: the schema and jsonschema are loaded once
    evil = "rulebook_evil_module_x"
    X, score = _table(n=120, names=(f"{evil}.run", "__import__('os')", "eval('1')", "pickle", "os.system",
                                    "subprocess"))
    model = RuleBoostingClassifier(n_rules=2, verbose=0).fit(X, score > 0.5)
    loaded = _load_watched(model.to_json())
    assert _EVENTS == []
    assert evil not in sys.modules
    _same_estimator(loaded, model, X)
    for hostile in ({"learner": f"{evil}.Learner", "options": {}}, f"{evil}:Learner"):
        text = _edited(saved, _setitem(("params", "learner"), hostile))
        with pytest.raises(ValueError):
            _load_watched(text)
        assert _EVENTS == [] and evil not in sys.modules
    with pytest.raises(ValueError):
        _load_watched(_edited(saved, _setitem(("estimator",), f"{evil}.Estimator")))
    assert _EVENTS == [] and evil not in sys.modules


# -- the schema ------------------------------------------------------------------------------
def test_schema_ships_with_the_package_and_is_valid(saved):
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema())
    assert schema()["properties"]["version"] == {"const": 1}
    Draft202012Validator(schema()).validate(saved)
    assert "load_model" in rulebook.__all__


# -- any edit of a valid file: it loads, or a ValueError says why ------------------------
def _paths(data, path=(), depth=4):
    yield path
    if len(path) < depth and isinstance(data, (dict, list)):
        items = data.items() if isinstance(data, dict) else list(enumerate(data))[:2]
        for key, value in items:
            yield from _paths(value, (*path, key), depth)


def test_every_single_edit_loads_or_is_a_value_error(saved):
    # Found by this loop: a learner option or parameter of 2**70 raised the
    # learner's TypeError, an index of 2**70 pandas' OverflowError.
    replacements = [None, -1, 2**70, "x", [], {}, 0.5, True]
    n_loaded = n_refused = 0
    for path in _paths(saved):
        if not path:
            continue
        edits = [_setitem(path, value) for value in replacements]
        edits.append(lambda data, path=path: _parent(data, path).pop(path[-1]))
        for edit in edits:
            try:
                load_model(_edited(saved, edit))
                n_loaded += 1
            except ValueError:
                n_refused += 1
    assert n_refused > 400 and n_loaded > 0


def _parent(data, path):
    for key in path[:-1]:
        data = data[key]
    return data
