"""Tests of rulebook.datasets: registry, loaders, shipped copies, generators."""

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rulebook.datasets import (
    DATASETS,
    DatasetInfo,
    dataset_files,
    list_datasets,
    load_breast_cancer,
    load_dataset,
    load_diabetes,
    load_insurance,
    load_ships,
    load_tic_tac_toe,
    load_titanic,
    load_used_cars,
    make_friedman1,
    make_friedman2,
    make_friedman3,
    make_noisy_parity,
)

# The files of the datasets that do not ship come from the fixture
# ``benchmark_files`` (tests/conftest.py): the published files where CI has
# them, generated stand-ins elsewhere.
PACKAGE_DATA = Path(__file__).resolve().parents[1] / "rulebook" / "datasets" / "data"

SHIPPED = (
    "titanic", "tic_tac_toe", "breast_cancer", "banknote", "magic", "adult", "digits5",
    "insurance", "used_cars", "diabetes", "ships", "covid_vic", "bicycle",
)

SHIPPED_LOADERS = {
    "titanic": load_titanic,
    "tic_tac_toe": load_tic_tac_toe,
    "breast_cancer": load_breast_cancer,
    "insurance": load_insurance,
    "used_cars": load_used_cars,
    "diabetes": load_diabetes,
    "ships": load_ships,
}

# Label and count dtypes the loaders promise (README: ints for class labels
# and counts; string labels stay strings).
Y_KIND = {"binary": "iu", "poisson": "iu", "regression": "iuf"}


def check_frames(info, X, y):
    """Invariants every loaded dataset satisfies."""
    assert isinstance(X, pd.DataFrame) and isinstance(y, pd.Series)
    assert len(X) == len(y)
    assert y.name == info.target
    assert info.target not in X.columns
    assert not set(info.drop) & set(X.columns)
    assert X.index.equals(pd.RangeIndex(len(X))) and y.index.equals(X.index)
    assert y.notna().all()
    if info.task == "binary":
        assert y.nunique() == 2 and info.positive in set(y)
    if pd.api.types.is_string_dtype(y.dtype):
        assert info.task == "binary"
    else:
        assert y.dtype.kind in Y_KIND[info.task]
    if info.task == "poisson":
        assert (y >= 0).all()


# --- registry -------------------------------------------------------------


def test_registry_covers_the_shared_readme():
    expected = {
        "titanic", "tic_tac_toe", "breast_cancer", "iris", "wine",
        "gender_recognition", "banknote", "magic", "adult", "digits5",
        "insurance", "demographics", "gdp", "used_cars", "diabetes", "boston",
        "world_happiness", "mobile_prices", "suicide_rates", "videogames",
        "ships", "covid_vic", "covid", "bicycle",
    }
    assert set(DATASETS) == expected
    assert all(name == info.name for name, info in DATASETS.items())
    assert tuple(n for n, i in DATASETS.items() if i.shipped) == SHIPPED
    assert set(SHIPPED_LOADERS) <= set(SHIPPED)


def test_dataset_info_is_frozen_and_validated():
    info = DATASETS["titanic"]
    assert len({hash(i) for i in DATASETS.values()}) == len(DATASETS)
    with pytest.raises(AttributeError):
        info.target = "Age"
    with pytest.raises(ValueError, match="task"):
        DatasetInfo(**{**info.__dict__, "task": "multiclass"})
    with pytest.raises(ValueError, match="positive"):
        DatasetInfo(**{**info.__dict__, "positive": None})


def test_paper_settings_name_real_columns():
    # Per-column proposition counts must use the column names X really has.
    for name in ("titanic", "insurance"):
        X, _ = load_dataset(name)
        assert set(DATASETS[name].paper_propositions) == set(X.columns)
    assert DATASETS["titanic"].paper_reg_lambda == 1.0
    assert DATASETS["digits5"].paper_propositions == 6


def test_list_datasets_table():
    table = list_datasets()
    assert list(table.columns) == [
        "name", "task", "target", "n_rows", "n_columns", "shipped", "source", "licence",
    ]
    assert table["name"].tolist() == list(DATASETS)
    row = table.set_index("name").loc["adult"]
    assert (row["n_rows"], row["n_columns"]) == (30162, 13)
    assert table["licence"].str.len().gt(0).all()


# --- shipped loaders ------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHIPPED_LOADERS))
def test_shipped_loader(name):
    info = DATASETS[name]
    X, y = SHIPPED_LOADERS[name]()
    assert X.shape == info.shape
    check_frames(info, X, y)
    X_by_name, y_by_name = load_dataset(name)
    pd.testing.assert_frame_equal(X, X_by_name)
    pd.testing.assert_series_equal(y, y_by_name)


