"""The named base learners. ``learner=`` of the estimators picks one.

A learner is an object with a method ``search(problem: SearchProblem) ->
SearchResult``; its options are its constructor's arguments (for example a
node budget for the optimal learner), so the estimators need no parameter per
learner option. ``learner="greedy"`` is short for ``learner=GreedyLearner()``.
The optimal and orthogonal learners register here too.
"""

from .greedy import GreedyLearner
from .optimal import OptimalLearner

LEARNERS = {
    "greedy": GreedyLearner,
    "optimal": OptimalLearner,
}


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
