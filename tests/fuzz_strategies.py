"""Hypothesis strategies and property checks of the fuzz suite (issue 26).

One place for what the short profile (``tests/test_fuzz.py``) and the long
one (``benchmarks/fuzz.py``) generate and check:

* :func:`frames`: DataFrames of 0-300 rows whose columns are of random
  dtypes (float with NaN and +-inf, int, nullable Int64/Float64/boolean,
  string, category, mixed object, bool, datetime) under random names
  (ints, unicode, spaces, operators, quotes, HTML, 1,000 characters);
* :func:`targets` (binary, constant, with NaN, strings, counts, real) and
  :func:`sample_weights`;
* :func:`check_fit`: the contract of ``fit`` and of the fitted model
  (errors name a column or parameter; predictions, column order, JSON and
  text round trips, no unescaped markup in HTML).

Values are drawn by hypothesis as small pools (its edge cases: huge and
tiny floats, -0.0, long unicode) that a seeded generator spreads over the
rows, so that a 300-row frame costs a few draws, not 300 per column.
"""

import ast
import math
import numbers
import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
from hypothesis import assume
from hypothesis import strategies as st

from rulebook import (
    BeamLearner,
    GreedyLearner,
    OptimalLearner,
    OrthogonalLearner,
    RuleBoostingClassifier,
    RuleBoostingRegressor,
    RuleEnsemble,
    RuleFitClassifier,
    RuleFitRegressor,
)
from rulebook._canonical import escape_unsafe, format_feature

# -- text from the data ---------------------------------------------------------------
# Markup that must never reach an HTML page raw: a tag with an event handler,
# a script break-out, an entity and a comment opener.
MARKUP = ["<b onmouseover=x>", "</script><img src=x onerror=alert(1)>", "&lt;i&gt;", "<!--",
          "<style>*{}</style>", 'x" onmouseover="alert(1)', "x' onmouseover='alert(1)"]
_ODD = ["", " ", "a b", "x <= 3 & y", "`", "a`b", '"q"', "'", "\\", "1", "0.5", "-2", "nan", "NaN",
        "None", "True", "in", "and", "N/A", "-", "é", "名前", "\u202e", "a\nb", "\x1b[31m", "\u2028",
        "{a, b}", "x == 1", "0x1f", "1e5", "inf", "b'x'"]
LONG = "L" * 1000


def _text():
    return st.one_of(st.sampled_from(MARKUP + _ODD + [LONG]), st.text(max_size=12))


def column_names():
    """A column label: int, unicode, spaces, operators, quotes, HTML, 1,000 characters."""
    return st.one_of(st.integers(-3, 10**6), _text(),
                     st.builds(lambda s, k: s * k, st.sampled_from("a<é"), st.just(1000)))


def _name_key(name):
    return (type(name).__name__, name)


# -- columns ------------------------------------------------------------------------
KINDS = ("float", "int", "Int64", "Float64", "boolean", "string", "category", "object", "bool",
         "datetime")
# Most columns fit; a datetime column is refused whatever else the frame holds.
_COMMON_KINDS = KINDS[:-1] * 3 + KINDS[-1:]

_FINITE = st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def _float_pool(draw):
    pool = draw(st.lists(st.one_of(_FINITE, st.integers(-3, 3).map(float)), min_size=1, max_size=5))
    special = draw(st.sampled_from(["none"] * 4 + ["nan"] * 3 + ["inf"]))
    if special == "inf":
        pool.append(draw(st.sampled_from([math.inf, -math.inf])))
    return pool, special != "none"


def _spread(rng, pool, n, missing_rate, missing):
    """``n`` values drawn from ``pool`` (object array), ``missing`` at ``missing_rate``."""
    values = np.empty(n, dtype=object)
    values[:] = [pool[k] for k in rng.integers(0, len(pool), n)] if n else []
    if missing_rate:
        values[rng.random(n) < missing_rate] = missing
    return values


