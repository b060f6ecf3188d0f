"""Rich notebook reprs (``rulebook._repr_html``, ``rulebook._options``)."""

import html
import inspect
import pickle
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
import sklearn

from rulebook import Proposition, Query, Rule, RuleBoostingClassifier, RuleBoostingRegressor, RuleEnsemble
from rulebook._options import OPTIONS, get_options, set_options
from rulebook._repr_html import (
    _load_css,
    ensemble_repr,
    estimator_repr,
    format_percent,
    history_columns,
    repr_html,
    repr_mimebundle,
)

HOSTILE = {
    "script": "<script>alert('x')</script>",
    "quotes": "a \"quoted\" 'name'",
    "unicode": "Größe ñ 年齢 ✓",
}

VOID = {"br", "hr", "img", "input", "meta", "link", "col", "wbr"}


class _TagChecker(HTMLParser):
    """Records unbalanced tags and script elements."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.scripts = [], [], 0

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def check_html(page):
    checker = _TagChecker()
    checker.feed(page)
    checker.close()
    assert checker.errors == [] and checker.stack == [], "unbalanced tags"
    assert checker.scripts == 0, "a <script> element"


@pytest.fixture(scope="module")
def hostile_data():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({
        HOSTILE["script"]: rng.normal(size=n),
        HOSTILE["quotes"]: rng.choice(["<b>bold</b>", "x&y", "plain"], size=n),
        HOSTILE["unicode"]: rng.integers(0, 5, size=n).astype(float),
    })
    y = (X[HOSTILE["script"]] > 0.3) ^ (X[HOSTILE["quotes"]] == "x&y")
    return X, y.astype(int)


@pytest.fixture(scope="module")
def classifier(hostile_data):
    X, y = hostile_data
    return RuleBoostingClassifier(n_rules=4, reg_lambda=2.0).fit(X, y)


@pytest.fixture
def ensemble():
    rules = (
        Rule(Query((Proposition(HOSTILE["script"], "<=", 0.5, 0),)), 2.5, 0.25),
        Rule(Query((Proposition(HOSTILE["quotes"], "==", "<b>bold</b>", 1),
                    Proposition(HOSTILE["unicode"], ">", 3.0, 2))), -1.25, None),
    )
    return RuleEnsemble(0.5, rules, "squared", tuple(HOSTILE.values()))


def fallback_text(page):
    return re.search(r'<pre class="rb-text-repr-fallback">(.*?)</pre>', page, re.S).group(1)


# -- escaping ----------------------------------------------------------------------
@pytest.mark.parametrize("name", HOSTILE.values())
def test_ensemble_repr_escapes_column_names(ensemble, name):
    page = ensemble_repr(ensemble)
    check_html(page)
    assert html.escape(name) in page
    if name != html.escape(name):
        assert name not in page


def test_hostile_category_value_is_escaped(ensemble):
    page = ensemble_repr(ensemble)
    assert "&lt;b&gt;bold&lt;/b&gt;" in page
    assert "<b>bold</b>" not in page


def test_unicode_is_kept_literally(ensemble):
    assert "Größe ñ 年齢 ✓" in ensemble_repr(ensemble)


def test_estimator_repr_escapes_everything(classifier):
    page = estimator_repr(classifier)
    check_html(page)
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page


# -- structure and content ----------------------------------------------------------
def test_fallback_is_escaped_text_repr(ensemble):
    page = ensemble_repr(ensemble)
    assert fallback_text(page) == html.escape(repr(ensemble))
    # The rich part is hidden unless the stylesheet is there to show it.
    assert '<div class="rb-wrap" style="display:none">' in page
    assert ".rb-text-repr-fallback {\n  display: none;" in page
    assert "display: block !important" in page


def test_ensemble_repr_content(ensemble):
    page = ensemble_repr(ensemble)
    for text in ("RuleEnsemble", "squared", "complexity", "intercept", "+0.5", "+2.5", "-1.25",
                 "25%", "–", "Rules", 'class="rb-bar-pos"', 'class="rb-bar-neg"', "3 of 3"):
        assert text in page, text
    # The largest weight fills half the bar, the other is scaled to it.
    assert 'style="width:50.0%"' in page and 'style="width:25.0%"' in page


def test_rules_are_capped(ensemble):
    with set_options(display_max_rules=1):
        page = ensemble_repr(ensemble)
    assert "... 1 more rule<" in page
    assert "&lt;b&gt;bold" not in page.split("rb-wrap")[1]  # second rule not listed


def test_empty_ensemble():
    page = ensemble_repr(RuleEnsemble(-0.25))
    check_html(page)
    assert "-0.25" in page and "... " not in page


def test_estimator_header_and_sections(classifier):
    page = estimator_repr(classifier)
    for text in ("RuleBoostingClassifier", "classification, positive class 1", "logistic", "greedy",
                 "train loss", "Parameters", "Search statistics", "5 rounds", "refinements"):
        assert text in page, text
    # Rules open by default; parameters and statistics collapsed.
    assert page.count("<details class=") == 3
    assert page.count('<details class="rb-section" open>') == 1
    assert "<script" not in page.replace("&lt;script", "")


def test_non_default_parameters_are_highlighted(classifier):
    page = estimator_repr(classifier)
    assert '<tr class="rb-changed"><td>n_rules</td>' in page
    assert '<tr class="rb-changed"><td>reg_lambda</td>' in page
    assert "<tr><td>objective</td>" in page
    assert "(2 changed)" in page


def test_numerically_equal_default_is_not_changed(hostile_data):
    X, y = hostile_data
    model = RuleBoostingClassifier(n_rules=10, reg_lambda=1).fit(X.iloc[:, :1], y)
    assert "<tr><td>reg_lambda</td>" in estimator_repr(model)


def test_optimal_learner_columns_shown_when_present(classifier):
    model = pickle.loads(pickle.dumps(classifier))
    extra = {
        "nodes_created": 9.0, "nodes_expanded": 5.0, "pruned_bound_immediate": 3.0,
        "pruned_bound_propagated": 2.0, "pruned_equivalence_immediate": 1.0,
        "pruned_equivalence_propagated": 0.0, "certified": True, "certified_ratio": 1.0,
        "search_time": 0.25,
    }
    history = model.history_.copy()
    for column, value in extra.items():
        history[column] = [np.nan] + [value] * (len(history) - 1)
    history["certified"] = history["certified"].astype(object)
    history["trace"] = [np.nan] + [((1, 0.1, 0.2, 0.3),)] * (len(history) - 1)
    model.history_ = history
    page = estimator_repr(model)
    check_html(page)
    for text in ("pruned by bound", "pruned by equivalence", "nodes", "expanded", "propagated",
                 "certified optimal", "4 of 4 rounds", "✓", 'title="pruned_bound_immediate"'):
        assert text in page, text
    assert "trace" not in history_columns(history)
    assert "(1, 0.1" not in page


def test_greedy_history_has_single_header_row(classifier):
    page = estimator_repr(classifier)
    assert "rowspan" not in page


def test_history_rounds_are_capped(classifier):
    with set_options(display_max_rounds=2):
        assert "... 3 more rounds" in estimator_repr(classifier)


def test_scores_and_early_stop_in_header(classifier):
    model = pickle.loads(pickle.dumps(classifier)).set_params(n_rules=10)
    model.history_ = model.history_.assign(test_score=np.linspace(0.5, 0.875, len(model.history_)))
    page = estimator_repr(model)
    assert "(stopped early; n_rules=10)" in page
    assert '<span class="rb-chip-label">test score</span> <span class="rb-chip-value">0.875</span>' in page


def test_unfitted_estimator_falls_back_to_scikit_learn():
    page = estimator_repr(RuleBoostingRegressor(n_rules=3))
    assert "rb-wrap" not in page
    assert "sk-" in page


def test_format_percent():
    assert format_percent(0.012987) == "1.3%"
    assert format_percent(np.nan) == "–"


# -- determinism ------------------------------------------------------------------------
def test_same_model_gives_same_output(classifier, ensemble):
    assert ensemble_repr(ensemble) == ensemble_repr(ensemble)
    assert estimator_repr(classifier) == estimator_repr(classifier)
    # Equal values (a JSON round trip, a pickled copy) give equal HTML.
    assert ensemble_repr(RuleEnsemble.from_json(ensemble.to_json())) == ensemble_repr(ensemble)
    assert estimator_repr(pickle.loads(pickle.dumps(classifier))) == estimator_repr(classifier)


def test_no_random_ids(classifier):
    # Sections collapse with <details>: no ids at all, so nothing random.
    assert " id=" not in estimator_repr(classifier)
    assert " for=" not in estimator_repr(classifier)


def test_css_is_package_data_loaded_once(ensemble):
    from importlib.resources import files

    assert files("rulebook").joinpath("static", "repr.css").is_file()
    ensemble_repr(ensemble)
    before = _load_css.cache_info()
    ensemble_repr(ensemble)
    after = _load_css.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 1


def test_css_uses_jupyterlab_variables_and_dark_theme():
    css = _load_css()
    assert "var(--jp-content-font-color0" in css
    assert 'body[data-jp-theme-light="false"] .rb-wrap' in css
    assert "body.vscode-dark .rb-wrap" in css


# -- options and notebook hooks ------------------------------------------------------------
def test_text_option_turns_html_off(ensemble, classifier):
    assert repr_html(ensemble) == ensemble_repr(ensemble)
    with set_options(display="text"):
        assert repr_html(ensemble) is None
        assert repr_html(classifier) is None
        bundle = repr_mimebundle(classifier)
    assert set(bundle) == {"text/plain"}
    assert "RuleBoostingClassifier(" in bundle["text/plain"] and "<RuleEnsemble" in bundle["text/plain"]
    assert get_options()["display"] == "html"


def test_mimebundle(ensemble):
    bundle = repr_mimebundle(ensemble)
    assert bundle["text/plain"] == repr(ensemble)
    assert bundle["text/html"] == ensemble_repr(ensemble)
    assert set(repr_mimebundle(ensemble, include={"text/plain"})) == {"text/plain"}
    assert set(repr_mimebundle(ensemble, exclude={"text/html"})) == {"text/plain"}


def test_scikit_learn_text_display_is_honoured_for_estimators(classifier, ensemble):
    with sklearn.config_context(display="text"):
        assert repr_html(classifier) is None
        assert repr_html(ensemble) is not None


def test_set_options_globally_and_restores_on_error():
    old = dict(OPTIONS)
    try:
        set_options(display_max_rules=3)
        assert get_options()["display_max_rules"] == 3
    finally:
        OPTIONS.update(old)
    with pytest.raises(RuntimeError):
        with set_options(display="text"):
            raise RuntimeError
    assert get_options()["display"] == "html"


@pytest.mark.parametrize("kwargs", [{"display": "svg"}, {"display_max_rules": 0},
                                    {"display_max_rules": True}, {"colour": "red"},
                                    {"display_expand_params": 1}, {"chart_renderer": "html"},
                                    {"widget_charts": True}, {"display_max_rules": 5, "chart_renderer": "x"}])
def test_invalid_options(kwargs):
    with pytest.raises(ValueError):
        set_options(**kwargs)
    options = get_options()
    assert options["display"] == "html" and options["display_max_rules"] == 20
    assert options["chart_renderer"] == "auto" and options["widget_charts"] == "offline"


@pytest.mark.skipif(not hasattr(RuleEnsemble, "_repr_html_"), reason="hook not added yet")
def test_ensemble_hook(ensemble):
    assert ensemble._repr_html_() == ensemble_repr(ensemble)
    with set_options(display="text"):
        assert ensemble._repr_html_() is None


# scikit-learn's _repr_html_ is a property; rulebook's hook is a method.
@pytest.mark.skipif(isinstance(inspect.getattr_static(RuleBoostingClassifier, "_repr_html_"), property),
                    reason="hook not added yet")
def test_estimator_hooks(classifier):
    assert classifier._repr_html_() == estimator_repr(classifier)
    assert classifier._repr_mimebundle_()["text/html"] == estimator_repr(classifier)
    unfitted = RuleBoostingClassifier()
    assert "rb-wrap" not in unfitted._repr_html_()
    with set_options(display="text"):
        assert classifier._repr_html_() is None
        assert "text/html" not in classifier._repr_mimebundle_()


def test_parameter_values_are_escaped(classifier):
    # The parameters table shows repr(value): a column name inside a value
    # (cut_points) is the user's text and must not become markup.
    model = pickle.loads(pickle.dumps(classifier)).set_params(
        cut_points={HOSTILE["script"]: [1.0]})
    page = estimator_repr(model)
    check_html(page)
    assert "<script>alert" not in page
    assert html.escape(repr(model.cut_points)) in page
