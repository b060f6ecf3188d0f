"""benchmarks/reproduce_tables.py and benchmarks/paper_results.py: a tiny run and the paper lookup."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
sys.path.insert(0, str(BENCHMARKS))

import paper_results
import reproduce_tables as rt

# Table 1 of Boley et al. (2021) lists 24 problems; these 19 are in
# shared/datasets or generated (the others: IBM HR, classification2, telco
# churn, red wine quality, life expectancy).
TABLE1_HERE = {
    "breast_cancer", "digits5", "gender_recognition", "iris", "wine", "tic_tac_toe", "titanic",
    "boston", "demographics", "insurance", "diabetes", "friedman1", "friedman2", "friedman3",
    "mobile_prices", "suicide_rates", "used_cars", "videogames", "world_happiness",
}


@pytest.fixture(scope="module")
def tiny():
    # Shipped data, so the test needs no data_home.
    return rt.run_dataset("diabetes", n_splits=1, boley_rules=2, yang_rules=2, time_limit=5.0,
                          log=lambda line: None)


def test_tiny_run_is_a_tidy_frame(tiny):
    expected = {"dataset", "task", "learner", "split", "n_rules", "complexity", "score", "metric",
                "fit_time", "risk", "normalised_risk", "zero_normalised_risk", "certified",
                "reg_lambda", "binning", "time_limit"}
    assert expected <= set(tiny.columns)
    learners = ({"rulefit", "rulefit_linear", "greedy", "optimal"}
                | ({"orthogonal"} if rt.orthogonal_learner(None) else set()))
    assert set(tiny.learner) == learners
    assert (tiny.dataset == "diabetes").all() and (tiny.split == 0).all()
    # 0, 1, 2 rules per learner (RuleFit's path may skip a size).
    boosting = tiny[~tiny.learner.isin(rt.RULEFITS)]
    assert boosting.groupby("learner").n_rules.apply(list).map([0, 1, 2].__eq__).all()
    assert tiny.n_rules.le(2).all()
    assert (tiny.metric == "r2").all()
    # The paper's settings: lambda 5 for the optimal learner, 0.001 for greedy.
    assert (tiny.loc[tiny.learner == "optimal", "reg_lambda"] == 5.0).all()
    assert (tiny.loc[tiny.learner == "greedy", "reg_lambda"] == rt.GREEDY_REG_LAMBDA).all()
    optimal_rounds = tiny[(tiny.learner == "optimal") & (tiny.n_rules > 0)]
    assert optimal_rounds.certified.notna().all()


def test_summaries_put_ours_beside_the_papers(tiny):
    boley = rt.boley_summary(tiny, max_rules=2)
    assert boley.dataset.tolist() == ["diabetes"]
    row = boley.iloc[0]
    assert row.paper_opt == 0.308 and row.paper_grd == 0.295 and row.paper_rf == 0.182
    assert np.isfinite([row.optimal, row.greedy]).all() and max(row.optimal, row.greedy) < 1
    # RuleFit with its linear terms, beside the papers' rf (which has none).
    assert np.isfinite(row.rulefit_linear) and row.rulefit_linear < 1
    assert rt.boley_count(boley)[1] == 1
    yang = rt.yang_summary(tiny)
    assert yang.iloc[0].paper_SXB == 0.147
    assert 0 < yang.iloc[0].optimal_zero < yang.iloc[0].optimal < 1
    text = rt.format_boley(boley, orthogonal_available=False)
    assert "diabetes" in text and "(0.308)" in text and "not available" in text
    assert "(0.147)" in rt.format_yang(yang, orthogonal_available=False)


def test_write_results_gives_the_csv_files(tiny, tmp_path):
    info = {"boley_rules": 2}
    rt.write_results(tmp_path, tiny, info)
    assert {p.name for p in tmp_path.iterdir()} == {"curves.csv", "boley.csv", "yang.csv", "run.json"}
    assert len(pd.read_csv(tmp_path / "curves.csv")) == len(tiny)


def test_paper_lookup_covers_every_table1_dataset_we_have():
    available = {row.name for row in paper_results.BOLEY_TABLE1.values() if row.name}
    assert available == TABLE1_HERE
    assert len(paper_results.BOLEY_TABLE1) == 24
    for name in TABLE1_HERE:
        row = paper_results.BOLEY_TABLE1[name]
        assert row.auc["opt"] >= row.auc["grd"] >= row.auc["rf"]  # the paper's finding
        rt.dataset_settings(name)  # known to the script
    assert set(rt.default_datasets(["boley"])) == TABLE1_HERE
    # Yang et al.'s Table 5: 34 datasets; six rows lost in transcription are None.
    assert len(paper_results.YANG_TABLE5) == 34
    assert paper_results.YANG_TABLE5["titanic"].test_risk["COB_B"] is None
    assert paper_results.YANG_TABLE5["ships"].test_risk["SRS"] is None  # NA in the paper
    assert paper_results.YANG_TABLE5["used_cars"].test_risk == {
        "SRS": 0.427, "SGS": 0.171, "SGB": 0.131, "SXB": 0.141, "COB_G": 0.116, "COB_B": 0.130}


@pytest.mark.skipif(not PAPERS.is_dir(), reason="shared/papers not next to the repository")
def test_transcribed_lines_are_verbatim_in_the_papers():
    boley = (PAPERS / "optimal-rule-boosting-boley-2021.md").read_text()
    yang = (PAPERS / "orthogonal-gradient-boosting-yang-2024.md").read_text()
    for line in paper_results.BOLEY_TABLE1_TEXT.strip("\n").split("\n"):
        assert line in boley
    for line in paper_results.YANG_TABLE5_TEXT.strip("\n").split("\n"):
        assert line in yang


def test_bad_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match="unknown dataset"):
        rt.dataset_settings("no_such_data")
    with pytest.raises(ValueError, match="tables"):
        rt.run_dataset("diabetes", tables=["boley", "table9"])
    with pytest.raises(ValueError, match="n_splits"):
        rt.run_dataset("diabetes", n_splits=0)
    with pytest.raises(ValueError, match="unknown learners"):
        rt.make_learners(rt.dataset_settings("diabetes"), ["xgboost"])
    with pytest.raises(ValueError, match="time_limit"):
        rt.make_learners(rt.dataset_settings("diabetes"), ["optimal"], time_limit=0)


def test_binning_follows_the_papers_propositions():
    titanic = rt.dataset_settings("titanic")
    params = rt.binning_params(titanic, "optimal")
    assert params in ({"propositions": titanic.propositions}, {"max_bins": 20 // 2 + 1})
    # The orthogonal learner cannot restrict its search to the paper's
    # propositions: k propositions are k/2 cut points, k/2 + 1 bins.
    assert rt.binning_params(titanic, "orthogonal") == {"max_bins": 20 // 2 + 1}
    assert rt.dataset_settings("friedman2").propositions == 10
    fallback = rt.dataset_settings("magic")
    assert not fallback.from_paper and fallback.reg_lambda == rt.FALLBACK_REG_LAMBDA
    assert np.isclose(rt.dataset_settings("mobile_prices").reg_lambda, 30.0)


def test_command_line_run_writes_tables_and_merges(tmp_path, capsys):
    common = ["--splits", "1", "--boley-rules", "1", "--yang-rules", "1", "--learners", "greedy",
              "--out", str(tmp_path)]
    rt.main(["--datasets", "diabetes", *common])
    rt.main(["--datasets", "ships", "--merge", *common])  # Poisson, shipped
    out = capsys.readouterr().out
    assert "total run time" in out and "optimal AUC >= greedy AUC on" in out
    curves = pd.read_csv(tmp_path / "curves.csv")
    assert set(curves.dataset) == {"diabetes", "ships"}
    assert set(pd.read_csv(tmp_path / "yang.csv").dataset) == {"diabetes", "ships"}
    assert (curves.loc[curves.dataset == "ships", "metric"] == "poisson_deviance").all()


def test_orthogonal_targets_compare_fit_times_and_risks(tiny):
    targets = rt.orthogonal_targets(tiny)
    assert targets.dataset.tolist() == ["diabetes"]
    row = targets.iloc[0]
    fit = tiny.groupby(["learner", "split"]).fit_time.first()
    assert row.optimal_time == pytest.approx(fit["optimal"].sum())
    assert row.time_ratio == pytest.approx(fit["orthogonal"].sum() / fit["optimal"].sum())
    assert row.time_ok == (row.time_ratio <= 3)
    risk = rt.yang_summary(tiny).iloc[0]
    assert row.risk_win == (risk.orthogonal < min(risk.greedy, risk.optimal))
    text = rt.format_targets(targets)
    assert "diabetes" in text and "of 1 (target: >= 80%)" in text


def test_orthogonal_options_parse_as_literals():
    assert rt._parse_option("max_nodes=500") == ("max_nodes", 500)
    assert rt._parse_option("bound=none") == ("bound", "none")
    assert rt._parse_option("epsilon=0.1") == ("epsilon", 0.1)
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        rt._parse_option("max_nodes")
    learner = rt.orthogonal_learner(None, "beam", {"beam_width": 3})
    assert learner.strategy == "beam" and learner.beam_width == 3
    # The paper's objective, whatever the package's default.
    assert learner.length_penalty == "none"
    assert rt.orthogonal_learner(None, None, {"length_penalty": "complexity"}).length_penalty \
        == "complexity"
