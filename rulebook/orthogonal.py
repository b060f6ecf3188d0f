"""Orthogonal gradient boosting: the learner of ``learner="orthogonal"``.

Corrective orthogonal boosting (COB, Yang et al. 2024, Algorithm 1) re-fits
all rule weights after each rule (:mod:`rulebook.corrective`) and chooses
the next query by the orthogonal gradient boosting objective (eq. 14)

    obj_ogb(q) = |g_perp^T q| / (||q_perp|| + epsilon),

the angle between the gradient and the part of the query vector orthogonal
to the queries already selected (and the intercept). Proposition 1: for
``epsilon -> 0`` its maximiser gives the best approximation to the ideal
corrective gradient step. By default (``OrthogonalLearner(ridge=
"reg_lambda")``, our extension) the denominator is ``sqrt(||q_perp||^2 +
reg_lambda / kappa) + epsilon``, the risk reduction of the corrective step
the ridge-penalised re-fit actually takes (:func:`ridge_term`).

This module holds the learner, :class:`OrthogonalLearner`, and its state
over the rounds of a fit, :class:`OrthogonalRounds` (the basis of the
selected queries, the fallback objective), besides :class:`BeamLearner`
(beam search for the standard objectives). What they use lives in

* :mod:`rulebook.orthogonal_objective`: :class:`OrthogonalBasis`, the
  orthonormal basis of the selected query vectors (Section 3.3);
  :class:`ChannelProblem`, the channels that score every proposition of a
  node in one histogram pass (Proposition 3); :func:`ridge_term` and
  :func:`length_factors`;
* :mod:`rulebook.orthogonal_search`: the searches, greedy, beam (width
  ``w``) and branch and bound with the paper's prefix-greedy bound
  (Algorithm 2);
* :mod:`rulebook.orthogonal_outputs`: the objective and branch and bound
  of rules of several outputs.

Their names are importable from here too, as before they moved.

References
----------
.. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
   gradient boosting for simpler additive rule ensembles. AISTATS.
   Section 3.2 (Proposition 1, eq. 13-14), Section 3.3 (Proposition 3,
   Algorithms 1-3), Appendix B (the prefix-greedy bound is a heuristic).
.. [2] Khuller, S., Moss, A., Naor, J. (1999). The budgeted maximum
   coverage problem. Information Processing Letters 70(1), 39-45 (gain per
   unit cost: :func:`length_factors`).
"""

from dataclasses import dataclass, replace

import numpy as np

from . import greedy
from ._precompile import prepare as prepare_kernels
from .objectives import OBJECTIVES
from .orthogonal_objective import (  # noqa: F401
    _MAX_TABULATED_LENGTH,
    _TIE_DIGITS,
    ChannelProblem,
    OrthogonalBasis,
    length_factors,
    ridge_term,
)
from .orthogonal_outputs import OutputChannelProblem, output_branch_and_bound
from .orthogonal_search import (  # noqa: F401
    _UNLIMITED,
    ROOT_CHILDREN_MIN_ATOMS,
    _as_int,
    _AtomIndex,
    _atoms,
    _bound_channels,
    _child,
    _depth_limit,
    _key,
    _Node,
    _only_features,
    _root_children,
    _row_codes,
    _row_keys,
    beam_search,
    branch_and_bound,
    greedy_search,
)
from .search import LearnerRounds, MultiOutputProblem
from .shortening import shortened

# The names of orthogonal_objective and orthogonal_search imported above
# (noqa: F401) are re-exported: they were defined here before the module
# was split, and tests, benchmarks and users import them from here.

SEARCHES = ("greedy", "beam", "branch_and_bound")
# A round whose orthogonal objective is this small relative to sum |g|
# falls back to the gradient-boosting objective (OrthogonalRounds); the
# boosting loop's own stopping tolerance.
_FALLBACK_TOLERANCE = 1e-12
BOUNDS = ("prefix_greedy", "none")
LENGTH_PENALTIES = ("none", "complexity")
RIDGES = ("none", "reg_lambda")


