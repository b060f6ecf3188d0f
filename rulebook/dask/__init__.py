"""Rule boosting on a Dask cluster (issue 22): estimators that fit Dask collections.

:class:`RuleBoostingClassifier` and :class:`RuleBoostingRegressor` take the
parameters of :class:`rulebook.RuleBoostingClassifier` /
:class:`rulebook.RuleBoostingRegressor` and fit a ``dask.dataframe.DataFrame``
(or a 2-D dask array) with a target partitioned alike, using the current
``distributed.Client``. The fitted ``ensemble_`` is a plain
:class:`~rulebook.RuleEnsemble`.

How a fit is spread:

* bins: a weighted quantile sketch per numeric column and the categories of
  the nominal ones, merged over partitions in a tree; each worker bins its
  partitions (``uint8`` codes at up to 256 bins, else ``uint16``) and keeps
  them with a compact target (:mod:`._binning`);
* rounds of the greedy learner with stagewise weights (the default): the
  workers keep their raw scores as one or two bytes a row (a code into the
  partition's few distinct scores); each search node is its path of
  conditions, and one task per worker recomputes the node's rows and their
  gradients from the codes and scores, builds its histograms and sums them
  over its partitions; the client sums the workers' histograms and scans
  them with rulebook's own scan (:mod:`._search`); once the rule is chosen
  the workers update their raw scores (:mod:`._boosting`). What crosses the
  network per node is a histogram per worker, whatever the number of rows
  or partitions;
* every other learner and weight update (optimal, orthogonal, beam,
  corrective): the atoms (rows with the same bins) of all partitions,
  merged once with their rows' sums, and rulebook's own loop on them on the
  client (:mod:`._atoms`); exact while the atoms fit there.

Dask is an optional dependency (``pip install "rulebook[dask]"``); it is
imported when a fit or a prediction on Dask input needs it.

References
----------
.. [1] Issue 22, "Beyond one machine: rule boosting on Dask".
.. [2] ``lightgbm.dask`` and ``xgboost.dask``: the designs followed for the
   estimators (subclasses of the in-memory ones that fit on Dask
   collections with the current client and return a plain model).
"""

from ._estimators import RuleBoostingClassifier, RuleBoostingRegressor

__all__ = ["RuleBoostingClassifier", "RuleBoostingRegressor"]
