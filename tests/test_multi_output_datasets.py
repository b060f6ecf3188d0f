"""Loaders of the multi-label and multi-output regression datasets."""

import gzip
import hashlib
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rulebook import RuleBoostingClassifier
from rulebook.datasets import MULTI_OUTPUT_DATASETS, load_atp7d, load_emotions, load_multi_output
from rulebook.datasets._multi_output import _label_names

SHIPPED = Path(resources.files("rulebook.datasets") / "data_multi_output")
# The published files, where this checkout has them (the project's shared data).
PUBLISHED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "multi_output"


def test_the_shipped_files_are_the_published_ones_and_documented():
    readme = (SHIPPED / "README.md").read_text(encoding="utf-8")
    sums = dict((name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", readme, re.M))
    shipped = {p.name for p in SHIPPED.iterdir()} - {"README.md"}
    assert {name.removesuffix(".gz") for name in shipped} == set(sums)
    for name in shipped:
        assert f"`{name}`" in readme  # source and licence beside each file
        opener = gzip.open if name.endswith(".gz") else open
        with opener(SHIPPED / name, "rb") as stream:
            assert hashlib.sha256(stream.read()).hexdigest() == sums[name.removesuffix(".gz")]


def test_emotions_labels_and_features():
    X, Y = load_emotions()
    assert X.shape == (593, 72) and Y.shape == (593, 6)
    assert list(Y.columns) == ["amazed-suprised", "happy-pleased", "relaxing-calm", "quiet-still",
                               "sad-lonely", "angry-aggresive"]
    assert (X.dtypes == np.float64).all() and (Y.dtypes == np.int64).all()
    assert set(np.unique(Y)) == {0, 1}
    assert Y.sum().tolist()[:2] == [173, 166]
    assert X.columns[0] == "Mean_Acc1298_Mean_Mem40_Centroid"


def test_atp7d_targets_and_unquoted_names():
    X, Y = load_atp7d()
    assert X.shape == (296, 411) and Y.shape == (296, 6)
    assert (Y.dtypes == np.float64).all() and Y.columns[0] == "LBL+ALLminpA+bt7d_000"
    assert list(X.columns[:2]) == ["departwb", "departdaytype"]


def test_each_call_returns_new_frames():
    X, Y = load_emotions()
    X.iloc[0, 0], Y.iloc[0, 0] = -1.0, 7
    again_X, again_Y = load_emotions()
    assert again_X.iloc[0, 0] != -1.0 and again_Y.iloc[0, 0] != 7


def test_unknown_names_and_unshipped_data_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="valid names are: emotions, yeast, enron, atp7d"):
        load_multi_output("scene")
    with pytest.raises(ValueError, match="yeast does not ship.*pass data_home"):
        load_multi_output("yeast")
    with pytest.raises(FileNotFoundError, match="emotions.arff"):
        load_multi_output("emotions", data_home=tmp_path)


def test_label_names_are_read_without_an_xml_parser():
    xml = '<labels xmlns="x"><label name="a&amp;b"></label>\n<label  name="c"/></labels>'
    assert _label_names(xml) == ["a&b", "c"]


@pytest.mark.skipif(not PUBLISHED.is_dir(), reason="the published files are not in this checkout")
@pytest.mark.parametrize("name, shape, n_outputs", [
    ("emotions", (593, 72), 6), ("yeast", (2417, 103), 14), ("enron", (1702, 1001), 53),
    ("atp7d", (296, 411), 6)])
def test_the_published_files_load(name, shape, n_outputs):
    if name == "enron":
        pytest.importorskip("arff", reason="liac-arff reads sparse ARFF")
    X, Y = load_multi_output(name, data_home=PUBLISHED)
    assert X.shape == shape and Y.shape == (shape[0], n_outputs)
    if MULTI_OUTPUT_DATASETS[name][0] == "multi-label":
        assert set(np.unique(Y)) == {0, 1} and (Y.sum() > 0).all()
    if name in ("emotions", "atp7d"):
        shipped = load_multi_output(name)
        pd.testing.assert_frame_equal(X, shipped[0])
        pd.testing.assert_frame_equal(Y, shipped[1])


def test_a_multi_label_model_of_emotions():
    X, Y = load_emotions()
    model = RuleBoostingClassifier(n_rules=3, verbose=0).fit(X, Y)
    assert model.ensemble_.outputs == tuple(Y.columns)
    assert model.predict(X).shape == Y.shape