@st.composite
def columns(draw, n, kind=None):
    """One column of ``n`` rows of a random (or the given) dtype kind, as a Series."""
    kind = kind or draw(st.sampled_from(KINDS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rate = draw(st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0]))
    if kind == "float":
        pool, with_nan = draw(_float_pool())
        values = _spread(rng, pool, n, 0.2 if with_nan else 0.0, np.nan)
        return pd.Series(values.astype(np.float64) if n else np.zeros(0))
    if kind == "int":
        dtype = draw(st.sampled_from(["int64", "int32", "uint8"]))
        low, high = (0, 255) if dtype == "uint8" else (-(2**31), 2**31 - 1)
        pool = draw(st.lists(st.one_of(st.integers(low, high), st.integers(max(low, -2), 3)),
                             min_size=1, max_size=5))
        if dtype == "int64":
            pool.append(draw(st.integers(-(2**63), 2**63 - 1)))
        return pd.Series(_spread(rng, pool, n, 0, None).astype(dtype))
    if kind in ("Int64", "Float64"):
        pool = draw(st.lists(st.integers(-5, 10**6) if kind == "Int64" else _FINITE,
                             min_size=1, max_size=4))
        return pd.Series(_spread(rng, pool, n, rate, pd.NA), dtype=kind)
    if kind == "boolean":
        return pd.Series(_spread(rng, [True, False], n, rate, pd.NA), dtype="boolean")
    if kind == "bool":
        return pd.Series(_spread(rng, draw(st.sampled_from([[True, False], [True]])), n, 0, None)
                         .astype(bool))
    if kind in ("string", "category"):
        pool = draw(st.lists(_text(), min_size=1, max_size=5))
        values = _spread(rng, pool, n, rate, None)
        if kind == "string":
            return pd.Series(values, dtype="string")
        unused = draw(st.lists(_text(), max_size=2))
        categories = list(dict.fromkeys(pool + unused))
        return pd.Series(pd.Categorical(values, categories=categories))
    if kind == "object":
        pool = draw(st.lists(st.one_of(_text(), st.integers(-5, 5), _FINITE, st.booleans(),
                                       st.sampled_from([b"x", b"\xff", 1.5])),
                             min_size=1, max_size=5))
        return pd.Series(_spread(rng, pool, n, rate, None), dtype=object)
    assert kind == "datetime"
    stamps = rng.integers(0, 2 * 10**9, max(n, 1))[:n].astype("datetime64[s]")
    return pd.Series(stamps.astype("datetime64[ns]"))


@st.composite
def frames(draw, max_rows=300, max_columns=4, kinds=_COMMON_KINDS):
    """A DataFrame of 0..max_rows rows, 1..max_columns columns of random dtypes and names.

    About one frame in twenty has a duplicated column name.
    """
    n = draw(st.one_of(st.integers(1, max_rows), st.integers(1, max_rows), st.integers(1, max_rows),
                       st.integers(0, 3), st.just(max_rows)))
    # Mostly one type of label: int and str labels mixed are refused at once.
    style = draw(st.sampled_from(["str"] * 7 + ["int"] * 2 + ["mixed"]))
    label = {"str": st.one_of(_text(), st.just("a" * 1000)), "int": st.integers(-3, 10**6),
             "mixed": column_names()}[style]
    names = draw(st.lists(label, min_size=1, max_size=max_columns, unique_by=_name_key))
    if len(names) > 1 and draw(st.integers(0, 19)) == 7:  # not 0: hypothesis favours it
        names[-1] = names[0]
    data = {k: draw(columns(n, draw(st.sampled_from(kinds)))) for k in range(len(names))}
    return pd.DataFrame(data).set_axis(pd.Index(names, dtype=object), axis=1)


# -- targets and weights ------------------------------------------------------------
TARGETS = ("binary", "constant", "nan", "strings", "counts", "real")
_LABELS = [(0, 1), (-1, 1), (1, 2), ("no", "yes"), (True, False), ("<b onmouseover=x>", "&"),
           (0.5, 2.5), ("1", 1)]


