"""The named base learners. ``learner=`` of the estimators picks one.

A learner is a function ``search(problem: SearchProblem) -> SearchResult``.
The optimal (branch-and-bound) and orthogonal learners register here too,
so the estimators' API does not change when they land.
"""

from .greedy import greedy_search

LEARNERS = {
    "greedy": greedy_search,
}


def get_learner(name):
    """The search function of learner ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not a registered learner.
    """
    try:
        return LEARNERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"learner={name!r} is not available; valid learners are {sorted(LEARNERS)}"
        ) from None
