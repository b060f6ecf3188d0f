"""Text from the data (column names, categories, model names) is shown safely.

Issue 26 (fuzzing): rule text inside ``<script>`` blocks, ambiguous or
spoofable rule text, and ``RuleEnsemble.from_json`` on malformed files.
"""

import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from rulebook import Proposition, Query, Rule, RuleBoostingRegressor, RuleEnsemble, set_options

PAYLOAD = "</script><img src=x onerror=alert(1)>"


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
