"""The ``rulebook`` command, run in-process through ``main``."""

import argparse
import sys
from importlib import resources

import numba
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from rulebook import OptimalLearner, RuleBoostingClassifier, RuleBoostingRegressor
from rulebook.cli import _estimator_params, _parser, _timed_fit, main
from rulebook.datasets import DATASETS, make_friedman1


def test_fit_bundled_dataset_prints_rules_scores_and_time(capsys):
    assert main(["fit", "titanic", "--rules", "3"]) == 0
    out = capsys.readouterr().out
    assert "titanic: binary, target 'Survived'" in out
    assert "(intercept)" in out and out.count(" if ") == 3
    assert "test ROC AUC" in out and "fit time:" in out


def test_fit_csv_regression_and_poisson(tmp_path, capsys):
    path = tmp_path / "counts.csv"
    frame = pd.DataFrame({"a": range(40), "kind": ["u", "v"] * 20,
                          "n": [i % 7 for i in range(40)]})
    frame.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "n", "--rules", "2"]) == 0
    assert "test R^2" in capsys.readouterr().out
    assert main(["fit", str(path), "--target", "n", "--rules", "2", "--task", "poisson"]) == 0
    assert "test Poisson deviance" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fit", "no_such_thing"], "neither a bundled dataset"),
        (["fit", "titanic", "--rules", "0"], "--rules must be from 1 to 1000; got 0."),
    ],
)
def test_errors_are_reported_without_a_traceback(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# -- datasets: bundled, and --data-home for the others ---------------------------
def _shipped_files():
    """Names of the registry's datasets whose files are in the installed package."""
    data = resources.files("rulebook.datasets") / "data"
    present = {entry.name for entry in data.iterdir()}
    return sorted(name for name, info in DATASETS.items()
                  if all(f in present or f"{f}.gz" in present for f in info.files))


def test_bundled_list_names_exactly_the_shipped_files(capsys):
    assert main(["fit", "no_such_thing"]) == 2
    err = capsys.readouterr().err
    listed = err.split("bundled dataset (")[1].split(")")[0].split(", ")
    assert listed == _shipped_files()
    assert "iris" not in listed  # known, but not shipped


def test_a_dataset_that_does_not_ship_asks_for_the_data_home_flag(tmp_path, capsys):
    assert not DATASETS["iris"].shipped
    assert main(["fit", "iris"]) == 2
    err = capsys.readouterr().err
    assert "--data-home" in err and "iris.csv" in err
    assert "data_home=" not in err and "shared/datasets" not in err
    # A directory without the file: the flag and the missing file are named.
    assert main(["fit", "iris", "--data-home", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--data-home" in err and "iris.csv" in err and "data_home=" not in err


def test_data_home_loads_a_dataset_that_does_not_ship(tmp_path, capsys):
    info = DATASETS["iris"]
    X = pd.DataFrame({"a": np.arange(60.0), "b": np.tile([1.0, 2.0, 3.0], 20)})
    X.assign(**{info.target: (X.a > 30).astype(int)}).to_csv(tmp_path / info.files[0], index=False)
    assert main(["fit", "iris", "--data-home", str(tmp_path), "--rules", "1"]) == 0
    assert "iris: binary" in capsys.readouterr().out


def test_csv_needs_a_valid_target(tmp_path, capsys):
    path = tmp_path / "d.csv"
    pd.DataFrame({"a": [1, 2], "b": [3, 4]}).to_csv(path, index=False)
    assert main(["fit", str(path)]) == 2
    assert "--target is required" in capsys.readouterr().err
    assert main(["fit", str(path), "--target", "zzz"]) == 2
    assert "'zzz' is not a column" in capsys.readouterr().err


def test_datasets_lists_the_registry(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "titanic" in out and "adult" in out


# -- targets the task cannot use ----------------------------------------------------
def _csv(tmp_path, target):
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": np.arange(len(target)) % 13, "y": target}).to_csv(path, index=False)
    return str(path)


def test_binary_task_on_a_continuous_target_is_a_short_summary(tmp_path, capsys):
    target = np.random.default_rng(0).normal(size=400)
    assert main(["fit", _csv(tmp_path, target), "--target", "y", "--task", "binary"]) == 2
    err = capsys.readouterr().err
    assert "--task binary" in err and "400 distinct values such as" in err and "…" in err
    assert "--task regression" in err
    # Five values are shown, not the whole column.
    shown = err.split("such as ")[1].split("…")[0]
    assert len([v for v in shown.split(",") if v.strip()]) == 5
    assert len(err) < 400


def test_multiclass_target_is_truncated_with_an_ellipsis(tmp_path, capsys):
    target = np.array(list("abcdef") * 20)
    for task in ("binary", "regression"):
        assert main(["fit", _csv(tmp_path, target), "--target", "y", "--task", task]) == 2
        err = capsys.readouterr().err
        assert "6 distinct values such as a, b, c, d, e, …" in err
        assert "--task multiclass" in err
        # No Python class names for a CLI user.
        assert "Classifier" not in err and "Regressor" not in err


def test_fit_and_compare_a_multiclass_csv(tmp_path, capsys):
    """Three classes of strings: multiclass by default, a weight column per
    class, the test accuracy of the model after each round (its staged
    models'), in print and in the HTML report."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    path = tmp_path / "iris.csv"
    X.assign(species=np.array(["setosa", "versicolor", "virginica"])[y]).to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "species", "--rules", "3"]) == 0
    out = capsys.readouterr().out
    assert "multiclass" in out and "setosa" in out and "versicolor" in out
    printed = _printed_scores(out, "test accuracy")
    frame = pd.read_csv(path)
    X_train, X_test, y_train, y_test = train_test_split(
        frame.drop(columns="species"), frame["species"], test_size=0.2, random_state=0,
        stratify=frame["species"])
    model = RuleBoostingClassifier(n_rules=3).fit(X_train, y_train)
    staged = [np.mean(model.classes_[np.argmax(e.decision_function(X_test), axis=1)] == y_test)
              for e in model.staged_ensembles()]
    assert printed == pytest.approx(staged, abs=1e-4)
    assert main(["compare", str(path), "--target", "species", "--rules", "2",
                 "--learners", "greedy", "optimal"]) == 0
    assert "test accuracy by number of rules" in capsys.readouterr().out
    report = tmp_path / "r.html"
    assert main(["compare", str(path), "--target", "species", "--rules", "2",
                 "--report", str(report)]) == 0
    page = report.read_text(encoding="utf-8")
    # The report's score chart is the accuracy of each round's model; every
    # class has its weight column in the learners' tables.
    assert "titled &#x27;accuracy&#x27;" in page or "titled 'accuracy'" in page
    assert all(name in page for name in ("setosa", "versicolor", "virginica"))
    assert main(["fit", _csv(tmp_path, np.array([0, 1] * 20)), "--target", "y",
                 "--task", "multiclass"]) == 2
    assert "--task binary" in capsys.readouterr().err


def test_few_classes_are_listed_in_full(tmp_path, capsys):
    assert main(["fit", _csv(tmp_path, np.array([0, 1, 2] * 20)), "--target", "y",
                 "--task", "binary"]) == 2
    assert "3 distinct values: 0, 1, 2." in capsys.readouterr().err


def test_numeric_tasks_need_numbers_and_poisson_counts(tmp_path, capsys):
    assert main(["fit", _csv(tmp_path, np.array(["u", "v"] * 20)), "--target", "y",
                 "--task", "regression"]) == 2
    err = capsys.readouterr().err
    assert "--task regression needs a numeric target" in err and "--task binary" in err
    assert main(["fit", _csv(tmp_path, np.arange(40.0) - 5), "--target", "y",
                 "--task", "poisson"]) == 2
    err = capsys.readouterr().err
    assert "--task poisson" in err and "5 of them negative" in err


# -- flags ------------------------------------------------------------------------------
def _subcommands():
    parser = _parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return actions[0].choices


@pytest.mark.parametrize("command", ["fit", "compare", "datasets"])
def test_every_flag_has_help_text(command):
    sub = _subcommands()[command]
    for action in sub._actions:
        assert action.help and action.help != argparse.SUPPRESS, action.option_strings or action.dest


@pytest.mark.parametrize("command", ["fit", "compare"])
def test_help_shows_the_new_flags(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--learner", "--max-rule-length", "--time-limit", "--condition-cost",
                 "--data-home", "--max-bins"):
        assert flag in out
    # The defaults shown are the library's.
    default = RuleBoostingRegressor().get_params()["max_bins"]
    assert f"(default {default})" in " ".join(out.split())


def _params(*flags):
    args = _parser().parse_args(["fit", "data.csv", *flags])
    return _estimator_params(args, args.learner, None)


def test_only_given_flags_reach_the_estimator():
    # Nothing given: the library's defaults, no special CLI ones (8 bins, 10 s).
    assert _params() == {"n_rules": 10, "learner": "greedy"}
    assert _params("--learner", "optimal") == {"n_rules": 10, "learner": "optimal"}
    assert _params("--max-bins", "16", "--max-rule-length", "2", "--reg-lambda", "3") == {
        "n_rules": 10, "learner": "greedy", "max_bins": 16, "max_rule_length": 2, "reg_lambda": 3.0}
    assert _params("--max-rule-length", "none")["max_rule_length"] is None


def test_time_limit_maps_to_the_optimal_learner():
    assert _params("--learner", "optimal", "--time-limit", "2.5")["learner"] == \
        OptimalLearner(time_limit=2.5)
    assert _params("--learner", "optimal", "--time-limit", "none")["learner"] == \
        OptimalLearner(time_limit=None)


def test_time_limit_auto_is_the_learners_default_budget():
    assert _params("--learner", "optimal", "--time-limit", "auto")["learner"] == \
        OptimalLearner(time_limit="auto")


def test_condition_cost_maps_to_the_optimal_learner():
    assert _params("--learner", "optimal", "--condition-cost", "0")["learner"] == \
        OptimalLearner(condition_cost=0.0)
    assert _params("--learner", "optimal", "--condition-cost", "auto", "--time-limit", "3")[
        "learner"] == OptimalLearner(condition_cost="auto", time_limit=3.0)


@pytest.mark.parametrize("flag, value", [("--time-limit", "0"), ("--time-limit", "soon"),
                                         ("--condition-cost", "-1"), ("--condition-cost", "x"),
                                         ("--max-rule-length", "0"), ("--max-rule-length", "x")])
def test_invalid_flag_values_name_the_flag(flag, value, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["fit", "titanic", flag, value])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err and repr(value) in err


def test_time_limit_needs_the_optimal_learner(capsys):
    assert main(["fit", "titanic", "--time-limit", "1"]) == 2
    assert "--time-limit applies only to --learner optimal" in capsys.readouterr().err
    assert main(["compare", "titanic", "--learners", "greedy", "--time-limit", "1"]) == 2
    assert "--time-limit" in capsys.readouterr().err
    assert main(["fit", "titanic", "--condition-cost", "0"]) == 2
    assert "--condition-cost applies only to --learner optimal" in capsys.readouterr().err


def test_flags_show_in_the_printed_settings(tmp_path, capsys):
    X, y = make_friedman1(n_samples=120, random_state=0)
    path = tmp_path / "f.csv"
    X.assign(y=y).to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "y", "--rules", "2", "--max-bins", "16",
                 "--max-rule-length", "2"]) == 0
    assert "2 rules, reg_lambda 1, max_bins 16, max_rule_length 2" in capsys.readouterr().out
    assert main(["fit", str(path), "--target", "y", "--rules", "2", "--learner", "optimal",
                 "--condition-cost", "0.5"]) == 0
    assert "time limit per round auto, condition cost 0.5" in capsys.readouterr().out


# -- the compile-time remark --------------------------------------------------------------
class _CompilesOnce:
    """Stands in for an estimator: ``fit`` calls a numba function of its own."""

    def __init__(self):
        self.kernel = numba.njit(lambda x: x + 1)

    def fit(self, X, y):
        self.kernel(1.0)
        return self


def test_compile_time_is_measured_only_when_numba_compiles():
    model = _CompilesOnce()
    assert _timed_fit(model, None, None)[1] > 0  # first call: compiles
    assert _timed_fit(model, None, None)[1] == 0  # already compiled


def test_compile_remark_only_when_the_fit_compiled(capsys):
    main(["fit", "titanic", "--rules", "2"])  # compiles unless cached or already done
    capsys.readouterr()
    assert main(["fit", "titanic", "--rules", "2"]) == 0
    out = capsys.readouterr().out
    assert "fit time:" in out and "compil" not in out


# -- per-round scores -----------------------------------------------------------------
def _printed_scores(out, label):
    """The score column of the printed per-round table."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == ["rules"] and label in line)
    scores = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        scores.append(float(line.split()[-1]))
    return scores


def test_per_round_scores_are_those_of_the_staged_models(tmp_path, capsys):
    X, y = make_friedman1(n_samples=300, random_state=0)
    path = tmp_path / "friedman.csv"
    X.assign(y=y).to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "y", "--rules", "4", "--learner", "orthogonal"]) == 0
    printed = _printed_scores(capsys.readouterr().out, "test R^2")

    # The same split and fit as the CLI's; orthogonal boosting is corrective.
    frame = pd.read_csv(path)
    X_train, X_test, y_train, y_test = train_test_split(
        frame.drop(columns="y"), frame["y"], test_size=0.2, random_state=0)
    model = RuleBoostingRegressor(n_rules=4, learner="orthogonal").fit(X_train, y_train)
    staged = [r2_score(y_test, e.predict(X_test)) for e in model.staged_ensembles()]
    assert printed == pytest.approx(staged, abs=1e-4)
    # And the final weights on the first k rules would have given other scores.
    prefix = [r2_score(y_test, model.ensemble_[:k].predict(X_test)) for k in range(len(staged))]
    assert not np.allclose(prefix[:-1], staged[:-1], atol=1e-3)


# -- bounds, Ctrl-C, warnings (issue 26, defects 5 and 6) ------------------------------
@pytest.mark.parametrize("command", ["fit", "compare"])
def test_too_many_rules_is_an_error_before_any_fit(command, monkeypatch, capsys):
    """``--rules 100000`` ran for hours (failed before: the fit started)."""
    import rulebook.cli

    def no_fit(*args):
        raise AssertionError("the fit started")

    monkeypatch.setattr(rulebook.cli, "_timed_fit", no_fit)
    assert main([command, "titanic", "--rules", "100000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("rulebook: error: --rules must be from 1 to 1000; got 100000.")
    assert err.count("\n") == 1  # one line


def test_most_rules_allowed_is_fitted(monkeypatch, capsys):
    import rulebook.cli

    monkeypatch.setattr(rulebook.cli, "MAX_RULES", 3)
    assert main(["fit", "titanic", "--rules", "3"]) == 0
    assert capsys.readouterr().out.count(" if ") == 3
    assert main(["fit", "titanic", "--rules", "4"]) == 2


def test_ctrl_c_stops_the_command_with_status_130(tmp_path):
    """SIGINT during a long fit: a one-line message and exit status 130, no
    traceback (failed before: Python's KeyboardInterrupt traceback, status -2)."""
    import signal
    import subprocess
    import sys
    import time

    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "rulebook.cli", "fit", "titanic", "--rules", "1000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        # As an interactive Ctrl-C finds it, even when the test run itself
        # was started with SIGINT ignored (``cmd &`` in a script, nohup).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = ""
        while not line.startswith("learner greedy"):  # printed just before the fit
            line = process.stdout.readline()
            assert line, process.stderr.read()
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert err.rstrip().endswith("rulebook: interrupted") and "Traceback" not in err
    assert "fit time" not in out


def test_warnings_print_as_one_line(tmp_path, monkeypatch, capsys):
    """A report whose charts cannot be drawn: written, with a one-line warning
    (failed before: no child renderer; a crash of vl-convert killed the CLI)."""
    from rulebook import _svg_render

    monkeypatch.setattr(_svg_render, "_child_command",
                        lambda: [sys.executable, "-c", "import os; os.abort()"])
    report = tmp_path / "report.html"
    assert main(["compare", "titanic", "--learners", "greedy", "--rules", "2",
                 "--report", str(report)]) == 0
    out, err = capsys.readouterr()
    assert f"report written to {report}" in out and "<svg" not in report.read_text()
    [line] = [line for line in err.splitlines() if "chart(s)" in line]
    assert line.startswith("rulebook: warning: 3 chart(s) could not be drawn") and "SIGABRT" in line
    assert "UserWarning" not in err and "report.py" not in err


def test_compare_under_an_address_space_limit_writes_the_report(tmp_path):
    """The filed case: ``ulimit -v 6000000; rulebook compare ... --report``
    (failed before: killed by SIGTRAP inside vl-convert, no report)."""
    import subprocess

    resource = pytest.importorskip("resource")
    pytest.importorskip("vl_convert")
    path = tmp_path / "data.csv"
    pd.DataFrame({"a": range(60), "b": [i % 3 for i in range(60)],
                  "y": [i % 7 + (i > 30) * 5 for i in range(60)]}).to_csv(path, index=False)
    report = tmp_path / "r.html"
    limit = 6_000_000 * 1024

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    done = subprocess.run(
        [sys.executable, "-m", "rulebook.cli", "compare", str(path), "--target", "y",
         "--rules", "2", "--learners", "greedy", "--report", str(report)],
        capture_output=True, text=True, preexec_fn=cap, timeout=300, check=False, cwd=tmp_path)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "report written" in done.stdout and report.read_text().endswith("</html>")
    assert "rulebook: warning:" in done.stderr and "ulimit -v" in done.stderr
