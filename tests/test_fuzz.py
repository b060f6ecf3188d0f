"""The fuzz suite's short profile (issue 26): generated frames, targets and
weights through every public estimator and learner, and the fitted models
through JSON, text and every HTML output.

About two minutes in CI: tiny fits (1-3 rules, optimal search with a node
budget), deterministic examples (``derandomize=True``), and the number of
cases run checked by the last test (at least 2,000). The long profile is
``benchmarks/fuzz.py``; strategies, estimators and properties are in
``tests/fuzz_strategies.py``.
"""

import collections

import pytest
from fuzz_strategies import (
    BOOSTING,
    RULEFIT,
    check_charts,
    check_explorer,
    check_report,
    ensemble_property,
    fit_property,
    fitted_model,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Fits take tens of milliseconds, reports and widgets a second: too_slow is
# expected, and so is data_too_large (frames of 1,000-character names);
# filter_too_much for the HTML properties, which keep fitted cases only.
FUZZ = settings(derandomize=True, deadline=None, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example, HealthCheck.filter_too_much])
MIN_CASES = 2000
# The last test counts the cases the others ran in this process: under
# pytest-xdist the README's command sends whole files to a worker
# (``--dist loadfile``).
EXAMPLES = {"boosting": 155, "rulefit": 30, "ensembles": 400, "charts": 25, "widgets": 6,
            "report": 8}
# Cases run per property (hypothesis may run a few more than max_examples).
CASES = collections.Counter()


@pytest.mark.parametrize("name", BOOSTING)
@settings(FUZZ, max_examples=EXAMPLES["boosting"])
@given(data=st.data())
def test_boosting_fit_is_a_clear_error_or_a_sound_model(name, data):
    CASES[f"boosting/{name}"] += 1
    fit_property(name, data)


@pytest.mark.parametrize("name", RULEFIT)
@settings(FUZZ, max_examples=EXAMPLES["rulefit"])
@given(data=st.data())
def test_rulefit_fit_is_a_clear_error_or_a_sound_model(name, data):
    CASES[f"rulefit/{name}"] += 1
    fit_property(name, data, max_rows=120)


@settings(FUZZ, max_examples=EXAMPLES["ensembles"])
@given(data=st.data())
def test_any_ensemble_round_trips_and_prints_escaped(data):
    CASES["ensembles"] += 1
    ensemble_property(data)


@settings(FUZZ, max_examples=EXAMPLES["charts"])
@given(data=st.data())
def test_saved_charts_have_no_unescaped_markup(data, tmp_path_factory):
    pytest.importorskip("altair")
    fitted = fitted_model(data)
    CASES["charts"] += 1
    check_charts(*fitted, tmp_path_factory.mktemp("charts"))


@settings(FUZZ, max_examples=EXAMPLES["widgets"])
@given(data=st.data())
def test_explorer_widget_has_no_unescaped_markup(data):
    pytest.importorskip("ipywidgets")
    fitted = fitted_model(data)
    CASES["widgets"] += 1
    check_explorer(*fitted)


@settings(FUZZ, max_examples=EXAMPLES["report"])
@given(data=st.data())
def test_report_has_no_unescaped_markup(data):
    pytest.importorskip("vl_convert")
    fitted = fitted_model(data)
    CASES["report"] += 1
    check_report(*fitted)


def test_fuzz_ran_enough_cases():
    # Last in the file, so it runs after the properties above. A partial
    # run (``-k``, a skipped optional dependency) cannot tell, and skips.
    expected = {f"boosting/{n}" for n in BOOSTING} | {f"rulefit/{n}" for n in RULEFIT}
    expected |= {"ensembles", "charts", "widgets", "report"}
    if not expected <= set(CASES):
        pytest.skip(f"not every fuzz property ran: {sorted(expected - set(CASES))}")
    planned = (EXAMPLES["boosting"] * len(BOOSTING) + EXAMPLES["rulefit"] * len(RULEFIT)
               + sum(EXAMPLES[k] for k in ("ensembles", "charts", "widgets", "report")))
    total = sum(CASES.values())
    print(f"fuzz: {total} cases run ({planned} planned):", dict(CASES))
    assert planned >= MIN_CASES
    assert total >= MIN_CASES, dict(CASES)