@st.composite
def targets(draw, n, likely=None):
    """A target of ``n`` rows: binary, constant, with NaN, strings, counts or real.

    ``likely``: a kind drawn two times in three (the task's own target).
    """
    kind = draw(st.sampled_from(TARGETS + (likely,) * 2 * len(TARGETS) if likely else TARGETS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "binary":
        labels = draw(st.sampled_from(_LABELS))
        y = _spread(rng, list(labels), n, 0, None)
        y[:2] = list(labels)[:n]  # both classes, where there are two rows
        return y.astype(type(labels[0])) if isinstance(labels[0], type(labels[1])) else y
    if kind == "constant":
        return np.full(n, draw(st.sampled_from([0, 1, 2.5, "a"])))
    if kind == "nan":
        return _spread(rng, [0.0, 1.0], n, 0.3, np.nan).astype(float)
    if kind == "strings":
        return _spread(rng, draw(st.lists(_text(), min_size=1, max_size=4)), n, 0, None)
    if kind == "counts":
        return rng.poisson(draw(st.sampled_from([0.0, 0.3, 3.0])), n)
    return _spread(rng, draw(st.lists(_FINITE, min_size=1, max_size=5)), n, 0, None).astype(float)


@st.composite
def sample_weights(draw, n):
    """None (most often), a number, or an array: zeros, negative, NaN, wrong length, text."""
    kind = draw(st.sampled_from(["none"] * 4 + ["scalar", "array", "array", "bad"]))
    if kind == "none":
        return None
    if kind == "scalar":
        return draw(st.sampled_from([2, 0.5, 0.0, -1.0, np.nan, np.inf]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if kind == "array":
        weights = rng.choice([0.0, 0.5, 1.0, 3.0, draw(st.sampled_from([1e-300, 1e300, 1.0]))], n)
        return weights if draw(st.booleans()) else pd.Series(weights)
    return draw(st.sampled_from([
        np.full(n, np.nan), -np.ones(n), np.zeros(n), np.ones(n + 1), np.array(["1"] * n, dtype=object),
    ]))


@st.composite
def fit_case(draw, likely=None, max_rows=300):
    """``(X, y, sample_weight)`` for one fit; ``likely`` as in :func:`targets`."""
    X = draw(frames(max_rows=max_rows))
    return X, draw(targets(len(X), likely)), draw(sample_weights(len(X)))


_OPERATORS = ("<=", "<", ">", ">=", "==", "!=")


@st.composite
def ensembles(draw, names=None):
    """A RuleEnsemble written directly: any operators and values, on ``names``
    (default: random column names)."""
    from rulebook import Proposition, Query, Rule

    if names is None:
        names = draw(st.lists(column_names(), min_size=1, max_size=3, unique_by=_name_key))
    rules = []
    for _ in range(draw(st.integers(0, 3))):
        propositions = []
        for _ in range(draw(st.integers(0, 3))):
            index = draw(st.integers(0, len(names) - 1))
            operator = draw(st.sampled_from(_OPERATORS))
            if operator in ("==", "!="):
                value = draw(st.one_of(_text(), st.integers(-(2**63), 2**63), _FINITE, st.booleans(),
                                       st.sampled_from([b"x", b"\xff"])))
            else:
                value = draw(st.one_of(_FINITE, st.integers(-10, 10), st.sampled_from([math.nan])))
            propositions.append(Proposition(names[index], operator, value, index))
        rules.append(Rule(Query(tuple(propositions)), draw(_FINITE.filter(lambda w: abs(w) < 1e300)),
                          draw(st.one_of(st.none(), st.floats(0, 1)))))
    loss = draw(st.sampled_from(["squared", "logistic", "poisson"]))
    return RuleEnsemble(draw(st.floats(-1e6, 1e6)), tuple(rules), loss, tuple(names))


# -- the properties --------------------------------------------------------------------
# Words that name a parameter of fit or of an estimator in an error message.
PARAMETERS = ("X", "y", "sample_weight", "n_rules", "max_rules", "loss", "learner", "max_samples",
              "max_categories", "max_bins", "columns", "column", "feature names")


def names_a_column_or_parameter(message, X):
    """Whether an error message names one of the columns of ``X`` or a parameter."""
    for name in X.columns:
        for form in {repr(name), str(name), escape_unsafe(str(name)), format_feature(name)}:
            if form and form in message:
                return True
    return any(re.search(rf"(?<![\w.]){re.escape(word)}(?!\w)", message) for word in PARAMETERS)


def _same_values(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.array_equal(a.astype(float), b.astype(float), equal_nan=True)
    return np.array_equal(a, b)


def _unchanged(original, copy):
    if isinstance(original, pd.DataFrame):
        # DataFrame.equals: same dtypes and values, NaN equal to NaN.
        assert original.equals(copy) and list(original.columns) == list(copy.columns), "X modified"
    elif original is not None and not np.isscalar(original):
        assert _same_values(pd.Series(original).astype(object).fillna(-1).to_numpy(),
                            pd.Series(copy).astype(object).fillna(-1).to_numpy())


def _copy(value):
    return value.copy() if hasattr(value, "copy") else value


class Outcome:
    """What :func:`check_fit` saw: ``"error"`` (a clear one) or ``"model"``."""

    def __init__(self, kind, model=None, error=None):
        self.kind, self.model, self.error = kind, model, error


def check_fit(estimator, X, y, sample_weight=None):
    """``fit``'s contract: a clear error, or a model whose outputs hold up.

    Returns
    -------
    Outcome

    Raises
    ------
    AssertionError
        On a finding: another exception type, a message naming neither a
        column nor a parameter, a mutated input, or a fitted model failing
        :func:`check_model`.
    """
    copies = X.copy(), _copy(y), _copy(sample_weight)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = estimator.fit(X, y, sample_weight=sample_weight)
    except (ValueError, TypeError) as error:
        clear = names_a_column_or_parameter(str(error), X)
        assert clear, f"unclear {type(error).__name__}: {error}"
        outcome = Outcome("error", error=error)
    else:
        outcome = Outcome("model", model=model)
    for original, copy in zip((X, y, sample_weight), copies):
        _unchanged(original, copy)
    if outcome.kind == "model":
        check_model(outcome.model, X)
    return outcome


def check_model(model, X):
    """Predictions, column order, JSON and text round trips, escaped HTML repr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = model.predict(X)
        raw = model.ensemble_.decision_function(X)
    assert len(expected) == len(X)
    assert np.isfinite(raw).all(), "a prediction that is not finite"
    check_reordered(model, X, expected)
    check_json(model.ensemble_, X, raw)
    check_estimator_json(model, X, expected)
    check_text(model.ensemble_, X)
    # The estimator's repr holds the ensemble's rules table (the ensemble's
    # own repr is checked on written ensembles, test_fuzz.py).
    assert_escaped(model._repr_html_())


def check_reordered(model, X, expected):
    """The columns reordered predict the same, or raise a ValueError saying so."""
    if X.shape[1] < 2:
        return
    order = list(X.columns[1:]) + [X.columns[0]]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = model.predict(X[order])
    except ValueError as error:
        assert "order" in str(error), f"unclear error on reordered columns: {error}"
    else:
        assert _same_values(got, expected), "columns reordered predict otherwise"


def check_json(ensemble, X, raw):
    """``from_json(to_json())`` is the same model and predicts identically."""
    text = ensemble.to_json()
    back = RuleEnsemble.from_json(text)
    # The same JSON again (not ``==``: a NaN threshold, possible in a
    # hand-written ensemble, is not equal to itself).
    assert back.to_json() == text, "JSON round trip changes the model"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = back.decision_function(X)
    assert np.array_equal(again, raw, equal_nan=True), "JSON round trip predicts otherwise"


def check_estimator_json(model, X, expected):
    """``load_model(model.to_json())`` predicts identically; the text has no raw ``<``."""
    from rulebook import load_model

    text = model.to_json()
    assert "<" not in text, "raw '<' in the estimator's JSON"
    loaded = load_model(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = loaded.predict(X)
    assert _same_values(again, expected), "load_model(to_json()) predicts otherwise"


# -- the text form, read back ------------------------------------------------------------
_NUMBER = r"-?(?:\d+(?:\.\d*)?|inf|nan)"
_OPERATOR = r"<=|<|>=|>|==|!="


def read_name(text):
    """``(name, rest)``: a printed column name at the start of ``text``."""
    if not text.startswith("`"):
        match = re.match(r"[^\W\d]\w*", text)
        return match.group(0), text[match.end():]
    end = 1
    while True:
        end = text.index("`", end)
        if text[end + 1:end + 2] == "`":
            end += 2
            continue
        break
    inner = text[1:end].replace("``", "`")
    return _unescape(inner), text[end + 1:]


def _unescape(text):
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def _number(word):
    """A printed number: an int if it has no point (every digit), else a float."""
    return int(word) if re.fullmatch(r"-?\d+", word) else float(word)


def read_value(text):
    """``(value, rest)``: a printed category or threshold at the start of ``text``."""
    if text.startswith('"'):
        match = re.match(r'"((?:[^"\\]|\\.)*)"', text, re.DOTALL)
        return _unescape(match.group(1).replace('\\"', '"')), text[match.end():]
    match = re.match(r"[^,}&\s]+", text)
    word = match.group(0)
    if re.fullmatch(_NUMBER, word):
        value = _number(word)
    elif word in ("True", "False"):
        value = word == "True"
    elif re.fullmatch(r"b'.*'|b\".*\"", word):
        value = ast.literal_eval(word)
    else:
        value = word
    return value, text[match.end():]


def read_condition(text):
    """The propositions ``(feature, operator, value)`` of one printed condition."""
    interval = re.match(rf"({_NUMBER}) (<=|<) ", text)
    if interval:
        low = _number(interval.group(1))
        name, rest = read_name(text[interval.end():])
        operator, high = re.fullmatch(rf" (<=|<) ({_NUMBER})", rest).groups()
        return [(name, ">" if interval.group(2) == "<" else ">=", low), (name, operator, _number(high))]
    name, rest = read_name(text)
    if rest.startswith(" not in {"):
        rest, values = rest[len(" not in {"):], []
        while not rest.startswith("}"):
            value, rest = read_value(rest)
            values.append((name, "!=", value))
            rest = rest.removeprefix(", ")
        assert rest == "}", text
        return values
    operator = re.match(rf" ({_OPERATOR}) ", rest)
    value, rest = read_value(rest[operator.end():])
    found = [(name, operator.group(1), value)]
    if rest:  # a contradiction or NaN threshold: propositions joined by " & "
        assert rest.startswith(" & "), text
        found += read_condition(rest[3:])
    return found


def _same_number(printed, real):
    """A printed number reads back as exactly the model's: thresholds and
    numeric categories print exactly (``rulebook._formatting.format_exact``)."""
    if isinstance(real, float) and math.isnan(real):
        return isinstance(printed, float) and math.isnan(printed)
    if isinstance(real, numbers.Integral) and not isinstance(real, (bool, np.bool_)):
        return isinstance(printed, int) and printed == int(real)  # every digit
    return float(printed) == float(real)


def check_text(ensemble, X=None):
    """Each rule's printed conditions read back to its propositions.

    Column names, categories and thresholds must read back exactly (a
    threshold as the very float the model compares with, see
    :func:`_same_number`); and on ``X`` (if given) the rules read back
    cover the rows the model's rules cover.
    """
    from rulebook import Proposition, Query, Rule

    rules = []
    for rule in ensemble.rules:
        read = [p for text in rule.query.condition_strings() for p in read_condition(text)]
        real = list(rule.query.propositions)
        assert len(read) == len(real), (rule.query.condition_strings(), real)
        for (name, operator, value), proposition in zip(read, real):
            assert name == str(proposition.feature), (name, proposition)
            assert operator == proposition.operator, (operator, proposition)
            if proposition.is_numeric:
                assert _same_number(value, proposition.value), (value, proposition)
            else:
                assert _same_category(value, proposition.value), (value, proposition)
        rules.append(Rule(Query(tuple(Proposition(p.feature, operator, value, p.index)
                                      for (_, operator, value), p in zip(read, real))), rule.weight))
    if X is not None and rules:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            covered = ensemble.query_matrix(X)
            again = RuleEnsemble(ensemble.intercept, tuple(rules), ensemble.loss,
                                 ensemble.feature_names, ensemble.by_name,
                                 outputs=ensemble.outputs).query_matrix(X)
        assert np.array_equal(covered, again), "the printed rules cover other rows"


def _same_category(read, real):
    if isinstance(real, (float, np.floating)) and not isinstance(read, str):
        return _same_number(read, float(real))
    if isinstance(real, (bool, np.bool_)) or isinstance(read, bool):
        return type(read) is bool and read == real
    return type(read) is type(real.item() if isinstance(real, np.generic) else real) and read == real


# -- HTML -----------------------------------------------------------------------------
class _Page(HTMLParser):
    """Tags, attributes and ``<script>`` texts of a page, as a browser splits them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.attributes, self.scripts, self._script = [], [], [], False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attributes += [name for name, _ in attrs]
        if tag == "script":
            self._script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = False

    def handle_data(self, data):
        if self._script:
            self.scripts[-1] += data


def assert_escaped(page):
    """No markup from the data in ``page``: no injected tag, attribute or script end."""
    if page is None:
        return
    if isinstance(page, (tuple, list)):
        page = page[0]
    if isinstance(page, dict):
        page = page.get("text/html", "")
    parsed = _Page(page)
    assert "img" not in parsed.tags, "injected tag"
    assert not {"onmouseover", "onerror"} & set(parsed.attributes), "injected attribute"
    for script in parsed.scripts:
        lowered = script.lower()
        assert "</script" not in lowered and "<img src=x" not in lowered, "script break-out"
    for marker in MARKUP[:2]:
        assert marker not in page, f"raw markup {marker!r}"


# -- HTML of the notebook layer ---------------------------------------------------------
MODEL_NAME = MARKUP[0]


def check_charts(model, X, y, directory):
    """Charts of a fitted model: ``to_html`` and saved HTML and JSON carry no raw markup."""
    from rulebook import charts

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = {"weights": charts.rule_weights_chart(model),
                 "coverage": charts.coverage_heatmap(model, X.iloc[:50]),
                 "score": charts.score_curve({MODEL_NAME: model}, X, y)}
    for name, chart in built.items():
        assert_escaped(chart.to_html())
        path = directory / f"{name}.html"
        chart.save(str(path))
        assert_escaped(path.read_text(encoding="utf-8"))
        path = directory / f"{name}.json"
        chart.save(str(path))
        assert "<" not in path.read_text(encoding="utf-8"), f"raw '<' in saved {name} JSON"


def check_explorer(model, X, y):
    """Every round of the explorer widget, and its notebook fallback, escaped."""
    from rulebook.widgets import BoostingExplorer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explorer = BoostingExplorer(model, X, y, offline=True)
        for t in range(explorer.n_rounds + 1):
            explorer.round = t
            for html in (explorer.rules_html, explorer.rule_html, explorer.scores_html):
                assert_escaped(html.value)
            assert_escaped(explorer._repr_mimebundle_())


def check_report(model, X, y):
    """The comparison report: markup in model names, title and notes escaped; no script."""
    from rulebook.report import comparison_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = comparison_report({MODEL_NAME: model}, X, y, title=MARKUP[1], notes=[MODEL_NAME])
    assert_escaped(page)
    assert "<script" not in page.lower()


# -- the estimators and the cases --------------------------------------------------------
_QUIET = {"verbose": 0}
# Every public estimator, loss and learner (by name and as objects), with the
# corrective weight update where it is an option; tiny fits (1-3 rules), the
# optimal learner with a node budget so that no case hangs.
BOOSTING = {
    "classifier-greedy": lambda: RuleBoostingClassifier(2, **_QUIET),
    "classifier-optimal": lambda: RuleBoostingClassifier(
        2, learner=OptimalLearner(max_nodes=300, time_limit=1.0), **_QUIET),
    "classifier-orthogonal": lambda: RuleBoostingClassifier(2, learner="orthogonal", **_QUIET),
    "classifier-beam-corrective": lambda: RuleBoostingClassifier(
        3, learner=BeamLearner(), weight_update="corrective", **_QUIET),
    "regressor-greedy": lambda: RuleBoostingRegressor(3, **_QUIET),
    "regressor-optimal": lambda: RuleBoostingRegressor(1, learner="optimal", **_QUIET),
    "regressor-orthogonal": lambda: RuleBoostingRegressor(
        2, learner=OrthogonalLearner(), **_QUIET),
    "regressor-greedy-corrective": lambda: RuleBoostingRegressor(
        2, learner=GreedyLearner(), weight_update="corrective", max_rule_length=None, **_QUIET),
    "poisson-greedy": lambda: RuleBoostingRegressor(2, loss="poisson", **_QUIET),
    "poisson-greedy-priced": lambda: RuleBoostingRegressor(
        3, loss="poisson", learner=GreedyLearner(condition_cost=0.25), **_QUIET),
    "poisson-orthogonal": lambda: RuleBoostingRegressor(
        1, loss="poisson", learner="orthogonal", **_QUIET),
}
RULEFIT = {
    "rulefit-classifier": lambda: RuleFitClassifier(3, n_estimators=5, random_state=0),
    "rulefit-regressor": lambda: RuleFitRegressor(2, n_estimators=5, random_state=0),
}
ESTIMATORS = {**BOOSTING, **RULEFIT}


def target_kind(name):
    """The target an estimator is meant for (drawn two times in three)."""
    return "binary" if "classifier" in name else "counts" if "poisson" in name else "real"


def fit_property(name, data, max_rows=300):
    """Fit estimator ``name`` on a generated case: a clear error or a sound model."""
    return check_fit(ESTIMATORS[name](), *data.draw(fit_case(target_kind(name), max_rows)))


def ensemble_property(data):
    """A RuleEnsemble written directly: JSON and text round trips, escaped repr.

    Operators and values no fit would choose, mostly on the columns of a
    frame the ensemble is then evaluated on.
    """
    X = data.draw(frames(max_rows=20))
    own = data.draw(st.booleans())
    ensemble = data.draw(ensembles(list(X.columns.unique()) if own else None))
    try:
        ensemble.to_json()
    except ValueError as error:  # an unserialisable category: must name its column
        assert any(repr(p.feature) in str(error) for r in ensemble for p in r.query), error
        return
    check_text(ensemble)
    assert_escaped(ensemble._repr_html_())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            raw = ensemble.decision_function(X)
        except ValueError as error:  # a column the frame lacks: named
            assert "column" in str(error), error
            return
    check_json(ensemble, X, raw)


def fitted_model(data):
    """``(model, X, y)``: a boosting model fitted on a generated case.

    Cases that end in a (clear) error are rejected with ``assume``, so that
    every example of the HTML properties has a model to show.
    """
    name = data.draw(st.sampled_from(sorted(BOOSTING)))
    X, y, weights = data.draw(fit_case(target_kind(name), max_rows=60))
    outcome = check_fit(BOOSTING[name](), X, y, weights)
    assume(outcome.kind == "model")
    return outcome.model, X, y
