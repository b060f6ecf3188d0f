"""Objective functions of a candidate extent, computed from its sums.

A candidate query ``q`` is scored only through the sums over its extent
``I(q)``: ``G = sum g_i``, ``H = sum h_i`` and ``C = sum s_i`` (the weighted
count). Three objectives are provided, each identified by a small integer
code so that numba kernels can branch on it:

``"gradient_sum"`` (code 0)
    ``|G|``, the gradient sum objective ``|g^T q|`` of Yang et al. (2024),
    eq. 4 (the direction of steepest first-order descent).
``"gradient_boosting"`` (code 1)
    ``|G| / sqrt(C)``, the standard gradient-boosting objective
    ``|g^T q| / ||q||`` (Yang et al. 2024, Section 2): the cosine between
    the query vector and the gradient, up to ``||g||``.
``"second_order"`` (code 2)
    ``G^2 / (2 n (reg_lambda + H))``, the loss reduction of the second-order
    (XGBoost-style) approximation, Boley et al. (2021), eq. 2.3, with the
    rule weight ``-G / (reg_lambda + H)`` of eq. 2.2.

An empty extent (``C == 0``) has objective 0 under all three.

With several outputs (the classes of a multi-class target), a rule with a
*complete head* predicts one weight per output; its second-order
objective is the sum over outputs of the single-output one,
``sum_k G_k^2 / (2 n (reg_lambda + H_k))``, each weight
``-G_k / (reg_lambda + H_k)`` (Rapp et al. 2023, Section 2.4.2, for a
label-wise decomposable loss): :func:`_objective_complete`.

A fourth objective, ``"orthogonal"`` (``obj_ogb``, Yang et al. 2024,
eq. 14), depends on the queries already selected, not only on an extent's
sums; it has no code here and is scored by :mod:`rulebook.orthogonal`.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Section 2.3, equations 2.2 and 2.3.
.. [2] Yang, F., et al. (2024). Orthogonal gradient boosting for simpler
   additive rule ensembles. AISTATS. Section 2, eq. 4 and the objective
   ``obj_gb`` that follows it.
.. [3] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the efficient
   implementation of classification rule learning (BOOMER). Advances in
   Data Analysis and Classification. Section 2.4.2 (heads for several
   labels of a label-wise decomposable loss).
"""

import numpy as np

from ._config import jit

OBJECTIVES = {"gradient_sum": 0, "gradient_boosting": 1, "second_order": 2}


# Scored by rulebook.orthogonal (eq. 14 of Yang et al. 2024), not by _objective.
ORTHOGONAL = "orthogonal"


def check_objective(name):
    """Return ``name`` if it is an objective a boosting fit can use.

    Raises
    ------
    ValueError
        If ``name`` is neither in :data:`OBJECTIVES` nor ``"orthogonal"``.
    """
    if name == ORTHOGONAL or (isinstance(name, str) and name in OBJECTIVES):
        return name
    raise ValueError(f"objective={name!r} is not supported; valid objectives are "
                     f"{sorted([*OBJECTIVES, ORTHOGONAL])}")


def objective_code(name):
    """Integer code of the objective called ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not a known objective.
    """
    try:
        return OBJECTIVES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"objective={name!r} is not supported; valid objectives are {sorted(OBJECTIVES)}"
        ) from None


def search_code(name):
    """Code of the objective a :class:`~rulebook.search.SearchProblem` carries.

    The orthogonal objective is scored on channels (:mod:`rulebook.orthogonal`),
    never through a problem's code; its problems carry the gradient-boosting
    objective, which the orthogonal learner falls back to.

    Parameters
    ----------
    name : str
        An objective name (:data:`OBJECTIVES` or ``"orthogonal"``).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        If ``name`` is not a known objective.
    """
    return objective_code("gradient_boosting" if name == ORTHOGONAL else name)


@jit
def _objective(code, G, H, C, n, reg_lambda):
    """Scalar objective value; the one definition used by every kernel."""
    if C <= 0.0:
        return 0.0
    if code == 0:
        return abs(G)
    if code == 1:
        return abs(G) / np.sqrt(C)
    denominator = 2.0 * n * (reg_lambda + H)
    if denominator <= 0.0:
        return 0.0
    return G * G / denominator


@jit
def _objective_complete(stats, n_outputs, n, reg_lambda):
    """Second-order objective of a complete head: the sum over outputs.

    ``stats`` holds an extent's sums in the channels of
    :mod:`rulebook._multi_output_kernels` (``G_k`` at ``k``, ``H_k`` at
    ``n_outputs + k``, ``C`` at ``2 n_outputs``); 0 for an empty extent,
    and an output whose denominator vanishes adds 0, as in :func:`_objective`.
    """
    if stats[2 * n_outputs] <= 0.0:
        return 0.0
    value = 0.0
    for k in range(n_outputs):
        denominator = 2.0 * n * (reg_lambda + stats[n_outputs + k])
        if denominator > 0.0:
            value += stats[k] * stats[k] / denominator
    return value


def objective_value(name, G, H, C, n, reg_lambda):
    """Objective of extents given their sums (NumPy, vectorised).

    Parameters
    ----------
    name : {"gradient_sum", "gradient_boosting", "second_order"}
    G, H, C : float or ndarray of float64
        Sums over the extent of the gradients, Hessians and sample weights.
    n : float
        Total sample weight of the training data (``n`` in eq. 2.3).
    reg_lambda : float
        L2 regularisation of the rule weight (``lambda`` in eq. 2.3).

    Returns
    -------
    float or ndarray of float64
        Same shape as ``G``.

    Raises
    ------
    ValueError
        If ``name`` is unknown.
    """
    code = objective_code(name)
    G, H, C = (np.asarray(a, dtype=np.float64) for a in (G, H, C))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if code == 0:
            value = np.abs(G)
        elif code == 1:
            value = np.abs(G) / np.sqrt(C)
        else:
            denominator = 2.0 * n * (reg_lambda + H)
            value = np.where(denominator > 0, G * G / denominator, 0.0)
    value = np.where(C > 0, value, 0.0)
    return value[()] if value.ndim == 0 else value


def second_order_weight(G, H, reg_lambda):
    """Rule weight ``w = -G / (reg_lambda + H)`` (Boley et al. 2021, eq. 2.2).

    Returns 0 when the denominator vanishes (an empty extent without
    regularisation), where every weight is equally good.
    """
    denominator = reg_lambda + H
    return float(-G / denominator) if denominator > 0 else 0.0
