"""The estimators of :mod:`rulebook.dask`: rulebook's own, fitted on Dask collections.

Each subclasses the in-memory estimator (same parameters, same
``ensemble_``, same predictions on pandas and numpy input) and replaces
``fit`` by the distributed fit (:mod:`rulebook.dask._binning`,
:mod:`rulebook.dask._boosting`); prediction on a Dask collection maps the
in-memory prediction over its partitions.
"""

import sys

import numpy as np
import pandas as pd
from sklearn.utils.validation import validate_data

from .. import estimators
from .._progress import round_bar
from .._validation import NOMINAL
from ..boosting import BoostingSetup
from ..greedy import GreedyLearner
from ..learners import resolve_learner
from ..losses import get_loss
from ..rules import RuleEnsemble
from . import _binning, _client
from ._atoms import fit_on_atoms
from ._boosting import DistributedSetup, fit_boosting

_SUPPORTED = ("rulebook.dask supports every learner and weight update, with propositions=None "
              "and include_linear=False")


def is_dask_collection(value):
    """Whether ``value`` is a Dask collection (False whenever Dask was never imported)."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(value)


def is_dask_array(value):
    """Whether ``value`` is a dask array."""
    return is_dask_collection(value) and type(value).__module__.startswith("dask.array")


def _check_distributed_params(estimator):
    """The resolved learner, objective and weight update; refuses what is not distributed.

    Raises
    ------
    NotImplementedError
        ``propositions`` or ``include_linear``, naming the parameter.
    """
    learner, objective, weight_update = resolve_learner(
        estimator.learner, estimator.objective, estimator.search, estimator.weight_update)
    for name, default in (("propositions", None), ("include_linear", False)):
        if getattr(estimator, name) is not default and getattr(estimator, name) != default:
            raise NotImplementedError(
                f"{name}={getattr(estimator, name)!r} is not distributed yet: {_SUPPORTED}.")
    return learner, objective, weight_update


def on_histograms(learner, objective, weight_update):
    """Whether the fit runs on summed histograms (:mod:`rulebook.dask._boosting`,
    any number of rows) rather than on merged atoms (:mod:`rulebook.dask._atoms`)."""
    return (isinstance(learner, GreedyLearner) and objective != "orthogonal"
            and weight_update == "stagewise")


def _as_collections(X, y, sample_weight):
    """``X`` as a dask DataFrame, ``y`` and ``sample_weight`` as dask Series
    partitioned alike (``sample_weight`` may stay None).

    Raises
    ------
    TypeError
        Input that is not a Dask collection of the right kind, naming it.
    ValueError
        ``y`` or ``sample_weight`` with another number of partitions (or
        chunks) than ``X``.
    """
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(X, da.Array) and X.ndim == 2:
        if X.chunks[1] != (X.shape[1],):
            X = X.rechunk({1: -1})  # whole rows per block, as a partition has
        X = dd.from_dask_array(X, columns=[f"x{j}" for j in range(X.shape[1])])
    elif not isinstance(X, dd.DataFrame):
        raise TypeError(
            "X must be a dask.dataframe.DataFrame or a 2-D dask.array.Array; got "
            f"{type(X).__module__}.{type(X).__name__}. For data in memory (pandas, numpy) use "
            "rulebook.RuleBoostingClassifier / RuleBoostingRegressor.")
    if X.shape[1] == 0:
        raise ValueError("X has no columns; at least one feature is required.")
    if not X.columns.is_unique:
        dupes = sorted(map(str, X.columns[X.columns.duplicated()].unique()))
        raise ValueError(f"X has duplicate column names {dupes}; column names must be unique.")
    y = _as_series("y", y, X)
    sample_weight = None if sample_weight is None else _as_series("sample_weight", sample_weight, X)
    return X, y, sample_weight


def _as_series(name, values, X):
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(values, dd.DataFrame) and len(values.columns) == 1:
        values = values[values.columns[0]]
    elif isinstance(values, da.Array) and values.ndim == 1:
        values = dd.from_dask_array(values)
    several = (isinstance(values, dd.DataFrame)
               or (isinstance(values, da.Array) and values.ndim == 2))
    if name == "y" and several:
        raise NotImplementedError(
            f"y has {values.shape[1]} columns: targets of several outputs (multi-label, "
            "multi-output regression) are not distributed yet. Fit them in memory with "
            "rulebook.RuleBoostingClassifier / RuleBoostingRegressor (X.compute(), "
            "y.compute()).")
    if not isinstance(values, dd.Series):
        raise TypeError(
            f"{name} must be a dask.dataframe.Series (or a 1-D dask.array.Array) partitioned as "
            f"X; got {type(values).__module__}.{type(values).__name__}.")
    if values.npartitions != X.npartitions:
        raise ValueError(
            f"{name} has {values.npartitions} partitions and X has {X.npartitions}; {name} must be "
            "partitioned as X (the same partitions, with the same rows), e.g. a column of the "
            "Dask DataFrame X was selected from.")
    return values


class _DaskRuleBoosting:
    """Fit on Dask collections; predict on Dask collections or in memory."""

    def fit(self, X, y, sample_weight=None):
        """Fit the rule ensemble on a Dask collection, with the current ``distributed.Client``.

        Parameters
        ----------
        X : dask.dataframe.DataFrame or 2-D dask.array.Array of shape (n_samples, n_features)
            Numeric columns and nominal ones (bool, category, string);
            missing values allowed. Read twice (bins, then bin codes), never
            held whole: persist it first if it is costly to compute.
        y : dask.dataframe.Series or 1-D dask.array.Array of shape (n_samples,)
            Partitioned as ``X``.
        sample_weight : dask.dataframe.Series or 1-D dask.array.Array of shape (n_samples,), optional
            Partitioned as ``X``; non-negative and finite, not all zero.

        Returns
        -------
        self

        Raises
        ------
        ImportError
            Without the optional ``dask`` extra (``pip install "rulebook[dask]"``).
        TypeError
            ``X``, ``y`` or ``sample_weight`` that is not a Dask collection
            of that kind (pandas or numpy input: use the in-memory
            estimators), columns of unsupported dtype.
        ValueError
            No ``distributed.Client``; for a fit on atoms (every learner but
            greedy with stagewise weights), more atoms (rows with distinct
            bins) than the client takes (``rulebook.dask._atoms.MAX_ATOMS``);
            ``y`` or ``sample_weight`` partitioned
            otherwise than ``X``; the in-memory fit's checks of parameters,
            columns, target and weights; a text column whose cells all hold
            numbers (convert it: :func:`dask.dataframe.to_numeric`).
        NotImplementedError
            ``propositions`` or ``include_linear``: not distributed yet (the
            message names the parameter); a ``y`` of several columns
            (several outputs: fit them in memory). A classifier's ``y``
            of more than two classes raises ValueError (multi-class
            targets are fitted in memory too).
        KeyboardInterrupt
            On Ctrl-C: at the end of the current round trip to the
            workers (a search node's sums, about 0.1 s to a few seconds on
            large partitions), as the in-memory fit does. The estimator is
            then unfitted; the tasks of the fit are released (those
            running finish on their workers, their results dropped).
        """
        # The in-memory fit's wrapper: Ctrl-C noted and raised cleanly,
        # the estimator left unfitted (estimators._RuleBoosting.fit).
        return super().fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        """The distributed fit (:meth:`fit` without its handling of Ctrl-C)."""
        self._check_params()
        learner, objective, weight_update = _check_distributed_params(self)
        _client.require_dask()
        by_name = not is_dask_array(X)  # columns by name, as the in-memory fit of a DataFrame
        X, y, sample_weight = _as_collections(X, y, sample_weight)
        client = _client.current_client()
        self._forget_fit()
        # On an empty frame (or array) like X: the attributes the in-memory
        # fit sets (n_features_in_, and feature_names_in_ for string names).
        validate_data(self, X._meta if by_name else np.empty((0, X.shape[1])),
                      skip_check_array=True, reset=True)
        binner = _binning.new_binner(self)
        classify = isinstance(self, estimators.RuleBoostingClassifier)
        shards, summary = _binning.fit_bins(client, X, y, sample_weight, binner, classify)
        if classify:
            self.classes_ = summary["classes"]
        else:
            _binning.check_regression_target(summary, self.loss)
        loss, max_rule_length = get_loss(self._loss_name_), self._max_rule_length() or 0
        with round_bar(self.n_rules, self.verbose) as progress:
            if on_histograms(learner, objective, weight_update):
                workers = _client.Workers(client, shards)
                del shards  # the workers' bundles hold them
                intercept, rules, history = fit_boosting(DistributedSetup(
                    workers=workers, binner=binner, loss=loss, learner=learner,
                    objective=objective, reg_lambda=float(self.reg_lambda), n_rules=self.n_rules,
                    max_rule_length=max_rule_length, progress=progress))
            else:
                intercept, rules, history = fit_on_atoms(client, shards, BoostingSetup(
                    X_binned=None, binner=binner, y=None, sample_weight=None, loss=loss,
                    learner=learner, objective=objective, reg_lambda=float(self.reg_lambda),
                    n_rules=self.n_rules, max_rule_length=max_rule_length, progress=progress,
                    weight_update=weight_update))
        features = binner.features_
        self._feature_kinds = tuple(f.kind for f in features)
        self._categories = {f.name: frozenset(f.categories) for f in features if f.kind == NOMINAL}
        self._fit_columns = tuple(X.columns) if by_name else None
        self.ensemble_ = RuleEnsemble(intercept, tuple(rules), self._loss_name_,
                                      tuple(f.name for f in features), by_name, ())
        self.history_ = history
        return self

    def to_json(self, path=None, *, indent=None):
        """Save the fitted estimator as the in-memory estimator's JSON.

        :func:`rulebook.load_model` reads it back as
        :class:`rulebook.RuleBoostingClassifier` /
        :class:`rulebook.RuleBoostingRegressor` with the same parameters,
        rules and ``history_``: the same predictions on pandas and numpy
        input. To predict on Dask collections again, map its ``predict``
        over the partitions (``X.map_partitions(model.predict, ...)``).

        Parameters
        ----------
        path : str or path-like, optional
            File to write (UTF-8); ``None`` returns the text.
        indent : int or None, default=None
            As :func:`json.dumps`.

        Returns
        -------
        str or None
            The JSON text, or None when written to ``path``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            As :meth:`rulebook.RuleBoostingClassifier.to_json`.
        """
        return self._in_memory_twin().to_json(path, indent=indent)

    def _in_memory_twin(self):
        """The in-memory estimator with this one's parameters and fitted state
        (the same attributes, not copied: the ensemble is immutable)."""
        in_memory = next(cls for cls in type(self).__mro__
                         if cls.__module__ == estimators.__name__ and not cls.__name__.startswith("_"))
        twin = in_memory.__new__(in_memory)
        twin.__dict__.update(self.__dict__)
        return twin

    def _map(self, X, method, meta):
        """``method`` of the in-memory estimator over the partitions or blocks of ``X``."""
        import dask.array as da

        if isinstance(X, da.Array):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D; got a dask array of shape {X.shape}.")
            X = X.rechunk({1: -1})
            if meta.ndim == 1:
                return X.map_blocks(_block_call, self, method, meta.to_numpy(), drop_axis=1,
                                    dtype=meta.dtype)
            return X.map_blocks(_block_call, self, method, meta.to_numpy(),
                                chunks=(X.chunks[0], (meta.shape[1],)), dtype=meta.dtypes.iloc[0])
        return X.map_partitions(_partition_call, self, method, meta, meta=meta)


def _partition_call(part, estimator, method, meta):
    """``estimator.method(part)`` on one pandas partition, indexed as it.

    An empty partition (a filter's, say) gives an empty result: the
    in-memory estimator refuses a table without rows.
    """
    if len(part) == 0:
        return meta.set_axis(part.index, axis=0)
    result = getattr(estimator, method)(part)
    if result.ndim == 1:
        return pd.Series(result, index=part.index)
    return pd.DataFrame(result, index=part.index, columns=list(estimator.classes_))


def _block_call(block, estimator, method, empty):
    """``estimator.method(block)`` on one block of a dask array (``empty``,
    without rows, for a block without rows)."""
    if block.shape[0] == 0:
        return empty
    return getattr(estimator, method)(block)


_FIT_NOTES = """
    Notes
    -----
    ``fit`` takes Dask collections only and uses the current
    ``distributed.Client``: the bins come from a quantile sketch merged over
    all partitions (exact where each partition has at most 2048 distinct
    values per column), the partitions are binned on the workers and stay
    there (``uint8`` codes at up to 256 bins). The greedy learner with
    stagewise weights (the default) searches on histograms summed over
    partitions at each search node, for any number of rows. Every other learner and weight update (optimal,
    orthogonal, beam search, corrective weights) runs rulebook's own loop on
    the client on the data's atoms (rows with the same bins in every
    column), merged over partitions with their rows' sums: exact, as long
    as the atoms fit on the client (``rulebook.dask._atoms.MAX_ATOMS``).
    With the same bins (e.g. ``cut_points`` for every numeric column), the
    rules, intercept and weights are those of the in-memory estimator, to
    rounding.
    ``predict`` and the other prediction methods return a Dask collection
    (a Series, or a DataFrame with a column per class, indexed as ``X``; a
    dask array for a dask array) for Dask input, and what the in-memory
    estimator returns for pandas or numpy input. ``to_json`` saves the
    in-memory estimator's JSON (``load_model`` gives the in-memory class).
    Not distributed yet: ``propositions``, ``include_linear``, the
    ``staged_*`` methods on Dask input.

    References
    ----------
    .. [1] Issue 22, "Beyond one machine: rule boosting on Dask".
    .. [2] The designs of ``lightgbm.dask`` and ``xgboost.dask``: estimators
       that subclass the in-memory ones, fit on Dask collections with the
       current client, and return a plain in-memory model.