@dataclass(frozen=True)
class OrthogonalLearner:
    """Base learner of corrective orthogonal boosting (``learner="orthogonal"``).

    Maximises the orthogonal gradient boosting objective ``obj_ogb``
    (Yang et al. 2024, eq. 14) over conjunctions of binned propositions.
    The boosting loop keeps the orthonormal basis of the selected queries
    and, with ``weight_update="auto"``, re-fits all weights after each rule
    (corrective update, eq. 7): together, COB (Algorithm 1).

    Parameters
    ----------
    strategy : {"greedy", "beam", "branch_and_bound"}, default="branch_and_bound"
        The search: greedy refinement (the paper's COB_G), beam search of
        width ``beam_width``, or best-first branch and bound with the
        prefix-greedy bound (the paper's COB_B, Algorithm 2 with
        ``w = inf``; the bound is a heuristic, Appendix B, see
        :func:`branch_and_bound`), compiled end to end.
    beam_width : int >= 1, default=5
    epsilon : float > 0, default=1e-3
        The regulariser ``epsilon`` of eq. 14, in units of
        ``sqrt(sample weight)``: it keeps redundant queries
        (``||q_perp|| = 0``) from dividing by zero and, when large, moves
        the objective toward the gradient sum (Proposition 5b). The paper
        gives no value for its experiments (Section 4); 1e-3 is small
        against ``||q_perp||`` of most extents (in units of
        ``sqrt(weight)``), so it mainly guards the division.
    bound : {"prefix_greedy", "none"}, default="prefix_greedy"
        Bound of ``strategy="branch_and_bound"``; ``"none"`` is exhaustive.
    max_nodes : int >= 1 or None, default=300
        Node budget (expansions per rule) of ``strategy="branch_and_bound"``;
        the paper sets none. Chosen by measurement on the reproduction
        protocol of Table 5 (``benchmarks/reproduce_tables.py --table yang``,
        2 splits, 25 rules, 16 datasets on which the optimal learner is
        fast): budgets 100, 300, 1,000 and 2,000 all gave the lowest test
        risk (mean over complexities 1-50, below both greedy and optimal
        boosting) on 11 of the 16, so the budget was chosen for time: with
        300 the fit time was within 3x the optimal learner's on 16 of 16,
        with 1,000 on 14 (100 and 2,000 were measured on an earlier, slower
        build: 15 and 6; ``bound="none"`` with 300 nodes: 15 and 11 wins).
        Most rounds exhaust the budget: the result is anytime, not
        certified, as in the optimal learner with a time limit.
    memory_limit : float > 0 or None, default=1024
        Most mebibytes (2^20 bytes) of a round's growing search state in
        ``strategy="branch_and_bound"``: per node its rows (a bitset, one
        bit per atom), per node whose refinements were scanned its channel
        histograms (8 bytes per bin, channel and column) and its sorted
        refinements, plus the queue and the table of extents seen. None:
        no cap. The search stops, as at ``max_nodes``, before an expansion
        (counted with the root's rows and every refinement a node can have)
        or the record of a popped query that could take them past it, and
        returns the best query found (``history_["memory_exhausted"]``).
        Only nodes whose first refinement comes up are scanned (most are
        not: at 10^6 rows, the root alone in most rounds), so the
        histograms (about 0.8 MB per scanned node on 30 columns of 255
        bins late in a fit) take far less than ``max_nodes`` of them; the
        pools grow by doubling up to ``max_nodes`` nodes, no further. Peak
        resident memory of a default fit at 10^6 rows x 20 columns: under
        1 GiB, the table included (``benchmarks/bench_scale.py``).
    length_penalty : {"complexity", "none"}, default="complexity"
        What a rule's conditions cost in the search. ``"complexity"``: each
        round takes the query of the largest ``obj_ogb^2 / (1 + c)`` for
        ``c`` conditions (columns), the estimated risk reduction
        (Proposition 1) per unit of the complexity the rule adds (rules
        plus conditions, Section 2; :func:`length_factors`), so a condition
        is added only when it pays for itself. ``"none"``: the query of the
        largest ``obj_ogb``, whatever its length (the paper's COB; the
        default before session 22). Every strategy applies it, with one
        output or several. Measured (``benchmarks/bench_orthogonal.py``,
        24 datasets, 5 random 80/20 splits, 25 rules, no length limit;
        ``benchmarks/README.md``, "fastogb side by side"): against
        ``"none"``, mean test risk over complexities 1-50 lower by more
        than two standard errors of the paired split differences on 5
        datasets (tic_tac_toe 0.719 -> 0.653, gender_recognition,
        used_cars, demographics, world_happiness; wine 0.383 -> 0.277 at
        2.0 standard errors), higher on one
        (suicide_rates, 0.714 -> 0.715), within noise on the rest; fits
        as fast or faster (wine 0.47 -> 0.04 s). At the estimators'
        ``max_rule_length="auto"`` the same picture (5 lower, 1 higher:
        suicide_rates by 0.001).
    ridge : {"reg_lambda", "none"}, default="reg_lambda"
        ``"reg_lambda"``: score queries by ``|g_perp^T q| /
        (sqrt(||q_perp||^2 + ridge) + epsilon)`` with ``ridge =
        reg_lambda / kappa`` (``kappa``: the mean Hessian per unit of
        sample weight, 2 for the squared loss), the risk reduction of the
        *regularised* corrective step, which the ridge-penalised re-fit
        actually takes, rather than of the ideal one (Proposition 1); it
        penalises queries of small ``||q_perp||`` (few rows, or nearly in
        the span of the rules so far) as the re-fit will (derivation:
        :func:`ridge_term`; our extension, not the paper's). ``"none"``:
        eq. 14 (the paper's objective; the default before session 23).
        Measured (``benchmarks/bench_orthogonal.py``, 24 datasets, 25
        rules, ``reg_lambda=1``, no length limit; ``benchmarks/README.md``,
        "fastogb side by side"): against ``"none"``, mean test risk over
        complexities 1-50 lower by more than two standard errors of the
        paired split differences on 3 datasets with 5 splits (banknote,
        adult, insurance, by 0.001-0.003) and 4 with 10 (wine 0.271 ->
        0.244 too), higher on 1 with 5 splits (world_happiness, 0.280 ->
        0.290; +0.006 at 1.9 standard errors with 10), within noise
        elsewhere; against fastogb the same 17 of 24 datasets; fit times
        unchanged. The effect is small at ``reg_lambda=1``: the ridge is
        half a row's weight for the squared loss (``kappa = 2``), four or
        more for the logistic loss (``kappa <= 1/4``), against
        ``||q_perp||^2`` of tens to thousands of rows for most queries.

    Raises
    ------
    ValueError
        On an invalid option (at construction), naming it and its valid
        values.

    Notes
    -----
    The figures below are of ``length_penalty="none"`` and ``ridge="none"``
    (before session 22).
    On all 27 datasets of the protocol (5 random 80/20 splits, 25 rules;
    ``benchmarks/results/reproduction_yang_v2_5splits/``,
    ``benchmarks/README.md``) this preset had a lower mean test risk over
    complexities 1-50 than both greedy and optimal boosting on 22 of 27
    datasets (not on tic_tac_toe, iris, wine, insurance, gdp), and fitted
    within 3x the optimal learner's time (2 s per rule limit) on 23 of 27
    (over 3x where optimal needs well under a second: tic_tac_toe 4.7,
    ships 3.2, friedman2 3.2, suicide_rates 3.1). The paper: COB_B best on
    23 of 34 datasets; its time within 2x of SXB's on half and 5x on all but
    one (Section 4, Table 5 and Fig. 6).

    References
    ----------
    .. [1] Yang, F., Le Bodic, P., Kamp, M., Boley, M. (2024). Orthogonal
       gradient boosting for simpler additive rule ensembles. AISTATS.
       Section 3.2 (eq. 14, Proposition 1), Section 3.3 (Algorithms 1-3),
       Appendix B; Section 2 (complexity: rules plus conditions).
    .. [2] Khuller, S., Moss, A., Naor, J. (1999). The budgeted maximum
       coverage problem. Information Processing Letters 70(1), 39-45 (the
       greedy choice by gain per unit cost; ``length_penalty``).

    Examples
    --------
    >>> from rulebook import OrthogonalLearner, RuleBoostingRegressor
    >>> from rulebook.datasets import load_used_cars
    >>> X, y = load_used_cars()
    >>> model = RuleBoostingRegressor(n_rules=3, learner=OrthogonalLearner(strategy="greedy"),
    ...                               verbose=0)
    >>> len(model.fit(X, y).ensemble_)
    3
    """

    strategy: str = "branch_and_bound"
    beam_width: int = 5
    epsilon: float = 1e-3
    bound: str = "prefix_greedy"
    max_nodes: int = 300
    memory_limit: float | None = 1024
    length_penalty: str = "complexity"
    ridge: str = "reg_lambda"

    name = "orthogonal"
    objective = "orthogonal"
    # Its searches score channel histograms, never the search problem's
    # own, so the boosting loop needs no row-major copy of the bins for it.
    uses_row_major_bins = False

    def __post_init__(self):
        if self.strategy not in SEARCHES:
            raise ValueError(f"strategy={self.strategy!r} is not supported; valid strategies are "
                             f"{list(SEARCHES)}.")
        if self.length_penalty not in LENGTH_PENALTIES:
            raise ValueError(f"length_penalty={self.length_penalty!r} is not supported; valid "
                             f"length penalties are {list(LENGTH_PENALTIES)}.")
        if self.ridge not in RIDGES:
            raise ValueError(f"ridge={self.ridge!r} is not supported; valid ridges are "
                             f"{list(RIDGES)}.")
        if self.bound not in BOUNDS:
            raise ValueError(f"bound={self.bound!r} is not supported; valid bounds are "
                             f"{list(BOUNDS)}.")
        if not _positive_int(self.beam_width):
            raise ValueError(f"beam_width must be an int >= 1; got {self.beam_width!r}.")
        if self.max_nodes is not None and not _positive_int(self.max_nodes):
            raise ValueError(f"max_nodes must be an int >= 1 or None; got {self.max_nodes!r}.")
        if not (isinstance(self.epsilon, (int, float)) and np.isfinite(self.epsilon)
                and self.epsilon > 0):
            raise ValueError(f"epsilon must be a finite number > 0; got {self.epsilon!r}.")
        if self.memory_limit is not None and not (
                isinstance(self.memory_limit, (int, float, np.integer, np.floating))
                and not isinstance(self.memory_limit, bool)
                and np.isfinite(self.memory_limit) and self.memory_limit > 0):
            raise ValueError(f"memory_limit must be a positive number of mebibytes or None; "
                             f"got {self.memory_limit!r}.")

    def search_channels(self, problem, atom_index=None):
        """Run the configured search on a :class:`ChannelProblem`
        (``atom_index``: see :func:`branch_and_bound`)."""
        factor = self.length_factor()
        if self.strategy == "greedy":
            return greedy_search(problem, factor)
        if self.strategy == "beam":
            return beam_search(problem, self.beam_width, factor)
        prepare_kernels("orthogonal")
        return branch_and_bound(problem, self.bound, self.max_nodes, self.memory_limit,
                                atom_index, factor)

    def length_factor(self):
        """The searches' length factors (:func:`length_factors`), one
        output or several; None with ``length_penalty="none"`` (all ones:
        the searches score the plain objective)."""
        if self.length_penalty == "none":
            return None
        return length_factors(self.length_penalty)

    def ridge_of(self, problem):
        """The ridge term of ``problem``'s objective (:func:`ridge_term`;
        0 with ``ridge="none"``)."""
        if self.ridge == "none":
            return 0.0
        rows = problem.rows
        return ridge_term(float(problem.reg_lambda), np.asarray(problem.h)[rows],
                          np.asarray(problem.c)[rows])

    def search(self, problem):
        """Search a plain :class:`~rulebook.search.SearchProblem`; the query
        comes shortened (:func:`rulebook.shortening.shortened`).

        Without a basis (outside the boosting loop) the orthogonal objective
        has only the intercept to project out.
        """
        basis = OrthogonalBasis(problem.c, 0)
        return shortened(problem, self.search_channels(
            ChannelProblem.orthogonal(problem, basis, self.epsilon, self.ridge_of(problem))))

    def start_rounds(self, sample_weight, n_rules, base_columns=None):
        """The learner's searches over one fit (:class:`OrthogonalRounds`)."""
        return OrthogonalRounds(self, sample_weight, n_rules, base_columns)


