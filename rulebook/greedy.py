"""Greedy rule search: add the best proposition while the objective improves.

Starting from the query ``True`` (the whole data), every step scores all
propositions of all features on the current extent in one histogram pass
(:mod:`rulebook._search_kernels`) and adds the best one if it strictly
improves the objective and strictly shrinks the extent. This is the
baseline base learner of Boley et al. (2021), Section 4, and the
"greedy" rule optimisation of Yang et al. (2024), Section 4.

References
----------
.. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better short
   than greedy: interpretable models through optimal rule boosting. SDM.
   Sections 1 and 4.
"""

from dataclasses import dataclass

import numpy as np

from ._precompile import prepare as prepare_kernels
from .search import SearchResult
from .shortening import shortened


@dataclass(frozen=True)
class GreedyLearner:
    """Greedy refinement base learner (``learner="greedy"``).

    Parameters
    ----------
    shorten : bool, default=True
        Replace each round's query by an approximately shortest one with
        the same extent on the training data, as the optimal learner does
        (greedy refinement can add a condition that later ones make
        redundant). ``False`` keeps the refinement path as found, as in the
        papers' greedy learner.
    count_refinements : bool, default=False
        Refine a query at most ``max_rule_length`` times, each step adding
        one proposition, so that ``x > 2`` then ``x <= 5`` (one interval
        condition) takes two of them: BOOMER's ``max_conditions``, which
        counts comparisons (Rapp et al. 2023), as a tree's depth counts
        splits. ``False`` (the default) limits the columns only: at the
        limit, the intervals on the columns already used are narrowed for
        as long as that improves the objective, so a rule of two
        conditions may hold four thresholds. The limit in conditions
        (``max_rule_length``) holds either way; ``max_rule_length=None``
        lifts both. ``benchmarks/bench_multi_output.py`` sets it to compare
        rules of BOOMER's form side by side with BOOMER's.
    condition_cost : float >= 0, default=0.0
        A refinement after the query's first proposition (one more
        threshold, or one more nominal proposition) is kept only if it
        raises the objective by more than ``condition_cost`` times the
        round's noise level, the price of a threshold in
        ``OptimalLearner(condition_cost=...)``:
        :func:`rulebook.pair_search.condition_cost_of` with one output,
        :func:`rulebook.multi_output_search.condition_cost_of` with
        several. 0 keeps every refinement that improves the objective (the
        papers' greedy learner). Measured at 0.25 on 28 single-output
        datasets and four multi-output ones (``benchmarks/README.md``,
        session 27): shorter rules, better test scores on most. Needs the
        second-order objective (``objective="second_order"``, the
        default); a Dask fit sums the noise level over its workers' rows
        and prices as in memory.

    Raises
    ------
    ValueError
        If ``condition_cost`` is not a finite number >= 0 (at construction),
        or is above 0 for another objective (at the first search).

    References
    ----------
    .. [1] Boley, M., Teshuva, S., Le Bodic, P., Webb, G. I. (2021). Better
       short than greedy: interpretable models through optimal rule
       boosting. SDM. Section 3.2, last paragraph (shortest equivalent).
    .. [2] Rapp, M., Fürnkranz, J., Hüllermeier, E. (2023). On the
       efficient implementation of classification rule learning (BOOMER).
       Advances in Data Analysis and Classification. Section 2.4.1 and
       Algorithm 2 (top-down search, one condition added a step); the
       library's ``max_conditions`` limits those steps.
    """

    shorten: bool = True
    count_refinements: bool = False
    condition_cost: float = 0.0

    name = "greedy"

    def __post_init__(self):
        cost = self.condition_cost
        if isinstance(cost, (bool, np.bool_)) or not isinstance(cost, (int, float, np.number)) \
                or not (np.isfinite(cost) and cost >= 0):
            raise ValueError(f"GreedyLearner condition_cost must be a finite number >= 0; "
                             f"got {cost!r}")

    def search(self, problem):
        """Find a query by greedy refinement (:func:`greedy_search`), then
        shorten it (:func:`rulebook.shortening.shortened`) unless
        ``shorten=False``."""
        prepare_kernels("greedy")
        result = greedy_search(problem, self.max_refinements(problem),
                               self.refinement_price(problem))
        return shortened(problem, result) if self.shorten else result

    def refinement_price(self, problem):
        """The objective a refinement after the first must gain.

        Parameters
        ----------
        problem : rulebook.search.SearchProblem
            The round's problem, or a
            :class:`~rulebook.search.MultiOutputProblem`.

        Returns
        -------
        float >= 0
            ``condition_cost`` noise levels of ``problem``
            (:func:`rulebook.pair_search.condition_cost_of`, or
            :func:`rulebook.multi_output_search.condition_cost_of` with
            several outputs), in the objective's units; 0 when
            ``condition_cost`` is 0.

        Raises
        ------
        ValueError
            If ``condition_cost > 0`` and the problem's objective is not the
            second-order one.

        References
        ----------
        .. [1] Foster, D. P., George, E. I. (1994). The risk inflation
           criterion for multiple regression. The Annals of Statistics
           22(4), 1947-1975.
        """
        if not self.condition_cost > 0:
            return 0.0
        # Imported here: both modules import this one (the seed of their search).
        from . import multi_output_search, pair_search
        from .search import MultiOutputProblem, SearchProblem

        # A distributed problem (rulebook.dask) sums the noise level's parts
        # over its workers' rows (DistributedProblem.dispersion_sums).
        if not isinstance(problem, SearchProblem) or problem.objective != 2:
            raise ValueError(
                "GreedyLearner condition_cost > 0 needs the second-order objective "
                "(objective='second_order'); use condition_cost=0 with other objectives.")
        module = multi_output_search if isinstance(problem, MultiOutputProblem) else pair_search
        return module.condition_cost_of(problem, float(self.condition_cost))

    def max_refinements(self, problem):
        """The most propositions a query may gain in :meth:`search`:
        ``problem.max_rule_length`` if ``count_refinements`` (None when
        that is unlimited), else None."""
        return (problem.max_rule_length or None) if self.count_refinements else None