@pytest.mark.parametrize("name", sorted(SHIPPED_LOADERS))
def test_shipped_loader_returns_fresh_frames(name):
    X, y = SHIPPED_LOADERS[name]()
    X_again, y_again = SHIPPED_LOADERS[name]()
    pd.testing.assert_frame_equal(X, X_again)
    pd.testing.assert_series_equal(y, y_again)
    # Mutating what a caller got must not leak into the next load.
    X.iloc[:, 0] = X.iloc[0, 0]
    del X[X.columns[-1]]
    y.iloc[:] = y.iloc[0]
    X_third, y_third = SHIPPED_LOADERS[name]()
    pd.testing.assert_frame_equal(X_again, X_third)
    pd.testing.assert_series_equal(y_again, y_third)


def test_titanic_keeps_missing_values_unless_asked():
    X, y = load_titanic()
    assert X.shape == (1309, 7) and y.dtype == np.int64
    assert list(X.columns) == ["Pclass", "Sex", "Age", "SibSp", "Parch", "Fare", "Embarked"]
    assert X.isna().sum().to_dict() == {
        "Pclass": 0, "Sex": 0, "Age": 263, "SibSp": 0, "Parch": 0, "Fare": 1, "Embarked": 2,
    }
    X_complete, y_complete = load_titanic(dropna=True)
    assert X_complete.shape == (1043, 7) and len(y_complete) == 1043
    assert not X_complete.isna().any().any()
    assert set(y) == {0, 1}


def test_titanic_concatenates_train_then_test():
    X, y = load_titanic()
    train_path, test_path = dataset_files("titanic")
    train, test = pd.read_csv(train_path), pd.read_csv(test_path)
    np.testing.assert_array_equal(y, np.concatenate([train["Survived"], test["Survived"]]))
    assert X["Sex"].iloc[891] == test["Sex"].iloc[0]


def test_nominal_columns_stay_strings():
    X, y = load_tic_tac_toe()
    assert all(pd.api.types.is_string_dtype(X[c]) for c in X)
    assert set(np.unique(X.to_numpy())) == {"x", "o", "b"}
    assert set(y) == {"positive", "negative"}
    X, _ = load_insurance()
    for column in ("sex", "smoker", "region"):
        assert pd.api.types.is_string_dtype(X[column])


def test_binary_float_labels_become_ints():
    _, y = load_breast_cancer()
    assert y.dtype == np.int64
    assert y.value_counts().to_dict() == {1: 357, -1: 212}


def test_ships_type_is_categorical_and_periods_numeric():
    X, y = load_ships()
    assert isinstance(X["type"].dtype, pd.CategoricalDtype)
    assert not X["type"].cat.ordered
    assert list(X["type"].cat.categories) == [1, 2, 3, 4, 5]
    for column in ("Construction", "operation", "months"):
        assert X[column].dtype == np.int64
    assert y.dtype == np.int64 and y.sum() == 356


def test_used_cars_drops_leaking_price_columns():
    X, y = load_used_cars()
    assert list(X.columns) == ["count", "km", "year", "powerPS"]
    assert y.dtype == np.float64


# --- shipped copies and non-shipped datasets ----------------------------