class OrthogonalRounds(LearnerRounds):
    """The orthogonal learner over the rounds of a fit (Yang et al. 2024, Algorithm 1).

    Keeps the orthonormal basis of the selected queries' indicator vectors;
    each round's objective is scored on channels of it
    (:meth:`ChannelProblem.orthogonal`).

    With ``reg_lambda > 0`` the re-fitted gradient need not be orthogonal to
    the selected queries (Proposition 4 of Yang et al. holds for
    ``reg_lambda = 0``) and can even lie in their span: every ``obj_ogb``
    is then 0 although a new rule still lowers the regularised risk
    wherever ``q^T g != 0`` (seen on breast_cancer after 8 rules). Such a
    round falls back to the gradient-boosting objective ``|g^T q| / ||q||``
    (``history_`` column ``objective_fallback``) instead of stopping.

    Parameters
    ----------
    learner : OrthogonalLearner
    sample_weight : ndarray of shape (n_samples,), float64
    n_rules : int
    base_columns : ndarray of shape (n_samples, p), float64, optional
        Fixed base terms of the model (linear terms): in the basis from the
        start, with the intercept's direction, since the corrective re-fit
        fits them with every rule (the orthogonal objective scores only what
        they and the rules cannot fit already).
    """

    def __init__(self, learner, sample_weight, n_rules, base_columns=None):
        super().__init__(learner)
        # The atoms of the rows searched, the same every round (_AtomIndex).
        self._atom_index = None
        p = 0 if base_columns is None else base_columns.shape[1]
        self.basis = OrthogonalBasis(sample_weight, n_rules + p)
        for j in range(p):
            self.basis.add(base_columns[:, j])

    def search(self, problem):
        """The round's query by the orthogonal objective (or the fallback), shortened."""
        learner = self.learner
        if isinstance(problem, MultiOutputProblem):
            return self._search_outputs(problem)
        channels = ChannelProblem.orthogonal(problem, self.basis, learner.epsilon,
                                             learner.ridge_of(problem))
        channels.transient = True
        if learner.strategy == "branch_and_bound" and (
                self._atom_index is None or not self._atom_index.fits(channels)):
            base = channels.base
            self._atom_index = _AtomIndex(base.X_binned, base.rows, base.n_bins)
        result = learner.search_channels(channels, self._atom_index)
        if not result.value > _FALLBACK_TOLERANCE * np.abs(problem.g).sum():
            # A new problem, not the loop's with its objective changed.
            fallback = replace(problem, objective=OBJECTIVES["gradient_boosting"])
            result = learner.search_channels(ChannelProblem.standard(fallback), self._atom_index)
            result.stats = {**result.stats, "objective_fallback": True}
        return shortened(problem, result)

    def _search_outputs(self, problem):
        """:meth:`search` with several outputs: the objective of
        :mod:`rulebook.orthogonal_outputs` for the problem's head; the
        fallback is the greedy search of the second-order objective of
        several outputs (the gradient-boosting objective of one output is
        not defined for them)."""
        learner = self.learner
        channels = OutputChannelProblem.orthogonal(problem, self.basis, learner.epsilon,
                                                   learner.ridge_of(problem))
        channels.transient = True
        if learner.strategy == "branch_and_bound":
            result = output_branch_and_bound(channels, learner.max_nodes, learner.bound,
                                             learner.memory_limit, learner.length_factor())
        else:
            result = learner.search_channels(channels)
        if not result.value > _FALLBACK_TOLERANCE * np.abs(problem.g).sum():
            result = greedy.greedy_search(problem)
            result.stats = {**result.stats, "objective_fallback": True}
        return shortened(problem, result)

    def added(self, rows):
        """Adds the rule's indicator vector to the basis."""
        q = np.zeros(len(self.basis.sample_weight))
        q[rows] = 1.0
        self.basis.add(q)

    def progress(self, problem, result):
        """The projected gradient's objective: ``g^T q`` itself is ~0 for a
        query in the span of the rules after a corrective re-fit."""
        return result.value


@dataclass(frozen=True)
class BeamLearner:
    """Beam search for the standard objectives (``search="beam"``).

    Parameters
    ----------
    width : int >= 1, default=5

    Raises
    ------
    ValueError
        If ``width`` is not a positive int.
    """

    width: int = 5
    name = "beam"

    def __post_init__(self):
        if not _positive_int(self.width):
            raise ValueError(f"width must be an int >= 1; got {self.width!r}.")

    def search(self, problem):
        """Beam search with the problem's own objective (:func:`beam_search`);
        the query comes shortened (:func:`rulebook.shortening.shortened`)."""
        return shortened(problem, beam_search(ChannelProblem.standard(problem), self.width))


def _positive_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 1
