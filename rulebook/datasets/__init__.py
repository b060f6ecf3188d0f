"""Benchmark datasets and synthetic problems of the rule-boosting papers.

Every loader returns ``(X, y)``: a :class:`pandas.DataFrame` of features with
their original column names (nominal columns stay strings, missing values
stay NaN unless ``dropna=True``) and a :class:`pandas.Series` named as the
target. Thirteen datasets ship with the package, gzipped, and load by name
(``load_dataset("adult")``); the other eleven load from a directory of the
published CSV files (``data_home``). ``rulebook/datasets/data/README.md``
gives each shipped file's source and licence, and why the others do not
ship.

Registry
--------
DATASETS         Facts about each dataset (:class:`DatasetInfo`).
list_datasets    One-row-per-dataset summary table.
load_dataset     Load any registered dataset by name.
dataset_files    Paths of a dataset's CSV files, as published.

Named loaders of shipped datasets
---------------------------------
load_titanic, load_tic_tac_toe, load_breast_cancer, load_insurance,
load_used_cars, load_diabetes, load_ships

Multi-label and multi-output regression data
--------------------------------------------
MULTI_OUTPUT_DATASETS, load_multi_output (emotions, yeast, enron, atp7d),
load_emotions, load_atp7d: features and a frame of targets.

Synthetic problems
------------------
make_noisy_parity, make_friedman1, make_friedman2, make_friedman3
"""

from ._generators import make_friedman1, make_friedman2, make_friedman3, make_noisy_parity
from ._loaders import dataset_files, load_dataset
from ._multi_output import MULTI_OUTPUT_DATASETS, load_atp7d, load_emotions, load_multi_output
from ._registry import DATASETS, DatasetInfo, list_datasets
from ._shipped import (
    load_breast_cancer,
    load_diabetes,
    load_insurance,
    load_ships,
    load_tic_tac_toe,
    load_titanic,
    load_used_cars,
)

__all__ = [
    "DATASETS",
    "DatasetInfo",
    "list_datasets",
    "load_dataset",
    "dataset_files",
    "load_titanic",
    "load_tic_tac_toe",
    "load_breast_cancer",
    "load_insurance",
    "load_used_cars",
    "load_diabetes",
    "load_ships",
    "MULTI_OUTPUT_DATASETS",
    "load_multi_output",
    "load_emotions",
    "load_atp7d",
    "make_noisy_parity",
    "make_friedman1",
    "make_friedman2",
    "make_friedman3",
]
