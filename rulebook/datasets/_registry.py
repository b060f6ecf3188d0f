"""What each benchmark dataset is: files, task, target, dropped columns, origin.

One frozen record per dataset, declared once (the way scikit-learn's
``_hist_gradient_boosting/common.pyx`` declares its dtypes once), so that the
loader, the docs table and the tests all read the same facts. The facts come
from ``shared/datasets/README.md`` and the two rule-boosting papers:

* Boley et al. (2021), "Better short than greedy: interpretable models through
  optimal rule boosting" (paper 1, Table 1: ``paper_reg_lambda`` and
  ``paper_propositions``);
* Yang et al. (2024), "Orthogonal gradient boosting for simpler additive rule
  ensembles" (paper 2, which adds the Poisson datasets).
"""

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["DatasetInfo", "DATASETS", "list_datasets"]

_TASKS = ("binary", "regression", "poisson")


@dataclass(frozen=True)
class DatasetInfo:
    """Facts about one benchmark dataset.

    Attributes
    ----------
    name : str
        Short snake_case identifier, the key of :data:`DATASETS`.
    files : tuple of str
        CSV file names; several files are concatenated row-wise.
    task : {"binary", "regression", "poisson"}
        Learning task the papers fitted.
    target : str
        Column holding the response; returned as ``y``.
    positive : object or None
        Label of the positive class for binary tasks, else None.
    drop : tuple of str
        Columns removed from ``X`` (identifiers, leaks), as the papers did.
    shipped : bool
        Whether a copy of the files is inside the package.
    source : str
        Where the data comes from.
    licence : str
        Licence as stated by the source, or a note that none is stated.
    paper_reg_lambda : float or None
        Regularisation lambda of the optimal learner in paper 1, Table 1.
    paper_propositions : int or dict of str to int or None
        Propositions per column in paper 1 (k propositions mean k/2
        equal-frequency cut points, each giving ``x <= c`` and ``x >= c``);
        a dict when the paper gives per-column numbers.
    description : str
        One line: what a row is, the target, and any loading choice.
    shape : tuple of (int, int) or None
        Shape of ``X`` returned by ``load_dataset(name)`` with default
        arguments; checked by the tests against the files.
    """

    name: str
    files: tuple[str, ...]
    task: str
    target: str
    positive: object
    drop: tuple[str, ...]
    shipped: bool
    source: str
    licence: str
    paper_reg_lambda: float | None
    # A dict cannot be hashed; leaving it out keeps DatasetInfo hashable.
    paper_propositions: int | dict[str, int] | None = field(hash=False)
    description: str
    shape: tuple[int, int] | None = None

    def __post_init__(self):
        if self.task not in _TASKS:
            raise ValueError(f"task must be one of {_TASKS}, got {self.task!r}")
        if (self.task == "binary") != (self.positive is not None):
            raise ValueError(f"{self.name}: positive is required for binary tasks only")


_UCI = "CC BY 4.0 (UCI Machine Learning Repository)"
_NOT_STATED = "Not stated by the source"

# Paper 1 uses 6 propositions for the numeric columns of mobile prices and 2
# for its binary (0/1) columns.
_MOBILE_BINARY = ("blue", "dual_sim", "four_g", "three_g", "touch_screen", "wifi")
_MOBILE_NUMERIC = (
    "battery_power", "clock_speed", "fc", "int_memory", "m_dep", "mobile_wt",
    "n_cores", "pc", "px_height", "px_width", "ram", "sc_h", "sc_w", "talk_time",
)

