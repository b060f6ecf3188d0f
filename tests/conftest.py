"""Shared test helpers: hypothesis strategies for binned search problems, and
the files of the benchmark datasets that do not ship with rulebook."""

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

from rulebook.datasets import DATASETS
from rulebook.search import SearchProblem


@st.composite
def binned_problems(draw, max_rows=40, max_features=4, integer_stats=False):
    """A random SearchProblem: ties, missing bins, constant and nominal columns."""
    n = draw(st.integers(1, max_rows))
    d = draw(st.integers(1, max_features))
    n_bins = np.array([draw(st.integers(1, 5)) for _ in range(d)], dtype=np.int64)
    is_nominal = np.array([draw(st.booleans()) for _ in range(d)], dtype=np.bool_)
    X = np.empty((n, d), dtype=np.uint16, order="F")
    for j in range(d):
        # Codes up to n_bins[j] inclusive: the last one is the missing bin.
        X[:, j] = draw(st.lists(st.integers(0, int(n_bins[j])), min_size=n, max_size=n))
    if integer_stats:
        # Small integers make every sum exact, so ties are real ties.
        g = np.array(draw(st.lists(st.integers(-4, 4), min_size=n, max_size=n)), float)
        h = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    else:
        floats = st.floats(-10, 10, allow_nan=False, allow_subnormal=False)
        g = np.array(draw(st.lists(floats, min_size=n, max_size=n)))
        h = np.abs(np.array(draw(st.lists(floats, min_size=n, max_size=n))))
    c = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 1.0, 2.0]), min_size=n, max_size=n)))
    if c.sum() == 0:
        c[0] = 1.0
    g, h = g * c, h * c
    rows = np.flatnonzero(c > 0)
    return SearchProblem(
        X_binned=X, n_bins=n_bins, is_nominal=is_nominal, g=g, h=h, c=c, rows=rows,
        reg_lambda=draw(st.sampled_from([0.0, 0.01, 1.0, 100.0])),
        objective=draw(st.sampled_from([0, 1, 2])),
        max_rule_length=draw(st.sampled_from([0, 0, 1, 2])),
    )


# --- benchmark files of the datasets that do not ship ----------------------
#
# Eleven benchmark datasets do not ship with rulebook (licence unclear or
# restrictive, or already in scikit-learn; see rulebook/datasets/data/README.md).
# CI serves their published CSV files from a local copy: the directory in
# RULEBOOK_DATA_HOME, else shared/datasets next to the repository. Where
# neither holds them (a fresh clone, Binder) the tests run on generated
# stand-ins, so that nothing is skipped: the published header, column kinds
# (i: int, f: float, s: string), row count, missing values per column and
# the number of rows with a missing value in a column the loader keeps, with
# random values. They check the loader (targets, dropped columns, dtypes,
# dropna), not the published numbers.

