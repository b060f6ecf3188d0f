"""The named base learners. ``learner=`` of the estimators picks one.

A learner is an object with a method ``search(problem: SearchProblem) ->
SearchResult``; its options are its constructor's arguments (for example a
node budget for the optimal learner), so the estimators need no parameter per
learner option. ``learner="greedy"`` is short for ``learner=GreedyLearner()``.
The optimal and orthogonal learners register here too.
"""

from .greedy import GreedyLearner
from .objectives import ORTHOGONAL, check_objective
from .optimal import OptimalLearner
from .orthogonal import SEARCHES, BeamLearner, OrthogonalLearner

LEARNERS = {
    "greedy": GreedyLearner,
    "optimal": OptimalLearner,
    "orthogonal": OrthogonalLearner,
}
WEIGHT_UPDATES = ("auto", "stagewise", "corrective")
# The search each named learner stands for, when combined with another
# objective than its own.
_PRESET_SEARCH = {"greedy": "greedy", "optimal": "branch_and_bound"}
_STANDARD_SEARCH = {"greedy": GreedyLearner, "beam": BeamLearner,
                    "branch_and_bound": OptimalLearner}


def get_learner(learner):
    """The learner object for a name or an already configured instance.

    Raises
    ------
    ValueError
        If ``learner`` is neither a registered name nor an object with a
        ``search`` method.
    """
    if hasattr(learner, "search") and not isinstance(learner, type):
        return learner
    try:
        return LEARNERS[learner]()
    except (KeyError, TypeError):
        raise ValueError(
            f"learner={learner!r} is not available; valid learners are {sorted(LEARNERS)} "
            "or a configured learner object such as GreedyLearner()."
        ) from None


def resolve_learner(learner, objective, search=None, weight_update="auto"):
    """The learner object, objective and weight update a fit uses.

    Combines the presets (``learner="greedy" | "optimal" | "orthogonal"``)
    with the ablation parameters of Yang et al. (2024), Section 4:

    * ``learner="orthogonal"`` (or an :class:`OrthogonalLearner`) is
      corrective orthogonal boosting: objective ``"orthogonal"`` whatever
      ``objective`` says, corrective weight update unless
      ``weight_update="stagewise"``.
    * ``objective="orthogonal"`` with ``learner="greedy"`` or
      ``"optimal"`` searches the orthogonal objective greedily or by branch
      and bound (with the paper's heuristic bound).
    * ``search`` replaces the named learner's search: ``"greedy"``,
      ``"beam"`` (width 5; pass ``BeamLearner(width=...)`` or
      ``OrthogonalLearner(strategy="beam", beam_width=...)`` for others) or
      ``"branch_and_bound"`` (the optimal learner for the standard
      objectives).
    * ``weight_update="auto"`` is corrective for the orthogonal objective,
      stagewise otherwise.

    Returns
    -------
    learner : learner object
    objective : str
    weight_update : {"stagewise", "corrective"}

    Raises
    ------
    ValueError
        Unknown learner, objective, search or weight update; ``search``
        combined with a learner object (configure the object instead).
    """
    if search is not None and search not in SEARCHES:
        raise ValueError(f"search={search!r} is not supported; valid searches are "
                         f"{[None, *SEARCHES]}.")
    if weight_update not in WEIGHT_UPDATES:
        raise ValueError(f"weight_update={weight_update!r} is not supported; valid weight "
                         f"updates are {list(WEIGHT_UPDATES)}.")
    objective = check_objective(objective)
    named = isinstance(learner, str)
    if search is not None and not named:
        raise ValueError("search= applies to a learner given by name; configure the learner "
                         f"object {learner!r} instead.")
    base = get_learner(learner)
    if getattr(base, "objective", None) == ORTHOGONAL:
        objective = ORTHOGONAL
        if search is not None:
            base = OrthogonalLearner(strategy=search)
    elif objective == ORTHOGONAL:
        preset = search or _PRESET_SEARCH.get(getattr(base, "name", None))
        if preset is None:
            raise ValueError(f"objective='orthogonal' needs learner='greedy', 'optimal' or "
                             f"'orthogonal' (or search=...); got {learner!r}.")
        base = OrthogonalLearner(strategy=preset)
    elif search is not None:
        base = _STANDARD_SEARCH[search]()
    if weight_update == "auto":
        weight_update = "corrective" if objective == ORTHOGONAL else "stagewise"
    return base, objective, weight_update