_INFOS = (
    DatasetInfo(
        name="titanic",
        files=("titanic_train.csv", "titanic_test.csv"),
        task="binary",
        target="Survived",
        positive=1,
        drop=("PassengerId", "Name", "Ticket", "Cabin"),
        shipped=True,
        source=(
            "Kaggle competition 'Titanic - Machine Learning from Disaster' "
            "(train 891 rows + test 418 rows, the test file with Survived filled "
            "in); passenger list from Encyclopedia Titanica"
        ),
        licence=(
            "Not stated by Kaggle (competition data); OpenML lists the Titanic "
            "passenger list (data id 40945) as public"
        ),
        paper_reg_lambda=1.0,
        paper_propositions={
            "Pclass": 4, "Sex": 2, "Age": 20, "SibSp": 12, "Parch": 16,
            "Fare": 20, "Embarked": 3,
        },
        description=(
            "Passengers of the Titanic; y = Survived (0/1). Train and test "
            "files concatenated; NaN kept in Age (263), Embarked (2) and Fare (1) "
            "unless dropna=True, which gives the paper's 1043 rows"
        ),
        shape=(1309, 7),
    ),
    DatasetInfo(
        name="tic_tac_toe",
        files=("tic_tac_toe.csv",),
        task="binary",
        target="V10",
        positive="positive",
        drop=(),
        shipped=True,
        source=(
            "UCI Tic-Tac-Toe Endgame (Aha, 1991), UCI id 101; column names "
            "V1-V10 as in the R / OpenML export"
        ),
        licence=_UCI,
        paper_reg_lambda=2.0,
        paper_propositions=2,
        description=(
            "End-of-game boards, x moved first; V1-V9 are the squares row by "
            "row from top-left, each 'x', 'o' or 'b' (blank), kept as strings; "
            "y = V10, 'positive' when x has three in a row"
        ),
        shape=(958, 9),
    ),
    DatasetInfo(
        name="breast_cancer",
        files=("breast_cancer.csv",),
        task="binary",
        target="y",
        positive=1,
        drop=(),
        shipped=True,
        source=(
            "UCI Breast Cancer Wisconsin (Diagnostic), UCI id 17, as dumped "
            "from sklearn.datasets.load_breast_cancer"
        ),
        licence=f"{_UCI}; scikit-learn's copy ships under BSD-3-Clause",
        paper_reg_lambda=2.0,
        paper_propositions=4,
        description=(
            "Cell-nucleus features of breast masses; y = 1 benign, -1 malignant "
            "(scikit-learn's target 1 = benign), cast from float to int"
        ),
        shape=(569, 30),
    ),
    DatasetInfo(
        name="iris",
        files=("iris.csv",),
        task="binary",
        target="y",
        positive=1,
        drop=(),
        shipped=False,
        source="UCI Iris (Fisher, 1936), UCI id 53, via sklearn.datasets.load_iris",
        licence=_UCI,
        paper_reg_lambda=2.0,
        paper_propositions=20,
        description="Iris flowers; y = 1 versicolor, -1 other species, cast to int",
        shape=(150, 4),
    ),
    DatasetInfo(
        name="wine",
        files=("wine.csv",),
        task="binary",
        target="y",
        positive=1,
        drop=(),
        shipped=False,
        source="UCI Wine, UCI id 109, via sklearn.datasets.load_wine",
        licence=_UCI,
        paper_reg_lambda=2.0,
        paper_propositions=6,
        description="Chemical analysis of wines; y = 1 cultivar class 1, -1 others, cast to int",
        shape=(178, 13),
    ),
    DatasetInfo(
        name="gender_recognition",
        files=("gender_recognition.csv",),
        task="binary",
        target="label",
        positive="male",
        drop=(),
        shipped=False,
        source="Kaggle 'Gender Recognition by Voice' (Kory Becker, 2016)",
        licence="Kaggle page lists CC BY-NC-SA 4.0 (not re-verified here)",
        paper_reg_lambda=2.0,
        paper_propositions=6,
        description=(
            "Acoustic features of voice recordings; y = label, 'male' or "
            "'female' (1584 each)"
        ),
        shape=(3168, 20),
    ),
    DatasetInfo(
        name="banknote",
        files=("banknote.csv",),
        task="binary",
        target="class",
        positive=1,
        drop=(),
        shipped=True,
        source="UCI Banknote Authentication (Lohweg, 2012), UCI id 267",
        licence=_UCI,
        paper_reg_lambda=None,
        paper_propositions=None,
        description="Wavelet features of banknote images; y = class (0/1); paper 2 only",
        shape=(1372, 4),
    ),
    DatasetInfo(
        name="magic",
        files=("magic.csv",),
        task="binary",
        target="class",
        positive=1,
        drop=(),
        shipped=True,
        source="UCI MAGIC Gamma Telescope (Bock, 2004), UCI id 159",
        licence=_UCI,
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "Cherenkov telescope images; y = class, 1 gamma, -1 hadron; rows "
            "sorted by class (shuffle before splitting); column names mangled "
            "in the file (e.g. 'fLen1t-1' is fLength) and kept as published"
        ),
        shape=(19020, 10),
    ),
    DatasetInfo(
        name="adult",
        files=("adult.csv",),
        task="binary",
        target="output",
        positive=1,
        drop=(),
        shipped=True,
        source=(
            "UCI Adult / Census Income (Becker & Kohavi, 1996), UCI id 2; the "
            "training file without rows that had missing values"
        ),
        licence=_UCI,
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "1994 US census records; y = output, 1 income > 50K, -1 otherwise; "
            "sex comes coded as 1/-1 in the file, other nominal columns are strings"
        ),
        shape=(30162, 13),
    ),
    DatasetInfo(
        name="digits5",
        files=("digits.csv",),
        task="binary",
        target="target",
        positive=1,
        drop=(),
        shipped=True,
        source=(
            "UCI Optical Recognition of Handwritten Digits (Alpaydin & Kaynak, "
            "1998), UCI id 80, training and test files (5620 rows)"
        ),
        licence=_UCI,
        paper_reg_lambda=10.0,
        paper_propositions=6,
        description=(
            "8x8 pixel counts (0-16) of handwritten digits; only digits "
            "{5} vs {0, 2, 3, 6, 8, 9} kept as in paper 1; y = target, 1 for "
            "a 5, 0 otherwise"
        ),
        shape=(3915, 64),
    ),
    DatasetInfo(
        name="insurance",
        files=("insurance.csv",),
        task="regression",
        target="charges",
        positive=None,
        drop=(),
        shipped=True,
        source=(
            "Kaggle 'Medical Cost Personal Datasets' (mirichoi0218), from "
            "Lantz, Machine Learning with R (Packt, 2013)"
        ),
        licence=(
            "Kaggle page lists the Open Database License (ODbL 1.0), not "
            "re-verified here; the book's data repository states none"
        ),
        paper_reg_lambda=2.0,
        paper_propositions={
            "age": 10, "sex": 2, "bmi": 10, "children": 10, "smoker": 2, "region": 4,
        },
        description=(
            "Medical insurance policy holders; y = charges (USD, float); "
            "sex, smoker and region kept as strings"
        ),
        shape=(1338, 6),
    ),
    DatasetInfo(
        name="demographics",
        files=("demographics.csv",),
        task="regression",
        target="1    ANNUAL INCOME OF HOUSEHOLD (PERSONAL INCOME IF SINGLE)",
        positive=None,
        drop=("idx",),
        shipped=False,
        source=(
            "'Marketing' data of Hastie, Tibshirani & Friedman, The Elements "
            "of Statistical Learning, Sec. 14.2.3: 1987 San Francisco Bay Area "
            "questionnaires by Impact Resources, Inc."
        ),
        licence=_NOT_STATED,
        paper_reg_lambda=2.0,
        paper_propositions=None,
        description=(
            "Coded survey answers; y = household income band 1-9 (int); NaN "
            "kept in 9 columns unless dropna=True, which gives the paper's 6876 rows"
        ),
        shape=(8992, 13),
    ),
    DatasetInfo(
        name="gdp",
        files=("gdp.csv",),
        task="regression",
        target="Satisfaction",
        positive=None,
        drop=("Country",),
        shipped=False,
        source=(
            "Not documented in the shared README; 35 OECD countries' life "
            "satisfaction (OECD Better Life Index) against GDP per capita"
        ),
        licence=_NOT_STATED,
        paper_reg_lambda=None,
        paper_propositions=None,
        description="One row per OECD country; single feature GDP; y = Satisfaction; paper 2 only",
        shape=(35, 1),
    ),
    DatasetInfo(
        name="used_cars",
        files=("used_cars.csv",),
        task="regression",
        target="avgPrice",
        positive=None,
        drop=("minPrice", "maxPrice", "sdPrice"),
        shipped=True,
        source=(
            "Aggregated from the Kaggle 'Used cars database' (eBay Kleinanzeigen "
            "ads, 2016, user orgesleka): one row per (km, year, powerPS) group "
            "with the group's count and price statistics"
        ),
        licence=(
            "Kaggle page of the raw ads lists CC0 1.0 (not re-verified here); "
            "the aggregation's author and licence are not stated"
        ),
        paper_reg_lambda=10.0,
        paper_propositions=6,
        description=(
            "Groups of used cars; y = avgPrice (EUR, float); the other price "
            "statistics of the group are dropped because they leak the target"
        ),
        shape=(1770, 4),
    ),
    DatasetInfo(
        name="diabetes",
        files=("load_diabetes.csv",),
        task="regression",
        target="y",
        positive=None,
        drop=(),
        shipped=True,
        source=(
            "sklearn.datasets.load_diabetes (Efron, Hastie, Johnstone & "
            "Tibshirani, 2004, 'Least angle regression')"
        ),
        licence=(
            "scikit-learn's copy ships under BSD-3-Clause; licence not stated "
            "by the original source"
        ),
        paper_reg_lambda=5.0,
        paper_propositions=6,
        description=(
            "Diabetes patients; ten baseline variables mean-centred and scaled "
            "by scikit-learn; y = disease progression after one year (float)"
        ),
        shape=(442, 10),
    ),
    DatasetInfo(
        name="boston",
        files=("boston.csv",),
        task="regression",
        target="MEDV",
        positive=None,
        drop=(),
        shipped=False,
        source=(
            "Harrison & Rubinfeld (1978), 'Hedonic housing prices and the "
            "demand for clean air'; formerly sklearn.datasets.load_boston"
        ),
        licence=(
            f"{_NOT_STATED}; removed from scikit-learn 1.2 because of how its B "
            "column was constructed"
        ),
        paper_reg_lambda=5.0,
        paper_propositions=8,
        description="Boston census tracts; y = MEDV, median home value in 1000 USD",
        shape=(506, 13),
    ),
    DatasetInfo(
        name="world_happiness",
        files=("world_happiness_2019.csv",),
        task="regression",
        target="Score",
        positive=None,
        drop=("Overall rank", "Country or region"),
        shipped=False,
        source="Kaggle 'World Happiness Report' (SDSN), 2019 file",
        licence="Kaggle page lists CC0 1.0 (not re-verified here)",
        paper_reg_lambda=2.0,
        paper_propositions=10,
        description=(
            "One row per country in 2019; y = happiness Score; paper 1 used "
            "315 rows (more than one year), this file has 156"
        ),
        shape=(156, 6),
    ),
    DatasetInfo(
        name="mobile_prices",
        files=("mobile_prices.csv",),
        task="regression",
        target="price_range",
        positive=None,
        drop=(),
        shipped=False,
        source="Kaggle 'Mobile Price Classification' (Abhishek Sharma, 2018), train.csv",
        licence=_NOT_STATED,
        paper_reg_lambda=30.0,
        paper_propositions={
            **{c: 6 for c in _MOBILE_NUMERIC},
            **{c: 2 for c in _MOBILE_BINARY},
        },
        description=(
            "Phone specifications; y = price_range 0-3 (int), fitted with "
            "squared loss in both papers"
        ),
        shape=(2000, 20),
    ),
    DatasetInfo(
        name="suicide_rates",
        files=("suicide_rates_cleaned.csv",),
        task="regression",
        target="suicides/100k pop",
        positive=None,
        drop=(
            "suicides_no", "population", "HDI for year", "country-year",
            "gdp_for_year ($)", "country",
        ),
        shipped=False,
        source=(
            "Kaggle 'Suicide Rates Overview 1985 to 2016', compiled from WHO, "
            "UNDP and World Bank data"
        ),
        licence=f"{_NOT_STATED} here; the compiled sources have their own terms",
        paper_reg_lambda=2.0,
        paper_propositions={
            "year": 10, "sex": 2, "age": 6, "gdp_per_capita ($)": 10, "generation": 6,
        },
        description=(
            "Country-year-sex-age groups; y = suicides per 100k; sex, age "
            "and generation kept as strings; the mostly-NaN HDI column is dropped"
        ),
        shape=(27820, 5),
    ),
    DatasetInfo(
        name="videogames",
        files=("videogamesales.csv",),
        task="regression",
        target="Rank",
        positive=None,
        drop=("Name", "Platform", "Publisher", "Genre"),
        shipped=False,
        source="Kaggle 'Video Game Sales' (Gregory Smith, 2016), scraped from vgchartz.com",
        licence=_NOT_STATED,
        paper_reg_lambda=2.0,
        paper_propositions=8,
        description=(
            "Games with regional sales in millions; y = sales Rank (int) as in "
            "paper 1; NaN kept in Year (271) unless dropna=True, which gives "
            "the paper's 16327 rows"
        ),
        shape=(16598, 6),
    ),
    DatasetInfo(
        name="ships",
        files=("ships.csv",),
        task="poisson",
        target="damage",
        positive=None,
        drop=("id",),
        shipped=True,
        source=(
            "McCullagh & Nelder, Generalized Linear Models, 2nd ed. (1989), "
            "Sec. 6.3.2: Lloyd's Register ship damage data; also R MASS::ships"
        ),
        licence=f"{_NOT_STATED} (a table published in a book)",
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "Cargo-ship groups; y = damage incident count (int); 'type' (ship "
            "type A-E coded 1-5) made categorical because it is nominal; "
            "Construction (1960-64 ... 1975-79 coded 1-4), operation (1960-74 "
            "coded 1, 1975-79 coded 4) and months (aggregate months of "
            "service) kept numeric"
        ),
        shape=(34, 4),
    ),
    DatasetInfo(
        name="covid_vic",
        files=("covid_vic.csv",),
        task="poisson",
        target="new",
        positive=None,
        drop=("LGA", "lga_pid", "LGADisplay", "data_date", "file_processed_date", "rate"),
        shipped=True,
        source=(
            "Victorian Department of Health, COVID-19 cases by local government "
            "area, 8 August 2022 (DataVic)"
        ),
        licence=(
            "CC BY 4.0, DataVic's default licence for Victorian Government "
            "data ((c) State of Victoria, Department of Health); the dataset "
            "page was not re-checked when the copy was made"
        ),
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "Local government areas; y = new cases (int); 6 pseudo-areas "
            "(Interstate, Overseas, Unknown, ...) have blank population, kept "
            "as NaN unless dropna=True (79 rows)"
        ),
        shape=(85, 4),
    ),
    DatasetInfo(
        name="covid",
        files=("covid.csv",),
        task="poisson",
        target="TotalDeaths/1M pop",
        positive=None,
        drop=("Country", "Other names", "Total Cases", "Total Deaths", "Death percentage"),
        shipped=False,
        source="Kaggle COVID-19 coronavirus dataset (Worldometer figures, 2022)",
        licence=_NOT_STATED,
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "Countries; y = deaths per million (int), a rate fitted with Poisson "
            "loss; Continent is a nominal code 1-6, kept numeric as published"
        ),
        shape=(225, 3),
    ),
    DatasetInfo(
        name="bicycle",
        files=("bicycle.csv",),
        task="poisson",
        target="Total",
        positive=None,
        drop=(
            "Date", "Brooklyn Bridge", "Manhattan Bridge", "Williamsburg Bridge",
            "Queensboro Bridge",
        ),
        shipped=True,
        source=(
            "NYC Department of Transportation, bicycle counts for East River "
            "bridges (2016), NYC Open Data"
        ),
        licence=(
            "None stated on the file; daily counts published by a New York "
            "City agency, whose data the city's Open Data Law (Local Law 11 of "
            "2012, Admin. Code 23-502(d)) makes available without licence "
            "requirement or restrictions on use"
        ),
        paper_reg_lambda=None,
        paper_propositions=None,
        description=(
            "Days; y = Total cyclists over four bridges (int); the per-bridge "
            "counts sum to the target and are dropped, as is the spreadsheet-"
            "mangled Date"
        ),
        shape=(122, 4),
    ),
)

