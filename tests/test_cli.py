"""The ``rulebook`` command, run in-process through ``main``."""

import pandas as pd
import pytest

from rulebook.cli import main


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
        (["fit", "adult"], "data_home"),
        (["fit", "titanic", "--rules", "0"], "n_rules"),
    ],
)
def test_errors_are_reported_without_a_traceback(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


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
