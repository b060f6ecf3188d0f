"""The client's few Dask operations: one task per partition, tree reductions.

Everything else in :mod:`rulebook.dask` submits the functions of
:mod:`rulebook.dask._partitions` through these, so that how work reaches the
workers is written once.
"""

import pandas as pd

from . import _partitions

# Partial results merged per reduction task: a tree of depth
# log_8(partitions), so that no worker receives every partition's histogram
# at once (lightgbm.dask and xgboost.dask reduce through their own
# collective (allreduce); this is Dask's own tree reduction, as in
# ``dask.array.reduction``'s ``split_every``).
FAN_IN = 8

# The priority of the tasks that merge (or unbox) partial results, above
# the per-partition tasks' 0: a merge runs as soon as its inputs are done,
# before the next partition is read, so that a worker holds a few partial
# results at a time instead of every partition's. Without it the scheduler
# ran every partition first (they were submitted first), and the first
# pass's quantile sketches (655 KB a partition at 20 columns) could pile
# up (see reduce).
MERGE_PRIORITY = 1


def require_dask():
    """Import Dask's dataframe and distributed packages, or say how to install them.

    Raises
    ------
    ImportError
        When the optional ``dask`` extra is not installed.
    """
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as error:
        raise ImportError(
            "rulebook.dask needs Dask's dataframe and distributed packages, the optional "
            "'dask' extra: pip install 'rulebook[dask]' (or pip install 'dask[dataframe,"
            f"distributed]'). ({error})") from error


def current_client():
    """The ``distributed.Client`` of this process (``distributed.get_client``).

    Raises
    ------
    ValueError
        When there is none, saying how to start one.
    """
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise ValueError(
            "rulebook.dask needs a distributed.Client: start one before fit, e.g. "
            "client = distributed.Client(distributed.LocalCluster()), or connect to your "
            "cluster with distributed.Client(address).") from None


def per_partition(client, func, collections, *args):
    """Futures of ``func(part, *parts_of_others, *args)``, one per partition.

    Parameters
    ----------
    client : distributed.Client
    func : callable
        Called with the partitions of ``collections`` (pandas objects, or
        None where a collection is None) and then ``args``.
    collections : sequence of dask DataFrame, dask Series or None
        Partitioned alike (the caller checks the number of partitions).
    *args
        Plain values passed to every call.

    Returns
    -------
    list of distributed.Future
        In partition order.

    Notes
    -----
    One ``map_partitions`` over all collections, so that columns of one
    frame (``X = df[features]``, ``y = df["target"]``) are read once: Dask's
    expression optimiser computes their common source once per pass.
    """
    import dask.dataframe as dd

    present = [c for c in collections if c is not None]
    where = [c is not None for c in collections]

    def call(*parts):
        parts = iter(parts)
        given = [next(parts) if w else None for w in where]
        return pd.Series([func(*given, *args)], dtype=object)

    wrapped = dd.map_partitions(call, *present, meta=pd.Series(dtype=object),
                                align_dataframes=False, enforce_metadata=False)
    boxed = client.compute(wrapped.to_delayed())
    return client.map(_unbox, boxed, pure=False, priority=MERGE_PRIORITY)


def _unbox(series):
    return series.iloc[0]


def each(client, func, *per_part, args=()):
    """Futures of ``func(*[p[k] for p in per_part], *args)`` for each partition ``k``.

    ``per_part`` are lists of futures (or of plain values), one per
    partition; the task of partition ``k`` runs where its inputs are. One
    message to the scheduler for all partitions (``Client.map``).
    """
    return client.map(_call, *per_part, task=func, args=args)


def _call(*inputs, task, args):
    return task(*inputs, *args)


def reduce(client, futures, func):
    """``func`` applied in a tree over ``futures``; the result on the client.

    ``func(*parts)`` merges up to :data:`FAN_IN` partial results into one;
    the last merge runs on the client (the last :data:`FAN_IN` partial
    results are gathered: one round trip less than a task would take). The
    tree's shape depends only on the number of partitions, so a sum of
    floats adds in the same order every time.

    ``futures`` is emptied: a future the client holds keeps its result on
    a worker, so the list's futures are dropped as soon as their merges are
    submitted, and each partial result is freed once merged. (Held until
    the end, the first pass's quantile sketches piled up: 187 of them,
    117 MB, on a worker of 200 partitions, bench_dask.py.)
    """
    level = futures
    while len(level) > FAN_IN:
        merged = [client.submit(func, *level[i:i + FAN_IN], priority=MERGE_PRIORITY)
                  for i in range(0, len(level), FAN_IN)]
        level.clear()
        level = merged
    parts = client.gather(level)
    level.clear()
    return func(*parts)


class Workers:
    """The binned partitions grouped by the worker holding them: one task per
    worker for each request of the rounds.

    A worker's partitions are bundled into one list (no copy: the same
    arrays); every request of the rounds (a search node's histograms, a
    sum) is then one task per worker, which runs
    over its partitions in order and merges their results before sending
    them, as ``lightgbm.dask`` and ``xgboost.dask`` have one process per
    worker hold all its rows. What crosses the network per request is one
    result per worker, however many partitions; and the scheduler handles
    a task per worker, not per partition.

    Parameters
    ----------
    client : distributed.Client
    shards : list of distributed.Future
        The binned partitions (:class:`~rulebook.dask._partitions.Shard`),
        in partition order; waited for here.

    Notes
    -----
    Partial results add in partition order on each worker, then in the
    order of the workers' first partitions: the order depends on where the
    partitions were binned, so two fits may differ in the last bits of
    their sums (never in how they add up to 1e-9).
    """

    def __init__(self, client, shards):
        from distributed import wait

        wait(shards)
        holders = client.who_has(shards)
        groups = {}
        for future in shards:
            where = min(holders.get(future.key) or ("",))
            groups.setdefault(where, []).append(future)
        self.client = client
        self.addresses = [where or None for where in groups]
        self.bundles = [self._submit(where, _partitions.bundle, *futures)
                        for where, futures in zip(self.addresses, groups.values())]

    def __len__(self):
        return len(self.bundles)

    def _submit(self, where, func, *args):
        return self.client.submit(func, *args, workers=None if where is None else [where],
                                  allow_other_workers=True, pure=False)

    def run(self, task, *args, merge=_partitions.add_results):
        """Per worker, a future of ``task(shard, *args)`` merged over its partitions."""
        return [self._submit(where, _partitions.over_bundle, shards, task, args, merge)
                for where, shards in zip(self.addresses, self.bundles)]

    def sum(self, task, *args, merge=_partitions.add_results):
        """``task`` over all partitions, merged, on the client (one round trip)."""
        return reduce(self.client, self.run(task, *args, merge=merge), merge)