#: file -> (header, kinds, missing values per column, rows with a missing
#: value in a kept column); rows come from the registry's shape.
_STAND_INS = {
    "iris.csv": (
        ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)", "y"],
        "fffff", {}, 0),
    "wine.csv": (
        ["alcohol", "malic_acid", "ash", "alcalinity_of_ash", "magnesium", "total_phenols",
         "flavanoids", "nonflavanoid_phenols", "proanthocyanins", "color_intensity", "hue",
         "od280/od315_of_diluted_wines", "proline", "y"],
        "ffffffffffffff", {}, 0),
    "gender_recognition.csv": (
        ["meanfreq", "sd", "median", "Q25", "Q75", "IQR", "skew", "kurt", "sp.ent", "sfm",
         "mode", "centroid", "meanfun", "minfun", "maxfun", "meandom", "mindom", "maxdom",
         "dfrange", "modindx", "label"],
        "ffffffffffffffffffffs", {}, 0),
    "demographics.csv": (
        ["idx", "1    ANNUAL INCOME OF HOUSEHOLD (PERSONAL INCOME IF SINGLE)", "2    SEX",
         "3    MARITAL STATUS", "4    AGE", "5    EDUCATION", "6    OCCUPATION",
         "7    HOW LONG HAVE YOU LIVED IN THE SAN FRAN./OAKLAND/SAN JOSE AREA?",
         "8    DUAL INCOMES (IF MARRIED)", "9    PERSONS IN YOUR HOUSEHOLD",
         "10    PERSONS IN HOUSEHOLD UNDER 18", "11    HOUSEHOLDER STATUS", "12    TYPE OF HOME",
         "13    ETHNIC CLASSIFICATION", "14    WHAT LANGUAGE IS SPOKEN MOST OFTEN IN YOUR HOME?"],
        "iissifsfifissss",
        {"3    MARITAL STATUS": 160, "5    EDUCATION": 86, "6    OCCUPATION": 136,
         "7    HOW LONG HAVE YOU LIVED IN THE SAN FRAN./OAKLAND/SAN JOSE AREA?": 913,
         "9    PERSONS IN YOUR HOUSEHOLD": 375, "11    HOUSEHOLDER STATUS": 240,
         "12    TYPE OF HOME": 357, "13    ETHNIC CLASSIFICATION": 68,
         "14    WHAT LANGUAGE IS SPOKEN MOST OFTEN IN YOUR HOME?": 358},
        2116),
    "gdp.csv": (["Country", "GDP", "Satisfaction"], "sif", {}, 0),
    "boston.csv": (
        ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B",
         "LSTAT", "MEDV"],
        "fffiffffiiffff", {}, 0),
    "world_happiness_2019.csv": (
        ["Overall rank", "Country or region", "Score", "GDP per capita", "Social support",
         "Healthy life expectancy", "Freedom to make life choices", "Generosity",
         "Perceptions of corruption"],
        "isfffffff", {}, 0),
    "mobile_prices.csv": (
        ["battery_power", "blue", "clock_speed", "dual_sim", "fc", "four_g", "int_memory",
         "m_dep", "mobile_wt", "n_cores", "pc", "px_height", "px_width", "ram", "sc_h", "sc_w",
         "talk_time", "three_g", "touch_screen", "wifi", "price_range"],
        "iifiiiifiiiiiiiiiiiii", {}, 0),
    "suicide_rates_cleaned.csv": (
        ["country", "year", "sex", "age", "suicides_no", "population", "suicides/100k pop",
         "country-year", "HDI for year", "gdp_for_year ($)", "gdp_per_capita ($)", "generation"],
        "sissiifsfiis", {"HDI for year": 19456}, 0),
    "videogamesales.csv": (
        ["Rank", "Name", "Platform", "Year", "Genre", "Publisher", "NA_Sales", "EU_Sales",
         "JP_Sales", "Other_Sales", "Global_Sales"],
        "issfssfffff", {"Year": 271, "Publisher": 58}, 271),
    "covid.csv": (
        ["Country", "Other names", "Population", "Continent", "Total Cases", "Total Deaths",
         "TotalCases//1M pop", "TotalDeaths/1M pop", "Death percentage"],
        "ssiiiiiif", {"Other names": 1}, 0),
}


@dataclass(frozen=True)
class BenchmarkFiles:
    """A ``data_home`` for the datasets that do not ship.

    ``published`` is True when it holds the published files (every fact of
    the registry holds), False for generated stand-ins.
    """

    path: Path
    published: bool


def _published_directory():
    """The directory of the published files, if one holds all of them."""
    repository = Path(__file__).resolve().parents[1]
    candidates = [os.environ.get("RULEBOOK_DATA_HOME"), repository.parent / "shared" / "datasets"]
    for candidate in candidates:
        if candidate and all((Path(candidate) / name).is_file() for name in _STAND_INS):
            return Path(candidate)
    return None


def _stand_in(info, header, kinds, missing, incomplete, rng):
    n = info.shape[0]
    columns = {}
    for name, kind in zip(header, kinds):
        if name == info.target:
            if info.task == "binary":
                # The published files code the classes as +-1 (floats where
                # the file has floats) or as strings.
                labels = [info.positive, f"not {info.positive}"] if kind == "s" else [1.0, -1.0]
                values = np.array(labels, dtype=object if kind == "s" else float)[np.arange(n) % 2]
            else:
                values = rng.integers(0, 10, n) if kind == "i" else rng.gamma(2.0, 1.0, n)
        elif kind == "i":
            values = rng.integers(0, 10, n)
        elif kind == "f":
            values = rng.normal(size=n).round(3)
        else:
            values = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, n)]
        columns[name] = pd.Series(values)
    # Missing values of the kept columns wrap around the first ``incomplete``
    # rows, so that exactly those rows have one (the counts add up to at
    # least ``incomplete`` and none exceeds it); those of dropped columns go
    # anywhere, since dropna must ignore them.
    start = 0
    for name, count in missing.items():
        rows = (start + np.arange(count)) % incomplete if name not in info.drop else np.arange(count)
        start += count if name not in info.drop else 0
        columns[name] = columns[name].astype(object if kinds[header.index(name)] == "s" else float)
        columns[name].iloc[rows] = np.nan
    return pd.DataFrame(columns)


@pytest.fixture(scope="session")
def benchmark_files(tmp_path_factory):
    """``data_home`` of the datasets that do not ship: published or stand-ins."""
    published = _published_directory()
    if published is not None:
        return BenchmarkFiles(published, True)
    directory = tmp_path_factory.mktemp("stand_ins")
    rng = np.random.default_rng(0)
    for info in DATASETS.values():
        if not info.shipped:
            (file_name,) = info.files
            frame = _stand_in(info, *_STAND_INS[file_name], rng)
            frame.to_csv(directory / file_name, index=False)
    return BenchmarkFiles(directory, False)
