"""Defects found by the fuzz suite (issue 26, ``tests/test_fuzz.py``).

Each test failed before its fix; one test per kind of defect where it
repeats across estimators or learners (parametrised over them).
"""

import numpy as np
import pandas as pd
import pytest

from rulebook import (
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    RuleFitClassifier,
    RuleFitRegressor,
)

CLASSIFIERS = [lambda: RuleBoostingClassifier(n_rules=1, verbose=0),
               lambda: RuleFitClassifier(max_rules=1, n_estimators=3, random_state=0)]


def _frame(n=40):
    return pd.DataFrame({"a": np.arange(n, dtype=float) % 7})


# -- 1. classifier targets that are not class labels -------------------------------
@pytest.mark.parametrize("make", CLASSIFIERS, ids=["boosting", "rulefit"])
@pytest.mark.parametrize("y, message", [
    ([0.5, 2.5] * 20, r"y .*continuous"),      # was sklearn's "Unknown label type: continuous"
    (["1", 1] * 20, r"y .*int.*str"),            # was TypeError "'<' not supported ..."
    ([b"x", b"y"] * 20, r"y .*bytes"),         # was sklearn's "labels represented as bytes"
])
def test_classifier_target_that_is_not_labels_is_refused_naming_y(make, y, message):
    with pytest.raises(ValueError, match=message):
        make().fit(_frame(), np.array(y, dtype=object if not isinstance(y[0], float) else float))


# -- 2. integer categories print exactly --------------------------------------------
@pytest.mark.parametrize("value", [2**53 + 1, -(2**63), np.int64(2**62 + 1), 10**30 + 7])
def test_integer_categories_print_every_digit(value):
    # Were printed through a float: 2**53 + 1 as 9007199254740992, another
    # category's value, so the text named a category the rule does not test.
    from rulebook import Proposition

    assert str(Proposition("code", "==", value)) == f"code == {int(value)}"
    assert str(Proposition("code", "!=", value)) == f"code != {int(value)}"


# -- 3. targets so large that the loss overflows -------------------------------------
@pytest.mark.parametrize("make", [
    lambda: RuleBoostingRegressor(n_rules=1, verbose=0),
    lambda: RuleBoostingRegressor(n_rules=1, learner="orthogonal", verbose=0),
    lambda: RuleFitRegressor(max_rules=1, n_estimators=3, random_state=0),
], ids=["greedy", "orthogonal", "rulefit"])
@pytest.mark.parametrize("scale", [1.79e308, 1e200])
def test_targets_too_large_for_float64_sums_are_refused_naming_y(make, scale):
    # y = 1.79e308 on every row fitted an intercept of +inf: every
    # prediction inf, silently (the mean overflows).
    y = np.where(np.arange(40) % 3 == 0, scale, scale / 2)
    with pytest.raises(ValueError, match=r"y has values as large as .*rescale"):
        make().fit(_frame(), y)


@pytest.mark.parametrize("learner", ["greedy", "optimal", "orthogonal"])
def test_sample_weights_too_large_for_float64_sums_are_refused_naming_them(learner):
    # Weights of 1e200 made the optimal learner's two-condition search fail
    # with an IndexError (its objective overflowed to NaN); greedy and
    # orthogonal fitted on overflowed sums.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.integers(0, 3, 60).astype(float), "b": rng.integers(0, 2, 60).astype(float)})
    y = rng.choice([8.4e15, -6.4e39, 0.0, -4.9e16], 60)
    weights = rng.choice([0.5, 1.0, 1e200], 60)
    with pytest.raises(ValueError, match=r"sample_weight has values as large as .*rescale"):
        RuleBoostingRegressor(n_rules=1, learner=learner, verbose=0).fit(X, y, sample_weight=weights)
    RuleBoostingRegressor(n_rules=1, learner=learner, verbose=0).fit(
        X, y, sample_weight=np.minimum(weights, 1e20))  # at the bound: fits


def test_rulefit_on_a_constant_target_saves_a_file_that_loads():
    # A constant target gives alpha_ = 0.0 (nothing to regularise); the
    # schema refused it ("exclusiveMinimum"), so to_json wrote a file that
    # load_model rejected.
    from rulebook import RuleFitRegressor, load_model

    X = pd.DataFrame({"a": np.arange(40.0) % 5})
    model = RuleFitRegressor(2, n_estimators=5, random_state=0).fit(X, np.zeros(40))
    assert model.alpha_ == 0.0
    np.testing.assert_array_equal(load_model(model.to_json()).predict(X), model.predict(X))


def test_ensemble_on_a_frame_with_a_repeated_column_name_names_it():
    # RuleEnsemble.decision_function failed with pandas' "truth value of an
    # array is ambiguous" when a rule's column name appeared twice.
    from rulebook import Proposition, Query, Rule, RuleEnsemble

    ensemble = RuleEnsemble(0.0, (Rule(Query((Proposition("a", "<=", 1.0, 0),)), 1.0, None),),
                            "squared", ("a", "b"))
    X = pd.DataFrame([[0.0, 2.0, 3.0]], columns=["a", "b", "a"])
    with pytest.raises(ValueError, match=r"more than one column named \[\'a\'\]"):
        ensemble.decision_function(X)
    np.testing.assert_array_equal(ensemble.decision_function(X.iloc[:, :2]), [1.0])


# -- 4. a string category that reads as a bytes literal ------------------------------
@pytest.mark.parametrize("value", ["b'x'", "B'x'", "rb'x'", "b'1'"])
def test_a_string_that_reads_as_bytes_prints_apart_from_bytes(value):
    # The string "b'x'" printed bare, exactly as the bytes b"x" do: two
    # categories, one text (the fuzz suite's text check excluded the case).
    import ast

    from fuzz_strategies import read_condition

    from rulebook import Proposition

    text = str(Proposition("c", "==", value))
    word = text.removeprefix("c == ")
    if not word.startswith('"'):  # printed bare: it must not read as another literal
        try:
            literal = ast.literal_eval(word)
        except (ValueError, SyntaxError):
            literal = word
        assert type(literal) is str, text
    assert text != str(Proposition("c", "==", b"x"))
    assert read_condition(text) == [("c", "==", value)]
    assert read_condition(str(Proposition("c", "==", b"x"))) == [("c", "==", b"x")]