def _sha256(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def _readme_checksums():
    """``{file name: SHA-256}`` of the published files, from the data README."""
    text = (PACKAGE_DATA / "README.md").read_text(encoding="utf-8")
    return {name: digest for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+\.csv)$", text, re.M)}


def test_package_data_is_exactly_the_shipped_files():
    shipped_files = {f + ".gz" for i in DATASETS.values() if i.shipped for f in i.files}
    assert {p.name for p in PACKAGE_DATA.iterdir()} == shipped_files | {"README.md"}
    readme = (PACKAGE_DATA / "README.md").read_text(encoding="utf-8")
    for name in shipped_files:
        assert f"`{name}`" in readme  # source and licence are noted beside each file
    assert set(_readme_checksums()) == {name.removesuffix(".gz") for name in shipped_files}


@pytest.mark.parametrize(
    "file_name", sorted(f for i in DATASETS.values() if i.shipped for f in i.files)
)
def test_shipped_copy_decompresses_to_the_published_file(file_name, benchmark_files):
    expected = _readme_checksums()[file_name]
    assert _sha256(PACKAGE_DATA / f"{file_name}.gz") == expected
    published = benchmark_files.path / file_name
    if benchmark_files.published and published.is_file():
        assert _sha256(published) == expected


def test_dataset_files_are_the_raw_published_files(tmp_path):
    (path,) = dataset_files("bicycle")
    assert path.name == "bicycle.csv.gz" and path.is_file()
    # The raw file keeps what the loader drops.
    assert {"Date", "Brooklyn Bridge"} <= set(pd.read_csv(path).columns)
    assert [p.name for p in dataset_files("titanic")] == ["titanic_train.csv.gz", "titanic_test.csv.gz"]
    pd.DataFrame({"GDP": [1], "Satisfaction": [5.0], "Country": ["a"]}).to_csv(tmp_path / "gdp.csv")
    assert dataset_files("gdp", data_home=tmp_path) == (tmp_path / "gdp.csv",)
    with pytest.raises(ValueError, match="'gdp' is not shipped"):
        dataset_files("gdp")


def _load(name, benchmark_files, **kwargs):
    """Shipped datasets by name alone; the others from the fixture's directory."""
    if DATASETS[name].shipped:
        return load_dataset(name, **kwargs)
    return load_dataset(name, data_home=benchmark_files.path, **kwargs)


@pytest.mark.parametrize("name", list(DATASETS))
def test_every_dataset_loads(name, benchmark_files):
    info = DATASETS[name]
    X, y = _load(name, benchmark_files)
    assert X.shape == info.shape
    check_frames(info, X, y)
    X_complete, y_complete = _load(name, benchmark_files, dropna=True)
    assert not X_complete.isna().any().any()
    assert len(X_complete) == len(y_complete) <= len(X)


# Rows after dropna=True, as reported by the papers (Table 1 of each).
PAPER_ROWS = [("titanic", 1043), ("demographics", 6876), ("videogames", 16327)]


@pytest.mark.parametrize(("name", "n_rows"), PAPER_ROWS)
def test_dropna_reproduces_paper_row_counts(name, n_rows, benchmark_files):
    # The stand-ins have the published files' rows with missing values.
    X, _ = _load(name, benchmark_files, dropna=True)
    assert len(X) == n_rows


def test_digits5_subset():
    X, y = load_dataset("digits5")
    (path,) = dataset_files("digits5")
    raw = pd.read_csv(path)
    kept = raw[raw["target"].isin([0, 2, 3, 6, 8, 9, 5])]
    assert X.shape == (len(kept), 64) == (3915, 64)
    assert y.dtype == np.int64 and set(y) == {0, 1}
    assert y.sum() == (kept["target"] == 5).sum()
    np.testing.assert_array_equal(X.to_numpy(), kept.drop(columns="target").to_numpy())


def test_specific_targets_and_drops(benchmark_files):
    X, y = _load("demographics", benchmark_files)
    assert y.name.startswith("1    ANNUAL INCOME") and y.dtype == np.int64
    assert "idx" not in X and X.shape == (8992, 13)
    X, y = _load("videogames", benchmark_files)
    assert y.name == "Rank" and y.dtype == np.int64
    assert list(X.columns) == [
        "Year", "NA_Sales", "EU_Sales", "JP_Sales", "Other_Sales", "Global_Sales",
    ]
    X, y = load_dataset("covid_vic")
    assert list(X.columns) == ["population", "active", "cases", "band"]
    assert X["population"].isna().sum() == 6
    assert len(load_dataset("covid_vic", dropna=True)[0]) == 79
    X, y = load_dataset("adult")
    assert set(y) == {-1, 1} and X.shape == (30162, 13)


def test_tutorial_datasets_ship():
    # Tutorials 05 (bicycle) and 06 (adult, magic) run anywhere.
    X, y = load_dataset("bicycle")
    assert list(X.columns) == ["Day", "High Temp (F)", "Low Temp (F)", "Precipitation"]
    assert y.name == "Total" and y.dtype == np.int64 and (y > 0).all()
    X, y = load_dataset("magic")
    assert X.shape == (19020, 10) and y.value_counts().to_dict() == {1: 12332, -1: 6688}


def test_shipped_dataset_ignores_data_home(tmp_path):
    X, _ = load_dataset("titanic", data_home=tmp_path)
    assert X.shape == (1309, 7)


# --- errors ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["titanik", "", None, "Titanic"])
def test_unknown_name_lists_valid_names(name):
    with pytest.raises(ValueError, match="Unknown dataset.*adult.*titanic"):
        load_dataset(name)


def test_non_shipped_needs_data_home():
    with pytest.raises(ValueError, match="'boston' is not shipped.*boston.csv.*data_home"):
        load_dataset("boston")
    # No repository paths in the message: a user's installation has none.
    with pytest.raises(ValueError) as error:
        load_dataset("boston")
    assert "shared" not in str(error.value) and "repository" not in str(error.value)


def test_data_home_without_the_files(tmp_path):
    with pytest.raises(ValueError, match="'boston' needs 'boston.csv'.*data_home"):
        load_dataset("boston", data_home=tmp_path)


def test_gzipped_copy_in_data_home_loads(tmp_path):
    raw = pd.DataFrame({"GDP": [1, 2, 3], "Satisfaction": [5.0, 6.5, 7.0], "Country": list("abc")})
    raw.to_csv(tmp_path / "gdp.csv.gz", index=False)
    X, y = load_dataset("gdp", data_home=tmp_path)
    assert list(X.columns) == ["GDP"] and y.tolist() == [5.0, 6.5, 7.0]


# --- generators -----------------------------------------------------------


@pytest.mark.parametrize("n_features", [1, 2, 5])
def test_noisy_parity_shape_and_labels(n_features):
    X, y = make_noisy_parity(300, n_features, random_state=0)
    assert X.shape == (300, n_features)
    assert list(X.columns) == [f"x{i}" for i in range(1, n_features + 1)]
    assert X.dtypes.eq(np.float64).all()
    assert y.dtype == np.int64 and set(y) <= {-1, 1} and y.name == "y"


def test_noisy_parity_label_is_parity_of_the_centres():
    # With tiny noise every point lies next to its centre, so sign(X) = C.
    X, y = make_noisy_parity(2000, 4, noise=1e-6, random_state=1)
    np.testing.assert_allclose(np.abs(X.to_numpy()), 1.0, atol=1e-4)
    np.testing.assert_array_equal(y, np.prod(np.sign(X.to_numpy()), axis=1))
    # Balanced labels and all 2^d cube corners visited.
    assert abs(y.mean()) < 0.1
    assert len(np.unique(np.sign(X.to_numpy()), axis=0)) == 16


def test_noisy_parity_spread_matches_noise():
    X, y = make_noisy_parity(20000, 2, noise=0.5, random_state=2)
    centres = np.sign(X.to_numpy())
    # Mislabelled corners are rare at sigma=0.5, so |X| - 1 is ~ N(0, 0.25).
    assert abs(np.std(np.abs(X.to_numpy()) - 1) - 0.5) < 0.05
    accuracy = np.mean(np.prod(centres, axis=1) == y)
    assert 0.94 < accuracy < 0.97  # Bayes accuracy (1 + (2 Phi(2) - 1)^2) / 2 = 0.955


def test_noisy_parity_no_single_feature_is_informative():
    X, y = make_noisy_parity(20000, 3, random_state=3)
    for column in X:
        assert abs(np.corrcoef(X[column], y)[0, 1]) < 0.03


def test_noisy_parity_reproducible():
    a = make_noisy_parity(50, 3, random_state=7)
    b = make_noisy_parity(50, 3, random_state=np.random.RandomState(7))
    c = make_noisy_parity(50, 3, random_state=8)
    pd.testing.assert_frame_equal(a[0], b[0])
    pd.testing.assert_series_equal(a[1], b[1])
    assert not a[0].equals(c[0])


@pytest.mark.parametrize("kwargs", [{"n_samples": 0}, {"n_features": 0}, {"noise": -1.0}])
def test_noisy_parity_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        make_noisy_parity(**kwargs)


@pytest.mark.parametrize(
    ("make", "shape"),
    [(make_friedman1, (2000, 10)), (make_friedman2, (10000, 4)), (make_friedman3, (5000, 4))],
)
def test_friedman_defaults_follow_paper_sizes(make, shape):
    X, y = make(random_state=0)
    assert X.shape == shape and len(y) == shape[0]
    assert list(X.columns) == [f"x{i}" for i in range(1, shape[1] + 1)]
    assert y.name == "y" and y.dtype == np.float64


@pytest.mark.parametrize(
    ("make", "sk_make"),
    [(make_friedman1, "make_friedman1"), (make_friedman2, "make_friedman2"),
     (make_friedman3, "make_friedman3")],
)
def test_friedman_wraps_scikit_learn(make, sk_make):
    from sklearn import datasets

    X, y = make(n_samples=100, noise=0.3, random_state=5)
    X_sk, y_sk = getattr(datasets, sk_make)(n_samples=100, noise=0.3, random_state=5)
    np.testing.assert_array_equal(X.to_numpy(), X_sk)
    np.testing.assert_array_equal(y.to_numpy(), y_sk)
