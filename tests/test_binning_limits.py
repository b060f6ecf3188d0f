"""Binner limits: columns under ``max_bins`` keep every value, and the
``max_categories`` error says what the user can change.

(Kept apart from ``test_binning.py`` so that mutation testing of the
binning part, ``benchmarks/mutation.py``, runs them too.)
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebook.binning import Binner


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=2, max_size=60), st.integers(2, 12),
       st.lists(st.floats(0.01, 100), min_size=60, max_size=60))
def test_a_column_with_at_most_max_bins_values_gets_a_bin_per_value(values, max_bins, weights):
    """Whatever the weights: only with more distinct values than ``max_bins``
    does the binner merge values (by weight quantiles)."""
    x = np.array(values, float)
    weight = np.array(weights[: len(x)])
    distinct = np.unique(x)
    binner = Binner(max_bins=max_bins)
    codes = binner.fit_transform(pd.DataFrame({"x": x}), weight)[:, 0]
    if len(distinct) <= max_bins:
        assert binner.n_bins_[0] == len(distinct)
        np.testing.assert_array_equal(codes, np.searchsorted(distinct, x))
    else:
        assert binner.n_bins_[0] <= max_bins


def test_a_skewed_column_under_max_bins_keeps_its_rare_values():
    # 98% of the weight on one value: weight quantiles would cut nowhere.
    x = np.r_[np.zeros(98), 1.0, 2.0]
    binner = Binner(max_bins=4)
    codes = binner.fit_transform(pd.DataFrame({"x": x}), np.ones(len(x)))[:, 0]
    assert binner.n_bins_[0] == 3
    assert codes[-2:].tolist() == [1, 2]


def test_too_many_categories_suggests_raising_a_limit_the_user_set():
    frame = pd.DataFrame({"s": list("abcdabcd")})
    with pytest.raises(ValueError, match="raise max_categories if every category matters"):
        Binner(max_categories=3).fit_transform(frame, np.ones(len(frame)))
    with pytest.raises(ValueError, match="more than max_categories=2;"):
        Binner(max_categories=2).fit_transform(frame, np.ones(len(frame)))


def test_max_bins_none_allows_exactly_the_bins_uint16_codes_hold():
    """65535 distinct values make 65535 bins, whose missing bin is code
    65535, the largest uint16; one value more cannot be binned."""
    x = np.arange(65535, dtype=float)
    binner = Binner(max_bins=None)
    codes = binner.fit_transform(pd.DataFrame({"x": x}), np.ones(len(x)))
    assert binner.n_bins_[0] == 65535
    np.testing.assert_array_equal(codes[:, 0], np.arange(65535))
    x = np.arange(65536, dtype=float)
    with pytest.raises(ValueError, match="more than 65535 bins"):
        Binner(max_bins=None).fit_transform(pd.DataFrame({"x": x}), np.ones(len(x)))