"""


class RuleBoostingClassifier(_DaskRuleBoosting, estimators.RuleBoostingClassifier):
    __doc__ = f"""Gradient rule boosting for binary classification on a Dask cluster.

    :class:`rulebook.RuleBoostingClassifier` fitted on Dask collections with
    the current ``distributed.Client``; ``ensemble_`` is a plain
    :class:`~rulebook.RuleEnsemble`, which also predicts on pandas.

    Parameters
    ----------
{estimators._PARAMETERS}
    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class.
{estimators._ATTRIBUTES}
{_FIT_NOTES}"""

    def _fits_multi_class(self):
        # The distributed fit takes two classes (dask._binning refuses more,
        # in the words scikit-learn's checks expect); the tags say so.
        return False

    def decision_function(self, X):
        """Raw scores (log odds of ``classes_[1]``).

        Parameters
        ----------
        X : dask.dataframe.DataFrame, dask.array.Array, DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        dask Series (dask array for a dask array) or ndarray of shape (n_samples,), float64
        """
        if is_dask_collection(X):
            return self._map(X, "decision_function", pd.Series(dtype=np.float64))
        return super().decision_function(X)

    def predict_proba(self, X):
        """Class probabilities, columns ordered as ``classes_``.

        Parameters
        ----------
        X : dask.dataframe.DataFrame, dask.array.Array, DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        dask DataFrame (columns ``classes_``; dask array for a dask array) or ndarray of shape (n_samples, 2), float64
        """
        if is_dask_collection(X):
            meta = pd.DataFrame({label: pd.Series(dtype=np.float64) for label in self.classes_})
            return self._map(X, "predict_proba", meta)
        return super().predict_proba(X)

    def predict(self, X):
        """Most probable class label.

        Parameters
        ----------
        X : dask.dataframe.DataFrame, dask.array.Array, DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        dask Series (dask array for a dask array) or ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        if is_dask_collection(X):
            return self._map(X, "predict", pd.Series(dtype=self.classes_.dtype))
        return super().predict(X)


class RuleBoostingRegressor(_DaskRuleBoosting, estimators.RuleBoostingRegressor):
    __doc__ = f"""Gradient rule boosting for regression and counts on a Dask cluster.

    :class:`rulebook.RuleBoostingRegressor` fitted on Dask collections with
    the current ``distributed.Client``; ``ensemble_`` is a plain
    :class:`~rulebook.RuleEnsemble`, which also predicts on pandas.

    Parameters
    ----------
    loss : {{"squared", "poisson"}}, default="squared"
        ``"poisson"`` (log link) for non-negative counts.
{estimators._PARAMETERS}
    Attributes
    ----------
{estimators._ATTRIBUTES}
{_FIT_NOTES}"""

    def predict(self, X):
        """Predicted mean: ``f(x)`` (squared loss) or ``exp(f(x))`` (Poisson).

        Parameters
        ----------
        X : dask.dataframe.DataFrame, dask.array.Array, DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        dask Series (dask array for a dask array) or ndarray of shape (n_samples,), float64
        """
        if is_dask_collection(X):
            return self._map(X, "predict", pd.Series(dtype=np.float64))
        return super().predict(X)
