"""The numbered propositions of a search problem.

Every proposition a query can use is numbered once per fit, in the order of
the greedy scan (per feature: ``<=`` by ascending bin, then ``>`` by
descending bin; ``==`` and ``!=`` per category for nominal features). The
optimal search and query shortening work on these numbers; learners return
binned ``(feature, op, bin)`` triples, which :meth:`_PropositionSpace.numbers`
maps back.
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._search_kernels import EQ, GT, LE, NE


@dataclass(frozen=True)
class _PropositionSpace:
    """The numbered propositions of a problem, in the greedy scan's order."""

    feature: np.ndarray
    op: np.ndarray
    bin: np.ndarray
    searched: np.ndarray

    @classmethod
    def of(cls, problem):
        # Every round of a fit asks for the same space: keep the last one.
        allowed = getattr(problem, "allowed", None)
        key = tuple(None if a is None else (a.dtype.str, a.shape, a.tobytes())
                    for a in (np.asarray(problem.n_bins), np.asarray(problem.is_nominal), allowed))
        last = _LAST_SPACE.get("entry")
        if last is not None and last[0] == key:
            return last[1]
        space = cls._build(problem)
        for array in (space.feature, space.op, space.bin, space.searched):
            array.flags.writeable = False  # shared by later rounds
        _LAST_SPACE["entry"] = (key, space)
        return space

    @classmethod
    def _build(cls, problem):
        feature, op, bin_ = [], [], []
        for j, nb in enumerate(int(b) for b in problem.n_bins):
            if problem.is_nominal[j]:
                for k in range(nb):
                    feature.append(j), op.append(EQ), bin_.append(k)
                    if nb > 2:
                        feature.append(j), op.append(NE), bin_.append(k)
            else:
                for k in range(nb - 1):
                    feature.append(j), op.append(LE), bin_.append(k)
                for k in range(nb - 2, -1, -1):
                    feature.append(j), op.append(GT), bin_.append(k)
        as_int = lambda values: np.array(values, dtype=np.int64)
        feature, op, bin_ = as_int(feature), as_int(op), as_int(bin_)
        searched = np.arange(len(feature), dtype=np.int64)
        allowed = getattr(problem, "allowed", None)
        if allowed is not None:
            searched = searched[allowed[feature, bin_, op]]
        return cls(feature, op, bin_, searched)

    def __len__(self):
        return len(self.feature)

    def condition(self, p):
        return int(self.feature[p]), int(self.op[p]), int(self.bin[p])

    def conditions(self, props):
        return tuple(self.condition(p) for p in props)

    def numbers(self, conditions, searched_only=False):
        """Proposition numbers of binned ``(feature, op, bin)`` conditions.

        Parameters
        ----------
        conditions : iterable of (int, int, int)
        searched_only : bool, default=False
            Accept only propositions the search may use (``searched``).

        Returns
        -------
        tuple of int, or None
            In the order given; None when a condition is not in the space
            (or, with ``searched_only``, not searched).
        """
        index = self._searched_index if searched_only else self._index
        props = tuple(index.get(tuple(int(v) for v in c)) for c in conditions)
        return None if any(p is None for p in props) else props

    @cached_property
    def _index(self):
        # Built once per space; the space is shared by every round of a fit.
        return {self.condition(p): p for p in range(len(self))}

    @cached_property
    def _searched_index(self):
        return {self.condition(p): p for p in self.searched}


_LAST_SPACE = {}  # the last space built (replaced whole: safe across threads)
