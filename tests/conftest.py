"""Shared hypothesis strategies for binned search problems."""

import numpy as np
from hypothesis import strategies as st

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