#: All benchmark datasets by name, in the order of the shared README.
DATASETS: dict[str, DatasetInfo] = {info.name: info for info in _INFOS}


def list_datasets() -> pd.DataFrame:
    """Summarise the benchmark datasets, one row each.

    Returns
    -------
    table : pandas.DataFrame of shape (n_datasets, 8)
        Columns ``name``, ``task``, ``target``, ``n_rows``, ``n_columns``
        (rows and feature columns of ``X`` as loaded with default arguments),
        ``shipped``, ``source`` and ``licence``.

    Examples
    --------
    >>> table = list_datasets()
    >>> table.loc[table["shipped"], "name"].tolist()  # doctest: +NORMALIZE_WHITESPACE
    ['titanic', 'tic_tac_toe', 'breast_cancer', 'banknote', 'magic', 'adult',
     'digits5', 'insurance', 'used_cars', 'diabetes', 'ships', 'covid_vic',
     'bicycle']
    """
    rows = [
        {
            "name": info.name,
            "task": info.task,
            "target": info.target,
            "n_rows": None if info.shape is None else info.shape[0],
            "n_columns": None if info.shape is None else info.shape[1],
            "shipped": info.shipped,
            "source": info.source,
            "licence": info.licence,
        }
        for info in DATASETS.values()
    ]
    return pd.DataFrame(rows)
