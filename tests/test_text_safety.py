"""Text from the data (column names, categories, model names) is shown safely.

Issue 26 (fuzzing): rule text inside ``<script>`` blocks, ambiguous or
spoofable rule text, and ``RuleEnsemble.from_json`` on malformed files.
"""

import json
import keyword
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from rulebook import Proposition, Query, Rule, RuleBoostingRegressor, RuleEnsemble, set_options

PAYLOAD = "</script><img src=x onerror=alert(1)>"
# Words of the rule text a bare column name must not be (besides Python keywords).
_RULE_WORDS = {"and", "or", "not", "in", "true", "false", "nan", "none", "null", "inf"}


class _Page(HTMLParser):
    """Tags of an HTML page, and the text of each ``<script>``, as a browser splits them."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self._in_script = [], [], False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def assert_no_break_out(page):
    parsed = _Page(page)
    assert "img" not in parsed.tags
    for script in parsed.scripts:
        lowered = script.lower()
        # Vega's own code (inline=True) has "<img" in strings: look for the payload.
        assert "</script" not in lowered and "<img src=x" not in lowered
        assert "\u2028" not in script and "\u2029" not in script
    return parsed


@pytest.fixture(scope="module")
def payload_data():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({
        PAYLOAD: rng.normal(size=n),
        "colour": rng.choice([PAYLOAD, "red", "blue"], size=n),
    })
    y = 3.0 * (X[PAYLOAD] > 0.5) + 2.0 * (X["colour"] == PAYLOAD) + rng.normal(scale=0.1, size=n)
    return X, y


@pytest.fixture(scope="module")
def payload_model(payload_data):
    X, y = payload_data
    return RuleBoostingRegressor(n_rules=3).fit(X, y)


def test_payload_reaches_the_rules(payload_model):
    features = {p.feature for rule in payload_model.ensemble_ for p in rule.query}
    values = {p.value for rule in payload_model.ensemble_ for p in rule.query if not p.is_numeric}
    assert PAYLOAD in features and PAYLOAD in values


# -- 1. no script break-out in saved charts and reports --------------------------------
def _charts(model, X, y):
    from rulebook import charts

    return {
        "rule_weights_chart": charts.rule_weights_chart(model),
        "coverage_heatmap": charts.coverage_heatmap(model, X.iloc[:100]),
        "score_curve": charts.score_curve({PAYLOAD: model}, X, y),
        "risk_complexity": charts.risk_complexity({PAYLOAD: model}, X, y),
        "search_effort_chart": charts.search_effort_chart(model),
    }


def test_chart_to_html_escapes_text_in_script(payload_model, payload_data):
    pytest.importorskip("altair")
    X, y = payload_data
    for name, chart in _charts(payload_model, X, y).items():
        page = chart.to_html()
        parsed = assert_no_break_out(page)
        assert parsed.scripts, name
        if name != "search_effort_chart":  # no text from the data in it
            assert "\\u003c/script\\u003e\\u003cimg" in page, name
        # Still valid JSON with the same text: the escapes are JSON escapes.
        assert json.loads('"\\u003c/script\\u003e"') == "</script>"


def test_chart_save_html_escapes_text_in_script(payload_model, payload_data, tmp_path):
    pytest.importorskip("altair")
    X, y = payload_data
    for name, chart in _charts(payload_model, X, y).items():
        path = tmp_path / f"{name}.html"
        chart.save(str(path))
        assert_no_break_out(path.read_text(encoding="utf-8"))
        chart.save(str(path), inline=True)
        assert_no_break_out(path.read_text(encoding="utf-8"))


def test_chart_json_escapes_keep_the_spec(payload_model, tmp_path):
    pytest.importorskip("altair")
    from rulebook import charts

    chart = charts.rule_weights_chart(payload_model)
    path = tmp_path / "chart.json"
    chart.save(str(path))
    text = path.read_text(encoding="utf-8")
    assert "<" not in text and json.loads(text) == json.loads(json.dumps(chart.to_dict()))


def test_chart_html_display_escapes_text_in_script(payload_model):
    alt = pytest.importorskip("altair")
    from rulebook import charts

    chart = charts.rule_weights_chart(payload_model)
    with set_options(chart_renderer="altair"), alt.renderers.enable("html"):
        bundle = chart._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert_no_break_out(bundle["text/html"])


def test_report_has_no_break_out(payload_model, payload_data):
    pytest.importorskip("vl_convert")
    from rulebook.report import comparison_report

    X, y = payload_data
    page = comparison_report({PAYLOAD: payload_model}, X, y, title=PAYLOAD, notes=[PAYLOAD])
    parsed = assert_no_break_out(page)
    assert not parsed.scripts


# -- 2. unambiguous, unspoofable rule text ----------------------------------------------
def _ensemble(*propositions, weight=1.0):
    return RuleEnsemble(0.0, (Rule(Query(propositions), weight),))


@pytest.mark.parametrize("name, text", [
    ("Age", "Age <= 3"),
    ("petal_length", "petal_length <= 3"),
    ("x <= 3 & y", "`x <= 3 & y` <= 3"),
    ("High Temp (F)", "`High Temp (F)` <= 3"),
    ("0", "`0` <= 3"),
    (0, "`0` <= 3"),
    ("a`b", "`a``b` <= 3"),
    ("in", "`in` <= 3"),
    ("True", "`True` <= 3"),
    ("nl\nname", "`nl\\nname` <= 3"),
    ("back\\slash", "`back\\\\slash` <= 3"),
    ("esc\x1b[31mred", "`esc\\x1b[31mred` <= 3"),
    ("abc\u202edef", "`abc\\u202edef` <= 3"),
    ("", "`` <= 3"),
])
def test_column_names_print_quoted_unless_identifiers(name, text):
    assert str(Proposition(name, "<=", 3.0)) == text


def test_integer_column_names_are_not_read_as_numbers():
    query = Query((Proposition(0, ">", 2.0, 0), Proposition(2, ">", 38.0, 2)))
    assert str(query) == "`0` > 2 & `2` > 38"


def test_interval_and_set_conditions_quote_the_name():
    query = Query((Proposition("x <= 3 & y", ">", 1.0), Proposition("x <= 3 & y", "<=", 2.0),
                   Proposition("my col", "!=", "a", 1), Proposition("my col", "!=", "b c", 1)))
    assert query.condition_strings() == ["1 < `x <= 3 & y` <= 2", '`my col` not in {a, "b c"}']


def test_int_and_str_categories_differ():
    assert str(Proposition("code", "==", 1)) == "code == 1"
    assert str(Proposition("code", "==", np.int64(1))) == "code == 1"
    assert str(Proposition("code", "==", "1")) == 'code == "1"'


@pytest.mark.parametrize("value, text", [
    ("a\nb", '"a\\nb"'),
    ("a\x1b[2Jb", '"a\\x1b[2Jb"'),
    ("a\u202eb", '"a\\u202eb"'),
    ("a\u2066b\u2069", '"a\\u2066b\\u2069"'),
    ("a\x85b", '"a\\x85b"'),
    ("a\u2028b", '"a\\u2028b"'),
])
def test_control_and_bidi_characters_in_categories_are_escaped(value, text):
    assert str(Proposition("c", "==", value)) == f"c == {text}"


SPOOFS = ["nl\nname", "esc\x1b]0;title\x07", "rlo\u202eevil", "lri\u2066x\u2069", "c1\x9bx"]


def test_ensemble_text_and_frame_escape_control_characters():
    rules = tuple(Rule(Query((Proposition(name, "<=", 1.0, i), Proposition(f"c{i}", "==", name, 9))), 1.0)
                  for i, name in enumerate(SPOOFS))
    ensemble = RuleEnsemble(0.0, rules)
    lines = str(ensemble).split("\n")
    assert len(lines) == len(SPOOFS) + 1
    for line in lines + list(ensemble.to_frame()["rule"]):
        for character in "\n\x1b\x07\x9b\u202e\u2066\u2069":
            assert character not in line


def test_html_repr_escapes_control_characters():
    from rulebook._repr_html import repr_html

    rules = tuple(Rule(Query((Proposition(name, "<=", 1.0, i),)), 1.0) for i, name in enumerate(SPOOFS))
    page = repr_html(RuleEnsemble(0.0, rules, feature_names=tuple(SPOOFS)))
    for character in "\x1b\x07\x9b\u202e\u2066\u2069":
        assert character not in page
    assert "`rlo\\u202eevil` &lt;= 1" in page


def test_chart_data_escapes_control_characters():
    pytest.importorskip("altair")
    from rulebook import charts

    rules = tuple(Rule(Query((Proposition(name, "<=", 1.0, i),)), 1.0) for i, name in enumerate(SPOOFS))
    spec = json.dumps(charts.rule_weights_chart(RuleEnsemble(0.0, rules)).to_dict())
    assert "\\u202e" not in spec.replace("\\\\u202e", "")  # only the escaped text "\u202e"
    assert "\\u001b" not in spec and "\\n" not in spec.replace("\\\\n", "")


def test_quoted_text_reads_back_with_pandas_query():
    # The quoted form is pandas' (DataFrame.query): backticks, doubled inside.
    rng = np.random.default_rng(1)
    names = ["x <= 3 & y", "High Temp (F)", "a`b", "0", "in"]
    X = pd.DataFrame({name: rng.normal(size=50) for name in names})
    X["Department"] = rng.choice(["Research & Development", "1", "Sales"], size=50)
    for i, name in enumerate(names):
        query = Query((Proposition(name, ">", -0.5, i), Proposition(name, "<=", 0.7, i),
                       Proposition("Department", "==", "Research & Development", 9)))
        assert X.query(str(query)).index.tolist() == X.index[query.evaluate(X)].tolist(), str(query)


def test_cli_output_escapes_terminal_sequences(tmp_path, capsys):
    from rulebook.cli import main

    rng = np.random.default_rng(2)
    n = 200
    evil = "temp\x1b[2J\x1b]0;owned\x07\u202e"
    frame = pd.DataFrame({evil: rng.normal(size=n), "kind": rng.choice(["a\x1b[31m", "b"], size=n)})
    frame["target"] = 2.0 * (frame[evil] > 0) + (frame["kind"] == "b") + rng.normal(scale=0.1, size=n)
    path = tmp_path / "evil.csv"
    frame.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "target", "--rules", "3"]) == 0
    out = capsys.readouterr().out
    assert "`temp\\x1b[2J\\x1b]0;owned\\x07\\u202e`" in out
    for character in "\x1b\x07\u202e":
        assert character not in out


def test_report_and_chart_names_escape_control_characters(payload_model, payload_data):
    pytest.importorskip("vl_convert")
    from rulebook import charts
    from rulebook.report import comparison_report

    X, y = payload_data
    name = "model\x1b[2J\u202e"
    page = comparison_report({name: payload_model}, X, y, title=name, notes=[name])
    assert "\x1b" not in page and "\u202e" not in page and "model\\x1b[2J\\u202e" in page
    data = charts.score_curve_data({name: payload_model}, X, y)
    assert set(data["model"]) == {"model\\x1b[2J\\u202e"}


def test_cli_error_escapes_terminal_sequences(tmp_path, capsys):
    from rulebook.cli import main

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "target": ["a\x1b[2J", "b", "c", "d\u202e"]})
    path = tmp_path / "evil\x1b[31m.csv"
    frame.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "target", "--task", "binary"]) == 2
    captured = capsys.readouterr()
    assert "a\\x1b[2J" in captured.err
    for character in "\x1b\u202e":
        assert character not in captured.err and character not in captured.out


# -- 3. from_json validates; every category serialises --------------------------------
def _valid():
    rule = Rule(Query((Proposition("Age", "<=", 19.0, 0), Proposition("Sex", "==", "male", 1))), 2.5, 0.25)
    return RuleEnsemble(1.0, (rule,), "logistic", ("Age", "Sex"), True).to_dict()


def _broken(change):
    data = json.loads(json.dumps(_valid()))
    change(data)
    return data


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("rules"), r"'rules'.*missing"),
    (lambda d: d.pop("intercept"), r"'intercept'.*missing"),
    (lambda d: d.update(intercept="1.0"), r"'intercept'.*number"),
    (lambda d: d.update(rules={}), r"'rules'.*list"),
    (lambda d: d.update(loss="hinge"), r"'loss'.*squared"),
    (lambda d: d.update(feature_names="Age"), r"'feature_names'.*list"),
    (lambda d: d.update(by_name="yes"), r"'by_name'.*bool"),
    (lambda d: d["rules"].append(None), r"rules\[1\].*object"),
    (lambda d: d["rules"][0].pop("query"), r"rules\[0\]\.query.*missing"),
    (lambda d: d["rules"][0].pop("weight"), r"rules\[0\]\.weight.*missing"),
    (lambda d: d["rules"][0].update(weight=None), r"rules\[0\]\.weight.*number"),
    (lambda d: d["rules"][0].update(coverage="all"), r"rules\[0\]\.coverage"),
    (lambda d: d["rules"][0]["query"][0].pop("feature"), r"rules\[0\]\.query\[0\]\.feature.*missing"),
    (lambda d: d["rules"][0]["query"][0].update(feature=None), r"rules\[0\]\.query\[0\]\.feature"),
    (lambda d: d["rules"][0]["query"][1].update(operator="=<"),
     r"rules\[0\]\.query\[1\]\.operator.*'=<'.*'<='"),
    (lambda d: d["rules"][0]["query"][0].update(value="abc", value_type="str"),
     r"rules\[0\]\.query\[0\]\.value.*number.*'<='"),
    (lambda d: d["rules"][0]["query"][0].update(value=True, value_type="bool"),
     r"rules\[0\]\.query\[0\]\.value.*number"),
    (lambda d: d["rules"][0]["query"][1].update(value_type="complex"),
     r"rules\[0\]\.query\[1\]\.value_type.*'complex'"),
    (lambda d: d["rules"][0]["query"][1].update(value=[1, 2], value_type="list"), r"rules\[0\]\.query\[1\]"),
    (lambda d: d["rules"][0]["query"][1].update(value="abc", value_type="int"),
     r"rules\[0\]\.query\[1\]\.value.*'int'"),
    (lambda d: d["rules"][0]["query"][1].update(index=-1), r"rules\[0\]\.query\[1\]\.index"),
    (lambda d: d["rules"][0]["query"][1].update(index="1"), r"rules\[0\]\.query\[1\]\.index"),
])
def test_from_dict_names_the_bad_field(change, message):
    with pytest.raises(ValueError, match=message):
        RuleEnsemble.from_dict(_broken(change))
    with pytest.raises(ValueError, match=message):
        RuleEnsemble.from_json(json.dumps(_broken(change)))


@pytest.mark.parametrize("version", [999, 4, 0, "1", None])
def test_from_dict_refuses_unknown_versions(version):
    with pytest.raises(ValueError, match=r"version.*supported.*1"):
        RuleEnsemble.from_dict(_broken(lambda d: d.update(version=version)))


def test_from_dict_refuses_a_missing_version():
    with pytest.raises(ValueError, match=r"'version'.*missing"):
        RuleEnsemble.from_dict(_broken(lambda d: d.pop("version")))


@pytest.mark.parametrize("text", ["[]", '"rulebook"', "null", "{not json"])
def test_from_json_of_non_objects_raises_value_error(text):
    with pytest.raises(ValueError):
        RuleEnsemble.from_json(text)


def test_valid_files_still_load():
    assert RuleEnsemble.from_dict(_valid()) == RuleEnsemble.from_dict(json.loads(json.dumps(_valid())))


@pytest.mark.parametrize("value", [b"x\x00\xff", b"", np.int64(3), np.float64(2.5), np.bool_(True), np.str_("a")])
def test_category_values_serialise(value):
    ensemble = _ensemble(Proposition("c", "==", value))
    back = RuleEnsemble.from_json(ensemble.to_json())
    restored = back[0].query.propositions[0].value
    assert restored == value and back == ensemble
    if isinstance(value, bytes):
        assert type(restored) is bytes
        assert json.loads(ensemble.to_json())["rules"][0]["query"][0]["value"] == value.hex()


def test_bytes_categories_fit_and_serialise():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"b": rng.choice(np.array([b"x", b"y\xff"], dtype=object), size=100)})
    y = (X["b"] == b"x").astype(float)
    ensemble = RuleBoostingRegressor(n_rules=1).fit(X, y).ensemble_
    back = RuleEnsemble.from_json(ensemble.to_json())
    assert back == ensemble
    np.testing.assert_array_equal(back.predict(X), ensemble.predict(X))


def test_unserialisable_category_names_the_column():
    ensemble = _ensemble(Proposition("when", "==", pd.Timestamp("2020-01-01")))
    with pytest.raises(ValueError, match=r"'when'.*Timestamp"):
        ensemble.to_json()


def test_coverage_row_labels_escape_control_characters():
    from rulebook import charts

    ensemble = _ensemble(Proposition("a", ">", 0.0))
    X = pd.DataFrame({"a": [-1.0, 1.0]}, index=["row\x1b[2J", "b\u202e"])
    assert set(charts.coverage_data(ensemble, X)["index"]) == {"row\\x1b[2J", "b\\u202e"}


def _read_name(text):
    """Reference reader of a printed column name (the inverse of format_feature)."""
    if not text.startswith("`"):
        return text
    assert text.endswith("`") and len(text) >= 2
    inner = text[1:-1]
    assert "`" not in inner.replace("``", "")
    return inner.replace("``", "`").encode("latin-1", "backslashreplace").decode("unicode_escape")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.integers(), st.sampled_from(["a`b", "x\\ny", "\\", "`", "in", "é", "a\u200db"])))
def test_printed_column_names_read_back_and_are_safe(name):
    from rulebook._canonical import format_feature

    text = format_feature(name)
    assert _read_name(text) == str(name)
    assert text.isprintable()
    if text.startswith("`"):  # quoted: nothing could be misread as an operator or a break
        assert not (isinstance(name, str) and name.isidentifier() and name.isprintable()
                    and not keyword.iskeyword(name) and name.lower() not in _RULE_WORDS)
    else:
        assert text.isidentifier()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(), st.sampled_from(['say "hi"', "a\\nb", "1", "True", "x\u202ey"])))
def test_printed_categories_read_back_and_are_safe(value):
    from rulebook._canonical import format_category

    text = format_category(value)
    assert text.isprintable()
    if text.startswith('"'):
        inner = text[1:-1]
        assert '"' not in inner.replace('\\"', "")
        assert inner.encode("latin-1", "backslashreplace").decode("unicode_escape") == value
    else:
        assert text == value
