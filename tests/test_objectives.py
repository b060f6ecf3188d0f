"""Objective functions: the numba scalar against the NumPy definition."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rulebook.objectives import (
    OBJECTIVES,
    _objective,
    objective_code,
    objective_value,
    second_order_weight,
)

NAMES = ("gradient_sum", "gradient_boosting", "second_order")

finite = dict(allow_nan=False, allow_infinity=False)
G_values = st.one_of(st.sampled_from([0.0, -1.0, 1.0, 3.0]), st.floats(-1e6, 1e6, **finite))
H_values = st.one_of(st.sampled_from([0.0, 0.5, 2.0]), st.floats(0.0, 1e6, **finite))
C_values = st.one_of(st.sampled_from([0.0, 0.0, 1.0, 4.0]), st.floats(0.0, 1e6, **finite))
n_values = st.one_of(st.sampled_from([1.0, 10.0]), st.floats(1e-3, 1e6, **finite))
lambda_values = st.one_of(st.sampled_from([0.0, 0.0, 0.01, 1.0, 100.0]), st.floats(0.0, 1e3, **finite))
extents = st.tuples(G_values, H_values, C_values, n_values, lambda_values)


def _same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def test_objective_codes_are_the_documented_ones():
    assert OBJECTIVES == {"gradient_sum": 0, "gradient_boosting": 1, "second_order": 2}
    for name, code in OBJECTIVES.items():
        assert objective_code(name) == code


@pytest.mark.parametrize("name", ["nope", "", "Second_Order", None, ["second_order"]])
def test_unknown_objective_raises_listing_valid_names(name):
    with pytest.raises(ValueError, match="gradient_sum") as info:
        objective_code(name)
    for valid in NAMES:
        assert valid in str(info.value)
    with pytest.raises(ValueError):
        objective_value(name, 1.0, 1.0, 1.0, 1.0, 0.0)


# G^2 / (2 n (lambda + H)) overflows to inf for a near-zero H and lambda = 0;
# NumPy warns about it, the kernel does not. Both must return the same inf.
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@settings(max_examples=300, deadline=None)
@given(extents)
def test_numba_objective_equals_numpy_definition(extent):
    G, H, C, n, reg_lambda = extent
    for name in NAMES:
        expected = float(objective_value(name, G, H, C, n, reg_lambda))
        got = _objective(objective_code(name), G, H, C, n, reg_lambda)
        assert _same(got, expected), (name, extent, got, expected)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@settings(max_examples=200, deadline=None)
@given(extents)
def test_objective_formulas(extent):
    G, H, C, n, reg_lambda = extent
    values = {name: float(objective_value(name, G, H, C, n, reg_lambda)) for name in NAMES}
    if C == 0:
        # An empty extent is worth nothing under every objective.
        assert values == {name: 0.0 for name in NAMES}
        return
    assert values["gradient_sum"] == abs(G)
    assert values["gradient_boosting"] == abs(G) / math.sqrt(C)
    denominator = 2.0 * n * (reg_lambda + H)
    if denominator > 0:
        with np.errstate(over="ignore"):
            assert values["second_order"] == np.float64(G) * G / denominator
    else:
        # lambda + H == 0, or so small that the denominator underflows.
        assert values["second_order"] == 0.0


@settings(max_examples=200, deadline=None)
@given(extents)
def test_second_order_is_reduction_of_quadratic_at_optimal_weight(extent):
    # Boley et al. (2021), eq. 2.2-2.3: the quadratic approximation of the
    # regularised loss change is G w + (lambda + H) w^2 / 2; its minimiser is
    # w* = -G / (lambda + H) and the objective is the reduction at w*, over n.
    G, H, C, n, reg_lambda = extent
    C = max(C, 1.0)
    a = reg_lambda + H
    # Away from the float64 extremes, where G^2 or w^2 under/overflows.
    assume(G == 0 or 1e-100 < abs(G))
    assume(a == 0 or 1e-100 < a)
    w = second_order_weight(G, H, reg_lambda)

    def quadratic(v):
        return G * v + a * v * v / 2.0

    if a == 0:
        assert w == 0.0
        assert objective_value("second_order", G, H, C, n, reg_lambda) == 0.0
        return
    assert w == -G / a
    reduction = -quadratic(w) / n
    np.testing.assert_allclose(
        objective_value("second_order", G, H, C, n, reg_lambda), reduction, rtol=1e-12, atol=1e-300
    )
    # w* is the minimiser: moving it either way never lowers the quadratic.
    step = 1e-3 * max(1.0, abs(w))
    assert quadratic(w) <= quadratic(w + step) + 1e-12 * abs(quadratic(w))
    assert quadratic(w) <= quadratic(w - step) + 1e-12 * abs(quadratic(w))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@settings(max_examples=50, deadline=None)
@given(st.lists(extents, min_size=1, max_size=8))
def test_objective_value_is_vectorised_elementwise(rows):
    G, H, C, _, _ = (np.array(column) for column in zip(*rows))
    n, reg_lambda = rows[0][3], rows[0][4]
    for name in NAMES:
        vector = objective_value(name, G, H, C, n, reg_lambda)
        assert vector.shape == G.shape
        assert vector.dtype == np.float64
        for k in range(len(G)):
            assert _same(vector[k], float(objective_value(name, G[k], H[k], C[k], n, reg_lambda)))


def test_scalar_input_gives_scalar_output():
    value = objective_value("gradient_boosting", -3.0, 1.0, 4.0, 10.0, 0.0)
    assert np.ndim(value) == 0
    assert value == 1.5


def test_second_order_weight_without_curvature_is_zero():
    assert second_order_weight(5.0, 0.0, 0.0) == 0.0
    assert second_order_weight(-4.0, 1.0, 1.0) == 2.0
    assert isinstance(second_order_weight(np.float64(-4.0), 1.0, 1.0), float)


def test_check_objective_accepts_every_name_by_value_not_identity():
    """Names read from a file or built at run time are new string objects:
    accepted by equality, as a literal is."""
    from rulebook.objectives import check_objective

    for name in (*NAMES, "orthogonal"):
        built = "".join(list(name))  # equal, but not the interned literal
        assert check_objective(built) == name
    for bad in ("Orthogonal", "orthogonal ", None, 2):
        with pytest.raises(ValueError, match="orthogonal"):
            check_objective(bad)