def greedy_search(problem, max_refinements=None, price=0.0):
    """Find a query by greedy refinement.

    Parameters
    ----------
    problem : SearchProblem
        Or a :class:`~rulebook.search.MultiOutputProblem`: the same
        search, scoring complete heads.
    max_refinements : int or None, default=None
        The most propositions to add (:meth:`GreedyLearner.max_refinements`:
        ``max_rule_length`` with ``count_refinements=True``); None for no
        limit but the conditions'.
    price : float >= 0, default=0.0
        The objective a refinement after the first must add to be kept
        (:meth:`GreedyLearner.refinement_price`); 0: any strict gain.

    Notes
    -----
    ``problem.max_rule_length`` limits the *conditions*, i.e. the columns a
    query constrains: once it has that many, refinements on those columns
    (``x > 2`` then ``x <= 5``, one interval condition) may still follow,
    up to ``max_refinements`` propositions in all. The optimal learner
    seeds its search with the query found without ``max_refinements``
    (the best greedy value within its search space).

    Returns
    -------
    SearchResult
        ``stats`` holds ``n_refinements`` (propositions scored) and
        ``n_steps`` (histogram passes).
    """
    rows = problem.rows
    value = problem.extent_value(rows)
    conditions = []
    n_scored, n_steps = 0, 0
    limit = problem.max_rule_length or np.inf
    hist, owned = problem.search_histograms(rows)
    used = np.zeros(len(problem.n_bins), bool)
    n_used = 0
    per_step = int(2 * problem.n_bins.sum())
    steps = np.inf if max_refinements is None else max_refinements
    while len(rows) > 1 and len(conditions) < steps:
        values, ops, bins = problem.best_refinements(hist, len(rows))
        n_steps += 1
        n_scored += per_step
        if n_used >= limit:
            # At the length limit only the columns already used may be
            # refined further (narrowing an interval adds no condition).
            values = np.where(used, values, -np.inf)
        j = _first_best(values)
        # The first proposition is free: whether a rule is worth adding at
        # all is the boosting loop's decision, not the refinement's.
        if not values[j] > value + (price if conditions else 0.0):
            break
        condition = (j, int(ops[j]), int(bins[j]))
        conditions.append(condition)
        n_used += not used[j]
        used[j] = True
        rows, removed = problem.split(rows, condition)
        # At the length limit only the columns used are refined from here on.
        hist = problem.refined_histograms(hist, rows, removed, owned,
                                          np.flatnonzero(used) if n_used >= limit else None)
        owned = True
        value = float(values[j])
    return SearchResult(tuple(conditions), value, rows,
                        {"n_refinements": n_scored, "n_steps": n_steps})


# Values this close (relative) to the best are ties: see _first_best.
TIE_TOLERANCE = 1e-12


def _first_best(values):
    """The lowest feature whose best value ties the maximum, to rounding.

    Two propositions with the same extent have the same objective, but
    their sums may be rounded differently (other bins; on sparse codes the
    zero bin is the total minus the stored entries, BOOMER Section 3.2), and
    an exact ``argmax`` would then pick one by the last bit. Within
    ``TIE_TOLERANCE`` of the maximum the lowest feature wins, so that a fit
    on a sparse matrix chooses the rules of the fit on its dense array.
    """
    best = values.max()
    return int(np.argmax(values >= best - TIE_TOLERANCE * abs(best)))
